package ledger

import (
	"net/http"

	"github.com/replaylab/replaylab/engine/errcode"
)

// HTTPStatus is the HTTP status the job API answers with for code; codes
// without one of their own (everything outside the job API) are 500. The
// mapping belongs to the ledger's HTTP surface, not to the code registry.
func HTTPStatus(code errcode.Code) int {
	switch code {
	case errcode.IdempotencyKeyMissing, errcode.InvalidInput, errcode.BodyInvalidJSON, errcode.BodyNotObject, errcode.BodyTooLarge:
		return http.StatusBadRequest
	case errcode.IdempotencyKeyReused:
		return http.StatusUnprocessableEntity
	case errcode.ReviewRequired, errcode.FallbackDisabled, errcode.NoWinner, errcode.InvalidTransition:
		return http.StatusConflict
	case errcode.NotFound:
		return http.StatusNotFound
	case errcode.Forbidden:
		return http.StatusForbidden
	case errcode.Unauthorized, errcode.CallbackUnverified:
		return http.StatusUnauthorized
	case errcode.BodyTimeout:
		return http.StatusRequestTimeout
	case errcode.OutcomeUncertain, errcode.StoreBusy:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}
