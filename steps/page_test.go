package steps_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/steps"
)

// teamGroup is a second team's group: its step drives the page the
// vocabulary opened through World.Page, and traces what it found.
func teamGroup() steps.Group {
	return steps.Group{Name: "A team's checks", Steps: func(t *steps.Table) {
		t.Step(`^the team finds the (\w+) "([^"]*)" (\d+) times?$`, "a find through the world's page",
			`Then the team finds the button "Send" 1 time`, func(ctx context.Context, role, name string, want int) error {
				w := steps.WorldOf(ctx)
				p, err := w.Page(ctx)
				if err != nil {
					return err
				}
				again, err := w.Page(ctx)
				if err != nil || again != p {
					return fmt.Errorf("a second Page gave another page (%v)", err)
				}
				r, err := p.Find(ctx, observe.Query{Role: role, Name: name})
				if err != nil {
					return err
				}
				w.Emit(trace.E("team.find", trace.A("role", role), trace.A("matched", r.Selection.Matched)))
				if r.Selection.Matched != want {
					return fmt.Errorf("%s %q matched %d, want %d", role, name, r.Selection.Matched, want)
				}
				return nil
			})
	}}
}

// TestWorldPage: a Group's step reaches the page the vocabulary's steps
// opened, live (recording) and replayed from that recording, with one
// golden for both.
func TestWorldPage(t *testing.T) {
	if _, err := browser.FindChromium(); err != nil {
		testskip.Need(t, "the World.Page test (it records from a browser)", err)
	}
	root := t.TempDir()
	feature := "Feature: A team's group\n  Scenario: The team's step reads the vocabulary's page\n    When I open the sim page \"/hidden\"\n    Then the team finds the button \"Send\" 1 time\n"
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "features", "team.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		driver string
		update bool
	}{
		{"record from the browser", steps.DriverBrowser, true},
		{"replay the recording", steps.DriverReplay, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mode, err := harness.ModeOf(tt.driver, harness.ModeReplayOnly, tt.update)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			r, err := steps.NewRunner(harness.Options{Root: root, Mode: mode, Update: tt.update, Format: "progress", Output: &out, Stderr: &out, Concurrency: 1},
				steps.Options{Groups: []steps.Group{teamGroup()}})
			if err != nil {
				t.Fatal(err)
			}
			if st := r.Run(); st != 0 {
				t.Fatalf("exit %d:\n%s", st, out.String())
			}
		})
	}
	var goldens []string
	err := filepath.WalkDir(filepath.Join(root, "recordings"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".golden") {
			goldens = append(goldens, path)
		}
		return err
	})
	if err != nil || len(goldens) != 1 {
		t.Fatalf("want one golden under recordings/, got %v (%v)", goldens, err)
	}
	golden, err := os.ReadFile(goldens[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(golden), "team.find") {
		t.Fatalf("the golden holds no team.find event:\n%s", golden)
	}
}
