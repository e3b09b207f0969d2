package selftest

// Explorer steps (SPEC §11 EXP-1, EXP-2): thin glue over package explore.
// The explorer runs the real ledger on a fresh SQLite file or PostgreSQL
// schema with the sim's providers; no page is read, so the trace is the
// same under both drivers. The trace holds every step a run printed (the
// schedule and what each step did), never a time, id or backend name, so
// the golden itself says that a seed replays exactly, on either store.

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/explore"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/steps"
)

// exploreState is one scenario's explorer runs.
type exploreState struct {
	plant ledger.PlantedBug
	runs  []explore.Outcome // single-seed runs, in order
	waits []explore.AnswerOutcome
	rep   *explore.Report // the last multi-seed run
}

func exploreSteps(r *steps.Table) {
	r.Step(`^the ledger is built with the planted bug "([a-z-]+)"$`,
		"the explorer's next runs use a ledger built with that deliberate defect (the explorer's self-test; claim-without-check: a success claims the winner without checking the job's version)",
		`Given the ledger is built with the planted bug "claim-without-check"`, expGivenPlant)
	r.Step(`^the explorer runs seed (\d+) with (\d+) steps on "(sqlite|postgres)"(?: again)?$`,
		"draws that seed's schedule and runs it on the real ledger in a fresh store, checking the invariants after every step; the trace gets every step and what it did",
		`When the explorer runs seed 3 with 30 steps on "sqlite"`, expRunSeed)
	r.Step(`^the explorer runs seeds (\d+) to (\d+) with (\d+) steps on "(sqlite|postgres)"$`,
		"runs those seeds in order and stops at the first violation, which it shrinks",
		`When the explorer runs seeds 1 to 20 with 40 steps on "sqlite"`, expRunSeeds)
	r.Step(`^the explorer runs answer case (\d+) of seed (\d+)(?: again)?$`,
		"draws that seed's answer case (a scripted chat page and its transitions after the send), waits for the answer with the real engine on the lab clock while recording, replays the recording with the replay driver, and checks both against the script",
		"When the explorer runs answer case 1 of seed 7", expRunAnswer)
	r.Step(`^the answer runs printed the same line$`,
		"every answer-case run of the scenario printed the same case and result",
		"Then the answer runs printed the same line", expSameWaits)
	r.Step(`^the answer wait kept every invariant$`,
		"the last answer-case run took the new group, with media only from it, ended as the script implies, and its replay read the same",
		"Then the answer wait kept every invariant", expWaitKept)
	r.Step(`^the runs printed the same schedule and outcome$`,
		"every single-seed run of the scenario printed the same lines, step by step",
		"Then the runs printed the same schedule and outcome", expSameRuns)
	r.Step(`^the run found no violation$`, "the last single-seed run kept every invariant",
		"Then the run found no violation", expNoViolation)
	r.Step(`^the explorer reports a violation of "([^"]+)" within (\d+) seeds$`,
		"the multi-seed run stopped at a violation of that invariant no later than that many seeds from its first",
		`Then the explorer reports a violation of "at most one winner" within 12 seeds`, expViolationWithin)
	r.Step(`^the shrunk schedule has at most (\d+) steps and still fails$`,
		"the violation was shrunk to a schedule of at most N steps that breaks the same invariant when run again",
		"Then the shrunk schedule has at most 3 steps and still fails", expShrunkAtMost)
	r.Step(`^the shrunk schedule passes on the real ledger$`,
		"the shrunk schedule keeps every invariant on a ledger without the planted bug: the explorer found the bug, not itself",
		"Then the shrunk schedule passes on the real ledger", expShrunkPassesClean)
}

func expState(w steps.World) *exploreState { return steps.State[exploreState](w) }

func expGivenPlant(ctx context.Context, bug string) error {
	expState(steps.WorldOf(ctx)).plant = ledger.PlantedBug(bug)
	return nil
}

// expOptions are the explorer options of a step; a postgres run without
// REPLAYLAB_PG_URL skips the scenario (fails in CI).
func expOptions(w steps.World, store string, n int) (explore.Options, error) {
	opt := explore.DefaultOptions
	opt.Store, opt.Steps, opt.Plant = store, n, expState(w).plant
	if store == explore.StorePostgres {
		var err error
		if opt.PGURL, err = w.NeedPostgres("explore steps", "to explore on PostgreSQL"); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

func expTrace(w steps.World, kind string, out explore.Outcome) {
	for i, l := range out.Lines {
		w.Emit(trace.E("explore."+kind, trace.A("n", strconv.Itoa(i+1)), trace.A("line", l)))
	}
	if v := out.Violation; v != nil {
		w.Emit(trace.E("explore.violation", trace.A("step", strconv.Itoa(v.Step)), trace.A("invariant", string(v.Invariant)), trace.A("detail", v.Detail)))
	}
}

func expRunSeed(ctx context.Context, seed, n int, store string) error {
	w := steps.WorldOf(ctx)
	opt, err := expOptions(w, store, n)
	if err != nil {
		return err
	}
	out, err := explore.RunSchedule(ctx, opt, explore.Generate(uint64(seed), n, opt.Faults))
	if err != nil {
		return err
	}
	st := expState(w)
	st.runs = append(st.runs, out)
	w.Emit(trace.E("explore.run", trace.A("seed", strconv.Itoa(seed)), trace.A("steps", strconv.Itoa(n)), trace.A("plant", string(opt.Plant))))
	expTrace(w, "step", out)
	return nil
}

func expRunSeeds(ctx context.Context, first, last, n int, store string) error {
	w := steps.WorldOf(ctx)
	opt, err := expOptions(w, store, n)
	if err != nil {
		return err
	}
	if last < first {
		return fmt.Errorf("explore steps: seeds %d to %d: the last is before the first", first, last)
	}
	opt.Seed, opt.Seeds = uint64(first), last-first+1
	rep, err := explore.Run(ctx, opt, nil, false)
	if err != nil {
		return err
	}
	expState(w).rep = &rep
	w.Emit(trace.E("explore.seeds", trace.A("first", strconv.Itoa(first)), trace.A("last", strconv.Itoa(last)),
		trace.A("clean", strconv.Itoa(rep.Seeds)), trace.A("plant", string(opt.Plant))))
	if f := rep.Failure; f != nil {
		w.Emit(trace.E("explore.failure", trace.A("seed", strconv.FormatUint(f.Seed, 10)),
			trace.A("schedule_steps", strconv.Itoa(len(f.Outcome.Lines))), trace.A("shrunk_steps", strconv.Itoa(len(f.Shrunk)))))
		expTrace(w, "shrunk", f.ShrunkOf)
	}
	return nil
}

func expSameRuns(ctx context.Context) error {
	runs := expState(steps.WorldOf(ctx)).runs
	if len(runs) < 2 {
		return fmt.Errorf("explore steps: %d single-seed runs, want at least 2 to compare", len(runs))
	}
	for i, r := range runs[1:] {
		if got, want := r.String(), runs[0].String(); got != want {
			return fmt.Errorf("explore steps: run %d printed\n%s\nrun 1 printed\n%s", i+2, got, want)
		}
	}
	return nil
}

func expNoViolation(ctx context.Context) error {
	runs := expState(steps.WorldOf(ctx)).runs
	if len(runs) == 0 {
		return errors.New("explore steps: no single-seed run yet")
	}
	if v := runs[len(runs)-1].Violation; v != nil {
		return fmt.Errorf("explore steps: violation: %v\n%s", v, runs[len(runs)-1])
	}
	return nil
}

func expFailure(w steps.World) (*explore.Failure, error) {
	rep := expState(w).rep
	if rep == nil {
		return nil, errors.New("explore steps: no multi-seed run yet")
	}
	if rep.Failure == nil {
		return nil, fmt.Errorf("explore steps: no violation in %d seeds", rep.Seeds)
	}
	return rep.Failure, nil
}

func expViolationWithin(ctx context.Context, inv string, seeds int) error {
	w := steps.WorldOf(ctx)
	f, err := expFailure(w)
	if err != nil {
		return err
	}
	v := f.Violation()
	if string(v.Invariant) != inv {
		return fmt.Errorf("explore steps: violation of %q (%s), want %q", v.Invariant, v.Detail, inv)
	}
	if n := f.Seed - expState(w).rep.Options.Seed + 1; n > uint64(seeds) {
		return fmt.Errorf("explore steps: found at the %d-th seed (%d), want within %d", n, f.Seed, seeds)
	}
	return nil
}

func expShrunkAtMost(ctx context.Context, n int) error {
	w := steps.WorldOf(ctx)
	f, err := expFailure(w)
	if err != nil {
		return err
	}
	if f.Shrunk == nil {
		return errors.New("explore steps: the violation was not shrunk")
	}
	if len(f.Shrunk) > n {
		return fmt.Errorf("explore steps: shrunk to %d steps, want at most %d:\n%s", len(f.Shrunk), n, f.Shrunk)
	}
	opt := expState(w).rep.Options
	out, err := explore.RunSchedule(ctx, opt, f.Shrunk)
	if err != nil {
		return err
	}
	if out.Violation == nil || out.Violation.Invariant != f.Violation().Invariant {
		return fmt.Errorf("explore steps: the shrunk schedule, run again, gave %v; want a violation of %q", out.Violation, f.Violation().Invariant)
	}
	return nil
}

func expShrunkPassesClean(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	f, err := expFailure(w)
	if err != nil {
		return err
	}
	opt := expState(w).rep.Options
	opt.Plant = ""
	out, err := explore.RunSchedule(ctx, opt, f.Shrunk)
	if err != nil {
		return err
	}
	if out.Violation != nil {
		return fmt.Errorf("explore steps: the shrunk schedule fails on the real ledger too: %v\n%s", out.Violation, out)
	}
	return nil
}

func expRunAnswer(ctx context.Context, i, seed int) error {
	w := steps.WorldOf(ctx)
	if i < 1 {
		return fmt.Errorf("explore steps: answer cases count from 1, got %d", i)
	}
	out, err := explore.RunAnswer(ctx, explore.GenerateAnswer(uint64(seed), i-1))
	if err != nil {
		return err
	}
	st := expState(w)
	st.waits = append(st.waits, out)
	w.Emit(trace.E("explore.answer", trace.A("seed", strconv.Itoa(seed)), trace.A("case", strconv.Itoa(i)), trace.A("line", out.Line)))
	if v := out.Violation; v != nil {
		w.Emit(trace.E("explore.violation", trace.A("invariant", string(v.Invariant)), trace.A("detail", v.Detail)))
	}
	return nil
}

func expSameWaits(ctx context.Context) error {
	waits := expState(steps.WorldOf(ctx)).waits
	if len(waits) < 2 {
		return fmt.Errorf("explore steps: %d answer-case runs, want at least 2 to compare", len(waits))
	}
	for i, o := range waits[1:] {
		if o.Line != waits[0].Line {
			return fmt.Errorf("explore steps: answer run %d printed %q, run 1 %q", i+2, o.Line, waits[0].Line)
		}
	}
	return nil
}

func expWaitKept(ctx context.Context) error {
	waits := expState(steps.WorldOf(ctx)).waits
	if len(waits) == 0 {
		return errors.New("explore steps: no answer-case run yet")
	}
	if v := waits[len(waits)-1].Violation; v != nil {
		return fmt.Errorf("explore steps: %s: %v", waits[len(waits)-1].Line, v)
	}
	return nil
}
