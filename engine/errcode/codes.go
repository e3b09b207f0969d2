package errcode

// The page API (package engine).
const (
	InvalidExpectation Code = "INVALID_EXPECTATION"
	MissingExpectation Code = "MISSING_EXPECTATION"
	OutcomeUnknown     Code = "OUTCOME_UNKNOWN"
	TaskBlocked        Code = "TASK_BLOCKED"
	TaskFinished       Code = "TASK_FINISHED"
	FieldMismatch      Code = "FIELD_MISMATCH"
	NoBaseline         Code = "NO_BASELINE"
	InvalidArgument    Code = "INVALID_ARGUMENT"
	WaitTimeout        Code = "WAIT_TIMEOUT"
	OutcomeNotMet      Code = "OUTCOME_NOT_MET"
	PageNotReady       Code = "PAGE_NOT_READY"
	NavigationFailed   Code = "NAVIGATION_FAILED" // the page could not be opened: the network error
	GroupNotFound      Code = "GROUP_NOT_FOUND"   // no answer group with that id on the page
	ControlDisabled    Code = "CONTROL_DISABLED"  // the control stayed disabled until the action's timeout: nothing was sent
)

// Resolving a target (package locate).
const (
	TargetAmbiguous      Code = "TARGET_AMBIGUOUS"
	TargetQueryTruncated Code = "TARGET_QUERY_TRUNCATED"
	TargetNotFound       Code = "TARGET_NOT_FOUND"
	StaleRef             Code = "STALE_REF"
	InvalidLocator       Code = "INVALID_LOCATOR"
	InvalidRef           Code = "INVALID_REF" // a ref never issued on the page
)

// Replaying a recording (package replay).
const (
	ReplayDiverged Code = "REPLAY_DIVERGED"
)

// The ledger and its job API (package ledger); ledger.HTTPStatus gives
// each its HTTP status.
const (
	IdempotencyKeyMissing Code = "IDEMPOTENCY_KEY_MISSING" // 400: POST /api/jobs without a key
	IdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"  // 422: same (owner, key), other input digest
	ReviewRequired        Code = "REVIEW_REQUIRED"         // 409: an attempt is starting or unknown
	FallbackDisabled      Code = "FALLBACK_DISABLED"       // 409: fallback switched off (rollback)
	NotFound              Code = "NOT_FOUND"               // 404: no such job/attempt, or not yours
	Forbidden             Code = "FORBIDDEN"               // 403: e.g. a non-reviewer supersedes
	NoWinner              Code = "NO_WINNER"               // 409: output asked before a winner exists
	InvalidInput          Code = "INVALID_INPUT"           // 400: a field or value is not acceptable
	InvalidTransition     Code = "INVALID_TRANSITION"      // 409: not allowed from the current state
	Unauthorized          Code = "UNAUTHORIZED"            // 401: no or unknown bearer token
	BodyInvalidJSON       Code = "BODY_INVALID_JSON"       // 400: request body is not JSON
	BodyNotObject         Code = "BODY_NOT_OBJECT"         // 400: request body is JSON but not an object
	BodyTooLarge          Code = "BODY_TOO_LARGE"          // 400: request body over BodyBytesMax
	BodyTimeout           Code = "BODY_TIMEOUT"            // 408: the request body did not arrive in time
	CallbackUnverified    Code = "CALLBACK_UNVERIFIED"     // 401: a provider callback without its attempt's valid signature
	OutcomeUncertain      Code = "OUTCOME_UNCERTAIN"       // 503: the store could not say whether a write committed
	StoreBusy             Code = "STORE_BUSY"              // 503: conflicts went on longer than TxAttemptsMax runs
	Internal              Code = "INTERNAL"                // 500: anything else (also the MCP server's uncoded errors)
)

// The synthetic chat site (package sim); the job API it serves answers
// with the ledger's codes.
const (
	SimBadRequest      Code = "SIM_BAD_REQUEST"
	SimNotFound        Code = "SIM_NOT_FOUND"
	CrossSiteRefused   Code = "CROSS_SITE_REFUSED"
	HeadersTooLarge    Code = "HEADERS_TOO_LARGE"
	BadHTTPRequest     Code = "BAD_HTTP_REQUEST"
	RequestTimeout     Code = "REQUEST_TIMEOUT"
	TooManyConnections Code = "TOO_MANY_CONNECTIONS"
	HostRefused        Code = "HOST_REFUSED"
	SignInRateLimited  Code = "SIGN_IN_RATE_LIMITED"
	SessionsFull       Code = "SESSIONS_FULL"
	SessionRequired    Code = "SESSION_REQUIRED"
)

// The MCP server and client (package mcp).
const (
	TaskNotFound      Code = "TASK_NOT_FOUND"
	UnknownArgument   Code = "UNKNOWN_ARGUMENT"
	MissingArgument   Code = "MISSING_ARGUMENT"
	WrongArgumentType Code = "WRONG_ARGUMENT_TYPE"
	URLNotAllowed     Code = "URL_NOT_ALLOWED"
	DriverFailed      Code = "DRIVER_FAILED"
	ServerClosed      Code = "SERVER_CLOSED"
	Cancelled         Code = "CANCELLED"
	CallTimeout       Code = "CALL_TIMEOUT"
	ServerGone        Code = "SERVER_GONE"
	BadResult         Code = "BAD_RESULT"
)

// All lists every code above, in that order: the codes a caller may see
// from any package of the engine, the sim or the job API.
func All() []Code {
	return []Code{
		InvalidExpectation, MissingExpectation, OutcomeUnknown, TaskBlocked, TaskFinished,
		FieldMismatch, NoBaseline, InvalidArgument, WaitTimeout, OutcomeNotMet, PageNotReady, NavigationFailed, GroupNotFound, ControlDisabled,
		TargetAmbiguous, TargetQueryTruncated, TargetNotFound, StaleRef, InvalidLocator, InvalidRef,
		ReplayDiverged,
		IdempotencyKeyMissing, IdempotencyKeyReused, ReviewRequired, FallbackDisabled, NotFound,
		Forbidden, NoWinner, InvalidInput, InvalidTransition, Unauthorized, BodyInvalidJSON,
		BodyNotObject, BodyTooLarge, BodyTimeout, CallbackUnverified, OutcomeUncertain, StoreBusy, Internal,
		SimBadRequest, SimNotFound, CrossSiteRefused, HeadersTooLarge, BadHTTPRequest,
		RequestTimeout, TooManyConnections, HostRefused, SignInRateLimited, SessionsFull, SessionRequired,
		TaskNotFound, UnknownArgument, MissingArgument, WrongArgumentType, URLNotAllowed, DriverFailed, ServerClosed, Cancelled, CallTimeout, ServerGone, BadResult,
	}
}
