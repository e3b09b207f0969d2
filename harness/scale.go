package harness

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/report"
)

// Scale holds what a run does beyond running each selected scenario once:
// the report files, its shard of the selection, retries and repetitions.
type Scale struct {
	// Shard runs one part of the selected scenarios (zero: all).
	Shard Shard
	// Retries re-runs a failed scenario up to this many times; one that
	// fails and then passes is flaky.
	Retries int
	// RepeatEach runs every scenario this many times (0 or 1: once).
	RepeatEach int
	// FailFast stops at the first failed scenario.
	FailFast bool
	// FailOnFlaky makes a flaky scenario fail the run (default: it
	// passes with a warning line).
	FailOnFlaky bool
	// Progress shows which scenario runs and how many are left on
	// Stderr: one updating line on a terminal, a line per scenario
	// otherwise.
	Progress bool
	// Stderr gets warnings, the report sizes and progress (default
	// os.Stderr).
	Stderr io.Writer
}

// Shard is part i of n (1-based) of a run's scenarios.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("steps: --shard wants i/n with 1 ≤ i ≤ n (e.g. 2/4), got %q", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "i/n", or "" for no sharding.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

func (r *Runner) stderr() io.Writer {
	if r.opt.Scale.Stderr != nil {
		return r.opt.Scale.Stderr
	}
	return r.opt.Stderr // os.Stderr unless told
}

// runScaled runs the selection (its shard) with the report model
// collected: once, or repeated (RepeatEach), failed scenarios re-run
// (Retries) and stopping at the first failure (FailFast); then it writes
// the report files. The exit status comes from the model: 0 when no
// scenario failed or was undefined (and none was flaky, with FailOnFlaky).
func (r *Runner) runScaled(sel []Scenario) int {
	sc := r.opt.Scale
	godogFormats, outs, err := splitFormats(r.opt.Format)
	if err != nil {
		fmt.Fprintln(r.stderr(), err)
		return 2
	}
	if err := r.CheckOutputs(); err != nil {
		fmt.Fprintf(r.stderr(), "%s: %v\n", r.name(), err)
		return 2
	}
	if sc.Shard.Count > 1 {
		all := len(sel)
		sel = ShardOf(sel, sc.Shard, r.replayCost())
		fmt.Fprintf(r.stderr(), "%s: shard %s: %d of the %d selected scenarios\n", r.name(), sc.Shard, len(sel), all)
	}
	if r.opt.Concurrency > 1 {
		sel = HeaviestFirst(sel, r.orderCost())
	}
	if len(outs) == 0 && sc.Retries == 0 && sc.RepeatEach <= 1 && !sc.Progress && sc.Shard.Count <= 1 {
		fsys, paths, err := serve(sel, r.feats)
		if err != nil {
			fmt.Fprintf(r.stderr(), "%s: %v\n", r.name(), err)
			return ExitCode(err)
		}
		return r.runGodog(r.opt.Format, fsys, paths, sel)
	}
	html := false
	for _, o := range outs {
		html = html || o.kind == "html" || o.kind == "message" // both show captures
	}
	c := newCollector(r, html)
	r.collect = c
	if sc.Progress {
		c.prog = newProgress(r.stderr())
	}
	format := c.formatterName()
	if godogFormats != "" {
		format += "," + godogFormats
	}
	reps := max(sc.RepeatEach, 1)
	godogStatus, passes := 0, 0
	stopped := false
	for rep := 1; rep <= reps && !stopped && len(sel) > 0; rep++ {
		if reps > 1 {
			c.setRepeat(rep)
		}
		queue := sel
		for len(queue) > 0 {
			c.prog.plan(len(queue))
			before := map[string]int{}
			for _, q := range queue {
				before[q.ID()] = c.attempts(q.ID())
			}
			fsys, paths, err := serve(queue, r.feats)
			if err != nil {
				fmt.Fprintf(r.stderr(), "%s: %v\n", r.name(), err)
				return ExitCode(err)
			}
			passes++
			if st := r.runGodog(format, fsys, paths, queue); st > godogStatus {
				godogStatus = st
			}
			var retry, notRun []Scenario
			failed, ran := false, 0
			for _, q := range queue {
				n := c.attempts(q.ID())
				if n == before[q.ID()] {
					notRun = append(notRun, q)
					continue
				}
				ran++
				if c.lastStatus(q.ID()) == report.Failed {
					if n <= sc.Retries {
						retry = append(retry, q)
					} else {
						failed = true
					}
				}
			}
			if ran == 0 || (sc.FailFast && failed) {
				stopped = sc.FailFast && failed
				break
			}
			if len(retry) > 0 {
				fmt.Fprintf(r.stderr(), "%s: retrying %d failed scenario(s): %s\n", r.name(), len(retry), scenarioIDs(retry))
			}
			queue = retry
			if sc.FailFast { // godog stopped at the failure: go on after the retries
				queue = append(queue, notRun...)
			}
		}
	}
	c.prog.done()
	run := c.finish()
	if err := c.writeReports(outs, r.opt.Output, r.stderr()); err != nil {
		fmt.Fprintln(r.stderr(), err)
		return 1
	}
	blameAfterSteps(r.stderr(), r.name(), run)
	// godog counts a scenario that skipped itself as passed: this line
	// counts it as skipped, as the reports do
	fmt.Fprintf(r.stderr(), "%s: %s\n", r.name(), run.Summary.Line())
	if r.interrupted() {
		// cut short: its costs and failures describe no whole run; the
		// files keep the last whole run's
		return 1
	}
	// a shard keeps no costs: every shard of a split must weigh alike
	if r.opt.CostFile != "" && r.opt.Mode == ModeReplayOnly && sc.Shard.Count <= 1 {
		if err := saveCosts(r.opt.CostFile, run); err != nil {
			fmt.Fprintf(r.stderr(), "%s: WARNING: the replay costs are not kept for --shard: %v\n", r.name(), err)
		}
	}
	if r.opt.LiveCostFile != "" && r.opt.Mode.AlwaysLive() && sc.Shard.Count <= 1 {
		if err := saveCosts(r.opt.LiveCostFile, run); err != nil {
			fmt.Fprintf(r.stderr(), "%s: WARNING: the live costs are not kept for the order of live runs: %v\n", r.name(), err)
		}
	}
	if r.opt.RerunFile != "" {
		if err := WriteRerun(r.opt.RerunFile, run); err != nil {
			fmt.Fprintf(r.stderr(), "%s: WARNING: the failed scenarios are not kept for --last-failed: %v\n", r.name(), err)
		}
	}
	if stopped {
		fmt.Fprintf(r.stderr(), "%s: --fail-fast: stopped at the first failed scenario\n", r.name())
	}
	if run.Summary.Flaky > 0 {
		var names []string
		for _, x := range run.Scenarios {
			if x.Status == report.Flaky {
				names = append(names, x.ID+" "+x.Name)
			}
		}
		verdict := "passing the run (--fail-on-flaky makes them fail it)"
		if sc.FailOnFlaky {
			verdict = "failing the run (--fail-on-flaky)"
		}
		fmt.Fprintf(r.stderr(), "%s: WARNING: %d flaky scenario(s), failed then passed on a retry, %s: %s\n", r.name(), run.Summary.Flaky, verdict, strings.Join(names, "; "))
	}
	switch {
	case godogStatus == 2:
		return 2
	case !run.OK(sc.FailOnFlaky):
		return 1
	case passes == 1 && godogStatus != 0:
		return godogStatus // a single pass: godog's verdict stands too
	}
	return 0
}

func scenarioIDs(list []Scenario) string {
	var out []string
	for _, q := range list {
		out = append(out, q.ID())
	}
	return strings.Join(out, ", ")
}

// blameAfterSteps prints a line for each scenario that failed after its
// last step (golden drift, a missing golden, a session not saved) naming
// the scenario's own file:line: godog shows such a failure under the last
// step, whose line is not what failed.
func blameAfterSteps(w io.Writer, name string, run *report.Run) {
	for _, sc := range run.Scenarios {
		if len(sc.Attempts) == 0 {
			continue
		}
		a := sc.Last()
		if a.Status != report.Failed || a.AfterError == "" {
			continue
		}
		msg, _, _ := strings.Cut(a.AfterError, "\n")
		msg = strings.Replace(msg, "(check the diff below)", "(check the diff above)", 1)
		loc := a.AfterLocation
		if loc == "" {
			loc = sc.ID
		}
		fmt.Fprintf(w, "%s: %s: %s: failed after its last step: %s\n", name, loc, sc.Name, msg)
	}
}
