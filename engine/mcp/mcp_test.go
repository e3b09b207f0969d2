package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/sim"

	"github.com/replaylab/replaylab/internal/testskip"
)

// serveEnv makes the test binary a replaylab MCP server on stdio whose
// pages block on navigate, so a test can kill it mid-call.
const serveEnv = "REPLAYLAB_MCP_TEST_SERVE"

// TestMain doubles as the server process of the dead-server test and
// checks that no browser outlives the tests.
func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		srv := mcp.NewServer(mcp.Options{Driver: blockingDrivers})
		if err := srv.Run(context.Background(), &mcpsdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := testskip.Main(m)
	if leaks := browser.Leaks(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "LEAK: browsers started by these tests left behind: %v\n", leaks)
		code = 1
	}
	os.Exit(code)
}

// blockingDriver never finishes navigating: it waits for its context.
type blockingDriver struct{}

func (blockingDriver) Navigate(ctx context.Context, url string) error {
	<-ctx.Done()
	return ctx.Err()
}
func (blockingDriver) Capture(ctx context.Context) (*capture.Capture, error) {
	return nil, errors.New("blocking driver: no page")
}
func (blockingDriver) Click(ctx context.Context, node string) error      { return nil }
func (blockingDriver) Type(ctx context.Context, node, text string) error { return nil }
func (blockingDriver) Press(ctx context.Context, node, key string) error { return nil }
func (blockingDriver) Now() time.Time                                    { return time.Now() }
func (blockingDriver) Sleep(ctx context.Context, d time.Duration) error  { return nil }
func blockingDrivers(context.Context, string, string) (engine.Driver, func() error, error) {
	return blockingDriver{}, func() error { return nil }, nil
}

// needChromium skips without a browser locally and fails in CI.
func needChromium(t testing.TB) {
	t.Helper()
	_, err := browser.FindChromium()
	testskip.Need(t, "browser tests", err)
}

// inMemory runs srv on one end of an in-memory pipe and connects a client
// to the other.
func inMemory(t testing.TB, srv *mcp.Server, timeout time.Duration) *mcp.Client {
	t.Helper()
	st, ct := mcpsdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	c, err := mcp.Connect(context.Background(), mcp.ConnectOptions{Transport: ct, CallTimeout: timeout})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("the server did not stop within a minute after the client closed (a hang guard)")
		}
		cancel()
	})
	return c
}

// newSim starts a sim for the test.
func newSim(t testing.TB) *sim.Server {
	t.Helper()
	s, err := sim.NewServer(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// lazyBrowser is a LazyBrowser closed when the test ends.
func lazyBrowser(t testing.TB) *mcp.LazyBrowser {
	t.Helper()
	lb := &mcp.LazyBrowser{}
	t.Cleanup(func() {
		if err := lb.Close(); err != nil {
			t.Errorf("close browser: %v", err)
		}
	})
	return lb
}

// forbidden are words no tool name or argument may contain: the server
// exposes typed operations only (ACT-5).
var forbidden = regexp.MustCompile(`(?i)script|code|eval|javascript|expression|function|exec|command`)

func TestToolsAreTypedOnly(t *testing.T) {
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: blockingDrivers}), 5*time.Second)
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"abandon", "readAnswer", "begin", "snapshot", "find", "extract", "navigate", "fill", "click", "press", "waitAnswer", "waitFor",
		"verifyField", "verifyOutcome", "recheck", "finish", "changes", "metrics"}
	got := map[string]bool{}
	for _, tool := range tools {
		got[tool.Name] = true
		if forbidden.MatchString(tool.Name) {
			t.Errorf("tool %q looks like it runs code", tool.Name)
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" {
			t.Errorf("tool %s: input schema type %q, want object", tool.Name, schema.Type)
		}
		for name := range schema.Properties {
			if forbidden.MatchString(name) {
				t.Errorf("tool %s takes %q: a tool must not take script or code", tool.Name, name)
			}
		}
		if strings.Contains(strings.ToLower(string(raw)+tool.Description), "token") {
			t.Errorf("tool %s speaks of tokens; sizes are bytes (ACT-7)", tool.Name)
		}
	}
	for _, name := range want {
		if !got[name] {
			t.Errorf("tool %s missing; got %v", name, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d tools, want %d: %v", len(got), len(want), got)
	}
}

func TestToolErrorCarriesCode(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 30*time.Second)
	ctx := context.Background()
	if lb.Started() {
		t.Fatal("the browser started before any page operation")
	}
	task, err := c.Begin(ctx, "fill a form with duplicate fields")
	if err != nil {
		t.Fatal(err)
	}
	if lb.Started() {
		t.Fatal("begin started the browser; it starts on the first page operation")
	}
	p := task.Page("main")
	if err := p.Navigate(ctx, s.URL+"/act/duplicates"); err != nil {
		t.Fatal(err)
	}
	err = p.Fill(ctx, engine.ByRole("textbox", "Email"), "a@example.com")
	var me *mcp.Error
	if !errors.As(err, &me) {
		t.Fatalf("fill: got %v, want a tool error", err)
	}
	if me.Code != locate.TargetAmbiguous || me.Count != 2 || len(me.Candidates) != 2 {
		t.Errorf("got code %s count %d candidates %v, want TARGET_AMBIGUOUS with 2", me.Code, me.Count, me.Candidates)
	}
	if !errors.Is(err, locate.TargetAmbiguous) || errcode.Of(err) != "TARGET_AMBIGUOUS" {
		t.Errorf("errors.Is / errcode.Of do not see the code: %v", err)
	}
	x, err := p.Extract(ctx, engine.ExtractRequest{What: engine.ExtractSearch, Query: "Inputs received: 0"})
	if err != nil {
		t.Fatal(err)
	}
	if x.Search.TextMatched != 1 || !x.Complete {
		t.Errorf("after the refusal the page shows %+v, want Inputs received: 0", x.Search)
	}
	// a click without an expectation is refused by the engine before
	// anything is sent
	err = p.Click(ctx, engine.ByRole("button", "Submit"), engine.Expect{})
	if errcode.Of(err) != engine.MissingExpectation {
		t.Errorf("click without expectation: got %v, want MISSING_EXPECTATION", err)
	}
	if _, err := c.Begin(ctx, "second"); err != nil {
		t.Fatal(err)
	}
}

// agentPage is the page surface both the in-process engine.Page and the
// MCP client's Page provide: agent code written against it runs either
// way.
type agentPage interface {
	Navigate(ctx context.Context, url string) error
	Snapshot(ctx context.Context, view string) (*engine.View, error)
	Find(ctx context.Context, q observe.Query) (observe.FindResult, error)
	Extract(ctx context.Context, req engine.ExtractRequest) (*engine.Extract, error)
	Fill(ctx context.Context, t engine.Target, text string) error
	Click(ctx context.Context, t engine.Target, x engine.Expect) error
	VerifyField(ctx context.Context, t engine.Target, want string) error
	WaitFor(ctx context.Context, x engine.Expect) error
}

type agentTask interface {
	Recheck(ctx context.Context) (bool, error)
	Finish(ctx context.Context) error
}

// agent is one piece of agent code: it fills a masked field, follows a
// link with an absolute URL expectation, and clicks a Save whose effect
// never shows, then records what each step ended with.
func agent(ctx context.Context, base string, t agentTask, p agentPage) []string {
	var out []string
	note := func(what string, err error) {
		code := string(errcode.Of(err))
		if err != nil && code == "" {
			code = "ERROR " + err.Error()
		}
		if code == "" {
			code = "ok"
		}
		out = append(out, what+"="+code)
	}
	note("navigate", p.Navigate(ctx, base+"/act/mask"))
	note("fill name", p.Fill(ctx, engine.ByRole("textbox", "Name"), "Ada Lovelace"))
	note("fill phone", p.Fill(ctx, engine.ByRole("textbox", "Phone"), "555 0100 ext 9"))
	note("verify phone", p.VerifyField(ctx, engine.ByRole("textbox", "Phone"), "555-0100"))
	v, err := p.Snapshot(ctx, observe.ViewPage)
	note("snapshot", err)
	if v != nil {
		out = append(out, fmt.Sprintf("view=%s elements=%d/%d", v.View, v.Counts.Elements.Returned, v.Counts.Elements.Total))
	}
	note("navigate", p.Navigate(ctx, base+"/act/links"))
	note("relative url", p.Click(ctx, engine.ByRole("link", "Next page"), engine.Expect{URL: "/act/links/next"}))
	note("link", p.Click(ctx, engine.ByRole("link", "Next page"), engine.Expect{URL: base + "/act/links/next", Timeout: 5 * time.Second}))
	// the URL is met when the navigation commits; wait for the content
	note("wait", p.WaitFor(ctx, engine.Expect{TextVisible: "You followed the link", Timeout: 5 * time.Second}))
	f, err := p.Find(ctx, observe.Query{Role: "link"})
	note("find", err)
	out = append(out, fmt.Sprintf("links=%d", f.Selection.Matched))
	note("navigate", p.Navigate(ctx, base+"/act/never"))
	note("save", p.Click(ctx, engine.ByRole("button", "Save"), engine.Expect{TextVisible: "Saved", Timeout: 300 * time.Millisecond}))
	x, err := p.Extract(ctx, engine.ExtractRequest{What: engine.ExtractText})
	note("extract while blocked", err)
	if x != nil {
		out = append(out, fmt.Sprintf("text complete=%v", x.Complete))
	}
	note("fill while blocked", p.Fill(ctx, engine.ByRole("textbox", "Display name"), "Grace"))
	ok, err := t.Recheck(ctx)
	note("recheck", err)
	out = append(out, fmt.Sprintf("late=%v", ok))
	note("finish", t.Finish(ctx))
	return out
}

func TestSameAgentInProcessAndOverMCP(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	ctx := context.Background()

	lb := lazyBrowser(t)
	d, closePage, err := lb.Driver(ctx, "t1", "main")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closePage() })
	task := engine.New(engine.Config{}).Begin(ctx, "agent")
	local := agent(ctx, s.URL, task, task.Page("main", d))

	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 30*time.Second)
	rt, err := c.Begin(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	remote := agent(ctx, s.URL, rt, rt.Page("main"))

	if strings.Join(remote, "\n") != strings.Join(local, "\n") {
		t.Errorf("over MCP the agent saw:\n%s\nin process:\n%s", strings.Join(remote, "\n"), strings.Join(local, "\n"))
	}
	for _, want := range []string{"fill phone=FIELD_MISMATCH", "relative url=INVALID_EXPECTATION", "link=ok", "save=OUTCOME_UNKNOWN",
		"extract while blocked=ok", "fill while blocked=TASK_BLOCKED", "late=false", "finish=TASK_BLOCKED"} {
		if !strings.Contains(strings.Join(local, "\n"), want) {
			t.Errorf("the agent's record lacks %q:\n%s", want, strings.Join(local, "\n"))
		}
	}
	if n := s.ActSaves("never"); n != 2 {
		t.Errorf("Save reached the sim %d times over both runs, want 2 (once each, never resent)", n)
	}

	// per-call and per-task sizes are bytes, and add up
	m, err := rt.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var req, resp int64
	for _, cm := range rt.CallLog() {
		req += cm.RequestBytes
		resp += cm.ResponseBytes
	}
	if m.Calls != len(rt.CallLog()) || m.RequestBytes != req || m.ResponseBytes != resp || req == 0 || resp == 0 {
		t.Errorf("metrics %+v; the call log sums to %d calls, %d request bytes, %d response bytes", m, len(rt.CallLog()), req, resp)
	}
}

// TestCallTimeout runs in a testing/synctest bubble: the call that hangs
// ends with CALL_TIMEOUT at exactly its 300 ms of the bubble's time.
func TestCallTimeout(t *testing.T) {
	synctest.Test(t, testCallTimeout)
}

func testCallTimeout(t *testing.T) {
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: blockingDrivers}), 300*time.Millisecond)
	ctx := t.Context()
	task, err := c.Begin(ctx, "hang")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = task.Page("main").Navigate(ctx, "http://127.0.0.1:1/")
	if errcode.Of(err) != mcp.CallTimeout {
		t.Fatalf("got %v, want CALL_TIMEOUT", err)
	}
	if took := time.Since(start); took != 300*time.Millisecond {
		t.Errorf("the timeout came after %v of the bubble's time, want its 300ms", took)
	}
	// the connection stays usable after a timed-out call
	if _, err := c.Begin(ctx, "after"); err != nil {
		t.Errorf("begin after a timeout: %v", err)
	}
}

func TestDeadServerIsAnErrorNotAHang(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.ConnectOptions{Command: []string{exe}, Env: []string{serveEnv + "=1"}, CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	task, err := c.Begin(ctx, "doomed")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- task.Page("main").Navigate(ctx, "http://127.0.0.1:1/") }()
	// let the call reach the server; one still on its way meets a dead
	// server as well, so no verdict depends on this pause
	time.Sleep(200 * time.Millisecond)
	if err := c.Process().Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if errcode.Of(err) != mcp.ServerGone {
			t.Errorf("in-flight call: got %v, want SERVER_GONE", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the in-flight call hangs after the server died (2 minutes, a hang guard)")
	}
	// SERVER_GONE, not the CALL_TIMEOUT a hang would end in after its
	// minute, proves the call did not wait; the time is logged
	start := time.Now()
	if _, err := c.Begin(ctx, "after"); errcode.Of(err) != mcp.ServerGone {
		t.Errorf("call after death: got %v, want SERVER_GONE", err)
	}
	t.Logf("a call to the dead server answered in %v", time.Since(start))
}

func TestNewTaskInheritsNothing(t *testing.T) {
	needChromium(t)
	s := newSim(t)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 30*time.Second)
	ctx := context.Background()
	a, err := c.Begin(ctx, "late save")
	if err != nil {
		t.Fatal(err)
	}
	pa := a.Page("main")
	if err := pa.Navigate(ctx, s.URL+"/act/late"); err != nil {
		t.Fatal(err)
	}
	if err := pa.Click(ctx, engine.ByRole("button", "Save"), engine.Expect{TextVisible: "Saved", Timeout: 200 * time.Millisecond}); errcode.Of(err) != engine.OutcomeUnknown {
		t.Fatalf("click: %v, want OUTCOME_UNKNOWN", err)
	}
	if err := pa.VerifyOutcome(ctx, engine.Expect{TextVisible: "Saved"}); err != nil {
		// the effect may not be there yet: wait for it passively
		if err := (waitFor{pa}).wait(ctx, "Saved"); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := a.Recheck(ctx); err != nil || !ok {
		t.Fatalf("recheck: %v %v, want a late success", ok, err)
	}
	if err := a.Finish(ctx); err != nil {
		t.Fatal(err)
	}

	b, err := c.Begin(ctx, "next")
	if err != nil {
		t.Fatal(err)
	}
	if b.ID == a.ID {
		t.Fatalf("the second task reuses id %s", a.ID)
	}
	if _, err := b.Recheck(ctx); errcode.Of(err) != engine.InvalidArgument {
		t.Errorf("recheck on a fresh task: %v, want INVALID_ARGUMENT (nothing to re-check)", err)
	}
	if m, err := b.Metrics(ctx); err != nil || m.Calls != 2 { // begin and recheck
		t.Errorf("fresh task metrics %+v %v, want its own 2 calls", m, err)
	}
	if err := pa.VerifyOutcome(ctx, engine.Expect{TextVisible: "Saved"}); errcode.Of(err) != mcp.TaskFinished {
		t.Errorf("a finished task's page: %v, want TASK_FINISHED", err)
	}
	if lb.Pages() != 1 {
		t.Errorf("%d browser pages opened, want 1 (task b opened none)", lb.Pages())
	}
	if s.ActSaves("late") != 1 {
		t.Errorf("Save reached the sim %d times, want 1", s.ActSaves("late"))
	}
}

type waitFor struct{ p *mcp.Page }

func (w waitFor) wait(ctx context.Context, text string) error {
	return w.p.WaitFor(ctx, engine.Expect{TextVisible: text, Timeout: 5 * time.Second})
}

// TestNextTaskPageIsFresh: every task's page is a browser context of its
// own: it sees no cookie and no storage of an earlier task's page.
func TestNextTaskPageIsFresh(t *testing.T) {
	needChromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "who", Value: "first-task", Path: "/"})
			fmt.Fprint(w, `<p>set</p><script>localStorage.setItem("who", "first-task-storage")</script>`)
			return
		}
		cookie := "none"
		if c, err := r.Cookie("who"); err == nil {
			cookie = c.Value
		}
		fmt.Fprintf(w, `<p>cookie: %s</p><p id="st"></p><script>document.getElementById("st").textContent = "storage: " + (localStorage.getItem("who") || "none")</script>`, cookie)
	}))
	t.Cleanup(srv.Close)
	lb := lazyBrowser(t)
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: lb.Driver}), 30*time.Second)
	ctx := context.Background()
	read := func(goal, path string) string {
		t.Helper()
		task, err := c.Begin(ctx, goal)
		if err != nil {
			t.Fatal(err)
		}
		p := task.Page("main")
		if err := p.Navigate(ctx, srv.URL+path); err != nil {
			t.Fatal(err)
		}
		v, err := p.Snapshot(ctx, observe.ViewFull)
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		return v.Text
	}
	read("first", "/set")
	if got := read("first again", "/get"); !strings.Contains(got, "cookie: none") || !strings.Contains(got, "storage: none") {
		t.Fatalf("the second task's page sees the first's state: %q", got)
	}
	if got := read("third", "/get"); !strings.Contains(got, "cookie: none") {
		t.Fatalf("the third task's page sees the first's cookie: %q", got)
	}
	if lb.Pages() != 3 {
		t.Errorf("%d pages opened, want 3", lb.Pages())
	}
}
