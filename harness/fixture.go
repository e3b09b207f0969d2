package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/replay"
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
	// before the fixture's; the fixture's After hook ends the scenario
	// with s.Finish.
	InitializeScenario(sc *godog.ScenarioContext, s *Scenario)
	// Close releases what the fixture shares between scenarios (a
	// browser); the runner calls it once, when the run ends.
	Close() error
}

// scenarioRun is what a Scenario holds while it runs.
type scenarioRun struct {
	runner   *Runner
	position func() int
	outcome  *Outcome
	err      error // what Finish returned
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
	// AfterErrs are what the fixture found wrong once the steps passed
	// (recorded actions never replayed, …): they fail the scenario.
	AfterErrs []error
	// Trace is the scenario's normalised trace: what the golden holds.
	Trace []byte
	// Sessions are the scenario's recorded sessions, one per tab, in the
	// order the tabs opened.
	Sessions []Session
	// Skipped: the scenario skipped itself; its golden is neither
	// compared nor reported obsolete.
	Skipped bool
}

// Session is one tab's session in an Outcome.
type Session struct {
	// Tab is the tab's name ("main" for the first).
	Tab string
	// Path is the session's file (Scenario.SessionPath).
	Path string
	// Recorded is the session recorded live or replayed, nil for none.
	Recorded *replay.Session
	// Save writes the session recorded live; nil when this run keeps
	// none (the mode's decision).
	Save func() error
	// View renders a capture for the HTML report; nil shows none.
	View func(*capture.Capture) report.CaptureView
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

// TrackPosition tells the reports how far the main tab's session has gone
// (the replay's position, or the steps recorded so far), so each step
// shows the captures it made.
func (s *Scenario) TrackPosition(fn func() int) {
	if s.run != nil {
		s.run.position = fn
	}
}

func (s *Scenario) position() int {
	if s.run == nil || s.run.position == nil {
		return 0
	}
	return s.run.position()
}

// Finish ends the scenario with what the fixture saw: when its steps
// passed, the golden trace is compared (rewritten with Options.Update,
// created when missing in a mode that creates goldens) and the sessions
// to keep are saved. It returns what fails the scenario after its steps
// (the fixture's AfterErrs, golden drift, a save error), prefixed with
// the scenario's file:line, for the fixture's After hook to return to
// godog.
func (s *Scenario) Finish(o Outcome) error {
	if s.run == nil {
		return errors.New("harness: Finish of a scenario the runner did not start")
	}
	if s.run.interrupted {
		return nil
	}
	var errs []error
	if o.Err == nil {
		errs = append(errs, o.AfterErrs...)
		if !o.Skipped {
			// a skipped scenario made no trace to compare; its golden
			// stays and still counts as used
			if err := s.compareGolden(o.Trace); err != nil {
				errs = append(errs, err)
			}
		}
		for _, ss := range o.Sessions {
			if ss.Save != nil {
				if err := ss.Save(); err != nil {
					errs = append(errs, err)
				}
			}
		}
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
	h := r.hints(*s)
	dir, name := r.GoldenDir(), s.Slug
	res, err := golden.Compare(s.GoldenPath(), trace, golden.Options{Update: r.opt.Update, CreateMissing: r.opt.Mode.CreatesGoldens()})
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("golden trace %s/%s.golden is missing; create it with: %s", dir, name, h.CreateGolden)
	case err != nil:
		return err
	case res.Diff != "":
		return driftError(name, h.Update, res.Diff)
	}
	return nil
}

// driftError says the trace differs, with the diff and the command that
// rewrites the golden once the diff is checked.
func driftError(name, updateHint, diff string) error {
	return fmt.Errorf("golden trace drift for %s; if the new trace is right (check the diff below), rewrite the golden with: %s\n%s", name, updateHint, diff)
}
