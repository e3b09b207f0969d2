package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/internal/testskip"
)

// nvimResult is what testdata/nvim/init.lua read through Neovim's client.
type nvimResult struct {
	Error       string `json:"error"`
	Diagnostics []struct {
		Line     int    `json:"line"`
		Severity int    `json:"severity"`
		Message  string `json:"message"`
		Code     string `json:"code"`
	} `json:"diagnostics"`
	Completion []struct {
		Label   string `json:"label"`
		NewText string `json:"newText"`
	} `json:"completion"`
	Definitions []struct {
		URI  string `json:"uri"`
		Line int    `json:"line"`
	} `json:"definitions"`
}

// TestNeovimClient (ECO-3) opens a feature file in Neovim (Debian's
// package, headless) with testdata/nvim/init.lua, which starts `replaylab
// lsp` through Neovim's built-in LSP client: the undefined step is an
// error diagnostic with the closest step, completion offers the sim-page
// step, and go to definition lands on the Go function of a step.
func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no nvim on PATH (apt-get install neovim)")
		}
		testskip.Skip(t, "SKIPPING the Neovim client test: no nvim on PATH (apt-get install neovim)")
	}
	self, err := os.Executable() // the test binary is also replaylab (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	initLua, err := filepath.Abs(filepath.Join("testdata", "nvim", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	root := scratchProject(t, "locator")
	feature := filepath.Join(root, "features", "editor.feature")
	text := "Feature: In the editor\n  Scenario: Typo\n    When I opne the sim page \"/duplicates\"\n    Then the page text contains \"Archive\"\n    When I open the s\n"
	if err := os.WriteFile(feature, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	out := filepath.Join(home, "result.json")
	// a guard against a hang only: init.lua fails on its own first
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initLua, feature, "+lua replaylab_check(5, 4)")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "REPLAYLAB_BIN="+self, "REPLAYLAB_ROOT="+root, "REPLAYLAB_OUT="+out,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	combined, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, combined)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v\n%s", err, combined)
	}
	var res nvimResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if res.Error != "" {
		t.Fatalf("in Neovim: %s", res.Error)
	}

	var undefined int
	for _, d := range res.Diagnostics {
		if d.Line == 2 && d.Severity == 1 && d.Code == lsp.CodeUndefined && strings.Contains(d.Message, "did you mean:\n  When I open the sim page") {
			undefined++
		}
	}
	if undefined != 1 {
		t.Errorf("want one error on line 3 (undefined, with the closest step), got %+v", res.Diagnostics)
	}

	found := false
	for _, it := range res.Completion {
		if it.Label == `I open the sim page "/sidebar"` && it.NewText == `I open the sim page "${1:/sidebar}"$0` {
			found = true
		}
	}
	if !found {
		t.Errorf("completion after %q lacks the sim-page snippet: %+v", "When I open the s", res.Completion)
	}

	if len(res.Definitions) != 1 {
		t.Fatalf("want one definition of %q, got %+v", "the page text contains", res.Definitions)
	}
	def := res.Definitions[0]
	var loc lsp.Location
	loc.URI = def.URI
	loc.Range.Start.Line = def.Line
	assertFuncAt(t, loc)
	t.Logf("Neovim: %d diagnostics, %d completion items, definition %s:%d", len(res.Diagnostics), len(res.Completion), lsp.URIPath(def.URI), def.Line+1)
}
