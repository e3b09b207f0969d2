package steps_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
)

// TestUnbound: a group declared from its catalogue lists its steps as
// the bound group does, and a scenario that reaches one of them is
// skipped with the group's message, not failed or left undefined.
func TestUnbound(t *testing.T) {
	bound := steps.Group{Name: "A team's self-tests", SelfTest: true, Steps: func(t *steps.Table) {
		t.Step(`^the team's nested run passes$`, "runs the team's harness in a scratch project", "Then the team's nested run passes",
			func(context.Context) error { return nil })
	}}
	decl := steps.Declare(bound)
	if len(decl) != 1 || len(decl[0].Steps) != 1 || !decl[0].SelfTest || !strings.HasSuffix(strings.Split(decl[0].Steps[0].Source, ":")[0], "steps/unbound_test.go") {
		t.Fatalf("declared %+v", decl)
	}
	unbound := steps.Unbound(decl, func(w steps.World, group string, d steps.DeclaredStep) string {
		return "SKIPPING " + w.Pickle().Name + ": " + group + " runs under go test only"
	})
	got, want := steps.Catalogue(unbound...), steps.Catalogue(bound)
	if len(got) != len(want) {
		t.Fatalf("%d steps listed, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Pattern != want[i].Pattern || got[i].Group != want[i].Group || got[i].SelfTest != want[i].SelfTest || got[i].Source != "" && !strings.Contains(got[i].Source, "unbound_test.go") {
			t.Errorf("step %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	root := t.TempDir()
	feature := "Feature: Team\n  Scenario: The nested run\n    Then the team's nested run passes\n"
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "features", "team.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := steps.NewRunner(harness.Options{Root: root, Format: "progress", Output: &out, Stderr: &out, Concurrency: 1},
		steps.Options{SelfTests: true, Groups: unbound})
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Run(); st != 0 {
		t.Fatalf("exit %d:\n%s", st, out.String())
	}
	if !strings.Contains(out.String(), "1 skipped") {
		t.Fatalf("the scenario was not skipped:\n%s", out.String())
	}
}
