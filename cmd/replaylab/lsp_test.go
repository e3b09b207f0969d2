package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/harness/lsp/lsptest"
	"github.com/replaylab/replaylab/internal/selftest"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// checkoutRoot is this checkout's root (features/, recordings/).
func checkoutRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// startLSP serves the real catalogue in this process over pipes and
// initializes a client with root as its workspace.
func startLSP(t *testing.T, root string) (*lsptest.Client, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, errc := lsptest.Pipe(ctx, lspOptions(""))
	ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
	defer icancel()
	res, err := c.Initialize(ictx, lsp.PathURI(root))
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != lsp.ServerName {
		t.Fatalf("serverInfo %+v", res.ServerInfo)
	}
	return c, errc
}

func timeout(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestLSPSession drives one editor session over a pipe: initialize,
// didOpen of a file with a misspelt step, its diagnostics, completion,
// hover and definition, didChange fixing the step, document symbols,
// shutdown and exit.
func TestLSPSession(t *testing.T) {
	root := checkoutRoot(t)
	c, errc := startLSP(t, root)
	ctx := timeout(t)
	uri := lsp.PathURI(filepath.Join(root, "features", "lsp-scratch.feature"))
	text := "Feature: Scratch\n  Scenario: Typo\n    When I opne the sim page \"/duplicates\"\n    Then the page text contains \"Archive\"\n    When I open the s\n"
	if err := c.Open(uri, 1, text); err != nil {
		t.Fatal(err)
	}
	diags, err := c.Diagnostics(ctx, uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	undef := byCode(diags, lsp.CodeUndefined)
	if len(undef) != 2 {
		t.Fatalf("got %d undefined-step diagnostics, want 2 (lines 3 and 5): %+v", len(undef), diags)
	}
	d := undef[0]
	if d.Range.Start.Line != 2 || d.Severity != lsp.SeverityError {
		t.Fatalf("got the undefined step at line %d severity %d, want line 2 severity 1", d.Range.Start.Line, d.Severity)
	}
	first := harness.Suggest(vocabulary.Catalogue(selftest.Groups()...), `I opne the sim page "/duplicates"`, 1)[0].Example
	if !strings.Contains(d.Message, "did you mean:\n  "+first) || first != `When I open the sim page "/sidebar"` {
		t.Fatalf("got message %q, want the closest step %q first", d.Message, first)
	}

	norec := byCode(diags, lsp.CodeNoRecording)
	if len(norec) != 1 || norec[0].Range.Start.Line != 1 || norec[0].Severity != lsp.SeverityWarning ||
		!strings.HasSuffix(norec[0].Message, "fix it with: "+harness.ShellJoin(invokedAs())+" --mode record-once features/lsp-scratch.feature:2") {
		t.Fatalf("got %+v, want a warning on line 2 naming the command that records the scenario", norec)
	}

	var list lsp.CompletionList
	if err := c.Call(ctx, "textDocument/completion", lsptest.At(uri, 4, len("    When I open the s")), &list); err != nil {
		t.Fatal(err)
	}
	item, ok := findItem(list, `I open the sim page "/sidebar"`)
	if !ok {
		t.Fatalf("completion after %q does not offer the sim-page step: %v", "When I open the s", labels(list))
	}
	if got, want := item.TextEdit.NewText, `I open the sim page "${1:/sidebar}"$0`; got != want {
		t.Fatalf("got snippet %q, want %q", got, want)
	}
	if r := item.TextEdit.Range; r.Start.Line != 4 || r.Start.Character != len("    When ") || r.End.Character != len("    When I open the s") {
		t.Fatalf("got edit range %+v", r)
	}
	if item.InsertTextFormat != lsp.InsertSnippet || item.Documentation == nil || !strings.Contains(item.Documentation.Value, "Needs the sim") {
		t.Fatalf("got item %+v, want a snippet documented as needing the sim", item)
	}

	var hover lsp.Hover
	if err := c.Call(ctx, "textDocument/hover", lsptest.At(uri, 3, 10), &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "page text") || !strings.Contains(hover.Contents.Value, "Implemented by") {
		t.Fatalf("hover: %q", hover.Contents.Value)
	}

	var loc lsp.Location
	if err := c.Call(ctx, "textDocument/definition", lsptest.At(uri, 3, 10), &loc); err != nil {
		t.Fatal(err)
	}
	assertFuncAt(t, loc)

	fixed := strings.Replace(text, "opne", "open", 1)
	fixed = strings.Replace(fixed, "When I open the s\n", "", 1)
	if err := c.Change(uri, 2, fixed); err != nil {
		t.Fatal(err)
	}
	diags, err = c.Diagnostics(ctx, uri, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(byCode(diags, lsp.CodeUndefined)); n != 0 {
		t.Fatalf("after the fix %d undefined steps: %+v", n, diags)
	}

	var syms []lsp.DocumentSymbol
	if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) != 1 || syms[0].Name != "Feature: Scratch" || len(syms[0].Children) != 1 || syms[0].Children[0].Name != "Scenario: Typo" {
		t.Fatalf("symbols %+v", syms)
	}

	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Serve after shutdown and exit: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not end after exit")
	}
	<-c.Done()
	if err := c.Err(); err != nil {
		t.Fatalf("the stream ended with %v", err)
	}
}

// assertFuncAt checks that a definition is a Go function declared at
// its line.
func assertFuncAt(t *testing.T, loc lsp.Location) {
	t.Helper()
	path := lsp.URIPath(loc.URI)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("definition %s: %v", loc.URI, err)
	}
	lines := strings.Split(string(data), "\n")
	l := loc.Range.Start.Line
	if !strings.HasSuffix(path, ".go") || l >= len(lines) || !strings.Contains(lines[l], "func") {
		t.Fatalf("definition %s:%d is not a Go function: %q", path, l+1, lines[min(l, len(lines)-1)])
	}
}

func byCode(diags []lsp.Diagnostic, code string) []lsp.Diagnostic {
	var out []lsp.Diagnostic
	for _, d := range diags {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

func findItem(list lsp.CompletionList, label string) (lsp.CompletionItem, bool) {
	for _, it := range list.Items {
		if it.Label == label {
			return it, true
		}
	}
	return lsp.CompletionItem{}, false
}

func labels(list lsp.CompletionList) []string {
	var out []string
	for _, it := range list.Items {
		out = append(out, it.Label)
	}
	return out
}

// TestLSPCheckoutFeatures opens every feature file of the checkout: no
// diagnostic at all (every step defined, every scenario recorded with its
// golden), and hover and definition answer for every step.
func TestLSPCheckoutFeatures(t *testing.T) {
	root := checkoutRoot(t)
	c, _ := startLSP(t, root)
	ctx := timeout(t)
	files, err := filepath.Glob(filepath.Join(root, "features", "*.feature"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no feature files: %v", err)
	}
	stepsSeen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		uri := lsp.PathURI(f)
		if err := c.Open(uri, 1, string(data)); err != nil {
			t.Fatal(err)
		}
		diags, err := c.Diagnostics(ctx, uri, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diags {
			t.Errorf("%s:%d: diagnostic %s (severity %d): %s", filepath.Base(f), d.Range.Start.Line+1, d.Code, d.Severity, d.Message)
		}
		lines := strings.Split(string(data), "\n")
		for _, i := range astStepLines(t, data) {
			line := lines[i]
			stepsSeen++
			col := len(line) - len(strings.TrimLeft(line, " ")) + 1
			var hover lsp.Hover
			if err := c.Call(ctx, "textDocument/hover", lsptest.At(uri, i, col), &hover); err != nil || !strings.Contains(hover.Contents.Value, "*Pattern:*") {
				t.Errorf("%s:%d: hover %q %v", filepath.Base(f), i+1, hover.Contents.Value, err)
			}
			var loc *lsp.Location
			if err := c.Call(ctx, "textDocument/definition", lsptest.At(uri, i, col), &loc); err != nil || loc == nil {
				t.Errorf("%s:%d: no definition (%v)", filepath.Base(f), i+1, err)
				continue
			}
			assertFuncAt(t, *loc)
		}
	}
	if stepsSeen < 500 {
		t.Fatalf("only %d step lines seen in features/", stepsSeen)
	}
	t.Logf("%d feature files, %d step lines: hover and definition answered for each", len(files), stepsSeen)
}

// astStepLines are the 0-based lines of every step of a feature file
// (backgrounds, scenarios, rules), as the Gherkin parser finds them.
func astStepLines(t *testing.T, data []byte) []int {
	t.Helper()
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), (&messages.Incrementing{}).NewId)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	add := func(steps []*messages.Step) {
		for _, st := range steps {
			out = append(out, int(st.Location.Line)-1)
		}
	}
	for _, ch := range doc.Feature.Children {
		switch {
		case ch.Background != nil:
			add(ch.Background.Steps)
		case ch.Scenario != nil:
			add(ch.Scenario.Steps)
		case ch.Rule != nil:
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					add(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					add(rc.Scenario.Steps)
				}
			}
		}
	}
	return out
}

// isStepLine reports whether a line of a feature file of this checkout
// is a step (its doc strings are indented more and hold no keyword at
// their step's indentation).
func isStepLine(line string) bool {
	tr := strings.TrimLeft(line, " ")
	ind := len(line) - len(tr)
	if ind != 4 {
		return false
	}
	for _, kw := range []string{"Given ", "When ", "Then ", "And ", "But "} {
		if strings.HasPrefix(tr, kw) {
			return true
		}
	}
	return false
}

// TestLSPStaleRecording: editing a recorded scenario's When step makes its
// recording stale at once, with the command that re-records it; undoing
// the edit clears it, and editing a check under Then keeps it valid.
func TestLSPStaleRecording(t *testing.T) {
	root := checkoutRoot(t)
	c, _ := startLSP(t, root)
	ctx := timeout(t)
	path := filepath.Join(root, "features", "vocabulary.feature")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const from, to = `"ada@example.com"`, `"bob@example.com"`
	if !strings.Contains(text, from) {
		t.Fatalf("%s no longer holds %s", path, from)
	}
	uri := lsp.PathURI(path)
	if err := c.Open(uri, 1, strings.Replace(text, from, to, 1)); err != nil {
		t.Fatal(err)
	}
	diags, err := c.Diagnostics(ctx, uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	stale := byCode(diags, lsp.CodeStaleRecording)
	line := strings.Count(text[:strings.Index(text, from)], "\n")
	if len(stale) != 1 || len(diags) != 1 {
		t.Fatalf("got %+v, want one stale recording", diags)
	}
	if l := stale[0].Range.Start.Line; l >= line || l < line-8 || !strings.Contains(stale[0].Message, "--driver browser --update features/vocabulary.feature:") {
		t.Fatalf("got %+v, want the scenario above line %d and the command that re-records it", stale[0], line+1)
	}
	if err := c.Change(uri, 2, text); err != nil {
		t.Fatal(err)
	}
	if diags, err := c.Diagnostics(ctx, uri, 2); err != nil || len(diags) != 0 {
		t.Fatalf("after undoing the edit: %+v %v", diags, err)
	}
	const check, checked = `"Inputs received: 0"`, `"Inputs received: 1"`
	if !strings.Contains(text, check) {
		t.Fatalf("%s no longer holds %s", path, check)
	}
	if err := c.Change(uri, 3, strings.Replace(text, check, checked, 1)); err != nil {
		t.Fatal(err)
	}
	if diags, err := c.Diagnostics(ctx, uri, 3); err != nil || len(diags) != 0 {
		t.Fatalf("after editing a check: %+v %v, want the recording still valid", diags, err)
	}
}

// TestLSPProcessExit runs `replaylab lsp` as a process over OS pipes:
// shutdown then exit ends it with status 0; a closed stdin without
// shutdown with status 1.
func TestLSPProcessExit(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := checkoutRoot(t)
	tests := []struct {
		name     string
		shutdown bool
		want     int
	}{
		{"shutdown then exit", true, 0},
		{"stdin closed without shutdown", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := timeout(t)
			cmd := exec.CommandContext(ctx, self, "lsp", "--quiet")
			cmd.Dir = root
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			c := lsptest.New(bufio.NewReader(out), in)
			if _, err := c.Initialize(ctx, lsp.PathURI(root)); err != nil {
				t.Fatal(err)
			}
			if tt.shutdown {
				if err := c.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				in.Close()
			}
			<-c.Done()
			err = cmd.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.want, stderr.String())
			}
		})
	}
}

// TestLSPRunsTheFix runs the fix of a scenario without recording as an
// editor would: the warning's code action, workspace/executeCommand, and
// the real `replaylab run --mode record-once` it names (this test binary
// stands in for replaylab). The golden appears and the warning goes.
func TestLSPRunsTheFix(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "features", "qa.feature")
	text := "Feature: QA\n  Scenario: Only scripting\n    Given a marker-style chat with 2 earlier turns\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := startLSP(t, root)
	ctx := timeout(t)
	uri := lsp.PathURI(path)
	if err := c.Open(uri, 1, text); err != nil {
		t.Fatal(err)
	}
	diags, err := c.Diagnostics(ctx, uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0].Code != lsp.CodeNoRecording {
		t.Fatalf("got %+v, want one no-recording warning", diags)
	}
	var acts []lsp.CodeAction
	if err := c.Call(ctx, "textDocument/codeAction", lsp.CodeActionParams{TextDocument: lsp.TextDocumentIdentifier{URI: uri}, Range: diags[0].Range}, &acts); err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Command == nil || !strings.HasSuffix(acts[0].Title, "run --mode record-once features/qa.feature:2") {
		t.Fatalf("got %+v", acts)
	}
	err = c.Call(ctx, "workspace/executeCommand", lsp.ExecuteCommandParams{Command: acts[0].Command.Command, Arguments: acts[0].Command.Arguments}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "recordings", "golden", "qa", "only-scripting.golden")); err != nil {
		t.Fatalf("the fix made no golden: %v; editor told: %+v", err, c.Notifications("window/showMessage"))
	}
	if diags, err := c.Diagnostics(ctx, uri, 1); err != nil || len(diags) != 0 {
		t.Fatalf("after the fix: %+v %v", diags, err)
	}
	if msgs := c.Notifications("window/showMessage"); len(msgs) != 1 || !strings.Contains(string(msgs[0].Params), ": done") {
		t.Fatalf("showMessage: %+v", msgs)
	}
}

// TestLSPQAProjectHasNoSelfTestSteps: in a QA project (not replaylab's
// checkout) a self-test step is undefined and completion does not offer
// it; in the checkout it is defined.
func TestLSPQAProjectHasNoSelfTestSteps(t *testing.T) {
	const selfTest = "this step fails the first time it runs in the project"
	text := "Feature: QA\n  Scenario: Borrows\n    Given " + selfTest + "\n    And this step fa\n"
	tests := []struct {
		name      string
		root      string
		undefined int // undefined-step diagnostics
		offered   bool
	}{
		{"a QA project", t.TempDir(), 2, false},
		{"the checkout", checkoutRoot(t), 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(tt.root, "features"), 0o755); err != nil {
				t.Fatal(err)
			}
			c, _ := startLSP(t, tt.root)
			ctx := timeout(t)
			uri := lsp.PathURI(filepath.Join(tt.root, "features", "qa-scratch.feature"))
			if err := c.Open(uri, 1, text); err != nil {
				t.Fatal(err)
			}
			diags, err := c.Diagnostics(ctx, uri, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(byCode(diags, lsp.CodeUndefined)); got != tt.undefined {
				t.Fatalf("got %d undefined-step diagnostics, want %d: %+v", got, tt.undefined, diags)
			}
			var list lsp.CompletionList
			if err := c.Call(ctx, "textDocument/completion", lsptest.At(uri, 3, len("    And this step fa")), &list); err != nil {
				t.Fatal(err)
			}
			if _, ok := findItem(list, selfTest); ok != tt.offered {
				t.Fatalf("completion offers %q: %v, want %v (%v)", selfTest, ok, tt.offered, labels(list))
			}
		})
	}
}
