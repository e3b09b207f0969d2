package ledger

// Recovery after a crash (LED-13). An attempt is committed in state
// starting together with its job (Create) or by AddAttempt; the
// Dispatcher is told after the commit, and the provider side records
// MarkSent ("attempt_sent") when the request went out. A process killed
// between the two leaves an attempt whose send state is uncertain:
// starting, with no attempt_sent event. Recover resolves each such attempt
// once and explainably, and records the recovery as an event:
//
//   - the first time, it is re-sent through the Dispatcher, whose submit is
//     idempotent by attempt id (the outbox pattern: the committed attempt is
//     the outbox row, the attempt id the idempotency key), with event
//     attempt_recovered "resent";
//   - when it was already re-sent once by an earlier recovery and still has
//     no send record, or when there is no Dispatcher, it becomes unknown
//     (never failed: the provider may have received it) and the job needs
//     review, with event attempt_recovered "unknown" and the reason.
//
// Attempts of cancelled or completed jobs are left alone (nothing waits on
// them; a late callback is still reconciled). Run Recover once when a
// process starts, before it serves; with several processes sharing one
// database, give RecoverOptions.MinAge so attempts another live process is
// about to send are not taken.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Recovery actions.
const (
	RecoveryResent  = "resent"
	RecoveryUnknown = "unknown"
)

// EventAttemptRecovered is the event of one recovery; To is the action.
const EventAttemptRecovered = "attempt_recovered"

// Recovery bounds.
const (
	// RecoverBatchMax is how many uncertain attempts one query returns.
	RecoverBatchMax = 100
	// RecoverMax bounds the attempts one Recover call resolves.
	RecoverMax = 100000
)

// RecoverOptions configure Recover.
type RecoverOptions struct {
	// MinAge skips attempts created less than MinAge before now (another
	// process sharing the database may be about to send them). 0 takes
	// every uncertain attempt: right for a single process at start.
	MinAge time.Duration
}

// Recovery is what Recover did with one attempt.
type Recovery struct {
	JobID     string
	AttemptID string
	Provider  string
	Action    string // RecoveryResent or RecoveryUnknown
	Reason    string
}

// Recover resolves every attempt whose send state is uncertain (see the
// comment at the top of recover.go) and returns what it did, oldest
// attempt first. Re-sends are dispatched after their recovery committed.
func (s *Service) Recover(ctx context.Context, opts RecoverOptions) ([]Recovery, error) {
	var out []Recovery
	cutoff := s.now().Add(-opts.MinAge)
	after := ""
	for looked := 0; looked < RecoverMax; {
		var batch []Attempt
		err := s.run(ctx, func(tx Tx, o *op) error {
			var err error
			batch, err = tx.UncertainAttempts(ctx, after, RecoverBatchMax)
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
			if opts.MinAge > 0 && a.CreatedAt.After(cutoff) {
				continue
			}
			rec, job, att, ok, err := s.recoverOne(ctx, a.ID)
			if err != nil {
				return out, fmt.Errorf("ledger: recover %s: %w", a.ID, err)
			}
			if !ok {
				continue
			}
			out = append(out, rec)
			if rec.Action == RecoveryResent {
				s.dispatch(ctx, job, att)
			}
		}
	}
	return out, nil
}

// recoverOne resolves one attempt under its job's lock; ok is false when
// it turned out not to need it (sent meanwhile, job terminal).
func (s *Service) recoverOne(ctx context.Context, attemptID string) (Recovery, Job, Attempt, bool, error) {
	var rec Recovery
	var job Job
	var att Attempt
	var ok bool
	err := s.run(ctx, func(tx Tx, o *op) error {
		ok = false
		a, j, err := lockAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		if a.State != AttemptStarting || j.State.Terminal() {
			return nil
		}
		evs, err := tx.Events(ctx, j.ID)
		if err != nil {
			return err
		}
		resentBefore := false
		for _, e := range evs {
			if e.AttemptID != a.ID {
				continue
			}
			switch e.Kind {
			case EventAttemptSent:
				return nil // sent: not uncertain
			case EventAttemptRecovered:
				resentBefore = resentBefore || e.To == RecoveryResent
			}
		}
		rec = Recovery{JobID: j.ID, AttemptID: a.ID, Provider: a.Provider}
		switch {
		case !resentBefore && s.dispatcher != nil:
			rec.Action = RecoveryResent
			rec.Reason = "send state uncertain after a restart (attempt committed, no send record): re-sent through the provider's submit, idempotent by attempt id"
			if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptRecovered,
				From: string(a.State), To: RecoveryResent, Detail: rec.Reason}); err != nil {
				return err
			}
		default:
			rec.Action = RecoveryUnknown
			rec.Reason = "send state uncertain after a restart and no provider to re-send to: outcome unknown, not failed; a reviewer decides"
			if resentBefore {
				rec.Reason = "re-sent by an earlier recovery and still no send record after another restart: outcome unknown, not failed; a reviewer decides"
			}
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
			if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptRecovered,
				From: string(a.State), To: RecoveryUnknown, Detail: rec.Reason}); err != nil {
				return err
			}
			if j.State != JobNeedsReview {
				if err := s.moveJob(ctx, tx, o, &j, JobNeedsReview, "attempt "+a.ID+" unknown after recovery"); err != nil {
					return err
				}
			}
			a = next
		}
		job, att, ok = j, a, true
		return nil
	})
	if errors.Is(err, ErrNoRow) {
		return Recovery{}, Job{}, Attempt{}, false, nil
	}
	return rec, job, att, ok, err
}
