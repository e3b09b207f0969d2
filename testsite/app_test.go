package testsite

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"testing"
	"time"
)

func startApp(t *testing.T) *Server {
	t.Helper()
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// wantEvents is what every transport must deliver for the prompt.
func wantEvents(t *testing.T, got []AppEvent, prompt string) {
	t.Helper()
	want := AppAnswer(prompt, "nova", 0, 1)
	if len(got) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

const prompt = "What is the capital of France?"

func streamURL(s *Server, path string) string {
	return s.URL + path + "?stream=200&model=nova&q=" + url.QueryEscape(prompt)
}

func TestAppStreamsOverFetch(t *testing.T) {
	s := startApp(t)
	resp, err := http.Get(streamURL(s, "/app/api/stream"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("content type %q", ct)
	}
	var got []AppEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var e AppEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, e)
	}
	wantEvents(t, got, prompt)
}

func TestAppStreamsOverEventSource(t *testing.T) {
	s := startApp(t)
	resp, err := http.Get(streamURL(s, "/app/api/sse"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []AppEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e AppEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("data %q: %v", line, err)
		}
		got = append(got, e)
	}
	wantEvents(t, got, prompt)
}

func TestAppStreamsOverWebSocket(t *testing.T) {
	s := startApp(t)
	u, _ := url.Parse(streamURL(s, "/app/api/ws"))
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	key := "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455 section 1.3's example key
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	// and its accept value
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %s accept=%q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	var got []AppEvent
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			t.Fatal(err)
		}
		if h[1]&0x80 != 0 {
			t.Fatal("a server frame is masked")
		}
		n := int(h[1] & 0x7F)
		if n == 126 {
			var b [2]byte
			_, _ = io.ReadFull(br, b[:])
			n = int(binary.BigEndian.Uint16(b[:]))
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(br, p); err != nil {
			t.Fatal(err)
		}
		if h[0]&0x0F == wsClose {
			break
		}
		var e AppEvent
		if err := json.Unmarshal(p, &e); err != nil {
			t.Fatalf("message %q: %v", p, err)
		}
		got = append(got, e)
	}
	wantEvents(t, got, prompt)
}

func TestAppThreadArrivesLate(t *testing.T) {
	s := startApp(t)
	start := time.Now()
	resp, err := http.Get(s.URL + "/app/api/thread?history=4&load=300")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var th struct{ Turns []appTurn }
	if err := json.NewDecoder(resp.Body).Decode(&th); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("the thread came after %v, want at least 300ms", d)
	}
	speakers := ""
	for _, x := range th.Turns {
		speakers += x.Speaker + " "
	}
	if speakers != "human nova human orion " {
		t.Errorf("speakers %q", speakers)
	}
}

// TestAppThreadThatNeverLoadsEndsWithTheServer: Close returns while a
// thread request hangs, and ends it. The request is on the wire before
// Close (httptrace), not after a sleep; a Close that hangs is caught by
// the test's -timeout, not by a wall-clock margin.
func TestAppThreadThatNeverLoadsEndsWithTheServer(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { close(wrote) },
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/app/api/thread?load=never", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-wrote
	if err := s.Close(); err != nil {
		t.Errorf("Close while a thread request hung: %v", err)
	}
	<-done
}

func TestAppAnswers(t *testing.T) {
	text := func(ev []AppEvent) (s string) {
		for _, e := range ev {
			s += e.Text
		}
		return s
	}
	tests := []struct {
		name, prompt, speaker string
		regen, attempt        int
		text, last, kind      string
	}{
		{"paris", prompt, "nova", 0, 1, "The capital of France is Paris, on the Seine.", "done", ""},
		{"regenerated", prompt, "nova", 1, 1, "Paris is the capital of France.", "done", ""},
		{"second persona", prompt, "orion", 0, 1, "Orion here. The capital of France is Paris, on the Seine.", "done", ""},
		{"an alert", "please fail", "nova", 0, 1, "Let me look into that for you", "error", "alert"},
		{"retried", "please fail", "nova", 0, 2, "Nova read your 2-word message and has this to say: thank you for writing.", "done", ""},
		{"a usage limit", "hit the limit", "nova", 0, 1, "", "error", "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := AppAnswer(tt.prompt, tt.speaker, tt.regen, tt.attempt)
			last := ev[len(ev)-1]
			if got := text(ev); got != tt.text || last.Type != tt.last || last.Kind != tt.kind {
				t.Errorf("got %q ending %s/%s, want %q ending %s/%s", got, last.Type, last.Kind, tt.text, tt.last, tt.kind)
			}
		})
	}
}
