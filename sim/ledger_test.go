package sim_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

func startLedger(t *testing.T, opts sim.Options) *sim.Server {
	t.Helper()
	if opts.DB == "" {
		opts.DB = filepath.Join(t.TempDir(), "ledger.db")
		opts.IDs = ledger.SequentialIDs()
	}
	s, err := sim.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func settle(t *testing.T, s *sim.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Providers().Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

var alice = ledger.Principal{Name: "alice", Role: ledger.RoleOwner}

// TestHeldAnswersInEitherOrderOneWinner scripts a timeout and a held
// fallback, releases both in each order, and checks the ledger's verdicts.
func TestHeldAnswersInEitherOrderOneWinner(t *testing.T) {
	rita := ledger.Principal{Name: "rita", Role: ledger.RoleReviewer}
	for _, tc := range []struct {
		name  string
		order []int
	}{
		{name: "superseded first", order: []int{0, 1}},
		{name: "new attempt first", order: []int{1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := startLedger(t, sim.Options{})
			p := s.Providers()
			if err := p.Script("primary", sim.Script{Behaviour: sim.TimeOut, Output: "A"}); err != nil {
				t.Fatal(err)
			}
			if err := p.Script("fallback", sim.Script{Behaviour: sim.Hold, Output: "B"}); err != nil {
				t.Fatal(err)
			}
			job, _, err := s.Ledger().Create(ctx, alice, "k", []byte(`{"task":"patch"}`), "")
			if err != nil {
				t.Fatal(err)
			}
			settle(t, s)
			a2, err := s.Ledger().AddAttempt(ctx, rita, job.ID, "fallback", "stuck")
			if err != nil {
				t.Fatal(err)
			}
			settle(t, s)
			ids := []string{job.Attempts[0].ID, a2.ID}
			if got := strings.Join(p.Held(), ","); got != strings.Join(ids, ",") {
				t.Fatalf("held %s, want %s", got, strings.Join(ids, ","))
			}
			outcomes := map[string]ledger.Outcome{}
			for _, i := range tc.order {
				rec, err := p.Release(ctx, ids[i])
				if err != nil {
					t.Fatal(err)
				}
				outcomes[ids[i]] = rec.Outcome
			}
			if outcomes[ids[0]] != ledger.OutcomeLateAfterSupersession || outcomes[ids[1]] != ledger.OutcomeApplied {
				t.Fatalf("outcomes %v", outcomes)
			}
			if _, err := p.Release(ctx, ids[0]); err == nil {
				t.Fatal("a result was released twice")
			}
			j, err := s.Ledger().Get(ctx, alice, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if j.State != ledger.JobCompleted || j.WinningAttemptID != a2.ID {
				t.Fatalf("job %s winner %q, want completed with %s", j.State, j.WinningAttemptID, a2.ID)
			}
		})
	}
}

// TestFaultScheduleIsReplayedFromItsSeed runs the same jobs under one
// seed twice and checks every provider decision repeats, and that the
// ledger's invariants hold whatever the schedule drew: never two winners,
// a timed-out attempt is never failed without a failure callback.
func TestFaultScheduleIsReplayedFromItsSeed(t *testing.T) {
	const jobs = 40
	seed := uint64(time.Now().UnixNano() % 1000)
	if v := os.Getenv("REPLAYLAB_SEED"); v != "" {
		_, _ = fmt.Sscan(v, &seed)
	}
	t.Logf("fault schedule seed %d (rerun with REPLAYLAB_SEED=%d)", seed, seed)
	faults := sim.Faults{Seed: seed, TimeoutProb: 0.3, FailProb: 0.2, HoldProb: 0.1, DuplicateProb: 0.3, LateProb: 0.5, LatencyMax: 3 * time.Millisecond}
	run := func() []string {
		ctx := context.Background()
		s := startLedger(t, sim.Options{Faults: faults})
		for i := range jobs {
			// one at a time: ids, and so the schedule, follow creation order
			if _, _, err := s.Ledger().Create(ctx, alice, fmt.Sprint("k", i), []byte(`{"n":`+fmt.Sprint(i)+`}`), ""); err != nil {
				t.Fatal(err)
			}
			settle(t, s)
		}
		var out []string
		for _, d := range s.Providers().Journal() {
			out = append(out, fmt.Sprintf("%s %s %s %s %s", d.AttemptID, d.Behaviour, d.Latency, d.Source, d.Note))
		}
		for i := range jobs {
			id := fmt.Sprintf("job_%04d", i+1)
			j, err := s.Ledger().Get(ctx, alice, id)
			if err != nil {
				t.Fatal(err)
			}
			applied := 0
			for _, a := range j.Attempts {
				if a.Applied {
					applied++
				}
				if a.State == ledger.AttemptFailed && a.CallbackStatus != ledger.StatusFailed {
					t.Errorf("seed %d: %s failed without a failure callback", seed, a.ID)
				}
			}
			if applied > 1 || (applied == 1) != (j.WinningAttemptID != "") {
				t.Errorf("seed %d: job %s has %d applied attempts and winner %q", seed, id, applied, j.WinningAttemptID)
			}
			out = append(out, fmt.Sprintf("%s %s %s", id, j.State, j.WinningAttemptID))
		}
		return out
	}
	a, b := run(), run()
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("seed %d: two runs differ:\n%s\n--\n%s", seed, strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

func TestPatchPageControlsComeFromTheLedger(t *testing.T) {
	s := startLedger(t, sim.Options{})
	if err := s.Providers().Script("primary", sim.Script{Behaviour: sim.Hold, Output: "A"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cookies := map[string]*http.Cookie{}
	for _, tok := range []string{"alice-token", "bob-token"} {
		c, err := sim.PatchSignIn(ctx, s.URL, tok)
		if err != nil {
			t.Fatal(err)
		}
		cookies[tok] = c
	}
	get := func(tok, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if c := cookies[tok]; c != nil {
			req.AddCookie(c)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("", "/patch"); code != http.StatusOK || !strings.Contains(body, `action="/patch/session"`) {
		t.Fatalf("sign-in page: %d", code)
	}
	if _, err := sim.PatchSignIn(ctx, s.URL, "nope"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("unknown token: %v", err)
	}
	_, first := get("alice-token", "/patch")
	_, second := get("alice-token", "/patch")
	if !strings.Contains(first, `data-key="patch-0001"`) || !strings.Contains(second, `data-key="patch-0002"`) {
		t.Fatal("each page load must carry its own idempotency key")
	}
	job, _, err := s.Ledger().Create(ctx, alice, "patch-0001", []byte(`{"task":"patch"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	settle(t, s)
	_, body := get("alice-token", "/patch?job="+job.ID)
	for _, want := range []string{`id="generate" disabled`, `id="retry" disabled`, `id="fallback" disabled`, `id="cancel">`, `id="output" disabled`} {
		if !strings.Contains(body, want) {
			t.Errorf("running job page lacks %s", want)
		}
	}
	if _, err := s.Providers().Release(ctx, job.Attempts[0].ID); err != nil {
		t.Fatal(err)
	}
	_, body = get("alice-token", "/patch?job="+job.ID)
	if !strings.Contains(body, `id="output">`) || !strings.Contains(body, `id="cancel" disabled`) {
		t.Error("completed job page must offer Output only")
	}
	if code, body := get("bob-token", "/patch?job="+job.ID); code != http.StatusNotFound || !strings.Contains(body, `data-code="NOT_FOUND"`) {
		t.Errorf("bob on alice's job: %d", code)
	}
}

// TestPatchPageShowsNoTokens (LED-12): no page a visitor can load names a
// token, custom tokens included; a token in the address signs nobody in;
// the session cookie is HttpOnly and SameSite=Strict; cross-site state
// changes are refused.
func TestPatchPageShowsNoTokens(t *testing.T) {
	tokens := map[string]ledger.Principal{"s3cr3t-ops-token": {Name: "ops", Role: ledger.RoleReviewer}, "alice-token": {Name: "alice", Role: ledger.RoleOwner}}
	s := startLedger(t, sim.Options{Tokens: tokens})
	ctx := context.Background()
	for _, path := range []string{"/", "/patch", "/patch?token=s3cr3t-ops-token", "/patch?job=job_0001"} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for tok := range tokens {
			if strings.Contains(string(b), tok) {
				t.Errorf("%s shows token %q to a visitor", path, tok)
			}
		}
		if strings.Contains(string(b), "Signed in as") {
			t.Errorf("%s signed a visitor in", path)
		}
	}
	c, err := sim.PatchSignIn(ctx, s.URL, "alice-token")
	if err != nil {
		t.Fatal(err)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, "alice") {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, no token", c)
	}
	page := func() string {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/patch", nil)
		req.AddCookie(c)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	body := page()
	if strings.Contains(body, "alice-token") || !strings.Contains(body, "Signed in as alice") {
		t.Fatal("signed-in page must name the user and never the token")
	}
	csrf := body[strings.Index(body, `data-csrf="`)+len(`data-csrf="`):]
	csrf = csrf[:strings.IndexByte(csrf, '"')]
	for _, tc := range []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{name: "cross-site fetch metadata", hdr: map[string]string{"Sec-Fetch-Site": "cross-site", "X-CSRF-Token": csrf}, status: 403},
		{name: "foreign origin", hdr: map[string]string{"Origin": "http://evil.example", "X-CSRF-Token": csrf}, status: 403},
		{name: "no csrf token", hdr: map[string]string{"Origin": s.URL, "Sec-Fetch-Site": "same-origin"}, status: 403},
		{name: "same origin with the token", hdr: map[string]string{"Origin": s.URL, "Sec-Fetch-Site": "same-origin", "X-CSRF-Token": csrf}, status: 201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/patch/api/jobs", strings.NewReader(`{"task":"patch"}`))
			req.AddCookie(c)
			req.Header.Set("Idempotency-Key", "k-"+tc.name)
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Fatalf("got %d, want %d", res.StatusCode, tc.status)
			}
		})
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/patch/session", strings.NewReader("token=alice-token"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: %d, want 403", res.StatusCode)
	}
}

func TestTempLedgerIsRemovedOnClose(t *testing.T) {
	s, err := sim.NewServer(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.DeliverCallback(context.Background(), "att_9999", "succeeded", "x")
	if errcode.Of(err) != ledger.CodeNotFound {
		t.Fatalf("callback for an unknown attempt: %v %v", rec, err)
	}
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "replaylab-sim-ledger-*"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "replaylab-sim-ledger-*"))
	for _, d := range before {
		if !slices.Contains(after, d) {
			return // this server's dir is gone (other processes may add theirs)
		}
	}
	t.Fatalf("no temp ledger dir was removed on close: %v", after)
}

// TestRestartRecoversLostWork (LED-13): an attempt lost before its send is
// re-sent by the next server on the same database, once; the providers'
// submit is idempotent by attempt id.
func TestRestartRecoversLostWork(t *testing.T) {
	dir := t.TempDir()
	ids := ledger.SequentialIDs()
	opts := sim.Options{DB: filepath.Join(dir, "l.db"), IDs: ids}
	s, err := sim.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Providers().Script("primary", sim.Script{Behaviour: sim.Lost}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	job, _, err := s.Ledger().Create(ctx, alice, "k", []byte(`{"task":"patch"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	settle(t, s)
	s.Providers().Dispatch(ctx, job, job.Attempts[0]) // a second submit of one attempt is not sent
	if j := s.Providers().Journal(); len(j) != 2 || !strings.Contains(j[1].Note, "idempotent") {
		t.Fatalf("journal %+v: want the lost attempt and an ignored second submit", j)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := startLedger(t, opts)
	settle(t, s2)
	recs := s2.Recoveries()
	if len(recs) != 1 || recs[0].AttemptID != job.Attempts[0].ID || recs[0].Action != ledger.RecoveryResent {
		t.Fatalf("recoveries %+v", recs)
	}
	got, err := s2.Ledger().Get(ctx, alice, job.ID)
	if err != nil || got.State != ledger.JobCompleted {
		t.Fatalf("after the restart: %+v %v", got.State, err)
	}
	if again, err := s2.Ledger().Recover(ctx, ledger.RecoverOptions{}); err != nil || len(again) != 0 {
		t.Fatalf("a second recovery: %+v %v", again, err)
	}
}
