package ledgersteps

// Ledger steps (SPEC §6, §9): every scenario that uses them starts its own
// sim with a real ledger — a SQLite file in a temp dir, or a fresh schema
// of the PostgreSQL database at REPLAYLAB_PG_URL — under both drivers, and
// talks HTTP to the job API and the patch page; no browser is involved, so
// the trace is the same under --driver browser and --driver replay. The
// sim is closed, and its database removed, when the scenario ends.
//
// The trace gets one "ledger.*" event per request and per check: HTTP
// statuses, problem codes, job and attempt states, reconciliation
// outcomes and the patch page's controls, with the sim's deterministic ids
// (att_0001, …; jobs as job#1, job#2 in the order the trace names them)
// and never a time, port or backend name, so the SQLite and PostgreSQL
// runs of one scenario give the same trace.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgerlab"
	"github.com/replaylab/replaylab/sim"
	"github.com/replaylab/replaylab/steps"
)

// Actors of requests that carry no bearer token (ledgerlab).
const (
	ledProvider = ledgerlab.Provider
	ledVisitor  = ledgerlab.Visitor
)

// ledHarness is the principal the check steps read the ledger as: a reviewer
// sees every job and changes nothing by reading.
var ledHarness = ledger.Principal{Name: "ledHarness", Role: ledger.RoleReviewer}

// ledgerState is one scenario's ledger: its own lab and what the steps saw.
type ledgerState struct {
	backend string         // "sqlite" (default) or "postgres"
	lab     *ledgerlab.Lab // started by the first step that needs it

	job      string             // id of the scenario's current job
	before   *ledger.Job        // the current job just before the last request
	last     ledgerResponse     // the last request's response
	burst    []ledgerResponse   // the responses of the last concurrent step
	outcomes map[int]string     // attempt number → last reconciliation outcome
	page     []sim.PatchControl // controls of the last patch page load
	attempts map[string]string  // attempt id → job id, every attempt seen (LED-9)
	events   map[string]int     // job id → events seen (LED-9)
	aliases  map[string]string  // job id → its name in the trace

	lastCookie *http.Cookie         // set by the last sign-in step
	refusals   []ledgerResponse     // every response ≥ 400 of ledAct, in order
	recoveries []ledger.Recovery    // what the last restart's recovery did
	tunes      []func(*sim.Options) // set before the sim starts (ledger_hardened_steps.go)
	keys       []string             // the page keys of every Generate patch, in order
}

type ledgerResponse = ledgerlab.Response

func ledgerSteps(r *table) {
	const g = "Ledger and job API (sim)"
	r.step(g, `^the ledger is stored in "(sqlite|postgres)"$`,
		`the scenario's ledger uses that store: a SQLite file, or a fresh schema of the PostgreSQL database at REPLAYLAB_PG_URL (unset: fails in CI, skipped with a message locally); must come before any other ledger step`,
		`Given the ledger is stored in "sqlite"`, ledGivenLedgerStore)
	r.step(g, `^provider "([^"]*)" will (succeed|fail|time out|hold its answer)(?: with "([^"]*)")?$`,
		`scripts that provider's next attempt: answer at once, fail definitely, time out after sending (the attempt becomes unknown; its answer is held for a late callback), or hold its answer until a step releases it; the output defaults to "patch from PROVIDER (ATTEMPT)"`,
		`Given provider "primary" will time out with "patch A"`, ledGivenProvider)
	r.step(g, `^fallback is switched off$`,
		"the rollback switch: the ledger refuses new attempts with another provider (FALLBACK_DISABLED) and deletes nothing",
		"Given fallback is switched off", ledGivenFallbackOff)

	r.step(g, `^([a-z]+) creates a job with key "([^"]*)" and input (\{.*\})$`,
		"POST /api/jobs as that user (alice, bob: owners; rita: reviewer) with the Idempotency-Key and the JSON object as body; the job becomes the scenario's job",
		`When alice creates a job with key "k1" and input {"task":"patch","file":"a.go"}`, ledCreateJob)
	r.step(g, `^([a-z]+) creates a job without an idempotency key$`,
		"POST /api/jobs with no Idempotency-Key header",
		"When alice creates a job without an idempotency key", ledCreateJobNoKey)
	r.step(g, `^([a-z]+) sends (\d+) concurrent creates with key "([^"]*)" and input (\{.*\})$`,
		"N identical POST /api/jobs at once (a double click, retries in flight), all with the same key and body",
		`When alice sends 20 concurrent creates with key "k1" and input {"task":"patch"}`, ledCreateBurst)
	r.step(g, `^([a-z]+) asks for another attempt with provider "([^"]*)"$`,
		"POST /api/jobs/{id}/attempts for the scenario's job with that provider (the last one's: a retry; another: a fallback)",
		`When alice asks for another attempt with provider "fallback"`, ledAddAttempt)
	r.step(g, `^([a-z]+) asks for another attempt with provider "([^"]*)" and reason "([^"]*)"$`,
		"the same, with a supersede reason (only a reviewer may give one)",
		`When rita asks for another attempt with provider "fallback" and reason "primary timed out"`, ledAddAttemptReason)
	r.step(g, `^([a-z]+) cancels the job$`, "POST /api/jobs/{id}/cancel for the scenario's job",
		"When alice cancels the job", ledJobCall("cancel", http.MethodPost, "/cancel"))
	r.step(g, `^([a-z]+) fetches the job$`, "GET /api/jobs/{id} for the scenario's job",
		"When bob fetches the job", ledJobCall("get", http.MethodGet, ""))
	r.step(g, `^([a-z]+) fetches the output$`, "GET /api/jobs/{id}/output for the scenario's job",
		"When alice fetches the output", ledJobCall("output", http.MethodGet, "/output"))
	r.step(g, `^the held answer of attempt (\d+) arrives$`,
		"the provider delivers the answer it held for the job's attempt N (a late callback after a timeout, supersession or cancel)",
		"When the held answer of attempt 1 arrives", ledReleaseHeld)
	r.step(g, `^the held answers of attempts (\d+) and (\d+) arrive at the same time$`,
		"both held answers are delivered concurrently",
		"When the held answers of attempts 1 and 2 arrive at the same time", ledReleaseBoth)
	r.step(g, `^a callback for attempt (\d+) arrives with status "([^"]*)" and output "([^"]*)"$`,
		"POST /api/providers/callback for the job's attempt N, e.g. a repeated or conflicting callback",
		`When a callback for attempt 1 arrives with status "succeeded" and output "patch A"`, ledPostCallback)
	r.step(g, `^([a-z]+) opens a new patch page and double-clicks "Generate patch"$`,
		"GET /patch signed in as that user (the sign-in form sets the session cookie), then the two POST /patch/api/jobs a double click on Generate patch sends, at once, with the key and CSRF token rendered into that page load",
		`When alice opens a new patch page and double-clicks "Generate patch"`, ledDoubleClickGenerate)
	r.step(g, `^([a-z]+) (?:opens|refreshes) the patch page of the job$`,
		"GET /patch?job=ID signed in as that user and read its controls with the engine's observation (enabled buttons)",
		"When alice refreshes the patch page of the job", ledOpenPatchPage)

	r.step(g, `^the response is (\d+)$`, "the last request's HTTP status",
		"Then the response is 201", ledResponseIs)
	r.step(g, `^the response is (\d+) "([A-Z_]+)"$`, "the last request's HTTP status and problem code",
		`Then the response is 409 "REVIEW_REQUIRED"`, ledResponseIsProblem)
	r.step(g, `^exactly one job was created for the (\d+) requests$`,
		"of the last concurrent requests one answered 201 and every other 200, all naming the same job",
		"Then exactly one job was created for the 20 requests", ledExactlyOneJob)
	r.step(g, `^the job is "([a-z_]+)"$`, "the scenario's job is in that state (accepted, running, needs_review, completed, cancelled)",
		`Then the job is "needs_review"`, ledJobIs)
	r.step(g, `^the job is unchanged$`,
		"state, version, input digest and attempts are what they were just before the last request",
		"And the job is unchanged", ledJobUnchanged)
	r.step(g, `^the job has (\d+) attempts?$`, "the scenario's job has that many attempts (never a new job)",
		"And the job has 2 attempts", ledJobAttempts)
	r.step(g, `^attempt (\d+) is "([a-z_]+)"$`, "the job's attempt N is in that state (starting, unknown, failed, succeeded, superseded)",
		`And attempt 1 is "unknown"`, ledAttemptIs)
	r.step(g, `^the winner is attempt (\d+)$`, "the job is completed with attempt N as its one winner (applied)",
		"Then the winner is attempt 2", ledWinnerIs)
	r.step(g, `^the job has no winner$`, "no attempt of the job was applied",
		"Then the job has no winner", ledNoWinner)
	r.step(g, `^attempt (\d+) was reconciled as "([a-z_]+)"$`,
		"the last callback for attempt N was reconciled so (applied, late_after_timeout_applied, lost_race, late_after_supersession, after_cancel, failed_recorded, duplicate, conflicting)",
		`And attempt 1 was reconciled as "late_after_supersession"`, ledReconciledAs)
	r.step(g, `^attempt (\d+) keeps its output "([^"]*)" for diagnostics$`,
		"attempt N's output is stored but was not applied",
		`And attempt 1 keeps its output "patch A" for diagnostics`, ledKeepsOutput)
	r.step(g, `^the output is "([^"]*)"$`, "the last response is the job's output with this text",
		`Then the output is "patch B"`, ledOutputIs)
	r.step(g, `^the patch page offers "([^"]*)"$`,
		"the enabled controls of the last patch page load, in page order, comma-separated (\"\" for none)",
		`Then the patch page offers "Cancel, Output"`, ledPageOffers)
	r.step(g, `^no ledger row was deleted$`,
		"every attempt and event the scenario saw is still stored, and the database refuses a DELETE",
		"Then no ledger row was deleted", ledNoRowDeleted)
}

func (w *world) ledState() *ledgerState {
	st := stateOf[ledgerState](w)
	if st.outcomes == nil {
		st.outcomes, st.attempts, st.events, st.aliases = map[int]string{}, map[string]string{}, map[string]int{}, map[string]string{}
	}
	return st
}

// ledJobID matches the ledger's job ids (sequential or random).
var ledJobID = regexp.MustCompile(`\bjob_[0-9a-f]{4,}\b`)

// ledEmit puts one ledger event in the trace. Job ids are written as
// job#1, job#2, … in the order the trace first names them: the sim's ids
// are sequential, but on PostgreSQL the loser of a concurrent insert race
// has drawn an id too, so the winner's id depends on timing.
func (w *world) ledEmit(kind string, attrs ...trace.Attr) {
	st := w.ledState()
	for i, a := range attrs {
		attrs[i].Value = ledJobID.ReplaceAllStringFunc(a.Value, func(id string) string {
			if _, ok := st.aliases[id]; !ok {
				st.aliases[id] = fmt.Sprintf("job#%d", len(st.aliases)+1)
			}
			return st.aliases[id]
		})
	}
	w.log.Emit(trace.E("ledger."+kind, attrs...))
}

// ledLab starts the scenario's sim on first use and closes it when the
// scenario ends.
// ledSettled is ledLab with the lab settled, for the steps that read what
// the ledger and the pages show now.
func (w *world) ledSettled(ctx context.Context) (*ledgerState, error) {
	st, err := w.ledLab(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.settle(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

func (w *world) ledLab(ctx context.Context) (*ledgerState, error) {
	st := w.ledState()
	if st.lab != nil {
		return st, nil
	}
	lab, err := ledgerlab.Start(ctx, ledgerlab.Config{Store: st.backend, PostgresURL: os.Getenv(steps.PostgresURLEnv), Seed: w.Seed(), Tune: st.tunes})
	if err != nil {
		return nil, fmt.Errorf("ledger steps: %w", err)
	}
	st.lab = lab
	w.OnFinish(func() {
		if err := st.lab.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "ledger steps: cleanup of %s: %v\n", w.Slug(), err)
		}
	})
	return st, nil
}

func ledGivenLedgerStore(ctx context.Context, backend string) error {
	w := worldOf(ctx)
	st := w.ledState()
	if st.lab != nil {
		return fmt.Errorf(`ledger steps: "the ledger is stored in" must come before the other ledger steps`)
	}
	st.backend = backend
	if backend == "postgres" {
		if _, err := w.NeedPostgres("ledger steps", "to run this scenario against PostgreSQL"); err != nil {
			return err
		}
	}
	_, err := w.ledLab(ctx)
	return err
}

func ledGivenProvider(ctx context.Context, provider, behaviour, output string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	b := map[string]sim.Behaviour{"succeed": sim.Succeed, "fail": sim.Fail, "time out": sim.TimeOut, "hold its answer": sim.Hold}[behaviour]
	return st.lab.Server().Providers().Script(provider, sim.Script{Behaviour: b, Output: output})
}

func ledGivenFallbackOff(ctx context.Context) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	if err := st.lab.Server().Ledger().SetFallbackEnabled(ctx, false); err != nil {
		return err
	}
	on, err := st.lab.Server().Ledger().FallbackEnabled(ctx)
	if err != nil {
		return err
	}
	w.ledEmit("fallback", trace.A("enabled", on))
	return nil
}

// settle waits for the simulated providers, so a step acts on and reads a
// state that does not depend on goroutine timing.
func (st *ledgerState) settle(ctx context.Context) error { return st.lab.Settle(ctx) }

// act settles, remembers the current job, and sends one request; the
// result becomes the last response and goes into the trace.
func (w *world) ledAct(ctx context.Context, op, actor, method, path string, hdr map[string]string, body string, attrs ...trace.Attr) (ledgerResponse, error) {
	st, err := w.ledLab(ctx)
	if err != nil {
		return ledgerResponse{}, err
	}
	if err := st.settle(ctx); err != nil {
		return ledgerResponse{}, err
	}
	st.before = nil
	if st.job != "" {
		j, err := st.read(ctx)
		if err != nil {
			return ledgerResponse{}, err
		}
		st.before = &j
	}
	r, err := st.lab.Request(ctx, actor, method, path, hdr, body)
	if err != nil {
		return r, err
	}
	st.last = r
	if r.Status >= 400 {
		st.refusals = append(st.refusals, r)
	}
	a := append([]trace.Attr{trace.A("op", op), trace.A("actor", actor)}, attrs...)
	a = append(a, trace.A("status", r.Status))
	if r.Code != "" {
		a = append(a, trace.A("code", string(r.Code)))
	}
	if r.Job != "" && op != "attempt" {
		a = append(a, trace.A("job", r.Job))
	}
	w.ledEmit("http", a...)
	return r, nil
}

// read returns the scenario's job as the ledHarness sees it.
func (st *ledgerState) read(ctx context.Context) (ledger.Job, error) {
	if st.job == "" {
		return ledger.Job{}, fmt.Errorf("ledger steps: no job yet; create one first")
	}
	j, err := st.lab.Server().Ledger().Get(ctx, ledHarness, st.job)
	if err != nil {
		return ledger.Job{}, err
	}
	for _, a := range j.Attempts {
		st.attempts[a.ID] = j.ID
	}
	evs, err := st.lab.Server().Ledger().Events(ctx, j.ID)
	if err != nil {
		return ledger.Job{}, err
	}
	st.events[j.ID] = max(st.events[j.ID], len(evs))
	return j, nil
}

// check settles, reads the job and puts its state in the trace.
func (w *world) ledCheck(ctx context.Context) (ledger.Job, error) {
	st, err := w.ledLab(ctx)
	if err != nil {
		return ledger.Job{}, err
	}
	if err := st.settle(ctx); err != nil {
		return ledger.Job{}, err
	}
	j, err := st.read(ctx)
	if err != nil {
		return ledger.Job{}, err
	}
	w.ledEmit("job", trace.A("job", j.ID), trace.A("state", string(j.State)), trace.A("version", j.Version),
		trace.A("winner", j.WinningAttemptID), trace.A("attempts", ledDescribeAttempts(j)))
	return j, nil
}

// ledDescribeAttempts is "1:primary:unknown,2:fallback:succeeded+applied".
func ledDescribeAttempts(j ledger.Job) string {
	var parts []string
	for _, a := range j.Attempts {
		s := fmt.Sprintf("%d:%s:%s", a.Number, a.Provider, a.State)
		if a.CallbackStatus != "" && string(a.State) != a.CallbackStatus {
			s += "(callback " + a.CallbackStatus + ")"
		}
		if a.Applied {
			s += "+applied"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

func ledAttemptN(j ledger.Job, n int) (ledger.Attempt, error) {
	for _, a := range j.Attempts {
		if a.Number == n {
			return a, nil
		}
	}
	return ledger.Attempt{}, fmt.Errorf("job %s has no attempt %d (attempts: %s)", j.ID, n, ledDescribeAttempts(j))
}

func ledCreateJob(ctx context.Context, actor, key, input string) error {
	w := worldOf(ctx)
	r, err := w.ledAct(ctx, "create", actor, http.MethodPost, "/api/jobs", map[string]string{"Idempotency-Key": key}, input, trace.A("key", key))
	if err != nil {
		return err
	}
	if r.Job != "" {
		w.ledState().job = r.Job
	}
	return nil
}

func ledCreateJobNoKey(ctx context.Context, actor string) error {
	_, err := worldOf(ctx).ledAct(ctx, "create", actor, http.MethodPost, "/api/jobs", nil, `{"task":"patch"}`)
	return err
}

func (w *world) ledRecordBurst(op, actor, key string, rs []ledgerResponse) {
	st := w.ledState()
	st.burst = rs
	st.last = rs[len(rs)-1]
	statuses, jobs := ledgerlab.BurstSummary(rs)
	if len(jobs) > 0 {
		st.job = jobs[0]
	}
	w.ledEmit("burst", trace.A("op", op), trace.A("actor", actor), trace.A("key", key), trace.A("requests", len(rs)),
		trace.A("statuses", statuses), trace.A("jobs", jobs))
}

func ledCreateBurst(ctx context.Context, actor string, n int, key, input string) error {
	w := worldOf(ctx)
	st, err := w.ledSettled(ctx)
	if err != nil {
		return err
	}
	rs, err := st.lab.Burst(ctx, n, actor, http.MethodPost, "/api/jobs", map[string]string{"Idempotency-Key": key}, input)
	if err != nil {
		return err
	}
	w.ledRecordBurst("create", actor, key, rs)
	return nil
}

func ledDoubleClickGenerate(ctx context.Context, actor string) error {
	return ledClickGenerate(ctx, actor, 2, "double-click Generate patch")
}

// ledClickGenerate loads a new patch page as actor and sends the n POSTs
// that n clicks on its Generate patch send, at once (op names the burst
// in the trace).
func ledClickGenerate(ctx context.Context, actor string, n int, op string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	key, rs, err := st.lab.GeneratePatch(ctx, actor, n)
	if err != nil {
		return err
	}
	st.keys = append(st.keys, key)
	w.ledRecordBurst(op, actor, key, rs)
	return nil
}

func (w *world) ledJobPath(suffix string) (string, error) {
	st := w.ledState()
	if st.job == "" {
		return "", fmt.Errorf("ledger steps: no job yet; create one first")
	}
	return "/api/jobs/" + url.PathEscape(st.job) + suffix, nil
}

func ledAddAttempt(ctx context.Context, actor, provider string) error {
	return ledAddAttemptReason(ctx, actor, provider, "")
}

func ledAddAttemptReason(ctx context.Context, actor, provider, reason string) error {
	w := worldOf(ctx)
	p, err := w.ledJobPath("/attempts")
	if err != nil {
		return err
	}
	body, _ := json.Marshal(struct {
		Provider        string `json:"provider,omitempty"`
		SupersedeReason string `json:"supersedeReason,omitempty"`
	}{provider, reason})
	attrs := []trace.Attr{trace.A("job", w.ledState().job), trace.A("provider", provider)}
	if reason != "" {
		attrs = append(attrs, trace.A("reason", reason))
	}
	r, err := w.ledAct(ctx, "attempt", actor, http.MethodPost, p, nil, string(body), attrs...)
	if err != nil {
		return err
	}
	if r.Status == http.StatusCreated {
		var a ledger.AttemptView
		if err := json.Unmarshal(r.Body, &a); err != nil {
			return fmt.Errorf("ledger steps: attempt body: %w", err)
		}
		w.ledEmit("attempt", trace.A("job", a.JobID), trace.A("attempt", a.ID), trace.A("number", a.Number),
			trace.A("provider", a.Provider), trace.A("state", string(a.State)))
	}
	return nil
}

// ledJobCall is a step that sends one request about the current job as
// actor: op names it in the trace, suffix follows /api/jobs/{id}.
func ledJobCall(op, method, suffix string) func(ctx context.Context, actor string) error {
	return func(ctx context.Context, actor string) error {
		w := worldOf(ctx)
		p, err := w.ledJobPath(suffix)
		if err != nil {
			return err
		}
		_, err = w.ledAct(ctx, op, actor, method, p, nil, "")
		return err
	}
}

// attemptID returns the id of the current job's attempt n.
func (w *world) ledAttemptID(ctx context.Context, n int) (string, error) {
	st, err := w.ledLab(ctx)
	if err != nil {
		return "", err
	}
	if err := st.settle(ctx); err != nil {
		return "", err
	}
	j, err := st.read(ctx)
	if err != nil {
		return "", err
	}
	a, err := ledAttemptN(j, n)
	return a.ID, err
}

func (w *world) ledRecordReconciliation(n int, via string, rec ledger.Reconciliation) {
	w.ledState().outcomes[n] = string(rec.Outcome)
	w.ledEmit("callback", trace.A("via", via), trace.A("attempt", rec.Attempt.ID), trace.A("outcome", string(rec.Outcome)),
		trace.A("attempt_state", string(rec.Attempt.State)), trace.A("job_state", string(rec.Job.State)),
		trace.A("winner", rec.Job.WinningAttemptID), trace.A("detail", rec.Detail))
}

func ledReleaseHeld(ctx context.Context, n int) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	rec, err := w.ledState().lab.Server().Providers().Release(ctx, id)
	if err != nil {
		return err
	}
	w.ledRecordReconciliation(n, "provider", rec)
	return nil
}

func ledReleaseBoth(ctx context.Context, n1, n2 int) error {
	w := worldOf(ctx)
	ids := make([]string, 2)
	for i, n := range []int{n1, n2} {
		id, err := w.ledAttemptID(ctx, n)
		if err != nil {
			return err
		}
		ids[i] = id
	}
	recs := make([]ledger.Reconciliation, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range ids {
		wg.Go(func() {
			<-start
			recs[i], errs[i] = w.ledState().lab.Server().Providers().Release(ctx, ids[i])
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// the order they finished in is timing; record them in attempt order,
	// with the job state each saw left out (it depends on that order)
	for i, n := range []int{n1, n2} {
		w.ledState().outcomes[n] = string(recs[i].Outcome)
		w.ledEmit("callback", trace.A("via", "provider, concurrent"), trace.A("attempt", recs[i].Attempt.ID),
			trace.A("outcome", string(recs[i].Outcome)), trace.A("attempt_state", string(recs[i].Attempt.State)))
	}
	return nil
}

// ledCallback posts a provider callback as actor (ledAct, op "callback"):
// body signed with sig in the signature header, or no header for "".
func (w *world) ledCallback(ctx context.Context, actor string, body []byte, sig string, attrs ...trace.Attr) (ledgerResponse, error) {
	var hdr map[string]string
	if sig != "" {
		hdr = map[string]string{ledger.CallbackSignatureHeader: sig}
	}
	return w.ledAct(ctx, "callback", actor, http.MethodPost, "/api/providers/callback", hdr, string(body), attrs...)
}

func ledPostCallback(ctx context.Context, n int, status, output string) error {
	w := worldOf(ctx)
	id, err := w.ledAttemptID(ctx, n)
	if err != nil {
		return err
	}
	st := w.ledState()
	body, sig, err := st.lab.Server().Ledger().SignCallback(ctx, id, status, output)
	if err != nil {
		return err
	}
	r, err := w.ledCallback(ctx, ledProvider, body, sig, trace.A("attempt", id))
	if err != nil {
		return err
	}
	if r.Status != http.StatusOK {
		return nil
	}
	var v ledger.ReconciliationView
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return fmt.Errorf("ledger steps: callback body: %w", err)
	}
	w.ledRecordReconciliation(n, "http", ledger.Reconciliation{Outcome: v.Outcome, Detail: v.Detail,
		Attempt: ledger.Attempt{ID: v.Attempt.ID, State: v.Attempt.State},
		Job:     ledger.Job{State: v.Job.State, WinningAttemptID: v.Job.WinningAttemptID}})
	return nil
}

func ledOpenPatchPage(ctx context.Context, actor string) error {
	w := worldOf(ctx)
	st, err := w.ledLab(ctx)
	if err != nil {
		return err
	}
	if st.job == "" {
		return fmt.Errorf("ledger steps: no job yet; create one first")
	}
	path := "/patch?job=" + url.QueryEscape(st.job)
	r, err := w.ledAct(ctx, "patch page", actor, http.MethodGet, path, nil, "", trace.A("job", st.job))
	if err != nil {
		return err
	}
	// read the page as the engine reads any page: roles, names, disabled
	doc, err := observe.ParseHTML(steps.CanonicalBase+"/patch", string(r.Body))
	if err != nil {
		return err
	}
	o := observe.Observe(doc, 1, observe.Options{})
	st.page = nil
	var enabled []string
	for _, e := range o.All {
		if e.Role != "button" {
			continue
		}
		st.page = append(st.page, sim.PatchControl{ID: e.Name, Name: e.Name, Enabled: !e.Disabled})
		if !e.Disabled {
			enabled = append(enabled, e.Name)
		}
	}
	var heads []string
	for _, h := range o.View(observe.ViewFull, observe.DefaultLimits).Headings {
		heads = append(heads, h.Text)
	}
	w.ledEmit("page", trace.A("actor", actor), trace.A("status", r.Status), trace.A("headings", strings.Join(heads, " | ")),
		trace.A("enabled", strings.Join(enabled, ", ")))
	return nil
}

func ledResponseIs(ctx context.Context, want int) error {
	r := worldOf(ctx).ledState().last
	if r.Status != want {
		return fmt.Errorf("the response is %d %s (%s), want %d", r.Status, string(r.Code), bytes.TrimSpace(r.Body), want)
	}
	return nil
}

func ledResponseIsProblem(ctx context.Context, want int, code string) error {
	r := worldOf(ctx).ledState().last
	if r.Status != want || string(r.Code) != code {
		return fmt.Errorf("the response is %d %q (%s), want %d %q", r.Status, string(r.Code), bytes.TrimSpace(r.Body), want, code)
	}
	return nil
}

func ledExactlyOneJob(ctx context.Context, n int) error {
	rs := worldOf(ctx).ledState().burst
	statuses, jobs := ledgerlab.BurstSummary(rs)
	if len(rs) != n {
		return fmt.Errorf("the last concurrent step sent %d requests, want %d", len(rs), n)
	}
	want := "201×1"
	if n > 1 {
		want = fmt.Sprintf("200×%d,201×1", n-1)
	}
	if statuses != want || len(jobs) != 1 {
		return fmt.Errorf("statuses %s naming jobs %v, want %s naming one job", statuses, jobs, want)
	}
	return nil
}

func ledJobIs(ctx context.Context, want string) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	if string(j.State) != want {
		return fmt.Errorf("job %s is %s (attempts %s), want %s", j.ID, j.State, ledDescribeAttempts(j), want)
	}
	return nil
}

func ledJobUnchanged(ctx context.Context) error {
	w := worldOf(ctx)
	before := w.ledState().before
	if before == nil {
		return fmt.Errorf("ledger steps: no job was read before the last request")
	}
	j, err := w.ledCheck(ctx)
	if err != nil {
		return err
	}
	got := fmt.Sprintf("%s v%d %s %s [%s]", j.State, j.Version, j.InputDigest, j.Input, ledDescribeAttempts(j))
	want := fmt.Sprintf("%s v%d %s %s [%s]", before.State, before.Version, before.InputDigest, before.Input, ledDescribeAttempts(*before))
	if got != want {
		return fmt.Errorf("job %s changed: now %s, before the last request %s", j.ID, got, want)
	}
	return nil
}

func ledJobAttempts(ctx context.Context, n int) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	if len(j.Attempts) != n {
		return fmt.Errorf("job %s has %d attempts (%s), want %d", j.ID, len(j.Attempts), ledDescribeAttempts(j), n)
	}
	return nil
}

func ledAttemptIs(ctx context.Context, n int, want string) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	a, err := ledAttemptN(j, n)
	if err != nil {
		return err
	}
	if string(a.State) != want {
		return fmt.Errorf("attempt %d (%s) is %s, want %s", n, a.ID, a.State, want)
	}
	return nil
}

func ledWinnerIs(ctx context.Context, n int) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	a, err := ledAttemptN(j, n)
	if err != nil {
		return err
	}
	applied := 0
	for _, x := range j.Attempts {
		if x.Applied {
			applied++
		}
	}
	if j.State != ledger.JobCompleted || j.WinningAttemptID != a.ID || !a.Applied || applied != 1 {
		return fmt.Errorf("job %s is %s with winner %q and %d applied attempts (%s), want completed with attempt %d (%s) the one winner",
			j.ID, j.State, j.WinningAttemptID, applied, ledDescribeAttempts(j), n, a.ID)
	}
	return nil
}

func ledNoWinner(ctx context.Context) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	for _, a := range j.Attempts {
		if a.Applied {
			return fmt.Errorf("attempt %d (%s) of job %s was applied", a.Number, a.ID, j.ID)
		}
	}
	if j.WinningAttemptID != "" {
		return fmt.Errorf("job %s has winner %s", j.ID, j.WinningAttemptID)
	}
	return nil
}

func ledReconciledAs(ctx context.Context, n int, want string) error {
	got, ok := worldOf(ctx).ledState().outcomes[n]
	if !ok {
		return fmt.Errorf("no callback for attempt %d was delivered in this scenario", n)
	}
	if got != want {
		return fmt.Errorf("attempt %d was reconciled as %s, want %s", n, got, want)
	}
	return nil
}

func ledKeepsOutput(ctx context.Context, n int, want string) error {
	j, err := worldOf(ctx).ledCheck(ctx)
	if err != nil {
		return err
	}
	a, err := ledAttemptN(j, n)
	if err != nil {
		return err
	}
	if a.Applied || a.CallbackStatus == "" || a.Output != want {
		return fmt.Errorf("attempt %d (%s): applied %v, callback %q, output %q; want output %q kept, not applied", n, a.ID, a.Applied, a.CallbackStatus, a.Output, want)
	}
	return nil
}

func ledOutputIs(ctx context.Context, want string) error {
	w := worldOf(ctx)
	r := w.ledState().last
	var out ledger.OutputView
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &out) != nil || out.AttemptID == "" {
		return fmt.Errorf("the last response is %d %s, not an output", r.Status, bytes.TrimSpace(r.Body))
	}
	w.ledEmit("output", trace.A("job", out.JobID), trace.A("attempt", out.AttemptID), trace.A("provider", out.Provider), trace.A("output", out.Output))
	if out.Output != want {
		return fmt.Errorf("the output is %q (attempt %s), want %q", out.Output, out.AttemptID, want)
	}
	return nil
}

func ledPageOffers(ctx context.Context, want string) error {
	st := worldOf(ctx).ledState()
	if st.page == nil {
		return fmt.Errorf("ledger steps: no patch page was loaded; open it first")
	}
	var got []string
	for _, c := range st.page {
		if c.Enabled {
			got = append(got, c.Name)
		}
	}
	var wantList []string
	for _, s := range strings.Split(want, ",") {
		if s = strings.TrimSpace(s); s != "" {
			wantList = append(wantList, s)
		}
	}
	if strings.Join(got, ", ") != strings.Join(wantList, ", ") {
		return fmt.Errorf("the patch page offers %q, want %q", strings.Join(got, ", "), strings.Join(wantList, ", "))
	}
	return nil
}

func ledNoRowDeleted(ctx context.Context) error {
	w := worldOf(ctx)
	st, err := w.ledSettled(ctx)
	if err != nil {
		return err
	}
	var missing []string
	jobIDs := slices.Sorted(maps.Keys(st.events))
	for _, jobID := range jobIDs {
		j, err := st.lab.Server().Ledger().Get(ctx, ledHarness, jobID)
		if err != nil {
			missing = append(missing, "job "+jobID)
			continue
		}
		have := map[string]bool{}
		for _, a := range j.Attempts {
			have[a.ID] = true
		}
		for id, of := range st.attempts {
			if of == jobID && !have[id] {
				missing = append(missing, "attempt "+id)
			}
		}
		evs, err := st.lab.Server().Ledger().Events(ctx, jobID)
		if err != nil {
			return err
		}
		if n := st.events[jobID]; len(evs) < n {
			missing = append(missing, fmt.Sprintf("%d events of job %s", n-len(evs), jobID))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("rows deleted: %s", strings.Join(missing, ", "))
	}
	var refused []string
	for _, table := range []string{"jobs", "attempts"} {
		if n, err := st.lab.Server().Ledger().Store().Exec(ctx, "DELETE FROM "+table); err == nil {
			return fmt.Errorf("the database deleted %d rows of %s; it must refuse every DELETE", n, table)
		}
		refused = append(refused, table)
	}
	w.ledEmit("rows", trace.A("jobs", len(jobIDs)), trace.A("attempts", len(st.attempts)), trace.A("delete_refused", refused))
	return nil
}
