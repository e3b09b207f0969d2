// Package steps binds the Gherkin scenarios of features/ to the sim and the
// real engine (godog glue only). A Suite is one run: it owns the shared
// browser of the browser driver, decides where recordings and golden traces
// live, and gives each scenario its own world, kept in the scenario's
// context so scenarios can run concurrently.
//
// The same scenarios run under two drivers: "browser" drives real headless
// Chromium against a live sim; "replay" reads the session recorded from a
// browser run, with no browser at all. Both compare their normalised trace
// with the same golden file under recordings/golden, so a scenario that
// reads pages must give the same trace under both.
package steps

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

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/site"
)

// Drivers.
const (
	DriverReplay  = "replay"
	DriverBrowser = "browser"
)

// CanonicalBase is what the sim's loopback URL is recorded as, and
// TraceBase what goldens show in its place.
const (
	CanonicalBase = "http://sim.replaylab.test"
	TraceBase     = "{sim}"
)

// Options configure a run.
type Options struct {
	// Root holds features/ and recordings/.
	Root string
	// Dir is where relative Paths are looked up first; default the
	// current directory (then they are looked up under Root).
	Dir string
	// Paths are feature files or dirs, a file optionally with
	// :LINE[:LINE…]; default features. See Selection.
	Paths  []string
	Driver string // DriverReplay (default) or DriverBrowser
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
	// Update rewrites golden traces; with the browser driver it also
	// re-records sessions.
	Update bool
	// Mode says what happens to recordings (see Mode).
	Mode        Mode
	Seed        int64
	Concurrency int
	Output      io.Writer
	// Command is how the user runs the harness, for the commands that
	// hints print: the words before the flags (default DefaultCommand,
	// "replaylab run"). HintFlags are repeated in every hint so it is the
	// same run (--root DIR, --seed N, …); hint paths are relative to
	// HintDir (default Dir, then the current directory). See hints.go.
	Command   []string
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
	// Browser options for the browser driver.
	Browser browser.Options
	// Site is a site profile (path from Root) every scenario drives
	// instead of the sim, unless it chooses a site itself; "" is the sim.
	Site string
	// BaseURL overrides the base URL of Site's profile; BaseURLs that of
	// any site by its profile name (a site a feature chooses).
	BaseURL  string
	BaseURLs map[string]string
	// MCPCommand starts `replaylab mcp` for features/mcp.feature, without
	// the flags the steps add (e.g. {"/path/to/replaylab", "mcp"}; the
	// replaylab binary passes itself, os.Executable). Empty: the steps
	// build ./cmd/replaylab from Root's module once per process (go test).
	MCPCommand []string
	// Scale holds the report, shard and retry options (see scale.go).
	Scale Scale
}

// Mode is what a run does with recorded sessions, in the manner of go-vcr.
// Each value says what happens when a scenario's recording is missing.
type Mode int

const (
	// ModeReplayOnly (the CI default) replays recordings with the replay
	// driver and never records; a missing recording fails the scenario
	// with the command that creates it. With the browser driver it runs
	// live and writes nothing.
	ModeReplayOnly Mode = iota
	// ModeRecordOnce replays a scenario that has a recording and runs one
	// that has none live in Chromium, recording it (its golden is then
	// created too when missing).
	ModeRecordOnce
	// ModeRecord runs every scenario live in Chromium and re-records its
	// session, whatever exists; goldens are compared, not rewritten
	// (add Update to rewrite them).
	ModeRecord
)

// ParseMode reads "replay", "record-once" or "record".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "replay", "replay-only":
		return ModeReplayOnly, nil
	case "record-once":
		return ModeRecordOnce, nil
	case "record":
		return ModeRecord, nil
	}
	return 0, fmt.Errorf("steps: unknown mode %q (want replay, record-once or record)", s)
}

// Suite is one run of the scenarios.
type Suite struct {
	opt Options

	mu       sync.Mutex
	browser  pageOpener // the run's browser, or its pool of remote ones (scale.go)
	startErr error

	selected []Scenario
	selErr   error
	selDone  bool
	byLine   map[string]Scenario // Scenario.ID → scenario
	collect  *collector          // the report model of this run (report.go)
	site     *site.Profile       // Options.Site, loaded
}

// NewSuite validates opt and returns a suite.
func NewSuite(opt Options) (*Suite, error) {
	if opt.Driver == "" {
		opt.Driver = DriverReplay
	}
	if opt.Driver != DriverReplay && opt.Driver != DriverBrowser {
		return nil, fmt.Errorf("steps: unknown driver %q (want replay or browser)", opt.Driver)
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
	if opt.Mode == ModeRecord {
		opt.Driver = DriverBrowser
	}
	if opt.Update && opt.Driver == DriverBrowser {
		opt.Mode = ModeRecord // updating from the browser re-records as well
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	s := &Suite{opt: opt}
	if opt.Site != "" {
		p, err := s.loadSite(opt.Site)
		if err != nil {
			return nil, err
		}
		s.site = p
	} else if opt.BaseURL != "" {
		return nil, fmt.Errorf("steps: a base URL needs a site profile (--site); the sim's address is its own")
	}
	return s, nil
}

// baseURLFor is the run's override of the named site's base URL, "" for
// none.
func (s *Suite) baseURLFor(name string) string {
	if s.site != nil && s.site.Name == name && s.opt.BaseURL != "" {
		return s.opt.BaseURL
	}
	return s.opt.BaseURLs[name]
}

// Selection is what the suite's options select.
func (s *Suite) Selection() Selection {
	return Selection{Root: s.opt.Root, Dir: s.opt.Dir, Paths: s.opt.Paths, Tags: s.opt.Tags}
}

// Selected returns the scenarios this run runs: Options.Scenarios, or
// what Paths and Tags select. Errors are those of Select.
func (s *Suite) Selected() ([]Scenario, error) {
	if s.selDone {
		return s.selected, s.selErr
	}
	s.selDone = true
	if s.opt.Scenarios != nil {
		s.selected = s.opt.Scenarios
		if len(s.selected) == 0 {
			s.selErr = fmt.Errorf("%w: the list of scenarios to run is empty", ErrNoScenarios)
		}
	} else {
		s.selected, s.selErr = Select(s.Selection())
	}
	s.byLine = map[string]Scenario{}
	for _, sc := range s.selected {
		s.byLine[sc.ID()] = sc
	}
	return s.selected, s.selErr
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
// file, an invalid tag expression).
func (s *Suite) Run() int {
	defer s.Close()
	sel, err := s.Selected()
	if errors.Is(err, ErrNoScenarios) && s.opt.AllowEmpty {
		fmt.Fprintf(s.opt.Stderr, "replaylab: %v (allowed by --allow-empty)\n", err)
		return 0
	}
	if err != nil {
		fmt.Fprintf(s.opt.Stderr, "replaylab: %v\n", err)
		return ExitCode(err)
	}
	return s.runScaled(sel)
}

// runGodog runs the served scenarios once with godog and the given
// formats.
func (s *Suite) runGodog(format string, fsys featureFS, paths []string) int {
	out := s.opt.Output
	if out == nil {
		out = os.Stdout
	}
	godogOut := out
	var filter *snippetFilter
	if !s.opt.Snippets {
		filter = &snippetFilter{w: out}
		godogOut = filter
	}
	ts := godog.TestSuite{
		Name:                "replaylab",
		ScenarioInitializer: s.InitializeScenario,
		Options: &godog.Options{
			Format:      format,
			Paths:       paths,
			FS:          fsys,
			Strict:      true,
			Concurrency: s.opt.Concurrency,
			Output:      godogOut,
			TestingT:    s.opt.TestingT,
			Randomize:   0,
			// --fail-fast
			StopOnFailure: s.opt.Scale.FailFast,
			NoColors:      !s.colour(out),
		},
	}
	status := ts.Run()
	if filter != nil {
		_ = filter.Flush()
		if status != 0 {
			undef, err := undefinedSteps(fsys, paths)
			if err != nil {
				fmt.Fprintf(s.opt.Stderr, "replaylab: %v\n", err)
			}
			writeSuggestions(out, undef)
		}
	}
	return status
}

// colour reports whether output to out is coloured: a terminal, with
// neither NoColor nor NO_COLOR set, and not under go test.
func (s *Suite) colour(out io.Writer) bool {
	if s.opt.NoColor || os.Getenv("NO_COLOR") != "" || s.opt.TestingT != nil {
		return false
	}
	f, ok := out.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Close stops the shared browser.
func (s *Suite) Close() {
	s.mu.Lock()
	b := s.browser
	s.browser = nil
	s.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
}

// sharedBrowser starts the run's browser once.
func (s *Suite) sharedBrowser(ctx context.Context) (pageOpener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser != nil || s.startErr != nil {
		return s.browser, s.startErr
	}
	s.browser, s.startErr = s.startBrowser(ctx)
	return s.browser, s.startErr
}

// serve gives godog the selected files, each with what is not selected
// blanked out, under their URIs.
func serve(sel []Scenario) (featureFS, []string, error) {
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
		pf, err := parseFeature(sc.Path, sc.URI)
		if err != nil {
			return nil, nil, err
		}
		fsys[sc.URI] = pf.served(keep[sc.URI])
		paths = append(paths, sc.URI)
	}
	return fsys, paths, nil
}

// scenarioOf is the selected Scenario godog is about to run.
func (s *Suite) scenarioOf(p *godog.Scenario) (Scenario, error) {
	line := 0
	if p.Location != nil {
		line = int(p.Location.Line)
	}
	id := p.Uri + ":" + strconv.Itoa(line)
	sc, ok := s.byLine[id]
	if !ok {
		return Scenario{}, fmt.Errorf("steps: godog runs %s (%q), which replaylab did not select", id, p.Name)
	}
	return sc, nil
}

func (s *Suite) goldenDir() string   { return filepath.Join(s.opt.Root, "recordings", "golden") }
func (s *Suite) sessionsDir() string { return filepath.Join(s.opt.Root, "recordings", "sessions") }

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
func (s *Suite) Obsolete() []string {
	var out []string
	for _, f := range s.obsolete(s.goldenDir(), ".golden") {
		out = append(out, strings.TrimSuffix(f, ".golden"))
	}
	return out
}

// ObsoleteSessions lists session files (relative to recordings/sessions,
// e.g. "chat/old-name.json") that no selected scenario names: a session
// belongs to the scenario whose slug its name starts with (<slug>.json,
// <slug>@<tab>.json). Meaningful for a full selection only.
func (s *Suite) ObsoleteSessions() []string { return s.obsolete(s.sessionsDir(), ".json") }

// obsolete lists the files under dir with the suffix whose scenario name
// no selected scenario has.
func (s *Suite) obsolete(dir, suffix string) []string {
	sel, _ := s.Selected()
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
func (s *Suite) Prune() ([]string, error) {
	if !IsFullSelection(s.Selection()) || s.opt.Scenarios != nil {
		return nil, fmt.Errorf("steps: prune needs a run over every scenario (no paths, no tags)")
	}
	if _, err := s.Selected(); err != nil {
		return nil, err
	}
	var removed []string
	for _, set := range []struct {
		dir   string
		files []string
	}{
		{s.goldenDir(), s.obsolete(s.goldenDir(), ".golden")},
		{s.sessionsDir(), s.obsolete(s.sessionsDir(), ".json")},
	} {
		for _, f := range set.files {
			p := filepath.Join(set.dir, filepath.FromSlash(f))
			if err := os.Remove(p); err != nil {
				return removed, fmt.Errorf("steps: prune: %w", err)
			}
			rel, _ := filepath.Rel(s.opt.Root, p)
			removed = append(removed, filepath.ToSlash(rel))
			_ = os.Remove(filepath.Dir(p)) // only succeeds when empty
		}
	}
	return removed, nil
}

// ErrBrowserRequired is returned in CI when no browser is present.
var ErrBrowserRequired = errors.New("steps: the browser driver needs Chromium")
