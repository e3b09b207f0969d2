package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/driver"
	"github.com/replaylab/replaylab/report"
)

// Cassette is a fixture's recording format: how one tab's session is
// read for replay and how a live driver's session is recorded. The runner
// owns when each happens (Scenario.Driver decides by Options.Mode, checks
// the recording was made from this scenario and saves it when the
// scenario passes); the format is the fixture's (replaylab's steps use
// engine/replay's sessions).
type Cassette interface {
	// Load reads the session at path for replay. A missing file is an
	// error the runner shows with the command that records it.
	Load(path string) (Tape, error)
	// Record starts recording what passes through live, the session
	// stamped with fingerprint (Scenario.Fingerprint).
	Record(live driver.Driver, fingerprint string) (Tape, error)
}

// Tape is one tab's session while its scenario runs: replayed from a
// file or being recorded from a live driver.
type Tape interface {
	// Driver is what the engine drives: the replay, or the recorder
	// around the live driver.
	Driver() driver.Driver
	// Fingerprint is the scenario fingerprint the session was recorded
	// from (RecordedFrom).
	Fingerprint() string
	// Position is how far the session has gone: steps replayed, or
	// steps recorded so far (the report's steps show their captures).
	Position() int
	// Unused lists the recorded actions a replay never took (none when
	// recording); a passed scenario with any fails.
	Unused() []string
	// Save writes the recorded session to path.
	Save(path string) error
	// Recording is the session as the HTML report shows it.
	Recording() Recording
}

// Recording is a tab's session for the HTML report: its captures and its
// steps, a step's Capture indexing Captures (-1 for an action).
type Recording struct {
	Captures []*capture.Capture
	Steps    []report.SessionStep
}

// tabTape is one tab the runner opened for a scenario.
type tabTape struct {
	name string
	path string
	tape Tape
	save bool // the mode's decision: the live session is written when the scenario passes
	live bool
}

// ErrNotStarted is Driver or Finish of a scenario the runner did not
// start (a fixture calling them outside its hooks).
var ErrNotStarted = errors.New("harness: a scenario the runner did not start")

// Driver returns the driver of the scenario's tab (MainTab for ""),
// opening it on first use: by the run's mode the tab's session is
// replayed (c.Load, checked to be recorded from this scenario), or the
// tab runs live (open) through a recorder (c.Record) whose session is
// saved when the scenario passes. Each tab has its own session file
// (SessionPath). Finish ends every tab the scenario opened.
func (s *Scenario) Driver(ctx context.Context, tab string, c Cassette, open func(context.Context) (driver.Driver, error)) (driver.Driver, error) {
	if s.run == nil {
		return nil, ErrNotStarted
	}
	if tab == "" {
		tab = MainTab
	}
	for _, t := range s.run.tabs {
		if t.name == tab {
			return t.tape.Driver(), nil
		}
	}
	path := s.SessionPath(tab)
	_, statErr := os.Stat(path)
	decision := s.Mode().Decide(!errors.Is(statErr, fs.ErrNotExist))
	t := &tabTape{name: tab, path: path, save: decision.Save, live: decision.Live}
	if decision.Live {
		live, err := open(ctx)
		if err != nil {
			return nil, err
		}
		if t.tape, err = c.Record(live, s.Fingerprint); err != nil {
			return nil, err
		}
	} else {
		tape, err := c.Load(path)
		if err != nil && decision.Missing {
			return nil, fmt.Errorf("%w for scenario %s%s", err, s.Slug, fix("record it", s.Hints().Record))
		}
		if err != nil {
			return nil, err
		}
		if !RecordedFrom(tape.Fingerprint(), s.Fingerprint, s.StepsFingerprint) {
			return nil, fmt.Errorf("replay: the recording %s was made from another version of this scenario (a Given or When step changed; checks under Then may change freely)%s", path, fix("re-record it", s.Hints().Rerecord))
		}
		t.tape = tape
	}
	s.run.tabs = append(s.run.tabs, t)
	return t.tape.Driver(), nil
}

// Live reports whether the scenario's tab runs live (false for a tab not
// opened yet or replayed).
func (s *Scenario) Live(tab string) bool {
	if s.run == nil {
		return false
	}
	for _, t := range s.run.tabs {
		if t.name == tab {
			return t.live
		}
	}
	return false
}

// finishTabs checks and saves the tabs of a scenario whose steps passed:
// recorded actions a replay never took fail it; sessions the mode keeps
// are saved.
func (s *Scenario) finishTabs() []error {
	var errs []error
	for _, t := range s.run.tabs {
		if unused := t.tape.Unused(); len(unused) > 0 {
			errs = append(errs, fmt.Errorf("replay: tab %s: %d recorded actions were never replayed: %s", t.name, len(unused), strings.Join(unused, "; ")))
		}
	}
	return errs
}

// saveTabs writes the live sessions the mode keeps.
func (s *Scenario) saveTabs() []error {
	var errs []error
	for _, t := range s.run.tabs {
		if t.live && t.save {
			if err := t.tape.Save(t.path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
