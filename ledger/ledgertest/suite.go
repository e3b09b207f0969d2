// Package ledgertest is the behaviour suite every ledger.Store must pass.
// Each subtest is named for the SPEC §6 id it covers (LED-1 … LED-10).
//
//	func TestSQLite(t *testing.T) {
//		ledgertest.Run(t, func(t testing.TB) string { return filepath.Join(t.TempDir(), "ledger.db") })
//	}
package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
)

// Principals used by the suite (the demo tokens' principals).
var (
	Alice = ledger.Principal{Name: "alice", Role: ledger.RoleOwner}
	Bob   = ledger.Principal{Name: "bob", Role: ledger.RoleOwner}
	Rita  = ledger.Principal{Name: "rita", Role: ledger.RoleReviewer}
)

// NewDSN returns the DSN of a fresh, empty database for one subtest
// (a SQLite file path or a postgres:// URL). Opening it again with
// ledger.Open must reach the same data: the suite closes and reopens it.
type NewDSN func(t testing.TB) string

// fakeClock ticks one second per reading, so times are deterministic.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// env is one subtest's world.
type env struct {
	t     testing.TB
	ctx   context.Context
	dsn   string
	store ledger.Store
	svc   *ledger.Service
}

func newEnv(t testing.TB, newDSN NewDSN) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), dsn: newDSN(t)}
	e.open()
	return e
}

func (e *env) open() {
	e.t.Helper()
	s, err := ledger.Open(e.ctx, e.dsn)
	if err != nil {
		e.t.Fatalf("open %s: %v", e.dsn, err)
	}
	e.store = s
	e.t.Cleanup(func() { _ = s.Close() })
	e.svc = ledger.New(s, ledger.WithClock(&fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}))
}

func (e *env) reopen() {
	e.t.Helper()
	if err := e.store.Close(); err != nil {
		e.t.Fatalf("close: %v", err)
	}
	e.open()
}

func (e *env) create(who ledger.Principal, key, input string) ledger.Job {
	e.t.Helper()
	j, _, err := e.svc.Create(e.ctx, who, key, json.RawMessage(input), "")
	if err != nil {
		e.t.Fatalf("create %s/%s: %v", who.Name, key, err)
	}
	return j
}

func (e *env) get(id string) ledger.Job {
	e.t.Helper()
	j, err := e.svc.Get(e.ctx, Rita, id)
	if err != nil {
		e.t.Fatalf("get %s: %v", id, err)
	}
	return j
}

func (e *env) callback(attemptID, status, output string) ledger.Reconciliation {
	e.t.Helper()
	r, err := e.svc.Callback(e.ctx, attemptID, status, output)
	if err != nil {
		e.t.Fatalf("callback %s %s: %v", attemptID, status, err)
	}
	return r
}

func (e *env) events(id string) []ledger.Event {
	e.t.Helper()
	evs, err := e.svc.Events(e.ctx, id)
	if err != nil {
		e.t.Fatalf("events %s: %v", id, err)
	}
	return evs
}

func wantCode(t testing.TB, err error, code errcode.Code) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("error = %v (code %s), want %s", err, errcode.Of(err), code)
	}
}

func attemptByID(t testing.TB, j ledger.Job, id string) ledger.Attempt {
	t.Helper()
	for _, a := range j.Attempts {
		if a.ID == id {
			return a
		}
	}
	t.Fatalf("job %s has no attempt %s", j.ID, id)
	return ledger.Attempt{}
}

// CheckInvariants fails t unless the job's state is explainable: it has
// attempts, at most one applied attempt, a winner exactly when completed
// (and it is the applied, succeeded one), at most one open attempt while
// live, and a log that starts with job_created.
func CheckInvariants(t testing.TB, svc *ledger.Service, id string) {
	t.Helper()
	ctx := context.Background()
	j, err := svc.Get(ctx, Rita, id)
	if err != nil {
		t.Fatalf("invariants: get %s: %v", id, err)
	}
	if len(j.Attempts) == 0 {
		t.Errorf("job %s: no attempts", id)
	}
	applied, open := 0, 0
	for _, a := range j.Attempts {
		if a.Applied {
			applied++
			if a.ID != j.WinningAttemptID || a.State != ledger.AttemptSucceeded {
				t.Errorf("job %s: applied attempt %s (%s) is not the winner %q", id, a.ID, a.State, j.WinningAttemptID)
			}
		}
		if a.State.Open() {
			open++
		}
	}
	if applied > 1 {
		t.Errorf("job %s: %d applied attempts", id, applied)
	}
	if (j.State == ledger.JobCompleted) != (j.WinningAttemptID != "") || (j.WinningAttemptID != "") != (applied == 1) {
		t.Errorf("job %s: state %s, winner %q, applied %d", id, j.State, j.WinningAttemptID, applied)
	}
	if !j.State.Terminal() && open > 1 {
		t.Errorf("job %s: %d open attempts", id, open)
	}
	evs, err := svc.Events(ctx, id)
	if err != nil {
		t.Fatalf("invariants: events %s: %v", id, err)
	}
	if len(evs) == 0 || evs[0].Kind != ledger.EventJobCreated {
		t.Errorf("job %s: log does not start with job_created: %v", id, evs)
	}
}

// Run runs the whole behaviour suite against the backend that newDSN makes.
func Run(t *testing.T, newDSN NewDSN) {
	t.Run("LED-1", func(t *testing.T) { t.Parallel(); testIdempotentCreate(t, newDSN) })
	t.Run("LED-2", func(t *testing.T) { t.Parallel(); testKeyReuse(t, newDSN) })
	t.Run("LED-3", func(t *testing.T) { t.Parallel(); testTimeoutUnknown(t, newDSN) })
	t.Run("LED-4", func(t *testing.T) { t.Parallel(); testFallbackNeedsReview(t, newDSN) })
	t.Run("LED-5", func(t *testing.T) { t.Parallel(); testOneWinner(t, newDSN) })
	t.Run("LED-6", func(t *testing.T) { t.Parallel(); testControls(t, newDSN) })
	t.Run("LED-7", func(t *testing.T) { t.Parallel(); testOwnership(t, newDSN) })
	t.Run("LED-8", func(t *testing.T) { t.Parallel(); testLateCallbacks(t, newDSN) })
	t.Run("LED-9", func(t *testing.T) { t.Parallel(); testRollbackKeepsLedger(t, newDSN) })
	t.Run("LED-10", func(t *testing.T) { t.Parallel(); testStorage(t, newDSN) })
}

func testIdempotentCreate(t *testing.T, newDSN NewDSN) {
	t.Run("same key and input returns the same job", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j1, c1, err := e.svc.Create(e.ctx, Alice, "k1", json.RawMessage(`{"b": 1, "a": [1.0, "x"]}`), "p1")
		if err != nil || !c1 {
			t.Fatalf("first create: created=%v err=%v", c1, err)
		}
		j2, c2, err := e.svc.Create(e.ctx, Alice, "k1", json.RawMessage(`{"a":[1,"x"],"b":1}`), "p2")
		if err != nil || c2 {
			t.Fatalf("second create: created=%v err=%v, want existing", c2, err)
		}
		if j2.ID != j1.ID || j2.Version != j1.Version || len(j2.Attempts) != 1 || j2.Attempts[0].Provider != "p1" {
			t.Fatalf("second create = %s v%d %d attempts, want %s v%d 1 attempt of p1", j2.ID, j2.Version, len(j2.Attempts), j1.ID, j1.Version)
		}
		if got, want := string(j1.Input), `{"a":[1,"x"],"b":1}`; got != want {
			t.Errorf("canonical input = %s, want %s", got, want)
		}
		if j1.State != ledger.JobAccepted || j1.Attempts[0].State != ledger.AttemptStarting {
			t.Errorf("new job %s/%s, want accepted/starting", j1.State, j1.Attempts[0].State)
		}
	})
	t.Run("the key is per owner", func(t *testing.T) {
		e := newEnv(t, newDSN)
		a := e.create(Alice, "k", `{"x":1}`)
		b := e.create(Bob, "k", `{"x":1}`)
		if a.ID == b.ID {
			t.Fatalf("alice and bob share job %s", a.ID)
		}
	})
	t.Run("missing key is refused", func(t *testing.T) {
		e := newEnv(t, newDSN)
		_, _, err := e.svc.Create(e.ctx, Alice, " ", json.RawMessage(`{}`), "")
		wantCode(t, err, ledger.CodeIdempotencyKeyMissing)
	})
	t.Run("input must be a JSON object", func(t *testing.T) {
		e := newEnv(t, newDSN)
		for _, in := range []string{`[1]`, `"x"`, `{`, `{"a":1,"a":2}`} {
			_, _, err := e.svc.Create(e.ctx, Alice, "k", json.RawMessage(in), "")
			wantCode(t, err, ledger.CodeInvalidInput)
		}
	})
	t.Run("50 concurrent duplicates make one job", func(t *testing.T) {
		e := newEnv(t, newDSN)
		const n = 50
		var wg sync.WaitGroup
		ids := make([]string, n)
		created := make([]bool, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = WhileBusy(func() error {
					j, c, err := e.svc.Create(e.ctx, Alice, "double-click", json.RawMessage(`{"prompt":"patch"}`), "")
					ids[i], created[i] = j.ID, c
					return err
				})
			}()
		}
		close(start)
		wg.Wait()
		nCreated := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("goroutine %d: %v", i, errs[i])
			}
			if ids[i] != ids[0] {
				t.Fatalf("goroutine %d got job %s, goroutine 0 got %s", i, ids[i], ids[0])
			}
			if created[i] {
				nCreated++
			}
		}
		if nCreated != 1 {
			t.Fatalf("%d goroutines created a job, want 1", nCreated)
		}
		j := e.get(ids[0])
		if len(j.Attempts) != 1 {
			t.Fatalf("%d attempts, want 1", len(j.Attempts))
		}
		if evs := e.events(j.ID); len(evs) != 2 {
			t.Fatalf("%d events, want 2 (job_created, attempt_started): %v", len(evs), evs)
		}
		CheckInvariants(t, e.svc, j.ID)
	})
}

func testKeyReuse(t *testing.T, newDSN NewDSN) {
	e := newEnv(t, newDSN)
	j := e.create(Alice, "k", `{"prompt":"one"}`)
	before := e.events(j.ID)
	_, _, err := e.svc.Create(e.ctx, Alice, "k", json.RawMessage(`{"prompt":"two"}`), "")
	wantCode(t, err, ledger.CodeIdempotencyKeyReused)
	var le *ledger.Error
	if !errors.As(err, &le) || le.Status != 422 {
		t.Fatalf("error %v, want *ledger.Error with status 422", err)
	}
	after := e.get(j.ID)
	if after.Version != j.Version || string(after.Input) != string(j.Input) || len(after.Attempts) != 1 || after.State != j.State {
		t.Fatalf("job changed: %+v, was %+v", after, j)
	}
	if got := e.events(j.ID); len(got) != len(before) {
		t.Fatalf("events %d, were %d", len(got), len(before))
	}
}

func testTimeoutUnknown(t *testing.T, newDSN NewDSN) {
	e := newEnv(t, newDSN)
	j := e.create(Alice, "k", `{"p":1}`)
	a := j.Attempts[0]
	if _, err := e.svc.MarkSent(e.ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.get(j.ID).State; got != ledger.JobRunning {
		t.Fatalf("after send job is %s, want running", got)
	}
	got, err := e.svc.Timeout(e.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != ledger.AttemptUnknown {
		t.Fatalf("after timeout attempt is %s, want unknown (never failed)", got.State)
	}
	j2 := e.get(j.ID)
	if j2.State != ledger.JobNeedsReview || attemptByID(t, j2, a.ID).State != ledger.AttemptUnknown {
		t.Fatalf("after timeout job %s attempt %s, want needs_review/unknown", j2.State, attemptByID(t, j2, a.ID).State)
	}
	// A second timeout changes nothing.
	if got, err := e.svc.Timeout(e.ctx, a.ID); err != nil || got.State != ledger.AttemptUnknown {
		t.Fatalf("second timeout: %v %v", got.State, err)
	}
	// Only a definite failure makes it failed.
	r := e.callback(a.ID, "failed", "provider said no")
	if r.Outcome != ledger.OutcomeFailedRecorded || r.Attempt.State != ledger.AttemptFailed {
		t.Fatalf("failure callback: %s %s", r.Outcome, r.Attempt.State)
	}
	CheckInvariants(t, e.svc, j.ID)
}

func testFallbackNeedsReview(t *testing.T, newDSN NewDSN) {
	e := newEnv(t, newDSN)
	j := e.create(Alice, "k", `{"p":1}`)
	a1 := j.Attempts[0]
	_, err := e.svc.AddAttempt(e.ctx, Alice, j.ID, "other", "")
	wantCode(t, err, ledger.CodeReviewRequired)
	if _, err := e.svc.Timeout(e.ctx, a1.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.AddAttempt(e.ctx, Alice, j.ID, "other", "")
	wantCode(t, err, ledger.CodeReviewRequired)
	_, err = e.svc.AddAttempt(e.ctx, Alice, j.ID, "other", "I am sure")
	wantCode(t, err, ledger.CodeForbidden)
	_, err = e.svc.AddAttempt(e.ctx, Rita, j.ID, "other", "")
	wantCode(t, err, ledger.CodeReviewRequired)
	a2, err := e.svc.AddAttempt(e.ctx, Rita, j.ID, "other", "provider A silent for 10 minutes")
	if err != nil {
		t.Fatal(err)
	}
	if a2.JobID != j.ID || a2.State != ledger.AttemptStarting || a2.Number != 2 || a2.Provider != "other" {
		t.Fatalf("new attempt %+v", a2)
	}
	j2 := e.get(j.ID)
	old := attemptByID(t, j2, a1.ID)
	if old.State != ledger.AttemptSuperseded || old.SupersedeReason != "provider A silent for 10 minutes" || old.Reviewer != "rita" {
		t.Fatalf("old attempt %s reason %q reviewer %q", old.State, old.SupersedeReason, old.Reviewer)
	}
	if j2.State != ledger.JobRunning || len(j2.Attempts) != 2 {
		t.Fatalf("job %s with %d attempts", j2.State, len(j2.Attempts))
	}
	// After a definite failure nothing is open: the owner may fall back alone.
	e.callback(a2.ID, "failed", "")
	a3, err := e.svc.AddAttempt(e.ctx, Alice, j.ID, "third", "")
	if err != nil || a3.Number != 3 {
		t.Fatalf("fallback after failure: %+v %v", a3, err)
	}
	CheckInvariants(t, e.svc, j.ID)
	// Still one job for the key.
	again := e.create(Alice, "k", `{"p":1}`)
	if again.ID != j.ID {
		t.Fatalf("key now maps to %s, want %s", again.ID, j.ID)
	}
}

// superseded returns a job whose first attempt a1 was superseded by a2.
func superseded(e *env) (ledger.Job, ledger.Attempt, ledger.Attempt) {
	e.t.Helper()
	j := e.create(Alice, "k", `{"p":1}`)
	a1 := j.Attempts[0]
	a2, err := e.svc.AddAttempt(e.ctx, Rita, j.ID, "other", "slow")
	if err != nil {
		e.t.Fatal(err)
	}
	return j, a1, a2
}

func testOneWinner(t *testing.T, newDSN NewDSN) {
	t.Run("superseded then new, either order: one winner", func(t *testing.T) {
		for _, order := range []string{"old first", "new first"} {
			t.Run(order, func(t *testing.T) {
				e := newEnv(t, newDSN)
				j, a1, a2 := superseded(e)
				var r1, r2 ledger.Reconciliation
				if order == "old first" {
					r1 = e.callback(a1.ID, "succeeded", "old output")
					r2 = e.callback(a2.ID, "succeeded", "new output")
				} else {
					r2 = e.callback(a2.ID, "succeeded", "new output")
					r1 = e.callback(a1.ID, "succeeded", "old output")
				}
				if r1.Outcome != ledger.OutcomeLateAfterSupersession || r2.Outcome != ledger.OutcomeApplied {
					t.Fatalf("outcomes old=%s new=%s, want late_after_supersession, applied", r1.Outcome, r2.Outcome)
				}
				got := e.get(j.ID)
				if got.WinningAttemptID != a2.ID || got.State != ledger.JobCompleted {
					t.Fatalf("winner %q state %s", got.WinningAttemptID, got.State)
				}
				old := attemptByID(t, got, a1.ID)
				if old.Output != "old output" || old.Applied || old.State != ledger.AttemptSuperseded || old.CallbackStatus != "succeeded" {
					t.Fatalf("superseded attempt kept %+v", old)
				}
				out, err := e.svc.Output(e.ctx, Alice, j.ID)
				if err != nil || out.Output != "new output" || out.AttemptID != a2.ID {
					t.Fatalf("output %+v %v", out, err)
				}
				CheckInvariants(t, e.svc, j.ID)
			})
		}
	})
	t.Run("two open attempts, either order: the CAS picks one", func(t *testing.T) {
		// The Service never leaves two attempts open, but the claim must
		// hold even if a store has them (written by an older version or by
		// hand): insert a second open attempt directly.
		for _, order := range []string{"first wins", "second wins"} {
			t.Run(order, func(t *testing.T) {
				e := newEnv(t, newDSN)
				j := e.create(Alice, "k", `{"p":1}`)
				a1 := j.Attempts[0]
				a2 := ledger.Attempt{ID: a1.ID + "_b", JobID: j.ID, Number: 2, Provider: "other",
					State: ledger.AttemptStarting, CreatedAt: a1.CreatedAt, UpdatedAt: a1.UpdatedAt}
				if err := e.store.Tx(e.ctx, func(tx ledger.Tx) error { return tx.InsertAttempt(e.ctx, a2) }); err != nil {
					t.Fatal(err)
				}
				first, second := a1, a2
				if order == "second wins" {
					first, second = a2, a1
				}
				r1 := e.callback(first.ID, "succeeded", "out-"+first.ID)
				r2 := e.callback(second.ID, "succeeded", "out-"+second.ID)
				if r1.Outcome != ledger.OutcomeApplied || r2.Outcome != ledger.OutcomeLostRace {
					t.Fatalf("outcomes %s, %s; want applied, lost_race", r1.Outcome, r2.Outcome)
				}
				got := e.get(j.ID)
				if got.WinningAttemptID != first.ID {
					t.Fatalf("winner %s, want %s", got.WinningAttemptID, first.ID)
				}
				loser := attemptByID(t, got, second.ID)
				if loser.Applied || loser.Output != "out-"+second.ID || loser.State != ledger.AttemptSucceeded {
					t.Fatalf("loser %+v", loser)
				}
				CheckInvariants(t, e.svc, j.ID)
			})
		}
	})
	t.Run("concurrent callbacks: exactly one applied", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		a1 := j.Attempts[0]
		a2 := ledger.Attempt{ID: a1.ID + "_b", JobID: j.ID, Number: 2, Provider: "other",
			State: ledger.AttemptStarting, CreatedAt: a1.CreatedAt, UpdatedAt: a1.UpdatedAt}
		if err := e.store.Tx(e.ctx, func(tx ledger.Tx) error { return tx.InsertAttempt(e.ctx, a2) }); err != nil {
			t.Fatal(err)
		}
		const n = 10
		outs := make([]ledger.Outcome, 2*n)
		var wg sync.WaitGroup
		for i := range 2 * n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := a1.ID
				if i%2 == 1 {
					id = a2.ID
				}
				var r ledger.Reconciliation
				err := WhileBusy(func() error {
					var err error
					r, err = e.svc.Callback(e.ctx, id, "succeeded", "out-"+id)
					return err
				})
				if err != nil {
					t.Errorf("callback %d: %v", i, err)
				}
				outs[i] = r.Outcome
			}()
		}
		wg.Wait()
		count := map[ledger.Outcome]int{}
		for _, o := range outs {
			count[o]++
		}
		if count[ledger.OutcomeApplied] != 1 || count[ledger.OutcomeLostRace] != 1 || count[ledger.OutcomeDuplicate] != 2*n-2 {
			t.Fatalf("outcomes %v, want 1 applied, 1 lost_race, %d duplicate", count, 2*n-2)
		}
		CheckInvariants(t, e.svc, j.ID)
	})
	t.Run("the claim is a compare-and-swap on the version", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		var ok1, ok2 bool
		err := e.store.Tx(e.ctx, func(tx ledger.Tx) error {
			var err error
			if ok1, err = tx.ClaimWinner(e.ctx, j.ID, j.Attempts[0].ID, j.Version, time.Now()); err != nil {
				return err
			}
			ok2, err = tx.ClaimWinner(e.ctx, j.ID, "att_other", j.Version, time.Now())
			return err
		})
		if err != nil || !ok1 || ok2 {
			t.Fatalf("claims %v, %v (%v); want true, false", ok1, ok2, err)
		}
	})
}

func testControls(t *testing.T, newDSN NewDSN) {
	e := newEnv(t, newDSN)
	j := e.create(Alice, "k", `{"p":1}`)
	type row struct {
		name string
		who  ledger.Principal
		want ledger.Controls
	}
	check := func(rows []row) {
		t.Helper()
		for _, r := range rows {
			got, err := e.svc.Get(e.ctx, r.who, j.ID)
			if err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			if got.Controls != r.want {
				t.Errorf("%s: controls %+v, want %+v", r.name, got.Controls, r.want)
			}
		}
	}
	check([]row{
		{"starting, owner", Alice, ledger.Controls{Cancel: true, ReviewRequired: true}},
		{"starting, reviewer", Rita, ledger.Controls{Cancel: true, ReviewRequired: true, Retry: true, Fallback: true}},
	})
	e.callback(j.Attempts[0].ID, "failed", "")
	check([]row{{"failed, owner", Alice, ledger.Controls{Cancel: true, Retry: true, Fallback: true}}})
	if err := e.svc.SetFallbackEnabled(e.ctx, false); err != nil {
		t.Fatal(err)
	}
	check([]row{{"fallback off", Alice, ledger.Controls{Cancel: true, Retry: true}}})
	a2, err := e.svc.AddAttempt(e.ctx, Alice, j.ID, "", "")
	if err != nil {
		t.Fatal(err)
	}
	e.callback(a2.ID, "succeeded", "done")
	check([]row{{"completed", Alice, ledger.Controls{Output: true}}})
	// A fresh service (a browser refresh, a restarted server) derives the same.
	e.reopen()
	check([]row{{"completed after reopen", Alice, ledger.Controls{Output: true}}})
}

func testOwnership(t *testing.T, newDSN NewDSN) {
	e := newEnv(t, newDSN)
	j := e.create(Alice, "k", `{"p":1}`)
	calls := []struct {
		name string
		call func(who ledger.Principal) error
	}{
		{"get", func(who ledger.Principal) error { _, err := e.svc.Get(e.ctx, who, j.ID); return err }},
		{"attempts", func(who ledger.Principal) error {
			_, err := e.svc.AddAttempt(e.ctx, who, j.ID, "", "")
			return err
		}},
		{"output", func(who ledger.Principal) error { _, err := e.svc.Output(e.ctx, who, j.ID); return err }},
		{"cancel", func(who ledger.Principal) error { _, err := e.svc.Cancel(e.ctx, who, j.ID); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			err := c.call(Bob)
			wantCode(t, err, ledger.CodeNotFound)
			if want := "job " + j.ID + " not found"; !errors.Is(err, ledger.CodeNotFound) || !containsStr(err.Error(), want) {
				t.Fatalf("bob's error %q does not read like a missing job (%q)", err, want)
			}
		})
	}
	_, err := e.svc.Get(e.ctx, Bob, "job_doesnotexist")
	wantCode(t, err, ledger.CodeNotFound)
	if _, err := e.svc.Get(e.ctx, Rita, j.ID); err != nil {
		t.Fatalf("reviewer get: %v", err)
	}
	got := e.get(j.ID)
	if got.State != ledger.JobAccepted || got.Version != j.Version {
		t.Fatalf("bob changed the job: %s v%d", got.State, got.Version)
	}
	if _, err := e.svc.Cancel(e.ctx, Alice, j.ID); err != nil {
		t.Fatalf("owner cancel: %v", err)
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func testLateCallbacks(t *testing.T, newDSN NewDSN) {
	t.Run("after timeout: applied when nobody else won", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		a := j.Attempts[0]
		if _, err := e.svc.Timeout(e.ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		r := e.callback(a.ID, "succeeded", "late but fine")
		if r.Outcome != ledger.OutcomeLateAfterTimeoutApplied || r.Job.State != ledger.JobCompleted || r.Job.WinningAttemptID != a.ID {
			t.Fatalf("reconciled %s, job %s winner %q", r.Outcome, r.Job.State, r.Job.WinningAttemptID)
		}
		CheckInvariants(t, e.svc, j.ID)
	})
	t.Run("after timeout and supersession: stored, not applied", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		a := j.Attempts[0]
		if _, err := e.svc.Timeout(e.ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.AddAttempt(e.ctx, Rita, j.ID, "other", "timed out"); err != nil {
			t.Fatal(err)
		}
		r := e.callback(a.ID, "succeeded", "too late")
		if r.Outcome != ledger.OutcomeLateAfterSupersession || r.Job.WinningAttemptID != "" || r.Attempt.Output != "too late" {
			t.Fatalf("reconciled %s winner %q output %q", r.Outcome, r.Job.WinningAttemptID, r.Attempt.Output)
		}
		CheckInvariants(t, e.svc, j.ID)
	})
	t.Run("after cancel: stored, not applied", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		a := j.Attempts[0]
		if _, err := e.svc.Cancel(e.ctx, Alice, j.ID); err != nil {
			t.Fatal(err)
		}
		r := e.callback(a.ID, "succeeded", "after cancel")
		if r.Outcome != ledger.OutcomeAfterCancel || r.Job.State != ledger.JobCancelled || r.Attempt.Applied {
			t.Fatalf("reconciled %s job %s applied %v", r.Outcome, r.Job.State, r.Attempt.Applied)
		}
		_, err := e.svc.Output(e.ctx, Alice, j.ID)
		wantCode(t, err, ledger.CodeNoWinner)
		CheckInvariants(t, e.svc, j.ID)
	})
	t.Run("duplicate is a no-op that says so; a conflicting one changes nothing", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		a := j.Attempts[0]
		r1 := e.callback(a.ID, "succeeded", "once")
		before := e.get(j.ID)
		r2 := e.callback(a.ID, "succeeded", "once")
		if r1.Outcome != ledger.OutcomeApplied || r2.Outcome != ledger.OutcomeDuplicate {
			t.Fatalf("outcomes %s, %s", r1.Outcome, r2.Outcome)
		}
		r3 := e.callback(a.ID, "failed", "changed my mind")
		if r3.Outcome != ledger.OutcomeConflicting {
			t.Fatalf("conflicting callback: %s", r3.Outcome)
		}
		after := e.get(j.ID)
		if after.Version != before.Version || attemptByID(t, after, a.ID) != attemptByID(t, before, a.ID) {
			t.Fatalf("duplicate changed the job or attempt")
		}
		var kinds []string
		for _, ev := range e.events(j.ID) {
			if ev.Kind == ledger.EventCallback {
				kinds = append(kinds, ev.Detail[:len("applied")])
			}
		}
		if len(kinds) != 3 {
			t.Fatalf("callback events %v, want 3 (every callback is logged)", kinds)
		}
	})
	t.Run("unknown attempt", func(t *testing.T) {
		e := newEnv(t, newDSN)
		_, err := e.svc.Callback(e.ctx, "att_nope", "succeeded", "")
		wantCode(t, err, ledger.CodeNotFound)
		_, err = e.svc.Callback(e.ctx, "att_nope", "maybe", "")
		wantCode(t, err, ledger.CodeInvalidInput)
	})
}

func countRows(e *env) map[string]int {
	e.t.Helper()
	n := map[string]int{}
	// Exec reports rows affected; an UPDATE that changes nothing counts rows.
	for _, table := range []string{"jobs", "attempts"} {
		c, err := e.store.Exec(e.ctx, "UPDATE "+table+" SET id = id")
		if err != nil {
			e.t.Fatalf("count %s: %v", table, err)
		}
		n[table] = int(c)
	}
	return n
}

func testRollbackKeepsLedger(t *testing.T, newDSN NewDSN) {
	t.Run("fallback off refuses new providers and deletes nothing", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		e.callback(j.Attempts[0].ID, "failed", "")
		before := countRows(e)
		evBefore := len(e.events(j.ID))
		if err := e.svc.SetFallbackEnabled(e.ctx, false); err != nil {
			t.Fatal(err)
		}
		if on, err := e.svc.FallbackEnabled(e.ctx); err != nil || on {
			t.Fatalf("fallback enabled = %v, %v", on, err)
		}
		_, err := e.svc.AddAttempt(e.ctx, Alice, j.ID, "other", "")
		wantCode(t, err, ledger.CodeFallbackDisabled)
		if after := countRows(e); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("rows %v, were %v", after, before)
		}
		if got := len(e.events(j.ID)); got != evBefore {
			t.Fatalf("job events %d, were %d", got, evBefore)
		}
		// Retrying the same provider still works; so does turning it back on.
		if _, err := e.svc.AddAttempt(e.ctx, Alice, j.ID, "", ""); err != nil {
			t.Fatalf("retry with fallback off: %v", err)
		}
		if err := e.svc.SetFallbackEnabled(e.ctx, true); err != nil {
			t.Fatal(err)
		}
		j2, err := e.svc.SetJobFallbackEnabled(e.ctx, Alice, j.ID, false)
		if err != nil || j2.FallbackEnabled || j2.Controls.Fallback {
			t.Fatalf("per-job switch: %+v %v", j2.Controls, err)
		}
		CheckInvariants(t, e.svc, j.ID)
	})
	t.Run("DELETE is refused by the schema", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		if err := e.svc.SetFallbackEnabled(e.ctx, false); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			"DELETE FROM jobs", "DELETE FROM attempts", "DELETE FROM events", "DELETE FROM settings",
			"UPDATE events SET kind = 'x'",
		} {
			if n, err := e.store.Exec(e.ctx, stmt); err == nil {
				t.Errorf("%s: affected %d rows, want an error", stmt, n)
			}
		}
		got := e.get(j.ID)
		if len(got.Attempts) != 1 || len(e.events(j.ID)) != 2 {
			t.Fatalf("rows went missing")
		}
	})
	t.Run("a failed operation rolls back whole", func(t *testing.T) {
		e := newEnv(t, newDSN)
		j := e.create(Alice, "k", `{"p":1}`)
		boom := errors.New("boom")
		err := e.store.Tx(e.ctx, func(tx ledger.Tx) error {
			if err := tx.AppendEvent(e.ctx, ledger.Event{JobID: j.ID, Kind: "x", At: time.Now()}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("tx error %v", err)
		}
		if n := len(e.events(j.ID)); n != 2 {
			t.Fatalf("%d events after rollback, want 2", n)
		}
	})
}

// flakyStore makes the next Tx report an uncertain commit, either after
// really committing or after rolling back.
type flakyStore struct {
	ledger.Store
	mu        sync.Mutex
	armed     bool
	committed bool
}

var errInjected = errors.New("ledgertest: injected")

func (f *flakyStore) Tx(ctx context.Context, fn func(ledger.Tx) error) error {
	f.mu.Lock()
	armed, committed := f.armed, f.committed
	f.armed = false
	f.mu.Unlock()
	if !armed {
		return f.Store.Tx(ctx, fn)
	}
	if committed {
		if err := f.Store.Tx(ctx, fn); err != nil {
			return err
		}
		return fmt.Errorf("%w: injected lost COMMIT ack", ledger.ErrCommitUncertain)
	}
	err := f.Store.Tx(ctx, func(tx ledger.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected
	})
	return fmt.Errorf("%w: injected after rollback (%v)", ledger.ErrCommitUncertain, err)
}

func (f *flakyStore) arm(committed bool) {
	f.mu.Lock()
	f.armed, f.committed = true, committed
	f.mu.Unlock()
}

func testStorage(t *testing.T, newDSN NewDSN) {
	t.Run("reopen keeps every committed row", func(t *testing.T) {
		e := newEnv(t, newDSN)
		accepted := e.create(Alice, "accepted", `{"p":1}`)
		unknown := e.create(Alice, "unknown", `{"p":2}`)
		if _, err := e.svc.Timeout(e.ctx, unknown.Attempts[0].ID); err != nil {
			t.Fatal(err)
		}
		done := e.create(Bob, "done", `{"p":3}`)
		e.callback(done.Attempts[0].ID, "succeeded", "result")
		cancelled := e.create(Bob, "cancelled", `{"p":4}`)
		if _, err := e.svc.Cancel(e.ctx, Bob, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		want := map[string]ledger.Job{}
		for _, id := range []string{accepted.ID, unknown.ID, done.ID, cancelled.ID} {
			want[id] = e.get(id)
		}
		evs := map[string]int{}
		for id := range want {
			evs[id] = len(e.events(id))
		}
		e.reopen()
		e.reopen() // migrations are idempotent
		for id, w := range want {
			got := e.get(id)
			if got.State != w.State || got.Version != w.Version || got.WinningAttemptID != w.WinningAttemptID ||
				len(got.Attempts) != len(w.Attempts) || !got.UpdatedAt.Equal(w.UpdatedAt) {
				t.Errorf("job %s after reopen: %s v%d, want %s v%d", id, got.State, got.Version, w.State, w.Version)
			}
			for i := range w.Attempts {
				if got.Attempts[i] != w.Attempts[i] {
					t.Errorf("attempt after reopen %+v, want %+v", got.Attempts[i], w.Attempts[i])
				}
			}
			if n := len(e.events(id)); n != evs[id] {
				t.Errorf("job %s: %d events after reopen, want %d", id, n, evs[id])
			}
			CheckInvariants(t, e.svc, id)
		}
	})
	t.Run("uncertain commit is settled by re-reading", func(t *testing.T) {
		for _, committed := range []bool{true, false} {
			t.Run(fmt.Sprintf("committed=%v", committed), func(t *testing.T) {
				e := newEnv(t, newDSN)
				f := &flakyStore{Store: e.store}
				svc := ledger.New(f)
				f.arm(committed)
				j, created, err := svc.Create(e.ctx, Alice, "k", json.RawMessage(`{"p":1}`), "")
				if err != nil || !created {
					t.Fatalf("create: created=%v err=%v", created, err)
				}
				f.arm(committed)
				r, err := svc.Callback(e.ctx, j.Attempts[0].ID, "succeeded", "out")
				if err != nil || r.Outcome != ledger.OutcomeApplied {
					t.Fatalf("callback: %s %v, want applied", r.Outcome, err)
				}
				evs := e.events(j.ID)
				if len(evs) != 4 { // created, started, completed, callback
					t.Fatalf("%d events, want 4: %v", len(evs), evs)
				}
				CheckInvariants(t, e.svc, j.ID)
			})
		}
	})
}
