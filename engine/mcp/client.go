package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
)

// Codes the client adds: the call got no answer in time, or the server is
// gone (exited, closed its output, or the connection broke).
const (
	CallTimeout = errcode.CallTimeout
	ServerGone  = errcode.ServerGone
	// BadResult: the server answered with something this client cannot
	// read.
	BadResult = errcode.BadResult
)

// DefaultCallTimeout bounds every call beyond the operation's own wait.
const DefaultCallTimeout = 30 * time.Second

// ConnectOptions say which server to talk to. Exactly one of Command and
// Transport is set.
type ConnectOptions struct {
	// Command starts a server process, e.g. {"replaylab", "mcp"}, and talks
	// to it over its stdin and stdout.
	Command []string
	// Env is added to the process's environment.
	Env []string
	// Stderr receives the process's standard error; default os.Stderr.
	Stderr io.Writer
	// Transport attaches to a running server, e.g. one end of
	// mcpsdk.NewInMemoryTransports whose other end a Server runs on, or an
	// IOTransport over a process's pipes.
	Transport mcpsdk.Transport
	// CallTimeout bounds each call on top of the wait the operation
	// itself asks for (an expectation's timeout, waitAnswer's timeout);
	// default DefaultCallTimeout.
	CallTimeout time.Duration
}

// Client is a connection to a replaylab MCP server. Its Task and Page
// mirror the in-process engine's methods, so one piece of agent code can
// run against either. The SDK numbers the requests and matches the
// responses; the client bounds every call and reports a dead server as
// an error with code SERVER_GONE, never a hang.
type Client struct {
	cs      *mcpsdk.ClientSession
	cmd     *exec.Cmd
	timeout time.Duration

	done    chan struct{} // closed when the session ends
	waitErr error

	mu     sync.Mutex
	calls  int
	closed bool // Close returned
}

// Connect starts or attaches to a server and completes the MCP handshake.
func Connect(ctx context.Context, opts ConnectOptions) (*Client, error) {
	if (len(opts.Command) == 0) == (opts.Transport == nil) {
		return nil, errors.New("mcp: connect: set exactly one of Command and Transport")
	}
	c := &Client{timeout: opts.CallTimeout, done: make(chan struct{})}
	if c.timeout <= 0 {
		c.timeout = DefaultCallTimeout
	}
	t := opts.Transport
	if len(opts.Command) > 0 {
		c.cmd = exec.Command(opts.Command[0], opts.Command[1:]...)
		c.cmd.Env = append(os.Environ(), opts.Env...)
		c.cmd.Stderr = opts.Stderr
		if c.cmd.Stderr == nil {
			c.cmd.Stderr = os.Stderr
		}
		t = &mcpsdk.CommandTransport{Command: c.cmd, TerminateDuration: 10 * time.Second}
	}
	cl := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "replaylab-client", Version: "dev"}, nil)
	hctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cs, err := cl.Connect(hctx, t, nil)
	if err != nil {
		if c.cmd != nil && c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
		return nil, fmt.Errorf("mcp: connect: %w", err)
	}
	c.cs = cs
	go func() {
		c.waitErr = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

// Close ends the session; a started server sees its stdin close and
// exits (it is killed if it does not).
func (c *Client) Close() error {
	err := c.cs.Close()
	<-c.done
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	if errors.Is(err, io.EOF) || errors.Is(err, mcpsdk.ErrConnectionClosed) {
		err = nil
	}
	return err
}

// Process is the started server's process, nil when attached.
func (c *Client) Process() *os.Process {
	if c.cmd == nil {
		return nil
	}
	return c.cmd.Process
}

// ProcessState is how the started server exited, once Close returned
// (Close waits for the exit; a non-zero exit also makes it return an
// error); nil before, and when attached.
func (c *Client) ProcessState() *os.ProcessState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil || !c.closed {
		return nil
	}
	return c.cmd.ProcessState
}

// Calls counts the tool calls made so far.
func (c *Client) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Tools lists the server's tools.
func (c *Client) Tools(ctx context.Context) ([]*mcpsdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	r, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, c.transportError(ctx, "tools/list", err)
	}
	return r.Tools, nil
}

// Error is a failed call: a tool error from the server with its stable
// code, or the client's own CALL_TIMEOUT, SERVER_GONE or BAD_RESULT.
// errcode.Of reads its code and errors.Is matches it (engine, locate or
// mcp codes alike), as for in-process errors.
type Error struct {
	Tool string
	ToolError
	Err error // the transport error, for the client's own codes
}

func (e *Error) Error() string {
	msg := "mcp: " + e.Tool + ": " + string(e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// ErrorCode returns the stable code.
func (e *Error) ErrorCode() string { return string(e.Code) }

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the code (an errcode value: engine, locate and mcp codes
// alike).
func (e *Error) Is(target error) bool { return target == e.Code }

// transportError classifies an error of the SDK's call.
func (c *Client) transportError(ctx context.Context, tool string, err error) error {
	select {
	case <-c.done:
		return &Error{Tool: tool, ToolError: ToolError{Code: ServerGone, Message: "the server is gone: " + err.Error()}, Err: err}
	default:
	}
	switch {
	case errors.Is(err, mcpsdk.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe):
		return &Error{Tool: tool, ToolError: ToolError{Code: ServerGone, Message: "the server is gone: " + err.Error()}, Err: err}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Tool: tool, ToolError: ToolError{Code: CallTimeout, Message: "no answer in time: " + err.Error()}, Err: err}
	}
	return fmt.Errorf("mcp: %s: %w", tool, err)
}

// call calls a tool with args, bounded by the call timeout plus wait, and
// decodes the result into out (nil to drop it).
func (c *Client) call(ctx context.Context, t *Task, tool string, wait time.Duration, args, out any) error {
	select {
	case <-c.done:
		return &Error{Tool: tool, ToolError: ToolError{Code: ServerGone, Message: "the session has ended"}, Err: c.waitErr}
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout+wait)
	defer cancel()
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	res, err := c.cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return c.transportError(ctx, tool, err)
	}
	if t != nil {
		t.note(tool, res.Meta)
	}
	if res.IsError {
		// the error's JSON is its text (no structured content)
		e := &Error{Tool: tool}
		if json.Unmarshal([]byte(textOf(res)), &e.ToolError) != nil || e.Code == "" {
			e.ToolError = ToolError{Code: BadResult, Message: "a tool error without a code: " + textOf(res)}
		}
		return e
	}
	body, err := ResultJSON(res)
	if err != nil {
		return &Error{Tool: tool, ToolError: ToolError{Code: BadResult, Message: err.Error()}, Err: err}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &Error{Tool: tool, ToolError: ToolError{Code: BadResult, Message: err.Error()}, Err: err}
	}
	return nil
}

// ResultJSON returns the JSON of a successful result: its structured
// content, or, for a tool that returns the page (PageTool: no structured
// content), its text block.
func ResultJSON(res *mcpsdk.CallToolResult) ([]byte, error) {
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	text := textOf(res)
	if !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("the result has no structured content and its text is not JSON: %.200s", text)
	}
	return []byte(text), nil
}

// TextOf returns a result's first text block: for a tool error, the JSON
// of its ToolError.
func TextOf(res *mcpsdk.CallToolResult) string { return textOf(res) }

func textOf(res *mcpsdk.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcpsdk.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// Task is a task on the server.
type Task struct {
	ID   string
	Goal string

	c     *Client
	mu    sync.Mutex
	pages map[string]*Page
	log   []engine.CallMetrics
}

// Begin starts a task on the server.
func (c *Client) Begin(ctx context.Context, goal string) (*Task, error) {
	var out BeginOut
	t := &Task{Goal: goal, c: c, pages: map[string]*Page{}}
	if err := c.call(ctx, t, "begin", 0, BeginIn{Goal: goal}, &out); err != nil {
		return nil, err
	}
	t.ID = out.Task
	return t, nil
}

func (t *Task) note(tool string, meta mcpsdk.Meta) {
	num := func(k string) int64 {
		if f, ok := meta[k].(float64); ok {
			return int64(f)
		}
		return 0
	}
	t.mu.Lock()
	t.log = append(t.log, engine.CallMetrics{Tool: tool, RequestBytes: num(MetaRequestBytes), ResponseBytes: num(MetaResponseBytes)})
	t.mu.Unlock()
}

// CallLog returns the sizes of every call this client made on the task,
// in order, as the server measured them.
func (t *Task) CallLog() []engine.CallMetrics {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]engine.CallMetrics(nil), t.log...)
}

// Page names a tab of the task; the server opens it on its first use.
func (t *Task) Page(name string) *Page {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pages[name]; p != nil {
		return p
	}
	p := &Page{Name: name, t: t}
	t.pages[name] = p
	return p
}

// Recheck re-checks the expectation that blocked the task, once.
func (t *Task) Recheck(ctx context.Context) (bool, error) {
	var out RecheckOut
	err := t.c.call(ctx, t, "recheck", 0, TaskIn{Task: t.ID}, &out)
	return out.LateSuccess, err
}

// Finish ends the task.
func (t *Task) Finish(ctx context.Context) error {
	return t.c.call(ctx, t, "finish", 0, TaskIn{Task: t.ID}, nil)
}

// Abandon gives the task up with a reason (allowed while it is blocked).
func (t *Task) Abandon(ctx context.Context, reason string) error {
	return t.c.call(ctx, t, "abandon", 0, AbandonIn{Task: t.ID, Reason: reason}, nil)
}

// ReadGroup reads limit characters of an answer group's text from offset.
func (p *Page) ReadGroup(ctx context.Context, id string, offset, limit int) (engine.GroupText, error) {
	var out engine.GroupText
	err := p.t.c.call(ctx, p.t, "readAnswer", 0, ReadAnswerIn{PageIn: p.in(), Group: id, Offset: offset, Limit: limit}, &out)
	return out, err
}

// Metrics asks the server for the task's totals (bytes, never tokens).
func (t *Task) Metrics(ctx context.Context) (engine.Metrics, error) {
	var m engine.Metrics
	err := t.c.call(ctx, nil, "metrics", 0, TaskIn{Task: t.ID}, &m)
	return m, err
}

// Page is a tab of a task on the server. Its methods take the in-process
// engine.Page's arguments and return its results.
type Page struct {
	Name string
	t    *Task

	mu    sync.Mutex
	after *engine.After
}

// After is the page state the page's last successful navigate, fill,
// click or press left (its snapshot id and next refs), nil before one.
func (p *Page) After() *engine.After {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.after
}

// act calls an action tool and keeps the page state it left.
func (p *Page) act(ctx context.Context, tool string, wait time.Duration, args any) error {
	var out ActOut
	if err := p.t.c.call(ctx, p.t, tool, wait, args, &out); err != nil {
		return err
	}
	p.mu.Lock()
	p.after = out.After
	p.mu.Unlock()
	return nil
}

func (p *Page) in() PageIn { return PageIn{Task: p.t.ID, Page: p.Name} }

// Navigate opens url.
func (p *Page) Navigate(ctx context.Context, url string) error {
	return p.act(ctx, "navigate", 0, NavigateIn{PageIn: p.in(), URL: url})
}

// Snapshot returns a bounded view ("page" or "full").
func (p *Page) Snapshot(ctx context.Context, view string) (*engine.View, error) {
	var v engine.View
	if err := p.t.c.call(ctx, p.t, "snapshot", 0, SnapshotIn{PageIn: p.in(), View: view}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Find runs a fresh find.
func (p *Page) Find(ctx context.Context, q observe.Query) (observe.FindResult, error) {
	var r observe.FindResult
	err := p.t.c.call(ctx, p.t, "find", 0, FindIn{PageIn: p.in(), Role: q.Role, Name: q.Name, Text: q.Text, Href: q.Href, Offset: q.Offset, Limit: q.Limit}, &r)
	return r, err
}

// Extract reads text, tables or search snippets.
func (p *Page) Extract(ctx context.Context, req engine.ExtractRequest) (*engine.Extract, error) {
	var x engine.Extract
	if err := p.t.c.call(ctx, p.t, "extract", 0, ExtractIn{PageIn: p.in(), What: req.What, Query: req.Query}, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// Fill types text once and verifies the field.
func (p *Page) Fill(ctx context.Context, t engine.Target, text string) error {
	return p.act(ctx, "fill", 0, FillIn{PageIn: p.in(), Target: targetOf(t), Text: text})
}

func outcomeWait(x engine.Expect) time.Duration {
	if x.Timeout > 0 {
		return x.Timeout
	}
	return engine.DefaultOutcomeTimeout
}

// wireExpect is nil for an empty expectation, so the server's engine
// reports MISSING_EXPECTATION itself.
func wireExpect(x engine.Expect) *Expect {
	if x == (engine.Expect{}) {
		return nil
	}
	return expectOf(x)
}

// Click clicks the target and waits for the expected outcome.
func (p *Page) Click(ctx context.Context, t engine.Target, x engine.Expect) error {
	return p.act(ctx, "click", outcomeWait(x), ActIn{PageIn: p.in(), Target: targetOf(t), Expect: wireExpect(x)})
}

// Press presses key on the target and waits for the expected outcome.
func (p *Page) Press(ctx context.Context, t engine.Target, key string, x engine.Expect) error {
	return p.act(ctx, "press", outcomeWait(x), ActIn{PageIn: p.in(), Target: targetOf(t), Key: key, Expect: wireExpect(x)})
}

// WaitAnswer waits for the new answer group.
func (p *Page) WaitAnswer(ctx context.Context, opt answer.Options) (answer.Result, error) {
	wait := opt.Timeout
	if wait <= 0 {
		wait = answer.DefaultOptions.Timeout
	}
	var out AnswerOut
	if err := p.t.c.call(ctx, p.t, "waitAnswer", wait, WaitAnswerIn{PageIn: p.in(), TimeoutMS: int(opt.Timeout / time.Millisecond), Media: opt.Media}, &out); err != nil {
		return answer.Result{}, err
	}
	return out.result(), nil
}

// WaitFor waits, without acting, until x holds.
func (p *Page) WaitFor(ctx context.Context, x engine.Expect) error {
	return p.t.c.call(ctx, p.t, "waitFor", outcomeWait(x), VerifyOutcomeIn{PageIn: p.in(), Expect: *expectOf(x)}, nil)
}

// VerifyField compares the field's real value with want.
func (p *Page) VerifyField(ctx context.Context, t engine.Target, want string) error {
	return p.t.c.call(ctx, p.t, "verifyField", 0, VerifyFieldIn{PageIn: p.in(), Target: targetOf(t), Value: want}, nil)
}

// VerifyOutcome checks x once.
func (p *Page) VerifyOutcome(ctx context.Context, x engine.Expect) error {
	return p.t.c.call(ctx, p.t, "verifyOutcome", 0, VerifyOutcomeIn{PageIn: p.in(), Expect: *expectOf(x)}, nil)
}

// Changes summarises the page's last two observations; ok is false until
// there were two.
func (p *Page) Changes(ctx context.Context) (monitor.ChangeSummary, bool, error) {
	var out ChangesOut
	if err := p.t.c.call(ctx, p.t, "changes", 0, p.in(), &out); err != nil {
		return monitor.ChangeSummary{}, false, err
	}
	if !out.Known || out.Summary == nil {
		return monitor.ChangeSummary{}, false, nil
	}
	return *out.Summary, true, nil
}

// CallRaw calls any tool by name with args and returns its structured
// result as JSON; a tool error or an unknown tool is an error.
func (c *Client) CallRaw(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	var out json.RawMessage
	if err := c.call(ctx, nil, tool, 0, args, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CallResult calls any tool by name with args and returns the result as
// the SDK received it, a tool error included (IsError, its text, no
// structured content): for checks of what reaches a client on the wire.
// Only a failed call (no result) is an error.
func (c *Client) CallResult(ctx context.Context, tool string, args map[string]any) (*mcpsdk.CallToolResult, error) {
	select {
	case <-c.done:
		return nil, &Error{Tool: tool, ToolError: ToolError{Code: ServerGone, Message: "the session has ended"}, Err: c.waitErr}
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	res, err := c.cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, c.transportError(ctx, tool, err)
	}
	return res, nil
}

// ToolErrorOf reads a tool error as every client can (AGT-1): IsError
// set, no structured content (nothing an output-schema check could
// reject), one text block holding the ToolError's JSON with ok false, a
// code and a message, and no field a ToolError does not have. Anything
// else is an error that says what was found.
func ToolErrorOf(res *mcpsdk.CallToolResult) (ToolError, error) {
	switch {
	case res == nil:
		return ToolError{}, errors.New("no result")
	case !res.IsError:
		return ToolError{}, fmt.Errorf("a result, not a tool error: %s", TextOf(res))
	case res.StructuredContent != nil:
		return ToolError{}, fmt.Errorf("the tool error carries structured content %v: a client that checks it against the output schema rejects the result", res.StructuredContent)
	case len(res.Content) != 1:
		return ToolError{}, fmt.Errorf("the tool error has %d content blocks, want one text block", len(res.Content))
	}
	text, ok := res.Content[0].(*mcpsdk.TextContent)
	if !ok {
		return ToolError{}, fmt.Errorf("the tool error's content is %T, want text", res.Content[0])
	}
	var te ToolError
	dec := json.NewDecoder(strings.NewReader(text.Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&te); err != nil {
		return ToolError{}, fmt.Errorf("the tool error's text is not the JSON of a tool error: %w: %s", err, text.Text)
	}
	switch {
	case te.OK:
		return te, fmt.Errorf("the tool error says ok: %s", text.Text)
	case te.Code == "":
		return te, fmt.Errorf("the tool error has no code: %s", text.Text)
	case te.Message == "":
		return te, fmt.Errorf("the tool error has no message: %s", text.Text)
	}
	return te, nil
}
