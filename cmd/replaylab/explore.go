package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/replaylab/replaylab/explore"
	"github.com/replaylab/replaylab/ledger"
)

// pgURLEnv names the PostgreSQL server of --store postgres.
const pgURLEnv = "REPLAYLAB_PG_URL"

func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("explore", stderr)
	opt := explore.DefaultOptions
	seed := fs.Uint64("seed", opt.Seed, "first seed (alone: rerun that seed)")
	fs.IntVar(&opt.Seeds, "seeds", opt.Seeds, fmt.Sprintf("number of seeds to run, from --seed on (at most %d)", explore.SeedsMax))
	fs.IntVar(&opt.Steps, "steps", opt.Steps, fmt.Sprintf("steps per schedule (at most %d)", explore.StepsMax))
	fs.IntVar(&opt.Answers, "answers", opt.Answers, fmt.Sprintf("answer cases (scripted chat pages the engine waits on, lab clock and replay) per seed (at most %d)", explore.AnswersMax))
	fs.StringVar(&opt.Store, "store", opt.Store, "the ledger's store: sqlite (a temp file per run) or postgres (a fresh schema per run on $"+pgURLEnv+")")
	fs.DurationVar(&opt.Budget, "budget", 0, "stop starting new seeds after this much wall time (0: no budget)")
	noShrink := fs.Bool("no-shrink", false, "print a violating schedule without shrinking it")
	printRuns := fs.Bool("print", false, "print every seed's schedule and what each step did (default when one seed runs)")
	fs.IntVar(&opt.ProgressEvery, "progress-every", opt.ProgressEvery, "a progress line every N seeds when stderr is not a terminal (0: none)")
	plant := fs.String("plant", "", "build the ledger with a deliberate defect, the explorer's self-test ("+string(ledger.PlantClaimWithoutCheck)+")")
	for _, n := range opt.Faults.Named() {
		fs.Float64Var(n.P, "fault-"+n.Name, *n.P, n.Usage)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	if len(pos) > 0 {
		return exitBadInput, badInput("unexpected arguments %v", pos)
	}
	opt.Seed, opt.Shrink, opt.Plant = *seed, !*noShrink, ledger.PlantedBug(*plant)
	if opt.Store == explore.StorePostgres {
		opt.PGURL = os.Getenv(pgURLEnv)
		if opt.PGURL == "" {
			return exitBadInput, badInput("--store postgres needs %s=postgres://user:pass@127.0.0.1:5432/db?sslmode=disable", pgURLEnv)
		}
	}
	if opt.ProgressEvery < 0 {
		return exitBadInput, badInput("--progress-every must not be negative")
	}
	if err := opt.Check(); err != nil {
		return exitBadInput, badInput("%v", err)
	}
	if *printRuns || opt.Seeds == 1 {
		opt.OnSeed = func(seed uint64, s explore.Schedule, out explore.Outcome) {
			fmt.Fprintf(stdout, "seed %d:\n%s", seed, out)
		}
	}
	last := opt.Seed + uint64(opt.Seeds) - 1
	fmt.Fprintf(stdout, "explore: seeds %d..%d, %d steps each, store %s\n", opt.Seed, last, opt.Steps, opt.Store)
	rep, err := explore.Run(ctx, opt, stderr, isTerminal(stderr))
	if err != nil {
		return exitFailed, err
	}
	if f := rep.Failure; f != nil {
		v := f.Violation()
		where := fmt.Sprintf("step %d", v.Step)
		if f.Answer > 0 {
			where = fmt.Sprintf("answer case %d", f.Answer)
		}
		fmt.Fprintf(stdout, "explore: VIOLATION at seed %d, %s: %s: %s\n", f.Seed, where, v.Invariant, v.Detail)
		fmt.Fprintf(stdout, "rerun: %s\n", rerunCommand(opt, f.Seed))
		fmt.Fprintf(stdout, "schedule (%d lines to the violation):\n%s", len(f.Outcome.Lines), indent(f.Outcome.String()))
		switch {
		case f.Answer > 0 && f.ShrunkCase != nil:
			what := "no longer fails"
			if sv := f.ShrunkCaseO.Violation; sv != nil {
				what = fmt.Sprintf("fails: %s: %s", sv.Invariant, sv.Detail)
			}
			fmt.Fprintf(stdout, "shrunk answer case (%d of %d transitions, %d runs; %s):\n  %s\n", len(f.ShrunkCase.Events), len(f.Case.Events), f.Runs, what, f.ShrunkCaseO.Line)
		case f.Shrunk != nil:
			sv := f.ShrunkOf.Violation
			what := "no longer fails"
			if sv != nil {
				what = fmt.Sprintf("fails at step %d: %s: %s", sv.Step, sv.Invariant, sv.Detail)
			}
			fmt.Fprintf(stdout, "shrunk schedule (%d steps, %d runs; %s):\n%s", len(f.Shrunk), f.Runs, what, indent(f.ShrunkOf.String()))
		}
		fmt.Fprintf(stdout, "explore: 1 violation after %d clean seeds, %d steps, %d answer waits, %s\n", rep.Seeds, rep.Steps, rep.Answers, rep.Elapsed.Round(1e6))
		return exitFailed, nil
	}
	stop := ""
	if rep.Budget {
		stop = fmt.Sprintf(" (stopped by --budget %s after seed %d)", opt.Budget, opt.Seed+uint64(rep.Seeds)-1)
	}
	fmt.Fprintf(stdout, "explore: %d seeds, %d steps, %d answer waits, store %s, 0 violations, %s%s\n", rep.Seeds, rep.Steps, rep.Answers, opt.Store, rep.Elapsed.Round(1e6), stop)
	return exitOK, nil
}

// rerunCommand is the command that replays one seed exactly: its seed,
// steps, store and every option that differs from the defaults.
func rerunCommand(opt explore.Options, seed uint64) string {
	parts := []string{"replaylab explore", fmt.Sprintf("--seed %d", seed), fmt.Sprintf("--steps %d", opt.Steps), fmt.Sprintf("--answers %d", opt.Answers), "--store " + opt.Store}
	def := explore.DefaultFaults
	defs := def.Named()
	for i, n := range opt.Faults.Named() {
		if *n.P != *defs[i].P {
			parts = append(parts, fmt.Sprintf("--fault-%s %v", n.Name, *n.P))
		}
	}
	if opt.Plant != "" {
		parts = append(parts, "--plant "+string(opt.Plant))
	}
	return strings.Join(parts, " ")
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
