package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/clock"
)

// clockPage streams on its own timers: a setInterval every second, a
// button whose click fetches /slow (answered 300 ms of wall time later)
// and then waits 2.5 s on a setTimeout, and a late picture whose src is
// set 700 ms after that.
const clockPage = `<!doctype html><html><body>
<p id="tick">tick 0</p><p id="date"></p><p id="perf"></p><p id="out">idle</p><div id="pic"></div>
<button id="go">Go</button>
<script>
let n = 0;
const iv = setInterval(() => { document.getElementById("tick").textContent = "tick " + (++n); if (n === 3) clearInterval(iv); }, 1000);
document.getElementById("date").textContent = "date " + Date.now() + " " + (new Date()).getTime();
requestAnimationFrame(() => { document.getElementById("perf").textContent = "perf " + Math.round(performance.now()); });
document.getElementById("go").addEventListener("click", async () => {
  const r = await (await fetch("/slow")).text();
  document.getElementById("out").textContent = "fetched " + r;
  await new Promise(res => setTimeout(res, 2500));
  document.getElementById("out").textContent = "done " + r;
  const img = document.createElement("img");
  document.getElementById("pic").appendChild(img);
  setTimeout(() => { img.src = "/pic.png"; }, 700);
});
</script></body></html>`

// onePixelPNG is a 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestPageClockRunsThePagesTimersOnTheLab(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			time.Sleep(300 * time.Millisecond) // wall time the settle waits out
			_, _ = w.Write([]byte("answer"))
		case "/pic.png":
			time.Sleep(200 * time.Millisecond)
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(onePixelPNG)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(clockPage))
		}
	}))
	t.Cleanup(srv.Close)
	lab := clock.NewLab(clock.Epoch)
	if err := p.InstallPageClock(ctx, lab); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	read := func(re string) string {
		t.Helper()
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(re).FindStringSubmatch(c.Frames[0].HTML)
		if m == nil {
			t.Fatalf("no %s in %s", re, c.Frames[0].HTML)
		}
		return m[1]
	}
	at := func() time.Duration { return lab.Now().Sub(clock.Epoch) }
	epochMS := "946684800000"
	if got := read(`date (\d+ \d+)`); got != epochMS+" "+epochMS {
		t.Fatalf("Date in the page reads %s, want the lab's instant %s twice", got, epochMS)
	}
	if got := read(`id="tick"[^>]*>tick (\d)`); got != "0" {
		t.Fatalf("tick %s before the lab moved", got)
	}

	// the lab wakes at each page timer, whatever the sleep asked for
	steps := []struct {
		name          string
		sleep, wantAt time.Duration
		re, want      string
	}{
		{"the animation frame", 10 * time.Second, 16 * time.Millisecond, `perf (\d+)`, "16"},
		{"the first interval", 10 * time.Second, time.Second, `id="tick"[^>]*>tick (\d)`, "1"},
		{"a sleep shorter than the next timer", 500 * time.Millisecond, 1500 * time.Millisecond, `id="tick"[^>]*>tick (\d)`, "1"},
		{"the second interval", 10 * time.Second, 2 * time.Second, `id="tick"[^>]*>tick (\d)`, "2"},
		{"the third, which clears it", 10 * time.Second, 3 * time.Second, `id="tick"[^>]*>tick (\d)`, "3"},
		{"no timer left: the deadline", 10 * time.Second, 13 * time.Second, `id="tick"[^>]*>tick (\d)`, "3"},
	}
	for _, s := range steps {
		if err := p.Sleep(ctx, s.sleep); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if at() != s.wantAt {
			t.Fatalf("%s: the lab is at %v, want %v", s.name, at(), s.wantAt)
		}
		if got := read(s.re); got != s.want {
			t.Fatalf("%s: read %s, want %s", s.name, got, s.want)
		}
	}

	// a click's fetch answers one stream interval of lab time after the
	// request (the 300 ms of wall time are waited out then, not before
	// the read), and what its answer schedules is on the lab
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	goID := regexp.MustCompile(`<button [^>]*data-rl-node="(t?\d+)"[^>]*>Go<`).FindStringSubmatch(c.Frames[0].HTML)
	if goID == nil {
		t.Fatalf("no node id for the button in %s", c.Frames[0].HTML)
	}
	if err := p.Click(ctx, goID[1]); err != nil {
		t.Fatal(err)
	}
	if got := read(`id="out"[^>]*>(\w+)`); got != "idle" {
		t.Fatalf("right after the click the page says %q, want idle (the response is not due yet)", got)
	}
	clicked := at()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := at() - clicked; got != browser.PageClockStreamInterval {
		t.Fatalf("the lab woke %v after the click, want the response's slot %v", got, browser.PageClockStreamInterval)
	}
	if got := read(`id="out"[^>]*>(\w+ \w+)`); got != "fetched answer" {
		t.Fatalf("at the response's slot the page says %q, want the fetch's answer", got)
	}
	start := at()
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := at() - start; got != 2500*time.Millisecond {
		t.Fatalf("the lab woke %v after the fetch, want the page's 2.5 s timer", got)
	}
	if got := read(`id="out"[^>]*>(\w+ \w+)`); got != "done answer" {
		t.Fatalf("page says %q, want done", got)
	}
	if err := p.Sleep(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := at() - start; got != 3200*time.Millisecond {
		t.Fatalf("the picture's timer woke the lab %v after the fetch, want 3.2 s", got)
	}
	if got := read(`<img ([^>]*)>`); !regexp.MustCompile(`complete`).MatchString(got) {
		t.Fatalf("the picture is not loaded at the read after its src was set: %s", got)
	}

	// a closed tab holds the lab up no more
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lab.Sleep(ctx, time.Second); err != nil {
		t.Fatalf("the lab after the tab closed: %v", err)
	}
}
