package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Outcome is what one run of a schedule did: one line per step, in
// order, and the first violation (nil when every invariant held).
type Outcome struct {
	Lines     []string
	Violation *Violation
}

// String is the schedule's steps with what each did, one per line.
func (o Outcome) String() string {
	var b strings.Builder
	for _, l := range o.Lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if o.Violation != nil {
		fmt.Fprintf(&b, "VIOLATION %s\n", o.Violation)
	}
	return b.String()
}

// RunSchedule runs s on a fresh database with the real ledger and the
// sim's providers, checking every invariant after every step; it stops at
// the first violation. The error is a failure of the explorer itself (the
// store would not open), never a violation.
func RunSchedule(ctx context.Context, opt Options, s Schedule) (Outcome, error) {
	w, err := openWorld(ctx, opt)
	if err != nil {
		return Outcome{}, err
	}
	out, err := w.run(ctx, s)
	return out, errors.Join(err, w.close(context.WithoutCancel(ctx)))
}

func (w *world) run(ctx context.Context, s Schedule) (Outcome, error) {
	var out Outcome
	for i, a := range s[:min(len(s), StepsMax)] {
		sctx, cancel := context.WithTimeout(ctx, StepTimeout)
		what, v, err := w.step(sctx, a)
		if err == nil && v == nil {
			err = w.settle(sctx)
		}
		if err == nil && v == nil {
			v, err = w.check(sctx, a)
		}
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			return out, fmt.Errorf("explore: step %d (%s): %w", i+1, a, err)
		}
		line := fmt.Sprintf("%3d. %-22s %s", i+1, a, what)
		if v != nil {
			v.Step = i + 1
			out.Lines = append(out.Lines, line)
			out.Violation = v
			return out, nil
		}
		out.Lines = append(out.Lines, line+w.summary(a))
	}
	return out, nil
}

// summary is the state of the job a step touched, e.g. " | j1 running v3
// [superseded starting]".
func (w *world) summary(a Action) string {
	if a.Job < 1 || a.Job > JobsMax || w.prev[a.Job] == nil {
		return ""
	}
	j := w.prev[a.Job].job
	var st []string
	for _, at := range j.Attempts {
		s := string(at.State)
		if at.Applied {
			s += "*"
		}
		st = append(st, s)
	}
	return fmt.Sprintf(" | j%d %s v%d [%s]", a.Job, j.State, j.Version, strings.Join(st, " "))
}

// Failure is a seed whose schedule broke an invariant: its ledger
// schedule, or (Answer > 0) its Answer-th answer case.
type Failure struct {
	Seed     uint64
	Schedule Schedule
	Outcome  Outcome  // the ledger schedule's run (and the answer lines before the failing case)
	Shrunk   Schedule // nil when not shrunk or when an answer case failed
	ShrunkOf Outcome  // the shrunk schedule's run
	Runs     int      // runs the shrink made

	Answer      int // 1-based answer case; 0: the ledger schedule failed
	Case        AnswerCase
	CaseOut     AnswerOutcome
	ShrunkCase  *AnswerCase // nil when not shrunk
	ShrunkCaseO AnswerOutcome
}

// Violation is the invariant the failure broke.
func (f *Failure) Violation() *Violation {
	if f.Answer > 0 {
		return f.CaseOut.Violation
	}
	return f.Outcome.Violation
}

// Report is what Run found.
type Report struct {
	Seeds   int // seeds run to the end
	Steps   int // ledger steps run
	Answers int // answer cases run
	Failure *Failure
	Budget  bool // stopped by the time budget
	Elapsed time.Duration
	Options Options
}

// Run explores seeds Seed, Seed+1, … (Seeds of them) and stops at the
// first violation, shrinking it when asked. Progress goes to progress
// (nil: none); tty asks for one updated line instead of a line every
// ProgressEvery seeds.
func Run(ctx context.Context, opt Options, progress io.Writer, tty bool) (Report, error) {
	if err := opt.Check(); err != nil {
		return Report{}, err
	}
	start := time.Now()
	rep := Report{Options: opt}
	defer func() { rep.Elapsed = time.Since(start) }()
	for i := range opt.Seeds {
		if opt.Budget > 0 && time.Since(start) >= opt.Budget {
			rep.Budget = true
			break
		}
		seed := opt.Seed + uint64(i)
		s := Generate(seed, opt.Steps, opt.Faults)
		out, err := RunSchedule(ctx, opt, s)
		if err != nil {
			rep.Elapsed = time.Since(start)
			return rep, fmt.Errorf("explore: seed %d: %w", seed, err)
		}
		rep.Steps += len(out.Lines)
		var f *Failure
		if out.Violation != nil {
			f = &Failure{Seed: seed, Schedule: s, Outcome: out}
		}
		for i := 0; f == nil && i < opt.Answers; i++ {
			c := GenerateAnswer(seed, i)
			ao, err := RunAnswer(ctx, c)
			if err != nil {
				rep.Elapsed = time.Since(start)
				return rep, fmt.Errorf("explore: seed %d answer %d: %w", seed, i+1, err)
			}
			out.Lines = append(out.Lines, fmt.Sprintf("  a%d. %s", i+1, ao.Line))
			rep.Answers++
			if ao.Violation != nil {
				f = &Failure{Seed: seed, Schedule: s, Outcome: out, Answer: i + 1, Case: c, CaseOut: ao}
			}
		}
		if opt.OnSeed != nil {
			opt.OnSeed(seed, s, out)
		}
		if f != nil {
			if opt.Shrink {
				if err := shrinkFailure(ctx, opt, f); err != nil {
					rep.Elapsed = time.Since(start)
					return rep, err
				}
			}
			rep.Failure = f
			break
		}
		rep.Seeds++
		if progress != nil {
			switch {
			case tty:
				fmt.Fprintf(progress, "\rexplore: %d/%d seeds, %d steps, %d answer waits, 0 violations, %s", rep.Seeds, opt.Seeds, rep.Steps, rep.Answers, time.Since(start).Round(time.Second))
			case opt.ProgressEvery > 0 && rep.Seeds%opt.ProgressEvery == 0:
				fmt.Fprintf(progress, "explore: %d/%d seeds, %d steps, %d answer waits, 0 violations, %s\n", rep.Seeds, opt.Seeds, rep.Steps, rep.Answers, time.Since(start).Round(time.Second))
			}
		}
	}
	if progress != nil && tty {
		fmt.Fprintln(progress)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

func shrinkFailure(ctx context.Context, opt Options, f *Failure) error {
	if f.Answer > 0 {
		inv := f.CaseOut.Violation.Invariant
		fails := func(c AnswerCase) (bool, error) {
			out, err := RunAnswer(ctx, c)
			return err == nil && out.Violation != nil && out.Violation.Invariant == inv, err
		}
		c, runs, err := ShrinkAnswer(f.Case, fails, ShrinkRunsMax)
		if err != nil {
			return fmt.Errorf("explore: shrink seed %d answer %d: %w", f.Seed, f.Answer, err)
		}
		out, err := RunAnswer(ctx, c)
		if err != nil {
			return fmt.Errorf("explore: shrink seed %d answer %d: %w", f.Seed, f.Answer, err)
		}
		f.ShrunkCase, f.ShrunkCaseO, f.Runs = &c, out, runs+1
		return nil
	}
	inv := f.Outcome.Violation.Invariant
	// Only the steps up to the violation matter.
	s := f.Schedule[:f.Outcome.Violation.Step]
	fails := func(c Schedule) (bool, error) {
		out, err := RunSchedule(ctx, opt, c)
		if err != nil {
			return false, err
		}
		return out.Violation != nil && out.Violation.Invariant == inv, nil
	}
	shrunk, runs, err := Shrink(s, fails, ShrinkRunsMax)
	if err != nil {
		return fmt.Errorf("explore: shrink seed %d: %w", f.Seed, err)
	}
	out, err := RunSchedule(ctx, opt, shrunk)
	if err != nil {
		return fmt.Errorf("explore: shrink seed %d: %w", f.Seed, err)
	}
	f.Shrunk, f.ShrunkOf, f.Runs = shrunk, out, runs+1
	return nil
}
