package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/harness/lsp/lsptest"
)

// vocab is a small catalogue: enough to tell defined from undefined
// steps and to rank the closest.
type vocab []lsp.Step

func (v vocab) Steps() []lsp.Step { return v }

// Suggest ranks by the number of shared words (the real ranking is the
// harness's; the server only shows what it returns).
func (v vocab) Suggest(text string, n int) []lsp.Step {
	out := append([]lsp.Step(nil), v...)
	score := func(s lsp.Step) int {
		k := 0
		for _, w := range strings.Fields(text) {
			if strings.Contains(s.Example, w) {
				k++
			}
		}
		return k
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if score(out[j]) > score(out[i]) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out[:min(n, len(out))]
}

var testVocab = vocab{
	{Group: "Pages", Pattern: `^I open the page "([^"]*)"$`, Meaning: "open a page", Example: `When I open the page "/home"`, Kind: lsp.KindAction, NeedsSim: true, File: "steps/pages.go", Line: 3},
	{Group: "Pages", Pattern: `^I wait (\d+) ms$`, Meaning: "wait", Example: `When I wait 300 ms`, Defaults: "none"},
	{Group: "Pages", Pattern: `^the page shows:$`, Meaning: "a table of texts", Example: `Then the page shows:`, Table: "| text |\n| Hello |", Kind: lsp.KindResult},
	{Group: "Money", Pattern: `^I pay \$(\d+)$`, Meaning: "pay", Example: `When I pay $5`},
}

// project writes features into a scratch root and returns it.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, "features", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func server(t *testing.T, root string) *lsp.Server {
	t.Helper()
	s, err := lsp.NewServer(lsp.Options{Root: root, Vocabulary: testVocab}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Initialize()
	return s
}

func TestDiagnostics(t *testing.T) {
	root := project(t, map[string]string{"a.feature": "@smoke\nFeature: A\n  @fast\n  Scenario: S\n    When I wait 3 ms\n"})
	tests := []struct {
		name string
		text string
		want []string // code@line (1-based), in order
	}{
		{"clean", "Feature: F\n  Scenario: S\n    When I open the page \"/\"\n    And I wait 10 ms\n", nil},
		{"undefined", "Feature: F\n  Scenario: S\n    When I opne the page \"/\"\n", []string{"undefined-step@3"}},
		{"outline rows filled in", "Feature: F\n  Scenario Outline: S\n    When I wait <n> ms\n    Examples:\n      | n |\n      | 5 |\n      | x |\n", []string{"undefined-step@3"}},
		{"malformed", "Feature: F\n  Scenario: S\n    When I wait 3 ms\n  Nonsense here\n    | a |\n", []string{"gherkin@4"}},
		{"outline without examples", "Feature: F\n  Scenario Outline: S\n    When I wait 3 ms\n", []string{"no-examples@2"}},
		{"tags comment parses and matches", "# tags: @fast and not @slow\nFeature: F\n  Scenario: S\n    When I wait 3 ms\n", nil},
		{"tags comment invalid", "# tags: @fast and\nFeature: F\n  Scenario: S\n    When I wait 3 ms\n", []string{"tag-expression@1"}},
		{"tags comment matches nothing", "# tags: @nothing\nFeature: F\n  Scenario: S\n    When I wait 3 ms\n", []string{"tags-match-none@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server(t, root)
			diags := s.Open(lsp.PathURI(filepath.Join(root, "features", "x.feature")), 1, tt.text)
			var got []string
			for _, d := range diags {
				got = append(got, d.Code+"@"+itoa(d.Range.Start.Line+1))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v: %+v", got, tt.want, diags)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOnlyFeatureFiles: a client configured for every text file gets
// nothing for the others.
func TestOnlyFeatureFiles(t *testing.T) {
	root := project(t, nil)
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "notes.txt"))
	if d := s.Open(uri, 1, "When I opne the page\n"); len(d) != 0 {
		t.Fatalf("diagnostics for a text file: %+v", d)
	}
	if l := s.Completion(lsptest.At(uri, 0, 7)); len(l.Items) != 0 {
		t.Fatalf("completion in a text file: %+v", l.Items)
	}
}

func TestUndefinedStepMessageAndFix(t *testing.T) {
	root := project(t, nil)
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	text := "Feature: F\n  Scenario: S — ünïcode\n    When I opne the page \"/é\"\n"
	diags := s.Open(uri, 1, text)
	if len(diags) != 1 {
		t.Fatalf("got %+v", diags)
	}
	d := diags[0]
	if !strings.HasPrefix(d.Message, "undefined step: When I opne the page \"/é\"\ndid you mean:\n  When I open the page \"/home\"\n    (open a page)") {
		t.Fatalf("got message %q", d.Message)
	}
	if d.Range.Start.Character != len("    When ") || d.Range.End.Character != len(`    When I opne the page "/é"`)-1 {
		t.Fatalf("got range %+v (UTF-16 columns)", d.Range)
	}
	acts := s.CodeActions(lsp.CodeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Range: lsp.Range{Start: lsp.Position{Line: 2}, End: lsp.Position{Line: 2}}})
	if len(acts) == 0 || acts[0].Title != `Replace with: I open the page "/home"` || !acts[0].IsPreferred {
		t.Fatalf("got code actions %+v", acts)
	}
	if e := acts[0].Edit.Changes[uri]; len(e) != 1 || e[0].Range != d.Range {
		t.Fatalf("got edit %+v", acts[0].Edit)
	}
}

func TestSnippets(t *testing.T) {
	root := project(t, nil)
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	tests := []struct {
		name, line, label, want string
	}{
		{"quoted", "    When I open", `I open the page "/home"`, `I open the page "${1:/home}"$0`},
		{"number", "    And I wa", "I wait 300 ms", "I wait ${1:300} ms$0"},
		{"table at the step's indentation", "    Then the page", "the page shows:", "the page shows:\n      | text |\n      | Hello |$0"},
		{"dollar escaped", "    When I pay", "I pay $5", `I pay \$${1:5}$0`},
		{"masked parameters", `    When I open the page "/other" `, `I open the page "/home"`, `I open the page "${1:/home}"$0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Open(uri, 1, "Feature: F\n  Scenario: S\n"+tt.line+"\n")
			list := s.Completion(lsptest.At(uri, 2, len(tt.line)))
			for _, it := range list.Items {
				if it.Label == tt.label {
					if it.TextEdit.NewText != tt.want {
						t.Fatalf("got %q, want %q", it.TextEdit.NewText, tt.want)
					}
					return
				}
			}
			t.Fatalf("no item %q in %+v", tt.label, list.Items)
		})
	}
}

func TestTagCompletionAndHover(t *testing.T) {
	root := project(t, map[string]string{
		"a.feature": "@smoke\nFeature: A\n  @fast\n  Scenario: S\n    When I wait 3 ms\n  @fast @GATE-7\n  Scenario: T\n    When I wait 4 ms\n",
	})
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "b.feature"))
	s.Open(uri, 1, "Feature: B\n  @GA\n  Scenario: S\n    When I wait 3 ms\n")
	list := s.Completion(lsptest.At(uri, 1, 5))
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Label+"="+it.Detail)
		if it.TextEdit.Range.Start.Character != 2 || it.TextEdit.Range.End.Character != 5 {
			t.Fatalf("tag edit range %+v", it.TextEdit.Range)
		}
	}
	want := "@fast=2 scenarios in features/,@smoke=2 scenarios in features/,@GA=1 scenario in features/,@GATE-7=1 scenario in features/"
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v\nwant %s", got, want)
	}
	h := s.Hover(lsptest.At(uri, 3, 8))
	if h == nil || !strings.Contains(h.Contents.Value, "*Defaults:* none") {
		t.Fatalf("hover %+v", h)
	}
	s.Open(uri, 2, "# tags: @fast and not @smoke\nFeature: B\n  Scenario: S\n    When I wait 3 ms\n")
	if h := s.Hover(lsptest.At(uri, 0, 12)); h == nil || h.Contents.Value != "`@fast and not @smoke` selects 0 scenarios in features/: `replaylab run --tags '@fast and not @smoke'`" {
		t.Fatalf("hover on a tags comment: %+v", h)
	}
	ah := s.Hover(lsptest.At(lsp.PathURI(filepath.Join(root, "features", "a.feature")), 5, 9))
	if ah == nil || !strings.Contains(ah.Contents.Value, "`@GATE-7`: 1 scenario in features/") {
		t.Fatalf("tag hover %+v", ah)
	}
}

func TestSymbols(t *testing.T) {
	root := project(t, nil)
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	s.Open(uri, 1, `@f
Feature: F
  Background:
    When I wait 1 ms

  @s
  Scenario Outline: O <n>
    When I wait <n> ms

    Examples: small
      | n |
      | 1 |
    @big
    Examples:
      | n |
      | 9 |

  Rule: R
    Scenario: In the rule
      When I wait 2 ms
`)
	var b strings.Builder
	var walk func(syms []lsp.DocumentSymbol, depth int)
	walk = func(syms []lsp.DocumentSymbol, depth int) {
		for _, sy := range syms {
			b.WriteString(strings.Repeat("  ", depth) + sy.Name + " [" + itoa(sy.Range.Start.Line+1) + "-" + itoa(sy.Range.End.Line+1) + "] " + sy.Detail + "\n")
			walk(sy.Children, depth+1)
		}
	}
	walk(s.Symbols(uri), 0)
	want := `Feature: F [1-20] @f
  Background:  [3-4] 
  Scenario Outline: O <n> [6-16] @s
    Examples: small [10-12] 1 row
    Examples: [13-16] 1 row @big
  Rule: R [18-20] 
    Scenario: In the rule [19-20] 
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestDefinition(t *testing.T) {
	root := project(t, nil)
	src := filepath.Join(root, "steps", "pages.go")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("package steps\n\nfunc open() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	s.Open(uri, 1, "Feature: F\n  Scenario: S\n    When I open the page \"/\"\n    And I wait 3 ms\n")
	loc := s.Definition(lsptest.At(uri, 2, 8))
	if loc == nil || loc.URI != lsp.PathURI(src) || loc.Range.Start.Line != 2 {
		t.Fatalf("got %+v, want %s line 2", loc, src)
	}
	if loc := s.Definition(lsptest.At(uri, 3, 8)); loc != nil {
		t.Fatalf("a step with no file: got %+v", loc)
	}
}

// TestProtocol covers the session rules over a real stream: requests
// before initialize, unknown methods, a body that is not JSON, and exit
// with or without shutdown.
func TestProtocol(t *testing.T) {
	root := project(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opt := lsp.Options{Root: root, Vocabulary: testVocab}

	c, errc := lsptest.Pipe(ctx, opt)
	var re *lsp.ResponseError
	if err := c.Call(ctx, "textDocument/hover", lsptest.At("file:///x", 0, 0), nil); !errors.As(err, &re) || re.Code != lsp.CodeServerNotInitialized {
		t.Fatalf("before initialize: got %v", err)
	}
	if _, err := c.Initialize(ctx, lsp.PathURI(root)); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "textDocument/formatting", map[string]any{}, nil); !errors.As(err, &re) || re.Code != lsp.CodeMethodNotFound {
		t.Fatalf("unknown method: got %v", err)
	}
	if err := c.Call(ctx, "textDocument/hover", "not an object", nil); !errors.As(err, &re) || re.Code != lsp.CodeInvalidParams {
		t.Fatalf("bad params: got %v", err)
	}
	if err := c.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, lsp.ErrNoShutdown) {
		t.Fatalf("exit without shutdown: got %v, want ErrNoShutdown", err)
	}

	// framing the server cannot read ends the session with ErrFraming
	r, w := io.Pipe()
	errc2 := make(chan error, 1)
	go func() { errc2 <- lsp.Serve(ctx, r, io.Discard, opt) }()
	go func() { _, _ = io.WriteString(w, "Content-Length: many\r\n\r\n{}"); w.Close() }()
	if err := <-errc2; !errors.Is(err, lsp.ErrFraming) {
		t.Fatalf("bad framing: got %v, want ErrFraming", err)
	}
	if _, err := lsp.NewServer(lsp.Options{}, nil); !errors.Is(err, lsp.ErrNoVocabulary) {
		t.Fatalf("no vocabulary: got %v", err)
	}
}

// TestParseErrorReply: a body that is not JSON is answered with a parse
// error and the session goes on.
func TestParseErrorReply(t *testing.T) {
	root := project(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- lsp.Serve(ctx, inR, outW, lsp.Options{Root: root, Vocabulary: testVocab})
		outW.Close()
	}()
	c := lsptest.New(outR, inW)
	if _, err := io.WriteString(inW, "Content-Length: 5\r\n\r\n{nope"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, lsp.PathURI(root)); err != nil {
		t.Fatalf("initialize after a parse error: %v", err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// madeRecordings says a scenario has no recording until the file
// "made" exists in the root, and that `touch made` fixes it.
type madeRecordings struct{}

func (madeRecordings) Check(root, rel, path string, content []byte) ([]lsp.RecordingState, error) {
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		return []lsp.RecordingState{{Line: 2}}, nil
	}
	return []lsp.RecordingState{{Line: 2, Problem: lsp.CodeNoRecording, Message: "no recording for " + rel + ":2", Command: []string{"touch", "made"}}}, nil
}

// TestRecordingFix: a scenario without a recording is a warning naming
// the command that fixes it; its code action runs that command (for
// real, in the root) and the diagnostics are published again.
func TestRecordingFix(t *testing.T) {
	root := project(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	run := func(ctx context.Context, dir string, words []string) ([]byte, error) {
		cmd := osexec.CommandContext(ctx, words[0], words[1:]...)
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	opt := lsp.Options{Root: root, Vocabulary: testVocab, Recordings: madeRecordings{}, Command: []string{"touch"}, Exec: run}
	c, errc := lsptest.Pipe(ctx, opt)
	if _, err := c.Initialize(ctx, lsp.PathURI(root)); err != nil {
		t.Fatal(err)
	}
	text := "Feature: F\n  Scenario: S\n    When I wait 3 ms\n"
	path := filepath.Join(root, "features", "x.feature")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := lsp.PathURI(path)
	if err := c.Open(uri, 1, text); err != nil {
		t.Fatal(err)
	}
	diags, err := c.Diagnostics(ctx, uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0].Code != lsp.CodeNoRecording || diags[0].Severity != lsp.SeverityWarning || diags[0].Range.Start.Line != 1 ||
		diags[0].Message != "no recording for features/x.feature:2\nfix it with: touch made" {
		t.Fatalf("got %+v", diags)
	}
	var acts []lsp.CodeAction
	if err := c.Call(ctx, "textDocument/codeAction", lsp.CodeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Range: diags[0].Range}, &acts); err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Command == nil || acts[0].Title != "Run: touch made" {
		t.Fatalf("got %+v", acts)
	}
	// unsaved, the command would run other lines: it is not offered
	if err := c.Change(uri, 2, text+"\n"); err != nil {
		t.Fatal(err)
	}
	var unsaved []lsp.CodeAction
	if err := c.Call(ctx, "textDocument/codeAction", lsp.CodeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Range: diags[0].Range}, &unsaved); err != nil || len(unsaved) != 0 {
		t.Fatalf("unsaved: got %+v %v", unsaved, err)
	}
	if err := c.Change(uri, 3, text); err != nil {
		t.Fatal(err)
	}
	var re *lsp.ResponseError
	bad := lsp.ExecuteCommandParams{Command: lsp.CommandRun, Arguments: []json.RawMessage{json.RawMessage(`["rm","-rf","/"]`)}}
	if err := c.Call(ctx, "workspace/executeCommand", bad, nil); !errors.As(err, &re) || re.Code != lsp.CodeInvalidParams {
		t.Fatalf("a command that is not the harness's: got %v", err)
	}
	if err := c.Call(ctx, "workspace/executeCommand", lsp.ExecuteCommandParams{Command: acts[0].Command.Command, Arguments: acts[0].Command.Arguments}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	if msgs := c.Notifications("window/showMessage"); len(msgs) != 1 || !strings.Contains(string(msgs[0].Params), "touch made: done") {
		t.Fatalf("showMessage: %+v", msgs)
	}
	diags, err = c.Diagnostics(ctx, uri, 3)
	if err != nil || len(diags) != 0 {
		t.Fatalf("after the fix: %+v %v", diags, err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestWatchedFiles: a client that registers watchers dynamically is
// asked to watch recordings/ and feature files; a change it reports
// makes the server read the recording state again.
func TestWatchedFiles(t *testing.T) {
	root := project(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, errc := lsptest.Pipe(ctx, lsp.Options{Root: root, Vocabulary: testVocab, Recordings: madeRecordings{}})
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	if err := c.Call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": lsp.PathURI(root), "capabilities": caps}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	if err := c.Open(uri, 1, "Feature: F\n  Scenario: S\n    When I wait 3 ms\n"); err != nil {
		t.Fatal(err)
	}
	if d, err := c.Diagnostics(ctx, uri, 1); err != nil || len(d) != 1 {
		t.Fatalf("before: %+v %v", d, err)
	}
	reg := c.Notifications("client/registerCapability")
	if len(reg) != 1 || !strings.Contains(string(reg[0].Params), `"globPattern":"**/recordings/**"`) {
		t.Fatalf("registration: %+v", reg)
	}
	if err := os.WriteFile(filepath.Join(root, "made"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notes := len(c.Notifications("textDocument/publishDiagnostics"))
	if err := c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": lsp.PathURI(filepath.Join(root, "made")), "type": 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}}, nil); err != nil {
		t.Fatal(err) // answered after the notification: its diagnostics are in
	}
	if n := len(c.Notifications("textDocument/publishDiagnostics")); n != notes+1 {
		t.Fatalf("%d diagnostics published after the change, want 1", n-notes)
	}
	if d, err := c.Diagnostics(ctx, uri, 1); err != nil || len(d) != 0 {
		t.Fatalf("after: %+v %v", d, err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestCompletionRanking: the examples the typed text begins come first,
// shorter first; a typed word must begin a word of the example.
func TestCompletionRanking(t *testing.T) {
	root := project(t, nil)
	s := server(t, root)
	uri := lsp.PathURI(filepath.Join(root, "features", "x.feature"))
	tests := []struct {
		name, line string
		want       []string
	}{
		{"prefix", "    When I", []string{"I pay $5", "I wait 300 ms", `I open the page "/home"`}},
		{"words begin words", "    When page open", []string{`I open the page "/home"`}},
		{"prefix first, then words", "    When I pa", []string{"I pay $5", `I open the page "/home"`}},
		{"nothing begins: the closest", "    When zz", []string{"I open the page \"/home\"", "I wait 300 ms", "the page shows:", "I pay $5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Open(uri, 1, "Feature: F\n  Scenario: S\n"+tt.line+"\n")
			var got []string
			for _, it := range s.Completion(lsptest.At(uri, 2, len(tt.line))).Items {
				got = append(got, it.Label)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
