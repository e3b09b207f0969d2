package explore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/replaylab/replaylab/ledger"
)

// Stores the explorer runs the ledger on.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
)

// Bounds: every loop and queue of the explorer has one.
const (
	// StepsMax bounds the steps of one schedule.
	StepsMax = 1000
	// SeedsMax bounds the seeds of one run.
	SeedsMax = 1_000_000
	// JobsMax is the number of logical jobs a schedule names: j1 (alice,
	// k1), j2 (bob, k1), j3 (alice, k2), j4 (bob, k2).
	JobsMax = 4
	// AttemptsMax bounds the attempt numbers a schedule names per job.
	AttemptsMax = 4
	// CopiesMax bounds the concurrent copies of one create or callback.
	CopiesMax = 8
	// ShrinkRunsMax bounds the schedule runs one shrink may make.
	ShrinkRunsMax = 400
	// StepTimeout bounds one step (its operation, the providers settling
	// and the invariant reads).
	StepTimeout = 30 * time.Second
)

// Faults are the probabilities of each kind of step a schedule draws; a
// create takes what is left. Every default is in DefaultFaults.
type Faults struct {
	DoubleClick float64 // a create is sent 2 or more times at once (concurrent duplicates)
	KeyReuse    float64 // the job's key is sent again with other input (must be refused)
	Timeout     float64 // the provider reports: sent, no answer in time
	Fail        float64 // a definite failure callback
	Release     float64 // a held success is delivered (late when the attempt timed out, was superseded or the job cancelled)
	Duplicate   float64 // a success callback delivered again, several copies at once
	Retry       float64 // the owner asks for another attempt without a reason
	Supersede   float64 // a reviewer supersedes the open attempts and starts a new one
	Cancel      float64 // the owner cancels the job
	Rollback    float64 // the global fallback switch is flipped
	Restart     float64 // the store is closed and opened again between steps
	Crash       float64 // the process dies after committing a new attempt, before telling the provider; it restarts and recovers
}

// DefaultFaults are the probabilities explore uses unless told otherwise.
var DefaultFaults = Faults{
	DoubleClick: 0.5,
	KeyReuse:    0.04,
	Timeout:     0.12,
	Fail:        0.07,
	Release:     0.18,
	Duplicate:   0.07,
	Retry:       0.05,
	Supersede:   0.10,
	Cancel:      0.05,
	Rollback:    0.04,
	Restart:     0.06,
	Crash:       0.03,
}

// stepKinds lists the step kinds whose probability Faults holds, in the
// order a draw tries them (create takes what is left). DoubleClick is a
// property of a create, not a kind.
func (f Faults) stepKinds() []struct {
	kind Kind
	p    float64
} {
	return []struct {
		kind Kind
		p    float64
	}{
		{KindReuseKey, f.KeyReuse}, {KindTimeout, f.Timeout}, {KindFail, f.Fail},
		{KindRelease, f.Release}, {KindDuplicate, f.Duplicate}, {KindRetry, f.Retry},
		{KindSupersede, f.Supersede}, {KindCancel, f.Cancel}, {KindRollback, f.Rollback},
		{KindRestart, f.Restart}, {KindCrash, f.Crash},
	}
}

// Named lists every probability with its flag name, for flags and for the
// command that reruns a seed.
func (f *Faults) Named() []NamedProb {
	return []NamedProb{
		{"double-click", "probability that a create is sent several times at once", &f.DoubleClick},
		{"key-reuse", "probability of a step that reuses a job's key with other input", &f.KeyReuse},
		{"timeout", "probability of a step where the provider times out after sending", &f.Timeout},
		{"fail", "probability of a step delivering a definite failure callback", &f.Fail},
		{"release", "probability of a step delivering a held success (first, duplicate or late)", &f.Release},
		{"duplicate", "probability of a step delivering a success callback several times at once", &f.Duplicate},
		{"retry", "probability of a step where the owner retries without a reason", &f.Retry},
		{"supersede", "probability of a step where a reviewer supersedes and starts a new attempt", &f.Supersede},
		{"cancel", "probability of a step where the owner cancels the job", &f.Cancel},
		{"rollback", "probability of a step flipping the global fallback switch", &f.Rollback},
		{"restart", "probability of a step closing and reopening the store", &f.Restart},
		{"crash", "probability of a step where the process dies between committing an attempt and sending it, then restarts and recovers", &f.Crash},
	}
}

// NamedProb is one probability of Faults with its flag name.
type NamedProb struct {
	Name  string
	Usage string
	P     *float64
}

// Check refuses probabilities outside [0, 1] and step probabilities that
// add up to more than 1.
func (f Faults) Check() error {
	sum := 0.0
	for _, n := range f.Named() {
		if *n.P < 0 || *n.P > 1 || *n.P != *n.P {
			return fmt.Errorf("explore: fault %s must be a probability in [0, 1], got %v", n.Name, *n.P)
		}
	}
	for _, k := range f.stepKinds() {
		sum += k.p
	}
	if sum > 1 {
		return fmt.Errorf("explore: the step probabilities (every fault but double-click) add up to %.3g, more than 1", sum)
	}
	return nil
}

// Options configure a run of the explorer. Every default is in
// DefaultOptions.
type Options struct {
	Seed  uint64 // first seed
	Seeds int    // number of seeds, Seed, Seed+1, …
	Steps int    // steps per schedule
	// Answers is the number of answer cases (scripted chat pages and the
	// engine's wait on them) each seed runs after its ledger schedule.
	Answers int
	Store   string // StoreSQLite or StorePostgres
	PGURL   string // the PostgreSQL server when Store is StorePostgres
	Dir     string // where SQLite files go; "" is a temp dir
	Faults  Faults
	// Budget stops starting new seeds once this much wall time is spent;
	// 0 is no budget.
	Budget time.Duration
	// Shrink shrinks a failing schedule (default on).
	Shrink bool
	// Plant builds the ledger with a deliberate defect (the explorer's
	// self-test, EXP-2); "" plants none.
	Plant ledger.PlantedBug
	// ProgressEvery writes a progress line every this many seeds when the
	// progress writer is not a terminal.
	ProgressEvery int
	// OnSeed, when set, is called with every seed's schedule and outcome
	// (a violating seed's before it is shrunk).
	OnSeed func(seed uint64, s Schedule, out Outcome)
}

// DefaultOptions are the options explore uses unless told otherwise.
var DefaultOptions = Options{
	Seed:          1,
	Seeds:         1,
	Steps:         40,
	Answers:       2,
	Store:         StoreSQLite,
	Faults:        DefaultFaults,
	Shrink:        true,
	ProgressEvery: 100,
}

// ErrOptions wraps every refusal of Options.Check.
var ErrOptions = errors.New("explore: bad options")

// Check validates o.
func (o Options) Check() error {
	switch {
	case o.Seeds < 1 || o.Seeds > SeedsMax:
		return fmt.Errorf("%w: seeds must be in [1, %d], got %d", ErrOptions, SeedsMax, o.Seeds)
	case o.Steps < 1 || o.Steps > StepsMax:
		return fmt.Errorf("%w: steps must be in [1, %d], got %d", ErrOptions, StepsMax, o.Steps)
	case o.Answers < 0 || o.Answers > AnswersMax:
		return fmt.Errorf("%w: answers must be in [0, %d], got %d", ErrOptions, AnswersMax, o.Answers)
	case o.Store != StoreSQLite && o.Store != StorePostgres:
		return fmt.Errorf("%w: store %q: want %s or %s", ErrOptions, o.Store, StoreSQLite, StorePostgres)
	case o.Store == StorePostgres && o.PGURL == "":
		return fmt.Errorf("%w: store postgres needs a server URL (REPLAYLAB_PG_URL)", ErrOptions)
	case o.Budget < 0:
		return fmt.Errorf("%w: budget must not be negative", ErrOptions)
	case o.Plant != "" && o.Plant != ledger.PlantClaimWithoutCheck:
		return fmt.Errorf("%w: unknown planted bug %q (known: %s)", ErrOptions, o.Plant, ledger.PlantClaimWithoutCheck)
	}
	if err := o.Faults.Check(); err != nil {
		return fmt.Errorf("%w: %s", ErrOptions, strings.TrimPrefix(err.Error(), "explore: "))
	}
	return nil
}
