package engine

import (
	"context"
	"fmt"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Page is one tab of a task.
//
// A Page is not safe for concurrent use: its snapshot sequence, last
// observation, read cache and baseline are unguarded, so one goroutine at a
// time drives a page (an agent's calls on one tab are sequential anyway).
// Different pages, of one task or of several, may be driven concurrently;
// what they share (the task's block state and monitor) is guarded by the
// task.
type Page struct {
	Name string

	task     *Task
	d        Driver
	seq      int
	obs      *observe.Observation
	groups   adapter.Result
	baseline *answer.Baseline
	last     lastRead // the last capture read and its parse
	acted    string   // the node the last action was delivered to (After)
	// stopped: the engine clicked the site's Stop control (Expect.Stop)
	// since the last send took its baseline (LIB-3)
	stopped bool

	prevMon, lastMon *monitor.Observation
}

func (p *Page) emit(kind string, attrs ...trace.Attr) {
	p.task.e.emit(kind, append([]trace.Attr{trace.A("page", p.Name)}, attrs...)...)
}

// View is a bounded snapshot with the answer groups on the page.
type View struct {
	*observe.Snapshot
	Adapter string `json:"adapter"`
	// Groups are the most recent answer groups, bounded (GroupLimits);
	// GroupCount says how many the page has and whether any was left out
	// or cut.
	Groups     []adapter.Group `json:"groups"`
	GroupCount observe.Count   `json:"groupCount"`
	// Signal is the loop monitor's advisory signal, when one is pending.
	Signal *monitor.Signal `json:"signal,omitempty"`
}

// Navigate opens url in the page.
func (p *Page) Navigate(ctx context.Context, u string) error {
	if err := p.task.mutation("navigate"); err != nil {
		return err
	}
	p.emit("navigate", trace.A("url", u))
	p.noteAction("navigate", observe.Element{Role: "page", Name: u}, "", "", false)
	if err := p.d.Navigate(ctx, u); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("engine: navigate: %w", err)
		}
		return &Error{Code: NavigationFailed, Op: "navigate", Detail: u, Err: err}
	}
	p.obs = nil
	return p.awaitReady(ctx)
}

// AwaitReady waits until the page is ready under the engine's Readiness
// (APP-1): Navigate does it; call it after a click that opened another
// page.
func (p *Page) AwaitReady(ctx context.Context) error { return p.awaitReady(ctx) }

// Snapshot observes the page and returns a bounded view: ViewPage is the
// shorter page view (OBS-4), ViewFull the full one.
func (p *Page) Snapshot(ctx context.Context, view string) (*View, error) {
	o, err := p.observe(ctx)
	if err != nil {
		return nil, err
	}
	lim, glim := p.task.e.cfg.PageLimits, p.task.e.cfg.PageGroups
	if view == observe.ViewFull {
		lim, glim = p.task.e.cfg.Limits, p.task.e.cfg.FullGroups
	} else {
		view = observe.ViewPage
	}
	s := o.View(view, lim)
	p.emit("snapshot", trace.A("snapshot", s.ID), trace.A("view", view), trace.A("complete", s.Complete),
		trace.A("elements", fmt.Sprintf("%d/%d", s.Counts.Elements.Returned, s.Counts.Elements.Total)),
		trace.A("groups", len(p.groups.Groups)))
	p.takeSignal()
	groups, count := boundGroups(p.groups.Groups, glim)
	if count.Truncated {
		s.Complete = false
	}
	return &View{Snapshot: s, Adapter: p.groups.Adapter, Groups: groups, GroupCount: count, Signal: p.task.Signal()}, nil
}

// Find runs a fresh find.
func (p *Page) Find(ctx context.Context, q observe.Query) (observe.FindResult, error) {
	o, err := p.observe(ctx)
	if err != nil {
		return observe.FindResult{}, err
	}
	r, err := o.Find(q)
	if err != nil {
		return r, &Error{Code: InvalidArgument, Op: "find", Err: err}
	}
	p.emit("find", trace.A("query", locate.Locator{Role: q.Role, Name: q.Name, Href: q.Href}.String()),
		trace.A("total", r.Selection.Total), trace.A("matched", r.Selection.Matched), trace.A("hasMore", r.Selection.HasMore))
	return r, nil
}

// resolve turns a target into one element of a fresh observation.
func (p *Page) resolve(ctx context.Context, op string, t Target) (observe.Element, error) {
	if t.Ref != "" {
		if p.obs == nil {
			if sid := observe.RefSnapshot(t.Ref); sid < 0 || sid > p.seq {
				return observe.Element{}, locate.InvalidRefError(t.Ref, p.seq)
			}
			return observe.Element{}, &locate.Error{Code: locate.StaleRef, Locator: locate.Locator{Role: "ref:" + t.Ref}, Detail: "the page navigated since that snapshot; observe again and use a fresh ref"}
		}
		el, err := locate.ByRef(p.obs, t.Ref)
		if err != nil {
			p.emit("resolve", trace.A("op", op), trace.A("target", t), trace.A("code", errcode.Of(err)))
		}
		return el, err
	}
	o, err := p.observe(ctx)
	if err != nil {
		return observe.Element{}, err
	}
	group, err := scope(t, p.groups)
	var el observe.Element
	if err == nil {
		el, err = resolveIn(o, t, group)
	}
	if err != nil {
		var le *locate.Error
		attrs := []trace.Attr{trace.A("op", op), trace.A("target", t), trace.A("code", errcode.Of(err))}
		if asLocate(err, &le) && le.Count > 0 {
			attrs = append(attrs, trace.A("count", le.Count))
		}
		p.emit("resolve", attrs...)
	}
	return el, err
}

// Fill types text into an editor once and verifies the real value
// (ACT-1). A different value is FIELD_MISMATCH; the text is never typed a
// second time.
func (p *Page) Fill(ctx context.Context, t Target, text string) error {
	if err := p.task.mutation("fill"); err != nil {
		return err
	}
	el, err := p.resolve(ctx, "fill", t)
	if err != nil {
		return err
	}
	p.noteAction("fill", el, text, "", false)
	p.acted = el.Node
	if err := p.d.Type(ctx, el.Node, text); err != nil {
		return fmt.Errorf("engine: fill: %w", err)
	}
	// The observation that comes back with the action: re-find the element
	// by its node in a fresh snapshot and compare the real value.
	o, err := p.observe(ctx)
	if err != nil {
		return err
	}
	got, found := "", false
	for _, e := range o.All {
		if e.Node == el.Node {
			got, found = e.RealValue(), true
			break
		}
	}
	attrs := []trace.Attr{trace.A("target", t)}
	sensitive := sensitiveControl(&el) // one rule with the monitor's: never trace a secret
	if !sensitive {
		attrs = append(attrs, trace.A("value", text))
	} else {
		attrs = append(attrs, trace.A("chars", len([]rune(text))))
	}
	if !found || observe.Normalize(got) != observe.Normalize(text) {
		p.emit("fill", append(attrs, trace.A("verified", false), trace.A("code", FieldMismatch))...)
		detail := "the field is gone after typing"
		if found && !sensitive {
			detail = fmt.Sprintf("typed %q, field holds %q", text, got)
		} else if found {
			detail = "the sensitive field holds another value"
		}
		return &Error{Code: FieldMismatch, Op: "fill", Detail: detail}
	}
	p.emit("fill", append(attrs, trace.A("verified", true))...)
	return nil
}

// Click clicks the target and waits for the expected outcome (ACT-2,
// ACT-3).
func (p *Page) Click(ctx context.Context, t Target, x Expect) error {
	return p.act(ctx, "click", t, x, "", func(node string) error { return p.d.Click(ctx, node) })
}

// DoubleClick double-clicks the target (a user's double click, two clicks
// in a row) and waits for the expected outcome, as Click does. A driver
// that cannot double-click (not a DoubleClicker) is an error.
func (p *Page) DoubleClick(ctx context.Context, t Target, x Expect) error {
	return p.act(ctx, "dblclick", t, x, "", func(node string) error {
		dc, ok := p.d.(DoubleClicker)
		if !ok {
			return fmt.Errorf("the driver %T cannot double-click", p.d)
		}
		return dc.DoubleClick(ctx, node)
	})
}

// Press presses key on the target and waits for the expected outcome.
func (p *Page) Press(ctx context.Context, t Target, key string, x Expect) error {
	return p.act(ctx, "press", t, x, key, func(node string) error { return p.d.Press(ctx, node, key) })
}

func (p *Page) act(ctx context.Context, op string, t Target, x Expect, key string, do func(node string) error) error {
	// The expectation is checked before anything is sent.
	if err := x.validate(); err != nil {
		p.emit(op, trace.A("target", t), trace.A("code", errcode.Of(err)))
		return err
	}
	if err := p.task.mutation(op); err != nil {
		return err
	}
	var baseline *answer.Baseline
	if x.NewAnswer {
		doc, groups, err := p.read(ctx)
		if err != nil {
			return err
		}
		if err := p.notReady(doc, op); err != nil {
			return err
		}
		b := answer.NewBaseline(groups)
		if x.InPlace {
			b.InPlace(groups)
		}
		baseline = &b
		p.emit("baseline", trace.A("size", len(b.IDs)), trace.A("ids", b.IDs))
	}
	el, err := p.resolve(ctx, op, t)
	switch {
	case x.Stop && errcode.Of(err) == locate.TargetNotFound:
		// a Stop shows once the answer streams (deep-chat turns its
		// send button into Stop when the first words arrive): it is
		// waited for as a disabled send control is (LIB-5)
		el, err = p.awaitEnabled(ctx, op, t, x, err)
	case err == nil && el.Disabled:
		el, err = p.awaitEnabled(ctx, op, t, x, nil)
	}
	if err != nil {
		// refused: nothing was sent, so the answer wait stays as it was
		// (AGT-4)
		return err
	}
	if baseline != nil {
		p.baseline, p.stopped = baseline, false
	}
	p.emit(op, trace.A("target", t), trace.A("expect", x))
	p.noteAction(op, el, "", key, false)
	p.acted = el.Node
	before := ""
	if p.last.doc != nil {
		before = p.last.doc.URL
	}
	if err := do(el.Node); err != nil {
		return fmt.Errorf("engine: %s: %w", op, err)
	}
	if err := p.outcome(ctx, op, x); err != nil {
		return err
	}
	if x.Stop && p.baseline != nil {
		p.stopped = true
	}
	if x.URL != "" && x.URL != before {
		// the action opened another page: the read that met the URL may
		// be of the new document half parsed, so the page the action left
		// (After) is read once it is ready (APP-1), as after Navigate
		p.obs = nil
		return p.awaitReady(ctx)
	}
	return nil
}

// awaitEnabled waits, on the driver's clock, for the target of an action
// to be enabled (a send button a library enables in a deferred update):
// the element once it is, CONTROL_DISABLED when it still is at the
// action's timeout (LIB-5). With missing (the target's TARGET_NOT_FOUND:
// a Stop not shown yet) it waits for the target to show too, and a target
// still missing at the timeout is that error.
func (p *Page) awaitEnabled(ctx context.Context, op string, t Target, x Expect, missing error) (observe.Element, error) {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = p.task.e.cfg.OutcomeTimeout
	}
	deadline := p.d.Now().Add(timeout)
	for {
		if !p.d.Now().Before(deadline) {
			if missing != nil {
				return observe.Element{}, missing
			}
			p.emit(op, trace.A("target", t), trace.A("code", ControlDisabled))
			return observe.Element{}, &Error{Code: ControlDisabled, Op: op,
				Detail: fmt.Sprintf("%s stayed disabled for %s; nothing was sent", t, timeout)}
		}
		if err := p.d.Sleep(ctx, min(p.pollInterval(), deadline.Sub(p.d.Now()))); err != nil {
			return observe.Element{}, err
		}
		if !p.d.Now().Before(deadline) {
			p.refresh()
		}
		// a read, not a snapshot: the refs issued stay those of the
		// resolve that found the control disabled, however long it waits
		doc, groups, err := p.read(ctx)
		if err != nil {
			return observe.Element{}, err
		}
		o, _ := p.observeDoc(doc, groups, p.seq)
		group, err := scope(t, groups)
		if err != nil {
			return observe.Element{}, err
		}
		el, err := resolveIn(o, t, group)
		if missing != nil && errcode.Of(err) == locate.TargetNotFound {
			missing = err
			continue
		}
		missing = nil
		if err != nil || !el.Disabled {
			return el, err
		}
	}
}

// ScrollToTop scrolls the page up to its top as a user does with the
// mouse wheel (a page that loads earlier content when scrolled up loads
// it), and waits for the expected outcome, as a click does (ACT-2,
// ACT-3). A driver that cannot scroll (not a Scroller) is an error.
func (p *Page) ScrollToTop(ctx context.Context, x Expect) error {
	const op = "scroll"
	if err := x.validate(); err != nil {
		p.emit(op, trace.A("to", "top"), trace.A("code", errcode.Of(err)))
		return err
	}
	if err := p.task.mutation(op); err != nil {
		return err
	}
	sc, ok := p.d.(Scroller)
	if !ok {
		return fmt.Errorf("engine: scroll: the driver %T cannot scroll", p.d)
	}
	p.emit(op, trace.A("to", "top"), trace.A("expect", x))
	if err := sc.ScrollToTop(ctx); err != nil {
		return fmt.Errorf("engine: scroll: %w", err)
	}
	return p.outcome(ctx, op, x)
}

// outcome waits for an action's expected outcome; one that does not come
// in time blocks the task (ACT-3).
func (p *Page) outcome(ctx context.Context, op string, x Expect) error {
	ok, evidence, err := p.awaitOutcome(ctx, x)
	if err != nil {
		return err
	}
	if !ok {
		p.task.mu.Lock()
		p.task.blocked = &blocked{page: p, op: op, expect: x}
		p.task.mu.Unlock()
		p.emit("outcome", trace.A("op", op), trace.A("status", OutcomeUnknown), trace.A("evidence", evidence))
		return &Error{Code: OutcomeUnknown, Op: op, Detail: "expected " + x.String() + " did not happen in time; the task is blocked"}
	}
	p.emit("outcome", trace.A("op", op), trace.A("status", "met"), trace.A("evidence", evidence))
	return nil
}
