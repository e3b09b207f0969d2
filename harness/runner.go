package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cucumber/godog"
	"github.com/mattn/go-isatty"
)

// Options configure a run. The vocabulary's own options (browser, site,
// seed, …) belong to its Fixture, not here.
type Options struct {
	// Root holds features/ and recordings/.
	Root string
	// Dir is where relative Paths are looked up first; default the
	// current directory (then they are looked up under Root).
	Dir string
	// Paths are feature files or dirs, a file optionally with
	// :LINE[:LINE…]; default features. See Selection.
	Paths []string
	// Tags is a tag expression: standard Cucumber syntax (not, and, or,
	// parentheses) or godog's old one (~@x, &&, comma).
	Tags string
	// Scenarios, when not nil, is exactly what to run (from Select, a
	// shard of it, or the failures to retry); Paths and Tags are then
	// ignored.
	Scenarios []Scenario
	// AllowEmpty lets a selection that matches nothing pass (exit 0)
	// instead of failing the run.
	AllowEmpty bool
	Format     string // godog formats, e.g. "pretty,junit:out.xml"
	// Mode says what happens to recordings (see Mode and its
	// decision table); ModeOf turns the command line's driver,
	// --mode and --update into one.
	Mode Mode
	// Update rewrites golden traces from this run's traces.
	Update bool
	// Seed is the run's seed as the report shows it (the fixture uses
	// its own copy).
	Seed        int64
	Concurrency int
	Output      io.Writer
	// Name is the program's name at the head of the runner's messages
	// (default the running program's base name).
	Name string
	// Command is how the user runs the harness, for the commands that
	// hints print: the words before the flags (default Name). Fixes
	// are the program's flags that fix each recording problem (none: no
	// hints). HintFlags are repeated in every hint so it is the same
	// run (--root DIR, --seed N, …); hint paths are relative to HintDir
	// (default Dir, then the current directory). See Hints.
	Command   []string
	Fixes     FixFlags
	HintFlags []string
	HintDir   string
	// NoColor turns colour off. Colour is on only when the output is a
	// terminal and NO_COLOR is not set (https://no-color.org): never in a
	// file, a pipe or a CI log.
	NoColor bool
	// Snippets prints godog's Go snippets for undefined steps (for Go
	// users) instead of the closest catalogue steps.
	Snippets bool
	// Stderr receives the run's own messages (selection errors); default
	// os.Stderr.
	Stderr io.Writer
	// TestingT runs scenarios as subtests of a go test.
	TestingT *testing.T
	// Context, when set, ends the run when it is done (a signal): the
	// scenarios that have not started are skipped, the steps in flight
	// see their context end, the fixture closes (its browsers), the
	// rerun and cost files are not rewritten, and Run returns
	// ExitInterrupted. Default: never.
	Context context.Context
	// Scale holds the report, shard and retry options (see Scale).
	Scale Scale
	// RerunFile, when set, is written after the run with the scenarios
	// that failed, one file:line a line (see WriteRerun and ReadRerun):
	// what --last-failed runs again.
	RerunFile string
	// CostFile, when set, keeps what each passed scenario took in a
	// replayed run (see CostFile); --shard balances by it.
	CostFile string
	// LiveCostFile, when set, keeps what each passed scenario took in a
	// run where every scenario ran live (see LiveCostFile); live runs in
	// parallel start the costliest feature files first by it.
	LiveCostFile string
}

// Runner is one run of the selected scenarios with one Fixture.
type Runner struct {
	opt     Options
	fixture Fixture
	defs    []StepDef // the fixture's catalogue, read once
	feats   *features // the feature files, parsed once

	closeOnce sync.Once
	locOnce   sync.Once
	locs      []stepLoc // the catalogue's patterns and their functions (report.go)

	selected []Scenario
	selErr   error
	selDone  bool
	byLine   map[string]Scenario // Scenario.ID → scenario
	collect  *collector          // the report model of this run (report.go)
	flight   flight              // scenarios cut short, never started (cut.go)
}

// New validates opt and returns a runner of the fixture's steps. The
// runner closes the fixture when Run ends (or on Close).
func New(opt Options, f Fixture) (*Runner, error) {
	if f == nil {
		return nil, errors.New("harness: no fixture")
	}
	if opt.Root == "" {
		opt.Root = "."
	}
	if len(opt.Paths) == 0 {
		opt.Paths = []string{"features"}
	}
	if opt.Format == "" {
		opt.Format = "pretty"
	}
	if opt.Concurrency < 1 {
		opt.Concurrency = 1
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	return &Runner{opt: opt, fixture: f, defs: f.Catalogue(), feats: &features{}}, nil
}

// Options returns the runner's options, defaults filled in.
func (r *Runner) Options() Options { return r.opt }

// Selection is what the runner's options select.
func (r *Runner) Selection() Selection {
	return Selection{Root: r.opt.Root, Dir: r.opt.Dir, Paths: r.opt.Paths, Tags: r.opt.Tags}
}

// Selected returns the scenarios this run runs: Options.Scenarios, or
// what Paths and Tags select. Errors are those of Select.
func (r *Runner) Selected() ([]Scenario, error) {
	if r.selDone {
		return r.selected, r.selErr
	}
	r.selDone = true
	if r.opt.Scenarios != nil {
		r.selected = r.opt.Scenarios
		if len(r.selected) == 0 {
			r.selErr = fmt.Errorf("%w: the list of scenarios to run is empty", ErrNoScenarios)
		}
	} else {
		var warnings []string
		r.selected, warnings, r.selErr = selectScenarios(r.Selection(), r.feats)
		if r.selErr == nil {
			// with an error they are in its message already
			for _, w := range warnings {
				fmt.Fprintf(r.opt.Stderr, "%s: WARNING: %s\n", r.name(), w)
			}
		}
	}
	r.byLine = map[string]Scenario{}
	for _, sc := range r.selected {
		r.byLine[sc.ID()] = sc
	}
	return r.selected, r.selErr
}

// ExitCode is the exit status for an error of Select: 2 for bad input
// (a path, a malformed file, a tag expression), 1 for a selection that
// matches nothing.
func ExitCode(err error) int {
	var bad *BadSelectionError
	if errors.As(err, &bad) {
		return 2
	}
	return 1
}

// Run runs the selected scenarios and returns the exit status: 0 only
// when every scenario passed with no undefined step and no golden drift;
// 1 when one failed or nothing was selected (unless AllowEmpty); 2 for a
// selection that cannot be read (a missing path, a malformed feature
// file, an invalid tag expression); ExitInterrupted (130) when
// Options.Context ended the run.
func (r *Runner) Run() int {
	defer r.Close()
	code := r.run()
	if r.interrupted() {
		ctx := r.opt.Context
		fmt.Fprintf(r.stderr(), "%s: interrupted: the run stopped before its end (%v); the scenarios above that failed were cut short, the skipped ones never started\n", r.name(), context.Cause(ctx))
		r.flight.report(r.stderr(), r.name(), r.command())
		return ExitInterrupted
	}
	return code
}

// interrupted reports whether Options.Context ended.
func (r *Runner) interrupted() bool {
	return r.opt.Context != nil && r.opt.Context.Err() != nil
}

// ExitInterrupted is Run's status when Options.Context ended the run (a
// signal): 130, as a shell reports a command ended by Ctrl-C.
const ExitInterrupted = 130

// ErrInterrupted is why a scenario that was to start after the run's
// context ended is skipped.
var ErrInterrupted = errors.New("interrupted: the run was stopped")

func (r *Runner) run() int {
	sel, err := r.Selected()
	if errors.Is(err, ErrNoScenarios) && r.opt.AllowEmpty {
		fmt.Fprintf(r.opt.Stderr, "%s: %v (allowed by --allow-empty)\n", r.name(), err)
		return 0
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "%s: %v\n", r.name(), err)
		return ExitCode(err)
	}
	return r.runScaled(sel)
}

// Close closes the fixture (its browser and whatever it shares between
// scenarios). Run closes it too; Close may be called more than once.
func (r *Runner) Close() {
	r.closeOnce.Do(func() { _ = r.fixture.Close() })
}

// initializeScenario is godog's scenario initializer: the runner's hooks
// around the fixture's.
func (r *Runner) initializeScenario(sc *godog.ScenarioContext) {
	s := &Scenario{}
	if r.collect != nil {
		r.collect.beforeHooks(sc, s)
	}
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		if rc := r.opt.Context; rc != nil && rc.Err() != nil {
			// not run: skipped, and reported so (not as passed)
			s.run = &scenarioRun{runner: r, outcome: &Outcome{Skipped: true, Err: ErrInterrupted}, interrupted: true}
			if sel, err := r.scenarioOf(p); err == nil {
				r.flight.skipped(sel)
			}
			return ctx, fmt.Errorf("%w: %w", godog.ErrSkip, ErrInterrupted)
		}
		sel, err := r.scenarioOf(p)
		if err != nil {
			return ctx, err
		}
		*s = sel
		s.run = &scenarioRun{runner: r}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if s.run != nil && !s.run.interrupted {
			r.flight.finish(*s, r.interrupted())
		}
		return ctx, nil // err stays the scenario's; a hook's own error would be added to it
	})
	r.fixture.InitializeScenario(sc, s)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		return ctx, s.checkFinished(err)
	})
	realLocations(sc) // the functions, not the loop that bound them
	if r.collect != nil {
		r.collect.afterHooks(sc, s)
	}
}

// runGodog runs the served scenarios once with godog and the given
// formats.
func (r *Runner) runGodog(format string, fsys featureFS, paths []string, sel []Scenario) int {
	out := r.opt.Output
	if out == nil {
		out = os.Stdout
	}
	godogOut := out
	var filter *snippetFilter
	if !r.opt.Snippets {
		filter = &snippetFilter{w: out}
		godogOut = filter
	}
	ts := godog.TestSuite{
		Name:                "replaylab",
		ScenarioInitializer: r.initializeScenario,
		Options: &godog.Options{
			Format:      format,
			Paths:       paths,
			FS:          fsys,
			Strict:      true,
			Concurrency: r.opt.Concurrency,
			Output:      godogOut,
			TestingT:    r.opt.TestingT,
			Randomize:   0,
			// --fail-fast
			StopOnFailure: r.opt.Scale.FailFast,
			// the run's context: a step's ctx ends with it
			DefaultContext: r.opt.Context,
			NoColors:       !r.colour(out),
		},
	}
	status := ts.Run()
	if filter != nil {
		_ = filter.Flush()
		if status != 0 {
			undef, err := undefinedSteps(r.defs, sel, r.feats)
			if err != nil {
				fmt.Fprintf(r.opt.Stderr, "%s: %v\n", r.name(), err)
			}
			writeSuggestions(out, r.defs, undef)
		}
	}
	return status
}

// colour reports whether output to out is coloured: a terminal, with
// neither NoColor nor NO_COLOR set, and not under go test.
func (r *Runner) colour(out io.Writer) bool {
	if r.opt.NoColor || os.Getenv("NO_COLOR") != "" || r.opt.TestingT != nil {
		return false
	}
	f, ok := out.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// serve gives godog the selected files, each with what is not selected
// blanked out, under their URIs (parsed through feats).
func serve(sel []Scenario, feats *features) (featureFS, []string, error) {
	fsys := featureFS{}
	var paths []string
	keep := map[string]map[int]bool{}
	var order []Scenario
	for _, sc := range sel {
		if keep[sc.URI] == nil {
			keep[sc.URI] = map[int]bool{}
			order = append(order, sc)
		}
		keep[sc.URI][sc.Line] = true
	}
	for _, sc := range order {
		pf, err := feats.parse(sc.Path, sc.URI)
		if err != nil {
			return nil, nil, err
		}
		fsys[sc.URI] = pf.served(keep[sc.URI])
		paths = append(paths, sc.URI)
	}
	return fsys, paths, nil
}

// scenarioOf is the selected Scenario godog is about to run.
func (r *Runner) scenarioOf(p *godog.Scenario) (Scenario, error) {
	line := 0
	if p.Location != nil {
		line = int(p.Location.Line)
	}
	id := p.Uri + ":" + strconv.Itoa(line)
	sc, ok := r.byLine[id]
	if !ok {
		return Scenario{}, fmt.Errorf("steps: godog runs %s (%q), which replaylab did not select", id, p.Name)
	}
	return sc, nil
}

// GoldenDir is where the golden traces live: Root/recordings/golden.
func (r *Runner) GoldenDir() string { return filepath.Join(r.opt.Root, "recordings", "golden") }

// SessionsDir is where the recorded sessions live:
// Root/recordings/sessions.
func (r *Runner) SessionsDir() string { return filepath.Join(r.opt.Root, "recordings", "sessions") }

// slugify lower-cases s with every run of non-alphanumerics as one dash
// (scenario file names; see Scenario.Slug).
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Obsolete lists golden files no selected scenario names. It is only
// meaningful for a run over every feature with no tag filter
// (IsFullSelection).
func (r *Runner) Obsolete() []string {
	var out []string
	for _, f := range r.obsolete(r.GoldenDir(), ".golden") {
		out = append(out, strings.TrimSuffix(f, ".golden"))
	}
	return out
}

// ObsoleteSessions lists session files (relative to recordings/sessions,
// e.g. "chat/old-name.json") that no selected scenario names: a session
// belongs to the scenario whose slug its name starts with (<slug>.json,
// <slug>@<tab>.json). Meaningful for a full selection only.
func (r *Runner) ObsoleteSessions() []string { return r.obsolete(r.SessionsDir(), ".json") }

// obsolete lists the files under dir with the suffix whose scenario name
// no selected scenario has.
func (r *Runner) obsolete(dir, suffix string) []string {
	sel, _ := r.Selected()
	used := map[string]bool{}
	for _, sc := range sel {
		used[sc.Slug] = true
	}
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, suffix) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		name, _, _ := strings.Cut(strings.TrimSuffix(rel, suffix), "@")
		if !used[name] {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Prune removes the obsolete goldens and sessions of a full selection and
// returns what it removed (paths relative to Root, slash-separated).
// Directories left empty are removed too.
func (r *Runner) Prune() ([]string, error) {
	if !IsFullSelection(r.Selection()) || r.opt.Scenarios != nil {
		return nil, fmt.Errorf("steps: prune needs a run over every scenario (no paths, no tags)")
	}
	if _, err := r.Selected(); err != nil {
		return nil, err
	}
	var removed []string
	for _, set := range []struct {
		dir   string
		files []string
	}{
		{r.GoldenDir(), r.obsolete(r.GoldenDir(), ".golden")},
		{r.SessionsDir(), r.obsolete(r.SessionsDir(), ".json")},
	} {
		for _, f := range set.files {
			p := filepath.Join(set.dir, filepath.FromSlash(f))
			if err := os.Remove(p); err != nil {
				return removed, fmt.Errorf("steps: prune: %w", err)
			}
			rel, _ := filepath.Rel(r.opt.Root, p)
			removed = append(removed, filepath.ToSlash(rel))
			_ = os.Remove(filepath.Dir(p)) // only succeeds when empty
		}
	}
	return removed, nil
}
