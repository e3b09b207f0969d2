package sim

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
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

// DefaultErrorText is a failed turn's message when its script names none.
const DefaultErrorText = "Something went wrong while answering."

// confirmButtons are a confirmation turn's go-ahead and way-out controls
// (Confirm and Cancel unless its labels say otherwise).
func confirmButtons(t Turn) string {
	id := template.HTMLEscapeString(t.ID)
	yes, no := or(t.Labels.Yes, "Confirm"), or(t.Labels.No, "Cancel")
	return fmt.Sprintf(`<button type="button" data-turn="%s" data-choice="confirm">%s</button><button type="button" data-turn="%s" data-choice="cancel">%s</button>`,
		id, template.HTMLEscapeString(yes), id, template.HTMLEscapeString(no))
}

// failureControls are a failed turn's alert and retry control; the retry
// regenerates the turn in place, as Regenerate does.
func failureControls(t Turn) string {
	return fmt.Sprintf(`<div role="alert">%s</div><button type="button" data-redo="%s">%s</button>`,
		template.HTMLEscapeString(or(t.Labels.Error, DefaultErrorText)), template.HTMLEscapeString(t.ID), template.HTMLEscapeString(or(t.Labels.Retry, "Retry")))
}

// regenerateButton is the Regenerate control of the newest answer.
func regenerateButton(t Turn) string {
	return fmt.Sprintf(`<button type="button" data-redo="%s">Regenerate</button>`, template.HTMLEscapeString(t.ID))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
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

// redoScript posts a click on Regenerate or a failed turn's retry
// control synchronously, like a send: the server has replaced the turn
// (a stage operation) before the click is over.
const redoScript = `<script>
document.addEventListener('click', function(ev){
  const b = ev.target.closest('button[data-redo]');
  if (!b) return;
  const x = new XMLHttpRequest();
  x.open('POST', '/sim/chat/redo', false);
  x.setRequestHeader('Content-Type', 'application/json');
  x.send(JSON.stringify({id: b.dataset.redo}));
});
</script>`

// redo answers a click on Regenerate or Retry: the turn is replaced in
// place, under a new id (the turn's position and its version, msg-0006-2),
// by the next scripted answer, generating first as after a send. It is
// no send: Received does not change.
func (s *Server) redo(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID string `json:"id"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ID == "" {
		problem(w, http.StatusBadRequest, CodeBadRequest, `sim: body must be JSON {"id": TURN}`)
		return
	}
	s.stage.begin()
	defer s.stage.end()
	s.mu.Lock()
	defer s.mu.Unlock()
	i := -1
	for j, t := range s.turns {
		if t.ID == req.ID && t.Author == "assistant" && !t.Generating && (t.Redo || t.Kind == KindError) {
			i = j
		}
	}
	if i < 0 {
		problem(w, http.StatusNotFound, CodeNotFound, "sim: no turn "+req.ID+" to regenerate")
		return
	}
	a := DefaultAnswer
	if s.next < len(s.chat.Answers) {
		a = s.chat.Answers[s.next]
	}
	s.next++
	s.redos++
	at := s.chat.History + i
	s.turns[i] = Turn{ID: fmt.Sprintf("%s-%d", turnID(at), s.redos+1), Author: "assistant", Text: a.Partial, Generating: true}
	s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.child(at), HTML: renderTurn(s.chat.Style, s.turns[i], true)})
	gen := s.gen
	s.clock.AfterFunc(a.Generate, func() { s.complete(gen, at, a) })
	w.WriteHeader(http.StatusNoContent)
}

// pause shows the turn at position at paused mid-stream (Answer.Pause),
// and schedules its completion at the pause's end.
func (s *Server) pause(gen, at int, a Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turnAt(gen, at)
	if t == nil {
		return
	}
	*t = Turn{ID: t.ID, Author: "assistant", Text: a.Partial, Paused: true, Busy: a.PauseBusy}
	s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.child(at), HTML: renderTurn(s.chat.Style, *t, false)})
	s.clock.AfterFunc(a.Pause, func() { s.complete(gen, at, a) })
}

// child is the position in #thread of the turn at chat position at: the
// hidden earlier turns (Chat.Hidden) are not in it.
func (s *Server) child(at int) int { return at - s.chat.hidden() }

// hidden is Chat.Hidden within the history.
func (c Chat) hidden() int { return max(0, min(c.Hidden, c.History)) }

// earlierHTML holds the hidden earlier turns in a template and shows them
// above the thread once the page is scrolled to its top; the page starts
// scrolled to its bottom, below a spacer, as a long chat does.
func earlierHTML(c Chat, turns []Turn) string {
	var b strings.Builder
	b.WriteString(`<div class="spacer" aria-hidden="true" style="height:1600px"></div>
<div id="earlier"></div>
<template id="earlier-turns">`)
	for _, t := range turns {
		b.WriteString(renderTurn(c.Style, t, t.Generating))
		b.WriteByte('\n')
	}
	b.WriteString(`</template>
<script>
(function(){
  window.addEventListener('load', function(){ window.scrollTo(0, document.documentElement.scrollHeight); });
  window.addEventListener('scroll', function(){
    const tpl = document.getElementById('earlier-turns');
    if (window.scrollY > 0 || !tpl) return;
    document.getElementById('earlier').appendChild(tpl.content);
    tpl.remove();
  });
})();
</script>
`)
	return b.String()
}

// navigateChat tells the chat page to go to path itself (Answer.NavigateTo).
func (s *Server) navigateChat(gen int, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return
	}
	s.stage.publish(chatStage, stageOp{Op: "navigate", URL: path})
}

// moveRedo takes the Regenerate control off every added answer but the
// one at position at (which complete gives it); the caller holds mu.
func (s *Server) moveRedo(at int) {
	for j := range s.turns {
		if t := &s.turns[j]; t.Redo && s.chat.History+j != at {
			t.Redo = false
			s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.child(s.chat.History + j), HTML: renderTurn(s.chat.Style, *t, false)})
		}
	}
	if t := s.turnAt(s.gen, at); t != nil {
		t.Redo = true
	}
}

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
		s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.child(s.chat.History + i), HTML: html})
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
