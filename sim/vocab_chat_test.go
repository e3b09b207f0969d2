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
