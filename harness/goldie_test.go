package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldieAssertsTheGolden: under go test the golden is asserted with
// goldie on the same file the CLI compares: a match passes, a drift is a
// *DriftError (the test itself not failed: the scenario fails), a missing
// golden in a mode that creates goldens is written as the CLI writes it.
func TestGoldieAssertsTheGolden(t *testing.T) {
	tests := []struct {
		name      string
		golden    string // "" : no file
		trace     string
		mode      Mode
		wantDrift bool
		wantErr   bool
		wantFile  string
	}{
		{name: "match", golden: "a\nb\n", trace: "a\nb\n", wantFile: "a\nb\n"},
		{name: "match up to line endings", golden: "a\r\nb\r\n\n", trace: "a\nb\n", wantFile: "a\r\nb\r\n\n"},
		{name: "drift", golden: "a\nb\n", trace: "a\nc\n", wantDrift: true, wantFile: "a\nb\n"},
		{name: "missing, replay", trace: "a\n", wantErr: true},
		{name: "missing, record-once creates it", trace: "a\n", mode: ModeRecordOnce, wantFile: "a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			r := &Runner{opt: Options{Root: root, TestingT: t, Mode: tt.mode}}
			s := &Scenario{URI: "features/x.feature", Line: 2, Slug: "x/the-scenario", run: &scenarioRun{runner: r}}
			path := s.GoldenPath()
			if tt.golden != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.golden), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := s.compareGolden([]byte(tt.trace))
			var de *DriftError
			switch {
			case tt.wantDrift && !errors.As(err, &de):
				t.Fatalf("got %v, want a *DriftError", err)
			case tt.wantDrift && de.Diff == "":
				t.Fatal("the drift has no diff")
			case tt.wantErr && err == nil:
				t.Fatal("got no error")
			case !tt.wantDrift && !tt.wantErr && err != nil:
				t.Fatalf("got %v", err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.wantFile {
				t.Errorf("golden file %q, want %q", got, tt.wantFile)
			}
		})
	}
}
