package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/internal/testskip"
)

// The official clients an agent host embeds — the TypeScript SDK and the
// MCP Inspector's CLI — are installed from npm outside the module (.ci/run
// puts the pinned versions under /opt/replaylab-npm; REPLAYLAB_NPM names
// another directory). The product never needs Node: only this test does.
const (
	tsSDKVersion     = "1.32.2"
	inspectorVersion = "2.12.0"
)

// npmClients returns the directory holding node_modules with both
// clients at their pinned versions; it skips the test visibly when they
// are missing, and fails it in CI.
func npmClients(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("REPLAYLAB_NPM")
	if dir == "" {
		dir = "/opt/replaylab-npm"
	}
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + fmt.Sprintf("; install them with: npm install --prefix %s --no-save @modelcontextprotocol/sdk@%s @modelcontextprotocol/inspector@%s", dir, tsSDKVersion, inspectorVersion)
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s", msg)
		}
		testskip.Skip(t, "SKIPPING the TypeScript SDK and Inspector tests: %s", msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("no node on PATH")
	}
	for pkg, want := range map[string]string{"sdk": tsSDKVersion, "inspector": inspectorVersion} {
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "package.json"))
		if err != nil {
			missing("no @modelcontextprotocol/%s under %s", pkg, dir)
		}
		var meta struct{ Version string }
		if json.Unmarshal(data, &meta) != nil || meta.Version != want {
			missing("@modelcontextprotocol/%s under %s is %q, want %s", pkg, dir, meta.Version, want)
		}
	}
	return dir
}

// planStep is one call of the plan every client runs; want is its code
// ("ok" for a result).
type planStep struct {
	Tool      string            `json:"tool"`
	Arguments map[string]any    `json:"arguments"`
	Keep      map[string]string `json:"keep,omitempty"`
	// TypeScript only: the SDK's request options
	TimeoutMS              int  `json:"timeoutMs,omitempty"`
	ResetTimeoutOnProgress bool `json:"resetTimeoutOnProgress,omitempty"`
	Progress               bool `json:"progress,omitempty"`
	tsOnly                 bool
	want                   string
}

func errorPlan(simURL, closedURL string) []planStep {
	task := "$task"
	page := func(kv ...any) map[string]any {
		m := map[string]any{"task": task}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	target := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	return []planStep{
		{Tool: "begin", Arguments: map[string]any{"goal": "every error code"}, Keep: map[string]string{"task": "task"}, want: "ok"},
		{Tool: "snapshot", Arguments: map[string]any{"task": "t999"}, want: string(mcp.TaskNotFound)},
		{Tool: "snapshot", Arguments: page("viewport", "wide"), want: string(mcp.UnknownArgument)},
		{Tool: "fill", Arguments: page("target", target("role", "textbox")), want: string(mcp.MissingArgument)},
		{Tool: "find", Arguments: page("limit", "ten"), want: string(mcp.WrongArgumentType)},
		{Tool: "navigate", Arguments: page("url", "file:///etc/hostname"), want: string(mcp.URLNotAllowed)},
		{Tool: "navigate", Arguments: page("url", closedURL), want: string(engine.NavigationFailed)},
		{Tool: "navigate", Arguments: page("url", simURL+"/act/duplicates"), want: "ok"},
		{Tool: "snapshot", Arguments: page(), want: "ok"},
		{Tool: "fill", Arguments: page("target", target("role", "textbox", "name", "Email"), "text", "a@example.com"), want: "TARGET_AMBIGUOUS"},
		{Tool: "fill", Arguments: page("target", target("ref", "s99e1"), "text", "x"), want: "INVALID_REF"},
		{Tool: "fill", Arguments: page("target", target("ref", "s1e1"), "text", "x"), want: "STALE_REF"},
		{Tool: "click", Arguments: page("target", target("role", "button", "name", "Submit")), want: string(engine.MissingExpectation)},
		{Tool: "click", Arguments: page("target", target("role", "button", "name", "Submit"), "expect", map[string]any{"url": "/relative"}), want: string(engine.InvalidExpectation)},
		{Tool: "click", Arguments: page("target", target("role", "button", "name", "Nope"), "expect", map[string]any{"textVisible": "x"}), want: "TARGET_NOT_FOUND"},
		{Tool: "waitAnswer", Arguments: page("timeoutMs", 500), want: string(engine.NoBaseline)},
		{Tool: "readAnswer", Arguments: page("group", "no-such-group"), want: string(engine.GroupNotFound)},
		{Tool: "recheck", Arguments: map[string]any{"task": task}, want: string(engine.InvalidArgument)},
		{Tool: "waitFor", Arguments: page("expect", map[string]any{"textVisible": "never shown", "timeoutMs": 300}), want: string(engine.WaitTimeout)},
		{Tool: "verifyOutcome", Arguments: page("expect", map[string]any{"textVisible": "never shown"}), want: string(engine.OutcomeNotMet)},
		// the TypeScript SDK's request timeout is reset by progress; the
		// same wait without the reset times out in the client
		{Tool: "waitFor", Arguments: page("expect", map[string]any{"textVisible": "never shown", "timeoutMs": 5000}), TimeoutMS: 2500, ResetTimeoutOnProgress: true, Progress: true, tsOnly: true, want: string(engine.WaitTimeout)},
		{Tool: "waitFor", Arguments: page("expect", map[string]any{"textVisible": "never shown", "timeoutMs": 5000}), TimeoutMS: 2500, Progress: true, tsOnly: true, want: "thrown"},
		{Tool: "navigate", Arguments: page("url", simURL+"/act/mask"), want: "ok"},
		{Tool: "fill", Arguments: page("target", target("role", "textbox", "name", "Phone"), "text", "555 0100 ext 9"), want: string(engine.FieldMismatch)},
		{Tool: "navigate", Arguments: page("url", simURL+"/act/never"), want: "ok"},
		{Tool: "click", Arguments: page("target", target("role", "button", "name", "Save"), "expect", map[string]any{"textVisible": "Saved", "timeoutMs": 300}), want: string(engine.OutcomeUnknown)},
		{Tool: "fill", Arguments: page("target", target("role", "textbox", "name", "Display name"), "text", "x"), want: string(engine.TaskBlocked)},
		{Tool: "abandon", Arguments: map[string]any{"task": task, "reason": "the save cannot be confirmed"}, want: "ok"},
		{Tool: "snapshot", Arguments: page(), want: string(engine.TaskFinished)},
	}
}

// substitute replaces $name in every string of v.
func substitute(v any, vars map[string]string) any {
	switch x := v.(type) {
	case string:
		for k, val := range vars {
			x = strings.ReplaceAll(x, "$"+k, val)
		}
		return x
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = substitute(e, vars)
		}
		return out
	}
	return v
}

func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	return u
}

// TestOfficialClientsReadEveryCode runs one plan of calls — each error
// code the server gives, argument errors included — with the Go SDK, the
// TypeScript SDK (after tools/list, so its output-schema check is on) and
// the Inspector's CLI, against `replaylab mcp` with a real Chromium and
// the sim: every client reads the same code at every step (AGT-1), and
// every successful result's text is its JSON, with structured content
// only for the tools that do not return the page (mcp.PageTool).
func TestOfficialClientsReadEveryCode(t *testing.T) {
	npm := npmClients(t)
	s := browserAndSim(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plan := errorPlan(s.URL, closedURL(t))
	ctx := context.Background()

	// the Go SDK
	start := time.Now()
	var goCodes []string
	c, err := mcp.Connect(ctx, mcp.ConnectOptions{Command: []string{exe, "mcp"}, CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, st := range plan {
		if st.tsOnly {
			goCodes = append(goCodes, "-")
			continue
		}
		out, err := c.CallRaw(ctx, st.Tool, substitute(st.Arguments, vars).(map[string]any))
		code := "ok"
		if err != nil {
			code = string(errcode.Of(err))
		} else {
			var res map[string]any
			_ = json.Unmarshal(out, &res)
			for name, field := range st.Keep {
				vars[name] = fmt.Sprint(res[field])
			}
		}
		goCodes = append(goCodes, code)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close the Go SDK's server: %v", err)
	}
	for i, st := range plan {
		if !st.tsOnly && goCodes[i] != st.want {
			t.Errorf("Go SDK step %d %s: got %s, want %s", i+1, st.Tool, goCodes[i], st.want)
		}
	}

	t.Logf("Go SDK: %d steps in %s", len(plan), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	// the TypeScript SDK
	planFile := filepath.Join(t.TempDir(), "plan.json")
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "mcpclients", "ts-client.cjs"), planFile, "--", exe, "mcp")
	cmd.Env = append(os.Environ(), "REPLAYLAB_NPM="+npm)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s\n%s", err, outb, stderr.String())
	}
	type tsLine struct {
		Step       int
		Tool       string
		IsError    bool
		Code       string
		Thrown     string
		Structured bool
		JSONText   bool
		Progress   int
	}
	var tsLines []tsLine
	sc := bufio.NewScanner(bytes.NewReader(outb))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l tsLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Step > 0 {
			tsLines = append(tsLines, l)
		}
	}
	if len(tsLines) != len(plan) {
		t.Fatalf("the TypeScript client ran %d of %d steps:\n%s\n%s", len(tsLines), len(plan), outb, stderr.String())
	}
	for i, l := range tsLines {
		got := l.Code
		if l.Thrown != "" {
			got = "thrown"
		}
		st := plan[i]
		switch {
		case st.tsOnly && got != st.want:
			t.Errorf("TypeScript SDK step %d %s (request timeout %d ms, reset on progress %v): got %s (%s), want %s", l.Step, l.Tool, st.TimeoutMS, st.ResetTimeoutOnProgress, got, l.Thrown, st.want)
		case !st.tsOnly && got != goCodes[i]:
			t.Errorf("TypeScript SDK step %d %s: got %s %s, the Go SDK read %s", l.Step, l.Tool, got, l.Thrown, goCodes[i])
		}
		if l.IsError && l.Structured {
			t.Errorf("TypeScript SDK step %d %s: a tool error with structured content", l.Step, l.Tool)
		}
		if got == "ok" && (!l.JSONText || l.Structured == mcp.PageTool(l.Tool)) {
			t.Errorf("TypeScript SDK step %d %s: text is JSON %v, structured content %v; want JSON text, and structured content only for tools that do not return the page", l.Step, l.Tool, l.JSONText, l.Structured)
		}
		if st.Progress && l.Progress < 2 {
			t.Errorf("TypeScript SDK step %d %s: %d progress notifications during a 5 s wait, want 2 or more", l.Step, l.Tool, l.Progress)
		}
	}

	t.Logf("TypeScript SDK %s: %d steps in %s", tsSDKVersion, len(plan), time.Since(start).Round(time.Millisecond))
	start = time.Now()
	defer func() {
		t.Logf("Inspector %s CLI: one process per step, in %s", inspectorVersion, time.Since(start).Round(time.Millisecond))
	}()
	// the Inspector's CLI: one process per call, so it talks to one
	// server over streamable HTTP (tasks outlive client sessions)
	srv := exec.Command(exe, "mcp", "--http", "127.0.0.1:0")
	errPipe, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	})
	line, err := bufio.NewReader(errPipe).ReadString('\n')
	if err != nil {
		t.Fatalf("replaylab mcp --http: %v", err)
	}
	i := strings.Index(line, "http://")
	j := strings.Index(line, "/mcp")
	if i < 0 || j < i {
		t.Fatalf("replaylab mcp --http printed %q, no address", line)
	}
	endpoint := line[i : j+len("/mcp")]
	inspector := filepath.Join(npm, "node_modules", ".bin", "mcp-inspector")
	vars = map[string]string{}
	for k, st := range plan {
		if st.tsOnly {
			continue
		}
		args := []string{"--cli", endpoint, "--transport", "http", "--method", "tools/call", "--tool-name", st.Tool}
		for name, v := range substitute(st.Arguments, vars).(map[string]any) {
			val := fmt.Sprint(v)
			if _, ok := v.(string); !ok {
				b, _ := json.Marshal(v)
				val = string(b)
			}
			args = append(args, "--tool-arg", name+"="+val)
		}
		cmd := exec.Command(inspector, args...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, _ := cmd.Output() // a tool error exits non-zero
		var res struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
			Content           []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		got := "thrown"
		if err := json.NewDecoder(bytes.NewReader(out)).Decode(&res); err == nil && len(res.Content) > 0 {
			got = "ok"
			if res.IsError {
				var te mcp.ToolError
				if json.Unmarshal([]byte(res.Content[0].Text), &te) != nil || te.Code == "" {
					got = "UNREADABLE " + res.Content[0].Text
				} else {
					got = string(te.Code)
				}
			} else if !json.Valid([]byte(res.Content[0].Text)) || (res.StructuredContent != nil) == mcp.PageTool(st.Tool) {
				got = "UNREADABLE " + res.Content[0].Text
			}
			for name, field := range st.Keep {
				vars[name] = fmt.Sprint(res.StructuredContent[field])
			}
		}
		if got != goCodes[k] {
			t.Errorf("Inspector step %d %s: got %s, the Go SDK read %s\n%s%s", k+1, st.Tool, got, goCodes[k], out, errb.String())
		}
	}
}
