package sim

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
)

// The chat cases of the step vocabulary: a confirmation the user answers
// (Confirm completes the turn, Cancel cancels it), and a second button
// named "Send" beside the composer. The confirmation's buttons name their
// turn and choice; the page's script posts the choice to
// /sim/chat/confirm, and the server swaps in the turn it renders (the same
// HTML a reload shows) as a stage operation.

// What a confirmation turn becomes when its script names nothing.
const (
	DefaultConfirmed = "Done: 3 files deleted."
	DefaultCancelled = "Cancelled: nothing was deleted."
)

// confirmButtons are a confirmation turn's Confirm and Cancel controls.
func confirmButtons(t Turn) string {
	id := template.HTMLEscapeString(t.ID)
	return fmt.Sprintf(`<button type="button" data-turn="%s" data-choice="confirm">Confirm</button><button type="button" data-turn="%s" data-choice="cancel">Cancel</button>`, id, id)
}

// duplicateSendHTML is a second control named "Send" on the chat page.
const duplicateSendHTML = `<aside aria-label="Quick reply"><p>Quick reply: thanks!</p><button type="button" id="quick-send">Send</button></aside>
`

// confirmScript posts a click on Confirm or Cancel synchronously; the
// server replaces the turn as a stage operation (stage.go), so the lab
// clock waits for the page to render it.
const confirmScript = `<script>
document.addEventListener('click', function(ev){
  const b = ev.target.closest('button[data-choice]');
  if (!b) return;
  const x = new XMLHttpRequest();
  x.open('POST', '/sim/chat/confirm', false);
  x.setRequestHeader('Content-Type', 'application/json');
  x.send(JSON.stringify({id: b.dataset.turn, choice: b.dataset.choice}));
});
</script>`

// confirmation finds the added turn id that still asks for confirmation
// and the scripted answer that made it: the sends' user turns take the
// scripted answers in order. It returns -1 when there is none; the caller
// holds mu.
func (s *Server) confirmation(id string) (int, Answer) {
	send := -1
	for i, t := range s.turns {
		if t.Author == "user" {
			send++
			continue
		}
		if t.ID != id || t.Kind != KindConfirm {
			continue
		}
		if send >= 0 && send < len(s.chat.Answers) {
			return i, s.chat.Answers[send]
		}
		return i, DefaultAnswer
	}
	return -1, Answer{}
}

// confirm answers a click on a confirmation turn's Confirm or Cancel: the
// turn becomes a plain answer with the scripted text.
func (s *Server) confirm(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     string `json:"id"`
		Choice string `json:"choice"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || (req.Choice != "confirm" && req.Choice != "cancel") {
		problem(w, http.StatusBadRequest, CodeBadRequest, `sim: body must be JSON {"id": TURN, "choice": "confirm"|"cancel"}`)
		return
	}
	s.stage.begin()
	defer s.stage.end()
	s.mu.Lock()
	var html string
	if i, a := s.confirmation(req.ID); i >= 0 {
		t := &s.turns[i]
		t.Text, t.Kind = a.Confirmed, KindText
		if t.Text == "" {
			t.Text = DefaultConfirmed
		}
		if req.Choice == "cancel" {
			t.Text = a.Cancelled
			if t.Text == "" {
				t.Text = DefaultCancelled
			}
		}
		html = renderTurn(s.chat.Style, *t, false)
		s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.chat.History + i, HTML: html})
	}
	s.mu.Unlock()
	if html == "" {
		problem(w, http.StatusNotFound, CodeNotFound, "sim: no confirmation turn "+req.ID)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		HTML string `json:"html"`
	}{html})
}
