package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/replaylab/replaylab/engine/errcode"
)

// The error codes returned by the Service and the HTTP handler: errcode
// values, so errors.Is(err, ledger.CodeReviewRequired) and == both work,
// and Code.Status gives each its HTTP status (in the comments below).
const (
	CodeIdempotencyKeyMissing = errcode.IdempotencyKeyMissing // 400: POST /api/jobs without a key
	CodeIdempotencyKeyReused  = errcode.IdempotencyKeyReused  // 422: same (owner, key), other input digest
	CodeReviewRequired        = errcode.ReviewRequired        // 409: an attempt is starting or unknown
	CodeFallbackDisabled      = errcode.FallbackDisabled      // 409: fallback switched off (rollback)
	CodeNotFound              = errcode.NotFound              // 404: no such job/attempt, or not yours
	CodeForbidden             = errcode.Forbidden             // 403: e.g. a non-reviewer supersedes
	CodeNoWinner              = errcode.NoWinner              // 409: output asked before a winner exists
	CodeInvalidInput          = errcode.InvalidInput          // 400: a field or value is not acceptable
	CodeInvalidTransition     = errcode.InvalidTransition     // 409: not allowed from the current state
	CodeUnauthorized          = errcode.Unauthorized          // 401: no or unknown bearer token
	CodeBodyInvalidJSON       = errcode.BodyInvalidJSON       // 400: request body is not JSON
	CodeBodyNotObject         = errcode.BodyNotObject         // 400: request body is JSON but not an object
	CodeBodyTooLarge          = errcode.BodyTooLarge          // 400: request body over BodyBytesMax
	CodeBodyTimeout           = errcode.BodyTimeout           // 408: the request body did not arrive in time
	CodeCallbackUnverified    = errcode.CallbackUnverified    // 401: a provider callback without its attempt's valid signature
	CodeUncertain             = errcode.OutcomeUncertain      // 503: the store could not say whether a write committed
	CodeBusy                  = errcode.StoreBusy             // 503: conflicts went on longer than TxAttemptsMax runs
	CodeInternal              = errcode.Internal              // 500: anything else
)

// Error is a coded error with an HTTP status and a human-readable detail.
// errors.Is(err, code) is true for an *Error carrying that code.
type Error struct {
	Code   errcode.Code
	Status int
	Detail string
	cause  error // for logs and errors.Is; never shown to a client
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	if e.Detail == "" {
		return "ledger: " + string(e.Code)
	}
	return "ledger: " + string(e.Code) + ": " + e.Detail
}

// Is makes errors.Is(err, CodeX) work.
func (e *Error) Is(target error) bool {
	c, ok := target.(errcode.Code)
	return ok && c == e.Code
}

// ErrorCode returns the stable code (errcode.Of reads it).
func (e *Error) ErrorCode() string { return string(e.Code) }

// ProblemCode returns the code the job API answers err with: the code err
// carries (errcode.Of) and, for an error that carries none, the store's
// reading of it: a commit of uncertain outcome is CodeUncertain, a store
// that did not answer before the request's context ended CodeBusy, and
// anything else CodeInternal. It returns "" for a nil error.
func ProblemCode(err error) errcode.Code {
	if err == nil {
		return ""
	}
	if c := errcode.Of(err); c != "" {
		return c
	}
	if errors.Is(err, ErrCommitUncertain) {
		return CodeUncertain
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return CodeBusy // the store did not answer before the request ended
	}
	return CodeInternal
}

func errorf(code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Status: HTTPStatus(code), Detail: fmt.Sprintf(format, args...)}
}

// Store-level sentinels. A Store implementation returns (wraps) these; the
// Service maps them to coded errors or retries.
var (
	// ErrNoRow: the row asked for does not exist.
	ErrNoRow = errors.New("ledger: no such row")
	// ErrDuplicate: an insert hit a UNIQUE constraint.
	ErrDuplicate = errors.New("ledger: duplicate row")
	// ErrRetry: the transaction definitely did not commit and may be run
	// again (SQLite busy, PostgreSQL 40001/40P01, a connection error before
	// the statement was sent, a lost compare-and-swap).
	ErrRetry = errors.New("ledger: transient conflict, safe to retry")
	// ErrCommitUncertain: COMMIT returned an error, so the transaction may or
	// may not have committed. The Service re-reads before deciding.
	ErrCommitUncertain = errors.New("ledger: commit outcome uncertain")
)
