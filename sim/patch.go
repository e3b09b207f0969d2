package sim

// The job API and the patch page: the sim's side of SPEC §6 and §9.
//
// Unless Options.API replaces it, every server opens a real ledger
// (engine/ledger) over Options.DB — by default a new SQLite file in a temp
// dir, removed on Close — serves its job API under /api/ with the bearer
// tokens of Options.Tokens (default ledger.DefaultTokens: alice-token,
// bob-token, rita-token), and dispatches every attempt to the simulated
// providers (Providers; scripted per scenario, else the seeded Faults).
//
// GET /patch[?job=ID] is the patch page for the signed-in principal
// (LED-12). Pages never list or carry tokens: a visitor with no session
// gets a sign-in form where the token is typed in; POST /patch/session
// checks it and sets the session cookie (HttpOnly, SameSite=Strict,
// Path=/patch), whose value is a random session id; the token stays on the
// server. The page's controls call the job API through /patch/api/…, with
// the session cookie and the page's CSRF token; every state-changing page
// request (the sign-in POST included) is refused 403 CROSS_SITE_REFUSED
// when Sec-Fetch-Site says cross-site or same-site, when Origin is not the
// sim's own, or (once signed in) when the X-CSRF-Token header does not
// match the session's. A token in the query string (?token=, the old
// scheme) signs nobody in.
//
// Without job the page offers "Generate patch" with one idempotency key
// rendered into the page per page load ("patch-0001", "patch-0002", … in
// load order), taken from the ledger's store (ledger.Service.NewKey), so a
// restart on the same store never repeats one (LED-15); a click POSTs /patch/api/jobs with that key and then
// replaces the location with /patch?job=ID, so a double click sends the
// same key twice and lands on the one job. With job, every control is
// derived on this load from the ledger's state for this caller (LED-6):
// Retry, Try another provider, Cancel, Output are enabled exactly when the
// job's controls say so, and Generate patch is disabled (the intention
// exists). A job of another owner is a 404 page (LED-7); an error page
// carries the ledger's problem code in data-code.

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/replaylab/replaylab/ledger"
)

// PatchKeyPrefix starts every idempotency key the patch page generates.
const PatchKeyPrefix = "patch"

// LedgerOpenTimeout bounds opening (and migrating) the ledger's database.
const LedgerOpenTimeout = 30 * time.Second

// lab is the ledger behind a server's /api/ and /patch.
type lab struct {
	store     ledger.Store
	svc       *ledger.Service
	providers *Providers
	tokens    map[string]ledger.Principal
	api       http.Handler
	tmpDir    string
	sessions  sessions // patch page sign-ins (patch_session.go)
	// recoveries is what the start-up recovery did (LED-13).
	recoveries []ledger.Recovery
	sweep      ledger.SweepOptions // Options.Sweep, or the defaults
	stopSweep  context.CancelFunc  // nil without a background sweeper
	swept      chan struct{}       // closed when the background sweeper ends
	sweptMu    sync.Mutex
	sweptRecs  []ledger.Recovery // what background sweeps did, at most SweptMax
}

// SweptMax bounds the background sweeps' recoveries a server keeps.
const SweptMax = 4096

func openLab(opts Options) (*lab, error) {
	l := &lab{tokens: opts.Tokens}
	l.sessions.limits = opts.SignIn.withDefaults()
	l.sessions.clock = opts.SignInClock
	if l.tokens == nil {
		l.tokens = ledger.DefaultTokens()
	}
	dsn, ids := opts.DB, opts.IDs
	if dsn == "" {
		dir, err := os.MkdirTemp("", "replaylab-sim-ledger-")
		if err != nil {
			return nil, fmt.Errorf("sim: ledger temp dir: %w", err)
		}
		l.tmpDir = dir
		dsn = filepath.Join(dir, "ledger.db")
		if ids == nil {
			ids = ledger.SequentialIDs()
		}
	}
	if ids == nil {
		ids = ledger.RandomIDs
	}
	ctx, cancel := context.WithTimeout(context.Background(), LedgerOpenTimeout)
	defer cancel()
	store, err := ledger.Open(ctx, dsn)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sim: open ledger: %w", err), l.close())
	}
	l.store = store
	l.providers = NewProviders(opts.Faults)
	l.providers.SetClock(opts.Clock) // latencies, timeouts and late callbacks on the sim's clock
	for _, name := range slices.Sorted(maps.Keys(opts.Scripts)) {
		if err := l.providers.Script(name, opts.Scripts[name]...); err != nil {
			return nil, errors.Join(err, l.close())
		}
	}
	limits := ledger.DefaultLimits
	if opts.StoreWaitMax > 0 {
		limits.StoreWaitMax = opts.StoreWaitMax
	}
	l.svc = ledger.New(store, ledger.WithIDs(ids), ledger.WithDispatcher(l.providers), ledger.WithLimits(limits))
	l.providers.Bind(l.svc)
	l.api = ledger.NewHandler(l.svc, l.tokens)
	if opts.Sweep != nil {
		l.sweep = *opts.Sweep
	}
	// LED-13, LED-14: attempts in flight that nobody waits on after a
	// crash are resolved before the server serves.
	start := l.sweep.Recover
	start.MinAge = 0
	if l.recoveries, err = l.svc.Recover(ctx, start); err != nil {
		return nil, errors.Join(fmt.Errorf("sim: recover the ledger: %w", err), l.close())
	}
	if opts.Sweep != nil {
		sctx, cancel := context.WithCancel(context.Background())
		l.stopSweep, l.swept = cancel, make(chan struct{})
		go func() {
			defer close(l.swept)
			l.svc.RunSweeper(sctx, l.sweep, func(recs []ledger.Recovery, _ error) {
				l.sweptMu.Lock()
				defer l.sweptMu.Unlock()
				l.sweptRecs = append(l.sweptRecs, recs...)
				if n := len(l.sweptRecs) - SweptMax; n > 0 {
					l.sweptRecs = slices.Delete(l.sweptRecs, 0, n)
				}
			})
		}()
	}
	return l, nil
}

// close stops the providers, closes the store and removes the temp
// database. A nil lab closes nothing.
func (l *lab) close() error {
	if l == nil {
		return nil
	}
	var errs []error
	if l.stopSweep != nil {
		l.stopSweep()
		<-l.swept
		l.stopSweep = nil
	}
	if l.providers != nil {
		l.providers.close()
	}
	if l.store != nil {
		if err := l.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sim: close ledger: %w", err))
		}
		l.store = nil
	}
	if l.tmpDir != "" {
		if err := os.RemoveAll(l.tmpDir); err != nil {
			errs = append(errs, fmt.Errorf("sim: remove ledger temp dir: %w", err))
		}
		l.tmpDir = ""
	}
	return errors.Join(errs...)
}

// ErrNoLedger is returned by ledger methods of a server started with
// Options.API, which has no ledger of its own.
var ErrNoLedger = errors.New("sim: this server has no ledger (Options.API was set)")

// Ledger returns the ledger service behind /api/, nil when Options.API
// replaced it.
func (s *Server) Ledger() *ledger.Service {
	if s.lab == nil {
		return nil
	}
	return s.lab.svc
}

// Recoveries lists what the ledger's start-up recovery did (LED-13):
// attempts in flight that nobody waited on, re-sent, reconciled or made unknown (LED-14).
func (s *Server) Recoveries() []ledger.Recovery {
	if s.lab == nil {
		return nil
	}
	return slices.Clone(s.lab.recoveries)
}

// Sweep runs one sweep of the ledger now (LED-14) with the server's
// Options.Sweep (MinAge aside: every attempt is looked at) and returns
// what it did; held is false when another process holds the sweeper's
// lease.
func (s *Server) Sweep(ctx context.Context) (recs []ledger.Recovery, held bool, err error) {
	if s.lab == nil {
		return nil, false, ErrNoLedger
	}
	o := s.lab.sweep
	o.Recover.MinAge = -1
	return s.lab.svc.Sweep(ctx, o)
}

// Swept lists what the background sweeper did, oldest first (at most
// SweptMax).
func (s *Server) Swept() []ledger.Recovery {
	if s.lab == nil {
		return nil
	}
	s.lab.sweptMu.Lock()
	defer s.lab.sweptMu.Unlock()
	return slices.Clone(s.lab.sweptRecs)
}

// Providers returns the simulated providers, nil when Options.API was set.
func (s *Server) Providers() *Providers {
	if s.lab == nil {
		return nil
	}
	return s.lab.providers
}

// DeliverCallback delivers a provider callback for the attempt now, as a
// late or repeated callback would arrive, signed with the attempt's own
// secret (ledger.Service.SignCallback), and returns how the ledger
// reconciled it.
func (s *Server) DeliverCallback(ctx context.Context, attemptID, status, output string) (ledger.Reconciliation, error) {
	if s.lab == nil {
		return ledger.Reconciliation{}, ErrNoLedger
	}
	body, sig, err := s.lab.svc.SignCallback(ctx, attemptID, status, output)
	if err != nil {
		return ledger.Reconciliation{}, err
	}
	return s.lab.svc.VerifiedCallback(ctx, sig, body)
}

func init() {
	register(Page{Path: "/patch", What: "patch page backed by the real ledger: sign in with a bearer token (the demo tokens are in the README), then Generate patch (double-clickable), Retry, Try another provider, Cancel, Output",
		Handler: func(s *Server) http.HandlerFunc { return s.patchPage }})
}

// PatchControl is one control of the patch page.
type PatchControl struct {
	ID      string
	Name    string
	Enabled bool
}

// patchView is what the patch page template renders.
type patchView struct {
	Who      ledger.Principal
	CSRF     string // the session's CSRF token, sent back in X-CSRF-Token
	Key      string
	Job      *ledger.Job
	Fallback string // the provider "Try another provider" asks for
	Controls []PatchControl
	Notice   string
	Reviewer bool
}

// patchControls derives the page's controls from the ledger's state for
// the caller (LED-6); job nil is a page with no intention yet.
func patchControls(job *ledger.Job) []PatchControl {
	var c ledger.Controls
	if job != nil {
		c = job.Controls
	}
	return []PatchControl{
		{ID: "generate", Name: "Generate patch", Enabled: job == nil},
		{ID: "retry", Name: "Retry", Enabled: c.Retry},
		{ID: "fallback", Name: "Try another provider", Enabled: c.Fallback},
		{ID: "cancel", Name: "Cancel", Enabled: c.Cancel},
		{ID: "output", Name: "Output", Enabled: c.Output},
	}
}

// fallbackFor names the provider "Try another provider" asks for: the first
// known provider the job has not tried, else the first that is not the
// last attempt's.
func fallbackFor(names []string, job *ledger.Job) string {
	if job == nil || len(job.Attempts) == 0 {
		return ""
	}
	tried := map[string]bool{}
	for _, a := range job.Attempts {
		tried[a.Provider] = true
	}
	last := job.Attempts[len(job.Attempts)-1].Provider
	for _, n := range names {
		if !tried[n] {
			return n
		}
	}
	for _, n := range names {
		if n != last {
			return n
		}
	}
	return last
}

func (s *Server) patchPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if s.lab == nil {
		http.Error(w, ErrNoLedger.Error(), http.StatusNotFound)
		return
	}
	sess, ok := s.lab.sessions.get(r)
	if !ok {
		notice := ""
		if r.URL.Query().Has("token") {
			notice = "Tokens are not accepted in the address; type yours into the form."
		}
		writeSignIn(w, http.StatusOK, notice, "")
		return
	}
	who := sess.who
	v := patchView{Who: who, CSRF: sess.csrf, Reviewer: who.IsReviewer()}
	if id := r.URL.Query().Get("job"); id != "" {
		job, err := s.lab.svc.Get(r.Context(), who, id)
		if err != nil {
			p := ledger.LogProblem(w, r, nil, err)
			w.WriteHeader(p.Status)
			_ = patchErrorTmpl.Execute(w, map[string]string{"Title": p.Title, "Code": string(p.Code), "Detail": p.Detail})
			return
		}
		v.Job = &job
		v.Fallback = fallbackFor(s.lab.providers.Names(), &job)
		if job.Controls.ReviewRequired {
			v.Notice = "Review required: an attempt is starting or its outcome is unknown; only a reviewer can supersede it."
		}
	} else {
		key, err := s.lab.svc.NewKey(r.Context(), PatchKeyPrefix)
		if err != nil {
			p := ledger.LogProblem(w, r, nil, err)
			w.WriteHeader(p.Status)
			_ = patchErrorTmpl.Execute(w, map[string]string{"Title": p.Title, "Code": string(p.Code), "Detail": p.Detail})
			return
		}
		v.Key = key
	}
	v.Controls = patchControls(v.Job)
	_ = patchTmpl.Execute(w, v)
}

var patchErrorTmpl = template.Must(template.New("patch-error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patch: {{.Title}}</title></head>
<body><main><h1>{{.Title}}</h1><p role="alert" data-code="{{.Code}}">{{.Code}}: {{.Detail}}</p></main></body></html>
`))

var patchTmpl = template.Must(template.New("patch").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patch</title>
<style>body{font-family:sans-serif;margin:8px} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:2px 6px}</style>
</head>
<body data-csrf="{{.CSRF}}" data-key="{{.Key}}"{{with .Job}} data-job="{{.ID}}"{{end}} data-fallback="{{.Fallback}}">
<main>
<h1>Patch</h1>
<p id="who">Signed in as {{.Who.Name}} ({{.Who.Role}})</p>
<p><a id="sign-out" href="/patch/session/end">Sign out</a></p>
{{with .Job}}<h2 id="state">Job {{.ID}} is {{.State}}</h2>
<table aria-label="Attempts">
<tr><th>Attempt</th><th>Provider</th><th>State</th><th>Callback</th><th>Applied</th></tr>
{{range .Attempts}}<tr><td>{{.Number}}</td><td>{{.Provider}}</td><td>{{.State}}</td><td>{{.CallbackStatus}}</td><td>{{if .Applied}}yes{{else}}no{{end}}</td></tr>
{{end}}</table>
{{else}}<h2 id="state">No patch yet</h2>
{{end}}{{with .Notice}}<p role="status" id="notice">{{.}}</p>
{{end}}<div role="group" aria-label="Controls">
{{range .Controls}}<button type="button" id="{{.ID}}"{{if not .Enabled}} disabled{{end}}>{{.Name}}</button>
{{end}}{{if and .Reviewer .Job}}<label>Supersede reason <input id="reason" type="text"></label>
{{end}}</div>
<p role="alert" id="error"></p>
<pre id="result"></pre>
</main>
<script>
(function(){
  const d = document.body.dataset;
  const auth = {'X-CSRF-Token': d.csrf, 'Content-Type': 'application/json'};
  const here = function(job){ return '/patch?job=' + encodeURIComponent(job); };
  async function call(method, path, body, extra){
    const res = await fetch('/patch' + path, {method: method, credentials: 'same-origin', headers: Object.assign({}, auth, extra || {}), body: body === undefined ? undefined : JSON.stringify(body)});
    const data = await res.json();
    if (!res.ok) { document.getElementById('error').textContent = data.code + ': ' + data.detail; return null; }
    return data;
  }
  function on(id, fn){ const b = document.getElementById(id); if (b && !b.disabled) b.addEventListener('click', fn); }
  on('generate', async function(){
    const job = await call('POST', '/api/jobs', {task: 'patch'}, {'Idempotency-Key': d.key});
    if (job) location.replace(here(job.id));
  });
  async function attempt(provider){
    const body = {};
    if (provider) body.provider = provider;
    const r = document.getElementById('reason');
    if (r && r.value.trim()) body.supersedeReason = r.value.trim();
    if (await call('POST', '/api/jobs/' + d.job + '/attempts', body)) location.replace(here(d.job));
  }
  on('retry', function(){ attempt(''); });
  on('fallback', function(){ attempt(d.fallback); });
  on('cancel', async function(){ if (await call('POST', '/api/jobs/' + d.job + '/cancel')) location.replace(here(d.job)); });
  on('output', async function(){
    const out = await call('GET', '/api/jobs/' + d.job + '/output');
    if (out) document.getElementById('result').textContent = out.output;
  });
})();
</script>
</body></html>
`))
