// Package testskip makes skipped tests visible. A t.Skip message is shown
// only by go test -v; under plain `go test ./...` the go command shows
// nothing of a passing package but its "ok" line. Tests that skip because
// something is not installed (Chromium, PostgreSQL) skip through Skip,
// and the package's TestMain calls Main, which prints every such skip
// when the tests end: to stderr (shown by `go test` in a package
// directory and with -v) and to the terminal the tests run in, when there
// is one (/dev/tty: shown under `go test ./...` too).
//
// In CI (CI=true) these tests do not skip: they fail.
package testskip

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/replaylab/replaylab/internal/skipnote"
)

// Record notes a skip (a whole group of tests or scenarios, once per
// message) to be printed by Main (internal/skipnote keeps the notes).
func Record(msg string) { skipnote.Record(msg) }

// Skip records the message and skips t.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	Record(msg)
	t.Skip(msg)
}

// Need skips t through Skip when err says something the test needs is
// missing (what names the tests that skip: "browser tests"), and fails it
// in CI (CI=true), where nothing may be missing.
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %v", err)
		return
	}
	Skip(t, "SKIPPING %s: %v", what, err)
}

// Main runs the tests, prints the skips they recorded, and returns the
// exit code for os.Exit.
func Main(m *testing.M) int {
	code := m.Run()
	Print(os.Stderr)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		Print(tty)
		_ = tty.Close()
	}
	return code
}

// Print writes the recorded skips, one "SKIPPING …" line each.
func Print(w io.Writer) { skipnote.Print(w) }
