package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/harness/lsp/lsptest"
	"github.com/replaylab/replaylab/steps"
)

// The editor's steps (GATE-7): `replaylab lsp` runs as a process in the
// scratch project of "a feature file … with:" and a Language Server
// Protocol client (harness/lsp/lsptest) speaks to it over its stdin and
// stdout, as an editor does. The steps trace what the editor was told
// (diagnostic codes and lines, the completion offered, the exit status),
// never paths or times.

// editorRequestTimeout bounds each request and wait for diagnostics.
const editorRequestTimeout = 30 * time.Second

type editorState struct {
	client *lsptest.Process
	diags  map[string][]lsp.Diagnostic
}

func editorSteps(r *steps.Table) {
	r.Step(`^the editor opens "([^"]*)"$`,
		"open a feature file of the scratch project in an editor: `replaylab lsp` starts in the project (once per scenario) and the file's diagnostics are read",
		`When the editor opens "typo.feature"`, editorOpen)
	r.Step(`^the editor flags line (\d+) of "([^"]*)" as undefined, closest first "(.*)"$`,
		"the language server marks the step on that line as undefined (an error) and names that example as the closest catalogue step, as `run` would",
		`Then the editor flags line 3 of "typo.feature" as undefined, closest first "When I open the sim page \"/sidebar\""`, editorUndefined)
	r.Step(`^the editor warns "([^"]*)" at line (\d+) of "([^"]*)", fixed by a command ending in "([^"]*)"$`,
		"the language server warns with that code (no-recording, stale-recording, no-golden) on that line and names the command that fixes it",
		`And the editor warns "no-recording" at line 2 of "typo.feature", fixed by a command ending in "--mode record-once features/typo.feature:2"`, editorWarns)
	r.Step(`^the editor shows no diagnostic for "([^"]*)"$`,
		"the language server reports nothing for the file: every step defined, every scenario recorded",
		`Then the editor shows no diagnostic for "qa.feature"`, editorClean)
	r.Step(`^typing "([^"]*)" on line (\d+) of "([^"]*)" offers "(.*)"$`,
		"the editor puts the text on that line (indented as a step) and asks for completion at its end: the step is among the items, its example a snippet",
		`And typing "When I open the s" on line 4 of "typo.feature" offers "I open the sim page \"/sidebar\""`, editorCompletes)
	r.Step(`^hover and go to definition answer for every step of "([^"]*)"$`,
		"on each step line of the file, hover shows a catalogue step and go to definition names the Go function that implements it (a .go file whose line declares a func)",
		`And hover and go to definition answer for every step of "typo.feature"`, editorHoverAll)
	r.Step(`^the editor shuts the language server down and it exits (\d+)$`,
		"the editor sends shutdown and exit: the process ends with that status",
		"Then the editor shuts the language server down and it exits 0", editorShutdown)
}

// lspCommand is the command that starts `replaylab lsp`: the binary that
// serves MCP for the MCP steps, with "lsp" for "mcp".
func lspCommand(w steps.World) ([]string, error) {
	c, err := w.MCPCommand()
	if err != nil {
		return nil, err
	}
	if len(c) > 0 && c[len(c)-1] == "mcp" {
		c = c[:len(c)-1]
	}
	return append(c, "lsp"), nil
}

// editor returns the scenario's language server, starting it in the
// scratch project on first use.
func editor(ctx context.Context) (*editorState, *harnessState, error) {
	w := steps.WorldOf(ctx)
	h, err := scratchProject(ctx)
	if err != nil {
		return nil, nil, err
	}
	e := steps.State[editorState](w)
	if e.client != nil {
		return e, h, nil
	}
	words, err := lspCommand(w)
	if err != nil {
		return nil, nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, editorRequestTimeout)
	defer cancel()
	p, err := lsptest.Start(rctx, append(words, "--quiet", "--root", h.root), h.root, lsp.PathURI(h.root))
	if err != nil {
		return nil, nil, fmt.Errorf("replaylab lsp: %w", err)
	}
	e.client, e.diags = p, map[string][]lsp.Diagnostic{}
	w.OnFinish(p.Kill)
	return e, h, nil
}

func editorURI(h *harnessState, name string) string {
	return lsp.PathURI(filepath.Join(h.root, "features", name))
}

// editorSend opens the file (first time) or changes it to text, and
// reads its diagnostics.
func editorSend(ctx context.Context, e *editorState, h *harnessState, name, text string) error {
	rctx, cancel := context.WithTimeout(ctx, editorRequestTimeout)
	defer cancel()
	d, err := e.client.Sync(rctx, editorURI(h, name), text)
	if err != nil {
		return err
	}
	e.diags[name] = d
	return nil
}

func editorOpen(ctx context.Context, name string) error {
	e, h, err := editor(ctx)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(h.root, "features", name))
	if err != nil {
		return err
	}
	if err := editorSend(ctx, e, h, name, string(data)); err != nil {
		return err
	}
	var seen []string
	for _, d := range e.diags[name] {
		seen = append(seen, fmt.Sprintf("%s@%d", d.Code, d.Range.Start.Line+1))
	}
	steps.WorldOf(ctx).Emit(trace.E("editor.diagnostics", trace.A("file", name), trace.A("seen", strings.Join(seen, " "))))
	return nil
}

// diagnosticAt is the file's diagnostic with the code on the 1-based
// line.
func diagnosticAt(ctx context.Context, name, code string, line int) (lsp.Diagnostic, error) {
	e := steps.State[editorState](steps.WorldOf(ctx))
	d, ok := e.diags[name]
	if !ok {
		return lsp.Diagnostic{}, fmt.Errorf("the editor has not opened %s (add: When the editor opens %q)", name, name)
	}
	var all []string
	for _, x := range d {
		if x.Code == code && x.Range.Start.Line == line-1 {
			return x, nil
		}
		all = append(all, fmt.Sprintf("%s at line %d", x.Code, x.Range.Start.Line+1))
	}
	return lsp.Diagnostic{}, fmt.Errorf("%s: no %s at line %d; the editor shows: %s", name, code, line, strings.Join(all, ", "))
}

func editorUndefined(ctx context.Context, line int, name, closest string) error {
	d, err := diagnosticAt(ctx, name, lsp.CodeUndefined, line)
	if err != nil {
		return err
	}
	if d.Severity != lsp.SeverityError {
		return fmt.Errorf("the undefined step is severity %d, want an error (1)", d.Severity)
	}
	if !strings.Contains(d.Message, "did you mean:\n  "+closest+"\n") {
		return fmt.Errorf("the closest steps are not led by %q: %s", closest, d.Message)
	}
	return nil
}

func editorWarns(ctx context.Context, code string, line int, name, suffix string) error {
	d, err := diagnosticAt(ctx, name, code, line)
	if err != nil {
		return err
	}
	if d.Severity != lsp.SeverityWarning {
		return fmt.Errorf("%s is severity %d, want a warning (2)", code, d.Severity)
	}
	if d.Data == nil || len(d.Data.Command) == 0 || !strings.HasSuffix(strings.Join(d.Data.Command, " "), suffix) || !strings.Contains(d.Message, "fix it with: ") {
		return fmt.Errorf("the warning does not name a command ending in %q: %s", suffix, d.Message)
	}
	return nil
}

func editorClean(ctx context.Context, name string) error {
	e := steps.State[editorState](steps.WorldOf(ctx))
	d, ok := e.diags[name]
	if !ok {
		return fmt.Errorf("the editor has not opened %s", name)
	}
	if len(d) > 0 {
		return fmt.Errorf("%s: the editor shows %d diagnostics, the first %s at line %d: %s", name, len(d), d[0].Code, d[0].Range.Start.Line+1, d[0].Message)
	}
	return nil
}

func editorCompletes(ctx context.Context, typed string, line int, name, label string) error {
	e, h, err := editor(ctx)
	if err != nil {
		return err
	}
	text, ok := e.client.Text(editorURI(h, name))
	if !ok {
		return fmt.Errorf("the editor has not opened %s", name)
	}
	lines := strings.Split(text, "\n")
	for len(lines) < line {
		lines = append(lines, "")
	}
	lines[line-1] = "    " + typed
	if err := editorSend(ctx, e, h, name, strings.Join(lines, "\n")); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, editorRequestTimeout)
	defer cancel()
	var list lsp.CompletionList
	if err := e.client.Call(rctx, "textDocument/completion", lsptest.At(editorURI(h, name), line-1, len("    "+typed)), &list); err != nil {
		return err
	}
	var labels []string
	for _, it := range list.Items {
		if it.Label == label {
			if it.InsertTextFormat != lsp.InsertSnippet || it.TextEdit == nil {
				return fmt.Errorf("%q is offered, but not as a snippet: %+v", label, it)
			}
			steps.WorldOf(ctx).Emit(trace.E("editor.completion", trace.A("typed", typed), trace.A("offered", label), trace.A("snippet", it.TextEdit.NewText)))
			return nil
		}
		labels = append(labels, it.Label)
	}
	return fmt.Errorf("typing %q offers %d steps, not %q: %s", typed, len(labels), label, strings.Join(labels, "; "))
}

func editorHoverAll(ctx context.Context, name string) error {
	e, h, err := editor(ctx)
	if err != nil {
		return err
	}
	text, ok := e.client.Text(editorURI(h, name))
	if !ok {
		return fmt.Errorf("the editor has not opened %s", name)
	}
	uri := editorURI(h, name)
	n := 0
	for i, l := range strings.Split(text, "\n") {
		tr := strings.TrimLeft(l, " ")
		if !hasStepKeyword(tr) {
			continue
		}
		col := len(l) - len(tr) + 1
		rctx, cancel := context.WithTimeout(ctx, editorRequestTimeout)
		var hover *lsp.Hover
		err := e.client.Call(rctx, "textDocument/hover", lsptest.At(uri, i, col), &hover)
		var loc *lsp.Location
		if err == nil {
			err = e.client.Call(rctx, "textDocument/definition", lsptest.At(uri, i, col), &loc)
		}
		cancel()
		if err != nil {
			return err
		}
		if hover == nil || !strings.Contains(hover.Contents.Value, "*Pattern:*") {
			return fmt.Errorf("%s:%d: hover shows no catalogue step", name, i+1)
		}
		if err := declaresFunc(loc); err != nil {
			return fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s has no step", name)
	}
	steps.WorldOf(ctx).Emit(trace.E("editor.hover", trace.A("file", name), trace.A("steps", n)))
	return nil
}

func hasStepKeyword(line string) bool {
	for _, kw := range []string{"Given ", "When ", "Then ", "And ", "But ", "* "} {
		if strings.HasPrefix(line, kw) {
			return true
		}
	}
	return false
}

// declaresFunc checks that a definition is a line of a Go file that
// declares a function.
func declaresFunc(loc *lsp.Location) error {
	if loc == nil {
		return errors.New("go to definition found nothing")
	}
	path := lsp.URIPath(loc.URI)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("go to definition: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	if l := loc.Range.Start.Line; !strings.HasSuffix(path, ".go") || l >= len(lines) || !strings.Contains(lines[l], "func") {
		return fmt.Errorf("go to definition names %s:%d, not a Go function", path, loc.Range.Start.Line+1)
	}
	return nil
}

func editorShutdown(ctx context.Context, want int) error {
	e, _, err := editor(ctx)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, editorRequestTimeout)
	defer cancel()
	code, err := e.client.Exit(rctx)
	if err != nil {
		return fmt.Errorf("replaylab lsp: %w", err)
	}
	steps.WorldOf(ctx).Emit(trace.E("editor.exit", trace.A("code", code)))
	if code != want {
		return fmt.Errorf("replaylab lsp exited %d, want %d (stderr: %s)", code, want, e.client.Stderr.String())
	}
	return nil
}
