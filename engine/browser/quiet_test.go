package browser_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// The quiet window is the page's own account (APP-1): a page that changes
// its DOM every 60 ms for a while after its load, then stops, is quiet
// only once no change has come for the window, by the page's clock
// (the time since its last change, read in the page when the wait ends);
// the time the navigation's capture took counts towards the window.
func TestWaitQuietCountsThePagesOwnWindow(t *testing.T) {
	const page = `<!DOCTYPE html><html><body><p id="n">0</p><script>
window.addEventListener("load", () => {
  let k = 0;
  const id = setInterval(() => {
    document.getElementById("n").textContent = String(++k);
    window.__last = performance.now();
    if (k === 12) clearInterval(id);
  }, 60);
});
</script></body></html>`
	base := serveTB(t, map[string]string{"/q": page})
	p := newPage(t)
	ctx := context.Background()
	if err := p.Navigate(ctx, base+"/q"); err != nil {
		t.Fatal(err)
	}
	const quiet = 300 * time.Millisecond
	busy, err := p.WaitQuiet(ctx, quiet, 20*time.Second)
	if err != nil || busy != "" {
		t.Fatalf("busy %q, err %v", busy, err)
	}
	got, err := p.EvalForTest(ctx, `JSON.stringify([document.getElementById("n").textContent, performance.now() - (window.__last || 0)])`)
	if err != nil {
		t.Fatal(err)
	}
	var s string // EvalForTest returns the JSON value: a string, quoted
	var r []any
	if json.Unmarshal([]byte(got), &s) != nil || json.Unmarshal([]byte(s), &r) != nil || len(r) != 2 {
		t.Fatalf("bad answer %s", got)
	}
	if r[0] != "12" {
		t.Errorf("the wait ended with the page at change %v of 12", r[0])
	}
	if ms, _ := r[1].(float64); ms < float64(quiet.Milliseconds()) {
		t.Errorf("the wait ended %.0f ms after the page's last change, want at least %v", ms, quiet)
	}
}

// A whole-body read counts as a request in flight (APP-1): a thread whose
// response headers come at once and whose body comes 600 ms later, read
// with json() and then rendered, is waited for under the default wall
// window, far shorter than the body's delay.
func TestWaitQuietWaitsForABodyRead(t *testing.T) {
	const page = `<!DOCTYPE html><html><body><main id="thread">loading</main><script>
window.addEventListener("load", () => {
  fetch("/thread" + location.search).then((r) => r.json()).then((d) => { document.getElementById("thread").innerHTML = "<p>" + d.text + "</p>"; });
});
</script></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/thread" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush() // the headers now, the body later
			if r.URL.RawQuery == "never" {
				<-r.Context().Done()
				return
			}
			time.Sleep(600 * time.Millisecond)
			_, _ = w.Write([]byte(`{"text":"the thread"}`))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	p := newPage(t)
	ctx := context.Background()
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	busy, err := p.WaitQuiet(ctx, engine.DefaultQuietWindow, 10*time.Second)
	if err != nil || busy != "" {
		t.Fatalf("busy %q, err %v", busy, err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Frames[0].HTML, ">the thread</p>") {
		t.Errorf("the wait ended before the body was read and rendered: %s", c.Frames[0].HTML)
	}
	// a body that never comes is named
	if err := p.Navigate(ctx, srv.URL+"/?never"); err != nil {
		t.Fatal(err)
	}
	busy, err = p.WaitQuiet(ctx, engine.DefaultQuietWindow, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 request in flight: the body of " + srv.URL + "/thread?never (json())"; busy != want {
		t.Errorf("busy %q, want %q", busy, want)
	}
}
