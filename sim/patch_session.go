package sim

// Patch page sign-in (LED-12): a form where the token is typed in, a
// session cookie that carries only a random session id, and refusal of
// cross-site state changes. See the doc at the top of patch.go.

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
)

// Patch page session settings.
const (
	// PatchSessionCookie names the patch page's session cookie.
	PatchSessionCookie = "replaylab_patch_session"
	// PatchCSRFHeader carries the page's CSRF token on its API calls.
	PatchCSRFHeader = "X-CSRF-Token"
	// SessionsMax bounds the sessions kept. When it is reached a new
	// sign-in is refused (429 SESSIONS_FULL) after expired sessions are
	// dropped: one user's sign-ins never end another's (LED-17).
	SessionsMax = 1024
	// SessionsPerUserMax bounds one user's sessions; that user's oldest is
	// ended first.
	SessionsPerUserMax = 16
	// signInBytesMax bounds the sign-in form body.
	signInBytesMax = 4096
	// limiterKeysMax bounds the clients and names the sign-in limiter
	// remembers.
	limiterKeysMax = 4096
)

// SignInLimits bound the patch page's sign-in (LED-17). Zero fields take
// DefaultSignInLimits.
type SignInLimits struct {
	// FreeFailures is how many wrong sign-ins a client (the connection's
	// address) or a name may make before it must wait.
	FreeFailures int
	// Backoff is the wait after the first failure beyond FreeFailures; it
	// doubles with each further failure, up to BackoffMax. A sign-in in
	// the wait is answered 429 with Retry-After, whatever its token.
	Backoff    time.Duration
	BackoffMax time.Duration
	// NameBurst and NameEvery bound one name's successful sign-ins: a
	// bucket of NameBurst, refilled one per NameEvery.
	NameBurst int
	NameEvery time.Duration
	// SessionIdle ends a session not used for this long; SessionMax ends
	// any session this long after its sign-in.
	SessionIdle time.Duration
	SessionMax  time.Duration
}

// DefaultSignInLimits are the sign-in limits for zero fields.
var DefaultSignInLimits = SignInLimits{
	FreeFailures: 5,
	Backoff:      time.Second,
	BackoffMax:   5 * time.Minute,
	NameBurst:    10,
	NameEvery:    6 * time.Second,
	SessionIdle:  30 * time.Minute,
	SessionMax:   12 * time.Hour,
}

func (l SignInLimits) withDefaults() SignInLimits {
	d := DefaultSignInLimits
	if l.FreeFailures <= 0 {
		l.FreeFailures = d.FreeFailures
	}
	if l.Backoff <= 0 {
		l.Backoff = d.Backoff
	}
	if l.BackoffMax <= 0 {
		l.BackoffMax = d.BackoffMax
	}
	if l.NameBurst <= 0 {
		l.NameBurst = d.NameBurst
	}
	if l.NameEvery <= 0 {
		l.NameEvery = d.NameEvery
	}
	if l.SessionIdle <= 0 {
		l.SessionIdle = d.SessionIdle
	}
	if l.SessionMax <= 0 {
		l.SessionMax = d.SessionMax
	}
	return l
}

// Codes of the patch page's sign-in (errcode values).
const (
	CodeCrossSite       = errcode.CrossSiteRefused
	CodeSignInLimited   = errcode.SignInRateLimited
	CodeSessionsFull    = errcode.SessionsFull
	CodeSessionRequired = errcode.SessionRequired
)

type session struct {
	id      string
	who     ledger.Principal
	token   string // stays on the server: the page's API calls use it
	csrf    string
	created time.Time
	used    time.Time
}

// sessions is the patch page's sign-ins, bounded by SessionsMax overall
// and SessionsPerUserMax per user, and its sign-in limiter.
type sessions struct {
	mu     sync.Mutex
	limits SignInLimits
	clock  clock.Clock // nil: clock.Wall
	byID   map[string]*session
	byUser map[string][]string // user → session ids, oldest first
	// failures per client address and per name; buckets per name
	failures map[string]*failure
	buckets  map[string]*bucket
}

type failure struct {
	n     int
	until time.Time // no sign-in before
	last  time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func (ss *sessions) now() time.Time {
	if ss.clock == nil {
		return time.Now()
	}
	return ss.clock.Now()
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (ss *sessions) initLocked() {
	if ss.byID == nil {
		ss.byID, ss.byUser = map[string]*session{}, map[string][]string{}
		ss.failures, ss.buckets = map[string]*failure{}, map[string]*bucket{}
		ss.limits = ss.limits.withDefaults()
	}
}

func (ss *sessions) expiredLocked(s *session, now time.Time) bool {
	return now.Sub(s.used) > ss.limits.SessionIdle || now.Sub(s.created) > ss.limits.SessionMax
}

func (ss *sessions) dropLocked(id string) {
	s, ok := ss.byID[id]
	if !ok {
		return
	}
	delete(ss.byID, id)
	ids := ss.byUser[s.who.Name]
	for i, x := range ids {
		if x == id {
			ids = append(ids[:i:i], ids[i+1:]...)
			break
		}
	}
	if len(ids) == 0 {
		delete(ss.byUser, s.who.Name)
	} else {
		ss.byUser[s.who.Name] = ids
	}
}

// add starts a session for who; ok is false when SessionsMax sessions
// that have not expired are open.
func (ss *sessions) add(who ledger.Principal, token string, now time.Time) (*session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	for len(ss.byUser[who.Name]) >= SessionsPerUserMax {
		ss.dropLocked(ss.byUser[who.Name][0]) // this user's oldest
	}
	if len(ss.byID) >= SessionsMax {
		for id, s := range ss.byID {
			if ss.expiredLocked(s, now) {
				ss.dropLocked(id)
			}
		}
		if len(ss.byID) >= SessionsMax {
			return nil, false
		}
	}
	s := &session{id: randomToken(), who: who, token: token, csrf: randomToken(), created: now, used: now}
	ss.byID[s.id] = s
	ss.byUser[who.Name] = append(ss.byUser[who.Name], s.id)
	return s, true
}

// get returns the live session the request's cookie names, and marks it
// used; an expired one is ended.
func (ss *sessions) get(r *http.Request) (*session, bool) {
	c, err := r.Cookie(PatchSessionCookie)
	if err != nil {
		return nil, false
	}
	now := ss.now()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	s, ok := ss.byID[c.Value]
	if !ok {
		return nil, false
	}
	if ss.expiredLocked(s, now) {
		ss.dropLocked(s.id)
		return nil, false
	}
	s.used = now
	return s, true
}

// end ends the request's session (sign-out); false when there was none.
func (ss *sessions) end(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	_, ok := ss.byID[id]
	ss.dropLocked(id)
	return ok
}

// wait says how long the keys must wait before another sign-in; 0 when
// they need not.
func (ss *sessions) wait(now time.Time, keys ...string) time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	var w time.Duration
	for _, k := range keys {
		if f := ss.failures[k]; f != nil && f.until.After(now) {
			w = max(w, f.until.Sub(now))
		}
	}
	return w
}

// failed counts a wrong sign-in against each key and returns the wait it
// now imposes.
func (ss *sessions) failed(now time.Time, keys ...string) time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	ss.pruneLocked(now)
	var w time.Duration
	for _, k := range keys {
		f := ss.failures[k]
		if f == nil {
			f = &failure{}
			ss.failures[k] = f
		}
		f.n++
		f.last = now
		if over := f.n - ss.limits.FreeFailures; over > 0 {
			d := ss.limits.Backoff << min(over-1, 30)
			if d <= 0 || d > ss.limits.BackoffMax {
				d = ss.limits.BackoffMax
			}
			f.until = now.Add(d)
			w = max(w, d)
		}
	}
	return w
}

// succeeded clears the client's failures and takes one sign-in from the
// name's bucket; the wait is how long until the bucket has one, 0 when it
// had one.
func (ss *sessions) succeeded(now time.Time, client, name string) time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.initLocked()
	ss.pruneLocked(now)
	b := ss.buckets[name]
	if b == nil {
		b = &bucket{tokens: float64(ss.limits.NameBurst), at: now}
		ss.buckets[name] = b
	}
	b.tokens = min(float64(ss.limits.NameBurst), b.tokens+float64(now.Sub(b.at))/float64(ss.limits.NameEvery))
	b.at = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) * float64(ss.limits.NameEvery))
	}
	b.tokens--
	delete(ss.failures, client)
	return 0
}

// pruneLocked forgets limiter entries that no longer matter once the
// limiter holds limiterKeysMax of them.
func (ss *sessions) pruneLocked(now time.Time) {
	if len(ss.failures)+len(ss.buckets) < limiterKeysMax {
		return
	}
	for k, f := range ss.failures {
		if f.until.Before(now) && now.Sub(f.last) > ss.limits.BackoffMax {
			delete(ss.failures, k)
		}
	}
	for k, b := range ss.buckets {
		if now.Sub(b.at) > time.Duration(ss.limits.NameBurst)*ss.limits.NameEvery {
			delete(ss.buckets, k)
		}
	}
	for len(ss.failures)+len(ss.buckets) >= limiterKeysMax && len(ss.buckets) > 0 {
		for k := range ss.buckets {
			delete(ss.buckets, k)
			break
		}
	}
}

// crossSite says why a state-changing request is not from the sim's own
// pages, or "" when it is: Fetch Metadata first (browsers send
// Sec-Fetch-Site), then Origin against the request's host.
func crossSite(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return "Sec-Fetch-Site is " + site
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return "Origin " + o + " is not this site"
	}
	return ""
}

func refuseCrossSite(w http.ResponseWriter, why string) {
	problem(w, http.StatusForbidden, CodeCrossSite, "cross-site request refused: "+why)
}

// clientOf names the client of a request for the sign-in limiter: the
// connection's address (forwarding headers are not trusted).
func clientOf(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		h = r.RemoteAddr
	}
	return "client:" + h
}

// patchSignIn is POST /patch/session: the typed-in token becomes a
// session cookie, and the browser goes back to /patch. Wrong tokens are
// counted per client and per name given (the form's optional name field);
// past SignInLimits.FreeFailures every sign-in of that client or name
// waits, 429 SIGN_IN_RATE_LIMITED with Retry-After, the wait doubling
// with each further failure. One name's successful sign-ins are bounded
// too (NameBurst, NameEvery).
func (s *Server) patchSignIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if why := crossSite(r); why != "" {
		refuseCrossSite(w, why)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, signInBytesMax)
	if err := r.ParseForm(); err != nil {
		problem(w, http.StatusBadRequest, CodeBadRequest, "sim: the sign-in form could not be read")
		return
	}
	now := s.lab.sessions.now()
	client := clientOf(r)
	keys := []string{client}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	if name != "" {
		if ledger.CheckText("name", name) != nil || len(name) > 100 {
			problem(w, http.StatusBadRequest, CodeBadRequest, "sim: the name must be UTF-8 text of at most 100 bytes")
			return
		}
		keys = append(keys, "name:"+name)
	}
	if d := s.lab.sessions.wait(now, keys...); d > 0 {
		signInLimited(w, d)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	who, ok := s.lab.principal(tok)
	if !ok || (name != "" && name != who.Name) {
		if d := s.lab.sessions.failed(now, keys...); d > 0 {
			signInLimited(w, d)
			return
		}
		writeSignIn(w, http.StatusUnauthorized, "That token is not known.", "")
		return
	}
	if d := s.lab.sessions.succeeded(now, client, "name:"+who.Name); d > 0 {
		signInLimited(w, d)
		return
	}
	sess, ok := s.lab.sessions.add(who, tok, now)
	if !ok {
		w.Header().Set("Retry-After", "60")
		writeSignIn(w, http.StatusTooManyRequests, "Too many people are signed in; try again later.", CodeSessionsFull)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: PatchSessionCookie, Value: sess.id, Path: "/patch",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: int(s.lab.sessions.limits.SessionMax / time.Second)})
	next := "/patch"
	if job := r.PostForm.Get("job"); job != "" && ledger.CheckText("job", job) == nil {
		next = "/patch?job=" + template.URLQueryEscaper(job)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// principal looks a token up in constant time per known token, so the
// time a wrong guess takes says nothing about how close it was.
func (l *lab) principal(tok string) (ledger.Principal, bool) {
	var who ledger.Principal
	found := false
	for t, p := range l.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 && p.Name != "" {
			who, found = p, true
		}
	}
	return who, found
}

func signInLimited(w http.ResponseWriter, d time.Duration) {
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeSignIn(w, http.StatusTooManyRequests, fmt.Sprintf("Too many sign-ins; try again in %d s.", secs), CodeSignInLimited)
}

// patchSignOutPage is GET /patch/session/end, where the patch page's
// Sign out link leads: a form that posts the sign-out with the session's
// CSRF token (a GET changes nothing).
func (s *Server) patchSignOutPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	sess, ok := s.lab.sessions.get(r)
	if !ok {
		writeSignIn(w, http.StatusOK, "You are not signed in.", "")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = signOutTmpl.Execute(w, map[string]string{"Name": sess.who.Name, "CSRF": sess.csrf})
}

var signOutTmpl = template.Must(template.New("sign-out").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patch: sign out</title></head>
<body><main><h1>Sign out</h1><p>Signed in as {{.Name}}.</p>
<form method="post" action="/patch/session/end"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit">Sign out</button></form></main></body></html>
`))

// patchSignOut is POST /patch/session/end: it ends the session (with the
// session's CSRF token, from the page's Sign out form) and clears the
// cookie.
func (s *Server) patchSignOut(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if why := crossSite(r); why != "" {
		refuseCrossSite(w, why)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, signInBytesMax)
	_ = r.ParseForm()
	sess, ok := s.lab.sessions.get(r)
	if !ok {
		problem(w, http.StatusUnauthorized, CodeSessionRequired, "sim: no session to end; sign in on /patch")
		return
	}
	csrf := r.Header.Get(PatchCSRFHeader)
	if csrf == "" {
		csrf = r.PostForm.Get("csrf")
	}
	if subtle.ConstantTimeCompare([]byte(csrf), []byte(sess.csrf)) != 1 {
		refuseCrossSite(w, "the CSRF token does not match the session")
		return
	}
	s.lab.sessions.end(sess.id)
	http.SetCookie(w, &http.Cookie{Name: PatchSessionCookie, Value: "", Path: "/patch", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/patch", http.StatusSeeOther)
}

// patchAPI is /patch/api/…: the page's calls to the job API, made as the
// session's principal. A POST needs the session's CSRF token and a
// same-origin request.
func (s *Server) patchAPI(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.lab.sessions.get(r)
	if !ok {
		problem(w, http.StatusUnauthorized, ledger.CodeUnauthorized, "sign in on /patch first")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if why := crossSite(r); why != "" {
			refuseCrossSite(w, why)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(PatchCSRFHeader)), []byte(sess.csrf)) != 1 {
			refuseCrossSite(w, "the "+PatchCSRFHeader+" header does not match the session")
			return
		}
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = strings.TrimPrefix(r.URL.Path, "/patch")
	r2.URL.RawPath = ""
	r2.Header.Del("Cookie")
	r2.Header.Set("Authorization", "Bearer "+sess.token)
	s.lab.api.ServeHTTP(w, r2)
}

// writeSignIn is the sign-in form; it lists no token. code, when set, is
// the refusal's code (data-code on the notice).
func writeSignIn(w http.ResponseWriter, status int, notice string, code errcode.Code) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = signInTmpl.Execute(w, map[string]string{"Notice": notice, "Code": string(code)})
}

var signInTmpl = template.Must(template.New("sign-in").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patch: sign in</title></head>
<body><main><h1>Sign in</h1>
{{with .Notice}}<p role="alert" id="notice"{{with $.Code}} data-code="{{.}}"{{end}}>{{.}}</p>
{{end}}<form method="post" action="/patch/session">
<label>Name (optional) <input type="text" name="name" autocomplete="username"></label>
<label>Token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Sign in</button>
</form></main></body></html>
`))

// routesPatch adds the sign-in and the page's API routes.
func (s *Server) routesPatch(mux *http.ServeMux) {
	if s.lab == nil {
		return
	}
	mux.HandleFunc("POST /patch/session", s.patchSignIn)
	mux.HandleFunc("POST /patch/session/end", s.patchSignOut)
	mux.HandleFunc("GET /patch/session/end", s.patchSignOutPage)
	mux.HandleFunc("/patch/api/", s.patchAPI)
}

// PatchSignIn signs in to the patch page at baseURL with token, as the
// sign-in form does from the sim's own page (same-origin), and returns the
// session cookie. An unknown token is an error naming the status.
func PatchSignIn(ctx context.Context, baseURL, token string) (*http.Cookie, error) {
	form := url.Values{"token": {token}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/patch/session", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("sim: sign in: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", baseURL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sim: sign in: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	for _, c := range res.Cookies() {
		if c.Name == PatchSessionCookie && res.StatusCode == http.StatusSeeOther {
			return c, nil
		}
	}
	return nil, fmt.Errorf("sim: sign in: %s, no session cookie", res.Status)
}
