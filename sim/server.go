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
	"sync/atomic"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
)

// Timeouts bound how long the sim's server waits for a client, on every
// route alike (LED-16): one server configuration, no route left out. Zero
// fields take DefaultTimeouts; a negative field switches that bound off.
type Timeouts struct {
	// ReadHeader bounds reading a request line and its headers
	// (http.Server.ReadHeaderTimeout). A request that has started and not
	// finished its headers in time is answered 408 REQUEST_TIMEOUT before
	// the connection is closed.
	ReadHeader time.Duration
	// ReadBody bounds reading a request body, from the end of its
	// headers; a body that does not arrive in time is answered 408
	// (BODY_TIMEOUT on the job API) and the connection is closed, also
	// where the handler does not read the body (Go's server reads what is
	// left of it before the next request).
	ReadBody time.Duration
	// Write bounds writing one response, counted from the end of the
	// body's time (so a 408 still has all of it). The page-event stream
	// (/sim/stage/events) lives as long as its page and opts out.
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

// Request bounds of every route: HeaderBytesMax is what a request may
// carry in its request line and headers (a bigger one is answered 431
// HEADERS_TOO_LARGE as problem+json; Go's HTTP layer refuses a little
// beyond it itself, with the same shape, see errorShapeConn); BodyBytesMax
// is the most any handler reads of a request body (the job API answers
// BODY_TOO_LARGE at ledger.BodyBytesMax, the same); ConnsMax bounds the open
// connections (one more is answered 503 and closed).
const (
	HeaderBytesMax = 64 << 10
	BodyBytesMax   = 1 << 20
	ConnsMax       = 1024
)

// Codes of the sim's HTTP-level errors.
const (
	CodeHeadersTooLarge = errcode.HeadersTooLarge
	CodeBadHTTPRequest  = errcode.BadHTTPRequest
	CodeRequestTimeout  = errcode.RequestTimeout
	CodeTooManyConns    = errcode.TooManyConnections
	CodeHostRefused     = errcode.HostRefused
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
	if ec, ok := nc.(*errorShapeConn); ok {
		ec.setState(st)
	}
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
		MaxHeaderBytes:    HeaderBytesMax,
		ConnState:         cs.track,
	}
}

// bounded applies the body-read and write deadlines, the header bound and
// the body bound to every route. The write deadline starts where the
// body's ends, so a 408 for a late body is written before the connection
// closes.
func bounded(to Timeouts, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := headerBytes(r); n > HeaderBytesMax {
			w.Header().Set("Connection", "close")
			problem(w, http.StatusRequestHeaderFieldsTooLarge, CodeHeadersTooLarge,
				fmt.Sprintf("request line and headers are %d bytes; at most %d", n, HeaderBytesMax))
			return
		}
		rc := http.NewResponseController(w)
		start := time.Now()
		if to.ReadBody > 0 {
			_ = rc.SetReadDeadline(start.Add(to.ReadBody))
		}
		if to.Write > 0 {
			_ = rc.SetWriteDeadline(start.Add(max(to.ReadBody, 0) + to.Write))
		}
		r.Body = http.MaxBytesReader(w, r.Body, BodyBytesMax)
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

// errorShapeListener wraps every accepted connection in errorShapeConn
// and bounds the open ones by ConnsMax: one more is answered 503
// TOO_MANY_CONNECTIONS and closed at once.
type errorShapeListener struct {
	net.Listener
	open *atomic.Int64
}

func newErrorShapeListener(l net.Listener) errorShapeListener {
	return errorShapeListener{Listener: l, open: new(atomic.Int64)}
}

func (l errorShapeListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > ConnsMax {
			l.open.Add(-1)
			js := fmt.Sprintf(`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"sim: %d connections open; at most %d","code":%q}`+"\n", ConnsMax+1, ConnsMax, CodeTooManyConns)
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(js), js)
			_ = c.Close()
			continue
		}
		return &errorShapeConn{Conn: c, open: l.open}, nil
	}
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
//
// It also answers a request whose headers did not arrive within
// ReadHeaderTimeout (a slowloris) with 408 REQUEST_TIMEOUT before Go's
// server closes the connection, which it would do without a word: a read
// that times out after some bytes of a request arrived, while no handler
// runs (the connection state, from http.Server.ConnState, is new or idle),
// writes the 408 first.
type errorShapeConn struct {
	net.Conn
	mu   sync.Mutex
	open *atomic.Int64 // the listener's count of open connections

	stateMu   sync.Mutex
	handling  bool // a handler runs (StateActive)
	partial   bool // bytes of a request arrived outside a handler
	answered  bool // the 408 was written
	closeOnce sync.Once
}

// setState follows http.Server.ConnState.
func (c *errorShapeConn) setState(st http.ConnState) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	switch st {
	case http.StateActive:
		c.handling, c.partial = true, false
	case http.StateIdle:
		c.handling, c.partial = false, false
	}
}

func (c *errorShapeConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.stateMu.Lock()
	if n > 0 && !c.handling {
		c.partial = true
	}
	timeout := false
	if ne, ok := err.(net.Error); ok && ne.Timeout() && !c.handling && c.partial && !c.answered {
		timeout, c.answered = true, true
	}
	c.stateMu.Unlock()
	if timeout {
		js := fmt.Sprintf(`{"type":"about:blank","title":"Request Timeout","status":408,"detail":"sim: the request line and headers did not arrive in time","code":%q}`+"\n", CodeRequestTimeout)
		c.mu.Lock()
		_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = fmt.Fprintf(c.Conn, "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(js), js)
		c.mu.Unlock()
	}
	return n, err
}

func (c *errorShapeConn) Close() error {
	c.closeOnce.Do(func() {
		if c.open != nil {
			c.open.Add(-1)
		}
	})
	return c.Conn.Close()
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

// guarded is the one configuration of every route (LED-16, LED-17): the
// Host allow-list, the page headers that forbid framing, and bounded.
func guarded(to Timeouts, hosts hostList, mux http.Handler) http.Handler {
	b := bounded(to, mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.URL.Path == "/patch" || strings.HasPrefix(r.URL.Path, "/patch/") || strings.HasPrefix(r.URL.Path, "/api/") {
			// the pages that act: no one may frame them
			h.Set("X-Frame-Options", "DENY")
			h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		} else {
			// the chat and observation pages frame each other (frame
			// scenarios); no other site may
			h.Set("X-Frame-Options", "SAMEORIGIN")
			h.Set("Content-Security-Policy", "frame-ancestors 'self'")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		if !hosts.allows(r.Host) {
			h.Set("Connection", "close")
			problem(w, http.StatusMisdirectedRequest, CodeHostRefused,
				"sim: requests must name this server in Host (a loopback name or the configured address); a DNS-rebinding name is refused")
			return
		}
		b.ServeHTTP(w, r)
	})
}

// hostList is the Host allow-list (LED-17): the loopback names and the
// server's configured address; any port.
type hostList map[string]bool

func newHostList(addr string, extra []string) hostList {
	l := hostList{"localhost": true, "127.0.0.1": true, "::1": true}
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		l[strings.ToLower(h)] = true
	}
	for _, h := range extra {
		l[strings.ToLower(strings.TrimSuffix(h, "."))] = true
	}
	return l
}

func (l hostList) allows(hostport string) bool {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if l[h] {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
