package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestScenariosOfMatchesSelect: the scenarios of a file's content are
// those Select reads from the file, and their hints those a run prints.
func TestScenariosOfMatchesSelect(t *testing.T) {
	path, err := filepath.Abs("../features/harness.feature")
	if err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ScenariosOf(content, path, "features/harness.feature")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Select(Selection{Root: "..", Dir: "..", Paths: []string{"features/harness.feature"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("got %d scenarios, Select %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Slug != want[i].Slug || got[i].Fingerprint != want[i].Fingerprint || got[i].Line != want[i].Line {
			t.Fatalf("scenario %d: got %s %s:%d, Select %s %s:%d", i, got[i].Slug, got[i].Fingerprint, got[i].Line, want[i].Slug, want[i].Fingerprint, want[i].Line)
		}
	}
	root, _ := filepath.Abs("..")
	h := HintsFor(Options{Root: root, HintDir: root, Command: []string{"replaylab", "run"}, Fixes: cliFixes}, got[0])
	if want := "replaylab run --mode record-once features/harness.feature:" + itoa(got[0].Line); h.Record != want || h.CreateGolden != want {
		t.Fatalf("got hints %+v, want Record and CreateGolden %q", h, want)
	}
	if _, err := ScenariosOf([]byte("Feature: x\n  Scenario Outline: y\n    Given z\n"), "x.feature", "features/x.feature"); ExitCode(err) != 2 {
		t.Fatalf("an outline without examples: got %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
