package ledger

// Recovery of work in flight (LED-13, LED-14). An attempt is committed in
// state starting together with its job (Create) or by AddAttempt; the
// Dispatcher is told after the commit, and the provider side records
// MarkSent ("attempt_sent") when the request went out, then answers with a
// callback. A process killed, or a store away, anywhere in between leaves
// work that nobody is waiting on any more: an attempt starting with no send
// record (its send is uncertain), or sent and never answered (its answer
// was held by a provider that died with the process, or its callback was
// refused while the store was away). Recover resolves every such attempt
// within a bounded time and explainably, and records what it did as an
// attempt_recovered event:
//
//   - When the provider can be asked for the attempt by its id
//     (StatusChecker, like a payment provider's "retrieve by id"), it is
//     asked first, outside any transaction and within
//     RecoverOptions.StatusTimeout. A definite answer (succeeded, failed)
//     is reconciled exactly as the callback would have been ("reconciled");
//     "pending" on an attempt with no send record records the send
//     ("sent"); "pending" past the attempt's deadline makes it unknown
//     ("unknown": the provider may still answer, a reviewer decides); "no
//     record" re-sends it once through the Dispatcher, idempotent by
//     attempt id ("resent"), and after a re-send, or for an attempt already
//     unknown, records a definite failure ("no_record": the provider will
//     never answer it, so the owner may retry).
//   - Without a StatusChecker, or when the provider cannot say in time, an
//     attempt with no send record is re-sent once and made unknown the
//     second time (LED-13), and a sent attempt past its deadline becomes
//     unknown with the reason. Unknown is never failed: the provider may
//     have the work.
//
// Attempts of cancelled or completed jobs are left alone (nothing waits on
// them; a late callback is still reconciled). Run Recover once when a
// process starts, before it serves, and then periodically (Sweep, under a
// lease so that one process of several sharing a database sweeps at a
// time); RecoverOptions.MinAge leaves the attempts another live process
// has just started.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
)

// Recovery actions.
const (
	RecoveryResent     = "resent"     // re-sent through the Dispatcher, idempotent by attempt id
	RecoveryUnknown    = "unknown"    // made unknown: outcome unknown, not failed; a reviewer decides
	RecoveryReconciled = "reconciled" // the provider's answer, asked by attempt id, reconciled as its callback
	RecoverySent       = "sent"       // the provider has it: its send is recorded
	RecoveryNoRecord   = "no_record"  // the provider has no record of it: a definite failure
)

// EventAttemptRecovered is the event of one recovery; To is the action.
const EventAttemptRecovered = "attempt_recovered"

// Recovery bounds and defaults.
const (
	// RecoverBatchMax is how many attempts one query returns.
	RecoverBatchMax = 100
	// RecoverMax bounds the attempts one Recover call looks at.
	RecoverMax = 100000
	// DefaultAttemptDeadline is how long a sent attempt may go unanswered
	// before recovery makes it unknown, when RecoverOptions gives none.
	DefaultAttemptDeadline = 2 * time.Minute
	// DefaultStatusTimeout bounds one status question to a provider.
	DefaultStatusTimeout = 2 * time.Second
)

// ProviderState is what a provider says about an attempt asked by its id.
type ProviderState string

// Provider states.
const (
	ProviderPending   ProviderState = "pending"   // received, no result yet
	ProviderSucceeded ProviderState = "succeeded" // done; Output is the result
	ProviderFailed    ProviderState = "failed"    // a definite failure
	ProviderNoRecord  ProviderState = "no_record" // never received, or lost: it will never answer
)

// ProviderStatus is a provider's answer about one attempt.
type ProviderStatus struct {
	State  ProviderState
	Output string
}

// StatusChecker asks a provider about one attempt by its id (LED-14). A
// Dispatcher that implements it is asked by Recover; WithStatusChecker
// sets one explicitly. It must honour ctx's deadline.
type StatusChecker interface {
	AttemptStatus(ctx context.Context, job Job, attempt Attempt) (ProviderStatus, error)
}

// WithStatusChecker sets how recovery asks providers about attempts
// (default: the Dispatcher, when it implements StatusChecker).
func WithStatusChecker(c StatusChecker) Option { return func(s *Service) { s.checker = c } }

// RecoverOptions configure Recover.
type RecoverOptions struct {
	// MinAge skips attempts created (or last recovered) less than MinAge
	// before now (another process sharing the database may be about to
	// send them). 0 takes every attempt: right for a single process at
	// start.
	MinAge time.Duration
	// AttemptDeadline is how long a sent attempt may go unanswered before
	// it becomes unknown; 0 is DefaultAttemptDeadline.
	AttemptDeadline time.Duration
	// StatusTimeout bounds one question to a provider; 0 is
	// DefaultStatusTimeout.
	StatusTimeout time.Duration
}

func (o RecoverOptions) withDefaults() RecoverOptions {
	if o.AttemptDeadline <= 0 {
		o.AttemptDeadline = DefaultAttemptDeadline
	}
	if o.StatusTimeout <= 0 {
		o.StatusTimeout = DefaultStatusTimeout
	}
	return o
}

// Recovery is what Recover did with one attempt.
type Recovery struct {
	JobID     string
	AttemptID string
	Provider  string
	Action    string // one of the Recovery* actions
	Reason    string
}

// Recover resolves every attempt in flight that nobody waits on any more
// (see the comment at the top of recover.go) and returns what it did,
// attempts in id order. Re-sends are dispatched after their recovery
// committed. Attempts still legitimately in flight are left alone.
func (s *Service) Recover(ctx context.Context, opts RecoverOptions) ([]Recovery, error) {
	opts = opts.withDefaults()
	var out []Recovery
	after := ""
	for looked := 0; looked < RecoverMax; {
		var batch []Attempt
		err := s.view(ctx, func(tx Tx) error {
			var err error
			batch, err = tx.OpenAttempts(ctx, after, RecoverBatchMax)
			return err
		})
		if err != nil {
			return out, fmt.Errorf("ledger: recover: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		for _, a := range batch {
			after = a.ID
			looked++
			rec, ok, err := s.recoverAttempt(ctx, a.ID, opts)
			if err != nil {
				return out, fmt.Errorf("ledger: recover %s: %w", a.ID, err)
			}
			if ok {
				out = append(out, rec)
			}
		}
	}
	return out, nil
}

// flight is what the log says about one attempt's send.
type flight struct {
	sent         bool      // an attempt_sent event
	resentBefore bool      // an earlier recovery re-sent it
	since        time.Time // the latest of created, sent, re-sent, recovered
}

func flightOf(a Attempt, evs []Event) flight {
	f := flight{since: a.CreatedAt}
	for _, e := range evs {
		if e.AttemptID != a.ID {
			continue
		}
		switch e.Kind {
		case EventAttemptSent:
			f.sent = true
		case EventAttemptRecovered:
			f.resentBefore = f.resentBefore || e.To == RecoveryResent
			if e.To == RecoverySent {
				f.sent = true
			}
		default:
			continue
		}
		if e.At.After(f.since) {
			f.since = e.At
		}
	}
	return f
}

// recoverAttempt looks at one open attempt: reads it, asks its provider
// (outside any transaction), then decides under the job's lock on fresh
// reads. ok is false when nothing was done.
func (s *Service) recoverAttempt(ctx context.Context, attemptID string, opts RecoverOptions) (Recovery, bool, error) {
	var a Attempt
	var j Job
	var f flight
	err := s.view(ctx, func(tx Tx) error {
		var err error
		if a, err = tx.Attempt(ctx, attemptID); err != nil {
			return err
		}
		if j, err = tx.Job(ctx, a.JobID); err != nil {
			return err
		}
		evs, err := tx.Events(ctx, a.JobID)
		f = flightOf(a, evs)
		return err
	})
	if errors.Is(err, ErrNoRow) {
		return Recovery{}, false, nil
	} else if err != nil {
		return Recovery{}, false, err
	}
	now := s.now()
	if !a.State.Open() || j.State.Terminal() || (opts.MinAge > 0 && now.Sub(f.since) < opts.MinAge) {
		return Recovery{}, false, nil
	}
	overdue := f.sent && a.State == AttemptStarting && now.Sub(f.since) >= opts.AttemptDeadline

	checker := s.checker
	if checker == nil {
		checker, _ = s.dispatcher.(StatusChecker)
	}
	var st ProviderStatus
	var askErr error
	asked := checker != nil
	if asked {
		actx, cancel := context.WithTimeout(ctx, opts.StatusTimeout)
		st, askErr = checker.AttemptStatus(actx, j, a)
		cancel()
		if askErr == nil {
			switch st.State {
			case ProviderPending, ProviderSucceeded, ProviderFailed, ProviderNoRecord:
			default:
				askErr = fmt.Errorf("provider answered an unknown state %q", st.State)
			}
		}
	}

	rec := Recovery{JobID: j.ID, AttemptID: a.ID, Provider: a.Provider}
	switch {
	case asked && askErr == nil && (st.State == ProviderSucceeded || st.State == ProviderFailed):
		status := StatusSucceeded
		if st.State == ProviderFailed {
			status = StatusFailed
		}
		r, err := s.Callback(ctx, a.ID, status, st.Output)
		if err != nil {
			return Recovery{}, false, err
		}
		rec.Action = RecoveryReconciled
		rec.Reason = fmt.Sprintf("asked by attempt id, the provider reported %s: reconciled as its callback (%s)", st.State, r.Outcome)
		return rec, true, s.noteRecovery(ctx, rec, a.State)

	case asked && askErr == nil && st.State == ProviderPending:
		switch {
		case !f.sent && a.State == AttemptStarting:
			rec.Action = RecoverySent
			rec.Reason = "the provider has the attempt (asked by attempt id): its send is recorded; it is in flight"
			return s.applyRecovery(ctx, rec, AttemptStarting, "")
		case overdue:
			rec.Action = RecoveryUnknown
			rec.Reason = fmt.Sprintf("sent %s ago and the provider is still working past the attempt's deadline (%s): outcome unknown, not failed; a reviewer decides",
				now.Sub(f.since).Round(time.Second), opts.AttemptDeadline)
			return s.applyRecovery(ctx, rec, AttemptStarting, AttemptUnknown)
		}
		return Recovery{}, false, nil // in flight

	case asked && askErr == nil && st.State == ProviderNoRecord:
		switch {
		case a.State == AttemptStarting && !f.resentBefore && s.dispatcher != nil:
			rec.Action = RecoveryResent
			rec.Reason = "the provider has no record of the attempt (asked by attempt id): re-sent through the provider's submit, idempotent by attempt id"
			if !f.sent { // the LED-13 case, in its words
				rec.Reason = "send state uncertain after a restart (attempt committed, no send record): re-sent through the provider's submit, idempotent by attempt id"
			}
			return s.applyRecovery(ctx, rec, AttemptStarting, "")
		case a.State == AttemptStarting && !f.sent:
			rec.Action = RecoveryUnknown
			rec.Reason = "re-sent by an earlier recovery and still no send record after another restart: outcome unknown, not failed; a reviewer decides"
			return s.applyRecovery(ctx, rec, AttemptStarting, AttemptUnknown)
		}
		reason := "the provider has no record of the attempt (asked by attempt id) after it was sent: it will never answer"
		if f.resentBefore {
			reason = "the provider has no record of the attempt (asked by attempt id) even after a re-send: it will never answer"
		}
		if _, err := s.Callback(ctx, a.ID, StatusFailed, "ledger recovery: "+reason); err != nil {
			return Recovery{}, false, err
		}
		rec.Action, rec.Reason = RecoveryNoRecord, reason+"; recorded as a definite failure"
		return rec, true, s.noteRecovery(ctx, rec, a.State)
	}

	// No answer from the provider: what the log alone allows.
	why := "no provider to ask by attempt id"
	if asked {
		why = fmt.Sprintf("the provider could not say within %s (%v)", opts.StatusTimeout, askErr)
	}
	switch {
	case a.State == AttemptStarting && !f.sent && !f.resentBefore && s.dispatcher != nil:
		rec.Action = RecoveryResent
		rec.Reason = "send state uncertain after a restart (attempt committed, no send record): re-sent through the provider's submit, idempotent by attempt id"
		return s.applyRecovery(ctx, rec, AttemptStarting, "")
	case a.State == AttemptStarting && !f.sent:
		rec.Action = RecoveryUnknown
		rec.Reason = "send state uncertain after a restart and no provider to re-send to: outcome unknown, not failed; a reviewer decides"
		if f.resentBefore {
			rec.Reason = "re-sent by an earlier recovery and still no send record after another restart: outcome unknown, not failed; a reviewer decides"
		}
		return s.applyRecovery(ctx, rec, AttemptStarting, AttemptUnknown)
	case overdue:
		rec.Action = RecoveryUnknown
		rec.Reason = fmt.Sprintf("sent %s ago, no answer within the attempt's deadline (%s) and %s: outcome unknown, not failed; a reviewer decides",
			now.Sub(f.since).Round(time.Second), opts.AttemptDeadline, why)
		return s.applyRecovery(ctx, rec, AttemptStarting, AttemptUnknown)
	}
	return Recovery{}, false, nil
}

// noteRecovery records a recovery whose state change another operation
// (Callback) made.
func (s *Service) noteRecovery(ctx context.Context, rec Recovery, from AttemptState) error {
	return s.run(ctx, func(tx Tx, o *op) error {
		return o.event(ctx, tx, Event{JobID: rec.JobID, AttemptID: rec.AttemptID, Kind: EventAttemptRecovered,
			From: string(from), To: rec.Action, Detail: rec.Reason})
	})
}

// applyRecovery records rec under the job's lock when the attempt is
// still in state from and its job live: to "" keeps the state (a re-send,
// a recorded send), AttemptUnknown makes it unknown and the job needs
// review. A re-send is dispatched after the commit.
func (s *Service) applyRecovery(ctx context.Context, rec Recovery, from, to AttemptState) (Recovery, bool, error) {
	var job Job
	var att Attempt
	ok := false
	err := s.run(ctx, func(tx Tx, o *op) error {
		ok = false
		a, j, err := lockAttempt(ctx, tx, rec.AttemptID)
		if err != nil {
			return err
		}
		if a.State != from || j.State.Terminal() {
			return nil // moved meanwhile: nothing to do
		}
		if rec.Action == RecoveryResent || rec.Action == RecoverySent {
			evs, err := tx.Events(ctx, j.ID)
			if err != nil {
				return err
			}
			f := flightOf(a, evs)
			if f.sent && rec.Action == RecoverySent || f.resentBefore && rec.Action == RecoveryResent {
				return nil // another recovery got there first
			}
		}
		if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptRecovered,
			From: string(a.State), To: rec.Action, Detail: rec.Reason}); err != nil {
			return err
		}
		switch {
		case to == AttemptUnknown:
			next := a
			next.State, next.UpdatedAt = AttemptUnknown, o.now
			if err := checkAttemptTransition(a.State, next.State); err != nil {
				return err
			}
			done, err := tx.UpdateAttempt(ctx, next, a.State, a.CallbackStatus)
			if err != nil {
				return err
			}
			if !done {
				return fmt.Errorf("%w: attempt %s moved", ErrRetry, a.ID)
			}
			if j.State != JobNeedsReview {
				if err := s.moveJob(ctx, tx, o, &j, JobNeedsReview, "attempt "+a.ID+" unknown after recovery"); err != nil {
					return err
				}
			}
			a = next
		case rec.Action == RecoverySent && j.State == JobAccepted:
			if err := s.moveJob(ctx, tx, o, &j, JobRunning, "attempt "+a.ID+" sent (recovery)"); err != nil {
				return err
			}
		}
		job, att, ok = j, a, true
		return nil
	})
	if errors.Is(err, ErrNoRow) || errcode.Of(err) == CodeNotFound {
		return Recovery{}, false, nil
	}
	if err != nil {
		return Recovery{}, false, err
	}
	if ok && rec.Action == RecoveryResent {
		s.dispatch(ctx, job, att)
	}
	return rec, ok, nil
}
