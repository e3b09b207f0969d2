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
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/replaylab/replaylab/engine/ledger"
)

// Patch page session settings.
const (
	// PatchSessionCookie names the patch page's session cookie.
	PatchSessionCookie = "replaylab_patch_session"
	// PatchCSRFHeader carries the page's CSRF token on its API calls.
	PatchCSRFHeader = "X-CSRF-Token"
	// SessionsMax bounds the sessions kept; the oldest is dropped first.
	SessionsMax = 1024
	// signInBytesMax bounds the sign-in form body.
	signInBytesMax = 4096
)

// CodeCrossSite is the problem code of a refused cross-site request.
const CodeCrossSite = "CROSS_SITE_REFUSED"

type session struct {
	id    string
	who   ledger.Principal
	token string // stays on the server: the page's API calls use it
	csrf  string
}

// sessions is the patch page's sign-ins, bounded by SessionsMax.
type sessions struct {
	mu    sync.Mutex
	byID  map[string]*session
	order []string
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (ss *sessions) add(who ledger.Principal, token string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byID == nil {
		ss.byID = map[string]*session{}
	}
	for len(ss.order) >= SessionsMax {
		delete(ss.byID, ss.order[0])
		ss.order = ss.order[1:]
	}
	s := &session{id: randomToken(), who: who, token: token, csrf: randomToken()}
	ss.byID[s.id] = s
	ss.order = append(ss.order, s.id)
	return s
}

// get returns the session the request's cookie names.
func (ss *sessions) get(r *http.Request) (*session, bool) {
	c, err := r.Cookie(PatchSessionCookie)
	if err != nil {
		return nil, false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byID[c.Value]
	return s, ok
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

// patchSignIn is POST /patch/session: the typed-in token becomes a
// session cookie, and the browser goes back to /patch.
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
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	who, ok := s.lab.tokens[tok]
	if !ok || who.Name == "" {
		writeSignIn(w, http.StatusUnauthorized, "That token is not known.")
		return
	}
	sess := s.lab.sessions.add(who, tok)
	http.SetCookie(w, &http.Cookie{Name: PatchSessionCookie, Value: sess.id, Path: "/patch",
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	next := "/patch"
	if job := r.PostForm.Get("job"); job != "" && ledger.CheckText("job", job) == nil {
		next = "/patch?job=" + template.URLQueryEscaper(job)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// patchAPI is /patch/api/…: the page's calls to the job API, made as the
// session's principal. A POST needs the session's CSRF token and a
// same-origin request.
func (s *Server) patchAPI(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.lab.sessions.get(r)
	if !ok {
		problem(w, http.StatusUnauthorized, string(ledger.CodeUnauthorized), "sign in on /patch first")
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

// writeSignIn is the sign-in form; it lists no token.
func writeSignIn(w http.ResponseWriter, status int, notice string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = signInTmpl.Execute(w, map[string]string{"Notice": notice})
}

var signInTmpl = template.Must(template.New("sign-in").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patch: sign in</title></head>
<body><main><h1>Sign in</h1>
{{with .Notice}}<p role="alert" id="notice">{{.}}</p>
{{end}}<form method="post" action="/patch/session">
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
