package mcp_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/mcp/mcptest"
)

// realtimeChat is the scripted chat page on the wall clock: its waits
// take real time, as a browser's do.
type realtimeChat struct{ chatDriver }

func (d *realtimeChat) Now() time.Time { return time.Now() }
func (d *realtimeChat) Sleep(ctx context.Context, dur time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(dur):
		return nil
	}
}

func chatDrivers(realtime bool) mcp.DriverFunc {
	return func(context.Context, string, string) (engine.Driver, func() error, error) {
		if realtime {
			return &realtimeChat{}, func() error { return nil }, nil
		}
		return &chatDriver{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, func() error { return nil }, nil
	}
}

// toolErrorOf reads a tool error the way every client can: isError set,
// no structured content (nothing an output-schema check could reject),
// the ToolError's JSON as the text.
func toolErrorOf(t *testing.T, res *mcpsdk.CallToolResult) mcp.ToolError {
	t.Helper()
	if !res.IsError {
		t.Fatalf("got a result, want a tool error: %s", mcp.TextOf(res))
	}
	if res.StructuredContent != nil {
		t.Errorf("a tool error carries structured content %v; an output-schema check would reject it", res.StructuredContent)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(mcp.TextOf(res)), &raw); err != nil {
		t.Fatalf("the error's text is not JSON: %v: %s", err, mcp.TextOf(res))
	}
	if raw["ok"] != false {
		t.Errorf("the error's JSON has ok=%v, want false", raw["ok"])
	}
	var te mcp.ToolError
	_ = json.Unmarshal([]byte(mcp.TextOf(res)), &te)
	return te
}

func TestArgumentErrorsCarryCodes(t *testing.T) {
	ctx := context.Background()
	s := mcptest.Start(t, mcp.Options{Driver: chatDrivers(false)})
	s.Call("begin", mcp.BeginIn{Goal: "arguments"})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       errcode.Code
		field      string
	}{
		{"unknown field", "snapshot", map[string]any{"task": "t1", "viewport": "wide"}, mcp.UnknownArgument, "viewport"},
		{"unknown nested field", "fill", map[string]any{"task": "t1", "target": map[string]any{"role": "textbox", "label": "x"}, "text": "a"}, mcp.UnknownArgument, "target.label"},
		{"missing field", "fill", map[string]any{"task": "t1", "target": map[string]any{"role": "textbox"}}, mcp.MissingArgument, "text"},
		{"missing task", "snapshot", map[string]any{}, mcp.MissingArgument, "task"},
		{"wrong type", "find", map[string]any{"task": "t1", "limit": "ten"}, mcp.WrongArgumentType, "limit"},
		{"fraction for an integer", "find", map[string]any{"task": "t1", "limit": 2.5}, mcp.WrongArgumentType, "limit"},
		{"wrong nested type", "click", map[string]any{"task": "t1", "target": map[string]any{"role": "button"}, "expect": map[string]any{"newAnswer": "yes"}}, mcp.WrongArgumentType, "expect.newAnswer"},
		{"engine's own refusal", "click", map[string]any{"task": "t1", "target": map[string]any{"role": "button", "name": "Send"}}, engine.MissingExpectation, ""},
		{"no such task", "snapshot", map[string]any{"task": "t9"}, mcp.TaskNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.CS.CallTool(ctx, &mcpsdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			te := toolErrorOf(t, res)
			if te.Code != tc.code || te.Field != tc.field {
				t.Errorf("got code %s field %q (%s), want %s field %q", te.Code, te.Field, te.Message, tc.code, tc.field)
			}
		})
	}
}

func TestProgressDuringLongWait(t *testing.T) {
	ctx := context.Background()
	var notes atomic.Int32
	var lastToken atomic.Value
	st, ct := mcpsdk.NewInMemoryTransports()
	srv := mcp.NewServer(mcp.Options{Driver: chatDrivers(true), ProgressInterval: 100 * time.Millisecond})
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = srv.Run(sctx, st) }()
	cl := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "progress", Version: "dev"}, &mcpsdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
			notes.Add(1)
			lastToken.Store(req.Params.ProgressToken)
		}})
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any, token any) *mcpsdk.CallToolResult {
		t.Helper()
		p := &mcpsdk.CallToolParams{Name: name, Arguments: args}
		if token != nil {
			p.SetProgressToken(token)
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	call("begin", map[string]any{"goal": "wait"}, nil)
	call("navigate", map[string]any{"task": "t1", "url": "http://chat.test/"}, nil)
	res := call("waitFor", map[string]any{"task": "t1", "expect": map[string]any{"textVisible": "never shown", "timeoutMs": 900}}, "tok-1")
	if te := toolErrorOf(t, res); te.Code != engine.WaitTimeout {
		t.Errorf("got %s, want WAIT_TIMEOUT", te.Code)
	}
	if n := notes.Load(); n < 4 {
		t.Errorf("got %d progress notifications during a 900 ms wait at 100 ms, want at least 4", n)
	}
	if tok := lastToken.Load(); tok != "tok-1" {
		t.Errorf("progress carried token %v, want the request's tok-1", tok)
	}
	before := notes.Load()
	call("waitFor", map[string]any{"task": "t1", "expect": map[string]any{"textVisible": "never shown", "timeoutMs": 400}}, nil)
	if n := notes.Load(); n != before {
		t.Errorf("a call without a progress token got %d progress notifications", n-before)
	}
}

// TestCancelledCallGetsNoResponse speaks JSON-RPC by hand: after
// notifications/cancelled the long call is never answered, while the
// session goes on answering.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	ctx := context.Background()
	st, ct := mcpsdk.NewInMemoryTransports()
	srv := mcp.NewServer(mcp.Options{Driver: chatDrivers(true)})
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = srv.Run(sctx, st) }()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msgs := make(chan jsonrpc.Message, 16)
	go func() {
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				close(msgs)
				return
			}
			msgs <- m
		}
	}()
	send := func(id any, method string, params any) {
		t.Helper()
		body, _ := json.Marshal(params)
		req := &jsonrpc.Request{Method: method, Params: body}
		if id != nil {
			var err error
			if req.ID, err = jsonrpc.MakeID(float64(id.(int))); err != nil {
				t.Fatal(err)
			}
		}
		if err := conn.Write(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	await := func(id float64, within time.Duration) map[float64]bool {
		t.Helper()
		seen := map[float64]bool{}
		deadline := time.After(within)
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatal("the server closed the connection")
				}
				if r, ok := m.(*jsonrpc.Response); ok {
					var f float64
					switch x := r.ID.Raw().(type) {
					case int64:
						f = float64(x)
					case float64:
						f = x
					}
					seen[f] = true
					if f == id {
						return seen
					}
				}
			case <-deadline:
				return seen
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}})
	if !await(1, 5*time.Second)[1] {
		t.Fatal("no answer to initialize")
	}
	send(nil, "notifications/initialized", map[string]any{})
	send(2, "tools/call", map[string]any{"name": "begin", "arguments": map[string]any{"goal": "cancel"}})
	send(3, "tools/call", map[string]any{"name": "navigate", "arguments": map[string]any{"task": "t1", "url": "http://chat.test/"}})
	if !await(3, 5*time.Second)[3] {
		t.Fatal("no answer to navigate")
	}
	send(4, "tools/call", map[string]any{"name": "waitFor", "arguments": map[string]any{"task": "t1", "expect": map[string]any{"textVisible": "never", "timeoutMs": 20000}}})
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	send(nil, "notifications/cancelled", map[string]any{"requestId": 4, "reason": "the user stopped it"})
	// the task's next call runs once the cancelled wait let go of it
	send(5, "tools/call", map[string]any{"name": "snapshot", "arguments": map[string]any{"task": "t1"}})
	seen := await(5, 5*time.Second)
	if !seen[5] {
		t.Fatalf("no answer to the call after the cancellation within 5 s (seen %v)", seen)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the cancelled wait held the task for %s", took)
	}
	for id := range await(-1, 500*time.Millisecond) {
		seen[id] = true
	}
	if seen[4] {
		t.Error("the cancelled call got a response")
	}
}
