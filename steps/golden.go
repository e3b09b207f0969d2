package steps

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/capture"

	"github.com/sebdah/goldie/v2"
)

// goldenTB lets goldie compare inside a godog scenario, where there is no
// *testing.T (the CLI path): it records what goldie reports instead of
// failing a test.
type goldenTB struct {
	testing.TB // nil; only the methods below are called
	name       string
	errs       []string
}

func (t *goldenTB) Helper()           {}
func (t *goldenTB) Name() string      { return t.name }
func (t *goldenTB) Error(args ...any) { t.errs = append(t.errs, fmt.Sprint(args...)) }
func (t *goldenTB) Errorf(format string, args ...any) {
	t.errs = append(t.errs, fmt.Sprintf(format, args...))
}
func (t *goldenTB) Fatal(args ...any)                 { t.Error(args...) }
func (t *goldenTB) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t *goldenTB) FailNow()                          {}
func (t *goldenTB) Fail()                             {}
func (t *goldenTB) Log(args ...any)                   {}
func (t *goldenTB) Logf(format string, args ...any)   {}

// compareGolden checks trace against recordings/golden/<name>.golden with
// goldie.
//
// update rewrites the golden (the run's Update option; the suite never
// sets goldie's process-wide -update flag, so a run inside a run cannot
// rewrite the outer run's goldens); createMissing writes it only when it
// does not exist yet (record-once). createHint and updateHint are the
// commands that create a missing golden and rewrite a drifted one.
func compareGolden(dir, name string, trace []byte, createHint, updateHint string, update, createMissing bool) error {
	path := filepath.Join(dir, filepath.FromSlash(name)+".golden")
	if update {
		return capture.WriteFileAtomic(path, trace)
	}
	if createMissing {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return capture.WriteFileAtomic(path, trace)
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("golden trace %s/%s.golden is missing; create it with: %s", dir, name, createHint)
	}
	tb := &goldenTB{name: name}
	g := goldie.New(tb, goldie.WithFixtureDir(dir), goldie.WithNameSuffix(".golden"))
	if goldieUpdates() {
		// go test -update sets goldie's process-wide flag, under which
		// Assert would rewrite this file; a run that is not updating (a
		// replay after the browser run, a run inside a run) compares.
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(want, trace) {
			return driftError(name, updateHint, goldie.Diff(goldie.ClassicDiff, string(trace), string(want)))
		}
		return nil
	}
	g.Assert(tb, name, trace)
	if len(tb.errs) == 0 {
		return nil
	}
	msg := strings.Join(tb.errs, "\n")
	if strings.Contains(msg, "not found") {
		return fmt.Errorf("golden trace %s/%s.golden is missing; create it with: %s", dir, name, createHint)
	}
	return driftError(name, updateHint, msg)
}

// driftError says the trace differs, with the diff and the command that
// rewrites the golden once the diff is checked.
func driftError(name, updateHint, diff string) error {
	return fmt.Errorf("golden trace drift for %s; if the new trace is right (check the diff below), rewrite the golden with: %s\n%s", name, updateHint, diff)
}

// goldieUpdates reports whether goldie's -update flag is set in this
// process.
func goldieUpdates() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
