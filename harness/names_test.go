package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFeature(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScenarioNamesFollowThePlaceInTheFile(t *testing.T) {
	dir := t.TempDir()
	writeFeature(t, dir, "f/rows.feature", `Feature: Rows
  Scenario Outline: Row
    Given a marker-style chat with <n> earlier turns
    Examples:
      | n |
      | 1 |
      | 2 |
      | 3 |
  Rule: inside a rule
    Scenario: Row
      Given a marker-style chat with 9 earlier turns
`)
	want := map[int]string{6: "rows/row", 7: "rows/row-2", 8: "rows/row-3", 10: "rows/row-4"}
	tests := []struct {
		name  string
		paths []string
	}{
		{"the whole file", []string{"f/rows.feature"}},
		{"the rows in reverse", []string{"f/rows.feature:10:8:7:6"}},
		{"only the last row, selected by its line", []string{"f/rows.feature:8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := Select(Selection{Root: dir, Dir: dir, Paths: tt.paths})
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range sel {
				if sc.Slug != want[sc.Line] {
					t.Errorf("%s is named %s, want %s", sc.ID(), sc.Slug, want[sc.Line])
				}
			}
		})
	}
}

func TestScenarioNamesRefuseWhatCannotBeToldApart(t *testing.T) {
	dir := t.TempDir()
	writeFeature(t, dir, "copies.feature", `Feature: Copies
  Scenario: Same
    Given a marker-style chat with 1 earlier turns
  Scenario: Same
    Given a marker-style chat with 1 earlier turns
`)
	writeFeature(t, dir, "a/x.feature", "Feature: X\n  Scenario: One\n    Given a marker-style chat with 1 earlier turns\n")
	writeFeature(t, dir, "b/x.feature", "Feature: X\n  Scenario: One\n    Given a marker-style chat with 2 earlier turns\n")
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"same name and steps in one file", []string{"copies.feature"}, "at lines 2 and 4 have the same name and the same steps"},
		{"two files that name a recording alike", []string{"a/x.feature", "b/x.feature"}, "would both be recorded as x/one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Select(Selection{Root: dir, Dir: dir, Paths: tt.paths})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}
