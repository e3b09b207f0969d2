package zoo_test

import (
	"os"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
	"github.com/replaylab/replaylab/zoo"
)

// Tags that keep a scenario out of the zoo's suite until the engine does
// what it proves (each scenario says which LIB id and the error it shows
// today): @lib-pending fails on both drivers, @lib-pending-live passes
// replayed but not live.
const (
	replayTags = "not @lib-pending"
	liveTags   = "not @lib-pending and not @lib-pending-live"
)

// TestZooScenarios runs the zoo's scenario project (zoo/features, its
// recordings in zoo/recordings) against the real chat UI libraries: live
// in Chromium against a zoo server (each scenario on the clock its profile
// names, wall or page) and replayed from the recorded sessions, both
// compared with the same goldens. In CI (CI=true) a missing browser fails.
func TestZooScenarios(t *testing.T) {
	for _, driver := range []string{steps.DriverBrowser, steps.DriverReplay} {
		t.Run(driver, func(t *testing.T) {
			tags := replayTags
			opt := steps.Options{}
			// go test ./zoo -run TestZooScenarios -update (goldie's flag):
			// the browser run re-records the sessions and rewrites the goldens
			rerecord := harness.UpdateFlag()
			if driver == steps.DriverBrowser {
				if _, err := browser.FindChromium(); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatalf("CI=true and %v: the zoo's browser scenarios are required in CI", err)
					}
					testskip.Skip(t, "SKIPPING the zoo's browser scenarios: %v", err)
				}
				srv, err := zoo.Start(zoo.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = srv.Close() })
				opt.BaseURLs = map[string]string{}
				for _, lib := range zoo.Libs {
					opt.BaseURLs["zoo-"+lib] = srv.URL
				}
				tags = liveTags
			} else {
				rerecord = false // goldens come from the browser run
			}
			mode, err := harness.ModeOf(driver, harness.ModeReplayOnly, rerecord)
			if err != nil {
				t.Fatal(err)
			}
			r, err := vocabulary.NewRunner(harness.Options{Root: ".", Mode: mode, Tags: tags, Format: "progress", TestingT: t, Update: rerecord, Concurrency: 1,
				Command: []string{"go", "run", "./cmd/replaylab", "run", "--root", "zoo"}, HintDir: ".."}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if st := r.Run(); st != 0 {
				t.Fatalf("%s driver: exit status %d", driver, st)
			}
		})
	}
}
