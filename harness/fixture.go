package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/harness/internal/golden"
	"github.com/replaylab/replaylab/report"
)

// Fixture is the vocabulary a Runner runs: its steps and what each
// scenario starts with. It is the one seam between the runner and the
// steps; the runner never reaches into a fixture's world.
type Fixture interface {
	// Catalogue lists every step the fixture binds (the runner renders,
	// checks and suggests from it).
	Catalogue() []StepDef
	// InitializeScenario binds the steps and the fixture's hooks for one
	// scenario. s is filled in by the runner's own Before hook, which runs
	// before the fixture's; the fixture opens each tab's driver with
	// s.Driver and its After hook ends the scenario with s.Finish (a
	// scenario that never finishes fails).
	InitializeScenario(sc *godog.ScenarioContext, s *Scenario)
	// Close releases what the fixture shares between scenarios (a
	// browser); the runner calls it once, when the run ends.
	Close() error
}

// scenarioRun is what a Scenario holds while it runs.
type scenarioRun struct {
	runner  *Runner
	tabs    []*tabTape // the tabs Driver opened, in order
	outcome *Outcome
	err     error // what Finish returned
	// interrupted: the run's context had ended before the scenario
	// started; it is skipped, and Finish changes nothing
	interrupted bool
}

// Outcome is how a scenario ended, as the fixture saw it. The runner
// compares the golden trace, saves sessions and fills the reports from it
// alone.
type Outcome struct {
	// Err is the error the scenario's steps ended with (what godog hands
	// the After hook; nil when every step passed). Only a scenario whose
	// steps passed has its golden compared and its sessions saved.
	Err error
	// AfterErrs are what the fixture found wrong once the steps passed:
	// they fail the scenario.
	AfterErrs []error
	// Trace is the scenario's normalised trace: what the golden holds.
	Trace []byte
	// NoGolden: the fixture keeps no golden for this scenario (a plain
	// pass/fail scenario); Trace is neither compared nor written.
	NoGolden bool
	// View renders a capture of the scenario's sessions for the HTML
	// report; nil shows none.
	View func(*capture.Capture) report.CaptureView
	// Skipped: the scenario skipped itself; its golden is neither
	// compared nor reported obsolete.
	Skipped bool
}

// Mode is the run's recording mode (see Mode.Decide for what a
// scenario does with its recording).
func (s *Scenario) Mode() Mode {
	if s.run == nil {
		return ModeReplayOnly
	}
	return s.run.runner.opt.Mode
}

// Root is the project's root directory (features/, recordings/).
func (s *Scenario) Root() string {
	if s.run == nil {
		return "."
	}
	return s.run.runner.opt.Root
}

// SessionPath is the session file of the scenario's tab:
// recordings/sessions/<slug>.json for the main tab (tab "" or "main"),
// <slug>@<tab>.json for another.
func (s *Scenario) SessionPath(tab string) string {
	name := filepath.FromSlash(s.Slug)
	if tab != "" && tab != MainTab {
		name += "@" + tab
	}
	return filepath.Join(s.sessionsDir(), name+".json")
}

// MainTab is the name of the page every scenario starts with.
const MainTab = "main"

func (s *Scenario) sessionsDir() string {
	if s.run == nil {
		return filepath.Join(".", "recordings", "sessions")
	}
	return s.run.runner.SessionsDir()
}

// GoldenPath is the scenario's golden trace:
// recordings/golden/<slug>.golden.
func (s *Scenario) GoldenPath() string {
	dir := filepath.Join(".", "recordings", "golden")
	if s.run != nil {
		dir = s.run.runner.GoldenDir()
	}
	return filepath.Join(dir, filepath.FromSlash(s.Slug)+".golden")
}

// Recorded reports whether the project holds a session of the scenario,
// of any tab: a mode's decision for the scenario as a whole (record-once
// runs a scenario with none live from its first step).
func (s *Scenario) Recorded() bool { return len(sessionFiles(s.Root(), s.Slug)) > 0 }

// Hints are the commands that fix this scenario's recording problems,
// spelled for the user's project (see Hints).
func (s *Scenario) Hints() Hints {
	if s.run == nil {
		return Hints{}
	}
	return s.run.runner.hints(*s)
}

// position is how far the main tab's session has gone (the replay's
// position, or the steps recorded so far), so each step of the report
// shows the captures it made.
func (s *Scenario) position() int {
	if s.run == nil || len(s.run.tabs) == 0 || s.run.tabs[0].name != MainTab {
		return 0
	}
	return s.run.tabs[0].tape.Position()
}

// Finish ends the scenario with what the fixture saw: when its steps
// passed, the golden trace is compared (rewritten with Options.Update,
// created when missing in a mode that creates goldens; not with
// Outcome.NoGolden), the tabs it opened are checked (a replay that left
// recorded actions fails) and the sessions the mode keeps are saved. It returns what fails the scenario after its steps
// (the fixture's AfterErrs, golden drift, a save error), prefixed with
// the scenario's file:line, for the fixture's After hook to return to
// godog.
func (s *Scenario) Finish(o Outcome) error {
	if s.run == nil {
		return ErrNotStarted
	}
	if s.run.interrupted {
		return nil
	}
	var errs []error
	if o.Err == nil {
		errs = append(errs, s.finishTabs()...)
		errs = append(errs, o.AfterErrs...)
		if !o.Skipped && !o.NoGolden {
			// a skipped scenario made no trace to compare; its golden
			// stays and still counts as used
			if err := s.compareGolden(o.Trace); err != nil {
				errs = append(errs, err)
			}
		}
		errs = append(errs, s.saveTabs()...)
	}
	s.run.outcome = &o
	s.run.err = errors.Join(errs...)
	if s.run.err == nil {
		return nil
	}
	// godog shows this under the last step: the message names the
	// scenario's own line, which is what failed
	return fmt.Errorf("%s: %w", s.ID(), s.run.err)
}

// compareGolden checks trace against the scenario's golden.
func (s *Scenario) compareGolden(trace []byte) error {
	r := s.run.runner
	if r.opt.TestingT != nil {
		return s.assertGoldie(trace)
	}
	h := r.hints(*s)
	dir, name := r.GoldenDir(), s.Slug
	res, err := golden.Compare(s.GoldenPath(), trace, golden.Options{Update: r.opt.Update, CreateMissing: r.opt.Mode.CreatesGoldens()})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("golden trace %s/%s.golden is missing%s", dir, name, fix("create it", h.CreateGolden))
	case err != nil:
		return err
	case res.Diff != "":
		return &DriftError{Slug: name, Update: h.Update, Diff: res.Diff}
	}
	return nil
}

// DriftError is a scenario whose trace differs from its golden: its own
// kind of failure (the report counts drifts apart from failed steps),
// with the diff and the command that rewrites the golden once the diff
// is checked.
type DriftError struct {
	Slug   string // the scenario's slug
	Update string // the command that rewrites the golden (Hints.Update)
	Diff   string // golden → trace, unified
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("golden trace drift for %s%s\n%s", e.Slug, fix("if the new trace is right (check the diff below), rewrite the golden", e.Update), e.Diff)
}

// ErrNotFinished fails a scenario whose steps passed but whose fixture
// never handed over its outcome (Scenario.Finish): nothing was compared
// or saved, so the scenario must not pass.
var ErrNotFinished = errors.New("harness: the scenario did not finish: its fixture's After hook never called Scenario.Finish, so no golden was compared and no session saved")

// checkFinished is the runner's After hook behind the fixture's: a
// scenario whose steps passed and whose fixture never called Finish fails
// with ErrNotFinished.
func (s *Scenario) checkFinished(stepErr error) error {
	if s.run == nil || s.run.interrupted || s.run.outcome != nil || stepErr != nil {
		return nil
	}
	s.run.outcome = &Outcome{}
	s.run.err = ErrNotFinished
	return fmt.Errorf("%s: %w", s.ID(), ErrNotFinished)
}
