package sim

// Clients that misbehave on purpose, for the drills of LED-16 and LED-17:
// a request trickled a byte at a time, and a sign-in from a chosen client
// address.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Trickle opens a connection to baseURL, sends head at once and then rest
// one byte every gap (a slowloris), starting rest over at its end, so the
// client never finishes: only the server can end the exchange, and a nil
// error means it did, by its own bound. It returns the status the server
// answered (0: none) and how long until the server closed the connection
// (for reports; a verdict needs only the nil error, which a loaded
// machine does not change). It gives up after limit, with an error.
func Trickle(ctx context.Context, baseURL, head, rest string, gap, limit time.Duration) (status int, closedAfter time.Duration, err error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return 0, 0, fmt.Errorf("sim: trickle: %w", err)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return 0, 0, fmt.Errorf("sim: trickle: %w", err)
	}
	defer c.Close()
	start := time.Now()
	_ = c.SetDeadline(start.Add(limit))
	go func() {
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
			if len(rest) == 0 {
				continue
			}
			if _, err := c.Write([]byte{rest[i%len(rest)]}); err != nil {
				return
			}
		}
	}()
	br := bufio.NewReader(c)
	if res, err := http.ReadResponse(br, nil); err == nil {
		status = res.StatusCode
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	_, err = io.Copy(io.Discard, br)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return status, time.Since(start), fmt.Errorf("sim: trickle: the server kept the connection open for %s", limit)
	}
	return status, time.Since(start), nil
}

// SignInResult is what one sign-in of PatchSignInFrom got.
type SignInResult struct {
	Status     int
	RetryAfter string       // the Retry-After header of a 429
	Code       string       // data-code of the refusal's notice, if any
	Cookie     *http.Cookie // the session cookie of a 303
}

// PatchSignInFrom posts the patch page's sign-in form as a browser on the
// sim's own page would, from the local address from (any 127.0.0.N is a
// client of its own; "" lets the system choose), with an optional name.
func PatchSignInFrom(ctx context.Context, baseURL, from, name, token string) (SignInResult, error) {
	d := &net.Dialer{}
	if from != "" {
		ip := net.ParseIP(from)
		if ip == nil {
			return SignInResult{}, fmt.Errorf("sim: sign in: %q is not an IP address", from)
		}
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	tr := &http.Transport{DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"token": {token}}
	if name != "" {
		form.Set("name", name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/patch/session", strings.NewReader(form.Encode()))
	if err != nil {
		return SignInResult{}, fmt.Errorf("sim: sign in: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", baseURL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := client.Do(req)
	if err != nil {
		return SignInResult{}, fmt.Errorf("sim: sign in: %w", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	r := SignInResult{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After")}
	if i := strings.Index(string(b), `data-code="`); i >= 0 {
		rest := string(b[i+len(`data-code="`):])
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			r.Code = rest[:j]
		}
	}
	for _, c := range res.Cookies() {
		if c.Name == PatchSessionCookie && c.Value != "" && res.StatusCode == http.StatusSeeOther {
			r.Cookie = c
		}
	}
	return r, nil
}

// PatchSignOut ends the session of cookie as the patch page's Sign out
// link does: it opens the sign-out page and posts its form (with the
// session's CSRF token). It returns the status of the post.
func PatchSignOut(ctx context.Context, baseURL string, cookie *http.Cookie) (int, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/patch/session/end", nil)
	if err != nil {
		return 0, fmt.Errorf("sim: sign out: %w", err)
	}
	req.AddCookie(cookie)
	res, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("sim: sign out: %w", err)
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	res.Body.Close()
	page := string(b)
	i := strings.Index(page, `name="csrf" value="`)
	if i < 0 {
		return res.StatusCode, fmt.Errorf("sim: sign out: the sign-out page (%d) has no form", res.StatusCode)
	}
	csrf := page[i+len(`name="csrf" value="`):]
	csrf = csrf[:max(0, strings.IndexByte(csrf, '"'))]
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/patch/session/end", strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
	if err != nil {
		return 0, fmt.Errorf("sim: sign out: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", baseURL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(cookie)
	res, err = client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("sim: sign out: %w", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}
