package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/testsite"
)

// The default readiness (APP-1) on the test site's chat app, whose thread
// arrives by fetch after the load event.
func TestWaitQuietWaitsForTheThread(t *testing.T) {
	ts, err := testsite.Start(testsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	var _ engine.Quieter = newPage(t) // the browser page is one
	tests := []struct {
		name, path string
		pageClock  bool // the wait on lab time: the held response reaches the page
		max        time.Duration
		busy       string // "" quiet
		groups     bool
	}{
		{"a thread 800 ms late", "/app/?load=800", false, 10 * time.Second, "", true},
		{"a thread that never comes", "/app/?load=never", false, 1500 * time.Millisecond, "1 request in flight: GET /app/api/thread?history=4&load=never", false},
		{"a thread 800 ms late, on the page clock", "/app/?load=800", true, 10 * time.Second, "", true},
		{"a thread that never comes, on the page clock", "/app/?load=never", true, 1500 * time.Millisecond, "1 request in flight: GET /app/api/thread?history=4&load=never", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(t)
			ctx := context.Background()
			if tt.pageClock {
				if err := p.InstallPageClock(ctx, clock.NewLab(clock.Epoch)); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Navigate(ctx, ts.URL+tt.path); err != nil {
				t.Fatal(err)
			}
			busy, err := p.WaitQuiet(ctx, 300*time.Millisecond, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if busy != tt.busy {
				t.Fatalf("busy %q, want %q", busy, tt.busy)
			}
			c, err := p.Capture(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(c.Frames[0].HTML, `data-msg="h4"`); got != tt.groups {
				t.Errorf("thread in the capture after the wait: %v, want %v", got, tt.groups)
			}
		})
	}
}
