package lsp

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/harness"
)

// What the server reads of the harness: a fixture's catalogue
// (Catalogue) and the recording state and hints of `run` (RunRecordings).

// Catalogue is the Vocabulary of a fixture's catalogue (harness.Fixture's
// Catalogue): its steps with where each step's Go function is, and the
// closest steps ranked by harness.Suggest, as `run` ranks them.
func Catalogue(defs []harness.StepDef) Vocabulary {
	c := &catalogue{defs: defs, byPattern: map[string]int{}}
	base := moduleRoot()
	for i, d := range defs {
		st := Step{Group: d.Group, Pattern: d.Pattern, Meaning: d.Meaning, Example: d.Example, Table: d.Table,
			Defaults: d.Defaults, Kind: d.Kind, NeedsSim: d.NeedsSim, AliasOf: d.AliasOf}
		st.File, st.Line = d.FileLine()
		if base != "" && strings.HasPrefix(filepath.ToSlash(st.File), base+"/") {
			st.File = strings.TrimPrefix(filepath.ToSlash(st.File), base+"/")
		}
		c.steps = append(c.steps, st)
		c.byPattern[d.Pattern] = i
	}
	return c
}

type catalogue struct {
	defs      []harness.StepDef
	steps     []Step
	byPattern map[string]int
}

func (c *catalogue) Steps() []Step { return c.steps }

func (c *catalogue) Suggest(text string, n int) []Step {
	var out []Step
	for _, d := range harness.Suggest(c.defs, text, n) {
		if i, ok := c.byPattern[d.Pattern]; ok {
			out = append(out, c.steps[i])
		}
	}
	return out
}

// ModuleRoot is the root of the module this package was built from
// (slash-separated; with -trimpath the module path): the directory a
// step's relative File names a file of. Options.SourceDirs takes it.
func ModuleRoot() string { return filepath.FromSlash(moduleRoot()) }

func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// this file is <root>/harness/lsp/harness.go
	return filepath.ToSlash(filepath.Dir(filepath.Dir(filepath.Dir(file))))
}

// RunRecordings is the recording state `run` finds (harness.State) of
// the scenarios of a feature file as the editor holds it
// (harness.ScenariosOf), with the hints a run prints (harness.HintsFor):
// Command is how the user runs the harness ("replaylab run"), and the
// hints' paths are relative to the root, where they are run.
type RunRecordings struct {
	Command []string
	// Fixes are the program's fixing flags (harness.Options.Fixes).
	Fixes harness.FixFlags
}

// Check implements Recordings. A scenario with neither a recording nor a
// golden has not been recorded; one with a golden but no session reads
// no page (nothing to record); a session made from other steps is
// stale; a recorded scenario without its golden misses the golden.
func (r RunRecordings) Check(root, rel, path string, content []byte) ([]RecordingState, error) {
	scs, err := harness.ScenariosOf(content, path, rel)
	var bad *harness.BadSelectionError
	if errors.As(err, &bad) {
		return nil, nil // malformed: the parser's diagnostics say so
	}
	if err != nil {
		return nil, err
	}
	opt := harness.Options{Root: root, HintDir: root, Command: r.Command, Fixes: r.Fixes}
	var out []RecordingState
	for _, sc := range scs {
		p, err := harness.RecordingProblem(opt, sc) // as run --dry-run finds it
		if err != nil {
			return nil, err
		}
		rs := RecordingState{Line: sc.Line}
		if p != nil {
			rs.Problem, rs.Message, rs.Command = p.Code, p.Message, p.Command
		}
		out = append(out, rs)
	}
	return out, nil
}

// RunChecks is the dry run of `run --dry-run` (harness.Checker) over a
// feature file as the editor holds it: the same code finds the same
// ambiguous steps, arguments that do not convert, and site profiles and
// adapter files that are missing or do not load. Defs is the catalogue
// the run binds in a root (with or without the self-test steps).
type RunChecks struct {
	Defs func(root string) []harness.StepDef

	mu       sync.Mutex
	checkers map[string]*harness.Checker // by root
}

// Check implements Checks. The undefined steps and recording states are
// left to the server's own diagnostics (Diagnostics, Recordings), which
// carry their quick fixes.
func (r *RunChecks) Check(root, rel, path string, content []byte) ([]Problem, error) {
	c, err := r.checker(root)
	if err != nil {
		return nil, err
	}
	ps, err := c.CheckFile(harness.Options{Root: root, HintDir: root}, content, path, rel, false)
	var bad *harness.BadSelectionError
	if errors.As(err, &bad) {
		return nil, nil // malformed: the parser's diagnostics say so
	}
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, p := range ps {
		if p.Code == harness.CodeUndefinedStep {
			continue
		}
		out = append(out, Problem{Line: p.Line, Code: p.Code, Message: p.Message})
	}
	return out, nil
}

func (r *RunChecks) checker(root string) (*harness.Checker, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.checkers[root]; ok {
		return c, nil
	}
	c, err := harness.NewChecker(r.Defs(root))
	if err != nil {
		return nil, err
	}
	if r.checkers == nil {
		r.checkers = map[string]*harness.Checker{}
	}
	r.checkers[root] = c
	return c, nil
}
