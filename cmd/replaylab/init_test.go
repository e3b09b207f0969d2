package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/infer"
	"github.com/replaylab/replaylab/internal/syncbuf"
	"github.com/replaylab/replaylab/sim"
)

// TestInitLive runs init on the sim's three markup styles in Chromium:
// each writes a profile and an adapter that validate accepts over init's
// own session, and a send-and-answer scenario with them passes live, then
// replayed.
func TestInitLive(t *testing.T) {
	for _, tc := range []struct {
		style, turn, idKind string
	}{
		{sim.StyleMarker, "div.turn", "stable"},
		{sim.StyleHeading, "article.turn", "position"},
		{sim.StyleList, "li.entry", "stable"},
	} {
		t.Run(tc.style, func(t *testing.T) {
			s := browserAndSim(t)
			chat := sim.DefaultChat()
			chat.Style = tc.style
			s.SetChat(chat)
			root := t.TempDir()
			out := filepath.Join(root, "site")
			var stdout, stderr syncbuf.Buffer
			code := run(context.Background(), []string{"init", "--out", out, "--name", "chat", s.URL + "/chat"}, &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("init exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), ", 0 violations.") {
				t.Errorf("the report says no 0 violations:\n%s", stdout.String())
			}
			var ad infer.Adapter
			b, err := os.ReadFile(filepath.Join(out, "chat.adapter.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &ad); err != nil {
				t.Fatal(err)
			}
			if ad.Turn.Selector != tc.turn || ad.Turn.ID.Kind != tc.idKind {
				t.Errorf("adapter turn %q id kind %q, want %q %q:\n%s", ad.Turn.Selector, ad.Turn.ID.Kind, tc.turn, tc.idKind, b)
			}
			feature := `Feature: init's profile
  Scenario: A send is followed to its answer
    Given the site "site/chat.json"
    When I open the chat
    And I send "Is this answered?"
    And I wait for the answer
    Then the answer status is "complete"
`
			if err := os.MkdirAll(filepath.Join(root, "features"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "features", "send.feature"), []byte(feature), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"run", "--root", root, "--driver", "browser", "--mode", "record-once", "features/send.feature"},
				{"run", "--root", root, "features/send.feature"},
			} {
				var o, e syncbuf.Buffer
				if code := run(context.Background(), args, &o, &e); code != exitOK {
					t.Fatalf("%v: exit %d\n%s\n%s", args, code, o.String(), e.String())
				}
			}
		})
	}
}

// TestInitRefuses: each kind of bad input has its own exit code and a
// hint that is a command.
func TestInitRefuses(t *testing.T) {
	busy := t.TempDir()
	if err := os.WriteFile(filepath.Join(busy, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		browser bool
		code    int
		want    string
	}{
		{"no URL", []string{"init"}, false, exitBadInput, "give the chat page's URL"},
		{"not a page's URL", []string{"init", "chat.example.com"}, false, exitBadInput, "is not a page's URL"},
		{"URL and --from", []string{"init", "--from", "x.json", "http://127.0.0.1:1/"}, false, exitBadInput, "not both"},
		{"bad clock", []string{"init", "--clock", "lab", "http://127.0.0.1:1/"}, false, exitBadInput, "--clock must be wall or page"},
		{"bad name", []string{"init", "--name", "My Site", "http://127.0.0.1:1/"}, false, exitBadInput, "want lower-case letters"},
		{"out holds files", []string{"init", "--out", busy, "http://127.0.0.1:1/"}, false, exitBadInput, "add --force"},
		{"no such session", []string{"init", "--from", "missing.json", "--out", filepath.Join(t.TempDir(), "o")}, false, exitBadInput, "no such file"},
		{"a session without a send", []string{"init", "--from", "../../recordings/sessions/chatapp/a-page-that-never-gets-ready-fails-naming-what-was-awaited.json", "--out", filepath.Join(t.TempDir(), "o")}, false, exitInitNoInference, "nothing was typed"},
		{"unreachable", []string{"init", "--out", filepath.Join(t.TempDir(), "o"), "http://" + closedAddr(t) + "/chat"}, true, exitInitUnreachable, "start the site, then run init again: "},
		{"no composer", []string{"init", "--out", filepath.Join(t.TempDir(), "o"), staticPage(t, "<h1>Docs</h1><p>No chat here.</p>")}, true, exitInitNoComposer, "init --composer CSS-SELECTOR"},
		{"HTTP error", []string{"init", "--out", filepath.Join(t.TempDir(), "o"), staticPage(t, "") + "missing"}, true, exitInitUnreachable, "answered HTTP 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.browser {
				needBrowser(t)
			}
			var stdout, stderr syncbuf.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr should mention %q:\n%s", code, tc.code, tc.want, stderr.String())
			}
		})
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// staticPage serves body at / (and 404 elsewhere) and returns its URL.
func staticPage(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><html><body>" + body + "</body></html>"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}
