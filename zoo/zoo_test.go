package zoo

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(Options{ThinkMS: 1, StreamMS: 1, LongStreamMS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

// events reads an SSE body into (event, data) pairs.
func events(t *testing.T, r io.Reader) [][2]string {
	t.Helper()
	var out [][2]string
	var ev, data string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, [2]string{ev, data})
			ev, data = "", ""
		case strings.HasPrefix(line, "event: "):
			ev = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	return out
}

func TestScript(t *testing.T) {
	tests := []struct {
		name, message string
		variant       int
		text, err     string
		long          bool
	}{
		{"a known question", "What is the capital of France?", 0, "The capital of France is Paris, on the Seine.", "", false},
		{"arithmetic", "What is 2 + 2?", 0, "2 + 2 equals 4.", "", false},
		{"anything else", " Hello ", 0, "You said: Hello. That is all I know.", "", false},
		{"regenerated", "What is 2 + 2?", 1, "Put another way (take 2): 2 + 2 equals 4.", "", false},
		{"a long answer", "Tell me something long", 0, "", "", true},
		{"an error", "Please fail with an error", 0, "", ErrorText, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Script(tt.message, tt.variant)
			if a.Err != tt.err || a.Long != tt.long {
				t.Fatalf("Script(%q) = err %q long %v, want %q %v", tt.message, a.Err, a.Long, tt.err, tt.long)
			}
			if tt.text != "" && a.Text != tt.text {
				t.Errorf("text %q, want %q", a.Text, tt.text)
			}
			if strings.Join(a.Parts, "") != a.Text {
				t.Errorf("parts %q do not join into %q", a.Parts, a.Text)
			}
			if a.Err == "" && len(a.Parts) < 2 {
				t.Errorf("%d parts: an answer must stream", len(a.Parts))
			}
		})
	}
}

func TestAISDKStream(t *testing.T) {
	s := start(t)
	res := post(t, s.URL+"/aisdk/api/chat", `{"id":"c1","trigger":"submit-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"What is 2 + 2?"}]}]}`)
	if got := res.Header.Get("x-vercel-ai-ui-message-stream"); got != "v1" {
		t.Fatalf("x-vercel-ai-ui-message-stream %q, want v1", got)
	}
	evs := events(t, res.Body)
	var types []string
	text := ""
	for _, e := range evs {
		if e[1] == "[DONE]" {
			types = append(types, "[DONE]")
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(e[1]), &c); err != nil {
			t.Fatal(err)
		}
		if _, ok := c["messageId"]; ok {
			t.Errorf("start carries a messageId: the browser must make the id")
		}
		types = append(types, c["type"].(string))
		if c["type"] == "text-delta" {
			text += c["delta"].(string)
		}
	}
	want := "start start-step text-start text-delta text-delta text-end finish-step finish [DONE]"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("chunks %q, want %q", got, want)
	}
	if text != "2 + 2 equals 4." {
		t.Errorf("text %q", text)
	}

	res = post(t, s.URL+"/aisdk/api/chat", `{"trigger":"regenerate-message","messages":[{"role":"user","parts":[{"type":"text","text":"an error please"}]}]}`)
	evs = events(t, res.Body)
	if len(evs) != 3 || !strings.Contains(evs[1][1], `"type":"error"`) || !strings.Contains(evs[1][1], ErrorText) {
		t.Errorf("error stream %q", evs)
	}
}

func TestDeepChatStream(t *testing.T) {
	s := start(t)
	res := post(t, s.URL+"/deepchat/api/chat", `{"messages":[{"role":"user","text":"What is 2 + 2?"}]}`)
	text := ""
	for _, e := range events(t, res.Body) {
		var r struct{ Text, Error string }
		if err := json.Unmarshal([]byte(e[1]), &r); err != nil {
			t.Fatal(err)
		}
		text += r.Text
	}
	if text != "2 + 2 equals 4." {
		t.Errorf("text %q", text)
	}
	res = post(t, s.URL+"/deepchat/api/chat", `{"messages":[{"role":"user","text":"error"}]}`)
	if evs := events(t, res.Body); len(evs) != 1 || evs[0][1] != `{"error":"`+ErrorText+`"}` {
		t.Errorf("error stream %q", evs)
	}
}

func TestChatCompletionsStream(t *testing.T) {
	s := start(t)
	res := post(t, s.URL+"/chatscope/v1/chat/completions", `{"model":"zoo-1","stream":true,"seed":1,"messages":[{"role":"user","content":"What is 2 + 2?"}]}`)
	evs := events(t, res.Body)
	if last := evs[len(evs)-1][1]; last != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", last)
	}
	text, finish := "", ""
	for i, e := range evs[:len(evs)-1] {
		var c struct {
			Object  string
			Choices []struct {
				Delta struct {
					Role, Content string
				}
				FinishReason *string `json:"finish_reason"`
			}
		}
		if err := json.Unmarshal([]byte(e[1]), &c); err != nil {
			t.Fatal(err)
		}
		if c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("chunk %d: %s", i, e[1])
		}
		if i == 0 && c.Choices[0].Delta.Role != "assistant" {
			t.Errorf("first chunk has no assistant role: %s", e[1])
		}
		text += c.Choices[0].Delta.Content
		if c.Choices[0].FinishReason != nil {
			finish = *c.Choices[0].FinishReason
		}
	}
	if text != "Put another way (take 2): 2 + 2 equals 4." || finish != "stop" {
		t.Errorf("text %q finish %q", text, finish)
	}
	res = post(t, s.URL+"/chatscope/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"error"}]}`)
	var e struct{ Error struct{ Message string } }
	if err := json.NewDecoder(res.Body).Decode(&e); err != nil || res.StatusCode != 500 || e.Error.Message != ErrorText {
		t.Errorf("error answer %d %+v %v", res.StatusCode, e, err)
	}
}

func TestLangServeStream(t *testing.T) {
	s := start(t)
	res, err := http.Get(s.URL + "/nlux/api/chat/input_schema")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	res = post(t, s.URL+"/nlux/api/chat/stream", `{"input":"What is 2 + 2?"}`)
	evs := events(t, res.Body)
	if evs[0][0] != "metadata" || evs[len(evs)-1][0] != "end" {
		t.Fatalf("events %q: want metadata first, end last", evs)
	}
	text := ""
	for _, e := range evs[1 : len(evs)-1] {
		var p string
		if e[0] != "data" || json.Unmarshal([]byte(e[1]), &p) != nil {
			t.Fatalf("event %q: want data with a JSON string", e)
		}
		text += p
	}
	if text != "2 + 2 equals 4." {
		t.Errorf("text %q", text)
	}
	res = post(t, s.URL+"/nlux/api/chat/stream", `{"input":"error"}`)
	if res.StatusCode != 500 {
		t.Errorf("error status %d, want 500", res.StatusCode)
	}
}

func TestPagesServeTheirBundles(t *testing.T) {
	s := start(t)
	for _, path := range []string{"/", "/aisdk/", "/aisdk/dist/app.js", "/deepchat/", "/deepchat/dist/deepChat.bundle.js", "/chatscope/", "/chatscope/dist/app.js", "/chatscope/dist/styles.css", "/nlux/", "/nlux/dist/app.js", "/nlux/dist/nova.css"} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
}

func TestStartRefusesOffLoopback(t *testing.T) {
	if _, err := Start(Options{Addr: "0.0.0.0:0"}); !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("err %v, want ErrNotLoopback", err)
	}
}
