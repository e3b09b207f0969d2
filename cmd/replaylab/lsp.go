package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// lspStdin is the language server's input; tests replace it.
var lspStdin io.Reader = os.Stdin

// cmdLSP serves the language server for feature files on stdin and
// stdout until the client's shutdown and exit (exit 0), or until stdin
// closes or exit comes without shutdown (exit 1, as the protocol says).
func cmdLSP(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("lsp", stderr)
	root := fs.String("root", "", "directory holding features/ and recordings/ (default: the nearest directory at or above the editor's workspace folder that has features/, as run finds it)")
	_ = fs.Bool("stdio", true, "serve on stdin and stdout (the only transport; accepted because editors pass it)")
	quiet := fs.Bool("quiet", false, "no log lines on stderr")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected argument %q", pos[0])
	}
	if *root != "" {
		st, err := os.Stat(*root)
		if err != nil || !st.IsDir() {
			return exitBadInput, badInput("--root %s: not a directory", *root)
		}
	}
	opt := lspOptions(*root)
	if !*quiet {
		opt.Log = stderr
	}
	err = lsp.Serve(ctx, lspStdin, stdout, opt)
	switch {
	case err == nil:
		return exitOK, nil
	case errors.Is(err, lsp.ErrNoShutdown):
		return exitFailed, err
	case errors.Is(err, context.Canceled):
		return exitFailed, errors.New("interrupted")
	}
	return exitFailed, err
}

// lspOptions wires the harness's catalogue and recording state into the
// server.
func lspOptions(root string) lsp.Options {
	return lsp.Options{
		Root:       root,
		Vocabulary: catalogue(true),
		// completion, hover and diagnostics know the steps run binds in
		// that root: no self-test step in a QA project
		VocabularyOf: func(root string) lsp.Vocabulary { return catalogue(steps.SelfTestsFor(root)) },
		Recordings:   lsp.RunRecordings{Command: invokedAs(), Fixes: steps.Fixes},
		Checks:       &lsp.RunChecks{Defs: func(root string) []harness.StepDef { return catalogueDefs(steps.SelfTestsFor(root)) }},
		SourceDirs:   []string{lsp.ModuleRoot()},
		Command:      invokedAs(),
		Exec:         runFix,
	}
}

// runFix runs a fixing command the server offered, in the project root.
func runFix(ctx context.Context, dir string, words []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

var (
	vocabOnce       sync.Once
	vocabAll, vocab lsp.Vocabulary
	defsAll, defsQA []harness.StepDef
)

// catalogueDefs is the catalogue the language server's dry run checks
// against: with the self-test steps (all) or without.
func catalogueDefs(all bool) []harness.StepDef {
	catalogue(all)
	if all {
		return defsAll
	}
	return defsQA
}

// catalogue is the steps catalogue as the language server reads it,
// converted once per process: with the self-test steps (all) or without
// (a QA project's).
func catalogue(all bool) lsp.Vocabulary {
	vocabOnce.Do(func() {
		defs := vocabulary.Catalogue(selfTestGroups()...)
		defsAll, defsQA = defs, harness.QA(defs)
		vocabAll = lsp.Catalogue(defsAll)
		vocab = lsp.Catalogue(defsQA)
	})
	if all {
		return vocabAll
	}
	return vocab
}
