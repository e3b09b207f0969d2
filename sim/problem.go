package sim

import (
	"encoding/json"
	"net/http"

	"github.com/replaylab/replaylab/engine/errcode"
)

// Codes of the sim's own errors (the job API has the ledger's); they are
// errcode values.
const (
	CodeBadRequest = errcode.SimBadRequest
	CodeNotFound   = errcode.SimNotFound
)

// problem answers an error as application/problem+json with a stable code,
// like the job API does.
func problem(w http.ResponseWriter, status int, code errcode.Code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": detail, "code": code,
	})
}
