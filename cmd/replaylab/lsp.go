package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/harness/lsp"
	"github.com/replaylab/replaylab/steps"
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
		Vocabulary: catalogue(),
		SourceDirs: []string{buildRoot()},
		Command:    invokedAs(),
		Exec:       runFix,
	}
}

// runFix runs a fixing command the server offered, in the project root.
func runFix(ctx context.Context, dir string, words []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// buildRoot is the module root this binary was built from (where a step
// function's file is, relative or, with -trimpath, as a module path).
func buildRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// vocabulary is the steps catalogue as the language server reads it.
type vocabulary struct {
	steps     []lsp.Step
	byPattern map[string]lsp.Step
}

var (
	vocabOnce sync.Once
	vocab     *vocabulary
)

// catalogue converts the step catalogue once per process.
func catalogue() *vocabulary {
	vocabOnce.Do(func() {
		vocab = &vocabulary{byPattern: map[string]lsp.Step{}}
		base := buildRoot()
		for _, d := range steps.Catalogue() {
			st := lsp.Step{Group: d.Group, Pattern: d.Pattern, Meaning: d.Meaning, Example: d.Example, Table: d.Table,
				Defaults: d.Defaults, Kind: d.Kind, NeedsSim: d.NeedsSim, AliasOf: d.AliasOf}
			st.File, st.Line = funcFileLine(d.Fn)
			if rel, err := filepath.Rel(base, st.File); err == nil && st.File != "" && !filepath.IsAbs(rel) && rel != ".." && !hasDotDot(rel) {
				st.File = filepath.ToSlash(rel)
			}
			vocab.steps = append(vocab.steps, st)
			vocab.byPattern[d.Pattern] = st
		}
	})
	return vocab
}

func hasDotDot(rel string) bool {
	return rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator)
}

func (v *vocabulary) Steps() []lsp.Step { return v.steps }

func (v *vocabulary) Suggest(text string, n int) []lsp.Step {
	var out []lsp.Step
	for _, d := range harness.Suggest(steps.Catalogue(), text, n) {
		out = append(out, v.byPattern[d.Pattern])
	}
	return out
}

// funcFileLine is where the Go function fn is declared.
func funcFileLine(fn any) (string, int) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return "", 0
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return "", 0
	}
	return f.FileLine(f.Entry())
}
