package harness

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cucumber/godog"
)

func TestShellJoinSplit(t *testing.T) {
	tests := []struct {
		name  string
		words []string
		want  string
	}{
		{"plain words", []string{"replaylab", "run", "--update", "features/x.feature:12"}, "replaylab run --update features/x.feature:12"},
		{"a space", []string{"replaylab", "run", "--root", "/tmp/my project"}, "replaylab run --root '/tmp/my project'"},
		{"a single quote", []string{"a'b"}, `'a'\''b'`},
		{"empty", []string{"x", ""}, "x ''"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ShellJoin(tc.words)
			if got != tc.want {
				t.Fatalf("ShellJoin = %s, want %s", got, tc.want)
			}
			if back := ShellSplit(got); !reflect.DeepEqual(back, tc.words) {
				t.Fatalf("ShellSplit(%s) = %q, want %q", got, back, tc.words)
			}
		})
	}
}

// nopFixture binds no step.
type nopFixture struct{ defs []StepDef }

func (f nopFixture) Catalogue() []StepDef                                      { return f.defs }
func (f nopFixture) InitializeScenario(sc *godog.ScenarioContext, s *Scenario) { Bind(sc, f.defs) }
func (f nopFixture) Close() error                                              { return nil }

// TestHints: each hint is the command for its situation, with the user's
// command, the run's flags and the scenario's path from where the user is.
func TestHints(t *testing.T) {
	root := t.TempDir()
	sc := Scenario{URI: "features/x.feature", Path: filepath.Join(root, "features", "x.feature"), Line: 12}
	tests := []struct {
		name string
		opt  Options
		hint func(h Hints) string
		want string
	}{
		{"missing recording", Options{Command: cli, Fixes: cliFixes, Dir: root}, func(h Hints) string { return h.Record }, "replaylab run --mode record-once features/x.feature:12"},
		{"stale recording", Options{Command: cli, Fixes: cliFixes, Dir: root}, func(h Hints) string { return h.Rerecord }, "replaylab run --driver browser --update features/x.feature:12"},
		{"missing golden", Options{Command: cli, Fixes: cliFixes, Dir: root}, func(h Hints) string { return h.CreateGolden }, "replaylab run --mode record-once features/x.feature:12"},
		{"missing golden, browser run", Options{Command: cli, Fixes: cliFixes, Dir: root, Mode: ModeLive}, func(h Hints) string { return h.CreateGolden }, "replaylab run --driver browser --mode record-once features/x.feature:12"},
		{"drift", Options{Command: cli, Fixes: cliFixes, Dir: root}, func(h Hints) string { return h.Update }, "replaylab run --update features/x.feature:12"},
		{"from inside features/", Options{Command: cli, Fixes: cliFixes, Dir: filepath.Join(root, "features")}, func(h Hints) string { return h.Update }, "replaylab run --update x.feature:12"},
		{"the binary as invoked, with the run's flags", Options{Fixes: cliFixes, Dir: root, Command: []string{"./bin/replaylab", "run"}, HintFlags: []string{"--root", "proj", "--seed", "7"}},
			func(h Hints) string { return h.Update }, "./bin/replaylab run --update --root proj --seed 7 features/x.feature:12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(tc.opt, nopFixture{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.hint(r.hints(sc)); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	r, _ := New(Options{Command: []string{"go", "run", "./cmd/replaylab", "run"}, Fixes: cliFixes}, nopFixture{})
	if got := r.PruneHint(); got != "go run ./cmd/replaylab run --prune" {
		t.Fatalf("prune hint %s", got)
	}
}

// cli and cliFixes spell the hints as replaylab run does (its fixture
// fills them in: steps.CommandLine).
var (
	cli      = []string{"replaylab", "run"}
	cliFixes = FixFlags{
		RecordOnce: []string{"--mode", "record-once"},
		Rerecord:   []string{"--driver", DriverBrowser, "--update"},
		Update:     []string{"--update"},
		Live:       []string{"--driver", DriverBrowser},
		Prune:      []string{"--prune"},
	}
)

// TestNoFixesNoHints: a program that gives no fixing flags gets no hint
// (never a flag it lacks), and the failure still says what is wrong.
func TestNoFixesNoHints(t *testing.T) {
	h := HintsFor(Options{Command: []string{"team-run"}}, Scenario{URI: "features/x.feature", Line: 3})
	if h != (Hints{}) {
		t.Errorf("hints %+v, want none", h)
	}
	if got := (&DriftError{Slug: "x/y", Diff: "-a\n+b"}).Error(); got != "golden trace drift for x/y\n-a\n+b" {
		t.Errorf("drift without a hint: %q", got)
	}
}
