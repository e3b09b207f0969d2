package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/mcp"

	"github.com/replaylab/replaylab/internal/testskip"
)

// TestMain lets the test binary stand in for replaylab when `run` starts
// `replaylab mcp` for features/mcp.feature, or `replaylab run` for the
// hints features/harness.feature runs: run passes os.Executable, which
// under go test is this binary, with "mcp" or "run" as its first argument
// (no test flag looks like that). The LSP tests start it as `replaylab
// lsp` the same way.
func TestMain(m *testing.M) {
	// the test binary is also replaylab: the scenarios start it as a
	// subprocess with any command (never the tests again: that recurses)
	if len(os.Args) > 1 {
		for _, c := range commands {
			if os.Args[1] == c.name {
				main()
			}
		}
	}
	os.Exit(testskip.Main(m))
}

// TestMCPStdinCloseLeavesNoBrowser runs `replaylab mcp` over OS pipes,
// starts the browser through a page operation, closes the server's stdin
// and checks that the command exits 0 and no Chromium is left behind.
func TestMCPStdinCloseLeavesNoBrowser(t *testing.T) {
	s := browserAndSim(t)

	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := mcpStdin
	mcpStdin = inR
	t.Cleanup(func() { mcpStdin = old })

	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"mcp"}, outW, &stderr)
		_ = outW.Close()
		exit <- code
	}()

	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.ConnectOptions{Transport: &mcpsdk.IOTransport{Reader: outR, Writer: inW}, CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Begin(ctx, "observe a sim page")
	if err != nil {
		t.Fatal(err)
	}
	if len(browser.Leaks()) != 0 {
		t.Fatalf("a browser runs before any page operation: %v", browser.Leaks())
	}
	p := task.Page("main")
	if err := p.Navigate(ctx, s.URL+"/act/links"); err != nil {
		t.Fatal(err)
	}
	v, err := p.Snapshot(ctx, "page")
	if err != nil {
		t.Fatal(err)
	}
	if v.View != "page" || len(v.Elements) == 0 {
		t.Fatalf("snapshot: %+v", v.Snapshot)
	}
	if len(browser.Leaks()) == 0 {
		t.Fatal("no browser process is running after a page operation; the leak check would prove nothing")
	}
	if err := c.Close(); err != nil { // closes the server's stdin
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("replaylab mcp exited %d: %s", code, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("replaylab mcp did not exit after its stdin closed (2 minutes, a hang guard)")
	}
	if leaks := browser.Leaks(); len(leaks) > 0 {
		t.Fatalf("left behind after stdin closed: %s", strings.Join(leaks, ", "))
	}
}

func TestMCPBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{name: "record and replay", args: []string{"mcp", "--record", "a.json", "--replay", "b.json"}, want: "exclude each other"},
		{name: "rewrite without record", args: []string{"mcp", "--base-rewrite", "http://127.0.0.1:1=http://sim.test"}, want: "--base-rewrite needs --record"},
		{name: "rewrite without canonical", args: []string{"mcp", "--record", "a.json", "--base-rewrite", "http://127.0.0.1:1"}, want: "LIVE=CANONICAL"},
		{name: "replay with a browser", args: []string{"mcp", "--replay", "a.json", "--cdp", "ws://127.0.0.1:1"}, want: "no browser"},
		{name: "http off loopback", args: []string{"mcp", "--http", "0.0.0.0:0"}, want: "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Fatalf("stderr %q does not mention %q", stderr, tt.want)
			}
		})
	}
}

// TestMCPHTTPTasksOutliveSessions serves `replaylab mcp --http` and checks
// that a task begun in one client session is there in the next (the MCP
// Inspector's CLI opens a session per call), and that an interrupt stops
// the server with exit 0.
func TestMCPHTTPTasksOutliveSessions(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, []string{"mcp", "--http", addr}, io.Discard, &stderr) }()

	session := func() *mcpsdk.ClientSession {
		t.Helper()
		cl := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "dev"}, nil)
		var cs *mcpsdk.ClientSession
		var err error
		// the server may still be starting: poll, bounded only against a
		// server that never listens
		for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(100 * time.Millisecond) {
			cs, err = cl.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
			if err == nil {
				return cs
			}
		}
		t.Fatalf("connect (for a minute, a hang guard): %v", err)
		return nil
	}
	call := func(cs *mcpsdk.ClientSession, tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%s: %s", tool, mcp.TextOf(res))
		}
		body, err := mcp.ResultJSON(res)
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	first := session()
	if got := call(first, "begin", map[string]any{"goal": "across sessions"}); got != `{"task":"t1"}` {
		t.Fatalf("begin: %s", got)
	}
	_ = first.Close()
	second := session()
	if got := call(second, "metrics", map[string]any{"task": "t1"}); !strings.Contains(got, `"calls":1`) {
		t.Fatalf("metrics of t1 from a new session: %s", got)
	}
	_ = second.Close()
	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Fatalf("replaylab mcp --http exited %d: %s", code, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("replaylab mcp --http did not stop after the interrupt (2 minutes, a hang guard)")
	}
}

// exited reports whether pid has ended (gone, or a zombie its parent has
// not waited for yet).
func exited(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(data), ") Z ")
}

// TestMCPSigtermEndsInFlightCalls: SIGTERM while a long wait runs ends
// the call and the process (a second on a quiet machine: the time is
// logged), long before the wait's own timeout, and leaves no browser and
// no profile directory behind (AGT-1).
func TestMCPSigtermEndsInFlightCalls(t *testing.T) {
	s := browserAndSim(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.ConnectOptions{Command: []string{exe, "mcp"}, Env: []string{"TMPDIR=" + tmp}, CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Begin(ctx, "wait for text that never shows")
	if err != nil {
		t.Fatal(err)
	}
	p := task.Page("main")
	if err := p.Navigate(ctx, s.URL+"/act/links"); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, browser.TempDirPrefix+"*"))
	if len(dirs) == 0 {
		t.Fatal("no profile directory under the process's TMPDIR; the check below would prove nothing")
	}
	waited := make(chan error, 1)
	go func() {
		waited <- p.WaitFor(ctx, engine.Expect{TextVisible: "never shown", Timeout: 10 * time.Minute})
	}()
	// let the call reach the server; were it still on its way, the
	// signal would end it as well, so no verdict depends on this pause
	time.Sleep(500 * time.Millisecond)
	pid := c.Process().Pid
	start := time.Now()
	if err := c.Process().Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// the process is another: poll /proc; the bound, far below the
	// wait's 10 minutes, is a hang guard
	for !exited(pid) && time.Since(start) < 2*time.Minute {
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(start)
	t.Logf("exited %s after SIGTERM", took.Round(time.Millisecond))
	if !exited(pid) {
		t.Fatal("the process did not exit within 2 minutes of SIGTERM (its wait in flight runs 10 minutes)")
	}
	select {
	case err := <-waited:
		if err == nil {
			t.Error("the wait in flight succeeded; it should have ended with the process")
		}
	case <-time.After(time.Minute):
		t.Error("the wait in flight did not return within a minute after the process exited (a hang guard)")
	}
	_ = c.Close()
	if left, _ := filepath.Glob(filepath.Join(tmp, browser.TempDirPrefix+"*")); len(left) > 0 {
		t.Errorf("the profile directory is left behind: %v", left)
	}
}
