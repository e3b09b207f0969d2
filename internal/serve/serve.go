// Package serve runs the module's local HTTP servers (the test site, the
// zoo): it listens on the loopback only, gives every request a base
// context that Close cancels (so streams end with the server), and shuts
// down within a bound, waiting for the requests in flight.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultAddr is the listen address when none is given: a free port on the
// loopback.
const DefaultAddr = "127.0.0.1:0"

// ErrNotLoopback refuses a listen address off the loopback.
var ErrNotLoopback = errors.New("listen address is not on the loopback")

// shutdownTimeout bounds Close's wait for requests in flight.
const shutdownTimeout = 2 * time.Second

// Server is a running server.
type Server struct {
	// URL is "http://HOST:PORT" of the address it listens on.
	URL string

	srv    *http.Server
	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// Loopback checks that addr ("host:port") names a loopback IP; an
// address off it is ErrNotLoopback, with the address.
func Loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: %s", ErrNotLoopback, addr)
	}
	return nil
}

// Start listens on addr (DefaultAddr when "") and serves the handler
// routes builds; base, the parent context of every request, is cancelled
// by Close. routes is called once, before the first request.
func Start(addr string, routes func(base context.Context) http.Handler) (*Server, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	if err := Loopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{URL: "http://" + ln.Addr().String(), cancel: cancel}
	s.srv = &http.Server{
		Handler:           routes(base),
		ReadHeaderTimeout: 5 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close cancels the requests' base context, stops the server and waits
// for the requests in flight (at most two seconds; then it returns the
// shutdown's error).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	s.cancel()
	err := s.srv.Shutdown(ctx)
	s.wg.Wait()
	return err
}
