package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/steps"
)

// The real editor's steps (ECO-3): Debian's Neovim, headless, opens a
// feature file of the scratch project with nvim/init.lua (no plugin), so
// Neovim's own LSP client starts `replaylab lsp` and reads diagnostics,
// completion and go to definition (NeovimCheck). The steps trace what
// Neovim was told, never paths or times.

type neovimState struct {
	file string
	res  *NeovimResult
}

func neovimSteps(r *steps.Table) {
	r.Step(`^Neovim opens "([^"]*)", completes at the end of line (\d+) and goes to the definition on line (\d+)$`,
		"open a feature file of the scratch project in Neovim (headless, its built-in LSP client starting `replaylab lsp`), and read through it the diagnostics, the completion at the end of a line and the definition of a step",
		`When Neovim opens "editor.feature", completes at the end of line 5 and goes to the definition on line 4`, neovimOpen)
	r.Step(`^Neovim shows the step on line (\d+) as undefined, closest first "(.*)"$`,
		"Neovim shows one error on that line: an undefined step, the closest catalogue step first",
		`Then Neovim shows the step on line 3 as undefined, closest first "When I open the sim page \"/sidebar\""`, neovimUndefined)
	r.Step(`^Neovim's completion offers "(.*)" as the snippet "(.*)"$`,
		"the completion Neovim read holds that catalogue step, its example a snippet",
		`And Neovim's completion offers "I open the sim page \"/sidebar\"" as the snippet "I open the sim page \"${1:/sidebar}\"$0"`, neovimOffered)
	r.Step(`^Neovim's go to definition lands on a Go function$`,
		"go to definition in Neovim found one location: a line of a Go file that declares the step's function",
		`And Neovim's go to definition lands on a Go function`, neovimDefinition)
}

func neovimOpen(ctx context.Context, name string, completeLine, definitionLine int) error {
	w := steps.WorldOf(ctx)
	nvim, err := FindNeovim()
	if err != nil {
		if os.Getenv("CI") == "true" {
			return fmt.Errorf("CI=true and %w: the Neovim scenarios are required in CI", err)
		}
		return w.Skip("SKIPPING the Neovim scenario: " + NeovimHint)
	}
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	server, err := lspCommand(w)
	if err != nil {
		return err
	}
	res, err := NeovimCheck(ctx, nvim, server, h.root, filepath.Join(h.root, "features", name), completeLine, definitionLine)
	if err != nil {
		return err
	}
	st := steps.State[neovimState](w)
	st.file, st.res = name, res
	w.Emit(trace.E("nvim.diagnostics", trace.A("file", name), trace.A("seen", strings.Join(res.Seen(), " "))))
	return nil
}

// neovimResult is what the scenario's Neovim read.
func neovimResult(ctx context.Context) (*NeovimResult, error) {
	st := steps.State[neovimState](steps.WorldOf(ctx))
	if st.res == nil {
		return nil, errors.New(`no file was opened in Neovim (add: When Neovim opens "NAME", completes at the end of line N and goes to the definition on line M)`)
	}
	return st.res, nil
}

func neovimUndefined(ctx context.Context, line int, closest string) error {
	res, err := neovimResult(ctx)
	if err != nil {
		return err
	}
	if err := res.Undefined(line, closest); err != nil {
		return err
	}
	steps.WorldOf(ctx).Emit(trace.E("nvim.undefined", trace.A("line", line), trace.A("closest", closest)))
	return nil
}

func neovimOffered(ctx context.Context, label, snippet string) error {
	res, err := neovimResult(ctx)
	if err != nil {
		return err
	}
	if err := res.Offered(label, snippet); err != nil {
		return err
	}
	steps.WorldOf(ctx).Emit(trace.E("nvim.completion", trace.A("offered", label), trace.A("snippet", snippet)))
	return nil
}

func neovimDefinition(ctx context.Context) error {
	res, err := neovimResult(ctx)
	if err != nil {
		return err
	}
	loc, err := res.Definition()
	if err != nil {
		return err
	}
	if err := declaresFunc(loc); err != nil {
		return fmt.Errorf("in Neovim: %w", err)
	}
	steps.WorldOf(ctx).Emit(trace.E("nvim.definition", trace.A("lands", "a Go function")))
	return nil
}
