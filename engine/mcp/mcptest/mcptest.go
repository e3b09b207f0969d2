// Package mcptest runs a replaylab MCP server in process for tests and
// benchmarks that look at what goes over the wire: the server on one end
// of an in-memory transport, a plain SDK client session on the other
// (the raw CallToolResult, not mcp.Client's typed results), and calls
// that fail the test on a protocol or tool error. Everything is closed
// when the test ends.
//
//	s := mcptest.Start(b, mcp.Options{Engine: cfg, Driver: mcptest.Replaying(session)})
//	s.Call("begin", mcp.BeginIn{Goal: "bench"})
//	res := s.Call("snapshot", mcp.SnapshotIn{PageIn: mcp.PageIn{Task: "t1"}})
package mcptest

import (
	"context"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/replay"
)

// Session is a client session to an in-process server.
type Session struct {
	tb testing.TB
	// CS is the SDK's session, for what Call does not cover (ListTools).
	CS *mcpsdk.ClientSession
}

// Start runs a server with opts and connects a client to it ("mcptest",
// version "dev"); both are closed when tb ends.
func Start(tb testing.TB, opts mcp.Options) *Session {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	st, ct := mcpsdk.NewInMemoryTransports()
	srv := mcp.NewServer(opts)
	go func() { _ = srv.Run(ctx, st) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "mcptest", Version: "dev"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return &Session{tb: tb, CS: cs}
}

// Call calls tool with args and returns its result; an error, or a
// result marked as a tool error, fails the test.
func (s *Session) Call(tool string, args any) *mcpsdk.CallToolResult {
	s.tb.Helper()
	res, err := s.CS.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.tb.Fatal(err)
	}
	if res.IsError {
		s.tb.Fatalf("%s: %s", tool, mcp.TextOf(res))
	}
	return res
}

// Replaying opens every page on a new replay of rec.
func Replaying(rec *replay.Session) mcp.DriverFunc {
	return func(context.Context, string, string) (engine.Driver, func() error, error) {
		return replay.NewDriver(rec), func() error { return nil }, nil
	}
}
