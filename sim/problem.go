package sim

import (
	"encoding/json"
	"net/http"
)

// Codes of the sim's own errors (the job API has the ledger's).
const (
	CodeBadRequest = "SIM_BAD_REQUEST"
	CodeNotFound   = "SIM_NOT_FOUND"
)

// problem answers an error as application/problem+json with a stable code,
// like the job API does.
func problem(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": detail, "code": code,
	})
}
