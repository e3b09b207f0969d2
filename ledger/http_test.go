package ledger_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
)

type apiClient struct {
	t   testing.TB
	srv *httptest.Server
}

type recordingDispatcher struct {
	mu       sync.Mutex
	attempts []string
}

func (d *recordingDispatcher) Dispatch(_ context.Context, _ ledger.Job, a ledger.Attempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.attempts = append(d.attempts, a.ID)
}

func newAPI(t testing.TB, opts ...ledger.Option) (*apiClient, *ledger.Service) {
	t.Helper()
	store, err := ledger.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	svc := ledger.New(store, opts...)
	srv := httptest.NewServer(ledger.NewHandler(svc, ledger.DefaultTokens()))
	t.Cleanup(srv.Close)
	return &apiClient{t: t, srv: srv}, svc
}

// do sends a request and decodes the JSON answer into out (if not nil).
func (c *apiClient) do(method, path, token string, headers map[string]string, body string, out any) (int, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.srv.Client().Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode, resp.Header
}

func (c *apiClient) problem(method, path, token string, headers map[string]string, body string) (int, ledger.Problem, string) {
	c.t.Helper()
	var p ledger.Problem
	status, h := c.do(method, path, token, headers, body, &p)
	return status, p, h.Get("Content-Type")
}

func key(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }

// sign returns the signature header for body made with the attempt's own
// secret, as its provider would.
func sign(t testing.TB, svc *ledger.Service, attemptID, body string) map[string]string {
	t.Helper()
	var secret string
	err := svc.Store().Tx(context.Background(), func(tx ledger.Tx) error {
		a, err := tx.Attempt(context.Background(), attemptID)
		secret = a.CallbackSecret
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{ledger.CallbackSignatureHeader: ledger.SignCallback(secret, time.Now(), []byte(body))}
}

func TestHandlerJobFlow(t *testing.T) {
	d := &recordingDispatcher{}
	c, svc := newAPI(t, ledger.WithDispatcher(d), ledger.WithIDs(ledger.SequentialIDs()))
	var job ledger.JobView
	status, hdr := c.do("POST", "/api/jobs?provider=alpha", "alice-token", key("k1"), `{"prompt":"patch it"}`, &job)
	if status != 201 || job.ID != "job_0001" || job.State != ledger.JobAccepted || job.Version != 1 ||
		len(job.Attempts) != 1 || job.Attempts[0].Provider != "alpha" || hdr.Get("Location") != "/api/jobs/job_0001" {
		t.Fatalf("create: %d %+v", status, job)
	}
	if !job.Controls.Cancel || job.Controls.Fallback || !job.Controls.ReviewRequired {
		t.Fatalf("controls %+v", job.Controls)
	}
	var again ledger.JobView
	if status, _ := c.do("POST", "/api/jobs", "alice-token", key("k1"), "{ \"prompt\" : \"patch it\" }", &again); status != 200 || again.ID != job.ID {
		t.Fatalf("replay: %d %s", status, again.ID)
	}
	if len(d.attempts) != 1 || d.attempts[0] != job.Attempts[0].ID {
		t.Fatalf("dispatched %v", d.attempts)
	}
	a1 := job.Attempts[0].ID
	if _, err := svc.Timeout(context.Background(), a1); err != nil {
		t.Fatal(err)
	}
	var att ledger.AttemptView
	status, _ = c.do("POST", "/api/jobs/"+job.ID+"/attempts", "rita-token", nil, `{"provider":"beta","supersedeReason":"alpha timed out"}`, &att)
	if status != 201 || att.State != ledger.AttemptStarting || att.JobID != job.ID || att.Provider != "beta" {
		t.Fatalf("fallback: %d %+v", status, att)
	}
	var rec ledger.ReconciliationView
	status, _ = c.do("POST", "/api/providers/callback", "alice-token", nil,
		`{"attemptId":"`+att.ID+`","status":"succeeded","output":"diff --git"}`, &rec)
	if status != 401 {
		t.Fatalf("callback with a bearer token only: %d, want 401", status)
	}
	body := `{"attemptId":"` + att.ID + `","status":"succeeded","output":"diff --git"}`
	status, _ = c.do("POST", "/api/providers/callback", "", sign(t, svc, att.ID, body), body, &rec)
	if status != 200 || rec.Outcome != ledger.OutcomeApplied || rec.Job.WinningAttemptID != att.ID {
		t.Fatalf("callback: %d %+v", status, rec)
	}
	body = `{"attemptId":"` + a1 + `","status":"succeeded","output":{"late":true}}`
	status, _ = c.do("POST", "/api/providers/callback", "", sign(t, svc, a1, body), body, &rec)
	if status != 200 || rec.Outcome != ledger.OutcomeLateAfterSupersession || rec.Attempt.Output == nil || *rec.Attempt.Output != `{"late":true}` {
		t.Fatalf("late callback: %d %+v", status, rec)
	}
	var out ledger.OutputView
	if status, _ := c.do("GET", "/api/jobs/"+job.ID+"/output", "alice-token", nil, "", &out); status != 200 || out.Output != "diff --git" {
		t.Fatalf("output: %d %+v", status, out)
	}
	var got ledger.JobView
	c.do("GET", "/api/jobs/"+job.ID, "alice-token", nil, "", &got)
	want := ledger.Controls{Output: true}
	if got.State != ledger.JobCompleted || got.Controls != want || got.Attempts[0].SupersedeReason != "alpha timed out" {
		t.Fatalf("job after: %+v", got)
	}
}

func TestHandlerErrors(t *testing.T) {
	c, svc := newAPI(t)
	var job ledger.JobView
	c.do("POST", "/api/jobs", "alice-token", key("k"), `{"provider":"alpha","x":1}`, &job)
	if job.Attempts[0].Provider != "alpha" {
		t.Fatalf("provider from body: %+v", job.Attempts)
	}
	jobPath := "/api/jobs/" + job.ID
	badStatus := `{"attemptId":"` + job.Attempts[0].ID + `","status":"meh"}`
	big := `{"x":"` + strings.Repeat("a", ledger.BodyBytesMax) + `"}`
	tests := []struct {
		name, method, path, token string
		headers                   map[string]string
		body                      string
		status                    int
		code                      errcode.Code
	}{
		{"no token", "GET", jobPath, "", nil, "", 401, ledger.CodeUnauthorized},
		{"unknown token", "GET", jobPath, "mallory", nil, "", 401, ledger.CodeUnauthorized},
		{"missing key", "POST", "/api/jobs", "alice-token", nil, `{}`, 400, ledger.CodeIdempotencyKeyMissing},
		{"key reused", "POST", "/api/jobs", "alice-token", key("k"), `{"x":2}`, 422, ledger.CodeIdempotencyKeyReused},
		{"bad json", "POST", "/api/jobs", "alice-token", key("k2"), `{"x":`, 400, ledger.CodeBodyInvalidJSON},
		{"not an object", "POST", "/api/jobs", "alice-token", key("k2"), `[1,2]`, 400, ledger.CodeBodyNotObject},
		{"too large", "POST", "/api/jobs", "alice-token", key("k2"), big, 400, ledger.CodeBodyTooLarge},
		{"other owner get", "GET", jobPath, "bob-token", nil, "", 404, ledger.CodeNotFound},
		{"other owner cancel", "POST", jobPath + "/cancel", "bob-token", nil, "", 404, ledger.CodeNotFound},
		{"other owner output", "GET", jobPath + "/output", "bob-token", nil, "", 404, ledger.CodeNotFound},
		{"other owner attempts", "POST", jobPath + "/attempts", "bob-token", nil, `{}`, 404, ledger.CodeNotFound},
		{"no such job", "GET", "/api/jobs/job_nope", "alice-token", nil, "", 404, ledger.CodeNotFound},
		{"no winner", "GET", jobPath + "/output", "alice-token", nil, "", 409, ledger.CodeNoWinner},
		{"review required", "POST", jobPath + "/attempts", "alice-token", nil, `{"provider":"beta"}`, 409, ledger.CodeReviewRequired},
		{"owner supersede", "POST", jobPath + "/attempts", "alice-token", nil, `{"provider":"beta","supersedeReason":"x"}`, 403, ledger.CodeForbidden},
		{"unknown field", "POST", jobPath + "/attempts", "alice-token", nil, `{"provder":"beta"}`, 400, ledger.CodeInvalidInput},
		{"bad status", "POST", "/api/providers/callback", "", sign(t, svc, job.Attempts[0].ID, badStatus), badStatus, 400, ledger.CodeInvalidInput},
		{"callback with a bearer token", "POST", "/api/providers/callback", "alice-token", nil, `{"attemptId":"att_x","status":"failed"}`, 401, ledger.CodeCallbackUnverified},
		{"unknown attempt", "POST", "/api/providers/callback", "", map[string]string{ledger.CallbackSignatureHeader: "t=1,v1=" + strings.Repeat("0", 64)}, `{"attemptId":"att_x","status":"failed"}`, 401, ledger.CodeCallbackUnverified},
		{"no route", "GET", "/api/nothing", "alice-token", nil, "", 404, ledger.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, p, ct := c.problem(tt.method, tt.path, tt.token, tt.headers, tt.body)
			if status != tt.status || p.Code != tt.code || p.Status != tt.status || ct != "application/problem+json" || p.Type == "" || p.Title == "" {
				t.Fatalf("got %d %+v (%s), want %d %s", status, p, ct, tt.status, tt.code)
			}
		})
	}
	// Fallback disabled after the first attempt failed.
	if _, err := svc.Callback(context.Background(), job.Attempts[0].ID, "failed", ""); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetFallbackEnabled(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	status, p, _ := c.problem("POST", jobPath+"/attempts", "alice-token", nil, `{"provider":"beta"}`)
	if status != 409 || p.Code != ledger.CodeFallbackDisabled {
		t.Fatalf("fallback disabled: %d %+v", status, p)
	}
	var att ledger.AttemptView
	if status, _ := c.do("POST", jobPath+"/attempts", "alice-token", nil, ``, &att); status != 201 || att.Provider != "alpha" {
		t.Fatalf("retry with empty body: %d %+v", status, att)
	}
	var cancelled ledger.JobView
	if status, _ := c.do("POST", jobPath+"/cancel", "alice-token", nil, "", &cancelled); status != 200 || cancelled.State != ledger.JobCancelled {
		t.Fatalf("cancel: %d %+v", status, cancelled)
	}
	var rita ledger.JobView
	if status, _ := c.do("GET", jobPath, "rita-token", nil, "", &rita); status != 200 || rita.ID != job.ID {
		t.Fatalf("reviewer get: %d", status)
	}
}
