package harness

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/replaylab/replaylab/harness/internal/golden"
)

// Goldens under go test. A runner run by go test (Options.TestingT) runs
// each scenario as a subtest and asserts its golden with goldie: fixture
// dir recordings/golden, suffix .golden, the file named by the scenario's
// slug, compared as the CLI compares (line endings and trailing newlines
// normalised), rewritten by goldie's own -update flag (or GOLDIE_UPDATE).
// A run outside go test (replaylab run) keeps its own comparison
// (harness/internal/golden): one file format, two front ends.

// UpdateFlag reports whether go test runs with goldie's -update flag (or
// GOLDIE_UPDATE=true): the goldens of the runs it starts are rewritten.
// A test reads it after flag parsing, instead of defining its own
// -update (goldie defines it for every test binary that links the
// harness).
func UpdateFlag() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldieOf is the scenario's golden tester.
func (r *Runner) goldieOf() *goldie.Goldie {
	return goldie.New(r.opt.TestingT,
		goldie.WithFixtureDir(r.GoldenDir()),
		goldie.WithNameSuffix(".golden"),
		goldie.WithEqualFn(func(actual, expected []byte) bool {
			return bytes.Equal(golden.Normalize(actual), golden.Normalize(expected))
		}),
		goldie.WithDiffFn(func(actual, expected string) string { return golden.Diff([]byte(expected), []byte(actual)) }))
}

// assertGoldie is compareGolden under go test: goldie asserts the trace
// (or writes it: Options.Update, which a test sets from UpdateFlag, or a
// missing golden in a mode that creates goldens), and a failure is the
// same error the CLI gives. A run that must not write under -update (a
// replay checked against goldens a live run just rewrote) compares
// without goldie, whose Assert writes whenever -update is set.
func (s *Scenario) assertGoldie(trace []byte) error {
	r := s.run.runner
	g := r.goldieOf()
	name := filepath.ToSlash(s.Slug)
	_, statErr := os.Stat(s.GoldenPath())
	missing := errors.Is(statErr, fs.ErrNotExist)
	if r.opt.Update || missing && r.opt.Mode.CreatesGoldens() {
		if err := g.Update(r.opt.TestingT, name, trace); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		return nil
	}
	h := r.hints(*s)
	if missing {
		return fmt.Errorf("golden trace %s/%s.golden is missing%s", r.GoldenDir(), s.Slug, fix("create it", h.CreateGolden))
	}
	if UpdateFlag() {
		res, err := golden.Compare(s.GoldenPath(), trace, golden.Options{})
		if err != nil || res.Diff == "" {
			return err
		}
		return &DriftError{Slug: s.Slug, Update: h.Update, Diff: res.Diff}
	}
	ct := &collectT{TB: r.opt.TestingT}
	g.Assert(ct, name, trace)
	if len(ct.errs) == 0 {
		return nil
	}
	want, err := os.ReadFile(s.GoldenPath())
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	return &DriftError{Slug: s.Slug, Update: h.Update, Diff: golden.Diff(want, trace)}
}

// collectT keeps what goldie reports instead of failing the test: the
// runner turns it into the scenario's failure (a scenario's After hook
// must not end its goroutine, as FailNow would).
type collectT struct {
	testing.TB
	errs []string
}

func (c *collectT) Helper()                   {}
func (c *collectT) Error(args ...any)         { c.errs = append(c.errs, fmt.Sprint(args...)) }
func (c *collectT) Errorf(f string, a ...any) { c.errs = append(c.errs, fmt.Sprintf(f, a...)) }
func (c *collectT) Fatal(args ...any)         { c.Error(args...) }
func (c *collectT) Fatalf(f string, a ...any) { c.Errorf(f, a...) }
func (c *collectT) FailNow()                  {}
func (c *collectT) Fail()                     {}
