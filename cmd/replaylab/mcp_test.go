package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/sim"
)

// TestMain lets the test binary stand in for replaylab when `run` starts
// `replaylab mcp` for features/mcp.feature: run passes os.Executable,
// which under go test is this binary, with "mcp" as its first argument
// (no test flag looks like that).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "mcp" {
		main()
	}
	os.Exit(m.Run())
}

// TestMCPStdinCloseLeavesNoBrowser runs `replaylab mcp` over OS pipes,
// starts the browser through a page operation, closes the server's stdin
// and checks that the command exits 0 and no Chromium is left behind.
func TestMCPStdinCloseLeavesNoBrowser(t *testing.T) {
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("SKIPPING browser test: %v", err)
	}
	s, err := sim.NewServer(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

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
	case <-time.After(30 * time.Second):
		t.Fatal("replaylab mcp did not exit after its stdin closed")
	}
	if leaks := browser.Leaks(); len(leaks) > 0 {
		t.Fatalf("left behind after stdin closed: %s", strings.Join(leaks, ", "))
	}
}
