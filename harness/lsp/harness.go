package lsp

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

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
		st.File, st.Line = funcFileLine(d.Fn)
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
	opt := harness.Options{Root: root, HintDir: root, Command: r.Command}
	var out []RecordingState
	for _, sc := range scs {
		st, err := harness.State(root, sc)
		if err != nil {
			return nil, err
		}
		h := harness.HintsFor(opt, sc)
		rs := RecordingState{Line: sc.Line}
		switch {
		case len(st.Stale) > 0:
			rs.Problem, rs.Command = CodeStaleRecording, harness.ShellSplit(h.Rerecord)
			rs.Message = fmt.Sprintf("the recording of %q was made from other steps (%s): replaying it fails until it is recorded again", sc.Name, relAll(root, st.Stale))
		case !st.Recorded() && st.Golden == "":
			rs.Problem, rs.Command = CodeNoRecording, harness.ShellSplit(h.Record)
			rs.Message = fmt.Sprintf("%q has no recording and no golden trace (recordings/golden/%s.golden): a replay fails; record-once runs it live in Chromium once and makes both", sc.Name, sc.Slug)
		case st.Golden == "":
			rs.Problem, rs.Command = CodeNoGolden, harness.ShellSplit(h.CreateGolden)
			rs.Message = fmt.Sprintf("%q has no golden trace (recordings/golden/%s.golden): a run fails", sc.Name, sc.Slug)
		}
		out = append(out, rs)
	}
	return out, nil
}

func relAll(root string, paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(root, p); err == nil {
			out[i] = filepath.ToSlash(rel)
		}
	}
	return strings.Join(out, ", ")
}

// funcFileLine is where the Go function fn is declared.
func funcFileLine(fn any) (string, int) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return "", 0
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return "", 0
	}
	return f.FileLine(f.Entry())
}
