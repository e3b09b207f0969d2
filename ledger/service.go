package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits bound what the ledger accepts and keeps. Every default is in
// DefaultLimits.
type Limits struct {
	InputBytesMax            int // canonical input of one job
	KeyBytesMax              int // idempotency key
	ProviderBytesMax         int // provider name
	ReasonBytesMax           int // supersede reason
	DiagnosticOutputBytesMax int // output kept for an attempt that was not applied
	AppliedOutputBytesMax    int // output kept for the winning attempt
	TxAttemptsMax            int // runs of one operation on transient conflicts
	// StoreWaitMax bounds one operation's wait for the store, every run
	// included (LED-16): a store that is locked, stalled or gone answers
	// STORE_BUSY (503, Retry-After) within it instead of holding the
	// caller.
	StoreWaitMax time.Duration
}

// DefaultLimits are the limits New uses.
var DefaultLimits = Limits{
	InputBytesMax:            1 << 20,
	KeyBytesMax:              255,
	ProviderBytesMax:         100,
	ReasonBytesMax:           1000,
	DiagnosticOutputBytesMax: 4096,
	AppliedOutputBytesMax:    1 << 20,
	TxAttemptsMax:            20,
	StoreWaitMax:             5 * time.Second,
}

// DefaultProvider is the provider of a job's first attempt when the caller
// names none.
const DefaultProvider = "primary"

// Dispatcher is told about every attempt after it is committed in state
// starting (a new job's first attempt, or one added by AddAttempt), so that
// a provider (the sim's simulated one, or a real worker) can start work.
// Dispatch runs synchronously on the caller's goroutine and must not block:
// start any work in its own goroutine, detached from ctx
// (context.WithoutCancel). The provider reports back through
// Service.MarkSent (the request went out), Service.Timeout (sent, no answer
// in time) and Service.Callback (a definite answer).
type Dispatcher interface {
	Dispatch(ctx context.Context, job Job, attempt Attempt)
}

// DispatchFunc adapts a function to Dispatcher.
type DispatchFunc func(ctx context.Context, job Job, attempt Attempt)

// Dispatch calls f.
func (f DispatchFunc) Dispatch(ctx context.Context, job Job, attempt Attempt) { f(ctx, job, attempt) }

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (default SystemClock).
func WithClock(c Clock) Option { return func(s *Service) { s.clock = c } }

// WithIDs sets the id generator (default RandomIDs).
func WithIDs(g IDGenerator) Option { return func(s *Service) { s.ids = g } }

// WithDispatcher sets the dispatcher (default none).
func WithDispatcher(d Dispatcher) Option { return func(s *Service) { s.dispatcher = d } }

// WithLimits sets the limits (default DefaultLimits).
func WithLimits(l Limits) Option { return func(s *Service) { s.limits = l } }

// Service is the ledger: every rule of SPEC §6 lives here, over a Store.
// It is safe for concurrent use, also by several processes sharing one
// database.
type Service struct {
	store      Store
	clock      Clock
	ids        IDGenerator
	dispatcher Dispatcher
	checker    StatusChecker // nil: the dispatcher, if it is one (recover.go)
	holder     string        // this service's name as a lease holder (sweep.go)
	limits     Limits
	planted    PlantedBug
	// decoySecret is what VerifiedCallback checks a signature against
	// when the attempt does not exist, so both cases do the same work.
	decoySecret string
}

// New returns a Service over store.
func New(store Store, opts ...Option) *Service {
	s := &Service{store: store, clock: SystemClock, ids: RandomIDs, limits: DefaultLimits, decoySecret: newCallbackSecret(), holder: "svc_" + randomHex(8)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Now is the ledger's clock, as it stamps rows and checks callback
// signatures (microsecond precision, UTC).
func (s *Service) Now() time.Time { return s.now() }

// Store returns the store the service writes to.
func (s *Service) Store() Store { return s.store }

// Outcome says how a provider callback was reconciled (LED-5, LED-8).
type Outcome string

// Outcomes of Callback.
const (
	// OutcomeApplied: a success on an open attempt won the CAS; the job is
	// completed with this attempt as its winner.
	OutcomeApplied Outcome = "applied"
	// OutcomeLateAfterTimeoutApplied: the attempt had timed out (unknown),
	// nobody had superseded it or won, and its late success won the CAS.
	// A timeout means "we do not know", so the first definite answer for a
	// never-superseded attempt is the answer.
	OutcomeLateAfterTimeoutApplied Outcome = "late_after_timeout_applied"
	// OutcomeLostRace: another attempt had already won (or won the CAS
	// concurrently); the output is kept on the attempt, never applied.
	OutcomeLostRace Outcome = "lost_race"
	// OutcomeLateAfterSupersession: the attempt had been superseded by a
	// reviewer; the result is stored and shown for review, never applied.
	OutcomeLateAfterSupersession Outcome = "late_after_supersession"
	// OutcomeAfterCancel: the job was cancelled; the result is stored on the
	// attempt, never applied.
	OutcomeAfterCancel Outcome = "after_cancel"
	// OutcomeFailedRecorded: a definite failure; the attempt is failed and an
	// open job waits for review (needs_review).
	OutcomeFailedRecorded Outcome = "failed_recorded"
	// OutcomeDuplicate: the same status and output were already recorded for
	// this attempt; nothing changed (the arrival is logged).
	OutcomeDuplicate Outcome = "duplicate"
	// OutcomeConflicting: the attempt already had a different definite
	// result; the new callback is logged, nothing changed.
	OutcomeConflicting Outcome = "conflicting"
)

// Callback statuses.
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// Reconciliation is what Callback did.
type Reconciliation struct {
	Outcome Outcome
	Detail  string // one sentence for humans
	Job     Job    // after the callback, with attempts
	Attempt Attempt
}

// Output is a job's applied result.
type Output struct {
	JobID     string
	AttemptID string
	Provider  string
	Output    string
	Bytes     int
	Truncated bool
}

// op is one run of one operation: a random id written on every event so an
// uncertain COMMIT can be settled by looking for it.
type op struct {
	id  string
	now time.Time
}

func (o *op) event(ctx context.Context, tx Tx, e Event) error {
	e.OpID = o.id
	e.At = o.now
	return tx.AppendEvent(ctx, e)
}

func (s *Service) now() time.Time {
	return s.clock.Now().UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds
}

// run executes fn in a transaction. fn must read everything it decides on
// through tx, so that it can run again: on ErrRetry (a definite rollback)
// it does, and on ErrCommitUncertain the events table is asked whether this
// run's op id committed before deciding to run again or to report success.
// The whole operation is bounded by Limits.StoreWaitMax: a store that does
// not answer in time is STORE_BUSY (LED-16).
func (s *Service) run(ctx context.Context, fn func(tx Tx, o *op) error) error {
	return s.runTx(ctx, false, fn)
}

// view is run for an operation that only reads: one read-only
// transaction (Store.View), which a writer never blocks.
func (s *Service) view(ctx context.Context, fn func(tx Tx) error) error {
	return s.runTx(ctx, true, func(tx Tx, _ *op) error { return fn(tx) })
}

func (s *Service) runTx(parent context.Context, readOnly bool, fn func(tx Tx, o *op) error) error {
	ctx := parent
	if s.limits.StoreWaitMax > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, s.limits.StoreWaitMax)
		defer cancel()
	}
	var err error
	for i := 0; i < max(1, s.limits.TxAttemptsMax); i++ {
		o := &op{id: "op_" + randomHex(12), now: s.now()}
		if readOnly {
			err = s.store.View(ctx, func(tx Tx) error { return fn(tx, o) })
		} else {
			err = s.store.Tx(ctx, func(tx Tx) error { return fn(tx, o) })
		}
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrCommitUncertain):
			var committed bool
			rerr := s.store.View(ctx, func(tx Tx) error {
				var e error
				committed, e = tx.HasOp(ctx, o.id)
				return e
			})
			if rerr != nil {
				return &Error{Code: CodeUncertain, Status: HTTPStatus(CodeUncertain),
					Detail: "the store could not confirm whether the write committed; read the job before retrying",
					cause:  errors.Join(err, rerr)}
			}
			if committed {
				return nil
			}
		case ctx.Err() != nil && parent.Err() == nil:
			return s.busy(err)
		case errors.Is(err, ErrRetry):
		case errors.Is(err, ErrDuplicate):
			// A unique key another transaction committed first: run again
			// on fresh reads, which see that row and decide on it (an
			// existing job for Create, REVIEW_REQUIRED for AddAttempt).
		default:
			return err
		}
		// Back off a little, with jitter, before running again.
		d := time.Duration(1+rand.IntN(4*(i+1))) * time.Millisecond
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return parent.Err()
			}
			return s.busy(err)
		case <-time.After(d):
		}
	}
	return &Error{Code: CodeBusy, Status: HTTPStatus(CodeBusy),
		Detail: fmt.Sprintf("the store stayed busy for %d runs of the operation; nothing was applied by the last one, retry later", s.limits.TxAttemptsMax),
		cause:  err}
}

// busy is the STORE_BUSY of an operation that ran out of
// Limits.StoreWaitMax.
func (s *Service) busy(cause error) error {
	return &Error{Code: CodeBusy, Status: HTTPStatus(CodeBusy),
		Detail: fmt.Sprintf("the store did not answer within %s; nothing was applied, retry later", s.limits.StoreWaitMax),
		cause:  cause}
}

func visible(j Job, caller Principal) bool {
	return caller.IsReviewer() || (caller.Name != "" && j.Owner == caller.Name)
}

func notFound(kind, id string) *Error { return errorf(CodeNotFound, "%s %s not found", kind, id) }

// loadJob reads a job the caller may see; anything else is NOT_FOUND so
// existence is never revealed (LED-7).
func loadJob(ctx context.Context, tx Tx, caller Principal, id string) (Job, error) {
	j, err := tx.Job(ctx, id)
	if errors.Is(err, ErrNoRow) || (err == nil && !visible(j, caller)) {
		return Job{}, notFound("job", id)
	}
	return j, err
}

// lockJobFor is loadJob for a transaction that writes: it takes the job
// row's lock first (Tx.LockJob), before any attempt row, which is the one
// lock order of every writing transaction (no deadlock between them).
func lockJobFor(ctx context.Context, tx Tx, caller Principal, id string) (Job, error) {
	j, err := tx.LockJob(ctx, id)
	if errors.Is(err, ErrNoRow) || (err == nil && !visible(j, caller)) {
		return Job{}, notFound("job", id)
	}
	return j, err
}

// lockAttempt reads an attempt's job id, locks the job row (the lock order:
// job first), then reads the attempt again under that lock.
func lockAttempt(ctx context.Context, tx Tx, attemptID string) (Attempt, Job, error) {
	a, err := tx.Attempt(ctx, attemptID)
	if errors.Is(err, ErrNoRow) {
		return Attempt{}, Job{}, notFound("attempt", attemptID)
	} else if err != nil {
		return Attempt{}, Job{}, err
	}
	j, err := tx.LockJob(ctx, a.JobID)
	if err != nil {
		return Attempt{}, Job{}, err
	}
	if a, err = tx.Attempt(ctx, attemptID); err != nil {
		return Attempt{}, Job{}, err
	}
	return a, j, nil
}

// fill loads attempts and computes controls for caller.
func (s *Service) fill(ctx context.Context, tx Tx, j *Job, caller Principal) error {
	as, err := tx.Attempts(ctx, j.ID)
	if err != nil {
		return err
	}
	j.Attempts = as
	global, err := globalFallback(ctx, tx)
	if err != nil {
		return err
	}
	j.Controls = controlsFor(*j, caller, global)
	return nil
}

const settingFallback = "fallback_enabled"

func globalFallback(ctx context.Context, tx Tx) (bool, error) {
	v, ok, err := tx.Setting(ctx, settingFallback)
	if err != nil {
		return false, err
	}
	return !ok || v != "false", nil
}

func checkText(field, v string, maxBytes int) error {
	if len(v) > maxBytes {
		return errorf(CodeInvalidInput, "%s longer than %d bytes", field, maxBytes)
	}
	return CheckText(field, v)
}

// Create records a new intention for caller under the idempotency key, with
// its first attempt (state starting) in the same transaction (LED-1). The
// same key with the same canonical input returns the existing job and
// created=false; with another input it fails IDEMPOTENCY_KEY_REUSED and
// changes nothing (LED-2). provider "" means DefaultProvider.
func (s *Service) Create(ctx context.Context, caller Principal, key string, input json.RawMessage, provider string) (Job, bool, error) {
	if caller.Name == "" {
		return Job{}, false, errorf(CodeUnauthorized, "no caller")
	}
	if strings.TrimSpace(key) == "" {
		return Job{}, false, errorf(CodeIdempotencyKeyMissing, "an idempotency key is required")
	}
	if err := checkText("idempotency key", key, s.limits.KeyBytesMax); err != nil {
		return Job{}, false, err
	}
	if provider = strings.TrimSpace(provider); provider == "" {
		provider = DefaultProvider
	}
	if err := checkText("provider", provider, s.limits.ProviderBytesMax); err != nil {
		return Job{}, false, err
	}
	if err := CheckJSONText("input", input); err != nil {
		return Job{}, false, err
	}
	canon, err := CanonicalJSON(input)
	if err != nil {
		return Job{}, false, errorf(CodeInvalidInput, "input: %v", err)
	}
	if len(canon) == 0 || canon[0] != '{' {
		return Job{}, false, errorf(CodeInvalidInput, "input must be a JSON object")
	}
	if len(canon) > s.limits.InputBytesMax {
		return Job{}, false, errorf(CodeInvalidInput, "input longer than %d bytes", s.limits.InputBytesMax)
	}
	digest := sha256Hex(canon)

	var job Job
	var created bool
	for range 3 { // a lost insert race (ErrDuplicate) is settled by reading the winner
		err = s.run(ctx, func(tx Tx, o *op) error {
			created = false
			j, err := tx.JobByKey(ctx, caller.Name, key)
			switch {
			case err == nil:
				if j.InputDigest != digest {
					return errorf(CodeIdempotencyKeyReused,
						"key %q was used for job %s with other input (digest %s, this one %s)",
						key, j.ID, short(j.InputDigest), short(digest))
				}
				job = j
				return s.fill(ctx, tx, &job, caller)
			case !errors.Is(err, ErrNoRow):
				return err
			}
			j = Job{
				ID: s.ids.NewID("job"), Owner: caller.Name, IdempotencyKey: key,
				Input: canon, InputDigest: digest, State: JobAccepted, Version: 1,
				FallbackEnabled: true, CreatedAt: o.now, UpdatedAt: o.now,
			}
			if err := tx.InsertJob(ctx, j); err != nil {
				return err
			}
			a := Attempt{ID: s.ids.NewID("att"), JobID: j.ID, Number: 1, Provider: provider,
				State: AttemptStarting, CallbackSecret: newCallbackSecret(), CreatedAt: o.now, UpdatedAt: o.now}
			if err := tx.InsertAttempt(ctx, a); err != nil {
				return err
			}
			if err := o.event(ctx, tx, Event{JobID: j.ID, Kind: EventJobCreated, To: string(JobAccepted),
				Detail: fmt.Sprintf("owner %s, key %q, digest %s", caller.Name, key, short(digest))}); err != nil {
				return err
			}
			if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptStarted,
				To: string(AttemptStarting), Detail: "provider " + provider}); err != nil {
				return err
			}
			job, created = j, true
			return s.fill(ctx, tx, &job, caller)
		})
		if !errors.Is(err, ErrDuplicate) {
			break
		}
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("ledger: create: %w", err)
	}
	if created {
		s.dispatch(ctx, job, job.Attempts[0])
	}
	return job, created, nil
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

func (s *Service) dispatch(ctx context.Context, j Job, a Attempt) {
	if s.dispatcher != nil {
		s.dispatcher.Dispatch(ctx, j, a)
	}
}

// Get returns the job with its attempts and the caller's controls. Another
// owner gets NOT_FOUND; reviewers see every job (LED-7).
func (s *Service) Get(ctx context.Context, caller Principal, id string) (Job, error) {
	if err := checkID("job", id); err != nil {
		return Job{}, err
	}
	var job Job
	err := s.view(ctx, func(tx Tx) error {
		j, err := loadJob(ctx, tx, caller, id)
		if err != nil {
			return err
		}
		job = j
		return s.fill(ctx, tx, &job, caller)
	})
	if err != nil {
		return Job{}, fmt.Errorf("ledger: get: %w", err)
	}
	return job, nil
}

// AddAttempt starts another attempt for the same job (LED-4): a retry when
// provider is "" or the last attempt's provider, a fallback otherwise.
// While an attempt is starting or unknown it is refused REVIEW_REQUIRED
// unless a reviewer gives supersedeReason; then every open attempt becomes
// superseded (reason and reviewer recorded) before the new one starts. A
// non-reviewer giving a reason gets FORBIDDEN. A fallback while the global
// or the job's fallback switch is off gets FALLBACK_DISABLED (LED-9).
func (s *Service) AddAttempt(ctx context.Context, caller Principal, jobID, provider, supersedeReason string) (Attempt, error) {
	provider = strings.TrimSpace(provider)
	reason := strings.TrimSpace(supersedeReason)
	if err := checkText("provider", provider, s.limits.ProviderBytesMax); err != nil {
		return Attempt{}, err
	}
	if err := checkText("supersede reason", reason, s.limits.ReasonBytesMax); err != nil {
		return Attempt{}, err
	}
	if err := checkID("job", jobID); err != nil {
		return Attempt{}, err
	}
	var job Job
	var att Attempt
	err := s.run(ctx, func(tx Tx, o *op) error {
		j, err := lockJobFor(ctx, tx, caller, jobID)
		if err != nil {
			return err
		}
		if reason != "" && !caller.IsReviewer() {
			return errorf(CodeForbidden, "only a reviewer may supersede an attempt")
		}
		if j.State.Terminal() {
			return errorf(CodeInvalidTransition, "job %s is %s; no new attempt", j.ID, j.State)
		}
		as, err := tx.Attempts(ctx, j.ID)
		if err != nil {
			return err
		}
		if len(as) == 0 {
			return fmt.Errorf("ledger: job %s has no attempt", j.ID)
		}
		last := as[len(as)-1]
		p := provider
		if p == "" {
			p = last.Provider
		}
		if p != last.Provider {
			global, err := globalFallback(ctx, tx)
			if err != nil {
				return err
			}
			if !global || !j.FallbackEnabled {
				return errorf(CodeFallbackDisabled, "fallback to another provider is switched off")
			}
		}
		var open []Attempt
		for _, a := range as {
			if a.State.Open() {
				open = append(open, a)
			}
		}
		if len(open) > 0 && reason == "" {
			return errorf(CodeReviewRequired,
				"attempt %s is %s: its provider may still answer; a reviewer must record a supersede reason",
				open[0].ID, open[0].State)
		}
		for _, a := range open {
			if err := checkAttemptTransition(a.State, AttemptSuperseded); err != nil {
				return err
			}
			from := a.State
			a.State, a.SupersedeReason, a.Reviewer, a.UpdatedAt = AttemptSuperseded, reason, caller.Name, o.now
			ok, err := tx.UpdateAttempt(ctx, a, from, a.CallbackStatus)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: attempt %s moved", ErrRetry, a.ID)
			}
			if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptSuperseded,
				From: string(from), To: string(AttemptSuperseded),
				Detail: fmt.Sprintf("by %s: %s", caller.Name, reason)}); err != nil {
				return err
			}
		}
		att = Attempt{ID: s.ids.NewID("att"), JobID: j.ID, Number: last.Number + 1, Provider: p,
			State: AttemptStarting, CallbackSecret: newCallbackSecret(), CreatedAt: o.now, UpdatedAt: o.now}
		if err := tx.InsertAttempt(ctx, att); err != nil {
			return err
		}
		kind := "retry"
		if p != last.Provider {
			kind = "fallback"
		}
		if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: att.ID, Kind: EventAttemptStarted,
			To: string(AttemptStarting), Detail: fmt.Sprintf("%s by %s, provider %s", kind, caller.Name, p)}); err != nil {
			return err
		}
		if err := s.moveJob(ctx, tx, o, &j, JobRunning, "new attempt "+att.ID); err != nil {
			return err
		}
		job = j
		return nil
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("ledger: add attempt: %w", err)
	}
	s.dispatch(ctx, job, att)
	return att, nil
}

// moveJob sets the job's state with a compare-and-swap on its version; a
// lost swap is ErrRetry (the operation runs again on fresh reads). The
// version is bumped even when the state stays, so concurrent changes to one
// job serialise on it.
func (s *Service) moveJob(ctx context.Context, tx Tx, o *op, j *Job, to JobState, why string) error {
	from := j.State
	if from != to {
		if err := checkJobTransition(from, to); err != nil {
			return err
		}
	}
	next := *j
	next.State, next.UpdatedAt = to, o.now
	ok, err := tx.UpdateJob(ctx, next, j.Version)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: job %s version %d moved", ErrRetry, j.ID, j.Version)
	}
	next.Version++
	*j = next
	if from == to {
		return nil
	}
	kind := EventJobState
	if to == JobCancelled {
		kind = EventJobCancelled
	}
	return o.event(ctx, tx, Event{JobID: j.ID, Kind: kind, From: string(from), To: string(to), Detail: why})
}

// MarkSent records that the attempt's provider request went out; the job
// becomes running. A cancelled or completed job refuses it
// (INVALID_TRANSITION): the dispatcher should then not send.
func (s *Service) MarkSent(ctx context.Context, attemptID string) (Attempt, error) {
	if err := checkID("attempt", attemptID); err != nil {
		return Attempt{}, err
	}
	var att Attempt
	err := s.run(ctx, func(tx Tx, o *op) error {
		a, j, err := lockAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		if a.State != AttemptStarting {
			return errorf(CodeInvalidTransition, "attempt %s is %s, not starting", a.ID, a.State)
		}
		if j.State.Terminal() {
			return errorf(CodeInvalidTransition, "job %s is %s; do not send", j.ID, j.State)
		}
		if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventAttemptSent,
			From: string(a.State), To: string(a.State), Detail: "provider " + a.Provider}); err != nil {
			return err
		}
		if j.State != JobRunning {
			if err := s.moveJob(ctx, tx, o, &j, JobRunning, "attempt "+a.ID+" sent"); err != nil {
				return err
			}
		}
		att = a
		return nil
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("ledger: mark sent: %w", err)
	}
	return att, nil
}

// Timeout records that the attempt's request was sent and no answer came in
// time (LED-3): a starting attempt becomes unknown, never failed, and a live
// job needs review. An attempt that already has a result, or is already
// unknown, is left as it is; the timeout is logged and explained.
func (s *Service) Timeout(ctx context.Context, attemptID string) (Attempt, error) {
	if err := checkID("attempt", attemptID); err != nil {
		return Attempt{}, err
	}
	var att Attempt
	err := s.run(ctx, func(tx Tx, o *op) error {
		a, j, err := lockAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		att = a
		if a.State != AttemptStarting {
			return o.event(ctx, tx, Event{JobID: a.JobID, AttemptID: a.ID, Kind: EventAttemptTimeout,
				From: string(a.State), To: string(a.State),
				Detail: fmt.Sprintf("ignored: attempt is already %s", a.State)})
		}
		if err := checkAttemptTransition(a.State, AttemptUnknown); err != nil {
			return err
		}
		next := a
		next.State, next.UpdatedAt = AttemptUnknown, o.now
		ok, err := tx.UpdateAttempt(ctx, next, a.State, a.CallbackStatus)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: attempt %s moved", ErrRetry, a.ID)
		}
		att = next
		if err := o.event(ctx, tx, Event{JobID: a.JobID, AttemptID: a.ID, Kind: EventAttemptTimeout,
			From: string(a.State), To: string(AttemptUnknown),
			Detail: "sent, no answer in time: outcome unknown, not failed"}); err != nil {
			return err
		}
		if !j.State.Terminal() && j.State != JobNeedsReview {
			return s.moveJob(ctx, tx, o, &j, JobNeedsReview, "attempt "+a.ID+" unknown after timeout")
		}
		return nil
	})
	if err != nil {
		return Attempt{}, fmt.Errorf("ledger: timeout: %w", err)
	}
	return att, nil
}

// normaliseStatus accepts the two callback statuses and a few common
// spellings of them.
func normaliseStatus(status string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "succeeded", "success", "ok", "completed", "done":
		return StatusSucceeded, nil
	case "failed", "failure", "error":
		return StatusFailed, nil
	}
	return "", errorf(CodeInvalidInput, "status %q: want %q or %q", status, StatusSucceeded, StatusFailed)
}

// boundOutput keeps at most maxBytes of out, cut on a UTF-8 boundary.
func boundOutput(out string, maxBytes int) (string, bool) {
	if len(out) <= maxBytes {
		return out, false
	}
	cut := maxBytes
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut], true
}

// Callback reconciles a provider's answer for an attempt (LED-5, LED-8).
// The winner is decided only by the compare-and-swap Tx.ClaimWinner on the
// job version; a swap that finds the version moved applies nothing and the
// callback is reconciled again on fresh reads (typically as lost_race).
// Every callback is logged; none is lost or applied twice.
func (s *Service) Callback(ctx context.Context, attemptID, status, output string) (Reconciliation, error) {
	st, err := normaliseStatus(status)
	if err != nil {
		return Reconciliation{}, err
	}
	if err := CheckText("output", output); err != nil {
		return Reconciliation{}, err
	}
	if err := checkID("attempt", attemptID); err != nil {
		return Reconciliation{}, err
	}
	sum := sha256Hex([]byte(output))
	var rec Reconciliation
	err = s.run(ctx, func(tx Tx, o *op) error {
		rec = Reconciliation{}
		a, j, err := lockAttempt(ctx, tx, attemptID)
		if err != nil {
			return err
		}
		next := a
		var detail string
		switch {
		case a.CallbackStatus == st && a.OutputSHA256 == sum:
			rec.Outcome, detail = OutcomeDuplicate, "the same result was already recorded; nothing changed"
		case a.CallbackStatus != "":
			rec.Outcome = OutcomeConflicting
			detail = fmt.Sprintf("attempt already reported %s; this %s is logged, nothing changed", a.CallbackStatus, st)
		default:
			next.CallbackStatus, next.OutputSHA256, next.OutputBytes, next.UpdatedAt = st, sum, len(output), o.now
			next.Output, next.OutputTruncated = boundOutput(output, s.limits.DiagnosticOutputBytesMax)
			result := AttemptSucceeded
			if st == StatusFailed {
				result = AttemptFailed
			}
			guard := s.planted != PlantClaimWithoutCheck // planted.go: the explorer's self-test
			switch {
			case a.State == AttemptSuperseded:
				rec.Outcome = OutcomeLateAfterSupersession
				detail = fmt.Sprintf("attempt was superseded by %s (%s); result stored for review, not applied", a.Reviewer, a.SupersedeReason)
			case guard && j.State == JobCancelled:
				rec.Outcome, next.State = OutcomeAfterCancel, result
				detail = "job was cancelled; result stored, not applied"
			case st == StatusFailed:
				rec.Outcome, next.State = OutcomeFailedRecorded, AttemptFailed
				detail = "definite failure from the provider"
			case guard && j.State == JobCompleted:
				rec.Outcome, next.State = OutcomeLostRace, AttemptSucceeded
				detail = fmt.Sprintf("attempt %s had already won; output kept for diagnostics, not applied", j.WinningAttemptID)
			default:
				ok, err := tx.ClaimWinner(ctx, j.ID, a.ID, j.Version, o.now)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("%w: job %s version %d moved before the claim", ErrRetry, j.ID, j.Version)
				}
				rec.Outcome, detail = OutcomeApplied, "won the claim on job version "+fmt.Sprint(j.Version)
				if a.State == AttemptUnknown {
					rec.Outcome = OutcomeLateAfterTimeoutApplied
					detail = "late answer after a timeout; nobody else won, so it " + detail
				}
				next.State, next.Applied = AttemptSucceeded, true
				next.Output, next.OutputTruncated = boundOutput(output, s.limits.AppliedOutputBytesMax)
				if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventJobCompleted,
					From: string(j.State), To: string(JobCompleted), Detail: "winner " + a.ID}); err != nil {
					return err
				}
			}
			if next.State != a.State {
				if err := checkAttemptTransition(a.State, next.State); err != nil {
					return err
				}
			}
			ok, err := tx.UpdateAttempt(ctx, next, a.State, a.CallbackStatus)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: attempt %s moved", ErrRetry, a.ID)
			}
			if rec.Outcome == OutcomeFailedRecorded && !j.State.Terminal() {
				open, err := otherOpen(ctx, tx, j.ID, a.ID)
				if err != nil {
					return err
				}
				if !open && j.State != JobNeedsReview {
					if err := s.moveJob(ctx, tx, o, &j, JobNeedsReview, "attempt "+a.ID+" failed"); err != nil {
						return err
					}
				}
			}
		}
		if err := o.event(ctx, tx, Event{JobID: j.ID, AttemptID: a.ID, Kind: EventCallback,
			From: string(a.State), To: string(next.State),
			Detail: fmt.Sprintf("%s: status %s, %d bytes: %s", rec.Outcome, st, len(output), detail)}); err != nil {
			return err
		}
		rec.Detail = detail
		rec.Attempt = next
		j2, err := tx.Job(ctx, j.ID)
		if err != nil {
			return err
		}
		rec.Job = j2
		return s.fill(ctx, tx, &rec.Job, Principal{})
	})
	if err != nil {
		return Reconciliation{}, fmt.Errorf("ledger: callback: %w", err)
	}
	return rec, nil
}

func otherOpen(ctx context.Context, tx Tx, jobID, except string) (bool, error) {
	as, err := tx.Attempts(ctx, jobID)
	if err != nil {
		return false, err
	}
	for _, a := range as {
		if a.ID != except && a.State.Open() {
			return true, nil
		}
	}
	return false, nil
}

// Cancel cancels a live job. Open attempts keep their state; their late
// callbacks are reconciled as after_cancel. Cancelling a cancelled job
// returns it unchanged; a completed job cannot be cancelled.
func (s *Service) Cancel(ctx context.Context, caller Principal, jobID string) (Job, error) {
	if err := checkID("job", jobID); err != nil {
		return Job{}, err
	}
	var job Job
	err := s.run(ctx, func(tx Tx, o *op) error {
		j, err := lockJobFor(ctx, tx, caller, jobID)
		if err != nil {
			return err
		}
		if j.State != JobCancelled {
			if err := s.moveJob(ctx, tx, o, &j, JobCancelled, "by "+caller.Name); err != nil {
				return err
			}
		}
		job = j
		return s.fill(ctx, tx, &job, caller)
	})
	if err != nil {
		return Job{}, fmt.Errorf("ledger: cancel: %w", err)
	}
	return job, nil
}

// Output returns the winning attempt's output; NO_WINNER before there is
// one.
func (s *Service) Output(ctx context.Context, caller Principal, jobID string) (Output, error) {
	if err := checkID("job", jobID); err != nil {
		return Output{}, err
	}
	var out Output
	err := s.view(ctx, func(tx Tx) error {
		j, err := loadJob(ctx, tx, caller, jobID)
		if err != nil {
			return err
		}
		if j.WinningAttemptID == "" {
			return errorf(CodeNoWinner, "job %s is %s and has no winning attempt", j.ID, j.State)
		}
		a, err := tx.Attempt(ctx, j.WinningAttemptID)
		if err != nil {
			return err
		}
		out = Output{JobID: j.ID, AttemptID: a.ID, Provider: a.Provider, Output: a.Output,
			Bytes: a.OutputBytes, Truncated: a.OutputTruncated}
		return nil
	})
	if err != nil {
		return Output{}, fmt.Errorf("ledger: output: %w", err)
	}
	return out, nil
}

// Events returns the job's log in order. It is an operator/harness API and
// checks no ownership; it is not served over HTTP.
func (s *Service) Events(ctx context.Context, jobID string) ([]Event, error) {
	var evs []Event
	err := s.view(ctx, func(tx Tx) error {
		var err error
		evs, err = tx.Events(ctx, jobID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: events: %w", err)
	}
	return evs, nil
}

// SetFallbackEnabled is the global rollback switch (LED-9), stored in the
// database so every process sharing it sees it. Off refuses new attempts
// with another provider (FALLBACK_DISABLED); retries with the same
// provider, callbacks, cancel and output keep working, and nothing is
// deleted. The change is logged under job id "".
func (s *Service) SetFallbackEnabled(ctx context.Context, enabled bool) error {
	err := s.run(ctx, func(tx Tx, o *op) error {
		was, err := globalFallback(ctx, tx)
		if err != nil {
			return err
		}
		if err := tx.PutSetting(ctx, settingFallback, fmt.Sprint(enabled), o.now); err != nil {
			return err
		}
		return o.event(ctx, tx, Event{Kind: EventFallbackSwitch, From: fmt.Sprint(was), To: fmt.Sprint(enabled)})
	})
	if err != nil {
		return fmt.Errorf("ledger: set fallback: %w", err)
	}
	return nil
}

// FallbackEnabled reports the global switch.
func (s *Service) FallbackEnabled(ctx context.Context) (bool, error) {
	var on bool
	err := s.view(ctx, func(tx Tx) error {
		var err error
		on, err = globalFallback(ctx, tx)
		return err
	})
	return on, err
}

// SetJobFallbackEnabled is the per-job switch; fallback needs both it and
// the global one on.
func (s *Service) SetJobFallbackEnabled(ctx context.Context, caller Principal, jobID string, enabled bool) (Job, error) {
	if err := checkID("job", jobID); err != nil {
		return Job{}, err
	}
	var job Job
	err := s.run(ctx, func(tx Tx, o *op) error {
		j, err := lockJobFor(ctx, tx, caller, jobID)
		if err != nil {
			return err
		}
		was := j.FallbackEnabled
		next := j
		next.FallbackEnabled, next.UpdatedAt = enabled, o.now
		ok, err := tx.UpdateJob(ctx, next, j.Version)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: job %s moved", ErrRetry, j.ID)
		}
		next.Version++
		if err := o.event(ctx, tx, Event{JobID: j.ID, Kind: EventJobFallbackSwitch,
			From: fmt.Sprint(was), To: fmt.Sprint(enabled), Detail: "by " + caller.Name}); err != nil {
			return err
		}
		job = next
		return s.fill(ctx, tx, &job, caller)
	})
	if err != nil {
		return Job{}, fmt.Errorf("ledger: set job fallback: %w", err)
	}
	return job, nil
}
