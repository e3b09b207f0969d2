package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/mcp/mcptest"
	"github.com/replaylab/replaylab/engine/observe"
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
	te, err := mcp.ToolErrorOf(res)
	if err != nil {
		t.Fatal(err)
	}
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

// TestProgressDuringLongWait runs in a testing/synctest bubble: the wall
// clock driver's waits and the server's progress ticker run on the
// bubble's fake time, so the count of notifications is exact whatever
// the machine's load.
func TestProgressDuringLongWait(t *testing.T) {
	synctest.Test(t, testProgressDuringLongWait)
}

func testProgressDuringLongWait(t *testing.T) {
	ctx := t.Context()
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
	// the client handles notifications apart from responses: the first
	// call's last one may still be on its way when its result arrives;
	// once every goroutine of the bubble waits, none is
	settled := func() int32 {
		synctest.Wait()
		return notes.Load()
	}
	before := settled()
	call("waitFor", map[string]any{"task": "t1", "expect": map[string]any{"textVisible": "never shown", "timeoutMs": 400}}, nil)
	if n := settled(); n != before {
		t.Errorf("a call without a progress token got %d progress notifications", n-before)
	}
}

// TestCancelledCallGetsNoResponse speaks JSON-RPC by hand: after
// notifications/cancelled the long call is never answered, while the
// session goes on answering at once. It runs in a testing/synctest
// bubble: "at once" is no fake time at all, and "never" is every
// goroutine waiting with no response sent.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	synctest.Test(t, testCancelledCallGetsNoResponse)
}

func testCancelledCallGetsNoResponse(t *testing.T) {
	ctx := t.Context()
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
	// await reads responses until id's (-1: until every goroutine of the
	// bubble waits with nothing more to read)
	await := func(id float64) map[float64]bool {
		t.Helper()
		seen := map[float64]bool{}
		for {
			if id < 0 {
				synctest.Wait()
				select {
				case m, ok := <-msgs:
					if !ok {
						return seen
					}
					if r, ok := m.(*jsonrpc.Response); ok {
						seen[responseID(r)] = true
					}
					continue
				default:
					return seen
				}
			}
			m, ok := <-msgs
			if !ok {
				t.Fatal("the server closed the connection")
			}
			if r, ok := m.(*jsonrpc.Response); ok {
				f := responseID(r)
				seen[f] = true
				if f == id {
					return seen
				}
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}})
	if !await(1)[1] {
		t.Fatal("no answer to initialize")
	}
	send(nil, "notifications/initialized", map[string]any{})
	send(2, "tools/call", map[string]any{"name": "begin", "arguments": map[string]any{"goal": "cancel"}})
	// the server runs calls concurrently: the task exists once begin answered
	if !await(2)[2] {
		t.Fatal("no answer to begin")
	}
	send(3, "tools/call", map[string]any{"name": "navigate", "arguments": map[string]any{"task": "t1", "url": "http://chat.test/"}})
	if !await(3)[3] {
		t.Fatal("no answer to navigate")
	}
	send(4, "tools/call", map[string]any{"name": "waitFor", "arguments": map[string]any{"task": "t1", "expect": map[string]any{"textVisible": "never", "timeoutMs": 20000}}})
	synctest.Wait() // the wait runs: every goroutine waits on it
	start := time.Now()
	send(nil, "notifications/cancelled", map[string]any{"requestId": 4, "reason": "the user stopped it"})
	// the task's next call runs once the cancelled wait let go of it
	send(5, "tools/call", map[string]any{"name": "snapshot", "arguments": map[string]any{"task": "t1"}})
	seen := await(5)
	if !seen[5] {
		t.Fatalf("no answer to the call after the cancellation (seen %v)", seen)
	}
	if took := time.Since(start); took != 0 { // the bubble's time: only a wait moves it
		t.Errorf("the cancelled wait held the task for %s of its 20 s", took)
	}
	for id := range await(-1) {
		seen[id] = true
	}
	if seen[4] {
		t.Error("the cancelled call got a response")
	}
}

// responseID is a JSON-RPC response's numeric id.
func responseID(r *jsonrpc.Response) float64 {
	switch x := r.ID.Raw().(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// refOf is the ref of the one element with role and name (and a context
// holding ctxText, when given) among els.
func refOf(t *testing.T, els []observe.Element, role, name, ctxText string) string {
	t.Helper()
	var refs []string
	for _, e := range els {
		if e.Role == role && e.Name == name && strings.Contains(e.Context, ctxText) {
			refs = append(refs, e.Ref)
		}
	}
	if len(refs) != 1 {
		t.Fatalf("%d elements %s %q in %q among %+v, want 1", len(refs), role, name, ctxText, els)
	}
	return refs[0]
}

// TestSendInFourCalls: begin, then navigate → fill → click → waitAnswer,
// each action by a ref the previous result carried: no snapshot call and
// no STALE_REF in between (AGT-2); the first ref is stale afterwards
// (ID-1).
func TestSendInFourCalls(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 60*time.Second)
	ctx := context.Background()
	task, err := c.Begin(ctx, "ask the chat")
	if err != nil {
		t.Fatal(err)
	}
	p := task.Page("main")
	if err := p.Navigate(ctx, s.URL+"/chat"); err != nil {
		t.Fatal(err)
	}
	opened := p.After()
	message := refOf(t, opened.Elements, "textbox", "Message", "")
	if err := p.Fill(ctx, engine.Target{Ref: message}, "What is a ref?"); err != nil {
		t.Fatalf("fill by the ref navigate returned: %v", err)
	}
	filled := p.After()
	if filled.Snapshot <= opened.Snapshot {
		t.Errorf("fill left snapshot %d, navigate %d", filled.Snapshot, opened.Snapshot)
	}
	send := refOf(t, filled.Elements, "button", "Send", "")
	if err := p.Click(ctx, engine.Target{Ref: send}, engine.Expect{NewAnswer: true, Timeout: 10 * time.Second}); err != nil {
		t.Fatalf("click by the ref fill returned: %v", err)
	}
	r, err := p.WaitAnswer(ctx, answer.Options{Timeout: 20 * time.Second})
	if err != nil || r.Status != answer.StatusComplete {
		t.Fatalf("waitAnswer: %+v %v", r, err)
	}
	if n := c.Calls(); n != 5 {
		t.Errorf("begin + the send took %d calls, want 5 (begin, navigate, fill, click, waitAnswer)", n)
	}
	err = p.Fill(ctx, engine.Target{Ref: message}, "again")
	if !errors.Is(err, locate.StaleRef) {
		t.Errorf("the navigate's ref after two actions: %v, want STALE_REF (ID-1)", err)
	}
	var sizes []int64
	for _, cm := range task.CallLog() {
		sizes = append(sizes, cm.ResponseBytes)
		if cm.ResponseBytes > 8192 {
			t.Errorf("%s's result is %d bytes, over the page view's 8,192", cm.Tool, cm.ResponseBytes)
		}
	}
	t.Logf("result bytes per call: %v", sizes)
}

// TestLookAlikesFromTheFirstSnapshot: three Delete buttons, one per file
// row; the navigate result alone tells them apart by their rows (AGT-3).
func TestLookAlikesFromTheFirstSnapshot(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 60*time.Second)
	ctx := context.Background()
	task, err := c.Begin(ctx, "delete notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := task.Page("main")
	if err := p.Navigate(ctx, s.URL+"/act/files"); err != nil {
		t.Fatal(err)
	}
	// the first snapshot (navigate's result) tells the rows apart
	ref := refOf(t, p.After().Elements, "button", "Delete", "notes.txt")
	if err := p.Click(ctx, engine.Target{Ref: ref}, engine.Expect{TextVisible: "Deleted: notes.txt", Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("the Delete of the notes.txt row, by its ref from the first snapshot: %v", err)
	}
	// a bare Delete is refused; each candidate says which row it is in,
	// with a ref of the snapshot the refusal read
	err = p.Click(ctx, engine.ByRole("button", "Delete"), engine.Expect{TextVisible: "Deleted: notes.txt, todo.md", Timeout: time.Second})
	var me *mcp.Error
	if !errors.As(err, &me) || me.Code != locate.TargetAmbiguous || len(me.Candidates) != 2 {
		t.Fatalf("a bare Delete: %v, want TARGET_AMBIGUOUS with 2 candidates", err)
	}
	for i, file := range []string{"report.pdf", "todo.md"} {
		if !strings.Contains(me.Candidates[i], `row "`+file) {
			t.Errorf("candidate %d %q does not name its row's %s", i, me.Candidates[i], file)
		}
	}
	todo := regexp.MustCompile(`ref=(\S+)`).FindStringSubmatch(me.Candidates[1])
	if todo == nil {
		t.Fatalf("candidate %q has no ref", me.Candidates[1])
	}
	if err := p.Click(ctx, engine.Target{Ref: todo[1]}, engine.Expect{TextVisible: "Deleted: notes.txt, todo.md", Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("the candidate's ref: %v", err)
	}
	within := engine.Target{Locator: locate.Locator{Role: "button", Name: "Delete", Within: "report.pdf"}}
	if err := p.Click(ctx, within, engine.Expect{TextVisible: "Deleted: notes.txt, todo.md, report.pdf", Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("Delete within report.pdf: %v", err)
	}
	if n := c.Calls(); n != 6 {
		t.Errorf("%d calls, want 6", n)
	}
}

// TestHonestTaxonomy: each failure its own code (AGT-4).
func TestHonestTaxonomy(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 60*time.Second)
	ctx := context.Background()
	task, err := c.Begin(ctx, "taxonomy")
	if err != nil {
		t.Fatal(err)
	}
	p := task.Page("main")
	code := errcode.Of

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	err = p.Navigate(ctx, closed)
	if code(err) != engine.NavigationFailed || !strings.Contains(err.Error(), "ERR_CONNECTION_REFUSED") {
		t.Errorf("a refused connection: %v, want NAVIGATION_FAILED with the network error", err)
	}
	if err := p.Navigate(ctx, "file:///etc/hostname"); code(err) != mcp.URLNotAllowed {
		t.Errorf("a file: URL: %v, want URL_NOT_ALLOWED", err)
	}
	if err := p.Navigate(ctx, s.URL+"/chat"); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"s99e1", "s1e999", "send-button"} {
		if err := p.Fill(ctx, engine.Target{Ref: ref}, "x"); code(err) != locate.InvalidRef || strings.Contains(err.Error(), "snapshot -1") {
			t.Errorf("the made-up ref %s: %v, want INVALID_REF", ref, err)
		}
	}
	stale := refOf(t, p.After().Elements, "button", "Send", "")
	if _, err := p.Snapshot(ctx, "page"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, engine.Target{Ref: stale}, engine.Expect{NewAnswer: true}); !errors.Is(err, locate.StaleRef) {
		t.Fatalf("click by a stale ref: %v", err)
	}
	if _, err := p.WaitAnswer(ctx, answer.Options{Timeout: 3 * time.Second}); code(err) != engine.NoBaseline {
		t.Errorf("waitAnswer after a refused click: %v, want NO_BASELINE (the refusal armed no wait)", err)
	}
	// a full answer's text in bounded pages
	v, err := p.Snapshot(ctx, "full")
	if err != nil || len(v.Groups) == 0 {
		t.Fatalf("no groups on the chat: %v", err)
	}
	g := v.Groups[len(v.Groups)-1].ID
	first, err := p.ReadGroup(ctx, g, 0, 5)
	if err != nil || len([]rune(first.Text)) != min(5, first.Total) || first.HasMore != (first.Total > 5) {
		t.Errorf("readAnswer %s 0..5: %+v %v", g, first, err)
	}
	rest, err := p.ReadGroup(ctx, g, 5, 0)
	if err != nil || first.Text+rest.Text == "" || rest.HasMore || len([]rune(first.Text+rest.Text)) != first.Total {
		t.Errorf("readAnswer %s from 5: %+v %v", g, rest, err)
	}
	if _, err := p.ReadGroup(ctx, "no-such-group", 0, 0); code(err) != engine.GroupNotFound {
		t.Errorf("an unknown group: %v, want GROUP_NOT_FOUND", err)
	}
	// blocked: the one recheck, then finish is refused and abandon ends it
	if err := p.Navigate(ctx, s.URL+"/act/never"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, engine.ByRole("button", "Save"), engine.Expect{TextVisible: "Saved", Timeout: 300 * time.Millisecond}); code(err) != engine.OutcomeUnknown {
		t.Fatalf("save: %v", err)
	}
	if ok, err := task.Recheck(ctx); ok || err != nil {
		t.Fatalf("recheck: %v %v", ok, err)
	}
	if err := task.Finish(ctx); code(err) != engine.TaskBlocked || !strings.Contains(err.Error(), "abandon") {
		t.Errorf("finish while blocked: %v, want TASK_BLOCKED naming abandon", err)
	}
	if err := task.Abandon(ctx, ""); code(err) != engine.InvalidArgument {
		t.Errorf("abandon without a reason: %v", err)
	}
	if err := task.Abandon(ctx, "the save's outcome cannot be known"); err != nil {
		t.Errorf("abandon a blocked task: %v", err)
	}
	if err := p.Navigate(ctx, s.URL+"/chat"); code(err) != mcp.TaskFinished {
		t.Errorf("after abandon: %v, want TASK_FINISHED", err)
	}
	if n := s.ActSaves("never"); n != 1 {
		t.Errorf("Save reached the sim %d times, want once", n)
	}
}
