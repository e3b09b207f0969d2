package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/internal/syncbuf"
)

// A page that adds an answer turn three times, with an e-mail address in
// it: the recording holds a capture per burst and no address. Each turn
// is added once the recorder has reported the capture before it (the
// page asks /next?n=K, which answers when the recorder's progress shows
// capture K), so no two bursts can fall into one capture however slow
// the machine.
const growingPage = `<!doctype html><html><body><main id="t">
<div data-message-author-role="user" data-message-id="u1">hi</div></main>
<textarea aria-label="Message"></textarea><button>Send</button>
<script>
(async () => {
  for (let n = 1; n <= 3; n++) {
    await fetch('/next?n=' + n);
    document.getElementById('t').insertAdjacentHTML('beforeend',
      '<div data-message-author-role="assistant" data-message-id="a' + n + '">answer ' + n + ' to ada@example.com</div>');
  }
})();
</script></body></html>`

func TestRecordCapturesEveryBurstAndScrubs(t *testing.T) {
	needBrowser(t)
	var stderr syncbuf.Buffer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/next" {
			seen := "capture " + r.URL.Query().Get("n") + ":"
			for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), seen) && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(growingPage))
	}))
	defer srv.Close()
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var stdout syncbuf.Buffer
	go func() {
		done <- run(ctx, []string{"record", "--url", srv.URL, "--out", out, "--duration", "2m", "--debounce", "100ms"}, &stdout, &stderr)
	}()
	// the third turn is in: stop (an interrupt saves what was captured);
	// Chromium and the page run meanwhile, so this polls what record
	// printed, bounded only against a hang
	for start := time.Now(); !strings.Contains(stderr.String(), "3 groups"); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("record showed no third turn in 2 minutes (a hang guard):\n%s", stderr.String())
		}
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	s, err := replay.Load(filepath.Join(out, SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Captures) < 4 {
		t.Fatalf("recorded %d captures of a page loaded and then changed 3 times:\n%s", len(s.Captures), stderr.String())
	}
	data, _ := os.ReadFile(filepath.Join(out, SessionFile))
	if strings.Contains(string(data), "ada@example.com") {
		t.Fatal("an e-mail address reached the recording")
	}
	for _, want := range []string{"1 groups", "2 groups", "3 groups"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("progress does not show the groups growing (no %q):\n%s", want, stderr.String())
		}
	}
}

func TestRecordBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no url", []string{"record", "--out", t.TempDir()}, "--url is required"},
		{"no out", []string{"record", "--url", "http://127.0.0.1:1/"}, "--out is required"},
		{"bad adapter", []string{"record", "--url", "http://127.0.0.1:1/", "--out", t.TempDir(), "--adapter", "nope"}, "--adapter"},
		{"zero captures", []string{"record", "--url", "http://127.0.0.1:1/", "--out", t.TempDir(), "--max-captures", "0"}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitBadInput || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
