package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
)

// BodyBytesMax bounds every request body of the job API.
const BodyBytesMax = 1 << 20

// RetryAfterSeconds is the Retry-After of every 503 (STORE_BUSY,
// OUTCOME_UNCERTAIN): the store was locked, stalled or away, and a retry
// after it is the right thing to do (LED-16).
const RetryAfterSeconds = 1

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
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Code   errcode.Code `json:"code"`
	// RequestID names the request in the server's log; set on every 5xx.
	RequestID string `json:"requestId,omitempty"`
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
	log    *log.Logger
}

// HandlerOption configures NewHandler.
type HandlerOption func(*handler)

// WithLogger sets where the handler logs every 5xx with its request id
// (default log.Default()).
func WithLogger(l *log.Logger) HandlerOption { return func(h *handler) { h.log = l } }

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
//	POST /api/providers/callback    body CallbackBody {"attemptId", "status", "output"} with
//	                                the Replaylab-Signature header made with the attempt's
//	                                own secret (LED-11, callback_auth.go); 200
//	                                ReconciliationView. No bearer token authorises it: a
//	                                missing or wrong signature is 401 CALLBACK_UNVERIFIED,
//	                                the same whether or not the attempt exists.
//
// Every other request needs "Authorization: Bearer TOKEN" with a token from
// tokens (401 otherwise). Errors are application/problem+json (Problem);
// a NUL byte, invalid UTF-8 or a lone surrogate escape anywhere in a path
// id, header or body is 400 INVALID_INPUT before any store is asked. A
// 5xx carries a requestId that the handler's log names with the cause;
// no response carries driver or SQL text.
func NewHandler(svc *Service, tokens map[string]Principal, opts ...HandlerOption) http.Handler {
	h := &handler{svc: svc, tokens: tokens, log: log.Default()}
	for _, o := range opts {
		o(h)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/jobs", h.auth(h.create))
	mux.HandleFunc("GET /api/jobs/{id}", h.auth(h.get))
	mux.HandleFunc("POST /api/jobs/{id}/attempts", h.auth(h.addAttempt))
	mux.HandleFunc("POST /api/jobs/{id}/cancel", h.auth(h.cancel))
	mux.HandleFunc("GET /api/jobs/{id}/output", h.auth(h.output))
	mux.HandleFunc("POST /api/providers/callback", h.callback)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		h.problem(w, r, errorf(CodeNotFound, "no route %s %s", r.Method, r.URL.Path))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkHeaders(r.Header); err != nil {
			h.problem(w, r, err)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// checkHeaders refuses a NUL byte or invalid UTF-8 in any header value,
// also in the parts of a header no handler reads (LED-17).
func checkHeaders(hd http.Header) error {
	for k, vs := range hd {
		for _, v := range vs {
			if err := CheckText("header "+k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

type authedFunc func(w http.ResponseWriter, r *http.Request, p Principal)

func (h *handler) auth(next authedFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		p, known := h.tokens[strings.TrimSpace(tok)]
		if !ok || !known || p.Name == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="replaylab"`)
			h.problem(w, r, errorf(CodeUnauthorized, "a known bearer token is required"))
			return
		}
		if id := r.PathValue("id"); id != "" {
			if err := checkID("job", id); err != nil {
				h.problem(w, r, err)
				return
			}
		}
		next(w, r, p)
	}
}

// readBody reads a body of at most BodyBytesMax; a body over it, one that
// does not arrive in time (the server's read deadline) and one that breaks
// off are coded errors.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, BodyBytesMax))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errorf(CodeBodyTooLarge, "body over %d bytes", BodyBytesMax)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.Header().Set("Connection", "close")
			return nil, errorf(CodeBodyTimeout, "the request body did not arrive in time")
		}
		return nil, errorf(CodeBodyInvalidJSON, "the request body could not be read")
	}
	return b, nil
}

// readObject reads a JSON object body of at most BodyBytesMax. An empty
// body is {} when emptyOK.
func readObject(w http.ResponseWriter, r *http.Request, emptyOK bool) (json.RawMessage, error) {
	b, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 && emptyOK {
		return json.RawMessage(`{}`), nil
	}
	if err := CheckJSONText("body", trimmed); err != nil {
		return nil, err
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
		h.problem(w, r, errorf(CodeIdempotencyKeyMissing, "the Idempotency-Key header is required"))
		return
	}
	body, err := readObject(w, r, false)
	if err != nil {
		h.problem(w, r, err)
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
		h.problem(w, r, err)
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
		h.problem(w, r, err)
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
		h.problem(w, r, err)
		return
	}
	var in struct {
		Provider        string `json:"provider"`
		SupersedeReason string `json:"supersedeReason"`
	}
	if err := decodeFields(body, &in); err != nil {
		h.problem(w, r, err)
		return
	}
	a, err := h.svc.AddAttempt(r.Context(), p, r.PathValue("id"), in.Provider, in.SupersedeReason)
	if err != nil {
		h.problem(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, NewAttemptView(a))
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request, p Principal) {
	job, err := h.svc.Cancel(r.Context(), p, r.PathValue("id"))
	if err != nil {
		h.problem(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewJobView(job))
}

func (h *handler) output(w http.ResponseWriter, r *http.Request, p Principal) {
	out, err := h.svc.Output(r.Context(), p, r.PathValue("id"))
	if err != nil {
		h.problem(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, OutputView(out))
}

func (h *handler) callback(w http.ResponseWriter, r *http.Request) {
	sig := r.Header.Get(CallbackSignatureHeader)
	if sig == "" {
		w.Header().Set("WWW-Authenticate", `Signature realm="replaylab-callbacks", header="`+CallbackSignatureHeader+`"`)
		h.problem(w, r, errUnverified())
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		h.problem(w, r, err)
		return
	}
	rec, err := h.svc.VerifiedCallback(r.Context(), sig, body)
	if err != nil {
		if errcode.Of(err) == CodeCallbackUnverified {
			w.Header().Set("WWW-Authenticate", `Signature realm="replaylab-callbacks", header="`+CallbackSignatureHeader+`"`)
		}
		h.problem(w, r, err)
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

// ProblemFor builds the problem document for err. A 5xx never carries
// the cause's text (driver messages, SQLSTATEs): only a fixed detail.
func ProblemFor(err error) Problem {
	code := ProblemCode(err)
	status := HTTPStatus(code)
	var le *Error
	if errors.As(err, &le) && le.Status != 0 {
		status = le.Status
	}
	detail := "internal error; the server's log has the cause"
	if le != nil && le.Detail != "" && le.Code != CodeInternal {
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

// NewRequestID returns a fresh request id ("req_" + 16 hex digits).
func NewRequestID() string { return "req_" + randomHex(8) }

// LogProblem builds err's problem document; a 5xx gets a request id, in
// the document and the X-Request-Id header, and is logged with its cause
// on l.
func LogProblem(w http.ResponseWriter, r *http.Request, l *log.Logger, err error) Problem {
	p := ProblemFor(err)
	if p.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
	if p.Status >= 500 {
		p.RequestID = NewRequestID()
		w.Header().Set("X-Request-Id", p.RequestID)
		if l != nil {
			l.Printf("ledger: %s %s %s: %d %s: %v", p.RequestID, r.Method, r.URL.Path, p.Status, p.Code, err)
		}
	}
	return p
}

func (h *handler) problem(w http.ResponseWriter, r *http.Request, err error) {
	p := LogProblem(w, r, h.log, err)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
