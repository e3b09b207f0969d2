package steps_test

import (
	"context"
	"fmt"
	"os"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
)

// A second team's group: its step drives the page the scenario's tab
// holds through the world (live and recorded, or replayed from that
// recording), traces what it found for the golden, and keeps its own
// state per scenario.
func ExampleGroup() {
	type counts struct{ finds int }
	team := steps.Group{Name: "Our checks", Steps: func(t *steps.Table) {
		t.Step(`^our page shows the button "([^"]*)"$`, "a find of that button on the current tab",
			`Then our page shows the button "Send"`, func(ctx context.Context, name string) error {
				w := steps.WorldOf(ctx)
				p, err := w.Page(ctx)
				if err != nil {
					return err
				}
				r, err := p.Find(ctx, observe.Query{Role: "button", Name: name})
				if err != nil {
					return err
				}
				steps.State[counts](w).finds++
				w.Emit(trace.E("our.find", trace.A("name", name), trace.A("matched", r.Selection.Matched)))
				if r.Selection.Matched != 1 {
					return fmt.Errorf("the button %q matched %d", name, r.Selection.Matched)
				}
				return nil
			})
	}}
	r, err := steps.NewRunner(harness.Options{Root: "."}, steps.Options{Groups: []steps.Group{team}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	_ = r // r.Run() runs features/ and returns the exit status
}
