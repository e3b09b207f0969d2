package harness

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cucumber/godog"
)

// failing is a fixture whose one step always fails.
type failing struct{}

func (failing) Catalogue() []StepDef {
	return []StepDef{{Group: "Fail", Pattern: `^it fails$`, Meaning: "fails", Example: "Then it fails",
		Fn: func(context.Context) error { return errors.New("failed") }}}
}

func (f failing) InitializeScenario(sc *godog.ScenarioContext, s *Scenario) {
	Bind(sc, f.Catalogue())
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		return ctx, s.Finish(Outcome{Err: err, NoGolden: true})
	})
}

func (failing) Close() error { return nil }

// TestFeaturesParsedOnce: the selection, every retry pass and the check
// for undefined steps share one parse of each feature file.
func TestFeaturesParsedOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	feature := "Feature: F\n  Scenario: a\n    Then it fails\n  Scenario: b\n    Then it is undefined\n"
	if err := os.WriteFile(filepath.Join(root, "features", "f.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Root: root, Dir: root, Format: "progress", Output: io.Discard, Stderr: io.Discard, Scale: Scale{Retries: 2}}, failing{})
	if err != nil {
		t.Fatal(err)
	}
	if code := r.Run(); code == 0 {
		t.Fatal("a failing run passed")
	}
	if r.feats.parses != 1 {
		t.Errorf("the feature file was parsed %d times, want 1", r.feats.parses)
	}
}
