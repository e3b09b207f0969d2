package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
)

// The seam for steps kept outside this package (replaylab's own
// self-tests, in internal/selftest): a Group adds its steps to a Table,
// Options.Groups hands the groups to a fixture, which binds and lists
// them after the vocabulary's own, and a group's step functions reach
// their scenario through WorldOf. There is no registry: whoever builds
// the fixture names its groups.

// Group is a group of steps from outside the vocabulary. Name heads its
// steps in the catalogue; SelfTest marks them as replaylab's own
// self-tests, bound and listed only where Options.SelfTests or
// SelfTestsFor say; Steps adds them, in catalogue order.
type Group struct {
	Name     string
	SelfTest bool
	Steps    func(*Table)
}

// Table collects the steps of a Group.
type Table struct {
	group Group
	t     *table
}

// Step adds a step to the group: its pattern (a regular expression, its
// groups the arguments of fn), what it means, an example that no other
// step's pattern matches, fn, a godog step function, and the catalogue's
// facts about it (opts: Defaults, NeedsSim, Action, Result, WithTable,
// LoadsFile).
func (t *Table) Step(pattern, meaning, example string, fn any, opts ...StepOpt) {
	t.StepIn(t.group.Name, pattern, meaning, example, fn, opts...)
}

// StepIn adds a step as Step does, listed under the heading group
// instead of the Group's name (a domain whose steps the catalogue lists
// under several headings).
func (t *Table) StepIn(group, pattern, meaning, example string, fn any, opts ...StepOpt) {
	t.t.step(group, pattern, meaning, example, fn, opts...)
	t.t.defs[len(t.t.defs)-1].SelfTest = t.group.SelfTest
}

// StepOpt adds a fact to a catalogue step.
type StepOpt func(*StepDef)

// Defaults states the step's defaults with their units ("waits up to
// 10 s for …").
func Defaults(s string) StepOpt { return defaults(s) }

// NeedsSim marks a step that works on the built-in sim only.
func NeedsSim(d *StepDef) { needsSim(d) }

// Action marks a step that acts on the page and keeps its result.
func Action(d *StepDef) { isAction(d) }

// Result marks a check of the last action's kept result.
func Result(d *StepDef) { isResult(d) }

// WithTable gives the data table (or doc string) the step's example
// continues with, one line each.
func WithTable(rows ...string) StepOpt { return withTable(rows...) }

// LoadsFile marks argument arg (0: the first) as a file the step loads,
// named from the project root: a dry run loads it with load.
func LoadsFile(arg int, kind string, load func(root, path string) error) StepOpt {
	return loadsFile(arg, kind, load)
}

// World is a scenario's world as a Group's steps see it: its trace, its
// state per group (State), its page (Page), and what the run says
// (Root, Mode, Slug). A Group drives the engine through Page and keeps
// anything else it needs in a state type of its own.
type World struct{ w *world }

// Page returns the engine page of the scenario's current tab (the main
// tab, or the one the vocabulary's "I switch to the … tab" chose),
// opening it on first use as the vocabulary's own steps do: live, a
// browser page whose session the run records; replayed, the tab's
// recorded session, checked against the scenario. Every step of the
// scenario, the vocabulary's and any group's, drives the same page.
func (w World) Page(ctx context.Context) (*engine.Page, error) { return w.w.tabPage(ctx) }

// WorldOf returns the world of the scenario whose step gets ctx.
func WorldOf(ctx context.Context) World { return World{worldOf(ctx)} }

// State returns the scenario's value of type T, created on first use: a
// Group keeps its per-scenario state in a type of its own.
func State[T any](w World) *T { return stateOf[T](w.w) }

// Emit adds e to the scenario's trace, which its golden holds.
func (w World) Emit(e trace.Event) { w.w.log.Emit(e) }

// Slug names the scenario as its golden and recordings do.
func (w World) Slug() string { return w.w.slug }

// Root is the run's project root.
func (w World) Root() string { return w.w.sc.Root() }

// Seed is the run's seed (Options.Seed): every generated text and
// fault plan draws from it.
func (w World) Seed() int64 { return w.w.fx.opt.Seed }

// Mode is the run's recording mode.
func (w World) Mode() harness.Mode { return w.w.sc.Mode() }

// Skip marks the scenario skipped and prints msg; the step returns the
// error it gives.
func (w World) Skip(msg string) error { return w.w.skip(msg) }

// Skipped reports whether a step skipped the scenario.
func (w World) Skipped() bool { return w.w.skipped }

// OnFinish runs fn when the scenario ends.
func (w World) OnFinish(fn func()) { w.w.onFinish(fn) }

// Pickle is a copy of the scenario as godog runs it (its steps shared).
func (w World) Pickle() godog.Scenario { return *w.w.pickle }

// RecordingValidFor reports whether the main tab's recording would replay
// edited (the scenario changed), as a replay decides it when it loads the
// session.
func (w World) RecordingValidFor(edited *godog.Scenario) (bool, error) {
	s, err := w.w.mainSession()
	if err != nil {
		return false, err
	}
	stamp := s.Scenario
	if stamp == "" {
		return false, errors.New("the session carries no fingerprint of its scenario")
	}
	if !harness.RecordedFrom(stamp, w.w.scenario, w.w.steps) {
		return false, fmt.Errorf("the session is stamped %s, which does not replay this very scenario", stamp)
	}
	return harness.RecordedFrom(stamp, harness.Fingerprint(edited), harness.StepsFingerprint(edited)), nil
}

// Catalogue is every step the run's fixture binds.
func (w World) Catalogue() []StepDef { return w.w.fx.Catalogue() }

// MCPCommand is the command that starts `replaylab mcp`
// (Options.MCPCommand, else the root module's ./cmd/replaylab, built once
// per process).
func (w World) MCPCommand() ([]string, error) { return w.w.mcpCommand() }

// NeedPostgres returns the PostgreSQL URL of PostgresURLEnv; without one
// the scenario is skipped (an error in CI). who names the steps in the
// error, purpose ends the hint ("to explore on PostgreSQL").
func (w World) NeedPostgres(who, purpose string) (string, error) {
	return w.w.needPostgres(who, purpose)
}

// DeclaredGroup is a Group's catalogue without its step functions: what
// a program lists, completes and recognises in features but does not run
// itself (replaylab's binary and the self-tests' groups, which only go
// test binds: see Unbound).
type DeclaredGroup struct {
	Name     string         `json:"name"`
	SelfTest bool           `json:"selfTest,omitempty"`
	Steps    []DeclaredStep `json:"steps"`
}

// DeclaredStep is one step of a DeclaredGroup, as Table.Step adds it.
type DeclaredStep struct {
	Pattern string `json:"pattern"`
	Meaning string `json:"meaning"`
	Example string `json:"example"`
	// Source is where the step's function is declared ("file:line" from
	// the module root), for go to definition and the JSON catalogue.
	Source string `json:"source,omitempty"`
}

// Declare returns the catalogue of groups, in their order and their
// steps' table order.
func Declare(groups ...Group) []DeclaredGroup {
	out := make([]DeclaredGroup, 0, len(groups))
	for _, g := range groups {
		var t table
		g.Steps(&Table{group: g, t: &t})
		dg := DeclaredGroup{Name: g.Name, SelfTest: g.SelfTest, Steps: make([]DeclaredStep, 0, len(t.defs))}
		for _, d := range t.defs {
			dg.Steps = append(dg.Steps, DeclaredStep{Pattern: d.Pattern, Meaning: d.Meaning, Example: d.Example, Source: sourceOf(d.Fn)})
		}
		out = append(out, dg)
	}
	return out
}

// Unbound returns the declared groups as Groups whose steps are listed
// and matched like any other but do not run here: a scenario that reaches
// one is skipped, with the message skip gives for it (which should name
// the command that runs the scenario where the steps are bound).
func Unbound(decl []DeclaredGroup, skip func(w World, group string, d DeclaredStep) string) []Group {
	out := make([]Group, 0, len(decl))
	for _, dg := range decl {
		out = append(out, Group{Name: dg.Name, SelfTest: dg.SelfTest, Steps: func(t *Table) {
			for _, d := range dg.Steps {
				t.Step(d.Pattern, d.Meaning, d.Example, func(ctx context.Context) error {
					w := WorldOf(ctx)
					return w.Skip(skip(w, dg.Name, d))
				})
				t.t.defs[len(t.t.defs)-1].Source = d.Source
			}
		}})
	}
	return out
}

// sourceOf is where fn is declared, "file:line" with the file from the
// root of its module (the nearest directory above it with a go.mod, or
// the module path in a -trimpath build); "" for no function.
func sourceOf(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	file, line := f.FileLine(f.Entry())
	file = filepath.ToSlash(file)
	if i := strings.Index(file, ownModule+"/"); i >= 0 {
		file = file[i+len(ownModule)+1:]
	} else {
		for dir := path.Dir(file); dir != "/" && dir != "."; dir = path.Dir(dir) {
			if _, err := os.Stat(filepath.FromSlash(dir + "/go.mod")); err == nil {
				file = strings.TrimPrefix(file, dir+"/")
				break
			}
		}
	}
	return fmt.Sprintf("%s:%d", file, line)
}
