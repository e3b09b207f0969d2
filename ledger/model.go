package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// JobState is the state of a job (one intention).
type JobState string

// Job states; see the package doc for the transition table.
const (
	JobAccepted    JobState = "accepted"
	JobRunning     JobState = "running"
	JobNeedsReview JobState = "needs_review"
	JobCompleted   JobState = "completed"
	JobCancelled   JobState = "cancelled"
)

// Terminal reports whether no further job transition is possible.
func (s JobState) Terminal() bool { return s == JobCompleted || s == JobCancelled }

// AttemptState is the state of one provider attempt.
type AttemptState string

// Attempt states; see the package doc for the transition table.
const (
	AttemptStarting   AttemptState = "starting"
	AttemptUnknown    AttemptState = "unknown"
	AttemptFailed     AttemptState = "failed"
	AttemptSucceeded  AttemptState = "succeeded"
	AttemptSuperseded AttemptState = "superseded"
)

// Open reports whether the attempt may still produce a result that nobody
// has seen: starting (maybe sent) or unknown (sent, no answer in time).
func (s AttemptState) Open() bool { return s == AttemptStarting || s == AttemptUnknown }

// jobTransitions is the job transition table (mirrored in doc.go).
var jobTransitions = map[JobState][]JobState{
	JobAccepted:    {JobRunning, JobNeedsReview, JobCompleted, JobCancelled},
	JobRunning:     {JobNeedsReview, JobCompleted, JobCancelled},
	JobNeedsReview: {JobRunning, JobCompleted, JobCancelled},
	JobCompleted:   nil,
	JobCancelled:   nil,
}

// attemptTransitions is the attempt transition table (mirrored in doc.go).
var attemptTransitions = map[AttemptState][]AttemptState{
	AttemptStarting:   {AttemptUnknown, AttemptFailed, AttemptSucceeded, AttemptSuperseded},
	AttemptUnknown:    {AttemptFailed, AttemptSucceeded, AttemptSuperseded},
	AttemptFailed:     nil,
	AttemptSucceeded:  nil,
	AttemptSuperseded: nil,
}

// checkJobTransition is the one place where job state changes are allowed
// or refused. Staying in the same state is not a transition and is not
// checked here.
func checkJobTransition(from, to JobState) error {
	for _, s := range jobTransitions[from] {
		if s == to {
			return nil
		}
	}
	return errorf(CodeInvalidTransition, "job cannot go from %s to %s", from, to)
}

// checkAttemptTransition is the one place where attempt state changes are
// allowed or refused.
func checkAttemptTransition(from, to AttemptState) error {
	for _, s := range attemptTransitions[from] {
		if s == to {
			return nil
		}
	}
	return errorf(CodeInvalidTransition, "attempt cannot go from %s to %s", from, to)
}

// Role is what a principal may do.
type Role string

// Roles.
const (
	RoleOwner    Role = "owner"    // sees and acts on its own jobs only
	RoleReviewer Role = "reviewer" // may read any job and record supersessions
)

// Principal is an authenticated caller.
type Principal struct {
	Name string
	Role Role
}

// IsReviewer reports whether p has the reviewer role.
func (p Principal) IsReviewer() bool { return p.Role == RoleReviewer }

// Job is one durable intention.
type Job struct {
	ID               string
	Owner            string
	IdempotencyKey   string
	Input            json.RawMessage // canonical JSON
	InputDigest      string          // hex sha256 of Input
	State            JobState
	Version          int
	WinningAttemptID string
	FallbackEnabled  bool // per-job switch; effective only with the global one
	CreatedAt        time.Time
	UpdatedAt        time.Time

	// Filled by reads that ask for them (Get, Cancel, Create...).
	Attempts []Attempt
	Controls Controls
}

// Attempt is one provider attempt for a job.
type Attempt struct {
	ID              string
	JobID           string
	Number          int // 1, 2, ... within the job
	Provider        string
	State           AttemptState
	SupersedeReason string
	Reviewer        string
	// CallbackStatus is the status of the first definite callback received
	// ("" none yet, "succeeded" or "failed"), whatever State says: a
	// superseded attempt that later succeeded keeps State superseded and
	// CallbackStatus succeeded.
	CallbackStatus  string
	Output          string // bounded, see Limits
	OutputBytes     int    // size of the output as received
	OutputTruncated bool
	OutputSHA256    string // of the output as received; detects duplicates
	Applied         bool   // this attempt's output is the job's result
	// CallbackSecret is the attempt's own callback credential (LED-11),
	// issued when the attempt starts and handed to its provider with the
	// work; callbacks are signed with it (SignCallback). The job API never
	// shows it. "" for attempts started before schema version 2: their
	// callbacks cannot be verified.
	CallbackSecret string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Event is one row of the append-only log.
type Event struct {
	Seq       int64 // global, increasing
	JobID     string
	AttemptID string
	Kind      string
	From      string
	To        string
	Detail    string
	At        time.Time
	OpID      string // the Service operation (transaction) that wrote it
}

// Event kinds.
const (
	EventJobCreated        = "job_created"
	EventJobState          = "job_state"
	EventJobCancelled      = "job_cancelled"
	EventJobCompleted      = "job_completed"
	EventAttemptStarted    = "attempt_started"
	EventAttemptSent       = "attempt_sent"
	EventAttemptTimeout    = "attempt_timeout"
	EventAttemptSuperseded = "attempt_superseded"
	EventCallback          = "callback" // Detail starts with the Outcome
	EventFallbackSwitch    = "fallback_switch"
	EventJobFallbackSwitch = "job_fallback_switch"
)

// Controls say what a caller may do with a job now, derived from server
// state only (LED-6).
type Controls struct {
	Retry          bool `json:"retry"`          // new attempt, same provider as the last
	Cancel         bool `json:"cancel"`         // job not terminal
	Fallback       bool `json:"fallback"`       // new attempt with another provider
	Output         bool `json:"output"`         // a winner exists
	ReviewRequired bool `json:"reviewRequired"` // an attempt is starting/unknown: a reviewer must supersede it
}

func controlsFor(j Job, caller Principal, globalFallback bool) Controls {
	var c Controls
	open := false
	for _, a := range j.Attempts {
		if a.State.Open() {
			open = true
		}
	}
	live := !j.State.Terminal()
	c.Cancel = live
	c.Output = j.State == JobCompleted && j.WinningAttemptID != ""
	c.ReviewRequired = live && open
	c.Retry = live && (!open || caller.IsReviewer())
	c.Fallback = c.Retry && globalFallback && j.FallbackEnabled
	return c
}

// Clock gives the time. Inject a fake one for deterministic runs.
type Clock interface{ Now() time.Time }

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// SystemClock is the wall clock.
var SystemClock Clock = ClockFunc(time.Now)

// IDGenerator makes ids. kind is "job" or "att".
type IDGenerator interface{ NewID(kind string) string }

// IDFunc adapts a function to IDGenerator.
type IDFunc func(kind string) string

// NewID calls f.
func (f IDFunc) NewID(kind string) string { return f(kind) }

// RandomIDs makes ids like "job_" + 16 hex digits from crypto/rand.
var RandomIDs IDGenerator = IDFunc(func(kind string) string { return kind + "_" + randomHex(8) })

// SequentialIDs returns a generator of deterministic ids "job_0001",
// "att_0001", "att_0002", ... with one counter per kind. Safe for
// concurrent use. Two processes sharing a database must not both use one.
func SequentialIDs() IDGenerator {
	var mu sync.Mutex
	n := map[string]int{}
	return IDFunc(func(kind string) string {
		mu.Lock()
		defer mu.Unlock()
		n[kind]++
		return fmt.Sprintf("%s_%04d", kind, n[kind])
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand contract since Go 1.24)
	return hex.EncodeToString(b)
}
