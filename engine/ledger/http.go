package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// BodyBytesMax bounds every request body of the job API.
const BodyBytesMax = 1 << 20

// ProblemTypeBase prefixes the "type" of every problem document; the code,
// lower-cased with dashes, follows.
const ProblemTypeBase = "https://replaylab.dev/problems/"

// DefaultTokens are the demo bearer tokens of SPEC §9.
func DefaultTokens() map[string]Principal {
	return map[string]Principal{
		"alice-token": {Name: "alice", Role: RoleOwner},
		"bob-token":   {Name: "bob", Role: RoleOwner},
		"rita-token":  {Name: "rita", Role: RoleReviewer},
	}
}

// Problem is an application/problem+json error body (RFC 9457) with the
// ledger's machine code.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	Code   Code   `json:"code"`
}

// AttemptView is an attempt as the job API shows it.
type AttemptView struct {
	ID              string       `json:"id"`
	JobID           string       `json:"jobId"`
	Number          int          `json:"number"`
	Provider        string       `json:"provider"`
	State           AttemptState `json:"state"`
	SupersedeReason string       `json:"supersedeReason,omitempty"`
	Reviewer        string       `json:"reviewer,omitempty"`
	CallbackStatus  string       `json:"callbackStatus,omitempty"`
	Output          *string      `json:"output,omitempty"` // present once a callback brought one
	OutputBytes     int          `json:"outputBytes,omitempty"`
	OutputTruncated bool         `json:"outputTruncated,omitempty"`
	Applied         bool         `json:"applied"`
	CreatedAt       time.Time    `json:"createdAt"`
	UpdatedAt       time.Time    `json:"updatedAt"`
}

// JobView is a job as the job API shows it; Controls are derived from
// server state for the caller (LED-6).
type JobView struct {
	ID               string          `json:"id"`
	Owner            string          `json:"owner"`
	IdempotencyKey   string          `json:"idempotencyKey"`
	State            JobState        `json:"state"`
	Version          int             `json:"version"`
	WinningAttemptID string          `json:"winningAttemptId"`
	Input            json.RawMessage `json:"input"`
	InputDigest      string          `json:"inputDigest"`
	FallbackEnabled  bool            `json:"fallbackEnabled"`
	CreatedAt        time.Time       `json:"createdAt"`
	UpdatedAt        time.Time       `json:"updatedAt"`
	Attempts         []AttemptView   `json:"attempts"`
	Controls         Controls        `json:"controls"`
}

// OutputView is the body of GET /api/jobs/{id}/output.
type OutputView struct {
	JobID     string `json:"jobId"`
	AttemptID string `json:"attemptId"`
	Provider  string `json:"provider"`
	Output    string `json:"output"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

// ReconciliationView is the body of POST /api/providers/callback.
type ReconciliationView struct {
	Outcome Outcome     `json:"outcome"`
	Detail  string      `json:"detail"`
	Attempt AttemptView `json:"attempt"`
	Job     struct {
		ID               string   `json:"id"`
		State            JobState `json:"state"`
		Version          int      `json:"version"`
		WinningAttemptID string   `json:"winningAttemptId"`
	} `json:"job"`
}

// NewAttemptView converts an attempt for the API.
func NewAttemptView(a Attempt) AttemptView {
	v := AttemptView{ID: a.ID, JobID: a.JobID, Number: a.Number, Provider: a.Provider, State: a.State,
		SupersedeReason: a.SupersedeReason, Reviewer: a.Reviewer, CallbackStatus: a.CallbackStatus,
		OutputBytes: a.OutputBytes, OutputTruncated: a.OutputTruncated, Applied: a.Applied,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.CallbackStatus != "" {
		out := a.Output
		v.Output = &out
	}
	return v
}

// NewJobView converts a job (with attempts and controls) for the API.
func NewJobView(j Job) JobView {
	v := JobView{ID: j.ID, Owner: j.Owner, IdempotencyKey: j.IdempotencyKey, State: j.State, Version: j.Version,
		WinningAttemptID: j.WinningAttemptID, Input: j.Input, InputDigest: j.InputDigest,
		FallbackEnabled: j.FallbackEnabled, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		Attempts: []AttemptView{}, Controls: j.Controls}
	for _, a := range j.Attempts {
		v.Attempts = append(v.Attempts, NewAttemptView(a))
	}
	return v
}

type handler struct {
	svc    *Service
	tokens map[string]Principal
}

// NewHandler serves the job API of SPEC §9 under /api/:
//
//	POST /api/jobs                  Idempotency-Key header, body = the input (a JSON object).
//	                                The first attempt's provider is the "provider" query
//	                                parameter, else the body's "provider" string field
//	                                (which stays part of the input), else DefaultProvider.
//	                                201 new job, 200 existing job.
//	GET  /api/jobs/{id}             200 the job with attempts and controls.
//	POST /api/jobs/{id}/attempts    body {"provider"?, "supersedeReason"?}; provider omitted
//	                                means a retry with the last attempt's provider. 201 the attempt.
//	POST /api/jobs/{id}/cancel      200 the job.
//	GET  /api/jobs/{id}/output      200 OutputView; 409 NO_WINNER.
//	POST /api/providers/callback    body {"attemptId", "status", "output"}; 200 ReconciliationView.
//	                                Any known token may call it: the attempt id is the capability.
//
// Every request needs "Authorization: Bearer TOKEN" with a token from
// tokens (401 otherwise). Errors are application/problem+json (Problem).
func NewHandler(svc *Service, tokens map[string]Principal) http.Handler {
	h := &handler{svc: svc, tokens: tokens}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/jobs", h.auth(h.create))
	mux.HandleFunc("GET /api/jobs/{id}", h.auth(h.get))
	mux.HandleFunc("POST /api/jobs/{id}/attempts", h.auth(h.addAttempt))
	mux.HandleFunc("POST /api/jobs/{id}/cancel", h.auth(h.cancel))
	mux.HandleFunc("GET /api/jobs/{id}/output", h.auth(h.output))
	mux.HandleFunc("POST /api/providers/callback", h.auth(h.callback))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, errorf(CodeNotFound, "no route %s %s", r.Method, r.URL.Path))
	})
	return mux
}

type authedFunc func(w http.ResponseWriter, r *http.Request, p Principal)

func (h *handler) auth(next authedFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p, known := h.tokens[strings.TrimSpace(tok)]
		if !ok || !known || p.Name == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="replaylab"`)
			writeProblem(w, errorf(CodeUnauthorized, "a known bearer token is required"))
			return
		}
		next(w, r, p)
	}
}

// readObject reads a JSON object body of at most BodyBytesMax. An empty
// body is {} when emptyOK.
func readObject(w http.ResponseWriter, r *http.Request, emptyOK bool) (json.RawMessage, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, BodyBytesMax))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errorf(CodeBodyTooLarge, "body over %d bytes", BodyBytesMax)
		}
		return nil, errorf(CodeBodyInvalidJSON, "reading body: %v", err)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 && emptyOK {
		return json.RawMessage(`{}`), nil
	}
	if !json.Valid(trimmed) {
		return nil, errorf(CodeBodyInvalidJSON, "body is not valid JSON")
	}
	if trimmed[0] != '{' {
		return nil, errorf(CodeBodyNotObject, "body must be a JSON object")
	}
	return trimmed, nil
}

func (h *handler) create(w http.ResponseWriter, r *http.Request, p Principal) {
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		writeProblem(w, errorf(CodeIdempotencyKeyMissing, "the Idempotency-Key header is required"))
		return
	}
	body, err := readObject(w, r, false)
	if err != nil {
		writeProblem(w, err)
		return
	}
	provider := r.URL.Query().Get("provider")
	if provider == "" {
		var in struct {
			Provider any `json:"provider"`
		}
		_ = json.Unmarshal(body, &in)
		if s, ok := in.Provider.(string); ok {
			provider = s
		}
	}
	job, created, err := h.svc.Create(r.Context(), p, key, body, provider)
	if err != nil {
		writeProblem(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	w.Header().Set("Location", "/api/jobs/"+job.ID)
	writeJSON(w, status, NewJobView(job))
}

func (h *handler) get(w http.ResponseWriter, r *http.Request, p Principal) {
	job, err := h.svc.Get(r.Context(), p, r.PathValue("id"))
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, NewJobView(job))
}

func decodeFields(body json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(CodeInvalidInput, "%v", err)
	}
	return nil
}

func (h *handler) addAttempt(w http.ResponseWriter, r *http.Request, p Principal) {
	body, err := readObject(w, r, true)
	if err != nil {
		writeProblem(w, err)
		return
	}
	var in struct {
		Provider        string `json:"provider"`
		SupersedeReason string `json:"supersedeReason"`
	}
	if err := decodeFields(body, &in); err != nil {
		writeProblem(w, err)
		return
	}
	a, err := h.svc.AddAttempt(r.Context(), p, r.PathValue("id"), in.Provider, in.SupersedeReason)
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, NewAttemptView(a))
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request, p Principal) {
	job, err := h.svc.Cancel(r.Context(), p, r.PathValue("id"))
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, NewJobView(job))
}

func (h *handler) output(w http.ResponseWriter, r *http.Request, p Principal) {
	out, err := h.svc.Output(r.Context(), p, r.PathValue("id"))
	if err != nil {
		writeProblem(w, err)
		return
	}
	writeJSON(w, http.StatusOK, OutputView(out))
}

func (h *handler) callback(w http.ResponseWriter, r *http.Request, _ Principal) {
	body, err := readObject(w, r, false)
	if err != nil {
		writeProblem(w, err)
		return
	}
	var in struct {
		AttemptID string          `json:"attemptId"`
		Status    string          `json:"status"`
		Output    json.RawMessage `json:"output"`
	}
	if err := decodeFields(body, &in); err != nil {
		writeProblem(w, err)
		return
	}
	if in.AttemptID == "" {
		writeProblem(w, errorf(CodeInvalidInput, "attemptId is required"))
		return
	}
	// A JSON string output is kept as its text; any other JSON value as its
	// compact JSON text; absent or null as "".
	var output string
	if len(in.Output) > 0 && string(in.Output) != "null" {
		if err := json.Unmarshal(in.Output, &output); err != nil {
			var buf bytes.Buffer
			_ = json.Compact(&buf, in.Output)
			output = buf.String()
		}
	}
	rec, err := h.svc.Callback(r.Context(), in.AttemptID, in.Status, output)
	if err != nil {
		writeProblem(w, err)
		return
	}
	var v ReconciliationView
	v.Outcome, v.Detail, v.Attempt = rec.Outcome, rec.Detail, NewAttemptView(rec.Attempt)
	v.Job.ID, v.Job.State, v.Job.Version, v.Job.WinningAttemptID = rec.Job.ID, rec.Job.State, rec.Job.Version, rec.Job.WinningAttemptID
	writeJSON(w, http.StatusOK, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ProblemFor builds the problem document for err.
func ProblemFor(err error) Problem {
	code := CodeOf(err)
	status := code.Status()
	var le *Error
	if errors.As(err, &le) && le.Status != 0 {
		status = le.Status
	}
	detail := err.Error()
	if le != nil && le.Detail != "" {
		detail = le.Detail
	}
	return Problem{
		Type:   ProblemTypeBase + strings.ToLower(strings.ReplaceAll(string(code), "_", "-")),
		Title:  http.StatusText(status),
		Status: status,
		Detail: detail,
		Code:   code,
	}
}

func writeProblem(w http.ResponseWriter, err error) {
	p := ProblemFor(err)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
