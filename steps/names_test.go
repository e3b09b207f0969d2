package steps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
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

// pickles parses a file as godog does and returns its pickles.
func pickles(t *testing.T, path string) []*messages.Pickle {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := (&messages.Incrementing{}).NewId
	doc, err := gherkin.ParseGherkinDocument(f, ids)
	if err != nil {
		t.Fatal(err)
	}
	return gherkin.Pickles(*doc, path, ids)
}

func TestScenarioNamesFollowThePlaceInTheFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFeature(t, dir, "f/rows.feature", `Feature: Rows
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
	ps := pickles(t, path)
	want := []string{"rows/row", "rows/row-2", "rows/row-3", "rows/row-4"}
	tests := []struct {
		name  string
		order []int
	}{
		{"in file order", []int{0, 1, 2, 3}},
		{"reversed", []int{3, 2, 1, 0}},
		{"only the last row, with a line selection in the uri", []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n scenarioNames
			for _, i := range tt.order {
				p := *ps[i]
				if len(tt.order) == 1 {
					p.Uri += ":7"
				}
				got, err := n.name(&p)
				if err != nil {
					t.Fatal(err)
				}
				if got != want[i] {
					t.Errorf("pickle %d is named %s, want %s", i, got, want[i])
				}
			}
		})
	}
}

func TestScenarioNamesRefuseWhatCannotBeToldApart(t *testing.T) {
	dir := t.TempDir()
	copies := writeFeature(t, dir, "copies.feature", `Feature: Copies
  Scenario: Same
    Given a marker-style chat with 1 earlier turns
  Scenario: Same
    Given a marker-style chat with 1 earlier turns
`)
	a := writeFeature(t, dir, "a/x.feature", "Feature: X\n  Scenario: One\n    Given a marker-style chat with 1 earlier turns\n")
	b := writeFeature(t, dir, "b/x.feature", "Feature: X\n  Scenario: One\n    Given a marker-style chat with 2 earlier turns\n")
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"same name and steps in one file", []string{copies}, "at lines 2 and 4 have the same name and the same steps"},
		{"two files that name a recording alike", []string{a, b}, "would both be recorded as x/one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n scenarioNames
			var last error
			for _, path := range tt.paths {
				for _, p := range pickles(t, path) {
					if _, err := n.name(p); err != nil {
						last = err
					}
				}
			}
			if last == nil || !strings.Contains(last.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", last, tt.want)
			}
		})
	}
}
