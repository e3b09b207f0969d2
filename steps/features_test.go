package steps

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/harness"

	"github.com/replaylab/replaylab/internal/procs"
	"github.com/replaylab/replaylab/internal/testskip"
)

var godogOpts = godog.Options{}

func init() {
	godog.BindFlags("godog.", flagSet(), &godogOpts)
}

// TestFeatures runs every scenario under the replay driver and, when
// Chromium is present, under the browser driver; both compare with the
// same golden traces. In CI (CI=true) a missing browser fails the run.
// go test ./steps -update re-records the sessions from the browser and
// rewrites the goldens; go test ./steps -godog.tags=@ANS-3 filters, and
// -godog.paths=features/x.feature:41 runs the scenario at that line
// (paths are looked up in steps/ first, then in the repository root).
func TestFeatures(t *testing.T) {
	for _, driver := range []string{DriverBrowser, DriverReplay} {
		t.Run(driver, func(t *testing.T) {
			if driver == DriverBrowser {
				requireBrowser(t)
			}
			update := updateFlag()
			if driver == DriverReplay && update {
				update = false // goldens come from the browser run
			}
			mode, err := replay.ModeOf(driver, replay.ModeReplayOnly, update)
			if err != nil {
				t.Fatal(err)
			}
			opt := harness.Options{Root: "..", Paths: godogOpts.Paths, Mode: mode, Tags: godogOpts.Tags, Format: "progress", TestingT: t, Update: update, Concurrency: 1,
				// hints name the command a developer of this repository runs
				// from its root
				Command: []string{"go", "run", "./cmd/replaylab", "run"}, HintDir: ".."}
			vocab := siteOptions(t, driver)
			s, err := NewRunner(opt, vocab)
			if err != nil {
				t.Fatal(err)
			}
			if st := s.Run(); st != 0 {
				t.Fatalf("%s driver: exit status %d", driver, st)
			}
			if harness.IsFullSelection(s.Selection()) {
				if obs := append(s.Obsolete(), s.ObsoleteSessions()...); len(obs) > 0 {
					t.Errorf("obsolete golden traces and sessions (no scenario names them): %s; remove them with: %s", strings.Join(obs, ", "), s.PruneHint())
				}
			}
		})
	}
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

func TestCatalogue(t *testing.T) {
	if err := CheckCatalogue(); err != nil {
		t.Fatal(err)
	}
	if len(Catalogue()) == 0 {
		t.Fatal("empty catalogue")
	}
}

// TestMain checks that no browser process or temp dir outlives the tests.
func TestMain(m *testing.M) {
	code := testskip.Main(m)
	procs.RemoveBinary()
	if leaks := browser.Leaks(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "LEAK: browsers started by these tests left behind: %v\n", leaks)
		code = 1
	}
	os.Exit(code)
}
