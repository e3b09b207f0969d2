// Package ledger is the durable job/attempt ledger of SPEC §6: one
// intention (a job, keyed by owner and idempotency key) and many provider
// attempts, with exactly one winner decided by compare-and-swap.
//
// # Model
//
// A Job holds the canonical JSON input and its sha256 digest, a version
// (starts at 1, +1 on every job change) and the winning attempt id. An
// Attempt is one call to one provider. Every transition and every callback
// is appended to an event log (Event). No row is ever deleted: the schema
// refuses DELETE on every table (SQLite BEFORE DELETE triggers with RAISE;
// PostgreSQL statement triggers that raise on DELETE and TRUNCATE), and
// events also refuse UPDATE.
//
// # Transitions
//
// Job (checked by checkJobTransition; staying in a state is no transition):
//
//	from \ to      running  needs_review  completed  cancelled
//	accepted       send,    timeout,      CAS win    Cancel
//	               AddAtt.  failure
//	running        -        timeout,      CAS win    Cancel
//	                        failure
//	needs_review   AddAtt.  -             CAS win    Cancel
//	completed      -        -             -          -
//	cancelled      -        -             -          -
//
// Attempt (checked by checkAttemptTransition):
//
//	from \ to   unknown   failed            succeeded          superseded
//	starting    Timeout   failure callback  success callback   reviewer AddAttempt
//	unknown     -         failure callback  success callback   reviewer AddAttempt
//	failed, succeeded, superseded: terminal
//
// A superseded attempt stays superseded when its late callback arrives: the
// result is stored (CallbackStatus, Output) for review and never applied.
//
// # Rules (SPEC ids)
//
//   - LED-1/2: Create is idempotent on (owner, key) by a UNIQUE constraint;
//     a lost insert race re-reads the winner. Same digest → the existing
//     job; another digest → IDEMPOTENCY_KEY_REUSED (422), nothing written.
//     Digest = sha256 of CanonicalJSON (sorted keys, no whitespace, one
//     spelling per number).
//
//   - LED-3: Timeout makes a starting attempt unknown (never failed) and the
//     job needs_review. Only a failure callback makes an attempt failed.
//
//   - LED-4: AddAttempt while an attempt is starting/unknown →
//     REVIEW_REQUIRED (409), unless a reviewer gives a supersede reason (a
//     non-reviewer giving one → FORBIDDEN 403). Same job, next attempt.
//
//   - LED-5: the winner is set only by Tx.ClaimWinner (UPDATE … WHERE id=?
//     AND version=?). A claim that updates no row applies nothing; the
//     callback is reconciled again on fresh reads (lost_race if another
//     attempt won). Losing outputs are kept, bounded (Limits).
//
//   - LED-6: Controls are computed from stored state on every read.
//
//   - LED-7: a job of another owner is NOT_FOUND (404); reviewers see all.
//
//   - LED-8: every callback is logged and reconciled to an Outcome; a
//     repeated identical callback is "duplicate" and changes nothing else.
//     A success after a timeout is applied (late_after_timeout_applied) if
//     the attempt was not superseded and nobody else won.
//
//   - LED-9: SetFallbackEnabled(ctx, false) is a global switch stored in the
//     database (SetJobFallbackEnabled is the per-job one; both must be on).
//     Off refuses AddAttempt with a provider other than the last attempt's
//     (FALLBACK_DISABLED 409); retries, callbacks, cancel, output work; it
//     deletes nothing.
//
//   - LED-10: Store has two implementations, OpenSQLite (modernc.org/sqlite,
//     WAL, BEGIN IMMEDIATE, synchronous FULL) and OpenPostgres (pgx); Open
//     picks by DSN. Both pass ledgertest.Run. Migrations are embedded,
//     numbered and recorded in schema_migrations.
//
//   - LED-11: a provider callback must carry the attempt's own signature
//     (callback_auth.go: HMAC-SHA256 with Attempt.CallbackSecret over
//     "t.body", ±CallbackTolerance); VerifiedCallback checks it, and every
//     failure is one CALLBACK_UNVERIFIED (401) that reveals nothing.
//
//   - LED-13: Recover resolves attempts whose send is uncertain after a
//     crash (recover.go): re-sent once, else unknown; attempt_recovered
//     events explain each.
//
//   - Input no store holds alike (NUL, invalid UTF-8, \u0000, lone
//     surrogate escapes) is INVALID_INPUT before any store sees it
//     (input.go).
//
// # Lock order
//
// Every transaction that writes a job or its attempts locks the job row
// first (Tx.LockJob: SELECT … FOR UPDATE on PostgreSQL; SQLite's BEGIN
// IMMEDIATE already holds the write lock), then reads and writes its
// attempts, so two such transactions never deadlock. A unique-key
// violation (ErrDuplicate) runs the operation again on fresh reads.
//
// # Transactions and uncertain commits
//
// Every Service operation runs in one Store.Tx and re-reads what it decides
// on, so it can run again after ErrRetry (SQLite busy, PostgreSQL
// 40001/40P01 or pgconn.SafeToRetry, a lost conditional update). Each run
// writes a random op id on its events; when COMMIT fails with anything else
// (ErrCommitUncertain) the Service looks the op id up before deciding
// whether the operation happened or must run again. Nothing is applied
// twice.
//
// # Providers
//
// A Dispatcher is told about each attempt once it is committed as starting.
// The provider side then calls MarkSent, Timeout and Callback. Ids and time
// come from an IDGenerator and a Clock, both injectable for deterministic
// runs (SequentialIDs, ClockFunc).
package ledger
