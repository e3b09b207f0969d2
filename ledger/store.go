package ledger

import (
	"context"
	"strings"
	"time"
)

// Store is durable storage for the ledger. It offers transactional
// primitives only; every business rule lives in Service, so each backend
// (SQLite, PostgreSQL) runs the same logic and passes the same behaviour
// suite (package ledgertest).
type Store interface {
	// Tx runs fn in one transaction and commits when fn returns nil.
	// It returns (wrapping) ErrRetry when the transaction definitely did not
	// commit and may be run again, and ErrCommitUncertain when COMMIT failed
	// in a way that does not prove nothing was committed.
	Tx(ctx context.Context, fn func(Tx) error) error
	// View runs fn in one read-only transaction. It never waits for the
	// write lock (SQLite: a deferred transaction on a pool of its own, so
	// a writer — this process's or another's — does not block reads; WAL
	// keeps the snapshot consistent). fn must not write. It returns
	// (wrapping) ErrRetry like Tx.
	View(ctx context.Context, fn func(Tx) error) error
	// Exec runs one raw SQL statement outside the ledger's rules and returns
	// the rows affected. For maintenance and for tests that check the schema
	// refuses what the Service never does (DELETE).
	Exec(ctx context.Context, query string) (int64, error)
	// Backend names the implementation: "sqlite" or "postgres".
	Backend() string
	Close() error
}

// Tx is one open transaction. Writes that can lose a race are conditional
// and report whether they changed a row.
type Tx interface {
	// InsertJob returns ErrDuplicate when (owner, key) already exists.
	InsertJob(ctx context.Context, j Job) error
	Job(ctx context.Context, id string) (Job, error) // ErrNoRow
	// LockJob reads the job and locks its row until the transaction ends
	// (PostgreSQL SELECT … FOR UPDATE; SQLite's BEGIN IMMEDIATE already
	// holds the database's write lock). Every transaction that writes a
	// job or its attempts takes this lock first: one lock order, so two
	// of them never deadlock. ErrNoRow when there is no such job.
	LockJob(ctx context.Context, id string) (Job, error)
	JobByKey(ctx context.Context, owner, key string) (Job, error) // ErrNoRow
	// UpdateJob writes state, fallback flag and updated_at and sets
	// version = fromVersion+1 where id = j.ID and version = fromVersion.
	UpdateJob(ctx context.Context, j Job, fromVersion int) (bool, error)
	// ClaimWinner is the compare-and-swap that decides the winner (LED-5):
	// UPDATE jobs SET winning_attempt_id=?, state='completed',
	// version=version+1 WHERE id=? AND version=?.
	ClaimWinner(ctx context.Context, jobID, attemptID string, fromVersion int, at time.Time) (bool, error)

	InsertAttempt(ctx context.Context, a Attempt) error
	Attempt(ctx context.Context, id string) (Attempt, error) // ErrNoRow
	Attempts(ctx context.Context, jobID string) ([]Attempt, error)
	// UpdateAttempt writes every mutable field of a where id = a.ID and
	// the stored state and callback status are still fromState/fromCallback.
	UpdateAttempt(ctx context.Context, a Attempt, fromState AttemptState, fromCallback string) (bool, error)

	// UncertainAttempts lists attempts in state starting with no
	// attempt_sent event, with ids after afterID, in id order, at most
	// limit (LED-13, Service.Recover).
	UncertainAttempts(ctx context.Context, afterID string, limit int) ([]Attempt, error)

	// AppendEvent adds a row to the log; Seq is assigned by the store.
	AppendEvent(ctx context.Context, e Event) error
	Events(ctx context.Context, jobID string) ([]Event, error)
	// HasOp reports whether any event carries opID, i.e. whether the
	// operation that wrote it committed.
	HasOp(ctx context.Context, opID string) (bool, error)

	Setting(ctx context.Context, key string) (string, bool, error)
	PutSetting(ctx context.Context, key, value string, at time.Time) error
	// NextSequence adds one to the named counter (kept in settings,
	// created at 1) and returns its new value (LED-15).
	NextSequence(ctx context.Context, name string, at time.Time) (int64, error)
	// KeyUsed reports whether any job of any owner has the idempotency key.
	KeyUsed(ctx context.Context, key string) (bool, error)

	// OpenAttempts lists attempts in state starting or unknown of jobs
	// that are not terminal, with ids after afterID, in id order, at most
	// limit (LED-14, Service.Sweep).
	OpenAttempts(ctx context.Context, afterID string, limit int) ([]Attempt, error)
	// TakeLease takes or renews the named lease for holder until until,
	// when it is free, expired at now, or already the holder's; it
	// reports whether holder has it (LED-14: one sweeper at a time
	// across processes).
	TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
}

// Open picks the backend from dsn: "postgres://" or "postgresql://" opens
// PostgreSQL, anything else is a SQLite file path.
func Open(ctx context.Context, dsn string) (Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return OpenPostgres(ctx, dsn)
	}
	return OpenSQLite(ctx, dsn)
}
