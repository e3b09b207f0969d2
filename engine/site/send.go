package site

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/locate"
)

// ErrNoStop is wrapped by StopAnswer on a site whose profile declares it
// has no Stop control ("stop": {"none": "why"}); the error says why.
var ErrNoStop = errors.New("site: the site has no Stop control")

// Page is what sending needs of a page (engine.Page, or the same
// operations over MCP).
type Page interface {
	Fill(ctx context.Context, t engine.Target, text string) error
	Click(ctx context.Context, t engine.Target, x engine.Expect) error
	Press(ctx context.Context, t engine.Target, key string, x engine.Expect) error
}

// Target turns a control into an engine target.
func Target(c Control) engine.Target {
	t := engine.ByRole(c.Role, c.Name)
	if c.Selector != "" {
		t = engine.BySelector(c.Selector)
	}
	t.In = c.In
	return t
}

// SendMessage fills p's composer with text and sends it by the send control (a
// click) or Enter in the composer, expecting a new answer group within
// wait; the engine records the baseline for waiting on the answer.
//
// A page that can tell (engine.Page: CheckReady) is asked first whether
// it is ready (APP-1): a send before it is refused with PAGE_NOT_READY
// before anything is typed; otherwise the engine refuses the send's
// click, before its baseline.
func (p *Profile) SendMessage(ctx context.Context, pg Page, text string, wait time.Duration) error {
	if r, ok := pg.(interface{ CheckReady(context.Context) error }); ok {
		if err := r.CheckReady(ctx); err != nil {
			return err
		}
	}
	composer := Target(p.Composer)
	if err := pg.Fill(ctx, composer, text); err != nil {
		return err
	}
	x := engine.Expect{NewAnswer: true, Timeout: wait}
	if p.SendBy == SendEnter {
		return pg.Press(ctx, composer, "Enter", x)
	}
	return pg.Click(ctx, Target(p.Send), x)
}

// Built-in non-send controls (APP-3), used where the profile names none:
// a stop control, a regenerate control and retry controls (by role and
// accessible name).
var (
	DefaultStop       = Control{Role: "button", Name: "Stop generating"}
	DefaultRegenerate = Control{Role: "button", Name: "Regenerate"}
	DefaultRetry      = []Control{{Role: "button", Name: "Retry"}, {Role: "button", Name: "Try again"}}
)

// StopControl is the profile's stop control, or DefaultStop.
func (p *Profile) StopControl() Control {
	if !p.Stop.IsZero() {
		return p.Stop
	}
	return DefaultStop
}

// RegenerateControl is the profile's regenerate control, or
// DefaultRegenerate.
func (p *Profile) RegenerateControl() Control {
	if !p.Regenerate.IsZero() {
		return p.Regenerate
	}
	return DefaultRegenerate
}

// RetryControls are the profile's retry control, or DefaultRetry.
func (p *Profile) RetryControls() []Control {
	if !p.Retry.IsZero() {
		return []Control{p.Retry}
	}
	return DefaultRetry
}

// NonSend lists the controls that act on an answer and are no send
// (stop, regenerate, retry): the validator does not take a click on one
// for a send.
func (p *Profile) NonSend() []Control {
	out := []Control{p.StopControl(), p.RegenerateControl()}
	out = append(out, p.RetryControls()...)
	if !p.Stop.IsZero() && p.Stop != DefaultStop {
		out = append(out, DefaultStop)
	}
	return out
}

// StopAnswer clicks the stop control while an answer streams, expecting
// the control to go; the answer then ends ANSWER_STOPPED, with or without
// a stopped note on the site (Expect.Stop). A stop is no send: the
// baseline of the last send stays.
func (p *Profile) StopAnswer(ctx context.Context, pg Page, wait time.Duration) error {
	if p.NoStop != "" {
		return fmt.Errorf("%w: %s (the profile's stop.none)", ErrNoStop, p.NoStop)
	}
	t := Target(p.StopControl())
	return pg.Click(ctx, t, engine.Expect{Gone: &t, Stop: true, Timeout: wait})
}

// RegenerateAnswer clicks the regenerate control, expecting a new answer group:
// the regenerated answer replaces the old one in place, under a new id or
// the old one (engine.Expect.InPlace), and it is the answer the next wait
// follows (no new user turn).
func (p *Profile) RegenerateAnswer(ctx context.Context, pg Page, wait time.Duration) error {
	return pg.Click(ctx, Target(p.RegenerateControl()), engine.Expect{NewAnswer: true, InPlace: true, Timeout: wait})
}

// RetryAnswer clicks the first retry control on the page (the profile's, else
// Retry, else Try again), expecting a new answer group in place of the
// failed one (under a new id or the old one).
func (p *Profile) RetryAnswer(ctx context.Context, pg Page, wait time.Duration) error {
	var err error
	for _, c := range p.RetryControls() {
		err = pg.Click(ctx, Target(c), engine.Expect{NewAnswer: true, InPlace: true, Timeout: wait})
		if !errors.Is(err, locate.TargetNotFound) {
			return err
		}
	}
	return err
}
