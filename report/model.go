// Package report is the result model of a run and the files written from
// it: JUnit XML, Cucumber JSON and a self-contained HTML report with time
// travel through the DOM captures the engine read. One model serves every
// writer, so the three files always agree, and shards of a run are merged
// on the model (Merge) before any file is written.
//
// The harness (package steps) fills a Run as scenarios finish; this package
// knows nothing of godog.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// FormatVersion is the version of the model file (report.json) this
// package reads and writes.
const FormatVersion = 1

// Status is the outcome of a step, an attempt or a scenario.
type Status string

// Statuses. Flaky is a scenario's only: an attempt failed and a later one
// passed.
const (
	Passed    Status = "passed"
	Failed    Status = "failed"
	Skipped   Status = "skipped"
	Undefined Status = "undefined"
	Pending   Status = "pending"
	Ambiguous Status = "ambiguous"
	Flaky     Status = "flaky"
)

// Run is one run (or the merge of several shards).
type Run struct {
	Version  int       `json:"version"`
	Driver   string    `json:"driver"`
	Seed     int64     `json:"seed"`
	Shard    string    `json:"shard,omitempty"`  // "2/4"; merged runs list theirs in Shards
	Shards   []string  `json:"shards,omitempty"` // the shards a merged run was made of
	Started  time.Time `json:"started"`
	Duration Duration  `json:"durationNs"`
	// Summary is computed by Finish from the scenarios.
	Summary   Summary     `json:"summary"`
	Scenarios []*Scenario `json:"scenarios"`
	// Sessions holds each recorded session, keyed by the Key of
	// Attempt.Recordings; Captures every capture they name, once.
	Sessions map[string]*Session `json:"sessions,omitempty"`
	Captures []StoredCapture     `json:"captures,omitempty"`

	table *captureTable
}

// Summary counts scenarios by final outcome. Drift counts scenarios whose
// trace differed from the golden.
type Summary struct {
	Scenarios int      `json:"scenarios"`
	Passed    int      `json:"passed"`
	Failed    int      `json:"failed"`
	Flaky     int      `json:"flaky"`
	Skipped   int      `json:"skipped"`
	Undefined int      `json:"undefined"`
	Drift     int      `json:"drift"`
	Attempts  int      `json:"attempts"`
	Duration  Duration `json:"durationNs"`
}

// Scenario is one scenario (an outline's example row counts as one) with
// every attempt made at it.
type Scenario struct {
	ID          string     `json:"id"` // stable: file:line
	Feature     string     `json:"feature"`
	FeatureLine int        `json:"featureLine"`
	FeatureDesc string     `json:"featureDescription,omitempty"`
	File        string     `json:"file"` // relative to the run's root, slash-separated
	Line        int        `json:"line"`
	Keyword     string     `json:"keyword"`
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Tags        []Tag      `json:"tags"`
	FeatureTags []Tag      `json:"featureTags,omitempty"`
	Slug        string     `json:"slug,omitempty"` // recordings/golden/<slug>.golden
	Status      Status     `json:"status"`
	Attempts    []*Attempt `json:"attempts"`
	// Repeat is the 1-based repetition under --repeat-each (0: not repeated).
	Repeat int `json:"repeat,omitempty"`
}

// Tag is a tag with the line it is written on.
type Tag struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

// Attempt is one execution of a scenario.
type Attempt struct {
	Status   Status    `json:"status"`
	Started  time.Time `json:"started"`
	Duration Duration  `json:"durationNs"`
	Steps    []*Step   `json:"steps"`
	// Error is the scenario's failure: the failed step's error, or an
	// error found after the steps (golden drift, unused recorded actions).
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
	// AfterError is an error found after the last step (golden drift,
	// recorded actions never replayed): it belongs to the scenario, not
	// to a step. AfterLocation is the code that found it.
	AfterError    string `json:"afterError,omitempty"`
	AfterLocation string `json:"afterLocation,omitempty"`
	// Drift is set when the trace differed from the golden; GoldenDiff
	// holds the diff.
	Drift      bool     `json:"drift,omitempty"`
	GoldenDiff string   `json:"goldenDiff,omitempty"`
	Trace      []string `json:"trace,omitempty"`
	Signals    []string `json:"signals,omitempty"`
	Ledger     []string `json:"ledger,omitempty"`
	// Recordings names the sessions (keys of Run.Sessions), one per tab.
	Recordings []Recording `json:"recordings,omitempty"`
}

// Recording ties one tab's session to the scenario.
type Recording struct {
	Tab  string `json:"tab"`
	Key  string `json:"key"`            // key in Run.Sessions
	Path string `json:"path,omitempty"` // the session file, relative to the root
}

// Step is one step of an attempt.
type Step struct {
	Keyword  string   `json:"keyword"`
	Text     string   `json:"text"`
	Line     int      `json:"line"`
	Status   Status   `json:"status"`
	Duration Duration `json:"durationNs"`
	// Location is the Go function that implements the step (file:line,
	// relative to the module root).
	Location string `json:"location,omitempty"`
	// Pattern is the regular expression of the step definition that
	// matched the step ("" when none did).
	Pattern   string     `json:"pattern,omitempty"`
	Error     string     `json:"error,omitempty"`
	Code      string     `json:"code,omitempty"`
	DocString string     `json:"docString,omitempty"`
	Table     [][]string `json:"table,omitempty"`
	// Session positions on the main tab before and after the step:
	// the recorded steps [From, To) happened during this step.
	SessionFrom int `json:"sessionFrom"`
	SessionTo   int `json:"sessionTo"`
	// Suggestions are the closest catalogue steps of an undefined step,
	// closest first.
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

// Suggestion is a catalogue step offered for an undefined one: its example
// and what it does.
type Suggestion struct {
	Example string `json:"example"`
	Meaning string `json:"meaning"`
}

// CaptureView is what the engine saw of one capture: its bounded snapshot
// as text and the answer groups with their element ids (data-rl-node).
type CaptureView struct {
	Snapshot string       `json:"snapshot"`
	Groups   []GroupNodes `json:"groups,omitempty"`
}

// GroupNodes is one answer group and the element ids that make it.
type GroupNodes struct {
	ID    string   `json:"id"`
	State string   `json:"state"`
	Nodes []string `json:"nodes"`
}

// Duration is a time.Duration written as integer nanoseconds.
type Duration time.Duration

// Seconds returns d in seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

// Last returns the scenario's final attempt.
func (s *Scenario) Last() *Attempt {
	if len(s.Attempts) == 0 {
		return &Attempt{Status: Skipped}
	}
	return s.Attempts[len(s.Attempts)-1]
}

// Outcome computes a scenario's status from its attempts: the last
// attempt's, except that a pass after a failure is flaky.
func (s *Scenario) Outcome() Status {
	last := s.Last().Status
	if last == Passed {
		for _, a := range s.Attempts[:len(s.Attempts)-1] {
			if a.Status == Failed {
				return Flaky
			}
		}
	}
	switch last {
	case Pending, Ambiguous:
		return Failed
	}
	return last
}

// Finish sorts the scenarios by file and line, sets each status and
// computes the summary.
func (r *Run) Finish() {
	r.Version = FormatVersion
	sort.SliceStable(r.Scenarios, func(i, j int) bool {
		a, b := r.Scenarios[i], r.Scenarios[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Repeat < b.Repeat
	})
	var s Summary
	for _, sc := range r.Scenarios {
		sc.Status = sc.Outcome()
		s.Scenarios++
		s.Attempts += len(sc.Attempts)
		for _, a := range sc.Attempts {
			s.Duration += a.Duration
		}
		switch sc.Status {
		case Passed:
			s.Passed++
		case Flaky:
			s.Flaky++
		case Skipped:
			s.Skipped++
		case Undefined:
			s.Undefined++
		default:
			s.Failed++
		}
		if sc.Last().Drift {
			s.Drift++
		}
	}
	r.Summary = s
}

// OK reports whether the run passes the gate: no failed or undefined
// scenario, and no flaky one when failOnFlaky.
func (r *Run) OK(failOnFlaky bool) bool {
	s := r.Summary
	return s.Failed == 0 && s.Undefined == 0 && (!failOnFlaky || s.Flaky == 0)
}

// ModelFile is the model's file name inside an HTML report directory;
// merge-reports reads it.
const ModelFile = "report.json"

// Errors of reading a model file.
var (
	ErrVersion   = errors.New("report: unsupported report.json version")
	ErrMalformed = errors.New("report: malformed report.json")
)

// Save writes the model as JSON to path atomically.
func (r *Run) Save(path string) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return writeAtomic(path, data)
}

// Load reads a model file written by Save.
func Load(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
	}
	if probe.Version == nil || *probe.Version != FormatVersion {
		v := "none"
		if probe.Version != nil {
			v = fmt.Sprint(*probe.Version)
		}
		return nil, fmt.Errorf("%w: %s has version %s, this build reads %d", ErrVersion, path, v, FormatVersion)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
	}
	for i, sc := range r.Scenarios {
		if sc == nil {
			return nil, fmt.Errorf("%w: %s: scenarios[%d] is null", ErrMalformed, path, i)
		}
		for j, a := range sc.Attempts {
			if a == nil {
				return nil, fmt.Errorf("%w: %s: scenarios[%d].attempts[%d] is null", ErrMalformed, path, i, j)
			}
			for k, st := range a.Steps {
				if st == nil {
					return nil, fmt.Errorf("%w: %s: scenarios[%d].attempts[%d].steps[%d] is null", ErrMalformed, path, i, j, k)
				}
			}
		}
	}
	for k, s := range r.Sessions {
		if s == nil {
			return nil, fmt.Errorf("%w: %s: session %q is null", ErrMalformed, path, k)
		}
	}
	return &r, nil
}

// writeAtomic writes data to path through a temp file and a rename.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("report: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Merge joins shard runs into one: scenarios side by side (a scenario id
// present in two shards is an error: every scenario runs in exactly one
// shard), sessions joined, summary recomputed.
func Merge(runs ...*Run) (*Run, error) {
	out := &Run{Version: FormatVersion, Sessions: map[string]*Session{}}
	seen := map[string]string{}
	for i, r := range runs {
		if i == 0 {
			out.Driver, out.Seed, out.Started = r.Driver, r.Seed, r.Started
		}
		if r.Driver != out.Driver {
			out.Driver = "mixed"
		}
		if !r.Started.IsZero() && (out.Started.IsZero() || r.Started.Before(out.Started)) {
			out.Started = r.Started
		}
		if r.Duration > out.Duration {
			out.Duration = r.Duration // shards run side by side
		}
		name := r.Shard
		if name == "" {
			name = fmt.Sprintf("input %d", i+1)
		}
		out.Shards = append(out.Shards, name)
		out.Shards = append(out.Shards, r.Shards...)
		for _, sc := range r.Scenarios {
			key := fmt.Sprintf("%s#%d", sc.ID, sc.Repeat)
			if prev, ok := seen[key]; ok {
				return nil, fmt.Errorf("report: scenario %s is in both %s and %s (a scenario belongs to exactly one shard)", sc.ID, prev, name)
			}
			seen[key] = name
			out.Scenarios = append(out.Scenarios, sc)
		}
		// captures are renumbered after the ones merged so far
		off := len(out.Captures)
		for _, c := range r.Captures {
			for fi := range c.Frames {
				if c.Frames[fi].HTML == nil {
					c.Frames[fi].Base += off
				}
			}
			out.Captures = append(out.Captures, c)
		}
		for k, v := range r.Sessions {
			if _, dup := out.Sessions[k]; dup {
				return nil, fmt.Errorf("report: session %s is in two inputs", k)
			}
			ns := &Session{Steps: make([]SessionStep, len(v.Steps))}
			for i, st := range v.Steps {
				if st.Capture >= 0 {
					st.Capture += off
				}
				ns.Steps[i] = st
			}
			out.Sessions[k] = ns
		}
	}
	out.Finish()
	return out, nil
}
