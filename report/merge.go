package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Names of the files MergeDirs writes beside the HTML report.
const (
	JUnitFile    = "junit.xml"
	CucumberFile = "cucumber.json"
)

// MergeDirs reads the model (report.json) of each shard's HTML report
// directory, merges them, and writes the merged HTML report, its model,
// JUnit and Cucumber JSON into out.
func MergeDirs(out string, dirs ...string) (*Run, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("report: merge: no report directory given")
	}
	var runs []*Run
	for _, d := range dirs {
		r, err := Load(filepath.Join(d, ModelFile))
		if err != nil {
			return nil, fmt.Errorf("report: merge %s (an html:DIR of a run): %w", d, err)
		}
		runs = append(runs, r)
	}
	m, err := Merge(runs...)
	if err != nil {
		return nil, err
	}
	if err := WriteHTML(out, m); err != nil {
		return nil, err
	}
	var j, c bytes.Buffer
	if err := WriteJUnit(&j, m); err != nil {
		return nil, err
	}
	if err := WriteCucumber(&c, m); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(out, JUnitFile), j.Bytes()); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(out, CucumberFile), c.Bytes()); err != nil {
		return nil, err
	}
	return m, nil
}

// Line is the summary as one line.
func (s Summary) Line() string {
	return fmt.Sprintf("%d scenarios: %d passed, %d failed, %d flaky, %d skipped, %d undefined, %d drift (%d attempts)",
		s.Scenarios, s.Passed, s.Failed, s.Flaky, s.Skipped, s.Undefined, s.Drift, s.Attempts)
}

// WriteFile writes a report file at path through write, creating its
// directory: the one writer of the run's and the merged reports' files.
func WriteFile(path string, write func(io.Writer) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
