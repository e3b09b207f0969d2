package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/replaylab/replaylab/harness"
)

// exitDryRunProblems is the exit code of a dry run that found problems:
// distinct from a failed run (1) and from bad input (2).
const exitDryRunProblems = 3

// dryRunReport runs the dry run of r's selection (harness.Runner.DryRun)
// and prints each problem as file:line: code: message, with the command
// that fixes a recording, then a summary line. It starts nothing and
// writes no file.
func dryRunReport(r *harness.Runner, stdout, stderr io.Writer) (int, error) {
	defer r.Close()
	sel, _ := r.Selected()
	problems, err := r.DryRun()
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s:%d: %s: %s\n", p.File, p.Line, p.Code, p.Message)
		if len(p.Command) > 0 {
			fmt.Fprintf(stdout, "    fix it with: %s\n", harness.ShellJoin(p.Command))
		}
	}
	if err != nil {
		return exitFailed, fmt.Errorf("dry run: %w", err)
	}
	if len(problems) == 0 {
		fmt.Fprintf(stderr, "replaylab run --dry-run: %d scenarios checked, no problem\n", len(sel))
		return exitOK, nil
	}
	counts := map[string]int{}
	var order []string
	for _, p := range problems {
		if counts[p.Code] == 0 {
			order = append(order, p.Code)
		}
		counts[p.Code]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[c], c)
	}
	return exitDryRunProblems, fmt.Errorf("%w: %d in %d scenarios (%s)", harness.ErrDryRunProblems, len(problems), len(sel), strings.Join(parts, ", "))
}
