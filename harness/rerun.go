package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/report"
)

// LastFailedFile is where a project keeps the scenarios its last run
// failed, from its root (the CLI's --last-failed reads it).
const LastFailedFile = ".replaylab/last-failed.txt"

// ErrNoRerun is a rerun file that does not exist: no run recorded its
// failures yet.
var ErrNoRerun = errors.New("harness: no rerun file")

// WriteRerun writes the scenarios of run that failed (or had an undefined
// step), as Cucumber's rerun format: one file:line a line, relative to
// the project root, in run order. A run with no failure writes an empty
// file.
func WriteRerun(path string, run *report.Run) error {
	var b bytes.Buffer
	seen := map[string]bool{}
	for _, sc := range run.Scenarios {
		if (sc.Status == report.Failed || sc.Status == report.Undefined) && !seen[sc.ID] {
			seen[sc.ID] = true
			b.WriteString(sc.ID + "\n")
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("harness: rerun file: %w", err)
		}
	}
	if err := capture.WriteFileAtomic(path, b.Bytes()); err != nil {
		return fmt.Errorf("harness: rerun file: %w", err)
	}
	return nil
}

// ReadRerun reads a rerun file: the file:line paths to select (possibly
// none: the run it describes passed). A missing file wraps ErrNoRerun.
func ReadRerun(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoRerun, path)
	}
	if err != nil {
		return nil, fmt.Errorf("harness: rerun file: %w", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text())...)
	}
	return out, nil
}

// CheckOutputs verifies that every report file of Options.Format can be
// written (its directory made, a file created in it) before anything
// runs, so an unwritable report is bad input, not a failed run.
func (r *Runner) CheckOutputs() error {
	_, outs, err := splitFormats(r.opt.Format)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		dir := filepath.Dir(o.path)
		if o.kind == "html" {
			dir = o.path
		}
		if err := probeDir(dir); err != nil {
			return fmt.Errorf("cannot write the %s report %s: %w", o.kind, o.path, err)
		}
	}
	return nil
}

// probeDir makes dir and creates (and removes) a file in it.
func probeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".replaylab-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}
