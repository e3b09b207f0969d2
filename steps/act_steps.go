package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// The action steps (SPEC ACT-1 … ACT-7, LOC-2) drive an "agent surface":
// the in-process engine by default, or the engine behind an in-process MCP
// server reached through the Go MCP client ("the agent drives the engine
// over MCP"). Both run on the scenario's main-tab driver (browser,
// recorder or replay), so the trace is the same under every driver.
// Results are kept, not failed on, so "the action ends with" can check
// codes.

// actPage is what both engine.Page and mcp.Page provide.
type actPage interface {
	Navigate(ctx context.Context, url string) error
	Snapshot(ctx context.Context, view string) (*engine.View, error)
	Find(ctx context.Context, q observe.Query) (observe.FindResult, error)
	Extract(ctx context.Context, req engine.ExtractRequest) (*engine.Extract, error)
	Fill(ctx context.Context, t engine.Target, text string) error
	Click(ctx context.Context, t engine.Target, x engine.Expect) error
	Press(ctx context.Context, t engine.Target, key string, x engine.Expect) error
	WaitAnswer(ctx context.Context, opt answer.Options) (answer.Result, error)
	WaitFor(ctx context.Context, x engine.Expect) error
	VerifyField(ctx context.Context, t engine.Target, want string) error
	VerifyOutcome(ctx context.Context, x engine.Expect) error
}

// actTask is what both engine.Task and mcp.Task provide.
type actTask interface {
	Recheck(ctx context.Context) (bool, error)
	Finish(ctx context.Context) error
}

type actState struct {
	client *mcp.Client // set when the agent drives the engine over MCP
	task   actTask     // the current task, "" until one is begun
	taskID string
	page   actPage
	ids    []string // ids of the tasks begun, in order
	local  *engine.Engine
	late   *bool
	tools  []*mcpsdk.Tool
}

// clickWait is how long a click or press waits for its expected outcome
// when the step names no time; actTimeout the same for the URL forms.
const (
	clickWait  = 5 * time.Second
	actTimeout = clickWait
)

func actSteps(r *table) {
	const g = "Actions (each keeps its result)"
	r.step(g, `^the agent drives the engine over MCP$`,
		"the following steps go through the Go MCP client to an in-process replaylab MCP server (in-memory transport) whose pages use the scenario's driver; without this step they call the engine in process",
		"Given the agent drives the engine over MCP", overMCP)
	r.step(g, `^I begin a task "([^"]*)"$`, "start a new task (in process or over MCP) whose main page is the scenario's tab; later steps act in it",
		`When I begin a task "save settings"`, beginTask)
	r.step(g, `^I switch to the (\w+) tab$`, `every following page step (opening pages, sending, clicking, reading, waiting) acts in that tab of the scenario's task ("main" is the tab every scenario starts with; another name opens a new tab on first use, with its own recorded session)`,
		"When I switch to the second tab", switchTab)
	r.alias(`^I open the sim page "([^"]*)"$`, `^I navigate to the sim page "([^"]*)"$`, `When I navigate to the sim page "/act/links"`, openSimPage)
	r.step(g, `^I fill `+tgt+` with "([^"]*)"$`, "fill the target: resolve by a fresh find, type once, verify the real value (ACT-1; FIELD_MISMATCH when the page rewrote it, never typed again); "+targetGrammar,
		`When I fill the textbox "Phone" with "555 0100"`, actFill, isAction)
	r.alias(`^I fill `+tgt+` with "([^"]*)"$`, `^I type "([^"]*)" into `+tgt+`$`,
		`When I type "a secret remark" into the textbox "Comment"`, typeInto)
	r.step(g, `^I click `+tgt+` with no expected outcome$`, "a click with no expectation (refused: MISSING_EXPECTATION, ACT-2)",
		`When I click the link "Next page" with no expected outcome`, actClickNoExpect, isAction)
	r.step(g, `^I click `+tgt+` expecting the URL "([^"]*)"$`, "a click expecting exactly this URL, as written (a relative one is INVALID_EXPECTATION before anything is sent)",
		`When I click the link "Next page" expecting the URL "/act/links/next"`, actClickURL, isAction, defaults("waits up to 5 s for the URL"))
	r.step(g, `^I click `+tgt+` expecting the sim URL "([^"]*)"$`, "a click expecting the absolute URL of that sim path (and a loaded document there)",
		`When I click the link "Next page" expecting the sim URL "/act/links/next"`, actClickSimURL, isAction, needsSim, defaults("waits up to 5 s for the URL"))
	r.step(g, `^I click `+tgt+` expecting the text "([^"]*)"$`, "the target (getByRole(role, name), narrowed as written) resolved by a fresh find, clicked, expecting that text to be visible (OUTCOME_UNKNOWN and a blocked task when it does not show, ACT-3); "+targetGrammar+"; refused like any click when none or more than one match is left",
		`When I click the button "Archive" expecting the text "Archived"`, actClickTextDefault, isAction, defaults("waits up to 5 s for the text"))
	r.alias(`^I click `+tgt+` expecting the text "([^"]*)"$`, `^I click `+tgt+` expecting the status "([^"]*)"$`,
		`When I click the button "Delete" expecting the status "Deleted"`, actClickTextDefault)
	r.alias(`^I click `+tgt+` expecting the text "([^"]*)"$`, `^I click `+tgt+` expecting "([^"]*)"$`,
		`When I click the button "Build report" expecting "Working on the report"`, actClickTextDefault)
	r.step(g, `^I click `+tgt+` expecting the text "([^"]*)" within (\d+) ms$`, "the same click, waiting that long for the text",
		`When I click the button "Save" expecting the text "Saved" within 300 ms`, actClickText, isAction)
	r.step(g, `^I click the link "([^"]*)" at "([^"]*)" expecting the text "([^"]*)"$`,
		"getByRole(link, name) narrowed by its href, then clicked",
		`When I click the link "Docs" at "#docs-07" expecting the text "Opened docs 07"`, clickLinkHref, isAction, defaults("waits up to 5 s for the text"))
	r.alias(`^I click the link "([^"]*)" at "([^"]*)" expecting the text "([^"]*)"$`, `^I click the link "([^"]*)" at "([^"]*)" expecting the status "([^"]*)"$`,
		`When I click the link "Docs" at "#docs-03" expecting the status "Opened docs 03"`, clickLinkHref)
	r.step(g, `^I click `+tgt+` (\d+) times? expecting the text "([^"]*)"$`,
		"the same click N times in a row, each resolved by a fresh find and expecting the text; stops at the first that does not end ok",
		`When I click the button "Check for updates" 6 times expecting the text "No updates"`, clickTimes, isAction, defaults("each click waits up to 5 s for the text"))
	r.alias(`^I click `+tgt+` (\d+) times? expecting the text "([^"]*)"$`, `^I click `+tgt+` (\d+) times? expecting "([^"]*)"$`,
		`When I click the button "Check for updates" 1 time expecting "No updates"`, clickTimes)
	r.step(g, `^I press "([^"]*)" in `+tgt+` expecting the text "([^"]*)"$`,
		"press a key (Enter, Escape, Tab, …) in the element of that role and name, expecting that text (ACT-2: a press needs an expectation like a click)",
		`When I press "Enter" in the searchbox "Search" expecting the text "Results for"`, actPress, isAction, defaults("waits up to 5 s for the text"))
	r.step(g, `^I wait up to (\d+) ms for the text "([^"]*)"$`, "a passive wait (waitFor) until the text is visible; allowed on a blocked task and never unblocking it; fails when the text does not come",
		`When I wait up to 3000 ms for the text "Saved"`, actWaitText)
	r.step(g, `^I re-check the outcome$`, "the one re-check of the expectation that blocked the task (a read; nothing is sent again, ACT-4); its result is kept like an action's",
		"When I re-check the outcome", actRecheck, isAction)
	r.step(g, `^I finish the task$`, "finish the current task; its result is kept like an action's (TASK_BLOCKED while blocked)",
		"When I finish the task", actFinish, isAction)
	r.step(g, `^I read the page with snapshot, find and extract$`, "three reads in a row — the page snapshot, a find of every candidate, the text extract; fails if any is refused (reads work on a blocked task)",
		"When I read the page with snapshot, find and extract", actReads)

	const c = "Action results"
	r.step(c, `^the action ends with "([^"]*)"$`, `the code the last action step ended with, "ok" when it succeeded: any engine code (TARGET_AMBIGUOUS, FIELD_MISMATCH, OUTCOME_UNKNOWN, TASK_BLOCKED, …)`,
		`Then the action ends with "FIELD_MISMATCH"`, actEndsWith, isResult)
	r.step(c, `^the action is refused with "([^"]*)"$`, "the last action step was refused before anything reached the page, with that code (TARGET_AMBIGUOUS, TARGET_QUERY_TRUNCATED, TARGET_NOT_FOUND, STALE_REF, MISSING_EXPECTATION, INVALID_EXPECTATION, TASK_BLOCKED, TASK_FINISHED, PAGE_NOT_READY); an outcome after delivery (FIELD_MISMATCH, OUTCOME_UNKNOWN) is not a refusal: check it with \"the action ends with\"",
		`Then the action is refused with "TARGET_AMBIGUOUS"`, refusedWith, isResult)
	r.step(c, `^the refusal counts (\d+) match(?:es)?$`, "the number of matching elements the last action's refusal carries (TARGET_AMBIGUOUS and TARGET_QUERY_TRUNCATED count them)",
		"And the refusal counts 2 matches", refusalCount, isResult)
	r.alias(`^the refusal counts (\d+) match(?:es)?$`, `^the refused action names (\d+) match(?:es)?$`,
		"And the refused action names 1 match", refusalCount)
	r.step(c, `^the refusal describes each match by role, name, frame and ref$`,
		"each candidate of the last action's refusal is described (up to 5), and no typed value appears in the message",
		"And the refusal describes each match by role, name, frame and ref", refusalDescribes, isResult)
	r.step(c, `^the refusal tells the matches apart by "([^"]*)"$`,
		"the last refusal's candidates, in page order, each name their own context text, the texts given comma-separated (AGT-3: look-alikes told apart)",
		`And the refusal tells the matches apart by "report.pdf, notes.txt"`, refusalApart, isResult)
	r.step(c, `^the task is (blocked|not blocked)$`, "whether the current in-process task is blocked by an unknown outcome (over MCP: a read of the blocked state is not a tool; use the refusals instead)",
		"And the task is blocked", actBlocked)
	r.step(c, `^the re-check (records a late success|finds the outcome still unknown)$`, "what the last re-check found",
		"Then the re-check records a late success", actRecheckWas, isResult)
	r.step(c, `^the field "([^"]*)" holds "([^"]*)"$`, "verifyField on the textbox of that name: its real value equals this (a read)",
		`And the field "Phone" holds "555-0100"`, actFieldHolds)
	r.step(c, `^the page is at the sim URL "([^"]*)"$`, "verifyOutcome: the page's URL is that sim path (a read)",
		`And the page is at the sim URL "/act/links"`, actAtURL, needsSim)
	r.step(c, `^the sim received (\d+) saves? from "([^"]*)"$`,
		"live runs only (the browser driver, where the sim runs): the sim counted that many calls of the page's Save button. A replay has no server; there the recording proves it instead — it holds each click once, and a second click would fail with REPLAY_DIVERGED, an unsent one as never replayed",
		`And the sim received 1 save from "late"`, actSaves, needsSim)
	r.step(c, `^the tasks have different ids$`, "every task begun in the scenario got its own id (ACT-6)",
		"And the tasks have different ids", actDistinctIDs)
	r.step(c, `^I list the MCP tools$`, "list the server's tools over MCP", "When I list the MCP tools", actListTools)
	r.step(c, `^no MCP tool takes a script or code$`,
		"no tool is named for, or has an argument named for, script, code, eval, expression, function or command; every input schema is an object (ACT-5)",
		"Then no MCP tool takes a script or code", actNoScript)
	r.step(c, `^calling the MCP tool "([^"]*)" is refused$`, "a call of a tool the server does not have fails (e.g. evaluate)",
		`And calling the MCP tool "evaluate" is refused`, actCallRefused)
	r.step(c, `^the task's metrics count (\d+) calls? in bytes that add up$`,
		"over MCP: the task's metrics are {calls, requestBytes, responseBytes}, named as bytes, never tokens; they count that many calls and equal the sums of the per-call sizes (ACT-7). The byte values are not traced: URLs differ between the live sim and the recording",
		"Then the task's metrics count 5 calls in bytes that add up", actMetrics)
}

// mcpTracer marks the events of the MCP server's engine, whose task ids
// count from t1 like the world's own engine.
type mcpTracer struct{ next trace.Tracer }

func (m mcpTracer) Emit(e trace.Event) {
	e.Attrs = append(append([]trace.Attr{}, e.Attrs...), trace.A("via", "mcp"))
	m.next.Emit(e)
}

// mainDriver is the driver of the scenario's main tab (recording or
// replaying as the run requires).
func (w *world) mainDriver(ctx context.Context) (engine.Driver, error) {
	if _, err := w.ensurePage(ctx); err != nil {
		return nil, err
	}
	t := w.tabs[mainTab]
	switch {
	case t.rec != nil:
		return t.rec, nil
	case t.bpage != nil:
		return t.bpage, nil
	case t.replay != nil:
		return t.replay, nil
	}
	return nil, errors.New("steps: the main tab has no driver")
}

func overMCP(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[actState](w)
	srv := mcp.NewServer(mcp.Options{
		Engine: engine.Config{Tracer: mcpTracer{w.log}, Adapter: w.adapter, Ready: w.profile().Readiness(), Settle: w.profile().Settle},
		Driver: func(ctx context.Context, task, page string) (engine.Driver, func() error, error) {
			if page != mcp.MainPage {
				return nil, nil, fmt.Errorf("steps: the scenario has one tab; page %q", page)
			}
			d, err := w.mainDriver(ctx)
			return d, func() error { return nil }, err
		},
	})
	sct, cct := mcpsdk.NewInMemoryTransports()
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(sctx, sct) }()
	cl, err := mcp.Connect(ctx, mcp.ConnectOptions{Transport: cct, CallTimeout: 30 * time.Second})
	if err != nil {
		cancel()
		return err
	}
	st.client = cl
	w.onFinish(func() {
		_ = cl.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		cancel()
	})
	w.log.Emit(trace.E("mcp.connect", trace.A("transport", "in-memory")))
	return nil
}

func beginTask(ctx context.Context, goal string) error {
	w := worldOf(ctx)
	st := stateOf[actState](w)
	if st.client != nil {
		t, err := st.client.Begin(ctx, goal)
		if err != nil {
			return err
		}
		st.task, st.taskID, st.page = t, t.ID, t.Page(mcp.MainPage)
		st.ids = append(st.ids, t.ID)
		return nil
	}
	d, err := w.mainDriver(ctx)
	if err != nil {
		return err
	}
	if st.local == nil {
		st.local = engine.New(engine.Config{Tracer: w.log, Adapter: w.adapter, Ready: w.profile().Readiness(), Settle: w.profile().Settle})
	}
	t := st.local.Begin(ctx, goal)
	st.task, st.taskID, st.page = t, t.ID, t.Page(mainTab, d)
	st.ids = append(st.ids, t.ID)
	return nil
}

// surface returns the current task and page: the one begun last, else
// the scenario's own in-process task and main tab.
func surface(ctx context.Context) (*actState, error) {
	w := worldOf(ctx)
	st := stateOf[actState](w)
	if st.page != nil {
		return st, nil
	}
	if st.client != nil {
		return nil, errors.New(`over MCP, begin a task first ("I begin a task …")`)
	}
	p, err := w.tabPage(ctx)
	if err != nil {
		return nil, err
	}
	st.task, st.taskID, st.page = w.task, w.task.ID, p
	return st, nil
}

func actFill(ctx context.Context, target, text string) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error { return p.Fill(ctx, t, text) })
}

func typeInto(ctx context.Context, text, target string) error {
	return actFill(ctx, target, text)
}

func actClick(ctx context.Context, target string, x engine.Expect) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error { return p.Click(ctx, t, x) })
}

func actClickNoExpect(ctx context.Context, target string) error {
	return actClick(ctx, target, engine.Expect{})
}

func actClickURL(ctx context.Context, target, u string) error {
	return actClick(ctx, target, engine.Expect{URL: u, Timeout: actTimeout})
}

func actClickSimURL(ctx context.Context, target, path string) error {
	return actClick(ctx, target, engine.Expect{URL: worldOf(ctx).base + path, Timeout: actTimeout})
}

func actClickText(ctx context.Context, target, text string, n int) error {
	return actClick(ctx, target, engine.Expect{TextVisible: text, Timeout: ms(n)})
}

func actClickTextDefault(ctx context.Context, target, text string) error {
	return actClick(ctx, target, engine.Expect{TextVisible: text, Timeout: clickWait})
}

func clickLinkHref(ctx context.Context, name, href, text string) error {
	t := engine.Target{Locator: locate.Locator{Role: "link", Name: name, Href: href}}
	return act(ctx, func(p actPage) error { return p.Click(ctx, t, engine.Expect{TextVisible: text, Timeout: clickWait}) })
}

func clickTimes(ctx context.Context, target string, n int, text string) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error {
		w := worldOf(ctx)
		for range n {
			err := p.Click(ctx, t, engine.Expect{TextVisible: text, Timeout: clickWait})
			stateOf[loopState](w).collect(w)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func actPress(ctx context.Context, key, target, text string) error {
	t, err := parseTarget(target)
	if err != nil {
		return err
	}
	return act(ctx, func(p actPage) error {
		return p.Press(ctx, t, key, engine.Expect{TextVisible: text, Timeout: clickWait})
	})
}

// switchTab makes the named tab of the scenario's own task the page every
// following page step acts in: actions, navigations and reads.
func switchTab(ctx context.Context, name string) error {
	w := worldOf(ctx)
	st := stateOf[actState](w)
	if st.client != nil || (st.task != nil && st.task != actTask(w.task)) {
		return errors.New("switching tabs works on the scenario's own task, not on one begun with \"I begin a task\"")
	}
	if _, err := w.ensurePage(ctx); err != nil { // the main tab starts the task
		return err
	}
	p, err := w.ensureTab(ctx, name)
	if err != nil {
		return err
	}
	w.current = name
	st.task, st.taskID, st.page = w.task, w.task.ID, p
	return nil
}

func actWaitText(ctx context.Context, n int, text string) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	return st.page.WaitFor(ctx, engine.Expect{TextVisible: text, Timeout: ms(n)})
}

func actRecheck(ctx context.Context) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	ok, err := st.task.Recheck(ctx)
	st.late = &ok
	if code := string(errcode.Of(err)); code != "" {
		// the engine traces what a re-check found, not a refused one
		worldOf(ctx).log.Emit(trace.E("recheck.refused", trace.A("task", st.taskID), trace.A("code", code)))
	}
	return worldOf(ctx).kept(err)
}

func actFinish(ctx context.Context) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	return worldOf(ctx).kept(st.task.Finish(ctx))
}

func actReads(ctx context.Context) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	if _, err := st.page.Snapshot(ctx, observe.ViewPage); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if _, err := st.page.Find(ctx, observe.Query{}); err != nil {
		return fmt.Errorf("find: %w", err)
	}
	if _, err := st.page.Extract(ctx, engine.ExtractRequest{What: engine.ExtractText}); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	return nil
}

func actBlocked(ctx context.Context, want string) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	t, ok := st.task.(*engine.Task)
	if !ok {
		return errors.New(`"the task is blocked" reads the in-process task; over MCP check the refusals`)
	}
	if got := t.Blocked(); got != (want == "blocked") {
		return fmt.Errorf("the task is blocked=%v, want %s", got, want)
	}
	return nil
}

func actRecheckWas(ctx context.Context, want string) error {
	w := worldOf(ctx)
	st := stateOf[actState](w)
	if st.late == nil {
		return errors.New("no re-check was made")
	}
	r, err := w.lastResult()
	if err != nil {
		return err
	}
	if r.err != nil {
		return fmt.Errorf("the re-check failed: %w", r.err)
	}
	if *st.late != (want == "records a late success") {
		return fmt.Errorf("the re-check found late success=%v, want: %s", *st.late, want)
	}
	return nil
}

func actFieldHolds(ctx context.Context, name, value string) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	return st.page.VerifyField(ctx, engine.ByRole("textbox", name), value)
}

func actAtURL(ctx context.Context, path string) error {
	st, err := surface(ctx)
	if err != nil {
		return err
	}
	return st.page.VerifyOutcome(ctx, engine.Expect{URL: worldOf(ctx).base + path})
}

func actSaves(ctx context.Context, n int, page string) error {
	w := worldOf(ctx)
	if w.sim == nil {
		return nil // replay: the recording holds each click once (see the step's meaning)
	}
	if got := w.sim.ActSaves(page); got != n {
		return fmt.Errorf("the sim received %d saves from %s, want %d", got, page, n)
	}
	return nil
}

func actDistinctIDs(ctx context.Context) error {
	st := stateOf[actState](worldOf(ctx))
	seen := map[string]bool{}
	for _, id := range st.ids {
		if seen[id] {
			return fmt.Errorf("task id %s was given twice: %v", id, st.ids)
		}
		seen[id] = true
	}
	if len(st.ids) < 2 {
		return fmt.Errorf("%d tasks begun, want at least 2", len(st.ids))
	}
	return nil
}

func needClient(ctx context.Context) (*actState, error) {
	st := stateOf[actState](worldOf(ctx))
	if st.client == nil {
		return nil, errors.New(`add "Given the agent drives the engine over MCP" first`)
	}
	return st, nil
}

func actListTools(ctx context.Context) error {
	st, err := needClient(ctx)
	if err != nil {
		return err
	}
	st.tools, err = st.client.Tools(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range st.tools {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	worldOf(ctx).log.Emit(trace.E("mcp.tools", trace.A("count", len(names)), trace.A("names", names)))
	return nil
}

// scriptWords name what a tool that runs code would take.
var scriptWords = regexp.MustCompile(`(?i)script|code|eval|javascript|expression|function|exec|command`)

func actNoScript(ctx context.Context) error {
	st, err := needClient(ctx)
	if err != nil {
		return err
	}
	if len(st.tools) == 0 {
		return errors.New(`no tools listed; add "I list the MCP tools"`)
	}
	args := 0
	for _, t := range st.tools {
		if scriptWords.MatchString(t.Name) {
			return fmt.Errorf("tool %q looks like it runs code", t.Name)
		}
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return err
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			return err
		}
		if schema.Type != "object" {
			return fmt.Errorf("tool %s: input schema type %q, want object", t.Name, schema.Type)
		}
		for p := range schema.Properties {
			args++
			if scriptWords.MatchString(p) {
				return fmt.Errorf("tool %s takes %q", t.Name, p)
			}
		}
	}
	worldOf(ctx).log.Emit(trace.E("mcp.typed", trace.A("tools", len(st.tools)), trace.A("arguments", args), trace.A("script", false)))
	return nil
}

func actCallRefused(ctx context.Context, name string) error {
	st, err := needClient(ctx)
	if err != nil {
		return err
	}
	_, err = st.client.CallRaw(ctx, name, map[string]any{"script": "document.title"})
	if err == nil {
		return fmt.Errorf("the server ran tool %q", name)
	}
	worldOf(ctx).log.Emit(trace.E("mcp.refused", trace.A("tool", name)))
	return nil
}

func actMetrics(ctx context.Context, n int) error {
	st, err := needClient(ctx)
	if err != nil {
		return err
	}
	t, ok := st.task.(*mcp.Task)
	if !ok {
		return errors.New("begin a task over MCP first")
	}
	m, err := t.Metrics(ctx)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if strings.Contains(strings.ToLower(string(raw)), "token") {
		return fmt.Errorf("the metrics speak of tokens: %s", raw)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	var req, resp int64
	log := t.CallLog()
	for _, c := range log {
		if c.RequestBytes <= 0 || c.ResponseBytes <= 0 {
			return fmt.Errorf("call %s has sizes %d/%d bytes", c.Tool, c.RequestBytes, c.ResponseBytes)
		}
		req += c.RequestBytes
		resp += c.ResponseBytes
	}
	if m.Calls != n || len(log) != n {
		return fmt.Errorf("the metrics count %d calls (the client logged %d), want %d", m.Calls, len(log), n)
	}
	if m.RequestBytes != req || m.ResponseBytes != resp {
		return fmt.Errorf("task totals %d/%d bytes, per-call sums %d/%d", m.RequestBytes, m.ResponseBytes, req, resp)
	}
	worldOf(ctx).log.Emit(trace.E("mcp.metrics", trace.A("task", t.ID), trace.A("calls", m.Calls), trace.A("fields", names), trace.A("sums", "match")))
	return nil
}
