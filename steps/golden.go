package steps

import (
	"errors"
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
// goldie; with goldie's -update flag it rewrites the file instead.
func compareGolden(dir, name string, trace []byte, createHint string, createMissing bool) error {
	if createMissing {
		path := filepath.Join(dir, filepath.FromSlash(name)+".golden")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return capture.WriteFileAtomic(path, trace)
		}
	}
	tb := &goldenTB{name: name}
	g := goldie.New(tb, goldie.WithFixtureDir(dir), goldie.WithNameSuffix(".golden"))
	g.Assert(tb, name, trace)
	if len(tb.errs) == 0 {
		return nil
	}
	msg := strings.Join(tb.errs, "\n")
	if strings.Contains(msg, "not found") {
		return fmt.Errorf("golden trace %s/%s.golden is missing; create it with: %s", dir, name, createHint)
	}
	return fmt.Errorf("golden trace drift for %s (rewrite with --update after checking the diff):\n%s", name, msg)
}
