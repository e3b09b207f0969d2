package sim_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/sim"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestConfirmation: a confirmation turn becomes the scripted answer on
// Confirm, the cancellation on Cancel, and a reload shows the same.
func TestConfirmation(t *testing.T) {
	tests := []struct {
		name, choice, want string
		answer             sim.Answer
	}{
		{"confirm", "confirm", "Deleted 3 files.", sim.Answer{Final: "Delete?", Kind: sim.KindConfirm, Confirmed: "Deleted 3 files."}},
		{"cancel", "cancel", "Kept every file.", sim.Answer{Final: "Delete?", Kind: sim.KindConfirm, Cancelled: "Kept every file."}},
		{"confirm default", "confirm", sim.DefaultConfirmed, sim.Answer{Final: "Delete?", Kind: sim.KindConfirm}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := clock.NewLab(clock.Epoch)
			s, err := sim.NewServer(sim.Options{Clock: lab})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			c := sim.DefaultChat()
			c.Answers = []sim.Answer{tt.answer}
			s.SetChat(c)
			if code, body := post(t, s.URL+"/sim/chat/send", `{"text":"clean up"}`); code != http.StatusOK {
				t.Fatalf("send: %d %s", code, body)
			}
			if err := lab.Sleep(context.Background(), 0); err != nil { // the answer completes on the clock
				t.Fatal(err)
			}
			if _, page := get(t, s.URL+"/chat"); !strings.Contains(page, `data-choice="confirm"`) {
				t.Fatal("the completed answer has no Confirm control")
			}
			code, body := post(t, s.URL+"/sim/chat/confirm", `{"id":"msg-0006","choice":"`+tt.choice+`"}`)
			if code != http.StatusOK || !strings.Contains(body, tt.want) || strings.Contains(body, "data-choice") {
				t.Fatalf("confirm: %d %s, want the turn with %q and no controls", code, body, tt.want)
			}
			if _, page := get(t, s.URL+"/chat"); !strings.Contains(page, tt.want) {
				t.Errorf("a reload does not show %q", tt.want)
			}
			if code, _ := post(t, s.URL+"/sim/chat/confirm", `{"id":"msg-0006","choice":"confirm"}`); code != http.StatusNotFound {
				t.Errorf("a second answer: %d, want 404 (the turn no longer asks)", code)
			}
		})
	}
}

func TestConfirmationBadInput(t *testing.T) {
	s := start(t)
	for _, body := range []string{`{`, `{"id":"msg-0001","choice":"maybe"}`} {
		if code, _ := post(t, s.URL+"/sim/chat/confirm", body); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", body, code)
		}
	}
}

// TestRedo: Regenerate and a failed turn's retry control replace the turn
// in place under a new id by the next scripted answer, move the
// Regenerate control to the newest answer, and send no message.
func TestRedo(t *testing.T) {
	tests := []struct {
		name   string
		first  sim.Answer
		button string
	}{
		{"regenerate", sim.Answer{Final: "Paris."}, `data-redo="msg-0006">Regenerate`},
		{"try again", sim.Answer{Kind: sim.KindError, Labels: sim.Labels{Error: "Network error.", Retry: "Try again"}}, `data-redo="msg-0006">Try again`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := clock.NewLab(clock.Epoch)
			s, err := sim.NewServer(sim.Options{Clock: lab})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			c := sim.DefaultChat()
			c.Regenerate = true
			c.Answers = []sim.Answer{tt.first, {Final: "Paris is the capital of France."}}
			s.SetChat(c)
			if code, body := post(t, s.URL+"/sim/chat/send", `{"text":"capital?"}`); code != http.StatusOK {
				t.Fatalf("send: %d %s", code, body)
			}
			if err := lab.Sleep(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			if _, page := get(t, s.URL+"/chat"); !strings.Contains(page, tt.button) {
				t.Fatalf("the answer has no %s", tt.button)
			}
			if code, _ := post(t, s.URL+"/sim/chat/redo", `{"id":"msg-0002"}`); code != http.StatusNotFound {
				t.Errorf("regenerating a history turn: %d, want 404", code)
			}
			if code, body := post(t, s.URL+"/sim/chat/redo", `{"id":"msg-0006"}`); code != http.StatusNoContent {
				t.Fatalf("redo: %d %s", code, body)
			}
			if err := lab.Sleep(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			_, page := get(t, s.URL+"/chat")
			if !strings.Contains(page, `data-message-id="msg-0006-2"`) || !strings.Contains(page, "Paris is the capital of France.") || strings.Contains(page, `"msg-0006"`) {
				t.Errorf("the turn was not replaced in place by msg-0006-2:\n%s", page)
			}
			if n := strings.Count(page, ">Regenerate<"); n != 1 {
				t.Errorf("%d Regenerate controls, want 1 (on the newest answer)", n)
			}
			if got := s.Received(); len(got) != 1 {
				t.Errorf("the sim received %q, want the one message (a redo is no send)", got)
			}
		})
	}
}
