// Package sim is the synthetic chat site the scenarios drive: served on
// 127.0.0.1 only, on a free port, shaped like httptest.Server (NewServer,
// URL, Close that waits for requests in flight). Everything it shows is
// scripted per scenario from Go and deterministic for a given seed: the
// earlier turns of a chat, the answers that streaming produces, and what
// reached the server. Every scripted transition is scheduled on the
// server's clock (Options.Clock) and reaches the pages as a numbered DOM
// operation that they acknowledge (stage.go); no page script keeps time.
package sim

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/ledger"
)

// Server is a running sim.
type Server struct {
	// URL is the base URL, "http://127.0.0.1:PORT".
	URL string

	srv   *http.Server
	ln    net.Listener
	wg    sync.WaitGroup
	conns conns // connection states, for Close (server.go)

	mu       sync.Mutex
	chat     Chat
	next     int      // index of the next scripted answer
	turns    []Turn   // turns added by sends, after the history
	received []string // messages that reached the server
	libSends int      // sends /lib/browser-ids received
	gen      int      // bumped by SetChat: transitions scheduled before it do nothing
	redos    int      // turns regenerated since SetChat (their ids' versions)

	clock clock.Clock // schedules every scripted transition
	stage *stage      // the pages' transitions and acknowledgements (stage.go)

	lab *lab // the ledger behind /api/ and /patch; nil when Options.API is set
}

// Options configure a server.
type Options struct {
	// Addr is the listen address; default "127.0.0.1:0" (a free port).
	// Only loopback addresses are accepted.
	Addr string
	// Hosts are more names the Host header may carry (LED-17); the
	// loopback names and Addr's host are always allowed, anything else is
	// refused 421 HOST_REFUSED (DNS rebinding).
	Hosts []string
	// Seed drives every generated text.
	Seed int64
	// Handler, when set, is mounted under /api/ beside the chat (the
	// ledger's job API).
	API http.Handler

	// The job API and patch page (sim/patch.go), used when API is nil.
	// DB is the ledger's database: a SQLite file path or a postgres:// URL;
	// "" is a new SQLite file in a temp dir removed on Close.
	DB string
	// SignInClock is the time the patch page's sessions expire and its
	// sign-in limits refill on; nil is clock.Wall, whatever Clock is (a
	// sign-in is a person's, not a scripted transition). Tests move it.
	SignInClock clock.Clock
	// SignIn bounds the patch page's sign-in and sessions (LED-17); zero
	// fields take DefaultSignInLimits.
	SignIn SignInLimits
	// Tokens map bearer tokens to principals; nil is ledger.DefaultTokens().
	Tokens map[string]ledger.Principal
	// IDs makes job and attempt ids; nil is ledger.SequentialIDs() for the
	// temp database ("job_0001", "att_0001", …, stable traces and pages)
	// and ledger.RandomIDs for a given DB, whose earlier rows would collide.
	IDs ledger.IDGenerator
	// Faults is the simulated providers' seeded fault schedule for
	// attempts no scenario scripted.
	Faults Faults
	// Timeouts bound the server's waits on clients; zero fields take
	// DefaultTimeouts (server.go).
	Timeouts Timeouts
	// StoreWaitMax bounds one ledger operation's wait for its store
	// (ledger.Limits.StoreWaitMax, LED-16); 0 keeps the ledger's default.
	StoreWaitMax time.Duration
	// Sweep, when set, runs the ledger's sweeper (LED-14) in the
	// background until Close: every Sweep.Interval it takes the sweeper's
	// lease and resolves attempts nobody waits on any more, asking the
	// simulated providers by attempt id. Sweep.Recover also configures the
	// start-up recovery (its MinAge aside). Nil runs no sweeper; Server.Sweep
	// runs one sweep on demand either way.
	Sweep *ledger.SweepOptions
	// Scripts are queued on the providers (provider name → behaviours)
	// before the ledger's start-up recovery re-sends anything (LED-13).
	Scripts map[string][]Script
	// Clock schedules the chat's and the pages' scripted transitions
	// (stream start, completion, confirmation, error, media becoming
	// ready, late effects); nil is clock.Wall. With a *clock.Lab, add the
	// server to the lab as a gate (lab.AddGate(srv)) so the lab waits for
	// the pages to acknowledge what they rendered (see stage.go).
	Clock clock.Clock
}

// ErrNotLoopback is returned for listen addresses off the loopback.
var ErrNotLoopback = errors.New("sim: listen address must be on the loopback")

// NewServer starts a sim with the default chat.
func NewServer(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: %s", ErrNotLoopback, opts.Addr)
	}
	var l *lab
	if opts.API == nil {
		if l, err = openLab(opts); err != nil {
			return nil, err
		}
		opts.API = l.api
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sim: %w", err), l.close())
	}
	if opts.Clock == nil {
		opts.Clock = clock.Wall
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, chat: DefaultChat(), lab: l, clock: opts.Clock, stage: newStage()}
	s.chat.Seed = opts.Seed
	mux := http.NewServeMux()
	s.routes(mux, opts.API)
	s.srv = newHTTPServer(guarded(opts.Timeouts.withDefaults(), newHostList(ln.Addr().String(), opts.Hosts), mux), opts.Timeouts.withDefaults(), &s.conns)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(newErrorShapeListener(ln))
	}()
	return s, nil
}

// Close stops the server and waits for requests in flight (at most
// CloseGrace). Connections that never sent a request are closed at once.
func (s *Server) Close() error {
	s.stage.close()
	err := shutdown(s.srv, &s.conns)
	s.wg.Wait()
	return errors.Join(err, s.lab.close())
}

// SetChat replaces the chat the server shows and resets what was sent.
func (s *Server) SetChat(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = c
	s.gen++
	s.next = 0
	s.redos = 0
	s.turns = nil
	s.received = nil
}

// Clock is the clock the server schedules its transitions on.
func (s *Server) Clock() clock.Clock { return s.clock }

// Chat returns the current chat script.
func (s *Server) Chat() Chat {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chat
}

// Received returns the messages that reached the server, in order.
func (s *Server) Received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.received...)
}
