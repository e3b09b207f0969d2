package explore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/replaylab/replaylab/ledger"
)

// Invariant names what a violation broke (SPEC §3 and §6).
type Invariant string

// Invariants checked after every step.
const (
	// InvOneJob (LED-1, LED-2): one job per (owner, key); concurrent
	// duplicates answer that job; a key reused with other input is refused.
	InvOneJob Invariant = "one job per (owner, key)"
	// InvOneWinner (LED-5): at most one applied attempt; a completed job
	// names it as its winner, a job that is not completed has none; the
	// winner and a terminal state never change.
	InvOneWinner Invariant = "at most one winner"
	// InvCAS (LED-5): the winner was chosen by the version compare-and-swap:
	// one job_completed event, one applied callback, versions never go back.
	InvCAS Invariant = "winner chosen by the version CAS"
	// InvNoLate (LED-4, LED-5, LED-8): no superseded attempt, and no result
	// arriving after a cancel or after another attempt won, is applied.
	InvNoLate Invariant = "no superseded or late result applied"
	// InvReconciled (LED-8): every callback is reconciled to an outcome,
	// logged once with an explanation, never lost or applied twice.
	InvReconciled Invariant = "every callback reconciled and explained"
	// InvSentNotFailed (LED-3): an attempt is failed only after a definite
	// failure callback; a timeout after sending leaves it unknown.
	InvSentNotFailed Invariant = "no sent attempt marked failed"
	// InvExplained (LED-10): every job and attempt state is the last one
	// its event log records.
	InvExplained Invariant = "every state explained by the log"
	// InvAnswered: an operation the ledger must answer (with a result or a
	// documented refusal) failed otherwise.
	InvAnswered Invariant = "every operation answered"

	// InvNewAnswer (ANS-3, ANS-4): the answer taken is the group the
	// schedule created, never a baseline group.
	InvNewAnswer Invariant = "the answer taken is the new group"
	// InvMediaNew (ANS-6): media readiness comes only from the new group.
	InvMediaNew Invariant = "media readiness only from the new group"
	// InvAnswerStatus (ANS-5, ANS-6): the wait ends in the status the
	// schedule implies.
	InvAnswerStatus Invariant = "the wait ends as scheduled"
	// InvAnswerReplay: the replay driver, over the session recorded on the
	// lab clock, reads the same result.
	InvAnswerReplay Invariant = "the replay reads what the lab run read"
)

// Violation is an invariant broken at a step.
type Violation struct {
	Step      int // 1-based
	Invariant Invariant
	Detail    string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("step %d: %s: %s", v.Step, v.Invariant, v.Detail)
}

// snapshot is a job as read after a step.
type snapshot struct {
	job    ledger.Job
	events []ledger.Event
}

var knownOutcomes = []ledger.Outcome{
	ledger.OutcomeApplied, ledger.OutcomeLateAfterTimeoutApplied, ledger.OutcomeLostRace,
	ledger.OutcomeLateAfterSupersession, ledger.OutcomeAfterCancel, ledger.OutcomeFailedRecorded,
	ledger.OutcomeDuplicate, ledger.OutcomeConflicting,
}

// check reads every job the schedule created and checks the invariants
// against what the explorer did and what it read after the previous step.
func (w *world) check(ctx context.Context, a Action) (*Violation, error) {
	// One read transaction for every job: what a step did to any job, not
	// only the one it named, is checked.
	var cur [JobsMax + 1]*snapshot
	err := w.readTx(ctx, func(tx ledger.Tx) error {
		for j := 1; j <= JobsMax; j++ {
			m := w.jobs[j]
			if m == nil || m.id == "" {
				continue
			}
			job, err := tx.Job(ctx, m.id)
			if err != nil {
				return fmt.Errorf("read j%d: %w", j, err)
			}
			if job.Attempts, err = tx.Attempts(ctx, m.id); err != nil {
				return fmt.Errorf("read j%d's attempts: %w", j, err)
			}
			evs, err := tx.Events(ctx, m.id)
			if err != nil {
				return fmt.Errorf("read j%d's log: %w", j, err)
			}
			cur[j] = &snapshot{job: job, events: evs}
		}
		return nil
	})
	if err != nil {
		return &Violation{Invariant: InvAnswered, Detail: err.Error()}, nil
	}
	for j := 1; j <= JobsMax; j++ {
		m := w.jobs[j]
		if cur[j] == nil {
			continue
		}
		if v := checkJob(j, m, w.prev[j], cur[j], a); v != nil {
			return v, nil
		}
		for _, at := range cur[j].job.Attempts {
			m.attempts[at.Number], m.provider[at.ID] = at.ID, at.Provider
			if at.State == ledger.AttemptSuperseded {
				m.supers[at.ID] = true
			}
		}
		w.prev[j] = cur[j]
	}
	return nil, nil
}

// readTx runs a read transaction, again on a transient conflict (at most
// readTxMax runs).
func (w *world) readTx(ctx context.Context, fn func(ledger.Tx) error) error {
	var err error
	for range readTxMax {
		if err = w.store.Tx(ctx, fn); !errors.Is(err, ledger.ErrRetry) {
			return err
		}
	}
	return err
}

// readTxMax bounds the runs of one read transaction.
const readTxMax = 5

func checkJob(j int, m *jobModel, prev, cur *snapshot, a Action) *Violation {
	job := cur.job
	name := func(id string) string {
		for n, x := range m.attempts {
			if x == id {
				return fmt.Sprintf("j%d#%d", j, n)
			}
		}
		for _, at := range job.Attempts {
			if at.ID == id {
				return fmt.Sprintf("j%d#%d", j, at.Number)
			}
		}
		return id
	}
	viol := func(inv Invariant, format string, args ...any) *Violation {
		return &Violation{Invariant: inv, Detail: fmt.Sprintf("j%d: ", j) + fmt.Sprintf(format, args...)}
	}

	// LED-1: the job is the owner's, under its key, with its input.
	if job.Owner != jobOwner(j) || job.IdempotencyKey != jobKey(j) {
		return viol(InvOneJob, "job %s is (%s, %s), want (%s, %s)", job.ID, job.Owner, job.IdempotencyKey, jobOwner(j), jobKey(j))
	}
	if canon, _ := ledger.CanonicalJSON(jobInput(j)); string(job.Input) != string(canon) {
		return viol(InvOneJob, "input is %s, want %s (a reused key changed the job)", job.Input, canon)
	}

	// LED-5: at most one winner.
	var applied []ledger.Attempt
	for i, at := range job.Attempts {
		if at.Number != i+1 {
			return viol(InvExplained, "attempt numbers are not 1..%d", len(job.Attempts))
		}
		if at.Applied {
			applied = append(applied, at)
		}
	}
	if len(applied) > 1 {
		return viol(InvOneWinner, "%d attempts applied (%s and %s)", len(applied), name(applied[0].ID), name(applied[1].ID))
	}
	completed := job.State == ledger.JobCompleted
	if completed != (job.WinningAttemptID != "") {
		return viol(InvOneWinner, "job is %s with winner %q", job.State, job.WinningAttemptID)
	}
	if completed {
		if len(applied) != 1 || applied[0].ID != job.WinningAttemptID {
			return viol(InvOneWinner, "winner %s is not the one applied attempt", name(job.WinningAttemptID))
		}
		if applied[0].State != ledger.AttemptSucceeded {
			return viol(InvOneWinner, "winner %s is %s, not succeeded", name(applied[0].ID), applied[0].State)
		}
	} else if len(applied) > 0 {
		return viol(InvOneWinner, "%s applied but the job is %s", name(applied[0].ID), job.State)
	}
	if prev != nil {
		pj := prev.job
		if pj.WinningAttemptID != "" && pj.WinningAttemptID != job.WinningAttemptID {
			return viol(InvOneWinner, "the winner changed from %s to %s", name(pj.WinningAttemptID), name(job.WinningAttemptID))
		}
		if pj.State.Terminal() && pj.State != job.State {
			return viol(InvOneWinner, "a %s job became %s", pj.State, job.State)
		}
		if job.Version < pj.Version {
			return viol(InvCAS, "version went back from %d to %d", pj.Version, job.Version)
		}
	}

	// LED-5: chosen by the CAS; LED-8: every callback reconciled once.
	completedEvents, appliedCallbacks := 0, 0
	callbacks := map[string]int{}
	lastJob := ""
	lastAtt := map[string]string{}
	for _, e := range cur.events {
		switch e.Kind {
		case ledger.EventJobCreated, ledger.EventJobState, ledger.EventJobCancelled, ledger.EventJobCompleted:
			lastJob = e.To
		}
		if e.Kind == ledger.EventJobCompleted {
			completedEvents++
		}
		switch {
		case e.Kind == ledger.EventAttemptRecovered: // To is the action: resent keeps the state
			if e.To == ledger.RecoveryUnknown {
				lastAtt[e.AttemptID] = string(ledger.AttemptUnknown)
			}
		case e.AttemptID != "" && e.Kind != ledger.EventJobCompleted:
			lastAtt[e.AttemptID] = e.To
		}
		if e.Kind != ledger.EventCallback {
			continue
		}
		callbacks[e.AttemptID]++
		outcome, why, ok := strings.Cut(e.Detail, ": ")
		known := false
		for _, o := range knownOutcomes {
			known = known || string(o) == outcome
		}
		if !ok || !known || strings.TrimSpace(why) == "" {
			return viol(InvReconciled, "callback of %s logged without an outcome and explanation: %q", name(e.AttemptID), e.Detail)
		}
		if outcome == string(ledger.OutcomeApplied) || outcome == string(ledger.OutcomeLateAfterTimeoutApplied) {
			appliedCallbacks++
			if e.AttemptID != job.WinningAttemptID {
				return viol(InvCAS, "callback of %s logged %s but the winner is %q", name(e.AttemptID), outcome, job.WinningAttemptID)
			}
		}
	}
	want := 0
	if completed {
		want = 1
	}
	if completedEvents != want || appliedCallbacks != want {
		return viol(InvCAS, "job %s with %d job_completed events and %d applied callbacks, want %d", job.State, completedEvents, appliedCallbacks, want)
	}
	for id, n := range m.calls {
		if callbacks[id] != n {
			return viol(InvReconciled, "%s: %d callbacks delivered, %d logged", name(id), n, callbacks[id])
		}
	}
	for id := range callbacks {
		if m.calls[id] == 0 {
			return viol(InvReconciled, "%s: a callback logged that nobody delivered", name(id))
		}
	}

	// LED-4/5/8: nothing superseded or late applied.
	for _, at := range job.Attempts {
		if m.supers[at.ID] && at.State != ledger.AttemptSuperseded {
			return viol(InvNoLate, "superseded %s became %s", name(at.ID), at.State)
		}
		if at.Applied && m.supers[at.ID] {
			return viol(InvNoLate, "superseded %s was applied", name(at.ID))
		}
	}
	if prev != nil && prev.job.State == ledger.JobCancelled && job.WinningAttemptID != "" {
		return viol(InvNoLate, "%s applied after the job was cancelled", name(job.WinningAttemptID))
	}
	for id := range m.applied {
		if id != job.WinningAttemptID {
			return viol(InvNoLate, "a callback of %s was answered applied but %q is the winner", name(id), job.WinningAttemptID)
		}
	}

	// LED-3: failed only after a definite failure.
	for _, at := range job.Attempts {
		if (at.State == ledger.AttemptFailed || at.CallbackStatus == ledger.StatusFailed) && !m.fails[at.ID] {
			return viol(InvSentNotFailed, "%s is %s (callback %q) with no failure callback delivered", name(at.ID), at.State, at.CallbackStatus)
		}
	}
	if a.Kind == KindTimeout && a.Job == j && prev != nil {
		for i, at := range job.Attempts {
			if at.Number != a.Attempt || i >= len(prev.job.Attempts) {
				continue
			}
			if was := prev.job.Attempts[i].State; was == ledger.AttemptStarting && at.State != ledger.AttemptUnknown {
				return viol(InvSentNotFailed, "a timeout after sending made %s %s, want unknown", name(at.ID), at.State)
			}
		}
	}

	// LED-10: every state explained by the log.
	if lastJob != string(job.State) {
		return viol(InvExplained, "job is %s, its log last says %q", job.State, lastJob)
	}
	for _, at := range job.Attempts {
		if lastAtt[at.ID] != string(at.State) {
			return viol(InvExplained, "%s is %s, its log last says %q", name(at.ID), at.State, lastAtt[at.ID])
		}
	}
	return nil
}
