package sim_test

// SPEC §17 on the sim's server: LED-16 (every route bounded, with an
// answer) and LED-17 (sign-in limits, sessions, Host allow-list, framing).

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

// trickle is sim.Trickle for a test: the client trickles without end, so
// a nil error means the server closed the connection by its own bound.
func trickle(t *testing.T, s *sim.Server, head, rest string, gap time.Duration) (int, time.Duration) {
	t.Helper()
	st, took, err := sim.Trickle(context.Background(), s.URL, head, rest, gap, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return st, took
}

// TestEveryRouteBounded (LED-16): a request trickled a byte at a time, in
// its headers or in its body, is answered and its connection closed
// by the route's limit, on the chat page, the index, a 404, the job API
// and the patch page alike. The client never finishes (sim.Trickle), so
// only the server's bound can close the connection; the close times are
// reported, not judged.
func TestEveryRouteBounded(t *testing.T) {
	const limit = 400 * time.Millisecond
	s := startLedger(t, sim.Options{Timeouts: sim.Timeouts{ReadHeader: limit, ReadBody: limit, Write: time.Second, Idle: time.Second}})
	routes := []struct{ name, method, path string }{
		{"chat page", "GET", "/chat"},
		{"index", "GET", "/"},
		{"a 404", "GET", "/no-such-page"},
		{"chat send", "POST", "/sim/chat/send"},
		{"job API", "POST", "/api/jobs"},
		{"patch page", "GET", "/patch"},
	}
	var report []string
	for _, rt := range routes {
		t.Run(rt.name+"/headers", func(t *testing.T) {
			st, took := trickle(t, s, rt.method+" "+rt.path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n", strings.Repeat("X-Slow: 1\r\n", 100), 50*time.Millisecond)
			report = append(report, fmt.Sprintf("%s headers: %d after %s", rt.name, st, took.Round(10*time.Millisecond)))
			if st != http.StatusRequestTimeout {
				t.Errorf("trickled headers: status %d, closed after %s; want 408", st, took)
			}
		})
		t.Run(rt.name+"/body", func(t *testing.T) {
			head := rt.method + " " + rt.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\nIdempotency-Key: slow\r\nContent-Length: 1000\r\n\r\n"
			st, took := trickle(t, s, head, strings.Repeat("x", 1000), 50*time.Millisecond)
			report = append(report, fmt.Sprintf("%s body: %d after %s", rt.name, st, took.Round(10*time.Millisecond)))
			if st == 0 {
				t.Errorf("trickled body: closed after %s with no answer; want an answer and a close", took)
			}
		})
	}
	t.Logf("summary: slowloris close times (limit %s): %s", limit, strings.Join(report, "; "))
}

// TestHostAllowList (LED-17): a request naming another host (DNS
// rebinding: evil.example resolving to 127.0.0.1, with a matching Origin)
// is refused; loopback names pass.
func TestHostAllowList(t *testing.T) {
	s := startLedger(t, sim.Options{})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"evil.example:" + port, 421},
		{"rebind.127.0.0.1.nip.io:" + port, 421},
		{"localhost:" + port, 200},
		{"127.0.0.1:" + port, 200},
		{"LOCALHOST.:" + port, 200},
	} {
		for _, path := range []string{"/", "/patch", "/chat"} {
			req, _ := http.NewRequest("GET", s.URL+path, nil)
			req.Host = tc.host
			req.Header.Set("Origin", "http://"+tc.host)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Errorf("Host %s %s: %d %s, want %d", tc.host, path, res.StatusCode, b, tc.status)
			}
			if tc.status == 421 && !strings.Contains(string(b), string(sim.CodeHostRefused)) {
				t.Errorf("Host %s: %s, want code %s", tc.host, b, sim.CodeHostRefused)
			}
		}
	}
}

// TestPagesForbidFraming (LED-17).
func TestPagesForbidFraming(t *testing.T) {
	s := startLedger(t, sim.Options{})
	for _, path := range []string{"/patch", "/patch/session/end", "/api/jobs/x"} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: X-Frame-Options %q, CSP %q", path, res.Header.Get("X-Frame-Options"), res.Header.Get("Content-Security-Policy"))
		}
	}
	for _, path := range []string{"/", "/chat", "/nope"} { // framed by the sim's own frame pages only
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Frame-Options") != "SAMEORIGIN" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'self'") {
			t.Errorf("%s: X-Frame-Options %q, CSP %q", path, res.Header.Get("X-Frame-Options"), res.Header.Get("Content-Security-Policy"))
		}
	}
}

// signIn posts the sign-in form from the given local address (127.0.0.N
// are distinct clients) and returns the status, Retry-After and cookie.
func signIn(t *testing.T, s *sim.Server, from, name, token string) (int, string, *http.Cookie) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"token": {token}}
	if name != "" {
		form.Set("name", name)
	}
	req, _ := http.NewRequest("POST", s.URL+"/patch/session", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.URL)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	client.CloseIdleConnections()
	var c *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == sim.PatchSessionCookie && k.Value != "" {
			c = k
		}
	}
	return res.StatusCode, res.Header.Get("Retry-After"), c
}

func pageAs(t *testing.T, s *sim.Server, c *http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/patch", nil)
	if c != nil {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return string(b)
}

// TestSignInResists (LED-17): brute force from one client is answered 429
// with Retry-After once its free failures are used, while another client
// still signs in; guesses at one name from many clients lock that name;
// 1,024 sign-ins by bob never end alice's session; sessions expire and
// can be ended.
func TestSignInResists(t *testing.T) {
	s := startLedger(t, sim.Options{SignIn: sim.SignInLimits{FreeFailures: 5, Backoff: 2 * time.Second}})
	codes := map[int]int{}
	for i := range 40 {
		st, ra, _ := signIn(t, s, "127.0.0.2", "", fmt.Sprintf("guess-%d", i))
		codes[st]++
		if st == 429 && ra == "" {
			t.Fatal("429 without Retry-After")
		}
	}
	if codes[401] != 5 || codes[429] != 35 {
		t.Errorf("brute force from one client: %v, want 5 × 401 then 35 × 429", codes)
	}
	if st, _, _ := signIn(t, s, "127.0.0.2", "", "alice-token"); st != 429 {
		t.Errorf("the right token from the locked client: %d, want 429 (the client waits)", st)
	}
	st, _, alice := signIn(t, s, "127.0.0.3", "", "alice-token")
	if st != 303 || alice == nil {
		t.Fatalf("alice from another client: %d, want 303 and a session", st)
	}
	// one name guessed from many clients
	named := map[int]int{}
	for i := range 12 {
		st, _, _ := signIn(t, s, fmt.Sprintf("127.0.1.%d", i+1), "rita", fmt.Sprintf("guess-%d", i))
		named[st]++
	}
	if named[429] == 0 {
		t.Errorf("guesses at rita from 12 clients: %v, want 429s once the name's free failures are used", named)
	}
	// bob signs in 1,024 times
	bob := map[int]int{}
	for range 1024 {
		st, _, _ := signIn(t, s, "127.0.0.4", "", "bob-token")
		bob[st]++
	}
	if !strings.Contains(pageAs(t, s, alice), "Signed in as alice") {
		t.Fatalf("alice's session ended by bob's sign-ins: %s", pageAs(t, s, alice))
	}
	if bob[429] == 0 {
		t.Errorf("1,024 sign-ins by bob: %v, want 429 past the name's burst", bob)
	}
	t.Logf("summary: brute force from one client %v; guesses at one name from 12 clients %v; 1,024 sign-ins by bob %v; alice still signed in", codes, named, bob)
}

// TestSessionsExpire (LED-17): a session unused for longer than
// SessionIdle signs nobody in; one in use lives on. The sessions run on a
// lab clock the test moves, so how long a request takes on a loaded
// machine is not part of the verdict.
func TestSessionsExpire(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	s := startLedger(t, sim.Options{SignInClock: lab, SignIn: sim.SignInLimits{SessionIdle: 400 * time.Millisecond}})
	ctx := context.Background()
	used, err := sim.PatchSignIn(ctx, s.URL, "alice-token")
	if err != nil {
		t.Fatal(err)
	}
	idle, err := sim.PatchSignIn(ctx, s.URL, "bob-token")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := lab.Sleep(ctx, 150*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pageAs(t, s, used), "Signed in as alice") {
			t.Fatalf("a session in use expired %s after its sign-in", time.Duration(i+1)*150*time.Millisecond)
		}
	}
	if strings.Contains(pageAs(t, s, idle), "Signed in as") {
		t.Fatal("bob's session outlived SessionIdle")
	}
}

// TestSignOut (LED-17): Sign out ends the session; its cookie then signs
// nobody in; a sign-out without the CSRF token is refused.
func TestSignOut(t *testing.T) {
	s := startLedger(t, sim.Options{})
	c, err := sim.PatchSignIn(context.Background(), s.URL, "alice-token")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pageAs(t, s, c), `href="/patch/session/end"`) {
		t.Fatal("the patch page has no Sign out link")
	}
	req, _ := http.NewRequest("GET", s.URL+"/patch/session/end", nil)
	req.AddCookie(c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(b)
	i := strings.Index(page, `name="csrf" value="`)
	if i < 0 || !strings.Contains(page, "Signed in as alice") {
		t.Fatalf("the sign-out page has no form: %s", page)
	}
	csrf := page[i+len(`name="csrf" value="`):]
	csrf = csrf[:strings.IndexByte(csrf, '"')]
	post := func(form url.Values) int {
		req, _ := http.NewRequest("POST", s.URL+"/patch/session/end", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.URL)
		req.AddCookie(c)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if st := post(url.Values{}); st != 403 {
		t.Errorf("sign-out without CSRF: %d, want 403", st)
	}
	if st := post(url.Values{"csrf": {csrf}}); st != 303 {
		t.Errorf("sign-out: %d, want 303", st)
	}
	if strings.Contains(pageAs(t, s, c), "Signed in as") {
		t.Error("the ended session's cookie still signs in")
	}
}

// TestCallbackRefusalsTakeAlike (LED-17): refusals of a callback for an
// existing attempt and for a missing one take the same least time.
func TestCallbackRefusalsTakeAlike(t *testing.T) {
	s := startLedger(t, sim.Options{DB: filepath.Join(t.TempDir(), "l.db")})
	ctx := context.Background()
	if err := s.Providers().Script("primary", sim.Script{Behaviour: sim.Hold}); err != nil {
		t.Fatal(err)
	}
	j, _, err := s.Ledger().Create(ctx, alice, "k", []byte(`{"p":1}`), "")
	if err != nil {
		t.Fatal(err)
	}
	svc := s.Ledger()
	measure := func(id string) time.Duration {
		body, sig := ledger.NewSignedCallback(id, "whsec_wrong", "succeeded", "x", svc.Now())
		start := time.Now()
		if _, err := svc.VerifiedCallback(ctx, sig, body); errcode.Of(err) != ledger.CodeCallbackUnverified {
			t.Fatalf("got %v, want CALLBACK_UNVERIFIED", err)
		}
		return time.Since(start)
	}
	for _, id := range []string{j.Attempts[0].ID, "att_does_not_exist"} {
		for range 5 {
			if d := measure(id); d < ledger.CallbackRefusalMin {
				t.Fatalf("refusal for %s took %s, less than %s", id, d, ledger.CallbackRefusalMin)
			}
		}
	}
}
