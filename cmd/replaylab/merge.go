package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/replaylab/replaylab/report"
)

// cmdMergeReports merges the HTML report directories of shards (their
// report.json) into one HTML report, JUnit and Cucumber JSON.
func cmdMergeReports(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("merge-reports", stderr)
	out := fs.String("out", "merged-report", "directory of the merged report: index.html, report.json, junit.xml, cucumber.json")
	failOnFlaky := fs.Bool("fail-on-flaky", false, "exit 1 when a merged scenario is flaky")
	allowPartial := fs.Bool("allow-partial", false, "merge shards even when some are missing, given twice or of different splits")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(dirs) == 0 {
		return exitBadInput, badInput("want the shards' report directories (each a run's html:DIR), got none")
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, report.ModelFile)); err != nil {
			return exitBadInput, badInput("%s: no %s (run each shard with --format html:DIR): %v", d, report.ModelFile, errors.Unwrap(err))
		}
	}
	if err := report.CheckShardDirs(dirs...); err != nil {
		if !errors.Is(err, report.ErrShards) {
			return exitBadInput, badInput("%v", err)
		}
		if !*allowPartial {
			return exitBadInput, badInput("%v (merge them anyway with --allow-partial)", err)
		}
		fmt.Fprintf(stderr, "replaylab merge-reports: WARNING: %v (--allow-partial)\n", err)
	}
	m, err := report.MergeDirs(*out, dirs...)
	if errors.Is(err, report.ErrVersion) || errors.Is(err, report.ErrMalformed) {
		return exitBadInput, badInput("%v", err)
	}
	if err != nil {
		return exitFailed, err
	}
	fmt.Fprintf(stdout, "merged %d reports (%v): %s\n", len(dirs), m.Shards, m.Summary.Line())
	fmt.Fprintf(stdout, "wrote %s (%d bytes), %s, %s, %s\n", filepath.Join(*out, report.HTMLFile), report.Size(*out),
		filepath.Join(*out, report.ModelFile), filepath.Join(*out, report.JUnitFile), filepath.Join(*out, report.CucumberFile))
	if !m.OK(*failOnFlaky) {
		return exitFailed, fmt.Errorf("the merged run has failures: %s", m.Summary.Line())
	}
	return exitOK, nil
}
