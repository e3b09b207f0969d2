package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/replaylab/replaylab/engine/driver"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Readiness says when a page is ready to be read (SPEC APP-1): a chat app
// that renders its thread after the load event is not, and a baseline
// taken from its half-loaded thread would take an answer from the history
// for the new one. The zero value is the default: the driver waits until
// no request is in flight and the DOM has been quiet for Quiet (drivers
// that cannot tell, such as the replay of a session recorded before
// readiness existed, are ready at once).
type Readiness struct {
	// Check is the site's own readiness (a site profile's "ready"): it
	// returns "" when doc is ready, else what is still awaited, with what
	// the page shows instead. With a Check the driver's quiet wait is
	// not used.
	Check func(doc *observe.Document) string
	// Awaited describes Check's condition for messages and traces
	// (`selector "#thread[data-ready=true]"`).
	Awaited string
	// AtLoad: the page is ready at its load event (the sim renders its
	// pages on the server).
	AtLoad bool
	// Timeout bounds the wait (default DefaultReadyTimeout).
	Timeout time.Duration
	// Quiet is the default's quiet window (default DefaultQuietWindow,
	// DefaultLabQuietWindow on a lab clock).
	Quiet time.Duration
}

// Defaults of Readiness. The quiet window covers the gap between the end
// of what the page awaited (a request, a body read, the load event) and
// the DOM change that follows it. On wall time every navigation waits for
// it; on a lab clock (Scheduled) it is lab time, which costs no wall time.
const (
	DefaultReadyTimeout   = 10 * time.Second
	DefaultQuietWindow    = 100 * time.Millisecond
	DefaultLabQuietWindow = 300 * time.Millisecond
)

// PageNotReady is the code of a page that did not get ready in time, and
// of a send refused while the page is not ready.
const PageNotReady = errcode.PageNotReady

// AwaitReady waits until the page d shows is ready under r, reading it
// through d (so a recorder records the captures read and a replay reads
// them again). It returns an *Error with code PageNotReady naming what was
// awaited when the page is not ready within the timeout.
func AwaitReady(ctx context.Context, d Driver, r Readiness) error {
	if r.AtLoad {
		return nil
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	if r.Check == nil {
		q, ok := d.(Quieter)
		if !ok {
			return nil
		}
		quiet := r.Quiet
		if quiet <= 0 {
			quiet = DefaultQuietWindow
			if sc, ok := d.(Scheduled); ok && sc.SleepsToTransitions() {
				quiet = DefaultLabQuietWindow
			}
		}
		busy, err := q.WaitQuiet(ctx, quiet, timeout)
		if err != nil {
			return fmt.Errorf("engine: wait for the page to be ready: %w", err)
		}
		if busy != "" {
			return &Error{Code: PageNotReady, Op: "navigate", Detail: fmt.Sprintf("waited %s for no request in flight and the DOM quiet for %s: %s (name the page's readiness in the site profile: \"ready\", docs/adapters.md)", timeout, quiet, busy)}
		}
		return nil
	}
	deadline := d.Now().Add(timeout)
	var last any
	missing := ""
	for {
		c, err := d.Capture(ctx)
		if err != nil {
			return fmt.Errorf("engine: wait for the page to be ready: %w", err)
		}
		if c != last {
			last = c
			doc, err := observe.Parse(c)
			if err != nil {
				return fmt.Errorf("engine: wait for the page to be ready: %w", err)
			}
			if missing = r.Check(doc); missing == "" {
				return nil
			}
		}
		if !d.Now().Before(deadline) {
			return &Error{Code: PageNotReady, Op: "navigate", Detail: fmt.Sprintf("waited %s for %s: %s", timeout, r.Awaited, missing)}
		}
		if err := d.Sleep(ctx, min(DefaultPollInterval, deadline.Sub(d.Now()))); err != nil {
			return fmt.Errorf("engine: wait for the page to be ready: %w", err)
		}
		if !d.Now().Before(deadline) {
			if rf, ok := d.(Refresher); ok {
				rf.Refresh()
			}
		}
	}
}

// awaitReady is AwaitReady for the page after a navigation: an error page
// (4xx/5xx) is not waited for (the step checks its status), and a site's
// own readiness is traced.
func (p *Page) awaitReady(ctx context.Context) error {
	r := p.task.e.cfg.Ready
	if sr, ok := p.d.(driver.StatusReporter); ok && sr.NavigationStatus() >= 400 {
		return nil
	}
	err := AwaitReady(ctx, p.d, r)
	if r.Check != nil && !r.AtLoad {
		if err != nil {
			p.emit("ready", trace.A("awaited", r.Awaited), trace.A("code", errcode.Of(err)))
		} else {
			p.emit("ready", trace.A("awaited", r.Awaited))
		}
	}
	return err
}

// CheckReady reads the page once and returns the PAGE_NOT_READY refusal
// of a send when the site's readiness does not hold (nil without one: the
// navigation waited for the default).
func (p *Page) CheckReady(ctx context.Context) error {
	r := p.task.e.cfg.Ready
	if r.Check == nil || r.AtLoad {
		return nil
	}
	doc, _, err := p.read(ctx)
	if err != nil {
		return err
	}
	return p.notReady(doc, "send")
}

// notReady is the refusal of a send on a page the site's readiness does
// not hold for, nil otherwise (or without a site readiness: the
// navigation waited for the default).
func (p *Page) notReady(doc *observe.Document, op string) error {
	r := p.task.e.cfg.Ready
	if r.Check == nil || r.AtLoad {
		return nil
	}
	if missing := r.Check(doc); missing != "" {
		p.emit(op, trace.A("code", PageNotReady), trace.A("awaited", r.Awaited))
		return &Error{Code: PageNotReady, Op: op, Detail: fmt.Sprintf("the page is not ready (%s: %s); no baseline is taken from a half-loaded page: wait for it first", r.Awaited, missing)}
	}
	return nil
}
