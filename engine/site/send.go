package site

import (
	"context"
	"time"

	"github.com/replaylab/replaylab/engine"
)

// Page is what sending needs of a page (engine.Page, or the same
// operations over MCP).
type Page interface {
	Fill(ctx context.Context, t engine.Target, text string) error
	Click(ctx context.Context, t engine.Target, x engine.Expect) error
	Press(ctx context.Context, t engine.Target, key string, x engine.Expect) error
}

// Target turns a control into an engine target.
func Target(c Control) engine.Target {
	if c.Selector != "" {
		return engine.BySelector(c.Selector)
	}
	return engine.ByRole(c.Role, c.Name)
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
