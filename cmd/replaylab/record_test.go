package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/replay"
)

// A page that adds an answer turn three times, 300 ms apart, with an
// e-mail address in it: the recording holds a capture per burst and no
// address.
const growingPage = `<!doctype html><html><body><main id="t">
<div data-message-author-role="user" data-message-id="u1">hi</div></main>
<textarea aria-label="Message"></textarea><button>Send</button>
<script>
let n = 0;
const tick = setInterval(() => {
  n++;
  document.getElementById('t').insertAdjacentHTML('beforeend',
    '<div data-message-author-role="assistant" data-message-id="a' + n + '">answer ' + n + ' to ada@example.com</div>');
  if (n === 3) clearInterval(tick);
}, 300);
</script></body></html>`

func TestRecordCapturesEveryBurstAndScrubs(t *testing.T) {
	needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(growingPage))
	}))
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "record", "--url", srv.URL, "--out", out, "--duration", "3s", "--debounce", "100ms")
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, stdout, stderr)
	}
	s, err := replay.Load(filepath.Join(out, SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Captures) < 3 {
		t.Fatalf("recorded %d captures of a page that changed 3 times:\n%s", len(s.Captures), stderr)
	}
	data, _ := os.ReadFile(filepath.Join(out, SessionFile))
	if strings.Contains(string(data), "ada@example.com") {
		t.Fatal("an e-mail address reached the recording")
	}
	if !strings.Contains(stderr, "3 groups") {
		t.Fatalf("progress does not show the groups growing:\n%s", stderr)
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
