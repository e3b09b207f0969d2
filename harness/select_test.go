package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/tagexpr"
)

// selectProject is a scratch project for the selection tests; line
// numbers matter (they are what file:LINE selects).
const selectFeature = `@feat
Feature: Shop
  Background:
    Given a marker-style chat with 2 earlier turns

  @one
  Scenario: First
    Given a marker-style chat with 1 earlier turns

  @two @slow
  Scenario: Second
    Given a marker-style chat with 3 earlier turns

  Scenario Outline: Styled <style>
    Given a <style>-style chat with 2 earlier turns

    @rows
    Examples:
      | style   |
      | marker  |
      | heading |

  Scenario: Same name
    Given a marker-style chat with 1 earlier turns

  Scenario: Same name
    Given a marker-style chat with 2 earlier turns
`

func selectProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"features/shop.feature":  selectFeature,
		"features/empty.feature": "",
		"features/other.feature": "Feature: Other\n  @two\n  Scenario: Elsewhere\n    Given a marker-style chat with 1 earlier turns\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func ids(scs []Scenario) string {
	var out []string
	for _, sc := range scs {
		out = append(out, sc.ID())
	}
	return strings.Join(out, " ")
}

func TestSelect(t *testing.T) {
	root := selectProject(t)
	tests := []struct {
		name  string
		paths []string
		tags  string
		want  string
	}{
		{"everything in file order", nil, "", "features/other.feature:3 features/shop.feature:7 features/shop.feature:11 features/shop.feature:20 features/shop.feature:21 features/shop.feature:23 features/shop.feature:26"},
		{"a scenario's own line", []string{"features/shop.feature:7"}, "", "features/shop.feature:7"},
		{"a step line inside a scenario", []string{"features/shop.feature:12"}, "", "features/shop.feature:11"},
		{"a tag line of a scenario", []string{"features/shop.feature:10"}, "", "features/shop.feature:11"},
		{"an outline's example row", []string{"features/shop.feature:21"}, "", "features/shop.feature:21"},
		{"an outline's line selects every row", []string{"features/shop.feature:14"}, "", "features/shop.feature:20 features/shop.feature:21"},
		{"an Examples line selects its rows", []string{"features/shop.feature:18"}, "", "features/shop.feature:20 features/shop.feature:21"},
		{"several lines of one file", []string{"features/shop.feature:26:7"}, "", "features/shop.feature:7 features/shop.feature:26"},
		{"several file:line arguments", []string{"features/shop.feature:21", "features/other.feature:4"}, "", "features/shop.feature:21 features/other.feature:3"},
		{"a whole file and one of its lines", []string{"features/other.feature", "features/other.feature:3"}, "", "features/other.feature:3"},
		{"standard tag expression", nil, "@two and not @slow", "features/other.feature:3"},
		{"or", nil, "@one or @slow", "features/shop.feature:7 features/shop.feature:11"},
		{"not with parentheses", []string{"features/shop.feature"}, "not (@one or @two or @rows)", "features/shop.feature:23 features/shop.feature:26"},
		{"examples tags", nil, "@rows", "features/shop.feature:20 features/shop.feature:21"},
		{"feature tags", []string{"features"}, "@feat and @two", "features/shop.feature:11"},
		{"godog's old form", nil, "@two && ~@slow", "features/other.feature:3"},
		{"godog's old comma", nil, "@one,@slow", "features/shop.feature:7 features/shop.feature:11"},
		{"lines and tags together", []string{"features/shop.feature:14"}, "@rows", "features/shop.feature:20 features/shop.feature:21"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Select(Selection{Root: root, Dir: root, Paths: tc.paths, Tags: tc.tags})
			if err != nil {
				t.Fatal(err)
			}
			if ids(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", ids(got), tc.want)
			}
		})
	}
}

func TestSelectErrors(t *testing.T) {
	root := selectProject(t)
	outline := filepath.Join(root, "features", "outline.feature")
	if err := os.WriteFile(outline, []byte("Feature: O\n\n  Scenario Outline: No rows <x>\n    Given a <x>-style chat with 2 earlier turns\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(root, "broken", "b.feature")
	if err := os.MkdirAll(filepath.Dir(broken), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("Feature: B\n  Scenario: S\n    Given x\n  Examples oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		paths []string
		tags  string
		bad   bool // bad input (exit 2); else nothing selected (exit 1)
		want  string
	}{
		{"tags that match nothing", []string{"features/shop.feature"}, "@nonexistent", false, `the tag expression "@nonexistent" matches no scenario in features/shop.feature`},
		{"an empty feature file alone", []string{"features/empty.feature"}, "", false, "features/empty.feature has no scenarios"},
		{"a line outside every scenario", []string{"features/shop.feature:4"}, "", false, "features/shop.feature:4 is not inside a scenario"},
		{"a line past the end", []string{"features/other.feature:99"}, "", false, "features/other.feature:99 is not inside a scenario"},
		{"an invalid tag expression", []string{"features/shop.feature"}, "@a &&", true, `Tag expression "@a &&" could not be parsed because of syntax error: Expected operand.`},
		{"an unclosed parenthesis", []string{"features/shop.feature"}, "(@a", true, `Tag expression "(@a" could not be parsed because of syntax error: Unmatched (.`},
		{"a missing path", []string{"features/nope.feature:3"}, "", true, "feature path features/nope.feature: no such file"},
		{"an outline with no Examples", []string{"features/outline.feature"}, "", true, `features/outline.feature:3: malformed feature file: Scenario Outline "No rows <x>" has no Examples`},
		{"a malformed file", []string{"broken/b.feature"}, "", true, "broken/b.feature: malformed feature file: Parser errors: (4:3)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Select(Selection{Root: root, Dir: root, Paths: tc.paths, Tags: tc.tags})
			if err == nil {
				t.Fatalf("selected %s; want an error", ids(got))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, want it to contain %q", err, tc.want)
			}
			var bad *BadSelectionError
			if isBad := errors.As(err, &bad); isBad != tc.bad {
				t.Fatalf("bad input: got %v, want %v (%v)", isBad, tc.bad, err)
			}
			if !tc.bad && !errors.Is(err, ErrNoScenarios) {
				t.Fatalf("%v does not wrap ErrNoScenarios", err)
			}
			if want := map[bool]int{true: 2, false: 1}[tc.bad]; ExitCode(err) != want {
				t.Fatalf("exit code %d, want %d", ExitCode(err), want)
			}
		})
	}
	if _, err := Select(Selection{Root: root, Dir: root, Tags: "@a and"}); !errors.Is(err, tagexpr.ErrSyntax) {
		t.Fatalf("a tag syntax error is not tagexpr.ErrSyntax: %v", err)
	}
}

// TestSelectResolvesFromTheCurrentDirectoryFirst: running from inside
// features/ finds x.feature there; a path relative to the root works from
// anywhere.
func TestSelectResolvesFromTheCurrentDirectoryFirst(t *testing.T) {
	root := selectProject(t)
	inside := filepath.Join(root, "features")
	got, err := Select(Selection{Root: root, Dir: inside, Paths: []string{"other.feature:3"}})
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "features/other.feature:3" {
		t.Fatalf("from features/: got %s", ids(got))
	}
	got, err = Select(Selection{Root: root, Dir: t.TempDir(), Paths: []string{"features/other.feature"}})
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "features/other.feature:3" {
		t.Fatalf("from elsewhere: got %s", ids(got))
	}
}

// TestSlugsDoNotDependOnTheSelection: a scenario's recording name is the
// same whether it runs alone or with the rest of its file (a repeated
// name keeps its -2).
func TestSlugsDoNotDependOnTheSelection(t *testing.T) {
	root := selectProject(t)
	all, err := Select(Selection{Root: root, Dir: root, Paths: []string{"features/shop.feature"}})
	if err != nil {
		t.Fatal(err)
	}
	slugs := map[string]string{}
	for _, sc := range all {
		slugs[sc.ID()] = sc.Slug
	}
	if slugs["features/shop.feature:26"] != "shop/same-name-2" || slugs["features/shop.feature:20"] != "shop/styled-marker" {
		t.Fatalf("slugs: %v", slugs)
	}
	for id, want := range slugs {
		alone, err := Select(Selection{Root: root, Dir: root, Paths: []string{id}})
		if err != nil {
			t.Fatal(err)
		}
		if len(alone) != 1 || alone[0].Slug != want {
			t.Fatalf("%s alone: %+v, want slug %s", id, alone, want)
		}
	}
}

// TestServedKeepsLines: godog compiles exactly the kept pickles, at their
// own lines, from the blanked file.
func TestServedKeepsLines(t *testing.T) {
	root := selectProject(t)
	sel, err := Select(Selection{Root: root, Dir: root, Paths: []string{"features/shop.feature:21:11"}})
	if err != nil {
		t.Fatal(err)
	}
	fsys, paths, err := serve(sel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || paths[0] != "features/shop.feature" {
		t.Fatalf("paths %v", paths)
	}
	served := filepath.Join(t.TempDir(), "shop.feature")
	if err := os.WriteFile(served, fsys["features/shop.feature"], 0o644); err != nil {
		t.Fatal(err)
	}
	pf, err := parseFeature(served, "features/shop.feature")
	if err != nil {
		t.Fatalf("the served file does not parse: %v", err)
	}
	if ids(pf.all) != "features/shop.feature:11 features/shop.feature:21" {
		t.Fatalf("the served file compiles to %s", ids(pf.all))
	}
	if strings.Count(string(fsys["features/shop.feature"]), "\n") != strings.Count(selectFeature, "\n") {
		t.Fatal("the served file has other line numbers")
	}
}
