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
// report.json) into one HTML report, JUnit, Cucumber JSON and, when the
// runs' feature files are found, one Cucumber Messages stream.
func cmdMergeReports(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("merge-reports", stderr)
	out := fs.String("out", "merged-report", "directory of the merged report: index.html, report.json, junit.xml, cucumber.json, messages.ndjson")
	failOnFlaky := fs.Bool("fail-on-flaky", false, "exit 1 when a merged scenario is flaky")
	allowPartial := fs.Bool("allow-partial", false, "merge shards even when some are missing, given twice or of different splits")
	root := fs.String("root", "", "directory holding the runs' features/, to write messages.ndjson (default: the nearest directory at or above the current one that has features/; none: no messages.ndjson)")
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
	if *root == "" {
		*root, _ = findRoot(".")
	} else if st, err := os.Stat(*root); err != nil || !st.IsDir() {
		return exitBadInput, badInput("--root %s: not a directory", *root)
	}
	if *root != "" {
		path := filepath.Join(*out, report.MessagesFile)
		err := report.WriteFile(path, func(w io.Writer) error {
			return report.WriteMessages(w, m, report.MessageOptions{Root: *root})
		})
		if errors.Is(err, report.ErrMessagesSource) {
			return exitBadInput, badInput("%v (pass the runs' project with --root DIR)", err)
		}
		if err != nil {
			return exitFailed, err
		}
		fmt.Fprintf(stdout, "wrote %s (Cucumber Messages)\n", path)
	}
	fmt.Fprintf(stdout, "merged %d reports (%v): %s\n", len(dirs), m.Shards, m.Summary.Line())
	fmt.Fprintf(stdout, "wrote %s (%d bytes), %s, %s, %s\n", filepath.Join(*out, report.HTMLFile), report.Size(*out),
		filepath.Join(*out, report.ModelFile), filepath.Join(*out, report.JUnitFile), filepath.Join(*out, report.CucumberFile))
	if !m.OK(*failOnFlaky) {
		return exitFailed, fmt.Errorf("the merged run has failures: %s", m.Summary.Line())
	}
	return exitOK, nil
}
