// Package ledgerlab runs a sim with a real ledger store for one scenario
// or test — a SQLite file in a temp dir, or a fresh schema of a
// PostgreSQL database — on a lab clock of its own, and talks to it over
// HTTP as the sim's principals do: the job API with a bearer token, the
// patch page with a signed-in session (and Generate patch as its script
// sends it), providers' callbacks with no token at all.
//
// The step vocabulary's ledger steps drive it; a test can too. A Lab is
// closed with Close, which stops the sim and removes its database.
package ledgerlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

// Bounds of a lab's requests.
const (
	// RequestTimeout bounds one HTTP request.
	RequestTimeout = 10 * time.Second
	// SettleTimeout bounds the wait for the simulated providers.
	SettleTimeout = 10 * time.Second
	// BurstMax bounds the concurrent requests of one burst.
	BurstMax = 200
)

// Actors of requests that carry no bearer token: a provider (its
// callbacks are signed with the attempt's secret, LED-11) and a visitor
// with no credentials at all. Every other actor is a principal's name.
const (
	Provider = "provider"
	Visitor  = "visitor"
)

// Config says how a lab's sim starts.
type Config struct {
	// Store is "sqlite" (the default) or "postgres".
	Store string
	// PostgresURL is the server a "postgres" lab makes its schema in.
	PostgresURL string
	// Seed seeds the sim and its faults.
	Seed int64
	// Tune changes the sim's options before it starts.
	Tune []func(*sim.Options)
}

// Lab is one running sim with its store. Its methods are safe for
// concurrent use, except Restart and Close.
type Lab struct {
	srv     *sim.Server
	opts    sim.Options
	cleanup []func() error

	mu       sync.Mutex
	sessions map[string]*http.Cookie // actor → patch page session
}

// Response is what one request got.
type Response struct {
	Status     int
	Code       errcode.Code // the problem code of a refusal, "" on success
	RetryAfter string       // the Retry-After header, if any
	Body       []byte
	Job        string // the id of the job the body names, if any
}

// Start starts a lab: the providers' latencies, timeouts and late
// callbacks run on a lab clock of its own (CLK-1), which Settle moves.
func Start(ctx context.Context, cfg Config) (*Lab, error) {
	lab := clock.NewLab(clock.Epoch)
	l := &Lab{}
	opts := sim.Options{Seed: cfg.Seed, IDs: ledger.SequentialIDs(), Faults: sim.Faults{Seed: uint64(cfg.Seed)}, Clock: lab}
	switch cfg.Store {
	case "", "sqlite":
		dir, err := os.MkdirTemp("", "replaylab-ledger-lab-")
		if err != nil {
			return nil, fmt.Errorf("ledger lab: %w", err)
		}
		l.cleanup = append(l.cleanup, func() error { return os.RemoveAll(dir) })
		opts.DB = filepath.Join(dir, "ledger.db")
	case "postgres":
		dsn, drop, err := ledger.FreshSchema(ctx, cfg.PostgresURL, "replaylab_steps_")
		if err != nil {
			return nil, fmt.Errorf("ledger lab: %w", err)
		}
		l.cleanup = append(l.cleanup, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), RequestTimeout)
			defer cancel()
			return drop(ctx)
		})
		opts.DB = dsn
	default:
		return nil, fmt.Errorf("ledger lab: store %q: want sqlite or postgres", cfg.Store)
	}
	for _, f := range cfg.Tune {
		f(&opts)
	}
	l.opts = opts
	srv, err := sim.NewServer(opts)
	if err != nil {
		return nil, errors.Join(err, l.Close())
	}
	lab.AddGate(srv)
	l.srv = srv
	return l, nil
}

// Server is the lab's running sim.
func (l *Lab) Server() *sim.Server { return l.srv }

// URL is the sim's base URL.
func (l *Lab) URL() string { return l.srv.URL }

// Options are the options the sim was started with.
func (l *Lab) Options() sim.Options { return l.opts }

// Close stops the sim and removes its store, last made first.
func (l *Lab) Close() error {
	var errs []error
	if l.srv != nil {
		errs = append(errs, l.srv.Close())
		l.srv = nil
	}
	for i := len(l.cleanup) - 1; i >= 0; i-- {
		errs = append(errs, l.cleanup[i]())
	}
	l.cleanup = nil
	return errors.Join(errs...)
}

// Restart stops the sim and starts a new one on the same store, as after
// a crash: scripts are those given (the old ones lived in the process),
// sessions are dropped, and the new sim's recovery has run.
func (l *Lab) Restart(scripts map[string][]sim.Script) error {
	if err := l.srv.Close(); err != nil {
		return fmt.Errorf("ledger lab: stop the sim: %w", err)
	}
	l.srv = nil
	opts := l.opts
	opts.Scripts = scripts
	srv, err := sim.NewServer(opts)
	if err != nil {
		return fmt.Errorf("ledger lab: restart the sim: %w", err)
	}
	l.srv = srv
	l.mu.Lock()
	l.sessions = nil
	l.mu.Unlock()
	return nil
}

// Settle waits for the simulated providers, so what is read next does not
// depend on goroutine timing. SettleTimeout stretches by the scheduling
// delay measured meanwhile (clock.WithStretchTimeout).
func (l *Lab) Settle(ctx context.Context) error {
	ctx, cancel := clock.WithStretchTimeout(ctx, SettleTimeout)
	defer cancel()
	return l.srv.Providers().Settle(ctx)
}

// Token is the bearer token of the sim's principal name.
func Token(name string) (string, error) {
	var names []string
	for tok, p := range ledger.DefaultTokens() {
		if p.Name == name {
			return tok, nil
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return "", fmt.Errorf("ledger lab: no token for %q (known: %s)", name, strings.Join(names, ", "))
}

// pageCode is the problem code an error page of the sim carries.
var pageCode = regexp.MustCompile(`data-code="([A-Z_]+)"`)

// Request sends one request as actor: a principal's bearer token, and on
// /patch paths its signed-in session too (signed in once per lab).
func (l *Lab) Request(ctx context.Context, actor, method, path string, hdr map[string]string, body string) (Response, error) {
	var tok string
	if actor != Provider && actor != Visitor {
		var err error
		if tok, err = Token(actor); err != nil {
			return Response{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.srv.URL+path, rd)
	if err != nil {
		return Response{}, fmt.Errorf("ledger lab: %w", err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if strings.HasPrefix(path, "/patch") && tok != "" {
		c, err := l.Session(ctx, actor)
		if err != nil {
			return Response{}, err
		}
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, fmt.Errorf("ledger lab: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, ledger.BodyBytesMax))
	if err != nil {
		return Response{}, fmt.Errorf("ledger lab: %s %s: %w", method, path, err)
	}
	r := Response{Status: res.StatusCode, Body: b, RetryAfter: res.Header.Get("Retry-After")}
	if res.StatusCode >= 400 {
		var p ledger.Problem
		if err := json.Unmarshal(b, &p); err == nil {
			r.Code = p.Code
		} else if m := pageCode.FindSubmatch(b); m != nil {
			r.Code = errcode.Code(m[1])
		}
		return r, nil
	}
	var v struct {
		ID    string `json:"id"`
		JobID string `json:"jobId"`
	}
	if err := json.Unmarshal(b, &v); err == nil {
		r.Job = v.ID
		if v.JobID != "" {
			r.Job = v.JobID
		}
	}
	return r, nil
}

// Burst sends n copies of one request at once and returns the responses
// sorted by status, then job id.
func (l *Lab) Burst(ctx context.Context, n int, actor, method, path string, hdr map[string]string, body string) ([]Response, error) {
	if n < 1 || n > BurstMax {
		return nil, fmt.Errorf("ledger lab: %d concurrent requests: want 1..%d", n, BurstMax)
	}
	out := make([]Response, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			out[i], errs[i] = l.Request(ctx, actor, method, path, hdr, body)
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Response) int {
		if a.Status != b.Status {
			return a.Status - b.Status
		}
		return strings.Compare(a.Job, b.Job)
	})
	return out, nil
}

// BurstSummary is "200×19,201×1" and the distinct job ids, in order.
func BurstSummary(rs []Response) (string, []string) {
	count := map[int]int{}
	var statuses []int
	var jobs []string
	for _, r := range rs {
		if count[r.Status] == 0 {
			statuses = append(statuses, r.Status)
		}
		count[r.Status]++
		if r.Job != "" && !slices.Contains(jobs, r.Job) {
			jobs = append(jobs, r.Job)
		}
	}
	var parts []string
	for _, s := range statuses {
		parts = append(parts, fmt.Sprintf("%d×%d", s, count[s]))
	}
	return strings.Join(parts, ","), jobs
}

// Session signs actor in to the patch page (the sign-in form, LED-12),
// once per lab, and returns the session cookie.
func (l *Lab) Session(ctx context.Context, actor string) (*http.Cookie, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.sessions[actor]; ok {
		return c, nil
	}
	tok, err := Token(actor)
	if err != nil {
		return nil, err
	}
	c, err := sim.PatchSignIn(ctx, l.srv.URL, tok)
	if err != nil {
		return nil, fmt.Errorf("ledger lab: %s signs in to the patch page: %w", actor, err)
	}
	l.setSession(actor, c)
	return c, nil
}

// SetSession makes c actor's session (a sign-in made by hand).
func (l *Lab) SetSession(actor string, c *http.Cookie) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.setSession(actor, c)
}

func (l *Lab) setSession(actor string, c *http.Cookie) {
	if l.sessions == nil {
		l.sessions = map[string]*http.Cookie{}
	}
	l.sessions[actor] = c
}

// SessionOf is actor's session, nil when it has none.
func (l *Lab) SessionOf(actor string) *http.Cookie {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions[actor]
}

// DropSession forgets actor's session and returns it (nil when none).
func (l *Lab) DropSession(actor string) *http.Cookie {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.sessions[actor]
	delete(l.sessions, actor)
	return c
}

var (
	pageKey  = regexp.MustCompile(`data-key="([^"]+)"`)
	pageCSRF = regexp.MustCompile(`data-csrf="([^"]+)"`)
)

// GeneratePatch loads a new patch page as actor and sends, at once, the
// n POSTs that n clicks on its Generate patch send: the page's
// idempotency key, its CSRF token and a same-origin browser's headers.
func (l *Lab) GeneratePatch(ctx context.Context, actor string, n int) (key string, rs []Response, err error) {
	page, err := l.Request(ctx, actor, http.MethodGet, "/patch", nil, "")
	if err != nil {
		return "", nil, err
	}
	m := pageKey.FindSubmatch(page.Body)
	csrf := pageCSRF.FindSubmatch(page.Body)
	if page.Status != http.StatusOK || m == nil || csrf == nil {
		return "", nil, fmt.Errorf("ledger lab: the new patch page (%d) carries no idempotency key or CSRF token", page.Status)
	}
	key = string(m[1])
	hdr := map[string]string{"Idempotency-Key": key, sim.PatchCSRFHeader: string(csrf[1]), "Origin": l.srv.URL, "Sec-Fetch-Site": "same-origin"}
	rs, err = l.Burst(ctx, n, actor, http.MethodPost, "/patch/api/jobs", hdr, `{"task":"patch"}`)
	return key, rs, err
}

// SignsIn loads the patch page with cookie and reports whether it signs
// actor in.
func (l *Lab) SignsIn(ctx context.Context, actor string, c *http.Cookie) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.srv.URL+"/patch", nil)
	if err != nil {
		return false, fmt.Errorf("ledger lab: %w", err)
	}
	req.AddCookie(c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Errorf("ledger lab: GET /patch: %w", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, ledger.BodyBytesMax))
	if err != nil {
		return false, fmt.Errorf("ledger lab: GET /patch: %w", err)
	}
	return strings.Contains(string(b), "Signed in as "+actor+" "), nil
}

// Rebound sends GET path as a DNS-rebinding page would: to the sim's
// address, with host (and the sim's port) as the Host and the Origin.
func (l *Lab) Rebound(ctx context.Context, host, path string) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.srv.URL+path, nil)
	if err != nil {
		return Response{}, fmt.Errorf("ledger lab: %w", err)
	}
	req.Host = host + ":" + l.srv.URL[strings.LastIndexByte(l.srv.URL, ':')+1:]
	req.Header.Set("Origin", "http://"+req.Host)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, fmt.Errorf("ledger lab: GET %s as %s: %w", path, host, err)
	}
	defer res.Body.Close()
	r := Response{Status: res.StatusCode}
	var p ledger.Problem
	if b, err := io.ReadAll(io.LimitReader(res.Body, ledger.BodyBytesMax)); err == nil && json.Unmarshal(b, &p) == nil {
		r.Body, r.Code = b, p.Code
	}
	return r, nil
}
