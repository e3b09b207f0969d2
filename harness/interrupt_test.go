package harness_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/harness"
)

// stopper's one step ends the run's context, as a signal does.
type stopper struct{ stop context.CancelFunc }

func (f stopper) Catalogue() []harness.StepDef {
	return []harness.StepDef{{Group: "Run", Pattern: `^the run is stopped$`, Meaning: "ends the run's context",
		Example: "When the run is stopped", Fn: func(ctx context.Context) error { f.stop(); return nil }}}
}

func (f stopper) InitializeScenario(sc *godog.ScenarioContext, s *harness.Scenario) {
	harness.Bind(sc, f.Catalogue())
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		return ctx, s.Finish(harness.Outcome{Err: err, Trace: []byte("stopped\n")})
	})
}

func (stopper) Close() error { return nil }

// stopProject is a project of three scenarios, each of whose one step
// stops the run.
func stopProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	feature := "Feature: Stop\n"
	for _, name := range []string{"first", "second", "third"} {
		feature += "  Scenario: " + name + "\n    When the run is stopped\n"
	}
	if err := os.WriteFile(filepath.Join(root, "features", "stop.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestAnInterruptedRunStops: once the run's context ends, the scenarios
// not yet started are skipped (not passed), Run returns ExitInterrupted
// and says so, and the files that describe a whole run (failed
// scenarios, costs) are left as they were.
func TestAnInterruptedRunStops(t *testing.T) {
	root := stopProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	rerun, costs := filepath.Join(root, "last-failed.txt"), filepath.Join(root, "cost.json")
	r, err := harness.New(harness.Options{Name: "replaylab", Command: []string{"replaylab", "run"}, Root: root, Dir: root, Update: true, Format: "progress", Output: io.Discard, Stderr: &stderr,
		Concurrency: 1, Scale: harness.Scale{Progress: true}, Context: ctx, RerunFile: rerun, CostFile: costs}, stopper{cancel})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Run(); got != harness.ExitInterrupted {
		t.Errorf("Run = %d, want %d (ExitInterrupted); stderr:\n%s", got, harness.ExitInterrupted, stderr.String())
	}
	for _, want := range []string{"3 scenarios: 1 passed, 0 failed, 0 flaky, 2 skipped", "replaylab: interrupted: "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	for _, f := range []string{rerun, costs} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written by an interrupted run (%v)", filepath.Base(f), err)
		}
	}
}

// TestAnInterruptedRunNamesWhatItCut: a run its context ended (here with
// the cause --timeout gives it) names the scenario that was running, the
// ones that never started, and the command that runs them again.
func TestAnInterruptedRunNamesWhatItCut(t *testing.T) {
	root := stopProject(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := func() { cancel(errors.New("--timeout 10m0s")) }
	var stderr bytes.Buffer
	r, err := harness.New(harness.Options{Name: "replaylab", Command: []string{"replaylab", "run"}, Root: root, Dir: root, Update: true, Format: "progress", Output: io.Discard, Stderr: &stderr,
		Concurrency: 1, Scale: harness.Scale{Progress: true}, Context: ctx, RerunFile: filepath.Join(root, "last-failed.txt"), CostFile: filepath.Join(root, "cost.json")}, stopper{stop})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Run(); got != harness.ExitInterrupted {
		t.Fatalf("Run = %d, want %d; stderr:\n%s", got, harness.ExitInterrupted, stderr.String())
	}
	want := "replaylab: 1 cut short (running when the run stopped):\n" +
		"  features/stop.feature:2  first\n" +
		"replaylab: 2 never started:\n" +
		"  features/stop.feature:4  second\n" +
		"  features/stop.feature:6  third\n" +
		"replaylab: run them again: replaylab run features/stop.feature:2 features/stop.feature:4 features/stop.feature:6\n"
	if !strings.Contains(stderr.String(), "(--timeout 10m0s)") || !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to name the cause and end with:\n%s", stderr.String(), want)
	}
}
