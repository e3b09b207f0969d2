package engine

import (
	"context"
	"fmt"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Passive operations read the page and send nothing. They are allowed on a
// blocked task, and the loop monitor never counts them as actions (MON-6).

// Codes of the passive operations.
const (
	WaitTimeout   = errcode.WaitTimeout
	OutcomeNotMet = errcode.OutcomeNotMet
)

// WaitFor waits, without acting, until x holds or its timeout passes
// (WAIT_TIMEOUT). It never blocks the task.
func (p *Page) WaitFor(ctx context.Context, x Expect) error {
	if err := x.validate(); err != nil {
		return err
	}
	p.noteAction("waitFor", observe.Element{}, "", "", true)
	ok, evidence, err := p.awaitOutcome(ctx, x)
	if err != nil {
		return err
	}
	status := "met"
	if !ok {
		status = string(WaitTimeout)
	}
	p.emit("waitFor", trace.A("expect", x), trace.A("status", status), trace.A("evidence", evidence))
	if !ok {
		return &Error{Code: WaitTimeout, Op: "waitFor", Detail: "expected " + x.String() + " did not happen in time"}
	}
	return nil
}

// VerifyOutcome checks x once on a fresh read (OUTCOME_NOT_MET when it
// does not hold).
func (p *Page) VerifyOutcome(ctx context.Context, x Expect) error {
	if err := x.validate(); err != nil {
		return err
	}
	p.noteAction("verifyOutcome", observe.Element{}, "", "", true)
	ok, evidence, err := p.check(ctx, x)
	if err != nil {
		return err
	}
	p.emit("verifyOutcome", trace.A("expect", x), trace.A("met", ok), trace.A("evidence", evidence))
	if !ok {
		return &Error{Code: OutcomeNotMet, Op: "verifyOutcome", Detail: "expected " + x.String() + ": " + evidence}
	}
	return nil
}

// VerifyField resolves the target on a fresh observation and compares its
// real value with want (FIELD_MISMATCH). Values of sensitive fields are
// compared but never shown.
func (p *Page) VerifyField(ctx context.Context, t Target, want string) error {
	var el observe.Element
	var err error
	if t.Ref != "" {
		el, err = p.resolve(ctx, "verifyField", t)
	} else {
		var o *observe.Observation
		if o, err = p.observe(ctx); err == nil {
			el, err = locate.Resolve(o, t.Locator)
		}
	}
	if err != nil {
		return err
	}
	p.noteAction("verifyField", el, "", "", true)
	ok := observe.Normalize(el.RealValue()) == observe.Normalize(want)
	p.emit("verifyField", trace.A("target", t), trace.A("matches", ok))
	if !ok {
		detail := "the field holds another value"
		if !sensitiveControl(&el) {
			detail = fmt.Sprintf("want %q, field holds %q", want, el.RealValue())
		}
		return &Error{Code: FieldMismatch, Op: "verifyField", Detail: detail}
	}
	return nil
}
