package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/sim"
)

func start(t *testing.T) *sim.Server {
	t.Helper()
	s, err := sim.NewServer(sim.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

func TestIndexListsEveryPage(t *testing.T) {
	s := start(t)
	code, body := get(t, s.URL+"/")
	if code != http.StatusOK {
		t.Fatalf("index: %d", code)
	}
	for _, p := range sim.Pages {
		if p.Endpoint {
			if !strings.Contains(body, p.Path) {
				t.Errorf("index does not list the endpoint %s", p.Path)
			}
			continue
		}
		if !strings.Contains(body, `href="`+p.Path+`"`) {
			t.Errorf("index does not link %s", p.Path)
		}
		if code, _ := get(t, s.URL+p.Path); code != http.StatusOK {
			t.Errorf("%s: %d", p.Path, code)
		}
	}
	if code, body := get(t, s.URL+"/no-such-page"); code != http.StatusNotFound || !strings.Contains(body, "see / for the index") || !strings.Contains(body, `"code":"SIM_NOT_FOUND"`) {
		t.Fatalf("unknown page: %d %q", code, body)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "10.1.2.3:0", ":0"} {
		if _, err := sim.NewServer(sim.Options{Addr: addr}); !errors.Is(err, sim.ErrNotLoopback) {
			t.Errorf("%s: got %v, want ErrNotLoopback", addr, err)
		}
	}
}

func TestChatIsDeterministicForASeed(t *testing.T) {
	a := sim.Chat{Style: sim.StyleMarker, History: 6, Seed: 3, LongLastAnswer: 500}
	b := a
	if sim.RenderChat(a, a.HistoryTurns()) != sim.RenderChat(b, b.HistoryTurns()) {
		t.Fatal("same seed rendered two pages")
	}
	b.Seed = 4
	if sim.RenderChat(a, a.HistoryTurns()) == sim.RenderChat(b, b.HistoryTurns()) {
		t.Fatal("different seeds rendered the same page")
	}
	turns := a.HistoryTurns()
	if len(turns) != 6 || turns[0].Author != "user" || turns[5].Author != "assistant" || len(turns[5].Text) != 500 {
		t.Fatalf("history: %+v", turns)
	}
}

func TestSendFollowsTheScript(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	s, err := sim.NewServer(sim.Options{Clock: lab})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	s.SetChat(sim.Chat{Style: sim.StyleMarker, History: 2, Answers: []sim.Answer{{Partial: "P", Final: "F", Generate: time.Second}}})
	post := func(body string) (int, map[string]any) {
		t.Helper()
		res, err := http.Post(s.URL+"/sim/chat/send", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	if code, m := post(`{"text":"hello"}`); code != 200 || m["version"] != 1.0 {
		t.Fatalf("send: %d %v", code, m)
	}
	if code, m := post(`not json`); code != http.StatusBadRequest || m["code"] != string(sim.CodeBadRequest) {
		t.Fatalf("bad body: %d", code)
	}
	if got := s.Received(); len(got) != 1 || got[0] != "hello" {
		t.Fatalf("received: %v", got)
	}
	// a reload shows the answer as it is now: generating until the clock
	// reaches its completion
	_, body := get(t, s.URL+"/chat")
	if !strings.Contains(body, `data-message-id="msg-0004" aria-busy="true"`) || !strings.Contains(body, ">P<") {
		t.Fatal("reloaded chat lacks the generating turn")
	}
	if err := lab.Sleep(context.Background(), 999*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, body = get(t, s.URL+"/chat"); !strings.Contains(body, ">P<") {
		t.Fatal("the answer completed before the clock reached it")
	}
	if err := lab.Sleep(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if at := lab.Now().Sub(clock.Epoch); at != time.Second {
		t.Errorf("the sleep woke at +%v, want +1s (the completion)", at)
	}
	if _, body = get(t, s.URL+"/chat"); !strings.Contains(body, ">F<") || strings.Contains(body, "aria-busy") {
		t.Fatal("reloaded chat lacks the final turn")
	}
}

func TestRenderStyles(t *testing.T) {
	tests := []struct {
		name  string
		chat  sim.Chat
		want  []string
		never []string
	}{
		{"marker", sim.Chat{Style: sim.StyleMarker, History: 2},
			[]string{`data-message-author-role="assistant" data-message-id="msg-0002"`}, []string{"Sim said:"}},
		{"heading", sim.Chat{Style: sim.StyleHeading, History: 2},
			[]string{`<h3 class="sr-only">You said:</h3>`, `<h3 class="sr-only">Sim said:</h3>`}, []string{"data-message-author-role"}},
		{"stale video in the last earlier answer", sim.Chat{Style: sim.StyleMarker, History: 4, LastAnswerMedia: sim.MediaVideo},
			[]string{`<video src="` + sim.VideoSrc + `"`}, nil},
		{"history with images", sim.Chat{Style: sim.StyleHeading, History: 12, HistoryImages: true},
			[]string{`<img src="` + sim.ImageSrc + `"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := sim.RenderChat(tt.chat, tt.chat.HistoryTurns())
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %s", w)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(page, n) {
					t.Errorf("page has %s", n)
				}
			}
		})
	}
}

func TestMediaIsServed(t *testing.T) {
	s := start(t)
	for path, magic := range map[string]string{sim.VideoSrc: "RIFF", sim.ImageSrc: "\x89PNG"} {
		code, body := get(t, s.URL+path)
		if code != 200 || !strings.HasPrefix(body, magic) {
			t.Errorf("%s: %d %q", path, code, body[:min(8, len(body))])
		}
	}
}
