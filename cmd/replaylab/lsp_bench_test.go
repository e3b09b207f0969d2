package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/harness/lsp/lsptest"
)

// BenchmarkLSP measures each request of an editor session on the
// checkout's largest feature file, over the pipe (framing and JSON
// included), with the real catalogue: the goal is under 50 ms each.
//
//	go test ./cmd/replaylab -run '^$' -bench BenchmarkLSP
func BenchmarkLSP(b *testing.B) {
	root := checkoutRoot(b)
	path := filepath.Join(root, "features", "harness.feature")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	lines := strings.Split(text, "\n")
	step, tagLine, tagCol := -1, -1, 0
	for i, l := range lines {
		if step < 0 && isStepLine(l) {
			step = i
		}
		if tr := strings.TrimLeft(l, " "); tagLine < 0 && strings.HasPrefix(tr, "@") {
			tagLine, tagCol = i, len(l)-len(tr)+1
		}
	}
	if step < 0 || tagLine < 0 {
		b.Fatalf("%s has no step or no tag line", path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := lsptest.Pipe(ctx, lspOptions(""))
	if _, err := c.Initialize(ctx, lsp.PathURI(root)); err != nil {
		b.Fatal(err)
	}
	uri := lsp.PathURI(path)
	if err := c.Open(uri, 1, text); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Diagnostics(ctx, uri, 1); err != nil {
		b.Fatal(err)
	}
	version := 1
	// a line to complete: "    When I open the s" appended at the end
	completing := text + "\n  Scenario: typing\n    When I open the s\n"
	compLine := strings.Count(completing, "\n") - 1
	b.Run("didChange+diagnostics", func(b *testing.B) {
		for b.Loop() {
			version++
			t := text
			if version%2 == 0 {
				t += "\n" // a change the server cannot skip
			}
			if err := c.Change(uri, version, t); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Diagnostics(ctx, uri, version); err != nil {
				b.Fatal(err)
			}
		}
	})
	call := func(name, method string, params any) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Call(ctx, method, params, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	call("hover", "textDocument/hover", lsptest.At(uri, step, 6))
	call("definition", "textDocument/definition", lsptest.At(uri, step, 6))
	call("documentSymbol", "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}})
	call("codeAction", "textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": uri},
		"range": lsp.Range{Start: lsp.Position{Line: step}, End: lsp.Position{Line: step}}, "context": map[string]any{"diagnostics": []any{}}})
	version++
	if err := c.Change(uri, version, completing); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Diagnostics(ctx, uri, version); err != nil {
		b.Fatal(err)
	}
	call("completion", "textDocument/completion", lsptest.At(uri, compLine, len("    When I open the s")))
	call("completion-tags", "textDocument/completion", lsptest.At(uri, tagLine, tagCol))
}
