package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/procs"
	"github.com/replaylab/replaylab/internal/syncbuf"
)

// The MCP process steps (features/mcp.feature) drive `replaylab mcp` as a
// subprocess through the official SDK's client (engine/mcp.Connect with a
// Command), the way an agent does. Once started, the process is the
// scenario's agent surface: the action steps ("I begin a task", "I fill
// the …", "the action ends with …") go to it.
//
// Both drivers give the same trace:
//
//   - browser driver: the process starts its own Chromium against the
//     scenario's sim. Its engine waits in wall time, so while it runs the
//     sim's lab clock follows wall time (clock.Lab.FollowWall) and the
//     scripted answers stream and complete at their pace. When the run records (Update, record modes), it runs
//     with --record <session base> --base-rewrite <sim>=CanonicalBase and
//     writes one session per task page on shutdown
//     (recordings/sessions/mcp/<scenario>@t1-main.json, …);
//   - replay driver: the process runs with --replay <session base> and
//     serves the pages from those sessions with no browser; it exits 1
//     when a recorded action was never replayed.
//
// The process writes its engine's trace (--trace) on shutdown; "the
// replaylab mcp process exits cleanly and leaves no browser" closes it
// and appends that trace (via=process) after the steps' own events. Only
// deterministic facts are traced: codes, counts, refs, never pids, ports
// or times.
//
// The command: Options.MCPCommand (the replaylab binary passes itself);
// under go test the steps build ./cmd/replaylab once per process.

type mcpProc struct {
	client *mcp.Client
	pid    int
	tmp    string // the process's TMPDIR: its browser's user-data dir goes here
	trace  string
	stderr *syncbuf.Buffer
	closed bool
	refs   map[string]string
	// follow stops the scenario's lab following wall time (live: the
	// process's engine waits in wall time, the sim's transitions run on
	// the lab); followErr is what ended it early
	follow    func()
	followErr chan error
}

func mcpSteps(r *table) {
	const g = "MCP process"
	r.step(g, `^the agent starts a replaylab mcp process$`,
		"start `replaylab mcp` as a subprocess and connect the official MCP SDK client to it over stdio; the action steps then go to it. Live it starts its own Chromium against the sim (recording the task pages when the run records); in replay it serves the recorded pages with no browser",
		"Given the agent starts a replaylab mcp process", mcpStart)
	r.step(g, `^I snapshot the page over MCP and keep the ref of the (\w+) "([^"]*)" as "([^"]*)"$`,
		"take the page snapshot over MCP and keep the ref of the one element with that role and name under a label (the ref is traced: refs count snapshots and elements, the same live and replayed)",
		`When I snapshot the page over MCP and keep the ref of the textbox "Name" as "first"`, mcpKeepRef)
	r.step(g, `^I fill the field with the ref "([^"]*)" with "([^"]*)"$`,
		"fill by a kept ref (ACT-1: type once, verify the real value on a fresh observation); the result is kept for \"the action ends with\" (STALE_REF for a ref of an older snapshot, ID-1)",
		`When I fill the field with the ref "first" with "Ada Lovelace"`, mcpFillRef, isAction)
	r.step(g, `^the refs "([^"]*)" and "([^"]*)" are different$`,
		"two kept refs of the same element from two snapshots differ (a ref names an element in one snapshot)",
		`Then the refs "first" and "second" are different`, mcpRefsDiffer)
	r.step(g, `^the field with the ref "([^"]*)" holds "([^"]*)"$`,
		"verifyField by a kept ref: the element's real value in the snapshot the ref came from",
		`And the field with the ref "second" holds "Ada Lovelace"`, mcpFieldByRef)
	r.step(g, `^the MCP page text contains "([^"]*)"$`,
		"a text search (extract) over MCP finds that text on the current task's page; proof, e.g., that the page's counters show no input",
		`And the MCP page text contains "Inputs received: 0"`, mcpTextContains)
	r.step(g, `^one replaylab mcp process served every call$`,
		"the process started by the scenario is still the same, still running process (same pid, never restarted) and it answered every tool call of the scenario (ACT-6: one process, many tasks)",
		"Then one replaylab mcp process served every call", mcpSameProcess)
	r.step(g, `^the replaylab mcp process exits cleanly and leaves no browser$`,
		"close the client (the process's stdin): the process exits 0 (in replay: every recorded action was replayed), no Chromium it started runs and its user-data dir is gone; its engine trace is appended to the scenario's",
		"And the replaylab mcp process exits cleanly and leaves no browser", mcpExit)
	agentSteps(r)
}

// mcpSessions lists the recorded sessions of the scenario's process.
func mcpSessions(base string) ([]string, error) {
	return filepath.Glob(strings.TrimSuffix(base, ".json") + "@*.json")
}

func mcpStart(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[mcpProc](w)
	act := stateOf[actState](w)
	if act.client != nil {
		return errors.New("the agent already drives an MCP server in this scenario")
	}
	cmdline, err := w.mcpCommand()
	if err != nil {
		return err
	}
	base, err := filepath.Abs(w.sessionPath(mainTab))
	if err != nil {
		return err
	}
	existing, err := mcpSessions(base)
	if err != nil {
		return err
	}
	mode := w.sc.Mode()
	decision := mode.Decide(len(existing) > 0)
	if decision.Missing {
		return fmt.Errorf("%w for scenario %s (no %s); record it with: %s", replay.ErrNoRecording, w.slug,
			strings.TrimSuffix(base, ".json")+"@<task>-<page>.json", w.sc.Hints().Record)
	}
	live := decision.Live
	if live && !mode.AlwaysLive() {
		if err := w.goLive(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "replaylab-mcp-*")
	if err != nil {
		return err
	}
	st.tmp = tmp
	st.trace = filepath.Join(tmp, "trace.txt")
	st.stderr = &syncbuf.Buffer{}
	st.refs = map[string]string{}
	args := []string{"--trace", st.trace, "--scenario", w.scenario + "," + w.steps}
	switch {
	case live && (mode != harness.ModeLive || w.recordOnce):
		// a page the calls no longer open must not stay behind
		for _, f := range existing {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
		args = append(args, "--record", base, "--base-rewrite", w.sim.URL+"="+CanonicalBase)
	case live:
		// live, saving nothing (ModeReplayOnly with the browser driver)
	default:
		args = append(args, "--replay", base)
	}
	if live && w.fx.opt.Browser.RemoteURL != "" {
		args = append(args, "--cdp", w.fx.opt.Browser.RemoteURL)
	}
	c, err := mcp.Connect(ctx, mcp.ConnectOptions{
		Command:     append(cmdline, args...),
		Env:         []string{"TMPDIR=" + tmp},
		Stderr:      st.stderr,
		CallTimeout: 60 * time.Second,
	})
	if err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("start %s: %w (stderr: %s)", strings.Join(cmdline, " "), err, strings.TrimSpace(st.stderr.String()))
	}
	st.client = c
	st.pid = c.Process().Pid
	act.client = c
	if lab, ok := w.clock.(*clock.Lab); ok && live {
		// the process's engine keeps wall time: the lab moves along with
		// it so the sim's scripted answers stream and complete
		fctx, stop := context.WithCancel(context.Background())
		st.followErr = make(chan error, 1)
		go func() { st.followErr <- lab.FollowWall(fctx, 10*time.Millisecond) }()
		st.follow = func() {
			stop()
			if err := <-st.followErr; err != nil {
				st.followErr <- err
			}
			st.follow = nil
		}
	}
	w.onFinish(func() {
		if !st.closed {
			st.closed = true
			_ = c.Close()
		}
		if st.follow != nil {
			st.follow()
		}
		_ = os.RemoveAll(tmp)
	})
	w.log.Emit(trace.E("mcp.process", trace.A("transport", "stdio"), trace.A("client", "go-sdk")))
	return nil
}

func needProc(ctx context.Context) (*mcpProc, *actState, error) {
	w := worldOf(ctx)
	st := stateOf[mcpProc](w)
	if st.client == nil {
		return nil, nil, errors.New(`add "Given the agent starts a replaylab mcp process" first`)
	}
	if st.closed {
		return nil, nil, errors.New("the replaylab mcp process was closed")
	}
	act := stateOf[actState](w)
	if act.page == nil {
		return nil, nil, errors.New(`begin a task first ("I begin a task …")`)
	}
	return st, act, nil
}

func mcpKeepRef(ctx context.Context, role, name, label string) error {
	st, act, err := needProc(ctx)
	if err != nil {
		return err
	}
	v, err := act.page.Snapshot(ctx, "page")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	var refs []string
	for _, e := range v.Elements {
		if e.Role == role && e.Name == name {
			refs = append(refs, e.Ref)
		}
	}
	if len(refs) != 1 {
		return fmt.Errorf("the snapshot has %d elements %s %q (%v), want 1", len(refs), role, name, refs)
	}
	st.refs[label] = refs[0]
	worldOf(ctx).log.Emit(trace.E("mcp.ref", trace.A("label", label), trace.A("role", role), trace.A("name", name), trace.A("ref", refs[0])))
	return nil
}

func (st *mcpProc) ref(label string) (string, error) {
	r, ok := st.refs[label]
	if !ok {
		return "", fmt.Errorf("no ref kept as %q", label)
	}
	return r, nil
}

func mcpFillRef(ctx context.Context, label, text string) error {
	st, act, err := needProc(ctx)
	if err != nil {
		return err
	}
	ref, err := st.ref(label)
	if err != nil {
		return err
	}
	err = act.page.Fill(ctx, engine.Target{Ref: ref}, text)
	code := "ok"
	if err != nil {
		code = string(errcode.Of(err))
	}
	worldOf(ctx).log.Emit(trace.E("mcp.fill", trace.A("ref", ref), trace.A("code", code)))
	return worldOf(ctx).kept(err)
}

func mcpRefsDiffer(ctx context.Context, a, b string) error {
	st, _, err := needProc(ctx)
	if err != nil {
		return err
	}
	ra, err := st.ref(a)
	if err != nil {
		return err
	}
	rb, err := st.ref(b)
	if err != nil {
		return err
	}
	if ra == rb {
		return fmt.Errorf("refs %s and %s are both %s", a, b, ra)
	}
	return nil
}

func mcpFieldByRef(ctx context.Context, label, value string) error {
	st, act, err := needProc(ctx)
	if err != nil {
		return err
	}
	ref, err := st.ref(label)
	if err != nil {
		return err
	}
	return act.page.VerifyField(ctx, engine.Target{Ref: ref}, value)
}

func mcpTextContains(ctx context.Context, text string) error {
	_, act, err := needProc(ctx)
	if err != nil {
		return err
	}
	x, err := act.page.Extract(ctx, engine.ExtractRequest{What: engine.ExtractSearch, Query: text})
	if err != nil {
		return err
	}
	if x.Search == nil || x.Search.TextMatched == 0 {
		return fmt.Errorf("the page text over MCP does not contain %q", text)
	}
	worldOf(ctx).log.Emit(trace.E("mcp.text", trace.A("contains", text), trace.A("matched", x.Search.TextMatched)))
	return nil
}

func mcpSameProcess(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[mcpProc](w)
	if st.client == nil || st.closed {
		return errors.New("no replaylab mcp process runs")
	}
	act := stateOf[actState](w)
	if p := st.client.Process(); p == nil || p.Pid != st.pid {
		return fmt.Errorf("the client talks to another process than the one started (pid %d)", st.pid)
	}
	if !procs.Running(st.pid) {
		return fmt.Errorf("the replaylab mcp process %d is gone: %s", st.pid, strings.TrimSpace(st.stderr.String()))
	}
	w.log.Emit(trace.E("mcp.process", trace.A("same", true), trace.A("tasks", len(act.ids)), trace.A("calls", st.client.Calls())))
	return nil
}

// browsersUnder lists the processes whose command line names dir (the
// process's TMPDIR, where its browsers' user-data dirs live) and the
// browser dirs left in it.
func browsersUnder(dir string) []string {
	var out []string
	for _, pid := range procs.Naming(dir) {
		out = append(out, fmt.Sprintf("process %d", pid))
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, browser.TempDirPrefix+"*"))
	for _, d := range dirs {
		out = append(out, "dir "+d)
	}
	return out
}

func mcpExit(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[mcpProc](w)
	if st.client == nil || st.closed {
		return errors.New("no replaylab mcp process runs")
	}
	st.closed = true
	cerr := st.client.Close()
	ps := st.client.ProcessState()
	if st.follow != nil {
		st.follow()
		select {
		case err := <-st.followErr:
			return fmt.Errorf("the sim's lab clock, following wall time for the process: %w", err)
		default:
		}
	}
	switch {
	case ps == nil:
		return fmt.Errorf("the replaylab mcp process did not exit (%v): %s", cerr, strings.TrimSpace(st.stderr.String()))
	case !ps.Success():
		return fmt.Errorf("the replaylab mcp process exited with %s: %s", ps, strings.TrimSpace(st.stderr.String()))
	case cerr != nil:
		return fmt.Errorf("closing the MCP session: %w", cerr)
	}
	if left := browsersUnder(st.tmp); len(left) > 0 {
		return fmt.Errorf("the replaylab mcp process left its browser behind: %s", strings.Join(left, ", "))
	}
	data, err := os.ReadFile(st.trace)
	if err != nil {
		return fmt.Errorf("the process's trace: %w", err)
	}
	events, err := trace.Parse(data)
	if err != nil {
		return fmt.Errorf("the process's trace: %w", err)
	}
	w.log.Emit(trace.E("mcp.exit", trace.A("code", ps.ExitCode()), trace.A("browsers", 0), trace.A("events", len(events))))
	for _, e := range events {
		e.Attrs = append(e.Attrs, trace.A("via", "process"))
		w.log.Emit(e)
	}
	return nil
}
