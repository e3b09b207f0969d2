package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/internal/selftest"
	"github.com/replaylab/replaylab/internal/testskip"
)

// TestNeovimClient (ECO-3) opens a feature file in Neovim (Debian's
// package, headless) with internal/selftest/nvim/init.lua, which starts
// `replaylab lsp` through Neovim's built-in LSP client: the undefined step
// is an error diagnostic with the closest step, completion offers the
// sim-page step, and go to definition lands on the Go function of a step.
// features/editor_real.feature runs the same check as a scenario.
func TestNeovimClient(t *testing.T) {
	nvim, err := selftest.FindNeovim()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING the Neovim client test: %v", err)
	}
	self, err := os.Executable() // the test binary is also replaylab (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	root := scratchProject(t, "locator")
	feature := filepath.Join(root, "features", "editor.feature")
	text := "Feature: In the editor\n  Scenario: Typo\n    When I opne the sim page \"/duplicates\"\n    Then the page text contains \"Archive\"\n    When I open the s\n"
	if err := os.WriteFile(feature, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := selftest.NeovimCheck(context.Background(), nvim, []string{self, "lsp"}, root, feature, 5, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Undefined(3, "When I open the sim page"); err != nil {
		t.Error(err)
	}
	if err := res.Offered(`I open the sim page "/sidebar"`, `I open the sim page "${1:/sidebar}"$0`); err != nil {
		t.Error(err)
	}
	loc, err := res.Definition()
	if err != nil {
		t.Fatal(err)
	}
	assertFuncAt(t, *loc)
	t.Logf("Neovim: %d diagnostics, %d completion items, definition %s:%d", len(res.Diagnostics), len(res.Completion), lsp.URIPath(loc.URI), loc.Range.Start.Line+1)
}
