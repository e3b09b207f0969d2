package explore

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is the kind of one schedule step.
type Kind string

// Step kinds.
const (
	KindCreate    Kind = "create"    // Copies identical creates at once (2: a double click)
	KindReuseKey  Kind = "reuse-key" // the job's key with other input: refused, nothing changes
	KindTimeout   Kind = "timeout"   // the provider reports the attempt sent, no answer in time
	KindFail      Kind = "fail"      // a definite failure callback for the attempt
	KindRelease   Kind = "release"   // the provider delivers the attempt's held success
	KindDuplicate Kind = "duplicate" // the attempt's success delivered Copies times at once
	KindRetry     Kind = "retry"     // the owner asks for another attempt, same provider, no reason
	KindSupersede Kind = "supersede" // a reviewer supersedes open attempts, new attempt on Provider
	KindCancel    Kind = "cancel"    // the owner cancels the job
	KindRollback  Kind = "rollback"  // the global fallback switch set to On
	KindRestart   Kind = "restart"   // the store is closed and opened again
	// KindCrash: the process commits a new attempt (the job's create, or a
	// reviewer's supersession onto Provider) and dies before telling the
	// provider; it restarts and runs the ledger's recovery (LED-13).
	KindCrash Kind = "crash"
)

// Action is one step of a schedule. Jobs and attempts are named by their
// place in the schedule (job 1..JobsMax, attempt 1..AttemptsMax), never by
// ledger ids, so a step means the same thing in a shrunk schedule; a step
// naming a job or attempt that does not exist (yet) is skipped.
type Action struct {
	Kind     Kind
	Job      int    // 1-based logical job
	Attempt  int    // 1-based attempt number within the job
	Copies   int    // concurrent copies of a create or duplicate callback
	Provider string // supersede: the new attempt's provider
	On       bool   // rollback: the switch's new value
}

func (a Action) String() string {
	j := fmt.Sprintf("j%d", a.Job)
	att := fmt.Sprintf("j%d#%d", a.Job, a.Attempt)
	switch a.Kind {
	case KindCreate:
		if a.Copies > 1 {
			return fmt.Sprintf("create %s x%d", j, a.Copies)
		}
		return "create " + j
	case KindReuseKey, KindRetry, KindCancel:
		return string(a.Kind) + " " + j
	case KindSupersede:
		return "supersede " + j + " " + a.Provider
	case KindTimeout, KindFail, KindRelease:
		return string(a.Kind) + " " + att
	case KindDuplicate:
		return fmt.Sprintf("duplicate %s x%d", att, a.Copies)
	case KindRollback:
		if a.On {
			return "fallback on"
		}
		return "fallback off"
	case KindRestart:
		return "restart"
	case KindCrash:
		return "crash " + j + " " + a.Provider
	}
	return string(a.Kind)
}

// Schedule is a list of steps.
type Schedule []Action

// String is one step per line, numbered from 1.
func (s Schedule) String() string {
	var b strings.Builder
	for i, a := range s {
		fmt.Fprintf(&b, "%3d. %s\n", i+1, a)
	}
	return b.String()
}

// Owners and keys of the logical jobs: j1 (alice, k1), j2 (bob, k1),
// j3 (alice, k2), j4 (bob, k2), so two owners share each key.
func jobOwner(j int) string {
	if j%2 == 1 {
		return "alice"
	}
	return "bob"
}

func jobKey(j int) string { return fmt.Sprintf("k%d", (j+1)/2) }

// Generate draws a schedule of n steps from the seed. The same seed, n
// and faults give the same schedule on every machine: math/rand/v2's PCG
// is specified, and nothing else is drawn from.
func Generate(seed uint64, n int, f Faults) Schedule {
	r := rand.New(rand.NewPCG(seed, 0xe791_0e5e))
	n = min(max(n, 0), StepsMax)
	s := make(Schedule, 0, n)
	created := 0                   // jobs the schedule created so far (an estimate for naming)
	attempts := [JobsMax + 1]int{} // attempts per job so far (an estimate)
	fallback := true
	pickJob := func() int { // the newest job half the time, else any
		if created == 0 {
			return 1
		}
		if r.Float64() < 0.5 {
			return created
		}
		return 1 + r.IntN(created)
	}
	pickAttempt := func(j int) int {
		if attempts[j] <= 1 {
			return 1
		}
		// mostly the latest, often an earlier one (late callbacks)
		if r.Float64() < 0.6 {
			return attempts[j]
		}
		return 1 + r.IntN(attempts[j])
	}
	for range n {
		kind := KindCreate
		u := r.Float64()
		acc := 0.0
		for _, k := range f.stepKinds() {
			acc += k.p
			if u < acc {
				kind = k.kind
				break
			}
		}
		if kind != KindCreate && kind != KindRollback && kind != KindRestart && kind != KindCrash && created == 0 {
			kind = KindCreate
		}
		a := Action{Kind: kind}
		switch kind {
		case KindCreate:
			if created < JobsMax && (created == 0 || r.Float64() < 0.7) {
				created++
				a.Job = created
				attempts[a.Job] = max(attempts[a.Job], 1)
			} else {
				a.Job = pickJob()
			}
			a.Copies = 1
			if r.Float64() < f.DoubleClick {
				a.Copies = 2 + r.IntN(CopiesMax-1)
			}
		case KindReuseKey, KindRetry, KindCancel:
			a.Job = pickJob() // a retry is mostly refused (REVIEW_REQUIRED): no new attempt counted
		case KindSupersede:
			a.Job = pickJob()
			a.Provider = "primary"
			if r.Float64() < 0.5 {
				a.Provider = "fallback"
			}
			if attempts[a.Job] < AttemptsMax {
				attempts[a.Job]++
			}
		case KindTimeout, KindFail, KindRelease:
			a.Job = pickJob()
			a.Attempt = pickAttempt(a.Job)
		case KindDuplicate:
			a.Job = pickJob()
			a.Attempt = pickAttempt(a.Job)
			a.Copies = 2 + r.IntN(CopiesMax-1)
		case KindRollback:
			fallback = !fallback
			a.On = fallback
		case KindCrash: // a new job's create, or a supersession of a known one
			if created < JobsMax && (created == 0 || r.Float64() < 0.5) {
				created++
				a.Job = created
				attempts[a.Job] = max(attempts[a.Job], 1)
			} else {
				a.Job = pickJob()
				if attempts[a.Job] < AttemptsMax {
					attempts[a.Job]++
				}
			}
			a.Provider = "primary"
			if r.Float64() < 0.5 {
				a.Provider = "fallback"
			}
		}
		s = append(s, a)
	}
	return s
}
