package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	badVersion := filepath.Join(dir, "v9.json")
	if err := os.WriteFile(badVersion, []byte(`{"version":9,"url":"u","frames":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "usage"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"run", "--bogus"}, "flag provided but not defined"},
		{"bad driver", []string{"run", "--driver", "firefox"}, "--driver must be replay or browser"},
		{"bad format", []string{"run", "--format", "xml"}, `unknown formatter "xml"`},
		{"message format without a file", []string{"run", "--root", "../..", "--format", "message", "features/clock.feature"}, "message:FILE"},
		{"bad concurrency", []string{"run", "--concurrency", "0"}, "--concurrency"},
		{"cdp with a run that starts no browser", []string{"run", "--cdp", "ws://127.0.0.1:1/devtools/browser/x"}, "--cdp attaches the browser driver"},
		{"prune with a selection", []string{"run", "--root", "../..", "--prune", "features/harness.feature"}, "--prune removes what no scenario names"},
		{"missing feature path", []string{"run", "--root", "../..", "features/nope.feature"}, "features/nope.feature"},
		{"observe missing file", []string{"observe", "/no/such/page.html"}, "/no/such/page.html"},
		{"observe capture of another version", []string{"observe", badVersion}, "version 9"},
		{"observe bad view", []string{"observe", "--view", "huge", badVersion}, "--view"},
		{"observe two sources", []string{"observe", "a.html", "b.html"}, "exactly one SOURCE"},
		{"observe unknown adapter", []string{"observe", "--adapter", "nope", "a.html"}, "--adapter"},
		{"find without role", []string{"find", "page.html"}, "--role is required"},
		{"find bad limit", []string{"find", "--role", "link", "--limit", "0", "page.html"}, "--limit"},
		{"sim off loopback", []string{"sim", "--addr", "0.0.0.0:0"}, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Fatalf("stderr %q does not mention %q", stderr, tt.want)
			}
		})
	}
}

func TestObserveAndFindJSON(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.html")
	html := `<nav><a href="/a">Docs</a><a href="/b">Docs</a></nav>
<div data-message-author-role="assistant" data-message-id="m1"><p>Hello</p><button>Copy</button></div>
<textarea aria-label="Message"></textarea><button>Send</button><p>unclosed <b>markup`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "observe", "--json", page)
	if code != exitOK {
		t.Fatalf("observe: exit %d: %s", code, stderr)
	}
	var obs struct {
		View     string `json:"view"`
		Complete bool   `json:"complete"`
		Elements []struct {
			Ref, Role, Name, Group string
		} `json:"elements"`
		Groups []struct{ ID, Rule, State, Text string } `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &obs); err != nil {
		t.Fatalf("observe --json is not JSON: %v\n%s", err, out)
	}
	if obs.View != "full" || len(obs.Groups) != 1 || obs.Groups[0].ID != "m1" || obs.Groups[0].Text != "Hello" || obs.Elements[0].Role != "textbox" {
		t.Fatalf("observe: %+v", obs)
	}
	code, out, _ = runCLI(t, "find", "--role", "link", "--name", "Docs", "--json", page)
	if code != exitOK {
		t.Fatalf("find: exit %d", code)
	}
	var f struct {
		Selection struct{ Total, Matched int }
		Resolve   struct {
			Status string
			Count  int
		}
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	if f.Selection.Matched != 2 || f.Resolve.Status != "TARGET_AMBIGUOUS" || f.Resolve.Count != 2 {
		t.Fatalf("find: %+v", f)
	}
}

func TestStepsPrintsTheCatalogue(t *testing.T) {
	code, out, _ := runCLI(t, "steps")
	if code != exitOK || !strings.Contains(out, "Example: `") || !strings.Contains(out, "I wait for the answer") {
		t.Fatalf("steps: exit %d\n%s", code, out)
	}
}

func TestRunReplaysTheFeatures(t *testing.T) {
	code, out, stderr := runCLI(t, "run", "--root", "../..", "--format", "progress")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestRunFromAnywhere runs the embedded features and recordings from a
// directory with no checkout, as an installed binary would.
func TestRunFromAnywhere(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, out, stderr := runCLI(t, "run", "--format", "progress", "--tags", "~@mcp")
	if code != exitOK {
		t.Fatalf("run from %s: exit %d\n%s\n%s", dir, code, out, stderr)
	}
	if !strings.Contains(stderr, "running replaylab's own built-in suite") || !strings.Contains(stderr, "--root DIR") {
		t.Fatalf("the run did not use the embedded copy:\n%s", stderr)
	}
}

// TestRunSelection: the selection's exit codes, and a run from inside
// features/ that finds its file and the project's recordings (issue 13).
func TestRunSelection(t *testing.T) {
	root := t.TempDir()
	feature := "Feature: X\n  @fast\n  Scenario: Only scripting\n    Given a marker-style chat with 1 earlier turns\n"
	if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "features", "x.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "run", "--root", root, "--update", "--format", "progress"); code != exitOK {
		t.Fatalf("--update: exit %d: %s", code, stderr)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"standard tags", []string{"--tags", "@fast or @slow"}, exitOK, ""},
		{"not", []string{"--tags", "not @fast"}, exitFailed, `the tag expression "not @fast" matches no scenario`},
		{"unclosed parenthesis", []string{"--tags", "(@fast"}, exitBadInput, `Tag expression "(@fast" could not be parsed because of syntax error: Unmatched (.`},
		{"dangling &&", []string{"--tags", "@fast &&"}, exitBadInput, "syntax error: Expected operand."},
		{"no match", []string{"--tags", "@nonexistent"}, exitFailed, "no scenario selected"},
		{"no match allowed", []string{"--tags", "@nonexistent", "--allow-empty"}, exitOK, "allowed by --allow-empty"},
		{"a line", []string{"features/x.feature:4"}, exitOK, ""},
		{"a line outside", []string{"features/x.feature:1"}, exitFailed, "features/x.feature:1 is not inside a scenario"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"run", "--root", root, "--format", "progress"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, want %d; stderr %q should mention %q", code, tt.code, stderr, tt.want)
			}
		})
	}
	t.Run("from inside features", func(t *testing.T) {
		t.Chdir(filepath.Join(root, "features"))
		code, _, stderr := runCLI(t, "run", "--format", "progress", "x.feature:3")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "root="+root) {
			t.Fatalf("the run did not find the project root %s: %s", root, stderr)
		}
	})
}
