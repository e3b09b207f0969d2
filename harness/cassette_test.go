package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/harness"
)

// plain is a fixture with no golden: a plain pass/fail step.
type plain struct{}

func (plain) Catalogue() []harness.StepDef {
	return []harness.StepDef{{Group: "Plain", Pattern: `^it works$`, Meaning: "passes", Example: "Then it works",
		Fn: func(context.Context) error { return nil }}}
}

func (p plain) InitializeScenario(sc *godog.ScenarioContext, s *harness.Scenario) {
	harness.Bind(sc, p.Catalogue())
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		return ctx, s.Finish(harness.Outcome{Err: err, NoGolden: true})
	})
}

func (plain) Close() error { return nil }

// TestTheRunnerOwnsTheRecording: the runner, not the fixture, decides
// per tab whether it replays or records, refuses a session recorded from
// other steps and fails a scenario its fixture never finished; each
// failure names the command that fixes it, spelled with the embedding
// program's own command (Options.Command).
func TestTheRunnerOwnsTheRecording(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<p>Hello, Ada</p>")
	}))
	defer site.Close()
	const feature = "Feature: Greet\n  Scenario: The page greets\n    When I open \"/\"\n    And I read the page\n    Then the page says \"Hello, Ada\"\n"
	const changed = "Feature: Greet\n  Scenario: The page greets\n    When I open \"/other\"\n    And I read the page\n    Then the page says \"Hello, Ada\"\n"
	tests := []struct {
		name     string
		record   bool   // record the session first (record-once)
		feature  string // the feature run then
		mode     harness.Mode
		team     pageTeam
		wantExit int
		want     string // in the output
	}{
		{name: "replays what was recorded", record: true, feature: feature, mode: harness.ModeReplayOnly, team: pageTeam{live: site.URL}},
		{name: "no recording names the command that records it", feature: feature, mode: harness.ModeReplayOnly, team: pageTeam{live: site.URL},
			wantExit: 1, want: "replay: no recording at " /* then the path */},
		{name: "no recording hint is the program's own", feature: feature, mode: harness.ModeReplayOnly, team: pageTeam{live: site.URL},
			wantExit: 1, want: "record it with: team-run --mode record-once features/greet.feature:2"},
		{name: "a session of other steps is refused", record: true, feature: changed, mode: harness.ModeReplayOnly, team: pageTeam{live: site.URL},
			wantExit: 1, want: "was made from another version of this scenario"},
		{name: "a fixture that forgets Finish fails", record: true, feature: feature, mode: harness.ModeReplayOnly, team: pageTeam{live: site.URL, forget: true},
			wantExit: 1, want: "did not finish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, "features", "greet.feature"), feature)
			if tt.record {
				if code, out := runTeam(t, root, harness.ModeRecordOnce, pageTeam{live: site.URL}); code != 0 {
					t.Fatalf("recording: exit %d\n%s", code, out)
				}
			}
			write(t, filepath.Join(root, "features", "greet.feature"), tt.feature)
			code, out := runTeam(t, root, tt.mode, tt.team)
			if code != tt.wantExit || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d with %q in the output:\n%s", code, tt.wantExit, tt.want, out)
			}
		})
	}
}

// TestAGoldenIsOptional: a fixture whose scenarios keep no golden passes
// and writes none.
func TestAGoldenIsOptional(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "features", "plain.feature"), "Feature: Plain\n  Scenario: Works\n    Then it works\n")
	r, err := harness.New(harness.Options{Root: root, Dir: root, Format: "progress", Output: io.Discard, Stderr: io.Discard}, plain{})
	if err != nil {
		t.Fatal(err)
	}
	if code := r.Run(); code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	if _, err := os.Stat(filepath.Join(root, "recordings", "golden")); err == nil {
		t.Error("a golden was written for a fixture that keeps none")
	}
}

func runTeam(t *testing.T, root string, mode harness.Mode, team pageTeam) (int, string) {
	t.Helper()
	var out bytes.Buffer
	r, err := harness.New(harness.Options{Root: root, Dir: root, Mode: mode, Format: "progress", Output: &out, Stderr: &out, Command: []string{"team-run"}, Fixes: harness.FixFlags{RecordOnce: []string{"--mode", "record-once"}}}, team)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(), out.String()
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
