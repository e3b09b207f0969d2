package selftest

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/procs"
	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
	"github.com/replaylab/replaylab/testsite"
)

// root is the repository root, features/ and recordings/ under it.
const root = "../.."

var (
	godogOpts = godog.Options{}
	// go test ./internal/selftest -replaylab.site=testsite/testsite.json
	// [-replaylab.base-url=URL] runs every scenario against that site
	// (path from the project root), as replaylab run --site does.
	siteFlag    = flag.String("replaylab.site", "", "site profile (path from the project root) every scenario drives instead of the sim")
	baseURLFlag = flag.String("replaylab.base-url", "", "base URL of the -replaylab.site profile instead of its own")
)

// TestFeatures runs every scenario under the replay driver and, when
// Chromium is present, under the browser driver; both compare with the
// same golden traces. In CI (CI=true) a missing browser fails the run.
// go test ./internal/selftest -update re-records the sessions from the
// browser and rewrites the goldens; -godog.tags=@ANS-3 filters, and
// -godog.paths=features/x.feature:41 runs the scenario at that line
// (paths are looked up in internal/selftest first, then in the
// repository root).
func TestFeatures(t *testing.T) {
	for _, driver := range []string{steps.DriverBrowser, steps.DriverReplay} {
		t.Run(driver, func(t *testing.T) {
			if driver == steps.DriverBrowser {
				requireBrowser(t)
			}
			// -update is goldie's flag (harness.UpdateFlag)
			rerecord := harness.UpdateFlag()
			if driver == steps.DriverReplay && rerecord {
				rerecord = false // goldens come from the browser run
			}
			mode, err := harness.ModeOf(driver, harness.ModeReplayOnly, rerecord)
			if err != nil {
				t.Fatal(err)
			}
			opt := harness.Options{Root: root, Paths: godogOpts.Paths, Mode: mode, Tags: godogOpts.Tags, Format: "progress", TestingT: t, Update: rerecord, Concurrency: 1,
				// hints name the command a developer of this repository runs
				// from its root: these scenarios run only under go test (the
				// binary skips them), and their recordings and goldens come
				// from the browser half with goldie's -update
				Command: []string{"go", "test", "./internal/selftest", "-run", "TestFeatures/" + steps.DriverBrowser}, HintDir: root,
				Fixes: selfTestFixes}
			s, err := vocabulary.NewRunner(opt, siteOptions(t, driver))
			if err != nil {
				t.Fatal(err)
			}
			if st := s.Run(); st != 0 {
				t.Fatalf("%s driver: exit status %d", driver, st)
			}
			if harness.IsFullSelection(s.Selection()) {
				if obs := append(s.Obsolete(), s.ObsoleteSessions()...); len(obs) > 0 {
					t.Errorf("obsolete golden traces and sessions (no scenario names them): %s; remove them with: go run ./cmd/replaylab run --prune", strings.Join(obs, ", "))
				}
			}
		})
	}
}

// selfTestFixes are the flags after the go test command that fix a
// self-test scenario's recording or golden: the browser half records
// the scenario again and rewrites its golden (harness.ModeOf: -update is
// ModeRecord). The prune hint is the binary's: it reads every feature,
// self-tests included.
var selfTestFixes = harness.FixFlags{
	RecordOnce: []string{"-update", "-godog.paths"},
	Rerecord:   []string{"-update", "-godog.paths"},
	Update:     []string{"-update", "-godog.paths"},
}

// siteOptions are the vocabulary options of a run: the self-tests'
// groups, the site flags, and for the browser driver the repo's test
// site, served for the scenarios that choose it.
func siteOptions(t *testing.T, driver string) steps.Options {
	t.Helper()
	opt := steps.Options{Site: *siteFlag, BaseURL: *baseURLFlag, Groups: Groups()}
	if driver != steps.DriverBrowser {
		return opt
	}
	srv, err := testsite.Start(testsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	opt.BaseURLs = map[string]string{}
	for _, name := range testsite.ProfileNames {
		opt.BaseURLs[name] = srv.URL
	}
	return opt
}

func requireBrowser(t *testing.T) {
	t.Helper()
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v: browser scenarios are required in CI", err)
		}
		testskip.Skip(t, "SKIPPING browser scenarios: %v", err)
	}
}

// TestCatalogue: the catalogue of the vocabulary with these groups is
// sound (every example matches its step alone), and the groups' steps
// are in it, marked as the groups say.
func TestCatalogue(t *testing.T) {
	if err := vocabulary.CheckCatalogue(Groups()...); err != nil {
		t.Fatal(err)
	}
	for _, g := range Groups() {
		t.Run(g.Name, func(t *testing.T) {
			n := 0
			for _, d := range vocabulary.Catalogue(Groups()...) {
				if d.Group == g.Name {
					n++
					if d.SelfTest != g.SelfTest {
						t.Errorf("%s: self-test %v, want %v", d.Pattern, d.SelfTest, g.SelfTest)
					}
				}
			}
			if n == 0 {
				t.Fatal("no step of the group in the catalogue")
			}
		})
	}
}

// TestMain binds godog's flags and checks that no browser process or
// temp dir outlives the tests.
func TestMain(m *testing.M) {
	godog.BindFlags("godog.", flag.CommandLine, &godogOpts)
	code := testskip.Main(m)
	procs.RemoveBinary()
	if leaks := browser.Leaks(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "LEAK: browsers started by these tests left behind: %v\n", leaks)
		code = 1
	}
	os.Exit(code)
}
