package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

// mcpStdin is the server's input; tests replace it.
var mcpStdin io.ReadCloser = os.Stdin

// cmdMCP serves the engine's typed operations as MCP tools on stdin and
// stdout until stdin closes (or a signal arrives), then closes every page
// and the browser, if one was started.
//
// For the scenario harness (features/mcp.feature) it also records and
// replays: --record FILE passes every page's browser driver through a
// recorder and, on shutdown, writes one session per task page
// (mcp.SessionPath: FILE@t1-main.json, …), the live base URL rewritten
// by --base-rewrite LIVE=CANONICAL and secrets scrubbed; --replay FILE
// serves the pages from those sessions with no browser and exits 1 when
// a recorded action was never replayed. --scenario FP[,OLDER…] stores
// FP in the recordings and on replay accepts FP or an OLDER one; --trace FILE writes the engine's
// trace on shutdown.
func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("mcp", stderr)
	adapterName := fs.String("adapter", "auto", "answer-group adapter: marker, heading, auto or an adapter file (JSON, see docs/adapters.md)")
	cdpURL := fs.String("cdp", "", "attach to a running Chromium at this CDP websocket URL instead of starting one")
	storagePath := storageFlag(fs)
	recordFile := fs.String("record", "", "record every task page's session; written on shutdown to FILE@<task>-<page>.json")
	replayFile := fs.String("replay", "", "serve pages from the sessions --record wrote under FILE (no browser)")
	rewrite := fs.String("base-rewrite", "", "with --record: LIVE=CANONICAL, store the live base URL as the canonical one")
	scenario := fs.String("scenario", "", "FP[,OLDER…]: a fingerprint stored in recorded sessions; with --replay, sessions with another (or one of the OLDER ones) are refused")
	traceFile := fs.String("trace", "", "write the engine's trace to FILE on shutdown (one event per line)")
	allowFiles := fs.Bool("allow-file-urls", false, "let navigate open file: (and other non-http) URLs; by default only http and https open (URL_NOT_ALLOWED)")
	readAhead := fs.Bool("read-ahead", true, "read a browser page after it changed while no call runs on its task, so the next call finds the read done (at most about a fifth of a core while a page changes unread); --read-ahead=false turns it off")
	httpAddr := fs.String("http", "", "serve streamable HTTP at http://ADDR/mcp (loopback only) instead of stdio, until interrupted; tasks outlive client sessions")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitBadInput, err
	}
	switch {
	case len(pos) > 0:
		return exitBadInput, badInput("unexpected argument %q", pos[0])
	case *recordFile != "" && *replayFile != "":
		return exitBadInput, badInput("--record and --replay exclude each other")
	case *rewrite != "" && *recordFile == "":
		return exitBadInput, badInput("--base-rewrite needs --record")
	case *replayFile != "" && *cdpURL != "":
		return exitBadInput, badInput("--replay uses no browser; drop --cdp")
	}
	if *httpAddr != "" {
		if err := loopbackAddr(*httpAddr); err != nil {
			return exitBadInput, badInput("--http %q: %v", *httpAddr, err)
		}
	}
	storage, err := loadStorage(*storagePath)
	if err != nil {
		return exitBadInput, err
	}
	ad, err := adapter.ByName(*adapterName)
	if err != nil {
		return exitBadInput, badInput("--adapter %q: %v", *adapterName, err)
	}
	canonical, live := "", ""
	if *rewrite != "" {
		var ok bool
		live, canonical, ok = strings.Cut(*rewrite, "=")
		if !ok || live == "" || canonical == "" {
			return exitBadInput, badInput("--base-rewrite %q: want LIVE=CANONICAL", *rewrite)
		}
	}
	stamp, also, _ := strings.Cut(*scenario, ",")
	var alsoList []string
	if also != "" {
		alsoList = strings.Split(also, ",")
	}
	var lb *mcp.LazyBrowser
	var rec *mcp.Recording
	var rep *mcp.Replaying
	var driver mcp.DriverFunc
	switch {
	case *replayFile != "":
		rep = &mcp.Replaying{File: *replayFile, Scenario: stamp, Also: alsoList}
		driver = rep.Driver
	default:
		lb = &mcp.LazyBrowser{Options: browser.Options{RemoteURL: *cdpURL, SparePage: true, StorageState: storage}} // every task gets a new page: the next one opens ahead
		driver = lb.Driver
		if *recordFile != "" {
			hooks := replay.Hooks{Scrub: replay.NewScrubber(replay.DefaultPatterns, append(replay.SecretsFromEnv(os.Getenv("REPLAYLAB_SECRETS")), storage.Secrets()...)...)}
			if live != "" {
				hooks.Rewrite = replay.BaseRewriter(canonical, live)
			}
			rec = &mcp.Recording{File: *recordFile, Base: canonical, Hooks: hooks, Scenario: stamp, Next: lb.Driver}
			driver = rec.Driver
		}
	}
	log := &trace.Log{}
	cfg := engine.Config{Adapter: ad}
	if *traceFile != "" {
		cfg.Tracer = log
	}
	srv := mcp.NewServer(mcp.Options{Engine: cfg, Driver: driver, AllowFileURLs: *allowFiles, ReadAhead: *readAhead})
	var runErr error
	if *httpAddr != "" {
		runErr = serveMCPHTTP(ctx, *httpAddr, srv, stderr)
	} else {
		runErr = srv.Run(ctx, &mcpsdk.IOTransport{Reader: mcpStdin, Writer: nopWriteCloser{stdout}})
	}
	if errors.Is(runErr, io.EOF) {
		runErr = nil
	}
	errs := []error{runErr}
	if rec != nil {
		errs = append(errs, rec.Save())
	}
	if rep != nil {
		errs = append(errs, rep.Unused())
	}
	if *traceFile != "" {
		if err := capture.WriteFileAtomic(*traceFile, trace.Format(log.Events())); err != nil {
			errs = append(errs, fmt.Errorf("mcp: write the trace: %w", err))
		}
	}
	if lb != nil {
		if ctx.Err() != nil {
			// a signal: end Chromium at once (AGT-1: exit within a second)
			errs = append(errs, lb.Kill())
		} else {
			errs = append(errs, lb.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return exitFailed, fmt.Errorf("%w", err)
	}
	return exitOK, nil
}

// loopbackAddr refuses listen addresses off the loopback: the server
// drives a browser for whoever connects.
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("loopback addresses only")
	}
	return nil
}

// serveMCPHTTP serves the server over MCP's streamable HTTP transport at
// /mcp until ctx ends (a signal), then closes every page. Every client
// session talks to the same server, so a task begun in one session can be
// used from the next (the Inspector's CLI opens one session per call).
func serveMCPHTTP(ctx context.Context, addr string, srv *mcp.Server, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv.SDK() }, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "replaylab mcp: serving MCP (streamable HTTP) at http://%s/mcp; interrupt to stop\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	// clients keep a stream open per session (GET /mcp): wait a moment
	// for calls in flight, then close what is left
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	serr := hs.Shutdown(sctx)
	if errors.Is(serr, context.DeadlineExceeded) {
		serr = hs.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, serr, srv.Close())
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
