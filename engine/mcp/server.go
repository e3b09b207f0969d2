// Package mcp exposes the engine's typed Task/Page operations to agents
// over the Model Context Protocol (the official Go SDK), and is the Go
// client that drives such a server as if it were the in-process engine.
//
// The server has one tool per typed operation — begin, snapshot, find,
// extract, navigate, fill, click, press, waitAnswer, waitFor, verifyField,
// verifyOutcome, recheck, finish, abandon, readAnswer, changes, metrics —
// each with an input schema and an output schema derived from its Go
// types. There is no tool that runs JavaScript or any other code (ACT-5).
//
// A successful call's structured content validates against the tool's
// output schema; the tools that return the page (snapshot, navigate,
// fill, click, press) send their JSON once, as text, and name its schema
// in their _meta instead (PageTool), so a result stays under 8 KB on the
// wire. A failed call is a tool error (isError) with no
// structured content: its one text block is the JSON of a ToolError
// ({"ok":false,"code":"TARGET_AMBIGUOUS","message":…,"count":2,…}), so no
// client's output-schema check rejects it and every client reads the code
// (AGT-1). The server decodes the arguments itself, so argument errors
// carry codes too (UNKNOWN_ARGUMENT, MISSING_ARGUMENT, WRONG_ARGUMENT_TYPE).
// Long calls send progress to a client that gave a progress token; a call
// the client cancelled gets no response.
//
// navigate, fill, click and press return the page they left (ActOut: the
// snapshot id and the refs the next action needs), so fill → click →
// waitAnswer needs no snapshot call (AGT-2). A refused action sends
// nothing and arms no answer wait; a blocked task is ended with abandon;
// navigate opens http(s) only unless Options.AllowFileURLs (AGT-4).
//
// One server serves many tasks; each task has its own pages, baselines and
// outcomes, so a new task never inherits an earlier one's success (ACT-6).
// Every call's argument and result sizes are counted in bytes, per call
// (the result's _meta) and per task (the metrics tool), never as tokens
// (ACT-7).
//
// Pages get their drivers from Options.Driver when first used: the CLI
// starts one headless Chromium lazily on the first page operation and
// gives every page its own browser context (LazyBrowser); the test
// harness hands in its recording or replaying driver.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
)

// Codes the server adds to the engine's (errcode values).
const (
	// TaskNotFound: no task with that id was begun on this server.
	TaskNotFound = errcode.TaskNotFound
	// UnknownArgument: the arguments hold a field the tool does not take.
	UnknownArgument = errcode.UnknownArgument
	// MissingArgument: a required field is missing.
	MissingArgument = errcode.MissingArgument
	// WrongArgumentType: a field has the wrong JSON type.
	WrongArgumentType = errcode.WrongArgumentType
	// URLNotAllowed: navigate was given a URL other than http(s) and the
	// server was not started to allow others (--allow-file-urls).
	URLNotAllowed = errcode.URLNotAllowed
	// TaskFinished: the task finished; its pages are closed.
	TaskFinished = engine.TaskFinished
	// DriverFailed: the page's driver could not be opened (no browser).
	DriverFailed = errcode.DriverFailed
	// ServerClosed: the server is shutting down.
	ServerClosed = errcode.ServerClosed
)

// MainPage is the page name used when a call names none.
const MainPage = "main"

// Meta keys of every tool result: the call's sizes in bytes (ACT-7).
const (
	MetaRequestBytes  = "replaylab/requestBytes"
	MetaResponseBytes = "replaylab/responseBytes"
)

// MetaResultSchema is the key, in the _meta of a tool that returns the
// page (PageTool), of the JSON Schema its result's JSON text follows.
const MetaResultSchema = "replaylab/resultSchema"

// PageTool reports whether a tool's result is the page: the page view
// (snapshot) and the page an action left (navigate, fill, click, press).
// Their result is its JSON once, in the one text block, with no
// structured content, so the whole response message stays under 8 KB on
// a page of any size (structured content and the text block the protocol
// asks to go with it would carry the same JSON twice). They declare no
// output schema, which would oblige structured content; the schema their
// JSON follows is in the tool's _meta (MetaResultSchema). Every other
// tool's result is structured content checked against its output schema,
// with the same JSON as its text block.
func PageTool(name string) bool {
	switch name {
	case "snapshot", "navigate", "fill", "click", "press":
		return true
	}
	return false
}

// DriverFunc opens the driver of a task's page on its first use. close
// releases it; it is called when the task finishes or the server closes.
type DriverFunc func(ctx context.Context, task, page string) (d engine.Driver, close func() error, err error)

// Options configure a server.
type Options struct {
	// Engine configures the one engine every task of the server runs on.
	Engine engine.Config
	// Driver opens page drivers; required.
	Driver DriverFunc
	// Name and Version are reported to clients; defaults "replaylab", "dev".
	Name, Version string
	// ProgressInterval is how often a running call reports progress to a
	// client that asked for it; default DefaultProgressInterval.
	ProgressInterval time.Duration
	// AllowFileURLs lets navigate open file: URLs (and any other scheme);
	// by default only http and https open (URL_NOT_ALLOWED).
	AllowFileURLs bool
	// ReadAhead reads a page after it changed while no call runs on its
	// task (engine.Page.ReadAhead), on drivers that tell of changes
	// (engine.Notifier: the browser), so the next call finds the read
	// done. It costs CPU while a page changes and nobody reads it: at
	// most about a fifth of a core (readAheadShare).
	ReadAhead bool
}

// DefaultProgressInterval is how often a running call reports progress.
const DefaultProgressInterval = time.Second

// Server is the MCP server over one engine.
type Server struct {
	opts Options
	eng  *engine.Engine
	sdk  *mcpsdk.Server

	// life ends when the server stops its calls (Run's context ended):
	// every call's context ends with it
	life      context.Context
	stopCalls context.CancelFunc

	mu     sync.Mutex
	tasks  map[string]*taskState
	closed bool
}

type taskState struct {
	mu       sync.Mutex // serialises the task's operations
	task     *engine.Task
	pages    map[string]*pageState
	order    []string
	finished bool
	metrics  engine.Metrics
}

type pageState struct {
	page  *engine.Page
	close func() error
	stop  func() // ends the read-ahead; nil without one
}

// NewServer returns a server with every tool registered.
func NewServer(opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "replaylab"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, eng: engine.New(opts.Engine), tasks: map[string]*taskState{}}
	s.life, s.stopCalls = context.WithCancel(context.Background())
	s.sdk = mcpsdk.NewServer(&mcpsdk.Implementation{Name: opts.Name, Version: opts.Version}, &mcpsdk.ServerOptions{
		Instructions: "Drive web pages through typed operations only: begin a task, snapshot or find, then fill/click/press with an expected outcome. " +
			"Errors carry a stable code. OUTCOME_UNKNOWN blocks the task: reads still work, mutations and finish are refused; recheck once, never resend.",
	})
	s.register()
	return s
}

// SDK returns the underlying SDK server, e.g. to connect it to a custom
// transport.
func (s *Server) SDK() *mcpsdk.Server { return s.sdk }

// Run serves one client over t until the client disconnects (for stdio:
// stdin closes) or ctx ends, then closes every page.
//
// When ctx ends (a signal), every call in flight is cancelled at once, so
// the server does not wait out a long waitAnswer before it exits. A call
// the client cancelled (notifications/cancelled) gets no response.
func (s *Server) Run(ctx context.Context, t mcpsdk.Transport) error {
	stop := context.AfterFunc(ctx, s.stopCalls)
	defer stop()
	err := s.sdk.Run(ctx, DropCancelled(t))
	var cerr error
	if ctx.Err() != nil {
		// a signal: the pages end with their browser, which the driver's
		// owner kills; closing each first costs seconds on a busy machine
		s.abandon()
	} else {
		cerr = s.Close()
	}
	// the client going away — stdin closed, or a pipe closed while a reply
	// was still being written — is the normal end of a session
	if errors.Is(err, context.Canceled) || errors.Is(err, mcpsdk.ErrConnectionClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.EOF) {
		err = nil
	}
	return errors.Join(err, cerr)
}

// Close closes every open page. Later calls fail with SERVER_CLOSED.
func (s *Server) Close() error {
	s.stopCalls()
	s.mu.Lock()
	s.closed = true
	tasks := make([]*taskState, 0, len(s.tasks))
	ids := make([]string, 0, len(s.tasks))
	for id := range s.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		tasks = append(tasks, s.tasks[id])
	}
	s.mu.Unlock()
	var errs []error
	for _, ts := range tasks {
		ts.mu.Lock()
		errs = append(errs, ts.closePages())
		ts.mu.Unlock()
	}
	return errors.Join(errs...)
}

// abandon stops every call and refuses later ones (SERVER_CLOSED) without
// closing the pages.
func (s *Server) abandon() {
	s.stopCalls()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (ts *taskState) closePages() error {
	var errs []error
	for _, name := range ts.order {
		ps := ts.pages[name]
		if ps.stop != nil {
			ps.stop()
			ps.stop = nil
		}
		if ps.close != nil {
			errs = append(errs, ps.close())
			ps.close = nil
		}
	}
	clear(ts.pages)
	ts.order = nil
	return errors.Join(errs...)
}

// end closes a finished task's pages and forgets what they read: the
// ended task keeps its id, its metrics and its finished state
// (engine.Task.Release).
func (ts *taskState) end() error {
	ts.finished = true
	return errors.Join(ts.closePages(), ts.task.Release())
}

// codeError is an error the server itself raises, with its code.
type codeError struct {
	code    errcode.Code
	op, msg string
}

func (e *codeError) Error() string     { return "mcp: " + e.op + ": " + string(e.code) + ": " + e.msg }
func (e *codeError) ErrorCode() string { return string(e.code) }

// Is matches the code.
func (e *codeError) Is(target error) bool { return target == e.code }

// taskOf returns the task's state, locked; the caller unlocks.
func (s *Server) taskOf(op, id string) (*taskState, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, &codeError{ServerClosed, op, "the server is shutting down"}
	}
	ts := s.tasks[id]
	s.mu.Unlock()
	if ts == nil {
		return nil, &codeError{TaskNotFound, op, fmt.Sprintf("no task %q on this server; call begin first", id)}
	}
	ts.mu.Lock()
	return ts, nil
}

// pageOf returns the task's page, opening its driver on first use. A
// finished task has no pages.
func (s *Server) pageOf(ctx context.Context, op string, ts *taskState, name string) (*engine.Page, error) {
	if name == "" {
		name = MainPage
	}
	if ts.finished {
		return nil, &codeError{TaskFinished, op, "task " + ts.task.ID + " has finished"}
	}
	if ps := ts.pages[name]; ps != nil {
		return ps.page, nil
	}
	if s.opts.Driver == nil {
		return nil, &codeError{DriverFailed, op, "the server has no driver"}
	}
	d, closeFn, err := s.opts.Driver(ctx, ts.task.ID, name)
	if err != nil {
		return nil, &codeError{DriverFailed, op, err.Error()}
	}
	ps := &pageState{page: ts.task.Page(name, d), close: closeFn}
	if n, ok := d.(engine.Notifier); ok && s.opts.ReadAhead {
		ctx, cancel := context.WithCancel(s.life)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.readAhead(ctx, ts, ps, n.Changes())
		}()
		ps.stop = func() { cancel(); <-done }
	}
	ts.pages[name] = ps
	ts.order = append(ts.order, name)
	return ps.page, nil
}

// Read-ahead timing: a change is read readAheadDelay after its report
// (changes in a burst become one read, and Chromium has laid out the
// change), and after a read the next waits readAheadShare times as long
// as that read took, so reading ahead takes at most about 1/(1+share) of
// a core however fast the page changes. While a call runs on the task
// the read waits readAheadDelay again (the call may read the change
// itself; if it did, the read ahead finds the page as the call read it
// and costs one evaluation). A read ahead gives up after readAheadMax (a browser that stopped
// answering holds no call up for longer: the call then reads itself).
const (
	readAheadDelay = 30 * time.Millisecond
	readAheadShare = 4
	readAheadMax   = 5 * time.Second
)

// readAhead reads ps's page after every change its driver reports, while
// no call runs on ts, until ctx ends (the page closes, the server stops).
// The task's lock is taken only when free: a call never waits for more
// than one read ahead already under way.
func (s *Server) readAhead(ctx context.Context, ts *taskState, ps *pageState, changes <-chan struct{}) {
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
		if !wait(readAheadDelay) {
			return
		}
		for !ts.mu.TryLock() {
			if !wait(readAheadDelay) {
				return
			}
		}
		if ctx.Err() != nil || ts.finished {
			ts.mu.Unlock()
			return
		}
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, readAheadMax)
		_ = ps.page.ReadAhead(rctx) // a failed read: the next call reads the page itself
		cancel()
		took := time.Since(start)
		ts.mu.Unlock()
		if !wait(readAheadShare * took) {
			return
		}
	}
}

// handler runs one typed operation. task names the task the call is
// counted against ("" for none).
type handler[In any] func(ctx context.Context, in In) (out any, task string, err error)

// addTool registers a tool whose arguments are In and whose successful
// result is Out: both schemas derive from the Go types (the output schema
// as Out's JSON, so a client can validate structuredContent). A tool that
// returns the page (PageTool) carries its result as JSON text only and
// its schema in the tool's _meta (MetaResultSchema).
//
// The server decodes and checks the arguments itself, so an argument error
// carries a code like any other (UNKNOWN_ARGUMENT, MISSING_ARGUMENT,
// WRONG_ARGUMENT_TYPE). A tool error (isError) carries no structured
// content: its one text block is the JSON of a ToolError ({"ok":false,
// "code":…,"message":…}). Clients that check structured content against
// the output schema — the TypeScript SDK's Client.callTool does, whenever
// structuredContent is present, isError or not — so never reject an
// error, and every client reads the code from the text.
//
// While a call runs longer than Options.ProgressInterval the server sends
// progress notifications to a client that asked for them (a progressToken
// in the request's _meta), so a client that resets its request timeout on
// progress survives a long wait.
func addTool[In, Out any](s *Server, name, desc string, readOnly bool, h handler[In]) {
	t := &mcpsdk.Tool{Name: name, Description: desc, Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: readOnly}}
	inSchema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: %s: input schema: %v", name, err))
	}
	inSchema = portable(inSchema)
	t.InputSchema = inSchema
	schema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: %s: output schema: %v", name, err))
	}
	tuneOutput(name, schema)
	textOnly := PageTool(name)
	if textOnly {
		t.Meta = mcpsdk.Meta{MetaResultSchema: schema}
	} else {
		t.OutputSchema = schema
	}
	s.sdk.AddTool(t, func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		ctx, done := s.callContext(ctx)
		defer done()
		reqBytes := int64(len(req.Params.Arguments))
		var (
			out  any
			task string
		)
		in, err := decodeArgs[In](name, req.Params.Arguments, inSchema)
		if err == nil {
			stop := s.progress(ctx, req, name)
			out, task, err = h(ctx, in)
			stop()
		}
		res := &mcpsdk.CallToolResult{}
		var body []byte
		var merr error
		if err != nil {
			res.IsError = true
			body, merr = json.Marshal(toolError(err))
		} else {
			body, merr = json.Marshal(out)
			if !textOnly {
				res.StructuredContent = json.RawMessage(body)
			}
		}
		if merr != nil {
			return nil, fmt.Errorf("mcp: %s: encode the result: %w", name, merr)
		}
		res.Content = []mcpsdk.Content{&mcpsdk.TextContent{Text: string(body)}}
		respBytes := int64(len(body))
		res.Meta = mcpsdk.Meta{MetaRequestBytes: reqBytes, MetaResponseBytes: respBytes}
		if task != "" {
			s.count(task, engine.CallMetrics{Tool: name, RequestBytes: reqBytes, ResponseBytes: respBytes})
		}
		return res, nil
	})
}

// callContext is the context of one tool call: the request's, ended also
// when the server stops its calls (Run's context ends: a signal).
func (s *Server) callContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// progress sends a progress notification every ProgressInterval while the
// call runs, when the client gave a progress token; the returned func
// stops it and returns once no notification is being sent.
func (s *Server) progress(ctx context.Context, req *mcpsdk.CallToolRequest, tool string) func() {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return func() {}
	}
	every := s.opts.ProgressInterval
	if every <= 0 {
		every = DefaultProgressInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			elapsed := time.Since(start).Round(time.Millisecond)
			_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n),
				Message: fmt.Sprintf("%s: still running after %s", tool, elapsed)})
		}
	}()
	return func() { cancel(); <-done }
}

// portable rewrites the inferred schema so that clients that read one
// type per property can build the arguments: an optional object (a Go
// pointer, inferred as "type": ["null", "object"]) becomes "type":
// "object"; leaving it out is how a client says "none". The MCP
// Inspector's CLI, for one, passes a JSON argument of a two-type property
// as a string.
func portable(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		portable(p)
	}
	portable(s.Items)
	return s
}

func (s *Server) count(task string, c engine.CallMetrics) {
	s.mu.Lock()
	ts := s.tasks[task]
	s.mu.Unlock()
	if ts == nil {
		return
	}
	// metrics are guarded by the server's mutex, not the task's, so the
	// metrics tool never waits for a running operation
	s.mu.Lock()
	ts.metrics.Calls++
	ts.metrics.RequestBytes += c.RequestBytes
	ts.metrics.ResponseBytes += c.ResponseBytes
	s.mu.Unlock()
}

// toolError turns an error into its structured form with a stable code.
func toolError(err error) ToolError {
	te := ToolError{Code: errcode.Of(err), Message: err.Error()}
	var ae *argError
	if errors.As(err, &ae) {
		te.Field = ae.field
	}
	if te.Code == "" {
		te.Code = errcode.Internal
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			te.Code = errcode.Cancelled
		}
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		te.Op = ee.Op
	}
	var le *locate.Error
	if errors.As(err, &le) {
		te.Count, te.Candidates = le.Count, le.Candidates
	}
	var ce *codeError
	if errors.As(err, &ce) {
		te.Op = ce.op
	}
	return te
}

func (s *Server) onPage(ctx context.Context, op, task, page string, fn func(ts *taskState, p *engine.Page) (any, error)) (any, string, error) {
	ts, err := s.taskOf(op, task)
	if err != nil {
		return nil, "", err
	}
	defer ts.mu.Unlock()
	p, err := s.pageOf(ctx, op, ts, page)
	if err != nil {
		return nil, task, err
	}
	out, err := fn(ts, p)
	return out, task, err
}

func (s *Server) onTask(op, task string, fn func(ts *taskState) (any, error)) (any, string, error) {
	ts, err := s.taskOf(op, task)
	if err != nil {
		return nil, "", err
	}
	defer ts.mu.Unlock()
	out, err := fn(ts)
	return out, task, err
}

func (s *Server) register() {
	addTool[BeginIn, BeginOut](s, "begin", "Start a task. Returns its id. Tasks share nothing: a new task never inherits an earlier task's pages, baselines or outcomes.", false,
		func(ctx context.Context, in BeginIn) (any, string, error) {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil, "", &codeError{ServerClosed, "begin", "the server is shutting down"}
			}
			t := s.eng.Begin(ctx, in.Goal)
			s.mu.Lock()
			s.tasks[t.ID] = &taskState{task: t, pages: map[string]*pageState{}}
			s.mu.Unlock()
			return BeginOut{Task: t.ID}, t.ID, nil
		})
	addTool[SnapshotIn, engine.ViewJSON](s, "snapshot", "Observe the page: a bounded view with refs, answer groups and truncation facts. page (default): the present, under 8 KB — inputs first, then the newest turns' controls (30 elements), the last 1500 characters of text, the last 5 groups; full: the first 60 elements and 4000 characters per frame, the last 20 groups. Groups name their rule by ruleRef into rules. Refs of earlier snapshots become stale.", true,
		func(ctx context.Context, in SnapshotIn) (any, string, error) {
			return s.onPage(ctx, "snapshot", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return p.Snapshot(ctx, in.View)
			})
		})
	addTool[FindIn, observe.FindResult](s, "find", "A fresh find by role, name, text or href, with selection facts (total, matched, offset, limit, hasMore).", true,
		func(ctx context.Context, in FindIn) (any, string, error) {
			return s.onPage(ctx, "find", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return p.Find(ctx, observe.Query{Role: in.Role, Name: in.Name, Text: in.Text, Href: in.Href, Offset: in.Offset, Limit: in.Limit})
			})
		})
	addTool[ExtractIn, engine.Extract](s, "extract", "Read the page's text, its tables, or text-search snippets, bounded by the full view's limits, with each limit's truncation facts and complete=false when absence is not proven.", true,
		func(ctx context.Context, in ExtractIn) (any, string, error) {
			return s.onPage(ctx, "extract", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return p.Extract(ctx, engine.ExtractRequest{What: in.What, Query: in.Query})
			})
		})
	addTool[NavigateIn, ActOut](s, "navigate", "Open an absolute http(s) URL in the page (a mutation: refused while the task is blocked). The result is the page it opened: its snapshot id and the page view's elements with their refs. A network error is NAVIGATION_FAILED.", false,
		func(ctx context.Context, in NavigateIn) (any, string, error) {
			if err := s.allowedURL(in.URL); err != nil {
				return nil, in.Task, err
			}
			return s.onPage(ctx, "navigate", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				if err := p.Navigate(ctx, in.URL); err != nil {
					return nil, err
				}
				return actOut(ctx, p)
			})
		})
	addTool[FillIn, ActOut](s, "fill", "Type text into one field once and verify its real value on a fresh observation; a different value is FIELD_MISMATCH and is never retyped. More than one match is TARGET_AMBIGUOUS and nothing is typed. The result carries the snapshot the fill left and the refs the next action needs (the page's controls and the field's neighbours); earlier refs are stale.", false,
		func(ctx context.Context, in FillIn) (any, string, error) {
			return s.onPage(ctx, "fill", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				if err := p.Fill(ctx, in.Target.engine(), in.Text); err != nil {
					return nil, err
				}
				return actOut(ctx, p)
			})
		})
	addTool[ActIn, ActOut](s, "click", "Click one element and wait for the expected outcome (required). Unmet in time: OUTCOME_UNKNOWN, and the task is blocked until a recheck finds it met. A refused click (no match, STALE_REF, …) sends nothing and arms no answer wait. The result carries the snapshot the click left and the refs the next action needs.", false,
		func(ctx context.Context, in ActIn) (any, string, error) {
			return s.onPage(ctx, "click", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				if err := p.Click(ctx, in.Target.engine(), in.Expect.engine()); err != nil {
					return nil, err
				}
				return actOut(ctx, p)
			})
		})
	addTool[ActIn, ActOut](s, "press", "Press a key (e.g. Enter) on one element and wait for the expected outcome (required), like click; the result carries the snapshot it left and the next refs.", false,
		func(ctx context.Context, in ActIn) (any, string, error) {
			return s.onPage(ctx, "press", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				if in.Key == "" {
					return nil, &engine.Error{Code: engine.InvalidArgument, Op: "press", Detail: "press needs a key"}
				}
				if err := p.Press(ctx, in.Target.engine(), in.Key, in.Expect.engine()); err != nil {
					return nil, err
				}
				return actOut(ctx, p)
			})
		})
	addTool[WaitAnswerIn, AnswerOut](s, "waitAnswer", "Wait for the newest answer group outside the baseline the last newAnswer click or press recorded; reports group, rule, baseline size, states seen and evidence.", true,
		func(ctx context.Context, in WaitAnswerIn) (any, string, error) {
			return s.onPage(ctx, "waitAnswer", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				r, err := p.WaitAnswer(ctx, answer.Options{Timeout: time.Duration(in.TimeoutMS) * time.Millisecond, Media: in.Media})
				if err != nil {
					return nil, err
				}
				return answerOutOf(r), nil
			})
		})
	addTool[VerifyOutcomeIn, Done](s, "waitFor", "Wait, without acting, until an expectation holds (WAIT_TIMEOUT otherwise). A read: allowed on a blocked task, never unblocks it.", true,
		func(ctx context.Context, in VerifyOutcomeIn) (any, string, error) {
			return s.onPage(ctx, "waitFor", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return Done{OK: true}, p.WaitFor(ctx, in.Expect.engine())
			})
		})
	addTool[VerifyFieldIn, Done](s, "verifyField", "Compare a field's real value with the wanted one on a fresh observation (FIELD_MISMATCH). A read.", true,
		func(ctx context.Context, in VerifyFieldIn) (any, string, error) {
			return s.onPage(ctx, "verifyField", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return Done{OK: true}, p.VerifyField(ctx, in.Target.engine(), in.Value)
			})
		})
	addTool[VerifyOutcomeIn, Done](s, "verifyOutcome", "Check an expectation once on a fresh read (OUTCOME_NOT_MET). A read.", true,
		func(ctx context.Context, in VerifyOutcomeIn) (any, string, error) {
			return s.onPage(ctx, "verifyOutcome", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return Done{OK: true}, p.VerifyOutcome(ctx, in.Expect.engine())
			})
		})
	addTool[TaskIn, RecheckOut](s, "recheck", "Re-check the expectation that blocked the task, once (a read; the action is never sent again). If it now holds, the task records a late success and is unblocked.", true,
		func(ctx context.Context, in TaskIn) (any, string, error) {
			return s.onTask("recheck", in.Task, func(ts *taskState) (any, error) {
				if ts.finished {
					return nil, &codeError{TaskFinished, "recheck", "task " + ts.task.ID + " has finished"}
				}
				ok, err := ts.task.Recheck(ctx)
				if err != nil {
					return nil, err
				}
				return RecheckOut{LateSuccess: ok, Blocked: ts.task.Blocked()}, nil
			})
		})
	addTool[TaskIn, Done](s, "finish", "End the task and close its pages. A blocked task cannot finish (TASK_BLOCKED).", false,
		func(ctx context.Context, in TaskIn) (any, string, error) {
			return s.onTask("finish", in.Task, func(ts *taskState) (any, error) {
				if ts.finished {
					return nil, &codeError{TaskFinished, "finish", "task " + ts.task.ID + " has finished"}
				}
				if err := ts.task.Finish(ctx); err != nil {
					return nil, err
				}
				return Done{OK: true}, ts.end()
			})
		})
	addTool[AbandonIn, Done](s, "abandon", "Give the task up with a reason and close its pages: allowed while the task is blocked (after an unknown outcome whose one recheck did not find it), when finish is refused. Nothing is sent.", false,
		func(ctx context.Context, in AbandonIn) (any, string, error) {
			return s.onTask("abandon", in.Task, func(ts *taskState) (any, error) {
				if ts.finished {
					return nil, &codeError{TaskFinished, "abandon", "task " + ts.task.ID + " has finished"}
				}
				if err := ts.task.Abandon(ctx, in.Reason); err != nil {
					return nil, err
				}
				return Done{OK: true}, ts.end()
			})
		})
	addTool[ReadAnswerIn, engine.GroupText](s, "readAnswer", "Read an answer group's full text in bounded pages: limit characters (default 4000, at most 16000) from offset, with the total and hasMore. Views cut each group's text; this reads all of it. A read.", true,
		func(ctx context.Context, in ReadAnswerIn) (any, string, error) {
			return s.onPage(ctx, "readAnswer", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				return p.ReadGroup(ctx, in.Group, in.Offset, in.Limit)
			})
		})
	addTool[PageIn, ChangesOut](s, "changes", "Summarise what changed between the page's last two observations (added, removed, changed controls; no values, no refs).", true,
		func(ctx context.Context, in PageIn) (any, string, error) {
			return s.onPage(ctx, "changes", in.Task, in.Page, func(_ *taskState, p *engine.Page) (any, error) {
				sum, ok := p.Changes()
				if !ok {
					return ChangesOut{}, nil
				}
				return ChangesOut{Known: true, Summary: &sum}, nil
			})
		})
	addTool[TaskIn, engine.Metrics](s, "metrics", "The task's call count and the bytes of arguments and results so far (this call not included), in bytes of JSON.", true,
		func(ctx context.Context, in TaskIn) (any, string, error) {
			ts, err := s.taskOf("metrics", in.Task)
			if err != nil {
				return nil, "", err
			}
			ts.mu.Unlock()
			s.mu.Lock()
			m := ts.metrics
			s.mu.Unlock()
			return m, "", nil
		})
}

// allowedURL refuses URLs other than absolute http(s) ones unless the
// server allows file: URLs (and so any scheme): an agent must not read
// the server's own files by default.
func (s *Server) allowedURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return &codeError{engine.InvalidArgument, "navigate", fmt.Sprintf("%q is not an absolute URL", raw)}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return &codeError{engine.InvalidArgument, "navigate", fmt.Sprintf("%q has no host", raw)}
		}
		return nil
	}
	if s.opts.AllowFileURLs {
		return nil
	}
	return &codeError{URLNotAllowed, "navigate", fmt.Sprintf("only http and https URLs open (got %s:); start the server with --allow-file-urls to open others", u.Scheme)}
}

// actOut is an action's result: ok and the page state it left (AGT-2).
func actOut(ctx context.Context, p *engine.Page) (any, error) {
	a, err := p.After(ctx)
	if err != nil {
		return nil, err
	}
	return ActOut{OK: true, After: a}, nil
}
