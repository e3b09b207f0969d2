package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/harness/lsp"
)

// shopFeature plants six problems, one of each kind a dry run names.
const shopFeature = `Feature: Shop
  Scenario: Five planted problems
    Given the site "sites/missing.json"
    And the engine reads the chat with the adapter file "sites/bad.adapter.json"
    When I sned "hello"
    And I wait up to 99999999999999999999 ms for the answer
    And alice creates a job with key "k1" and input {"prompt": }

`

// plantedProblems are the problems of the scratch project: file, line
// and code.
var plantedProblems = []struct {
	name string
	file string
	line int
	code string
	says string
}{
	{"missing profile", "shop.feature", 3, "missing-file", `the site profile "sites/missing.json"`},
	{"bad adapter field", "shop.feature", 4, "bad-file", "turn.speakr: unknown field"},
	{"undefined step", "shop.feature", 5, "undefined-step", `did you mean:`},
	{"bad number", "shop.feature", 6, "bad-argument", `"99999999999999999999" is out of range`},
	{"bad JSON", "shop.feature", 7, "bad-argument", "argument 3 is not JSON"},
	// the repository's recording of an outline's rows, a Given edited
	{"stale recording", "answer_groups.feature", 22, "stale-recording", "was made from other steps (recordings/sessions/answer-groups/"},
	{"stale recording (second row)", "answer_groups.feature", 23, "stale-recording", "was made from other steps"},
	// the first scenario has no recording either (the dry run says so too)
	{"no recording", "shop.feature", 2, "no-recording", "has no recording and no golden trace"},
}

// scratchShop writes the planted project into a directory outside the
// checkout and returns it.
func scratchShop(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := harness.CopyProject(checkoutRoot(t), dir, "answer_groups.feature"); err != nil {
		t.Fatal(err)
	}
	ag := filepath.Join(dir, "features", "answer_groups.feature")
	data, err := os.ReadFile(ag)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "with 4 earlier turns", "with 5 earlier turns", 1)
	if edited == string(data) {
		t.Fatal("answer_groups.feature: no step to edit")
	}
	files := map[string]string{
		"features/shop.feature":          shopFeature,
		"features/answer_groups.feature": edited,
		"sites/bad.adapter.json":         `{"version": 1, "turn": {"selector": "li.msg", "speakr": {"attribute": "data-role"}}}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDryRunNamesEachPlantedProblem runs `run --dry-run` on a scratch
// project outside the checkout with six planted problems: each is named
// with its file:line and code, the run exits 3, and no file is written.
func TestDryRunNamesEachPlantedProblem(t *testing.T) {
	dir := scratchShop(t)
	before := listFiles(t, dir)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--dry-run", "--root", dir}, &stdout, &stderr)
	if code != exitDryRunProblems {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitDryRunProblems, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, p := range plantedProblems {
		t.Run(p.name, func(t *testing.T) {
			line := problemLine(out, p.file, p.line, p.code)
			if line == "" {
				t.Fatalf("no %s at %s:%d in:\n%s", p.code, p.file, p.line, out)
			}
			if !strings.Contains(line, p.says) {
				t.Errorf("%s:%d: %s says %q, want it to mention %q", p.file, p.line, p.code, line, p.says)
			}
		})
	}
	if n := len(problemStart.FindAllString(out, -1)); n != len(plantedProblems) {
		t.Errorf("%d problems named, want %d:\n%s", n, len(plantedProblems), out)
	}
	if !strings.Contains(stderr.String(), "the dry run found problems: 8 in 19 scenarios") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if after := listFiles(t, dir); !slices.Equal(before, after) {
		t.Errorf("the dry run wrote files: before %v, after %v", before, after)
	}
}

// problemStart begins each problem the dry run prints.
var problemStart = regexp.MustCompile(`(?m)^\S*\.feature:\d+: `)

// problemLine is the problem's text (to the next problem) of the output.
func problemLine(out, file string, line int, code string) string {
	key := fmt.Sprintf("/%s:%d: %s: ", file, line, code)
	i := strings.Index(out, key)
	if i < 0 {
		return ""
	}
	rest := out[i+len(key):]
	if j := problemStart.FindStringIndex(rest); j != nil {
		rest = rest[:j[0]]
	}
	return rest
}

// TestDryRunCleanProject: a project with no problem passes the dry run
// (exit 0).
func TestDryRunCleanProject(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "features", "ok.feature")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("Feature: OK\n  Scenario: Only scripting\n    Given a marker-style chat with 2 earlier turns\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(dir, "recordings", "golden", "ok", "only-scripting.golden")
	if err := os.MkdirAll(filepath.Dir(g), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", "--dry-run", "--root", dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestDryRunLSPReportsTheSame opens the planted feature file in the
// language server: it reports the dry run's problems at the same lines
// with the same codes.
func TestDryRunLSPReportsTheSame(t *testing.T) {
	dir := scratchShop(t)
	c, _ := startLSP(t, dir)
	ctx := timeout(t)
	got := map[string]bool{}
	n := 0
	for _, name := range []string{"shop.feature", "answer_groups.feature"} {
		path := filepath.Join(dir, "features", name)
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		uri := lsp.PathURI(path)
		if err := c.Open(uri, 1, string(text)); err != nil {
			t.Fatal(err)
		}
		diags, err := c.Diagnostics(ctx, uri, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			got[fmt.Sprintf("%s:%d %s", name, d.Range.Start.Line+1, d.Code)] = true
		}
		n += len(diags)
	}
	for _, p := range plantedProblems {
		if !got[fmt.Sprintf("%s:%d %s", p.file, p.line, p.code)] {
			t.Errorf("%s: no %s diagnostic at %s:%d; got %v", p.name, p.code, p.file, p.line, got)
		}
	}
	if n != len(plantedProblems) {
		t.Errorf("%d diagnostics, want %d: %v", n, len(plantedProblems), got)
	}
}

// BenchmarkDryRun is `run --dry-run` over the planted scratch project,
// in process (go test ./cmd/replaylab -run '^$' -bench DryRun).
func BenchmarkDryRun(b *testing.B) {
	dir := scratchShop(b)
	for b.Loop() {
		if code := run(context.Background(), []string{"run", "--dry-run", "--root", dir}, io.Discard, io.Discard); code != exitDryRunProblems {
			b.Fatalf("exit %d", code)
		}
	}
}
