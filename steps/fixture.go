// Package steps is replaylab's vocabulary: the Gherkin steps of
// features/, bound to the sim and the real engine, one table per group of
// steps. It runs under the harness package's runner through one seam, a
// Fixture: each scenario gets its own world, kept in the scenario's
// context so scenarios can run concurrently, and ends by handing the
// runner its Outcome (trace, sessions).
//
// The same scenarios run live and replayed (the run's harness.Mode decides
// per recording): live drives real headless Chromium against a live sim;
// replayed reads the session recorded from a live run, with no browser at
// all. Both compare their normalised trace with the same golden file under
// recordings/golden, so a scenario that reads pages must give the same
// trace under both.
//
// Steps kept outside the vocabulary (replaylab's own self-tests, in
// internal/selftest) join a fixture as Groups (Options.Groups), bound and
// listed after its own, and reach their scenario through WorldOf.
package steps

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/harness"
)

// Drivers, as the --driver flag names them.
const (
	DriverReplay  = harness.DriverReplay
	DriverBrowser = harness.DriverBrowser
)

// CanonicalBase is what the sim's loopback URL is recorded as, and
// TraceBase what goldens show in its place.
const (
	CanonicalBase = "http://sim.replaylab.test"
	TraceBase     = "{sim}"
)

// Options configure the vocabulary: what the steps drive. What runs and
// how (paths, tags, formats, concurrency, shards, retries, modes) is the
// runner's (harness.Options).
type Options struct {
	// Root is the project root site profiles and adapter files are named
	// from (the runner's Root).
	Root string
	// Seed seeds every generated text and fault plan.
	Seed int64
	// Browser options of the live runs.
	Browser browser.Options
	// Pool lists remote Chromium endpoints (CDP websocket URLs) shared by
	// the run's scenarios, each in its own browser context; dead ones
	// are reported once (on Stderr) and skipped.
	Pool []string
	// Stderr gets the pool's reports (default os.Stderr).
	Stderr io.Writer
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
	// SelfTests binds replaylab's own self-test steps (the MCP process's
	// and those of the Groups marked SelfTest) as well. Without it they
	// are bound only where SelfTestsFor(Root) says: in a QA project they
	// are undefined steps, and out of the catalogue.
	SelfTests bool
	// Groups are steps from outside the vocabulary the fixture binds and
	// lists after its own (replaylab passes its self-tests' groups).
	Groups []Group
}

// SelfTestsEnv set to 1 binds the self-test steps in any root: the
// self-tests set it for the runs of the binary they start in scratch
// projects.
const SelfTestsEnv = "REPLAYLAB_SELF_TESTS"

// ownModule is the module path of replaylab's own checkout.
const ownModule = "github.com/replaylab/replaylab"

// SelfTestsFor reports whether the self-test steps belong to the project
// at root: replaylab's own checkout (its go.mod declares replaylab's
// module), or any root when SelfTestsEnv is 1.
func SelfTestsFor(root string) bool {
	if os.Getenv(SelfTestsEnv) == "1" {
		return true
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ownModule
		}
	}
	return false
}

// Fixture is the vocabulary as a harness.Fixture: it owns the run's
// browser (started on first use) and the site profile of Options.Site.
type Fixture struct {
	opt  Options
	site *site.Profile // Options.Site, loaded
	// selfTests: the self-test steps are bound (Options.SelfTests or
	// SelfTestsFor(Root))
	selfTests bool
	steps     []compiledStep   // the vocabulary's and Options.Groups'
	simOnly   []*regexp.Regexp // the patterns of the sim-only steps

	mu       sync.Mutex
	browser  pageOpener // the run's browser, or its pool of remote ones
	startErr error
}

var _ harness.Fixture = (*Fixture)(nil)

// New validates opt and returns the vocabulary's fixture.
func New(opt Options) (*Fixture, error) {
	if opt.Root == "" {
		opt.Root = "."
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	f := &Fixture{opt: opt, selfTests: opt.SelfTests || SelfTestsFor(opt.Root), steps: compiled(opt.Groups)}
	for _, d := range f.steps {
		if simOnly(d.StepDef) {
			f.simOnly = append(f.simOnly, d.re)
		}
	}
	if opt.Site != "" {
		p, err := site.LoadIn(opt.Site, opt.Root)
		if err != nil {
			return nil, err
		}
		f.site = p
	} else if opt.BaseURL != "" {
		return nil, fmt.Errorf("steps: a base URL needs a site profile (--site); the sim's address is its own")
	}
	return f, nil
}

// NewRunner is a runner of this vocabulary: harness.New with a fixture
// of v (v.Root defaults to h.Root).
func NewRunner(h harness.Options, v Options) (*harness.Runner, error) {
	if v.Root == "" {
		v.Root = h.Root
	}
	f, err := New(v)
	if err != nil {
		return nil, err
	}
	return harness.New(CommandLine(h), f)
}

// Catalogue is every step the fixture binds: the vocabulary and
// Options.Groups (see the package function), without the self-test steps
// unless they are bound.
func (f *Fixture) Catalogue() []StepDef {
	defs := harness.Grouped(defsOf(f.steps))
	if f.selfTests {
		return defs
	}
	return harness.QA(defs)
}

// Close stops the run's browser.
func (f *Fixture) Close() error {
	f.mu.Lock()
	b := f.browser
	f.browser = nil
	f.mu.Unlock()
	if b != nil {
		return b.Close()
	}
	return nil
}

// baseURLFor is the run's override of the named site's base URL, "" for
// none.
func (f *Fixture) baseURLFor(name string) string {
	if f.site != nil && f.site.Name == name && f.opt.BaseURL != "" {
		return f.opt.BaseURL
	}
	return f.opt.BaseURLs[name]
}

// pageOpener opens pages in fresh browser contexts: one browser, or a
// pool of remote ones.
type pageOpener interface {
	NewPage(ctx context.Context) (*browser.Page, error)
	Close() error
}

// sharedBrowser starts the run's browser once.
func (f *Fixture) sharedBrowser(ctx context.Context) (pageOpener, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.browser != nil || f.startErr != nil {
		return f.browser, f.startErr
	}
	f.browser, f.startErr = f.startBrowser(ctx)
	return f.browser, f.startErr
}

// startBrowser starts the run's browser, or connects the pool when
// Options.Pool names endpoints.
func (f *Fixture) startBrowser(ctx context.Context) (pageOpener, error) {
	if len(f.opt.Pool) > 0 {
		p, err := browser.NewPool(ctx, f.opt.Pool, browser.PoolOptions{Report: f.opt.Stderr, StorageState: f.opt.Browser.StorageState})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	opt := f.opt.Browser
	opt.ReuseContexts = true // a scenario's page gets a cleared context (engine/browser/reuse.go)
	b, err := browser.Start(ctx, opt)
	if err != nil {
		return nil, err
	}
	return b, nil
}
