package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/chatpage"
)

// TestObserveGroupsBound: observe --json bounds the answer groups like the
// engine's views (the last 20 for full, 5 for page), says so in
// groupCount, and prints compact JSON unless --indent.
func TestObserveGroupsBound(t *testing.T) {
	page := filepath.Join(t.TempDir(), "chat.html")
	if err := os.WriteFile(page, []byte(chatpage.Render(chatpage.Options{Turns: 200, Seed: 1})), 0o644); err != nil {
		t.Fatal(err)
	}
	type obs struct {
		Complete bool `json:"complete"`
		Groups   []struct {
			ID   string `json:"id"`
			Rule string `json:"rule"`
		} `json:"groups"`
		GroupCount struct {
			Returned, Total int
			Truncated       bool
		} `json:"groupCount"`
	}
	tests := []struct {
		name     string
		args     []string
		returned int
		last     string
		indented bool
	}{
		{"full view", nil, 20, "msg-000199", false},
		{"page view", []string{"--view", "page"}, 5, "msg-000199", false},
		{"three", []string{"--groups", "3"}, 3, "msg-000199", false},
		{"all, indented", []string{"--groups", "all", "--indent"}, 100, "msg-000199", true},
		{"none", []string{"--groups", "0"}, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append(append([]string{"observe", "--json"}, tt.args...), page)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Count(strings.TrimSpace(out), "\n") > 0; got != tt.indented {
				t.Errorf("indented %v, want %v", got, tt.indented)
			}
			var o obs
			if err := json.Unmarshal([]byte(out), &o); err != nil {
				t.Fatal(err)
			}
			if len(o.Groups) != tt.returned || o.GroupCount.Returned != tt.returned || o.GroupCount.Total != 100 {
				t.Fatalf("%d groups, count %+v; want %d of 100", len(o.Groups), o.GroupCount, tt.returned)
			}
			if tt.returned > 0 && (o.Groups[len(o.Groups)-1].ID != tt.last || o.Groups[0].Rule == "") {
				t.Errorf("groups end with %+v, want %s with its rule", o.Groups[len(o.Groups)-1], tt.last)
			}
			if o.GroupCount.Truncated != (tt.returned < 100) {
				t.Errorf("groupCount %+v", o.GroupCount)
			}
		})
	}
	for _, bad := range []string{"-1", "many"} {
		if code, _, stderr := runCLI(t, "observe", "--json", "--groups", bad, page); code != exitBadInput || !strings.Contains(stderr, "--groups") {
			t.Errorf("--groups %s: exit %d, %q; want 2 naming --groups", bad, code, stderr)
		}
	}
}

// TestObserveAutoNamesStyle: observe --adapter auto says which style it
// picked and why, in text and in JSON, and says what it tried when no
// style finds turns.
func TestObserveAutoNamesStyle(t *testing.T) {
	dir := t.TempDir()
	chat := filepath.Join(dir, "chat.html")
	if err := os.WriteFile(chat, []byte(chatpage.Render(chatpage.Options{Turns: 4, Seed: 1})), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.html")
	if err := os.WriteFile(plain, []byte(`<!doctype html><main><h1>Welcome</h1><p>no chat here</p></main>`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"text, a chat", []string{chat}, "adapter: auto picked marker (4 turns"},
		{"json, a chat", []string{"--json", chat}, `"adapterNote":"auto picked marker (4 turns`},
		{"text, no turns", []string{plain}, "adapter: auto: no turns by marker, heading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"observe", "--adapter", "auto"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}
