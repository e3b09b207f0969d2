package steps

import (
	"context"
	"fmt"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/trace"
)

// Steps of features/clock.feature: the lab clock (CLK-1). The CLK-2 steps
// (scenario names that do not depend on start order) are replaylab's
// self-tests (internal/selftest).
func clockSteps(r *table) {
	const c = "Answer checks"
	r.step(c, `^the clock reads (\d+) ms since the start$`,
		"the main page's clock: the lab's virtual time live, the recording's time replayed; both start at the scenario's start and move only when the engine waits",
		"Then the clock reads 300 ms since the start", clockReads)
}

// clockReads checks the main tab's clock, which live is the world's lab
// clock and replayed is the recording's: exact in both, because lab time
// moves only when the engine sleeps.
func clockReads(ctx context.Context, want int) error {
	w := worldOf(ctx)
	t, ok := w.tabs[mainTab]
	if !ok {
		return fmt.Errorf("no page was opened, so there is no clock to read")
	}
	var d interface{ Now() time.Time }
	switch {
	case t.rec != nil:
		d = t.rec
	case t.replay != nil:
		d = t.replay
	default:
		return fmt.Errorf("the main tab has no clock")
	}
	got := d.Now().Sub(clock.Epoch)
	w.log.Emit(trace.E("clock", trace.A("ms", got.Milliseconds())))
	if got != ms(want) {
		return fmt.Errorf("the clock reads %v since the start, want %v", got, ms(want))
	}
	return nil
}
