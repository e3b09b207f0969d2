package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

// The principals of a schedule: two owners and a reviewer.
var (
	reviewer = ledger.Principal{Name: "rita", Role: ledger.RoleReviewer}
)

func owner(j int) ledger.Principal {
	return ledger.Principal{Name: jobOwner(j), Role: ledger.RoleOwner}
}

func jobInput(j int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"task":"patch","job":%d}`, j))
}

func otherInput(j int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"task":"patch","job":%d,"other":true}`, j))
}

// heldOutput is the output the simulated provider holds for an attempt
// (sim.Providers' default), so a duplicate callback repeats it exactly.
func heldOutput(provider, attemptID string) string {
	return fmt.Sprintf("patch from %s (%s)", provider, attemptID)
}

// failOutput is the output of every definite failure callback.
const failOutput = "provider said no"

// world is one schedule's run: a fresh database, the real ledger service
// over it, the sim's providers, and what the explorer knows it did.
type world struct {
	opt     Options
	dsn     string
	drop    func() error
	store   ledger.Store
	svc     *ledger.Service
	prov    *sim.Providers
	ids     ledger.IDGenerator
	queued  map[string]int // Hold scripts queued per provider
	jobs    [JobsMax + 1]*jobModel
	prev    [JobsMax + 1]*snapshot
	fallOff bool // the global fallback switch is off
}

// jobModel is what the explorer did to one logical job.
type jobModel struct {
	id       string
	created  int                   // creates answered created=true
	sent     int                   // creates sent
	attempts map[int]string        // number → attempt id
	provider map[string]string     // attempt id → provider
	calls    map[string]int        // attempt id → callbacks delivered
	fails    map[string]bool       // attempt id → a failure callback was delivered
	supers   map[string]bool       // attempt id → seen superseded
	outcomes map[string][]string   // attempt id → reconciliation outcomes returned
	applied  map[string]bool       // attempt id → a callback returned an applied outcome
	refusals map[errcode.Code]bool // codes seen (diagnostics)
}

func newJobModel() *jobModel {
	return &jobModel{attempts: map[int]string{}, provider: map[string]string{}, calls: map[string]int{},
		fails: map[string]bool{}, supers: map[string]bool{}, outcomes: map[string][]string{},
		applied: map[string]bool{}, refusals: map[errcode.Code]bool{}}
}

// openWorld makes a fresh database for one run: a SQLite file in its own
// temp dir, or a fresh schema of the PostgreSQL server.
func openWorld(ctx context.Context, opt Options) (*world, error) {
	w := &world{opt: opt, ids: ledger.SequentialIDs(), queued: map[string]int{}}
	switch opt.Store {
	case StorePostgres:
		dsn, drop, err := ledger.FreshSchema(ctx, opt.PGURL, "replaylab_explore_")
		if err != nil {
			return nil, fmt.Errorf("explore: %w", err)
		}
		w.dsn = dsn
		w.drop = func() error { return drop(context.WithoutCancel(ctx)) }
	default:
		dir, err := os.MkdirTemp(opt.Dir, "replaylab-explore-")
		if err != nil {
			return nil, fmt.Errorf("explore: temp dir: %w", err)
		}
		w.dsn = filepath.Join(dir, "ledger.db")
		w.drop = func() error { return os.RemoveAll(dir) }
	}
	w.prov = sim.NewProviders(sim.Faults{})
	if err := w.open(ctx); err != nil {
		return nil, errors.Join(err, w.drop())
	}
	return w, nil
}

func (w *world) open(ctx context.Context) error {
	st, err := ledger.Open(ctx, w.dsn)
	if err != nil {
		return fmt.Errorf("explore: open the %s store: %w", w.opt.Store, err)
	}
	opts := []ledger.Option{ledger.WithIDs(w.ids), ledger.WithDispatcher(w.prov)}
	if w.opt.Plant != "" {
		opts = append(opts, ledger.WithPlantedBug(w.opt.Plant))
	}
	w.store, w.svc = st, ledger.New(st, opts...)
	w.prov.Bind(w.svc)
	return nil
}

// close settles the providers, closes the store and removes the database.
func (w *world) close(ctx context.Context) error {
	errs := []error{w.settle(ctx)}
	if w.store != nil {
		errs = append(errs, w.store.Close())
	}
	return errors.Join(append(errs, w.drop())...)
}

func (w *world) settle(ctx context.Context) error {
	return w.prov.Settle(ctx)
}

// restart closes the store and opens the same database again (a process
// restart between steps); held provider results stay held.
func (w *world) restart(ctx context.Context) error {
	if err := w.settle(ctx); err != nil {
		return err
	}
	if err := w.store.Close(); err != nil {
		return fmt.Errorf("explore: close the store: %w", err)
	}
	w.store = nil
	return w.open(ctx)
}

// script keeps one Hold script queued for every provider, so every
// attempt is sent and then holds its success until a step delivers it.
func (w *world) script() error {
	used := map[string]int{}
	for _, d := range w.prov.Journal() {
		if d.Source == "script" {
			used[d.Provider]++
		}
	}
	for _, p := range sim.DefaultProviders {
		if w.queued[p]-used[p] < 1 {
			if err := w.prov.Script(p, sim.Script{Behaviour: sim.Hold}); err != nil {
				return err
			}
			w.queued[p]++
		}
	}
	return nil
}

// step runs one action and says what happened. A non-nil violation is an
// invariant the ledger broke while answering; err is a failure of the
// explorer's own machinery (the store would not open).
func (w *world) step(ctx context.Context, a Action) (string, *Violation, error) {
	if err := w.script(); err != nil {
		return "", nil, err
	}
	if a.Kind == KindRestart {
		if err := w.restart(ctx); err != nil {
			return "", nil, err
		}
		recs, err := w.svc.Recover(ctx, ledger.RecoverOptions{})
		if err != nil {
			return "", unexpected(a, err), nil
		}
		return "store closed and opened again" + w.recovered(recs), nil, nil
	}
	if a.Kind == KindCrash {
		return w.crash(ctx, a)
	}
	if a.Kind == KindRollback {
		if err := w.svc.SetFallbackEnabled(ctx, a.On); err != nil {
			return "", unexpected(a, err), nil
		}
		w.fallOff = !a.On
		return "ok", nil, nil
	}
	if a.Job < 1 || a.Job > JobsMax {
		return "skipped: no such job", nil, nil
	}
	m := w.jobs[a.Job]
	if a.Kind == KindCreate {
		return w.create(ctx, a)
	}
	if m == nil {
		return fmt.Sprintf("skipped: j%d not created", a.Job), nil, nil
	}
	switch a.Kind {
	case KindReuseKey:
		_, _, err := w.svc.Create(ctx, owner(a.Job), jobKey(a.Job), otherInput(a.Job), "")
		if !errors.Is(err, ledger.CodeIdempotencyKeyReused) {
			return codeOf(err), &Violation{Invariant: InvOneJob,
				Detail: fmt.Sprintf("the key of j%d with other input was answered %s, want %s", a.Job, codeOf(err), ledger.CodeIdempotencyKeyReused)}, nil
		}
		return string(ledger.CodeIdempotencyKeyReused), nil, nil
	case KindRetry, KindSupersede:
		caller, provider, reason := owner(a.Job), "", ""
		if a.Kind == KindSupersede {
			caller, provider, reason = reviewer, a.Provider, "explorer: stuck"
		}
		att, err := w.svc.AddAttempt(ctx, caller, m.id, provider, reason)
		if err != nil {
			switch ledger.ProblemCode(err) {
			case ledger.CodeReviewRequired, ledger.CodeInvalidTransition, ledger.CodeFallbackDisabled:
				m.refusals[ledger.ProblemCode(err)] = true
				return codeOf(err), nil, nil
			}
			return "", unexpected(a, err), nil
		}
		m.attempts[att.Number], m.provider[att.ID] = att.ID, att.Provider
		return fmt.Sprintf("attempt j%d#%d started on %s", a.Job, att.Number, att.Provider), nil, nil
	case KindCancel:
		j, err := w.svc.Cancel(ctx, owner(a.Job), m.id)
		if err != nil {
			if ledger.ProblemCode(err) == ledger.CodeInvalidTransition {
				return codeOf(err), nil, nil
			}
			return "", unexpected(a, err), nil
		}
		return "job " + string(j.State), nil, nil
	}
	id, ok := m.attempts[a.Attempt]
	if !ok {
		return fmt.Sprintf("skipped: j%d#%d does not exist", a.Job, a.Attempt), nil, nil
	}
	switch a.Kind {
	case KindTimeout:
		att, err := w.svc.Timeout(ctx, id)
		if err != nil {
			return "", unexpected(a, err), nil
		}
		return "attempt " + string(att.State), nil, nil
	case KindFail:
		m.calls[id]++
		m.fails[id] = true
		rec, err := w.svc.Callback(ctx, id, ledger.StatusFailed, failOutput)
		if err != nil {
			return "", &Violation{Invariant: InvReconciled, Detail: fmt.Sprintf("failure callback of j%d#%d not reconciled: %v", a.Job, a.Attempt, err)}, nil
		}
		w.record(m, id, rec.Outcome)
		return string(rec.Outcome), nil, nil
	case KindRelease:
		m.calls[id]++
		rec, err := w.prov.Release(ctx, id)
		if errors.Is(err, sim.ErrNotHeld) {
			m.calls[id]--
			return "nothing held (already delivered)", nil, nil
		}
		if err != nil {
			return "", &Violation{Invariant: InvReconciled, Detail: fmt.Sprintf("held success of j%d#%d not reconciled: %v", a.Job, a.Attempt, err)}, nil
		}
		w.record(m, id, rec.Outcome)
		return string(rec.Outcome), nil, nil
	case KindDuplicate:
		n := min(max(a.Copies, 1), CopiesMax)
		out := heldOutput(m.provider[id], id)
		recs := make([]ledger.Reconciliation, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { recs[i], errs[i] = w.svc.Callback(ctx, id, ledger.StatusSucceeded, out) })
		}
		wg.Wait()
		m.calls[id] += n
		var outs []string
		for i := range n {
			if errs[i] != nil {
				return "", &Violation{Invariant: InvReconciled, Detail: fmt.Sprintf("success callback %d of %d for j%d#%d not reconciled: %v", i+1, n, a.Job, a.Attempt, errs[i])}, nil
			}
			w.record(m, id, recs[i].Outcome)
			outs = append(outs, string(recs[i].Outcome))
		}
		return tally(outs), nil, nil
	}
	return "", nil, fmt.Errorf("explore: unknown step kind %q", a.Kind)
}

// crash commits a new attempt through a service that never tells the
// provider (the process dies right after the commit), then restarts and
// recovers: the attempt must be re-sent once or made unknown, explained.
func (w *world) crash(ctx context.Context, a Action) (string, *Violation, error) {
	if a.Job < 1 || a.Job > JobsMax {
		return "skipped: no such job", nil, nil
	}
	dead := ledger.New(w.store, ledger.WithIDs(w.ids)) // no dispatcher: nothing is sent
	what := ""
	if m := w.jobs[a.Job]; m == nil {
		out, v, err := w.createOn(ctx, dead, Action{Kind: KindCreate, Job: a.Job, Copies: 1})
		if v != nil || err != nil {
			return out, v, err
		}
		what = "committed j" + fmt.Sprint(a.Job) + ", died before sending"
	} else {
		att, err := dead.AddAttempt(ctx, reviewer, m.id, a.Provider, "explorer: stuck")
		switch ledger.ProblemCode(err) {
		case "":
			m.attempts[att.Number], m.provider[att.ID] = att.ID, att.Provider
			what = fmt.Sprintf("committed j%d#%d on %s, died before sending", a.Job, att.Number, att.Provider)
		case ledger.CodeReviewRequired, ledger.CodeInvalidTransition, ledger.CodeFallbackDisabled:
			what = codeOf(err) + ", then died"
		default:
			return "", unexpected(a, err), nil
		}
	}
	if err := w.restart(ctx); err != nil {
		return "", nil, err
	}
	recs, err := w.svc.Recover(ctx, ledger.RecoverOptions{})
	if err != nil {
		return "", unexpected(a, err), nil
	}
	return what + "; restarted" + w.recovered(recs), nil, nil
}

// recovered says what a recovery did, with logical names.
func (w *world) recovered(recs []ledger.Recovery) string {
	var out []string
	for _, r := range recs {
		name := r.AttemptID
		for j := 1; j <= JobsMax; j++ {
			if m := w.jobs[j]; m != nil {
				for n, id := range m.attempts {
					if id == r.AttemptID {
						name = fmt.Sprintf("j%d#%d", j, n)
					}
				}
			}
		}
		out = append(out, name+" "+r.Action)
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	return "; recovered: " + strings.Join(out, ", ")
}

func (w *world) record(m *jobModel, id string, o ledger.Outcome) {
	m.outcomes[id] = append(m.outcomes[id], string(o))
	if o == ledger.OutcomeApplied || o == ledger.OutcomeLateAfterTimeoutApplied {
		m.applied[id] = true
	}
}

// create sends Copies identical creates at once (a double click, retries
// in flight) and checks they name one job.
func (w *world) create(ctx context.Context, a Action) (string, *Violation, error) {
	return w.createOn(ctx, w.svc, a)
}

func (w *world) createOn(ctx context.Context, svc *ledger.Service, a Action) (string, *Violation, error) {
	n := min(max(a.Copies, 1), CopiesMax)
	jobs := make([]ledger.Job, n)
	created := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			jobs[i], created[i], errs[i] = svc.Create(ctx, owner(a.Job), jobKey(a.Job), jobInput(a.Job), "")
		})
	}
	wg.Wait()
	m := w.jobs[a.Job]
	if m == nil {
		m = newJobModel()
		w.jobs[a.Job] = m
	}
	m.sent += n
	nNew := 0
	for i := range n {
		if errs[i] != nil {
			return "", unexpected(a, errs[i]), nil
		}
		if m.id == "" {
			m.id = jobs[i].ID
		}
		if jobs[i].ID != m.id {
			return "", &Violation{Invariant: InvOneJob, Detail: fmt.Sprintf("creates of j%d (%s, key %s) answered two jobs", a.Job, jobOwner(a.Job), jobKey(a.Job))}, nil
		}
		if created[i] {
			nNew++
			m.created++
			if att := jobs[i].Attempts; len(att) > 0 {
				m.attempts[1], m.provider[att[0].ID] = att[0].ID, att[0].Provider
			}
		}
	}
	if m.created > 1 {
		return "", &Violation{Invariant: InvOneJob, Detail: fmt.Sprintf("%d creates of j%d (%s, key %s) answered created", m.created, a.Job, jobOwner(a.Job), jobKey(a.Job))}, nil
	}
	if m.created == 0 {
		return "", &Violation{Invariant: InvOneJob, Detail: fmt.Sprintf("no create of j%d answered created", a.Job)}, nil
	}
	return fmt.Sprintf("created %d, same job %d", nNew, n-nNew), nil, nil
}

func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	return string(ledger.ProblemCode(err))
}

func unexpected(a Action, err error) *Violation {
	return &Violation{Invariant: InvAnswered, Detail: fmt.Sprintf("%s failed: %v", a, err)}
}

// tally is "applied×1 duplicate×2": sorted counts, the same whatever order
// concurrent calls finished in.
func tally(outs []string) string {
	n := map[string]int{}
	for _, o := range outs {
		n[o]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []string
	for _, k := range keys {
		b = append(b, fmt.Sprintf("%s×%d", k, n[k]))
	}
	return strings.Join(b, " ")
}
