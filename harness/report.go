package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/report"
)

// The report files (junit:FILE, cucumber:FILE, message:FILE, github,
// html:DIR) are written from one result model (package report), filled by
// the scenario and step hooks below and by a godog formatter that only
// collects the parsed features.

// reportOut is one report file of --format.
type reportOut struct {
	kind string // junit, cucumber, message, github, rerun, html
	path string // file or directory (html); "" writes to Output
}

// splitFormats separates the report files from the formats godog prints.
func splitFormats(format string) (godogFormats string, outs []reportOut, err error) {
	var keep []string
	for _, f := range strings.Split(format, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, path, _ := strings.Cut(f, ":")
		switch name {
		case "junit", "cucumber", "github":
			outs = append(outs, reportOut{kind: name, path: path})
		case "message":
			if path == "" {
				return "", nil, fmt.Errorf("steps: --format message needs a file: message:FILE")
			}
			outs = append(outs, reportOut{kind: name, path: path})
		case "rerun":
			if path == "" {
				return "", nil, fmt.Errorf("steps: --format rerun needs a file: rerun:FILE")
			}
			outs = append(outs, reportOut{kind: name, path: path})
		case "html":
			if path == "" {
				return "", nil, fmt.Errorf("steps: --format html needs a directory: html:DIR")
			}
			outs = append(outs, reportOut{kind: name, path: path})
		default:
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, ","), outs, nil
}

// collector builds the run's report model while scenarios run.
type collector struct {
	runner *Runner
	views  bool // keep sessions and capture views (the HTML report)

	mu    sync.Mutex
	run   *report.Run
	docs  map[string]*featureIndex // by pickle URI
	byID  map[string]*report.Scenario
	pass  int // 1-based pass (first run, then retries)
	rep   int // repetition under --repeat-each (0: none)
	start time.Time
	prog  *progress // nil: no progress output
}

var collectors atomic.Int64

func newCollector(r *Runner, views bool) *collector {
	return &collector{runner: r, views: views, docs: map[string]*featureIndex{},
		byID: map[string]*report.Scenario{}, pass: 1, start: time.Now(),
		run: &report.Run{Driver: r.opt.Mode.Driver(), Seed: r.opt.Seed, Started: time.Now().UTC()}}
}

// formatterName registers a godog formatter that feeds c and returns its
// name for godog's Format option.
func (c *collector) formatterName() string {
	name := fmt.Sprintf("replaylab-collect-%d", collectors.Add(1))
	godog.Format(name, "collects results for the replaylab reports", func(suite string, w io.Writer) formatters.Formatter {
		return &collectFormatter{c: c}
	})
	return name
}

// collectFormatter keeps the parsed features and the matched step
// definitions; it prints nothing.
type collectFormatter struct{ c *collector }

func (f *collectFormatter) TestRunStarted() {}
func (f *collectFormatter) Feature(doc *messages.GherkinDocument, uri string, _ []byte) {
	f.c.mu.Lock()
	f.c.docs[uri] = indexFeature(doc)
	f.c.mu.Unlock()
}
func (f *collectFormatter) Pickle(*messages.Pickle) {}
func (f *collectFormatter) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (f *collectFormatter) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (f *collectFormatter) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (f *collectFormatter) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (f *collectFormatter) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (f *collectFormatter) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (f *collectFormatter) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (f *collectFormatter) Summary() {}

// featureIndex holds what the report needs of a parsed feature, by AST id.
type featureIndex struct {
	name, desc string
	line       int
	tags       []report.Tag
	nodes      map[string]astNode
}

type astNode struct {
	line          int
	keyword, desc string
}

func indexFeature(doc *messages.GherkinDocument) *featureIndex {
	fi := &featureIndex{nodes: map[string]astNode{}}
	if doc == nil || doc.Feature == nil {
		return fi
	}
	f := doc.Feature
	fi.name, fi.desc, fi.line = f.Name, strings.TrimSpace(f.Description), int(f.Location.Line)
	for _, t := range f.Tags {
		fi.tags = append(fi.tags, report.Tag{Name: t.Name, Line: int(t.Location.Line)})
	}
	tags := func(ts []*messages.Tag) {
		for _, t := range ts {
			fi.nodes[t.Id] = astNode{line: int(t.Location.Line)}
		}
	}
	tags(f.Tags)
	steps := func(ss []*messages.Step) {
		for _, s := range ss {
			fi.nodes[s.Id] = astNode{line: int(s.Location.Line), keyword: s.Keyword}
		}
	}
	var children func([]*messages.FeatureChild, []*messages.RuleChild)
	scenario := func(sc *messages.Scenario) {
		fi.nodes[sc.Id] = astNode{line: int(sc.Location.Line), keyword: sc.Keyword, desc: strings.TrimSpace(sc.Description)}
		tags(sc.Tags)
		steps(sc.Steps)
		for _, ex := range sc.Examples {
			tags(ex.Tags)
			for _, row := range ex.TableBody {
				fi.nodes[row.Id] = astNode{line: int(row.Location.Line)}
			}
		}
	}
	children = func(fc []*messages.FeatureChild, rc []*messages.RuleChild) {
		for _, c := range fc {
			switch {
			case c.Background != nil:
				steps(c.Background.Steps)
			case c.Scenario != nil:
				scenario(c.Scenario)
			case c.Rule != nil:
				tags(c.Rule.Tags)
				children(nil, c.Rule.Children)
			}
		}
		for _, c := range rc {
			switch {
			case c.Background != nil:
				steps(c.Background.Steps)
			case c.Scenario != nil:
				scenario(c.Scenario)
			}
		}
	}
	children(f.Children, nil)
	return fi
}

// moduleRoot is this module's directory at build time, to write step
// locations relative to it.
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.Dir(file))
}()

// stepLocation is file:line of the Go function that implements the
// catalogue step whose pattern matches text, relative to the module root,
// and that pattern; "" when none does. It reads the catalogue, not godog's formatter events:
// those arrive only when a feature ends once scenarios run concurrently.
func (r *Runner) stepLocation(text string) (loc, pattern string) {
	r.locOnce.Do(func() {
		r.locs = make([]stepLoc, 0, len(r.defs))
		for _, d := range r.defs {
			re, err := regexp.Compile(d.Pattern)
			if err != nil {
				continue // the catalogue check reports it
			}
			r.locs = append(r.locs, stepLoc{re: re, loc: funcLocation(d.Fn)})
		}
	})
	for _, l := range r.locs {
		if l.re.MatchString(text) {
			return l.loc, l.re.String()
		}
	}
	return "", ""
}

// stepLoc is a catalogue pattern and where its function is.
type stepLoc struct {
	re  *regexp.Regexp
	loc string
}

func funcLocation(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	file, line := f.FileLine(f.Entry())
	file = filepath.ToSlash(file)
	if root := filepath.ToSlash(moduleRoot); root != "" && strings.HasPrefix(file, root+"/") {
		file = strings.TrimPrefix(file, root+"/")
	} else if i := strings.Index(file, "github.com/replaylab/replaylab/"); i >= 0 {
		file = file[i+len("github.com/replaylab/replaylab/"):]
	}
	return fmt.Sprintf("%s:%d", file, line)
}

type openKey struct{}

// open is one attempt being collected.
type open struct {
	pickle    *godog.Scenario
	sc        *report.Scenario
	att       *report.Attempt
	steps     map[string]*report.Step
	stepStart time.Time
}

// beforeHooks registers the hooks that must run before the world's.
func (c *collector) beforeHooks(sc *godog.ScenarioContext, s *Scenario) {
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		return context.WithValue(ctx, openKey{}, c.begin(p)), nil
	})
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		if o, _ := ctx.Value(openKey{}).(*open); o != nil {
			o.stepStart = time.Now()
			if rs := o.steps[st.Id]; rs != nil {
				rs.SessionFrom = s.position()
			}
		}
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		o, _ := ctx.Value(openKey{}).(*open)
		if o == nil {
			return ctx, nil
		}
		rs := o.steps[st.Id]
		if rs == nil {
			return ctx, nil
		}
		rs.Status = report.Status(status.String())
		if !o.stepStart.IsZero() {
			rs.Duration = report.Duration(time.Since(o.stepStart))
		}
		rs.SessionTo = s.position()
		if rs.SessionTo < rs.SessionFrom {
			rs.SessionFrom = 0
		}
		if err != nil && status != godog.StepPassed {
			rs.Error = err.Error()
			rs.Code = errorCode(err)
		}
		return ctx, nil
	})
}

// afterHooks registers the hook that must run after the world's finish.
func (c *collector) afterHooks(sc *godog.ScenarioContext, s *Scenario) {
	sc.After(func(ctx context.Context, p *godog.Scenario, _ error) (context.Context, error) {
		if o, _ := ctx.Value(openKey{}).(*open); o != nil {
			c.end(o, s)
		}
		return ctx, nil
	})
}

// begin finds (or makes) the scenario of p and opens a new attempt.
func (c *collector) begin(p *godog.Scenario) *open {
	c.mu.Lock()
	defer c.mu.Unlock()
	fi := c.docs[p.Uri]
	if fi == nil {
		fi = &featureIndex{nodes: map[string]astNode{}}
	}
	file := p.Uri
	if rel, err := filepath.Rel(c.runner.opt.Root, p.Uri); err == nil && !strings.HasPrefix(rel, "..") {
		file = rel
	}
	file = filepath.ToSlash(file)
	node := astNode{}
	if len(p.AstNodeIds) > 0 {
		node = fi.nodes[p.AstNodeIds[0]]
	}
	line := node.line
	if len(p.AstNodeIds) > 1 { // an outline's example row
		if row, ok := fi.nodes[p.AstNodeIds[len(p.AstNodeIds)-1]]; ok {
			line = row.line
		}
	}
	if gs, err := c.runner.scenarioOf(p); err == nil { // the selection's own id
		file, line = gs.URI, gs.Line
	}
	id := fmt.Sprintf("%s:%d", file, line)
	key := fmt.Sprintf("%s#%d", id, c.rep)
	sc := c.byID[key]
	if sc == nil {
		sc = &report.Scenario{ID: id, Feature: fi.name, FeatureLine: fi.line, FeatureDesc: fi.desc, FeatureTags: fi.tags,
			File: file, Line: line, Keyword: node.keyword, Name: p.Name, Description: node.desc, Tags: []report.Tag{}, Repeat: c.rep}
		for _, t := range p.Tags {
			sc.Tags = append(sc.Tags, report.Tag{Name: t.Name, Line: fi.nodes[t.AstNodeId].line})
		}
		c.byID[key] = sc
		c.run.Scenarios = append(c.run.Scenarios, sc)
	}
	att := &report.Attempt{Started: time.Now().UTC()}
	o := &open{pickle: p, sc: sc, att: att, steps: map[string]*report.Step{}}
	for _, st := range p.Steps {
		n := astNode{}
		if len(st.AstNodeIds) > 0 {
			n = fi.nodes[st.AstNodeIds[0]]
		}
		rs := &report.Step{Keyword: n.keyword, Text: st.Text, Line: n.line, Status: report.Skipped}
		rs.Location, rs.Pattern = c.runner.stepLocation(st.Text)
		if st.Argument != nil && st.Argument.DocString != nil {
			rs.DocString = st.Argument.DocString.Content
		}
		if st.Argument != nil && st.Argument.DataTable != nil {
			for _, r := range st.Argument.DataTable.Rows {
				var cells []string
				for _, cell := range r.Cells {
					cells = append(cells, cell.Value)
				}
				rs.Table = append(rs.Table, cells)
			}
		}
		att.Steps = append(att.Steps, rs)
		o.steps[st.Id] = rs
	}
	sc.Attempts = append(sc.Attempts, att)
	c.prog.start(id, p.Name)
	return o
}

// end closes the attempt: its status, its error and everything the
// scenario's Outcome holds (trace, golden diff, monitor signals, ledger
// transitions, sessions).
func (c *collector) end(o *open, s *Scenario) {
	a := o.att
	a.Duration = report.Duration(time.Since(a.Started))
	var failed, undefined, skipped bool
	for _, st := range a.Steps {
		switch st.Status {
		case report.Failed, report.Pending, report.Ambiguous:
			if !failed && a.Error == "" {
				a.Error, a.Code = st.Error, st.Code
				if a.Error == "" {
					a.Error = "step " + string(st.Status) + ": " + st.Text
				}
			}
			failed = true
		case report.Undefined:
			undefined = true
			if st.Suggestions == nil {
				for _, d := range Suggest(c.runner.defs, st.Text, SuggestCount) {
					st.Suggestions = append(st.Suggestions, report.Suggestion{Example: d.Example, Meaning: d.Meaning})
				}
			}
		case report.Skipped:
			skipped = true
		}
	}
	var out *Outcome
	var finishErr error
	if s.run != nil {
		out, finishErr = s.run.outcome, s.run.err
	}
	if out != nil && finishErr != nil {
		msg := finishErr.Error()
		// found after the last step: blamed on the scenario's line
		a.AfterError, a.AfterLocation = msg, fmt.Sprintf("%s:%d", o.sc.File, o.sc.Line)
		if a.Error == "" {
			a.Error, a.Code = msg, errorCode(finishErr)
		}
		if de := (*DriftError)(nil); errors.As(finishErr, &de) {
			a.Drift = true
			a.GoldenDiff = de.Diff
		}
		failed = true
	}
	switch {
	case failed:
		a.Status = report.Failed
	case undefined:
		a.Status = report.Undefined
		if a.Error == "" {
			a.Error = "undefined step (see replaylab steps)"
		}
	case skipped && out != nil && out.Skipped:
		a.Status = report.Skipped
	default:
		a.Status = report.Passed
	}
	if out == nil {
		return
	}
	o.sc.Slug = s.Slug
	for _, line := range strings.Split(strings.TrimRight(string(out.Trace), "\n"), "\n") {
		if line == "" {
			continue
		}
		a.Trace = append(a.Trace, line)
		switch {
		case strings.HasPrefix(line, "monitor."):
			a.Signals = append(a.Signals, line)
		case strings.HasPrefix(line, "ledger."):
			a.Ledger = append(a.Ledger, line)
		}
	}
	var tabs []*tabTape
	if s.run != nil {
		tabs = s.run.tabs
	}
	for _, t := range tabs {
		rec := report.Recording{Tab: t.name}
		if rel, err := filepath.Rel(c.runner.opt.Root, t.path); err == nil {
			if _, err := os.Stat(t.path); err == nil {
				rec.Path = filepath.ToSlash(rel)
			}
		}
		if c.views && out.View != nil {
			if rs := t.tape.Recording(); len(rs.Captures) > 0 {
				rec.Key = fmt.Sprintf("%s@%s#%d.%d", s.Slug, t.name, o.sc.Repeat, len(o.sc.Attempts))
				pages := reportPages(rs.Captures)
				c.mu.Lock()
				c.run.AddSession(rec.Key, pages, rs.Steps, func(i int) report.CaptureView { return out.View(rs.Captures[i]) })
				c.mu.Unlock()
			}
		}
		a.Recordings = append(a.Recordings, rec)
	}
}

// errorCode is the stable code an error carries (TARGET_AMBIGUOUS,
// REPLAY_DIVERGED, …), if any.
func errorCode(err error) string {
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		return coded.ErrorCode()
	}
	return ""
}

func (c *collector) setRepeat(rep int) {
	c.mu.Lock()
	c.rep = rep
	c.mu.Unlock()
}

// attempts is how many attempts scenario id has in the current repetition.
func (c *collector) attempts(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.byID[fmt.Sprintf("%s#%d", id, c.rep)]; sc != nil {
		return len(sc.Attempts)
	}
	return 0
}

// lastStatus is the status of scenario id's last attempt.
func (c *collector) lastStatus(id string) report.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.byID[fmt.Sprintf("%s#%d", id, c.rep)]; sc != nil {
		return sc.Last().Status
	}
	return ""
}

// finish completes the model: duration, shard, statuses, summary.
func (c *collector) finish() *report.Run {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run.Duration = report.Duration(time.Since(c.start))
	c.run.Shard = c.runner.opt.Scale.Shard.String()
	c.run.Finish()
	return c.run
}

// writeReports writes every report file of the run (after finish).
func (c *collector) writeReports(outs []reportOut, stdout, stderr io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, o := range outs {
		var err error
		switch o.kind {
		case "junit", "cucumber":
			err = writeTo(o.path, stdout, func(w io.Writer) error {
				if o.kind == "junit" {
					return report.WriteJUnit(w, c.run)
				}
				return report.WriteCucumber(w, c.run)
			})
		case "message":
			err = writeTo(o.path, stdout, func(w io.Writer) error {
				return report.WriteMessages(w, c.run, report.MessageOptions{Root: c.runner.opt.Root, ReadFile: c.runner.featureSource})
			})
		case "github":
			err = writeTo(o.path, stdout, func(w io.Writer) error {
				return report.WriteGitHub(w, c.run, githubOptions(c.runner.opt.Root))
			})
		case "rerun":
			err = WriteRerun(o.path, c.run)
		case "html":
			err = report.WriteHTML(o.path, c.run)
			if err == nil {
				fmt.Fprintf(stderr, "replaylab run: HTML report %s (%d bytes)\n", filepath.Join(o.path, report.HTMLFile), report.Size(o.path))
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("steps: %s report %s: %w", o.kind, o.path, err))
		}
	}
	return errors.Join(errs...)
}

// featureSource reads the feature file of a selected scenario's URI from
// where the run read it (under Root, or the copy embedded in the binary).
func (r *Runner) featureSource(uri string) ([]byte, error) {
	for _, sc := range r.byLine {
		if sc.URI == uri {
			return os.ReadFile(sc.Path)
		}
	}
	return os.ReadFile(filepath.Join(r.opt.Root, filepath.FromSlash(uri)))
}

// githubOptions places the annotations of a run under root: the workspace
// is $GITHUB_WORKSPACE, else the current directory.
func githubOptions(root string) report.GitHubOptions {
	opt := report.GitHubOptions{SummaryPath: os.Getenv("GITHUB_STEP_SUMMARY")}
	ws := os.Getenv("GITHUB_WORKSPACE")
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(root); err == nil {
		if rel, err := filepath.Rel(ws, abs); err == nil && !strings.HasPrefix(rel, "..") {
			opt.Dir = filepath.ToSlash(rel)
		}
	}
	return opt
}

func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	return report.WriteFile(path, write)
}

// reportPages hands captures to the report as its own pages.
func reportPages(cs []*capture.Capture) []*report.Page {
	out := make([]*report.Page, len(cs))
	for i, c := range cs {
		p := &report.Page{URL: c.URL, Title: c.Title}
		for _, f := range c.Frames {
			p.Frames = append(p.Frames, report.PageFrame{ID: f.ID, Parent: f.Parent, Owner: f.Owner, URL: f.URL, HTML: f.HTML})
		}
		out[i] = p
	}
	return out
}
