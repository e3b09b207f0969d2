package vocabulary

import (
	"testing"

	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/ledgersteps"
)

// TestCatalogue: the composed catalogue is sound (every example matches
// its step alone), holds each domain group's steps, and lists them after
// the runtime's own tables.
func TestCatalogue(t *testing.T) {
	if err := CheckCatalogue(); err != nil {
		t.Fatal(err)
	}
	all, runtime := Catalogue(), steps.Catalogue()
	for _, g := range Groups() {
		t.Run(g.Name, func(t *testing.T) {
			n := len(steps.Declare(g)[0].Steps)
			if n == 0 {
				t.Fatal("the group has no step")
			}
			if len(all) < len(runtime)+n {
				t.Fatalf("the vocabulary lists %d steps, the runtime %d: the group's %d are missing", len(all), len(runtime), n)
			}
		})
	}
	for _, d := range all {
		if d.Group == ledgersteps.Name && !d.NeedsSim {
			t.Errorf("%s: a step of %q is not marked as the sim's", d.Pattern, d.Group)
		}
	}
}
