package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitHubFormat (ECO-2) runs a feature with a broken golden and an
// undefined step under --format github: each is an ::error workflow
// command on its line, the job summary is appended to
// $GITHUB_STEP_SUMMARY, and the drift's hint, read back from the
// annotation, is a command that fixes the golden.
func TestGitHubFormat(t *testing.T) {
	root := scratchProject(t, "locator")
	golden := filepath.Join(root, "recordings", "golden", "locator", "exact-role-and-name-href-to-disambiguate.golden")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, append(data, "navigate page=main url=elsewhere\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	undefined := "Feature: Not written yet\n\n  Scenario: A step nobody wrote\n    Given a marker-style chat with 2 earlier turns\n    And a step nobody wrote\n"
	if err := os.WriteFile(filepath.Join(root, "features", "eco_undefined.feature"), []byte(undefined), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_WORKSPACE", root)
	code, out, stderr := runCLI(t, "run", "--root", root, "--format", "github")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, out, stderr)
	}
	var drift, undef string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch {
		case strings.HasPrefix(line, "::error file=features/locator.feature,line=7,title=golden drift%3A Exact role and name%2C href to disambiguate::"):
			drift = line
		case strings.HasPrefix(line, "::error file=features/eco_undefined.feature,line=5,title=undefined step%3A A step nobody wrote::"):
			undef = line
		case strings.HasPrefix(line, "::"):
			t.Errorf("an annotation for a scenario that passed: %s", line)
		}
	}
	if drift == "" || undef == "" {
		t.Fatalf("want a drift and an undefined annotation, got:\n%s", out)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### replaylab: failed", "| Exact role and name, href to disambiguate | `features/locator.feature:7` | golden drift |",
		"| A step nobody wrote | `features/eco_undefined.feature:5` | undefined step |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the job summary lacks %q:\n%s", want, md)
		}
	}

	// the hint in the annotation, unescaped, rewrites the golden
	_, msg, _ := strings.Cut(drift, "::error ")
	_, msg, _ = strings.Cut(msg, "::")
	msg = strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(msg)
	_, hint, ok := strings.Cut(msg, "rewrite the golden with: ")
	if !ok {
		t.Fatalf("the drift annotation has no hint: %s", msg)
	}
	hint, _, _ = strings.Cut(hint, "\n")
	words := strings.Fields(hint)
	if len(words) < 3 || words[1] != "run" || !strings.Contains(hint, "--update") { // words[0]: the binary as invoked
		t.Fatalf("hint %q is not a replaylab run --update command", hint)
	}
	if code, out, stderr := runCLI(t, words[1:]...); code != exitOK {
		t.Fatalf("the hint %q: exit %d\n%s\n%s", hint, code, out, stderr)
	}
	if code, out, stderr := runCLI(t, "run", "--root", root, "--format", "github", "features/locator.feature"); code != exitOK || strings.Contains(out, "::error") {
		t.Fatalf("after the hint: exit %d\n%s\n%s", code, out, stderr)
	}
}
