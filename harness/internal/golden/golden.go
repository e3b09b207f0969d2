// Package golden compares a text with its golden file: normalised text
// (line endings, the final newline), a unified diff when they differ, an
// atomic write when the golden is to be rewritten or created. It needs no
// *testing.T, so the runner uses it inside and outside go test alike.
package golden

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/replaylab/replaylab/engine/capture"
)

// Options say what Compare may write.
type Options struct {
	// Update rewrites the golden with got, whatever it holds.
	Update bool
	// CreateMissing writes got when the golden does not exist yet.
	CreateMissing bool
}

// Result is what Compare found.
type Result struct {
	// Wrote: the golden was written (Update, or CreateMissing of a
	// missing one).
	Wrote bool
	// Diff is the unified diff from the golden (---) to got (+++), ""
	// when they are equal.
	Diff string
}

// Compare checks got against the golden file at path. A missing golden
// (not written) is an error wrapping os.ErrNotExist.
func Compare(path string, got []byte, opt Options) (Result, error) {
	if opt.Update {
		return Result{Wrote: true}, write(path, got)
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && opt.CreateMissing {
		return Result{Wrote: true}, write(path, got)
	}
	if err != nil {
		return Result{}, fmt.Errorf("golden: %w", err)
	}
	if bytes.Equal(Normalize(want), Normalize(got)) {
		return Result{}, nil
	}
	return Result{Diff: Diff(want, got)}, nil
}

// Normalize is the text as compared: CRLF and CR line endings as LF, one
// final newline at most.
func Normalize(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	return append(bytes.TrimRight(b, "\n"), '\n')
}

// Diff is the unified diff (one line of context) from want, the golden,
// to got.
func Diff(want, got []byte) string {
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(strings.TrimSuffix(string(Normalize(want)), "\n")),
		B:        difflib.SplitLines(strings.TrimSuffix(string(Normalize(got)), "\n")),
		FromFile: "golden",
		ToFile:   "this run",
		Context:  1,
	})
	return d
}

func write(path string, data []byte) error {
	if err := capture.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	return nil
}
