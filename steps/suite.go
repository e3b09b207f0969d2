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
	"strings"
	"sync"
	"testing"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/browser"
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
	Root   string
	Paths  []string // feature files or dirs, relative to Root; default features
	Driver string   // DriverReplay (default) or DriverBrowser
	Tags   string
	Format string // godog formats, e.g. "pretty,junit:out.xml"
	// Update rewrites golden traces; with the browser driver it also
	// re-records sessions.
	Update bool
	// Mode says what happens to recordings (see Mode).
	Mode        Mode
	Seed        int64
	Concurrency int
	Output      io.Writer
	// TestingT runs scenarios as subtests of a go test.
	TestingT *testing.T
	// Browser options for the browser driver.
	Browser browser.Options
	// MCPCommand starts `replaylab mcp` for features/mcp.feature, without
	// the flags the steps add (e.g. {"/path/to/replaylab", "mcp"}; the
	// replaylab binary passes itself, os.Executable). Empty: the steps
	// build ./cmd/replaylab from Root's module once per process (go test).
	MCPCommand []string
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
	browser  *browser.Browser
	startErr error
	used     map[string]bool // golden names this run compared
	names    scenarioNames
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
	return &Suite{opt: opt, used: map[string]bool{}}, nil
}

// Run runs the scenarios and returns godog's exit status: 0 only when
// every scenario passed with no undefined step and no golden drift.
func (s *Suite) Run() int {
	defer s.Close()
	paths := make([]string, len(s.opt.Paths))
	for i, p := range s.opt.Paths {
		if filepath.IsAbs(p) {
			paths[i] = p
		} else {
			paths[i] = filepath.Join(s.opt.Root, p)
		}
	}
	ts := godog.TestSuite{
		Name:                "replaylab",
		ScenarioInitializer: s.InitializeScenario,
		Options: &godog.Options{
			Format:      s.opt.Format,
			Paths:       paths,
			Tags:        s.opt.Tags,
			Strict:      true,
			Concurrency: s.opt.Concurrency,
			Output:      s.opt.Output,
			TestingT:    s.opt.TestingT,
			Randomize:   0,
			NoColors:    os.Getenv("NO_COLOR") != "" || s.opt.TestingT != nil,
		},
	}
	return ts.Run()
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
func (s *Suite) sharedBrowser(ctx context.Context) (*browser.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser != nil || s.startErr != nil {
		return s.browser, s.startErr
	}
	s.browser, s.startErr = browser.Start(ctx, s.opt.Browser)
	return s.browser, s.startErr
}

func (s *Suite) goldenDir() string    { return filepath.Join(s.opt.Root, "recordings", "golden") }
func (s *Suite) sessionsDir() string  { return filepath.Join(s.opt.Root, "recordings", "sessions") }
func (s *Suite) markUsed(name string) { s.mu.Lock(); s.used[name] = true; s.mu.Unlock() }

// slug names a scenario's files: feature file base name / scenario name,
// lower-case, non-alphanumerics as dashes; scenarios of one file with the
// same name are numbered by their place in the file (see scenarioNames).
func (s *Suite) slug(p *godog.Scenario) (string, error) { return s.names.name(p) }

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

// Obsolete lists golden files no scenario of this run compared. It is only
// meaningful for a run over every feature with no tag filter.
func (s *Suite) Obsolete() []string {
	var out []string
	dir := s.goldenDir()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".golden") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".golden")
		s.mu.Lock()
		used := s.used[name]
		s.mu.Unlock()
		if !used {
			out = append(out, name)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// ErrBrowserRequired is returned in CI when no browser is present.
var ErrBrowserRequired = errors.New("steps: the browser driver needs Chromium")
