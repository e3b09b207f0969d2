package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
// and it counts the reading of fetch bodies (json(), text() …) and
// XMLHttpRequests in flight. A fetch's response is paced like a stream of
// one part (below): it reaches the page PageClockStreamInterval of lab
// time after the request, so a page's loading state (a skeleton while its
// thread is fetched) lasts a fixed stretch of lab time and a read before
// it sees that state, whatever the server's wall latency.
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
// Streams reach the page on lab time too (SPEC APP-2; the design is
// docs/decisions/2026-12-01-streams-on-the-lab-clock.md). The script holds
// what arrives on a fetch body the page reads as a stream
// (Response.body), on a text XMLHttpRequest whose progress the page
// listens to, and on an EventSource, a WebSocket or a Worker (their
// messages, and a WebSocket's close), and releases it one part per slot:
// a body's parts are its lines (cut after each newline, or every
// PageClockStreamPartMax bytes; an SSE body's, text/event-stream, are its
// whole events, cut at their blank line, so a page that parses each read
// as whole events never sees half of one), a message stream's parts its
// messages. A fetch body's end (its close, or its error) reaches the page
// with its last part, in the same slot: the last part that arrived is
// held until the next one or the end does, so the page never reads the
// end of one request's stream a slot after it may have sent again.
// A stream's first slot is PageClockStreamInterval of lab time after the
// page started reading it (or opened it, or sent on it), and each part
// released makes the next slot one interval later: the schedule depends
// on the bytes and the lab only, never on when they arrived in wall time.
// A slot is one of the page's timers, so Due reports it and a wait wakes
// at each part. A slot that falls due before its part arrived holds the
// settle (and so the read and the lab) in wall time: a body until its
// next part or its end arrives, bounded by PageClockSettleTimeout (then
// the step fails naming the stream and the part); a message stream, whose
// end nobody knows, for PageClockStreamFirst after it opened or the page
// sent on it and PageClockStreamIdle after a message, after which it is
// quiet (no slot) until it delivers again. A fetch response that has not
// arrived when its slot falls due holds like a message stream's first
// message (PageClockStreamFirst), then goes quiet: a request that never
// answers lets the lab move on (a readiness wait ends PAGE_NOT_READY
// naming what it awaited) and is named in StreamNotes.
//
// Out of reach: timers of workers (their messages to the page are
// paced, their own time is wall time), CSS animations, frames in another
// process. A frame in the page's process keeps wall time, and a stream
// it reads (a fetch body, an EventSource, a WebSocket) makes the next
// settle fail with ErrStreamUnpaced naming it, never a silent
// ANSWER_INCOMPLETE. The fake Date starts at the lab's instant, so
// Date.now() in the page reads lab time (clock.Epoch onward).
const (
	// PageClockSettleTimeout bounds, in wall time, one wait for the page
	// to be quiet after its due timers ran.
	PageClockSettleTimeout = 10 * time.Second
	// PageClockTimersMax bounds the timers one settle runs (a setInterval
	// of 0 ms over a long sleep would otherwise run without end).
	PageClockTimersMax = 10_000
	// PageClockStreamInterval is the lab time between two parts of a
	// stream released to the page.
	PageClockStreamInterval = 20 * time.Millisecond
	// PageClockStreamFirst bounds, in wall time, how long a message
	// stream's slot waits for its first message after the stream opened
	// or the page sent on it.
	PageClockStreamFirst = 5 * time.Second
	// PageClockStreamIdle bounds, in wall time, how long a message
	// stream's slot waits for the next message after one.
	PageClockStreamIdle = 2 * time.Second
	// PageClockStreamPartMax is the longest part of a body released at
	// once (bytes; characters for an XMLHttpRequest).
	PageClockStreamPartMax = 64 << 10
)

// pageClockSettle is PageClockSettleTimeout (tests shorten it).
var pageClockSettle = PageClockSettleTimeout

// ErrPageClock is wrapped by a page clock that could not settle: the
// page stayed busy past PageClockSettleTimeout, or ran more than
// PageClockTimersMax timers at one instant.
var ErrPageClock = errors.New("browser: the page clock did not settle")

// ErrStreamUnpaced is wrapped by a settle of a page that reads a stream
// the page clock cannot pace (in a frame, which keeps wall time); the
// error names each one.
var ErrStreamUnpaced = errors.New("browser: the page clock cannot pace a stream")

// pageClockJS is the fake clock and the stream pacing (pageclock.js);
// pageClockSource fills in its placeholders.
//
//go:embed pageclock.js
var pageClockJS string

// pageClockSource is the script new documents start with, their fake
// clock at `at`.
func pageClockSource(at time.Time) string {
	return strings.NewReplacer(
		"__NOW__", strconv.FormatInt(at.UnixMilli(), 10),
		"__INTERVAL__", strconv.FormatInt(PageClockStreamInterval.Milliseconds(), 10),
		"__FIRST__", strconv.FormatInt(PageClockStreamFirst.Milliseconds(), 10),
		"__IDLE__", strconv.FormatInt(PageClockStreamIdle.Milliseconds(), 10),
		"__PART__", strconv.Itoa(PageClockStreamPartMax),
	).Replace(pageClockJS)
}

// pageClock is one page's clock gate.
type pageClock struct {
	p   *Page
	lab *clock.Lab

	mu       sync.Mutex
	script   page.ScriptIdentifier
	scriptAt time.Time // the instant the registered script starts new documents at
	due      time.Time
	hasDue   bool
	notes    []string // open streams that went quiet before their end
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
	p.pclock = pc
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
	res, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageClockSource(at)})
	if err != nil {
		return err
	}
	pc.script, pc.scriptAt = res.Identifier, at
	return nil
}

// advanceResult is what the page's advance answers.
type advanceResult struct {
	Next    int64    `json:"next"`
	Ran     int      `json:"ran"`
	Quiet   bool     `json:"quiet"`
	Waiting string   `json:"waiting"`
	Unpaced []string `json:"unpaced"`
	Notes   []string `json:"notes"`
}

// Settle runs the page's timers due up to the lab's instant and waits for
// the page to be quiet (clock.Gate). The wait is bounded by
// PageClockSettleTimeout stretched by the scheduling delay measured
// meanwhile (clock.WithStretchTimeout): a page that was slow only because
// the machine did not run it gets the time it lost.
func (pc *pageClock) Settle(ctx context.Context) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.p.ctx.Err() != nil { // the tab was closed: it holds nothing up
		pc.hasDue = false
		return nil
	}
	at := pc.lab.Now()
	res, lag, err := settleStretched(ctx, clock.WallStretcher, pageClockSettle, func(ctx context.Context, wall time.Duration, timers int) (*advanceResult, error) {
		return pc.advance(ctx, at, wall, timers)
	})
	if err != nil {
		return fmt.Errorf("browser: page clock at %v: %w", at.Sub(clock.Epoch), err)
	}
	pc.hasDue = false
	if res == nil { // no page clock in this document (not loaded yet, an error page)
		return nil
	}
	if len(res.Unpaced) > 0 {
		return fmt.Errorf("%w: %s (frames keep wall time; a site that streams there needs \"clock\": \"wall\")", ErrStreamUnpaced, strings.Join(res.Unpaced, "; "))
	}
	if !res.Quiet {
		return fmt.Errorf("%w at %v of lab time within %v of wall time (and %v of scheduling delay measured meanwhile): %s", ErrPageClock, at.Sub(clock.Epoch), pageClockSettle, lag.Round(time.Millisecond), res.Waiting)
	}
	pc.notes = res.Notes
	if res.Next >= 0 {
		pc.due, pc.hasDue = time.UnixMilli(res.Next).UTC(), true
	}
	return nil
}

// pageClockChunk bounds, in wall time, one advance of the page: a settle
// waits in chunks, so that its bound can stretch between them.
const pageClockChunk = time.Second

// settleStretched calls advance, a chunk of wall time at a time, until the
// page is quiet or says why it cannot be (a stream it cannot pace, more
// than PageClockTimersMax timers), within limit stretched by the
// scheduling delay s measures meanwhile. A page still busy when that
// budget is spent is answered as advance last answered it (not quiet),
// with the delay measured.
func settleStretched(ctx context.Context, s clock.Stretcher, limit time.Duration, advance func(ctx context.Context, wall time.Duration, timers int) (*advanceResult, error)) (*advanceResult, time.Duration, error) {
	sctx, cancel := s.WithTimeout(ctx, limit)
	defer cancel()
	chunk := min(limit, pageClockChunk)
	ran := 0
	for {
		res, err := advance(ctx, chunk, PageClockTimersMax-ran)
		if err != nil || res == nil || res.Quiet || len(res.Unpaced) > 0 {
			return res, 0, err
		}
		ran += res.Ran
		if ran >= PageClockTimersMax {
			res.Waiting = fmt.Sprintf("more than %d timers due at one instant", PageClockTimersMax)
			return res, 0, nil
		}
		if sctx.Err() != nil {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			lag, _ := clock.StretchedBy(sctx)
			return res, lag, nil
		}
	}
}

// advance runs the page's timers due up to at (at most timers of them)
// and waits up to wall for it to be quiet; nil when the document has no
// page clock.
func (pc *pageClock) advance(ctx context.Context, at time.Time, wall time.Duration, timers int) (*advanceResult, error) {
	expr := fmt.Sprintf(`window.__replaylabClock ? window.__replaylabClock.advance(%d, %d, %d) : null`, at.UnixMilli(), wall.Milliseconds(), timers)
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
			return nil, err
		}
	}
	return res, err
}

// StreamNotes names the page's open streams that the page clock let go
// quiet before their end (no message within PageClockStreamFirst or
// PageClockStreamIdle of wall time), and those that delivered again after
// that, as the last settle found them (engine.StreamNoter): a wait that
// ends without its answer says them.
func (p *Page) StreamNotes() []string {
	pc := p.pclock
	if pc == nil {
		return nil
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return append([]string(nil), pc.notes...)
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
