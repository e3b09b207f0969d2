package sim

// The sim's HTTP server around the routes: timeouts, connection tracking
// for a Close that never waits on a connection that sent nothing, and one
// error shape (problem+json) also for the errors Go's HTTP layer answers
// itself.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Timeouts bound how long the sim's server waits for a client. Zero fields
// take DefaultTimeouts; a negative field switches that bound off.
type Timeouts struct {
	// ReadHeader bounds reading a request line and its headers
	// (http.Server.ReadHeaderTimeout).
	ReadHeader time.Duration
	// ReadBody bounds reading a request body of the job API and the patch
	// page, from the end of its headers; a body that does not arrive in
	// time is answered 408 BODY_TIMEOUT and the connection is closed.
	ReadBody time.Duration
	// Write bounds writing one response of the job API and the patch page.
	// (Chat pages are not bounded: they may be long-lived.)
	Write time.Duration
	// Idle bounds a keep-alive connection waiting for its next request
	// (http.Server.IdleTimeout).
	Idle time.Duration
}

// DefaultTimeouts are the server timeouts NewServer uses for zero fields.
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	ReadBody:   30 * time.Second,
	Write:      30 * time.Second,
	Idle:       120 * time.Second,
}

// Header bounds: HeaderBytesMax is what a request of the sim may carry in
// its request line and headers; a bigger one is answered 431
// HEADERS_TOO_LARGE as problem+json. Go's HTTP layer refuses beyond
// headerBytesHard itself (with the same shape, see errorShapeConn).
const (
	HeaderBytesMax  = 64 << 10
	headerBytesHard = 1 << 20
)

// Codes of the sim's HTTP-level errors.
const (
	CodeHeadersTooLarge = "HEADERS_TOO_LARGE"
	CodeBadHTTPRequest  = "BAD_HTTP_REQUEST"
)

// CloseGrace bounds Close's wait for requests in flight.
const CloseGrace = 5 * time.Second

func (t Timeouts) withDefaults() Timeouts {
	pick := func(v, d time.Duration) time.Duration {
		switch {
		case v == 0:
			return d
		case v < 0:
			return 0
		}
		return v
	}
	return Timeouts{
		ReadHeader: pick(t.ReadHeader, DefaultTimeouts.ReadHeader),
		ReadBody:   pick(t.ReadBody, DefaultTimeouts.ReadBody),
		Write:      pick(t.Write, DefaultTimeouts.Write),
		Idle:       pick(t.Idle, DefaultTimeouts.Idle),
	}
}

// conns tracks the server's connections and their states, so Close can
// close the ones that never sent a request. http.Server.Shutdown waits for
// a connection in StateNew until it is five seconds old; an HTTP client
// that dials several connections for a burst of requests keeps the spare
// one open and unused, so Shutdown used to wait out its whole grace period
// (issue 12, item 3: the "exactly 5 s" stall after 20 concurrent creates,
// which was Close, not SQLite).
type conns struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState
}

func (c *conns) track(nc net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = map[net.Conn]http.ConnState{}
	}
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(c.state, nc)
	default:
		c.state[nc] = st
	}
}

// closeUnused closes every connection that has not started a request and
// returns how many it closed.
func (c *conns) closeUnused() int {
	c.mu.Lock()
	var unused []net.Conn
	for nc, st := range c.state {
		if st == http.StateNew {
			unused = append(unused, nc)
		}
	}
	c.mu.Unlock()
	for _, nc := range unused {
		_ = nc.Close()
	}
	return len(unused)
}

// shutdown stops srv: no new connections, idle and never-used ones closed,
// requests in flight finished (bounded by CloseGrace).
func shutdown(srv *http.Server, cs *conns) error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseGrace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		cs.closeUnused()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("sim: shutdown: %w", err)
			}
			return nil
		case <-t.C:
		}
	}
}

// newHTTPServer builds the server for handler with the timeouts.
func newHTTPServer(handler http.Handler, to Timeouts, cs *conns) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: to.ReadHeader,
		IdleTimeout:       to.Idle,
		MaxHeaderBytes:    headerBytesHard,
		ConnState:         cs.track,
	}
}

// bounded applies the body-read and write timeouts and the header bound to
// one route (the job API and the patch page).
func bounded(to Timeouts, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := headerBytes(r); n > HeaderBytesMax {
			w.Header().Set("Connection", "close")
			problem(w, http.StatusRequestHeaderFieldsTooLarge, CodeHeadersTooLarge,
				fmt.Sprintf("request line and headers are %d bytes; at most %d", n, HeaderBytesMax))
			return
		}
		rc := http.NewResponseController(w)
		if to.ReadBody > 0 {
			_ = rc.SetReadDeadline(time.Now().Add(to.ReadBody))
		}
		if to.Write > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(to.Write))
		}
		next.ServeHTTP(w, r)
		if to.Write > 0 {
			// the next request on this connection gets its own bound
			if err := rc.Flush(); err == nil {
				_ = rc.SetWriteDeadline(time.Time{})
			}
		}
	})
}

func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// errorShapeListener wraps every accepted connection in errorShapeConn.
type errorShapeListener struct{ net.Listener }

func (l errorShapeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &errorShapeConn{Conn: c}, nil
}

// goErrorResponse is the whole response Go's HTTP server writes itself for
// a request it refuses before any handler runs (malformed request line,
// bad header bytes, headers over MaxHeaderBytes, unsupported
// Transfer-Encoding, …): status line, text/plain, Connection: close, and
// the status text (or a short reason) as the body.
var goErrorResponse = regexp.MustCompile(`^HTTP/1\.1 ([45]\d\d) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n([^\r\n]*)$`)

// errorShapeConn rewrites the plain-text error responses Go's HTTP layer
// writes directly to the connection into problem+json, so every error of
// the sim has one shape. Responses of handlers are written with a Date
// header and never match goErrorResponse.
type errorShapeConn struct {
	net.Conn
	mu sync.Mutex
}

func (c *errorShapeConn) Write(b []byte) (int, error) {
	if len(b) > 512 || !bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
		return c.Conn.Write(b)
	}
	m := goErrorResponse.FindSubmatch(b)
	if m == nil {
		return c.Conn.Write(b)
	}
	status, text, body := string(m[1]), string(m[2]), string(m[3])
	code := CodeBadHTTPRequest
	if status == "431" {
		code = CodeHeadersTooLarge
	}
	detail := strings.TrimSpace(strings.TrimPrefix(body, status))
	if detail == "" {
		detail = text
	}
	js := fmt.Sprintf(`{"type":"about:blank","title":%q,"status":%s,"detail":%q,"code":%q}`+"\n", text, status, "sim: the HTTP layer refused the request: "+detail, code)
	resp := fmt.Sprintf("HTTP/1.1 %s %s\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, text, len(js), js)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.Conn.Write([]byte(resp)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// boundLedgerRoutes applies bounded to the job API and the patch page and
// passes every other route through unchanged.
func boundLedgerRoutes(to Timeouts, mux http.Handler) http.Handler {
	b := bounded(to, mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/patch" || strings.HasPrefix(r.URL.Path, "/patch/") {
			b.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
