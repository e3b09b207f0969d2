package selftest

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/replaylab/replaylab/harness/lsp"
)

// neovimInit is the Neovim setup (nvim/init.lua) that starts the language
// server through Neovim's built-in client and reads what it answers.
//
//go:embed nvim/init.lua
var neovimInit []byte

// NeovimGuard bounds one Neovim run: a guard against a hang only, since
// init.lua gives up on its own first (60 s for the diagnostics, 60 s for
// each request).
const NeovimGuard = 4 * time.Minute

// NeovimHint is how to get Neovim where it is missing.
const NeovimHint = "no nvim on PATH (apt-get install neovim)"

// NeovimResult is what Neovim's client read from the language server.
type NeovimResult struct {
	Error       string `json:"error"`
	Diagnostics []struct {
		Line     int    `json:"line"` // 0-based
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
		Line int    `json:"line"` // 0-based
	} `json:"definitions"`
}

// NeovimCheck opens feature (a path under root) in Neovim, headless, with
// nvim/init.lua and no other configuration: Neovim's own client starts
// the language server with the command server (`replaylab lsp`, --quiet
// is added) in root, and reads the file's diagnostics, the completion at
// the end of completeLine and the definition at column 10 of
// definitionLine (1-based lines). nvim is Neovim's binary.
func NeovimCheck(ctx context.Context, nvim string, server []string, root, feature string, completeLine, definitionLine int) (*NeovimResult, error) {
	home, err := os.MkdirTemp("", "replaylab-nvim-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	initLua := filepath.Join(home, "init.lua")
	if err := os.WriteFile(initLua, neovimInit, 0o644); err != nil {
		return nil, err
	}
	words, err := json.Marshal(append(append([]string(nil), server...), "--quiet"))
	if err != nil {
		return nil, err
	}
	out := filepath.Join(home, "result.json")
	ctx, cancel := context.WithTimeout(ctx, NeovimGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initLua, feature,
		fmt.Sprintf("+lua replaylab_check(%d, %d)", completeLine, definitionLine))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "REPLAYLAB_LSP="+string(words), "REPLAYLAB_ROOT="+root, "REPLAYLAB_OUT="+out,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	combined, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("nvim: %w\n%s", err, combined)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("nvim wrote no result: %w\n%s", err, combined)
	}
	var res NeovimResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("nvim's result: %w: %s", err, data)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("in Neovim: %s", res.Error)
	}
	return &res, nil
}

// Seen lists the diagnostics as code@line (1-based), in order.
func (r *NeovimResult) Seen() []string {
	var seen []string
	for _, d := range r.Diagnostics {
		seen = append(seen, fmt.Sprintf("%s@%d", d.Code, d.Line+1))
	}
	sort.Strings(seen)
	return seen
}

// Undefined checks that Neovim shows exactly one error on line (1-based):
// an undefined step whose closest catalogue step is closest.
func (r *NeovimResult) Undefined(line int, closest string) error {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Line == line-1 && d.Severity == lsp.SeverityError && d.Code == lsp.CodeUndefined && strings.Contains(d.Message, "did you mean:\n  "+closest) {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("want one error on line %d (undefined, closest first %q), Neovim shows %s", line, closest, strings.Join(r.Seen(), " "))
	}
	return nil
}

// Offered checks that the completion holds label as the snippet snippet.
func (r *NeovimResult) Offered(label, snippet string) error {
	var labels []string
	for _, it := range r.Completion {
		if it.Label == label {
			if it.NewText != snippet {
				return fmt.Errorf("%q is offered as %q, want the snippet %q", label, it.NewText, snippet)
			}
			return nil
		}
		labels = append(labels, it.Label)
	}
	return fmt.Errorf("the completion Neovim read offers %d items, not %q: %s", len(labels), label, strings.Join(labels, "; "))
}

// Definition is the one location go to definition found.
func (r *NeovimResult) Definition() (*lsp.Location, error) {
	if len(r.Definitions) != 1 {
		return nil, fmt.Errorf("want one definition, Neovim found %d: %+v", len(r.Definitions), r.Definitions)
	}
	var loc lsp.Location
	loc.URI = r.Definitions[0].URI
	loc.Range.Start.Line = r.Definitions[0].Line
	return &loc, nil
}

// FindNeovim is Neovim's binary on PATH.
func FindNeovim() (string, error) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		return "", errors.New(NeovimHint)
	}
	return nvim, nil
}
