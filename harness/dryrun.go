package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// A dry run (`replaylab run --dry-run`) checks what a run would trip on
// before anything runs: every step of the selected scenarios against the
// catalogue (undefined, ambiguous, with the closest steps), every
// argument converted as godog converts it (numbers, durations, JSON),
// every site profile and adapter file a step names loaded (StepDef.Files),
// and every scenario's recording state. It opens no browser and writes no
// file. The language server reports the same problems from the same code
// (CheckFile).

// Problem codes of a dry run: what each problem is about.
const (
	CodeUndefinedStep  = "undefined-step"  // no catalogue step matches
	CodeAmbiguousStep  = "ambiguous-step"  // more than one catalogue step matches (a strict run fails)
	CodeBadArgument    = "bad-argument"    // an argument godog or the step cannot convert
	CodeMissingFile    = "missing-file"    // a site profile or adapter file a step names is not there
	CodeBadFile        = "bad-file"        // a site profile or adapter file that does not load
	CodeNoRecording    = "no-recording"    // the scenario has no recording and no golden
	CodeStaleRecording = "stale-recording" // its recording was made from other steps
	CodeNoGolden       = "no-golden"       // its golden trace is missing
)

// ErrDryRunProblems is what a dry run that found problems returns
// (wrapped): the command exits with its own code for it.
var ErrDryRunProblems = errors.New("the dry run found problems")

// FileArg is an argument of a step that names a file the step loads (a
// site profile, an adapter): a dry run loads it.
type FileArg struct {
	// Arg is the index of the argument (0 is the first capture).
	Arg int
	// Kind names the file in messages ("site profile", "adapter file").
	Kind string
	// Load reads and checks the file at path (as the scenario names it,
	// relative to root); an error wrapping fs.ErrNotExist is a missing
	// file.
	Load func(root, path string) error
}

// Problem is one thing a dry run found.
type Problem struct {
	// File is the feature file as the user names it (relative to where
	// the command runs), Line the step's line, or the scenario's (an
	// outline row's) for a recording problem.
	File string
	Line int
	// Code is one of the Code* constants.
	Code string
	// Message says what is wrong, in one or more lines.
	Message string
	// Closest are the catalogue steps nearest to an undefined step.
	Closest []StepDef
	// Command is the command that fixes a recording problem, run from
	// where the command ran.
	Command []string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Code, p.Message)
}

// stepMatcher matches step texts against the catalogue as godog binds it:
// every pattern compiled once, the matches of a text cached.
type stepMatcher struct {
	defs  []StepDef
	res   []*regexp.Regexp
	json  [][]bool // per def, per capture: the group takes a JSON value
	cache map[string][]int
}

func newStepMatcher(defs []StepDef) (*stepMatcher, error) {
	m := &stepMatcher{defs: defs, cache: map[string][]int{}}
	for _, d := range defs {
		re, err := regexp.Compile(d.Pattern)
		if err != nil {
			return nil, fmt.Errorf("harness: step %s: %w", d.Pattern, err)
		}
		m.res = append(m.res, re)
		m.json = append(m.json, jsonGroups(d.Pattern))
	}
	return m, nil
}

// jsonGroups tells, for each capture of pattern, whether it takes a JSON
// object or array: a group that begins with a literal { or [.
func jsonGroups(pattern string) []bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	out := make([]bool, re.MaxCap())
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpCapture && r.Cap-1 < len(out) {
			first := r.Sub[0]
			for first.Op == syntax.OpConcat && len(first.Sub) > 0 {
				first = first.Sub[0]
			}
			if first.Op == syntax.OpLiteral && len(first.Rune) > 0 && (first.Rune[0] == '{' || first.Rune[0] == '[') {
				out[r.Cap-1] = true
			}
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return out
}

// match returns the indexes of the defs whose pattern matches text.
func (m *stepMatcher) match(text string) []int {
	if got, ok := m.cache[text]; ok {
		return got
	}
	var out []int
	for i, re := range m.res {
		if re.MatchString(text) {
			out = append(out, i)
		}
	}
	m.cache[text] = out
	return out
}

// checkStep returns the problems of one step (a pickle's text): at most
// one of undefined, ambiguous, or the problems of its arguments.
func (m *stepMatcher) checkStep(root string, st stepInfo) []Problem {
	hits := m.match(st.text)
	switch len(hits) {
	case 0:
		p := Problem{Line: st.line, Code: CodeUndefinedStep, Closest: Suggest(m.defs, st.text, SuggestCount)}
		var b strings.Builder
		fmt.Fprintf(&b, "undefined step: %s%s", st.keyword, st.text)
		if len(p.Closest) > 0 {
			b.WriteString("\n    did you mean:")
			for _, c := range p.Closest {
				fmt.Fprintf(&b, "\n      %s\n        (%s)", c.Example, c.Meaning)
			}
		}
		p.Message = b.String()
		return []Problem{p}
	case 1:
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "ambiguous step: %s%s matches %d steps of the catalogue (a strict run fails it):", st.keyword, st.text, len(hits))
		for _, i := range hits {
			fmt.Fprintf(&b, "\n      %s", m.defs[i].Pattern)
		}
		return []Problem{{Line: st.line, Code: CodeAmbiguousStep, Message: b.String()}}
	}
	i := hits[0]
	d := m.defs[i]
	sub := m.res[i].FindStringSubmatchIndex(st.text)
	var args []string
	var after []string // the step text after each capture
	for g := 1; g*2 < len(sub); g++ {
		a, b := sub[2*g], sub[2*g+1]
		if a < 0 {
			args, after = append(args, ""), append(after, "")
			continue
		}
		args = append(args, st.text[a:b])
		after = append(after, st.text[b:])
	}
	var out []Problem
	bad := func(format string, a ...any) {
		out = append(out, Problem{Line: st.line, Code: CodeBadArgument, Message: fmt.Sprintf(format, a...)})
	}
	for _, e := range convertArgs(d.Fn, args, st.arg) {
		bad("%s%s: %s", st.keyword, st.text, e)
	}
	for g, v := range args {
		if g < len(m.json[i]) && m.json[i][g] && !json.Valid([]byte(v)) {
			var x any
			err := json.Unmarshal([]byte(v), &x)
			bad("%s%s: argument %d is not JSON: %v", st.keyword, st.text, g+1, err)
		}
		if msg, ok := durationArg(v, after[g]); ok && msg != "" {
			bad("%s%s: argument %d: %s", st.keyword, st.text, g+1, msg)
		}
	}
	for _, f := range d.Files {
		if f.Arg >= len(args) || f.Load == nil || args[f.Arg] == "" {
			continue
		}
		if err := f.Load(root, args[f.Arg]); err != nil {
			code := CodeBadFile
			if errors.Is(err, fs.ErrNotExist) {
				code = CodeMissingFile
			}
			out = append(out, Problem{Line: st.line, Code: code, Message: fmt.Sprintf("the %s %q: %v", f.Kind, args[f.Arg], err)})
		}
	}
	return out
}

// durationArg checks a number followed by a unit ("1500 ms", "2 s"): the
// wait it names must fit a time.Duration. ok reports whether v is one;
// the problem is "" when it fits.
func durationArg(v, after string) (problem string, ok bool) {
	var unit int64
	switch {
	case strings.HasPrefix(after, " ms"):
		unit = 1e6
	case strings.HasPrefix(after, " seconds"), strings.HasPrefix(after, " second"), after == " s" || strings.HasPrefix(after, " s "):
		unit = 1e9
	default:
		return "", false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "", true // not a whole number: convertArgs names it
	}
	if n > math.MaxInt64/unit || n < math.MinInt64/unit {
		u := strings.Fields(after)[0]
		return fmt.Sprintf("%s %s is not a duration a wait can take (at most %d %s)", v, u, math.MaxInt64/unit, u), true
	}
	return "", true
}

var (
	typeOfContext = reflect.TypeOf((*context.Context)(nil)).Elem()
	typeOfBytes   = reflect.TypeOf([]byte(nil))
)

// convertArgs converts args as godog does before it calls fn (its
// parameters after the context: ints and floats of their size, strings,
// bytes, a doc string or table from the step's argument) and returns what
// it cannot convert. hasArg: the step carries a doc string or table.
func convertArgs(fn any, args []string, hasArg bool) []string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func {
		return nil
	}
	t := v.Type()
	in := 0
	if t.NumIn() > 0 && t.In(0).Implements(typeOfContext) {
		in = 1
	}
	n := len(args)
	if hasArg {
		n++
	}
	if want := t.NumIn() - in; n < want {
		return []string{fmt.Sprintf("the step takes %d arguments, the text gives %d (a doc string or data table missing?)", want, n)}
	}
	var out []string
	for i := 0; in+i < t.NumIn(); i++ {
		p := t.In(in + i)
		if i >= len(args) {
			break // the doc string or table
		}
		s := args[i]
		var err error
		switch p.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
			bits := p.Bits()
			_, err = strconv.ParseInt(s, 10, bits)
		case reflect.Float64, reflect.Float32:
			_, err = strconv.ParseFloat(s, p.Bits())
		case reflect.String:
		case reflect.Slice:
			if p != typeOfBytes {
				err = fmt.Errorf("the step takes a %s", p)
			}
		case reflect.Ptr:
			err = fmt.Errorf("the step takes a %s where the text has %q", p, s)
		}
		if err != nil {
			var ne *strconv.NumError
			if errors.As(err, &ne) {
				switch {
				case errors.Is(ne.Err, strconv.ErrRange):
					err = fmt.Errorf("%q is out of range for a number of this step (%s)", s, p)
				default:
					err = fmt.Errorf("%q is not a number (%s)", s, p)
				}
			}
			out = append(out, fmt.Sprintf("argument %d: %v", i+1, err))
		}
	}
	return out
}

// checkParsed returns the problems of the pickles of pf that keep says
// (nil: all), the recording state checked by rec (nil: not checked).
// file names the feature file in problems.
func (m *stepMatcher) checkParsed(root, file string, pf *parsedFeature, keep func(Scenario) bool, rec func(Scenario) (*Problem, error)) ([]Problem, error) {
	var out []Problem
	seen := map[string]bool{}
	for _, sc := range pf.all {
		if keep != nil && !keep(sc) {
			continue
		}
		for _, st := range pf.steps[sc.Line] {
			for _, p := range m.checkStep(root, st) {
				// a background step, or one outline step with the same text, once
				key := fmt.Sprintf("%d\x00%s\x00%s", p.Line, p.Code, p.Message)
				if seen[key] {
					continue
				}
				seen[key] = true
				p.File = file
				out = append(out, p)
			}
		}
		if rec != nil {
			p, err := rec(sc)
			if err != nil {
				return out, err
			}
			if p != nil {
				p.File = file
				out = append(out, *p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, nil
}

// Checker is the dry run's check of feature files against one catalogue,
// its patterns compiled once: what `run --dry-run` and the language
// server share. It is safe for concurrent use.
type Checker struct {
	mu sync.Mutex
	m  *stepMatcher
}

// NewChecker compiles the catalogue defs.
func NewChecker(defs []StepDef) (*Checker, error) {
	m, err := newStepMatcher(defs)
	if err != nil {
		return nil, err
	}
	return &Checker{m: m}, nil
}

// matchCacheMax bounds the texts a Checker remembers the matches of (an
// editor sends every keystroke's text).
const matchCacheMax = 20000

// CheckFile is the dry run of one feature file as an editor holds it
// (content, read from path, named uri from opt.Root): its steps against
// the catalogue, their arguments and the files they name, and (with
// recordings) each scenario's recording state, fixing commands spelled by
// opt (see HintsFor). A malformed file is a *BadSelectionError.
func (c *Checker) CheckFile(opt Options, content []byte, path, uri string, recordings bool) ([]Problem, error) {
	pf, err := parseFeatureBytes(content, path, uri)
	if err != nil {
		return nil, err
	}
	var rec func(Scenario) (*Problem, error)
	if recordings {
		rec = func(sc Scenario) (*Problem, error) { return RecordingProblem(opt, sc) }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m.cache) > matchCacheMax {
		c.m.cache = map[string][]int{}
	}
	return c.m.checkParsed(opt.Root, uri, pf, nil, rec)
}

// RecordingProblem is sc's recording problem in the project opt.Root
// (nil when its session and golden are there and current), with the
// command that fixes it: a scenario with neither a recording nor a golden
// has not been recorded; one with a golden but no session reads no page
// (nothing to record); a session made from other steps is stale; a
// recorded scenario without its golden misses the golden.
func RecordingProblem(opt Options, sc Scenario) (*Problem, error) {
	st, err := State(opt.Root, sc)
	if err != nil {
		return nil, err
	}
	h := HintsFor(opt, sc)
	p := &Problem{File: sc.URI, Line: sc.Line}
	switch {
	case len(st.Stale) > 0:
		p.Code, p.Command = CodeStaleRecording, ShellSplit(h.Rerecord)
		p.Message = fmt.Sprintf("the recording of %q was made from other steps (%s): replaying it fails until it is recorded again", sc.Name, relPaths(opt.Root, st.Stale))
	case !st.Recorded() && st.Golden == "":
		p.Code, p.Command = CodeNoRecording, ShellSplit(h.Record)
		p.Message = fmt.Sprintf("%q has no recording and no golden trace (recordings/golden/%s.golden): a replay fails; record-once runs it live in Chromium once and makes both", sc.Name, sc.Slug)
	case st.Golden == "":
		p.Code, p.Command = CodeNoGolden, ShellSplit(h.CreateGolden)
		p.Message = fmt.Sprintf("%q has no golden trace (recordings/golden/%s.golden): a run fails", sc.Name, sc.Slug)
	default:
		return nil, nil
	}
	return p, nil
}

// DryRun checks the selected scenarios without running them (see the
// top of this file): the problems in file order, each named by its
// file:line as hints name files. The error is the selection's (a bad
// path, a malformed file) or a recording that cannot be read. Under a
// mode that records, what the run would record is no problem.
func (r *Runner) DryRun() ([]Problem, error) {
	sel, err := r.Selected()
	if err != nil {
		return nil, err
	}
	m, err := newStepMatcher(r.defs)
	if err != nil {
		return nil, err
	}
	byPath := map[string]map[int]bool{}
	var order []Scenario
	for _, sc := range sel {
		if byPath[sc.Path] == nil {
			byPath[sc.Path] = map[int]bool{}
			order = append(order, sc)
		}
		byPath[sc.Path][sc.Line] = true
	}
	mode := r.opt.Mode
	rec := func(sc Scenario) (*Problem, error) {
		if mode.AlwaysLive() {
			return nil, nil // every recording is made again
		}
		opt := r.opt
		p, err := RecordingProblem(opt, sc)
		if err != nil || p == nil {
			return p, err
		}
		if mode.MayGoLive() && p.Code != CodeStaleRecording {
			return nil, nil // record-once makes what is missing
		}
		return p, nil
	}
	var out []Problem
	for _, first := range order {
		pf, err := parseFeature(first.Path, first.URI)
		if err != nil {
			return nil, err
		}
		lines := byPath[first.Path]
		file := strings.TrimSuffix(r.hintPath(first), ":"+strconv.Itoa(first.Line))
		ps, err := m.checkParsed(r.opt.Root, file, pf, func(sc Scenario) bool { return lines[sc.Line] }, rec)
		out = append(out, ps...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// relPaths lists paths relative to root, comma-separated.
func relPaths(root string, paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(root, p); err == nil {
			out[i] = filepath.ToSlash(rel)
		}
	}
	return strings.Join(out, ", ")
}
