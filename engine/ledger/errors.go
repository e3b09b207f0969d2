package ledger

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Code is a stable machine-readable error code. Codes are errors themselves,
// so callers can test with errors.Is(err, ledger.CodeReviewRequired) and with
// ==, whichever reads better.
type Code string

// Error codes returned by the Service and the HTTP handler.
const (
	CodeIdempotencyKeyMissing Code = "IDEMPOTENCY_KEY_MISSING" // 400: POST /api/jobs without a key
	CodeIdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"  // 422: same (owner, key), other input digest
	CodeReviewRequired        Code = "REVIEW_REQUIRED"         // 409: an attempt is starting or unknown
	CodeFallbackDisabled      Code = "FALLBACK_DISABLED"       // 409: fallback switched off (rollback)
	CodeNotFound              Code = "NOT_FOUND"               // 404: no such job/attempt, or not yours
	CodeForbidden             Code = "FORBIDDEN"               // 403: e.g. a non-reviewer supersedes
	CodeNoWinner              Code = "NO_WINNER"               // 409: output asked before a winner exists
	CodeInvalidInput          Code = "INVALID_INPUT"           // 400: a field or value is not acceptable
	CodeInvalidTransition     Code = "INVALID_TRANSITION"      // 409: not allowed from the current state
	CodeUnauthorized          Code = "UNAUTHORIZED"            // 401: no or unknown bearer token
	CodeBodyInvalidJSON       Code = "BODY_INVALID_JSON"       // 400: request body is not JSON
	CodeBodyNotObject         Code = "BODY_NOT_OBJECT"         // 400: request body is JSON but not an object
	CodeBodyTooLarge          Code = "BODY_TOO_LARGE"          // 400: request body over BodyBytesMax
	CodeBodyTimeout           Code = "BODY_TIMEOUT"            // 408: the request body did not arrive in time
	CodeCallbackUnverified    Code = "CALLBACK_UNVERIFIED"     // 401: a provider callback without its attempt's valid signature
	CodeUncertain             Code = "OUTCOME_UNCERTAIN"       // 503: the store could not say whether a write committed
	CodeBusy                  Code = "STORE_BUSY"              // 503: conflicts went on longer than TxAttemptsMax runs
	CodeInternal              Code = "INTERNAL"                // 500: anything else
)

// Error implements error so a Code can be returned and matched directly.
func (c Code) Error() string { return "ledger: " + string(c) }

// Status is the HTTP status that goes with the code.
func (c Code) Status() int {
	switch c {
	case CodeIdempotencyKeyMissing, CodeInvalidInput, CodeBodyInvalidJSON, CodeBodyNotObject, CodeBodyTooLarge:
		return http.StatusBadRequest
	case CodeIdempotencyKeyReused:
		return http.StatusUnprocessableEntity
	case CodeReviewRequired, CodeFallbackDisabled, CodeNoWinner, CodeInvalidTransition:
		return http.StatusConflict
	case CodeNotFound:
		return http.StatusNotFound
	case CodeForbidden:
		return http.StatusForbidden
	case CodeUnauthorized, CodeCallbackUnverified:
		return http.StatusUnauthorized
	case CodeBodyTimeout:
		return http.StatusRequestTimeout
	case CodeUncertain, CodeBusy:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// Error is a coded error with an HTTP status and a human-readable detail.
// errors.Is(err, code) is true for an *Error carrying that code.
type Error struct {
	Code   Code
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
	c, ok := target.(Code)
	return ok && c == e.Code
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Status: code.Status(), Detail: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Code carried by err, CodeInternal when there is none,
// and "" for a nil error.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c Code
	if errors.As(err, &c) {
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
