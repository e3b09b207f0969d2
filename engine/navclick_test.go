package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

// loadingDriver is a replay driver whose page is busy until a quiet wait
// (engine.Quieter): the wait lets the replay's clock run past its window,
// so the captures the live page made while it loaded are due.
type loadingDriver struct {
	*replay.Driver
	waits int
}

func (d *loadingDriver) WaitQuiet(ctx context.Context, quiet, max time.Duration) (string, error) {
	d.waits++
	return "", d.Sleep(ctx, 150*time.Millisecond)
}

// TestClickThatOpensAPageLeavesItReady (ACT-6): a click whose expected
// URL is met on the new document half parsed (its text shown, its link
// not yet) leaves the page once it is ready: After shows the whole page;
// a click that stays on its URL waits for nothing.
func TestClickThatOpensAPageLeavesItReady(t *testing.T) {
	const next = "http://sim.test/next"
	start := capture.New(url, `<html><body><main><a href="/next" data-rl-node="n2">Next page</a></main></body></html>`)
	half := capture.New(next, `<html><body><main><h1>Next</h1><p>You followed the link.</p></main></body></html>`)
	whole := capture.New(next, `<html><body><main><h1>Next</h1><p>You followed the link.</p><p><a href="/" data-rl-node="n3">Back</a></p></main></body></html>`)
	for _, tc := range []struct {
		name      string
		expect    engine.Expect
		after     []*capture.Capture
		wantWaits int
		wantLinks int
	}{
		{name: "opens another page", expect: engine.Expect{URL: next, Timeout: time.Second}, after: []*capture.Capture{half, whole}, wantWaits: 2, wantLinks: 1},
		{name: "stays on its URL", expect: engine.Expect{URL: url, Timeout: time.Second}, after: []*capture.Capture{start}, wantWaits: 1, wantLinks: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := &loadingDriver{Driver: replay.NewDriver(recording([]*capture.Capture{start}, tc.after...))}
			p := engine.New(engine.Config{Tracer: &trace.Log{}}).Begin(ctx, t.Name()).Page("main", d)
			if err := p.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			if err := p.Click(ctx, engine.ByRole("link", "Next page"), tc.expect); err != nil {
				t.Fatal(err)
			}
			a, err := p.After(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d.waits != tc.wantWaits {
				t.Errorf("quiet waits: %d, want %d (the navigation's, and one after a click that opened a page)", d.waits, tc.wantWaits)
			}
			links := 0
			for _, e := range a.Elements {
				if e.Role == "link" {
					links++
				}
			}
			if links != tc.wantLinks {
				t.Errorf("After shows %d links, want %d: %+v", links, tc.wantLinks, a.Elements)
			}
		})
	}
}
