package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/testskip"
)

// TestAdapterGuideCommands runs the commands of docs/adapters.md as a team
// would follow the guide: a sim serving the list style, observe with the
// auto adapter and with the guide's adapter file, validate on the second
// site's recording (passing, and failing on a broken adapter), and the
// site's scenarios replayed. Each command must appear verbatim in the
// guide, so the guide and this test cannot drift apart. The guide's fixed
// port 8088 is swapped for a free one.
func TestAdapterGuideCommands(t *testing.T) {
	const prefix = "go run ./cmd/replaylab "
	guide, err := os.ReadFile("../../docs/adapters.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")

	steps := []struct {
		name    string
		command string // as the guide prints it
		browser bool   // opens an http URL in Chromium
		want    int
		out     string // in stdout+stderr
	}{
		{"observe the sim with the auto adapter", "observe --adapter auto http://127.0.0.1:8088/chat", true, exitOK, "STRUCTURE_UNKNOWN"},
		{"observe with the guide's adapter file", "observe --adapter docs/examples/listchat.json http://127.0.0.1:8088/chat", true, exitOK, "file:listchat"},
		{"validate the second site's recording", "validate --site testsite/testsite.json testsite/recordings/send", false, exitOK, ""},
		{"validate names swapped speakers", "validate --quiet --site testsite/testsite.json --adapter testsite/broken/swapped-speakers.adapter.json testsite/recordings/send", false, exitFailed, ""},
		{"replay the site's scenarios", "run features/site.feature", false, exitOK, "passed"},
		{"validate declared volatile ids", "validate --quiet --adapter testsite/lib/browser-ids.adapter.json recordings/sessions/library-ids/ids-made-in-the-browser-on-every-load-never-reach-the-golden.json", false, exitOK, "0 violations"},
		{"validate declared position ids", "validate --quiet --adapter testsite/lib/list-positions.adapter.json recordings/sessions/library-ids/a-site-with-no-message-ids-declares-position-ids-and-that-is-no-violation.json", false, exitOK, "0 violations"},
	}
	for _, s := range steps {
		if !strings.Contains(string(guide), prefix+s.command) {
			t.Fatalf("docs/adapters.md no longer shows %q: update the guide or this test", prefix+s.command)
		}
	}
	const simCommand = "sim --addr 127.0.0.1:8088 --style list"
	if !strings.Contains(string(guide), prefix+simCommand) {
		t.Fatalf("docs/adapters.md no longer shows %q", prefix+simCommand)
	}

	haveBrowser := true
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		haveBrowser = false
		testskip.Record(fmt.Sprintf("SKIPPING the guide's observe commands (no browser): %v", err))
	}

	addr := freeLoopbackAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var sink strings.Builder
		done <- run(ctx, strings.Fields(strings.Replace(simCommand, "127.0.0.1:8088", addr, 1)), &sink, &sink)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("replaylab sim did not stop within a minute of its context ending (a hang guard)")
		}
	})
	waitReady(t, "http://"+addr+"/")

	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.browser && !haveBrowser {
				testskip.Skip(t, "SKIPPING %q: no browser", s.command)
			}
			args := strings.Fields(strings.ReplaceAll(s.command, "127.0.0.1:8088", addr))
			code, stdout, stderr := runCLI(t, args...)
			if code != s.want {
				t.Fatalf("%s%s: exit %d, want %d\nstdout: %s\nstderr: %s", prefix, s.command, code, s.want, stdout, stderr)
			}
			if s.out != "" && !strings.Contains(stdout+stderr, s.out) {
				t.Fatalf("%s%s: output does not mention %q:\n%s%s", prefix, s.command, s.out, stdout, stderr)
			}
		})
	}
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitReady polls url until it answers 200 (the sim's index answers 200
// once it is ready), for at most 2 minutes, a guard against a server that
// never comes up.
func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 2 minutes (a hang guard)", url)
}
