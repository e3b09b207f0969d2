package browser_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// idlePage opens a fresh tab on the shared browser for a test or a
// benchmark; without Chromium it skips locally and fails in CI.
func idlePage(tb testing.TB) *browser.Page {
	tb.Helper()
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and %v", err)
		}
		tb.Skipf("SKIPPING browser test: %v", err)
	}
	sharedOnce.Do(func() { shared, sharedErr = browser.Start(context.Background(), browser.Options{}) })
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	p, err := shared.NewPage(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}

func serveTB(tb testing.TB, pages map[string]string) string {
	tb.Helper()
	return serve(tb, pages).URL
}

// TestUnchangedPageCostsNoCapture: a capture of a page nothing changed
// since the last one is that capture again; a change the page's observer
// reports, an action, and Refresh each make the next capture read the
// page. A capture's age is counted on a clock the test moves, so "young"
// and "settled" do not depend on how fast the machine is.
func TestUnchangedPageCostsNoCapture(t *testing.T) {
	p := idlePage(t)
	ctx := context.Background()
	var wall atomic.Int64 // the captures' clock, in ns past its start
	start := time.Now()
	p.SetCaptureClockForTest(func() time.Time { return start.Add(time.Duration(wall.Load())) })
	age := func() { wall.Add(int64(browser.CaptureSettle)) } // every capture so far is settled
	base := serveTB(t, map[string]string{"/": `<!doctype html><main><p id=out>none</p>
<button id=add onclick="document.getElementById('out').textContent='clicked'">Add</button>
<input id=field aria-label=Field>
<button id=later onclick="setTimeout(function(){document.body.insertAdjacentHTML('beforeend','<p>later</p>')}, 300)">Later</button>
<button id=silent onclick="setTimeout(function(){document.getElementById('field').value='set by script'}, 10)">Silent</button></main>`})
	if err := p.Navigate(ctx, base+"/"); err != nil {
		t.Fatal(err)
	}
	capture := func() string {
		t.Helper()
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.Frames[0].HTML
	}
	first, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// the load's own mutations may still be reported by Chromium: poll
	// until two captures in a row are one
	for range 20 {
		time.Sleep(300 * time.Millisecond)
		age()
		next, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next == first {
			break
		}
		first = next
	}
	age()
	again, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatal("an unchanged page was captured again")
	}
	// a capture younger than the settle time is never reused (a change
	// made just after it may still be on its way); once settled it is
	// (a read that finds nothing changed may return the same capture: the
	// reads are counted)
	reads := func() int { s := p.CaptureStats(); return s.Full + s.Incremental }
	p.Refresh()
	c1, _ := p.Capture(ctx)
	r1 := reads()
	c2, _ := p.Capture(ctx)
	r2 := reads()
	age()
	c3, _ := p.Capture(ctx)
	if c1 == again || r2 == r1 || c3 != c2 || reads() != r2 {
		t.Errorf("after Refresh: fresh %v, young read %v, settled reused %v; want true, true, true", c1 != again, r2 > r1, c3 == c2 && reads() == r2)
	}
	// node returns the data-rl-node of the element with the given id
	node := func(id string) string {
		t.Helper()
		doc := capture()
		i := strings.Index(doc, `id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no #%s in the capture", id)
		}
		tag := doc[strings.LastIndex(doc[:i], "<") : i+strings.IndexByte(doc[i:], '>')]
		_, rest, ok := strings.Cut(tag, `data-rl-node="`)
		if !ok {
			t.Fatalf("#%s has no node id: %s", id, tag)
		}
		return rest[:strings.IndexByte(rest, '"')]
	}
	if err := p.Click(ctx, node("add")); err != nil {
		t.Fatal(err)
	}
	if got := capture(); !strings.Contains(got, "clicked") {
		t.Error("the capture after a click does not show its effect")
	}
	if err := p.Click(ctx, node("later")); err != nil {
		t.Fatal(err)
	}
	before, _ := p.Capture(ctx)
	// the page's timer runs in Chromium: wait for its change, bounded
	// against a hang only
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(capture(), ">later</p>") {
		if time.Now().After(deadline) {
			t.Fatal("a change the observer reported never reached a capture (2 minutes, a hang guard)")
		}
		_ = p.Sleep(ctx, time.Second)
		age()
	}
	if c, _ := p.Capture(ctx); c == before {
		t.Error("the change was read into the same capture")
	}
	// a value a script sets reports no mutation: it is read after the
	// next action, change or Refresh (a wait's deadline)
	if err := p.Click(ctx, node("silent")); err != nil {
		t.Fatal(err)
	}
	// the script sets it 10 ms later in Chromium's time: poll, with a
	// Refresh before each read, bounded against a hang only
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		p.Refresh()
		if strings.Contains(capture(), `data-rl-value="set by script"`) {
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatal("Refresh did not read the value a script set (2 minutes, a hang guard)")
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countingPage counts the captures the engine asks for and how many of
// them read the page (a capture other than the last).
type countingPage struct {
	*browser.Page
	calls, fresh atomic.Int64
	last         atomic.Pointer[capture.Capture]
}

func (c *countingPage) Capture(ctx context.Context) (*capture.Capture, error) {
	c.calls.Add(1)
	got, err := c.Page.Capture(ctx)
	if err == nil && c.last.Swap(got) != got {
		c.fresh.Add(1)
	}
	return got, err
}

// BenchmarkIdleWait: the CPU this process spends while the engine waits
// on a live chat page that does not change (a waitFor whose text never
// appears), from the process's own CPU time (getrusage), per second of
// the wait: cpu-% is the share of one core; reads/s and captures/s count
// the engine's capture calls and those that read the page. The wait's
// first reads are left out (warm-up until the page settled: two reads in a
// row that were no capture); each iteration is a 5 s window. Run before
// this change, the figures are those of a wait that captures and parses
// the page on every poll.
//
//	go test ./engine/browser -run '^$' -bench IdleWait -benchtime 4x
func BenchmarkIdleWait(b *testing.B) {
	for _, turns := range []int{500, 2200} {
		page := chatpage.Render(chatpage.Options{Turns: turns, Seed: 1})
		b.Run("KB="+strconv.Itoa(len(page)/1000), func(b *testing.B) {
			p := &countingPage{Page: idlePage(b)}
			base := serveTB(b, map[string]string{"/chat": page})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pg := engine.New(engine.Config{Adapter: adapter.DefaultMarker}).Begin(ctx, "idle").Page("main", p)
			if err := pg.Navigate(ctx, base+"/chat"); err != nil {
				b.Fatal(err)
			}
			if _, err := pg.Snapshot(ctx, "page"); err != nil {
				b.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				done <- pg.WaitFor(ctx, engine.Expect{TextVisible: "a text this page never shows", Timeout: time.Hour})
			}()
			// warm-up: until two reads in a row are no captures (the page
			// has settled: a large page's load keeps its observer
			// reporting for a while), at most a minute
			warm := time.Now().Add(time.Minute)
			for settled := 0; settled < 2 && time.Now().Before(warm); {
				calls, fresh := p.calls.Load(), p.fresh.Load()
				time.Sleep(600 * time.Millisecond)
				if p.calls.Load() > calls && p.fresh.Load() == fresh {
					settled++
				} else {
					settled = 0
				}
			}
			var cpu, wall time.Duration
			calls0, fresh0 := p.calls.Load(), p.fresh.Load()
			for b.Loop() {
				c0, t0 := cpuTime(b), time.Now()
				time.Sleep(5 * time.Second)
				cpu += cpuTime(b) - c0
				wall += time.Since(t0)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				b.Fatalf("the wait ended with %v, want it cancelled", err)
			}
			b.ReportMetric(100*float64(cpu)/float64(wall), "cpu-%")
			b.ReportMetric(float64(p.calls.Load()-calls0)/wall.Seconds(), "reads/s")
			b.ReportMetric(float64(p.fresh.Load()-fresh0)/wall.Seconds(), "captures/s")
		})
	}
}
