package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/clock"
)

// The page clock puts a real site's own JavaScript on the lab clock (a
// site profile's "clock": "page"), as Playwright's page.clock.install()
// and @sinonjs/fake-timers do in a test: a site cannot speak the sim's
// stage protocol, but the time its scripts see can be the lab's.
//
// InstallPageClock registers pageClockScript to run in the main frame of
// every new document before any of the page's scripts. It replaces
// setTimeout, setInterval, clearTimeout, clearInterval,
// requestAnimationFrame, cancelAnimationFrame, requestIdleCallback,
// cancelIdleCallback, Date (new Date(), Date(), Date.now()) and
// performance.now with fakes that keep a queue of timers on virtual time,
// and it counts the fetches (and the reading of their bodies) and
// XMLHttpRequests in flight.
//
// The page is a clock.Scheduler gate of the lab. Whenever the lab settles
// (before every capture, and before and after the lab moves), the driver
// runs the page's timers due up to the lab's instant, in (due, scheduled)
// order, at most PageClockTimersMax at once, then waits in wall time,
// bounded by PageClockSettleTimeout, until the page is quiet: no due
// timer, no request in flight, no image that started loading still
// loading; the work the timers started (microtasks, the requests and what
// their answers schedule) happens meanwhile. Only then does the read
// complete. After settling it reports the page's next due timer (Due), so
// a wait's Sleep wakes at the page's next transition or at its deadline,
// whichever is first: a site's scripted delays cost no wall time, and
// under any load the engine sees exactly the states the page's script
// goes through.
//
// Out of reach, documented: timers of iframes and workers (they keep wall
// time), CSS animations, and long-lived connections (EventSource,
// WebSocket: not counted as in flight). The fake Date starts at the lab's
// instant, so Date.now() in the page reads lab time (clock.Epoch onward).
const (
	// PageClockSettleTimeout bounds, in wall time, one wait for the page
	// to be quiet after its due timers ran.
	PageClockSettleTimeout = 10 * time.Second
	// PageClockTimersMax bounds the timers one settle runs (a setInterval
	// of 0 ms over a long sleep would otherwise run without end).
	PageClockTimersMax = 10_000
)

// ErrPageClock is wrapped by a page clock that could not settle: the
// page stayed busy past PageClockSettleTimeout, or ran more than
// PageClockTimersMax timers at one instant.
var ErrPageClock = errors.New("browser: the page clock did not settle")

// pageClockScript is the fake clock, %d the lab's instant in Unix ms.
const pageClockScript = `(() => {
  if (window !== window.top || window.__replaylabClock) return;
  const W = window, RealDate = W.Date, realSetTimeout = W.setTimeout.bind(W), realNow = W.performance.now.bind(W.performance);
  let now = %d, seq = 0, ids = 0, inflight = 0;
  const origin = now, timers = new Map();
  const add = (fn, delay, args, every) => {
    const id = ++ids, d = Math.max(0, Number(delay) || 0);
    timers.set(id, {at: now + d, seq: ++seq, fn, args, every: every ? Math.max(1, d) : 0});
    return id;
  };
  const clear = (id) => { timers.delete(id); };
  W.setTimeout = function (fn, delay, ...args) { return add(fn, delay, args, false); };
  W.setInterval = function (fn, delay, ...args) { return add(fn, delay, args, true); };
  W.clearTimeout = clear; W.clearInterval = clear;
  W.requestAnimationFrame = function (fn) { return add(() => fn(now - origin), 16, [], false); };
  W.cancelAnimationFrame = clear;
  W.requestIdleCallback = function (fn) { return add(() => fn({didTimeout: false, timeRemaining: () => 50}), 1, [], false); };
  W.cancelIdleCallback = clear;
  function FakeDate(...a) {
    if (!new.target) return new RealDate(now).toString();
    return a.length ? new RealDate(...a) : new RealDate(now);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = () => now; FakeDate.parse = RealDate.parse; FakeDate.UTC = RealDate.UTC;
  W.Date = FakeDate;
  Object.defineProperty(W.performance, "now", {value: () => now - origin, configurable: true});
  const track = (p) => { inflight++; let done = false; const end = () => { if (!done) { done = true; inflight--; } }; p.then(end, end); return p; };
  if (W.fetch) { const f = W.fetch; W.fetch = function (...a) { return track(f.apply(this, a)); }; }
  if (W.Response) for (const m of ["json", "text", "arrayBuffer", "blob", "formData"]) {
    const f = W.Response.prototype[m];
    if (f) W.Response.prototype[m] = function (...a) { return track(f.apply(this, a)); };
  }
  const send = W.XMLHttpRequest.prototype.send;
  W.XMLHttpRequest.prototype.send = function (...a) {
    inflight++;
    let done = false;
    const end = () => { if (!done) { done = true; inflight--; } };
    this.addEventListener("loadend", end);
    try { return send.apply(this, a); } catch (e) { end(); throw e; }
  };
  const due = (t) => {
    let best = null;
    for (const [id, x] of timers) if (x.at <= t && (!best || x.at < best[1].at || (x.at === best[1].at && x.seq < best[1].seq))) best = [id, x];
    return best;
  };
  const next = () => { let m = -1; for (const x of timers.values()) if (m < 0 || x.at < m) m = x.at; return m; };
  const loading = () => Array.from(document.images).filter(i => i.getAttribute("src") && !i.complete && i.loading !== "lazy").length;
  const tick = () => new Promise(r => realSetTimeout(r, 5));
  W.__replaylabClock = {
    now: () => now,
    advance: async (t, wallMS, budget) => {
      const stop = realNow() + wallMS;
      let ran = 0;
      for (;;) {
        for (let b = due(t); b; b = due(t)) {
          if (ran >= budget) return {next: next(), ran, quiet: false, waiting: "more than " + budget + " timers due at one instant"};
          const [id, x] = b;
          if (x.at > now) now = x.at;
          if (x.every) { x.at += x.every; x.seq = ++seq; } else timers.delete(id);
          ran++;
          try { if (typeof x.fn === "function") x.fn.apply(W, x.args); else (0, eval)(String(x.fn)); } catch (e) { console.error(e); }
        }
        if (t > now) now = t;
        await tick();
        const busy = inflight, imgs = loading();
        if (busy === 0 && imgs === 0 && !due(t)) return {next: next(), ran, quiet: true};
        if (realNow() > stop) return {next: next(), ran, quiet: false, waiting: busy + " request(s) in flight, " + imgs + " image(s) loading"};
      }
    },
  };
})();`

// pageClock is one page's clock gate.
type pageClock struct {
	p   *Page
	lab *clock.Lab

	mu       sync.Mutex
	script   page.ScriptIdentifier
	scriptAt time.Time // the instant the registered script starts new documents at
	due      time.Time
	hasDue   bool
}

// InstallPageClock puts the page's own JavaScript on lab (see the
// package's page clock notes): call it before the first navigation. The
// page keeps time on lab (SetClock) and lab settles the page before every
// read (the page becomes one of its gates).
func (p *Page) InstallPageClock(ctx context.Context, lab *clock.Lab) error {
	pc := &pageClock{p: p, lab: lab}
	if err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return pc.register(ctx, t, lab.Now())
	})); err != nil {
		return fmt.Errorf("browser: install the page clock: %w", err)
	}
	p.SetClock(lab)
	lab.AddGate(pc)
	return nil
}

// register makes new documents start their fake clock at `at`.
func (pc *pageClock) register(ctx context.Context, t *chromedp.Target, at time.Time) error {
	if pc.script != "" {
		if _, err := cdp.Call(ctx, t, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: pc.script}); err != nil {
			return err
		}
		pc.script = ""
	}
	res, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fmt.Sprintf(pageClockScript, at.UnixMilli())})
	if err != nil {
		return err
	}
	pc.script, pc.scriptAt = res.Identifier, at
	return nil
}

// advanceResult is what the page's advance answers.
type advanceResult struct {
	Next    int64  `json:"next"`
	Ran     int    `json:"ran"`
	Quiet   bool   `json:"quiet"`
	Waiting string `json:"waiting"`
}

// Settle runs the page's timers due up to the lab's instant and waits for
// the page to be quiet (clock.Gate).
func (pc *pageClock) Settle(ctx context.Context) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.p.ctx.Err() != nil { // the tab was closed: it holds nothing up
		pc.hasDue = false
		return nil
	}
	at := pc.lab.Now()
	expr := fmt.Sprintf(`window.__replaylabClock ? window.__replaylabClock.advance(%d, %d, %d) : null`, at.UnixMilli(), PageClockSettleTimeout.Milliseconds(), PageClockTimersMax)
	var res *advanceResult
	// a document replaced while we evaluate (a navigation the timers
	// started) loses its context: evaluate again in the new one, bounded
	var err error
	for range 50 {
		res = nil
		err = pc.p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if !pc.scriptAt.Equal(at) {
				if err := pc.register(ctx, t, at); err != nil {
					return err
				}
			}
			r, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: new(true), ReturnByValue: new(true), Silent: new(true)})
			if err != nil {
				return err
			}
			if r.ExceptionDetails != nil {
				return fmt.Errorf("%w: %s", errContextGone, r.ExceptionDetails.Text)
			}
			if r.Result != nil && string(r.Result.Value) != "null" && len(r.Result.Value) > 0 {
				res = &advanceResult{}
				return json.Unmarshal(r.Result.Value, res)
			}
			return nil
		}))
		if err == nil || ctx.Err() != nil || !contextGone(err) {
			break
		}
		if err := clock.Wall.Sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("browser: page clock at %v: %w", at.Sub(clock.Epoch), err)
	}
	pc.hasDue = false
	if res == nil { // no page clock in this document (not loaded yet, an error page)
		return nil
	}
	if !res.Quiet {
		return fmt.Errorf("%w at %v of lab time within %v of wall time: %s", ErrPageClock, at.Sub(clock.Epoch), PageClockSettleTimeout, res.Waiting)
	}
	if res.Next >= 0 {
		pc.due, pc.hasDue = time.UnixMilli(res.Next).UTC(), true
	}
	return nil
}

// Due is the page's next due timer, as the last Settle found it
// (clock.Scheduler).
func (pc *pageClock) Due() (time.Time, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.due, pc.hasDue
}

var errContextGone = errors.New("the page's document went away")

// contextGone reports an evaluation that lost its document to a
// navigation.
func contextGone(err error) bool {
	if errors.Is(err, errContextGone) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "Execution context was destroyed") || strings.Contains(s, "Cannot find context") || strings.Contains(s, "Inspected target navigated")
}
