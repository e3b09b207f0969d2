package sim

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
)

func (s *Server) chatPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c := s.chat
	turns := append(c.HistoryTurns(), s.turns...)
	id, v := s.stage.view(chatStage)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(withStage(RenderChat(c, turns), id, v)))
}

// chatStage is the chat page's key on the stage.
const chatStage = "chat"

// sendReply is what the page's synchronous send gets back: the stage
// version after the send's first transition.
type sendReply struct {
	Version int `json:"version"`
}

// send takes a message from the page. It shows the user's turn (and the
// answer's partial, generating turn) at once, as one transition, and
// schedules the rest of the scripted answer on the server's clock: the
// final turn Generate later in the same place, its media's source
// MediaDelay after that.
func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	s.stage.begin()
	defer s.stage.end()
	var req struct {
		Text string `json:"text"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, CodeBadRequest, "sim: body must be JSON {\"text\": …}: "+err.Error())
		return
	}
	s.mu.Lock()
	s.received = append(s.received, req.Text)
	a := DefaultAnswer
	if s.next < len(s.chat.Answers) {
		a = s.chat.Answers[s.next]
	}
	s.next++
	style := s.chat.Style
	base := s.chat.History + len(s.turns)
	user := Turn{ID: turnID(base), Author: "user", Text: req.Text}
	html := renderTurn(style, user, false)
	if a.Kind == KindNone {
		s.turns = append(s.turns, user)
	} else {
		partial := Turn{ID: turnID(base + 1), Author: "assistant", Text: a.Partial, Generating: true}
		s.turns = append(s.turns, user, partial)
		html += renderTurn(style, partial, true)
		gen, at := s.gen, base+1
		if a.Pause > 0 {
			s.clock.AfterFunc(a.Generate, func() { s.pause(gen, at, a) })
		} else {
			s.clock.AfterFunc(a.Generate, func() { s.complete(gen, at, a) })
		}
		if a.NavigateTo != "" {
			s.clock.AfterFunc(a.NavigateAt, func() { s.navigateChat(gen, a.NavigateTo) })
		}
	}
	s.stage.publish(chatStage, stageOp{Op: "append", HTML: html})
	s.mu.Unlock()
	s.stage.mu.Lock()
	v := s.stage.version
	s.stage.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(sendReply{Version: v})
}

// turnAt returns the added turn at thread position at, nil when the chat
// was replaced since (gen differs).
func (s *Server) turnAt(gen, at int) *Turn {
	i := at - s.chat.History
	if s.gen != gen || i < 0 || i >= len(s.turns) {
		return nil
	}
	return &s.turns[i]
}

// complete replaces the generating turn at position at with the final one.
func (s *Server) complete(gen, at int, a Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turnAt(gen, at)
	if t == nil {
		return
	}
	*t = Turn{ID: t.ID, Author: "assistant", Text: a.Final, Kind: a.Kind, Media: a.Media, Labels: a.Labels}
	if s.chat.Regenerate && (a.Kind == "" || a.Kind == KindText) {
		s.moveRedo(at)
	}
	s.stage.publish(chatStage, stageOp{Op: "replace", Index: s.child(at), HTML: renderTurn(s.chat.Style, *t, false)})
	if a.Media != "" && !a.NoMediaSource && a.Kind != KindConfirm && a.Kind != KindError {
		s.clock.AfterFunc(a.MediaDelay, func() { s.attachMedia(gen, at) })
	}
}

// attachMedia gives the media of the turn at position at their source.
func (s *Server) attachMedia(gen, at int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turnAt(gen, at)
	if t == nil {
		return
	}
	t.MediaSrc = mediaSrc(t.Media)
	s.stage.publish(chatStage, stageOp{Op: "media", Index: s.child(at)})
}

// RenderChat renders a chat page with the given turns. It is exported for
// benchmarks and offline fixtures; the served page adds the stage script
// (stage.go) that applies the transitions.
func RenderChat(c Chat, turns []Turn) string {
	var b strings.Builder
	b.Grow(1024 + len(turns)*256)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sim Chat</title>
<style>
body{font-family:sans-serif;margin:0;display:flex}
nav{width:180px;padding:8px;border-right:1px solid #ccc}
main{flex:1;padding:8px}
.turn{margin:6px 0;padding:6px;border-radius:6px}
.turn.user{background:#eef}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.typing-indicator::after{content:"…"}
form{display:flex;gap:4px;margin-top:8px}
textarea{flex:1;min-height:40px}
img,video{display:block;width:64px;height:48px}
</style></head>
<body>
<nav aria-label="Chats"><a href="/chat">Current chat</a></nav>
<main>
<h1>Sim Chat</h1>
`)
	if h := c.hidden(); h > 0 {
		b.WriteString(earlierHTML(c, turns[:h]))
		turns = turns[h:]
	}
	if c.Style == StyleList {
		b.WriteString(`<ol class="conversation" id="thread">` + "\n")
	} else {
		b.WriteString(`<div id="thread">` + "\n")
	}
	for _, t := range turns {
		b.WriteString(renderTurn(c.Style, t, t.Generating))
		b.WriteByte('\n')
	}
	if c.Style == StyleList {
		b.WriteString(`</ol>`)
	} else {
		b.WriteString(`</div>`)
	}
	b.WriteString(`
<form id="composer" action="#">
<textarea id="prompt" name="prompt" aria-label="Message" placeholder="Send a message"></textarea>
<button id="send" type="submit">Send</button>
</form>
`)
	if c.DuplicateSend {
		b.WriteString(duplicateSendHTML)
	}
	b.WriteString(`</main>
<script>
(function(){
  const form = document.getElementById('composer');
  const prompt = document.getElementById('prompt');
  form.addEventListener('submit', function(ev){
    ev.preventDefault();
    const text = prompt.value;
    if (!text.trim()) return;
    // synchronous: the sim has scheduled the answer before the click is
    // over; the turns arrive as stage operations
    const x = new XMLHttpRequest();
    x.open('POST', '/sim/chat/send', false);
    x.setRequestHeader('Content-Type', 'application/json');
    x.send(JSON.stringify({text}));
    ` + clearPrompt(c) + `
  });
})();
</script>
` + confirmScript + redoScript + `
</body></html>
`)
	return b.String()
}

// clearPrompt empties the composer after a send, unless the chat keeps it.
func clearPrompt(c Chat) string {
	if c.KeepPrompt {
		return "// the composer keeps its text (Chat.KeepPrompt)"
	}
	return "prompt.value = '';"
}

// renderTurn renders one turn in a markup style. generating adds the
// signals of an answer still being written.
func renderTurn(style string, t Turn, generating bool) string {
	generating = generating || t.Generating
	var b strings.Builder
	busy := ""
	if generating {
		busy = ` aria-busy="true" data-is-streaming="true"`
	}
	if t.Paused && t.Busy {
		busy = ` aria-busy="true"`
	}
	if style == StyleList {
		return renderListTurn(t, generating)
	}
	if style == StyleHeading {
		label := "You said:"
		if t.Author == "assistant" {
			label = "Sim said:"
		}
		fmt.Fprintf(&b, `<article class="turn %s"%s><h3 class="sr-only">%s</h3><div class="text">%s</div>`, t.Author, busy, label, template.HTMLEscapeString(t.Text))
	} else {
		fmt.Fprintf(&b, `<div class="turn %s" data-message-author-role="%s" data-message-id="%s"%s><div class="text">%s</div>`,
			t.Author, t.Author, t.ID, busy, template.HTMLEscapeString(t.Text))
	}
	if t.Author == "assistant" {
		switch {
		case t.Paused:
			// mid-stream, with nothing visible that says so
		case generating:
			b.WriteString(`<span class="typing-indicator"></span><button type="button">Stop generating</button>`)
		case t.Kind == KindConfirm:
			b.WriteString(confirmButtons(t))
		case t.Kind == KindError:
			b.WriteString(failureControls(t))
		default:
			if t.Media != "" {
				b.WriteString(renderMedia(t))
			}
			b.WriteString(`<button type="button">Copy</button>`)
			if t.Redo {
				b.WriteString(regenerateButton(t))
			}
		}
	}
	if style == StyleHeading {
		b.WriteString("</article>")
	} else {
		b.WriteString("</div>")
	}
	return b.String()
}

func renderMedia(t Turn) string {
	src := `data-src="` + mediaSrc(t.Media) + `"`
	if t.MediaSrc != "" {
		src = `src="` + t.MediaSrc + `"`
	}
	if t.Media == MediaImage {
		return `<figure><img ` + src + ` alt="Generated picture"></figure>`
	}
	return `<figure><video ` + src + ` preload="auto" aria-label="Generated video"></video></figure>`
}

// renderListTurn renders a turn of the list style: the speaker in a
// child's attribute, media in a nested figure, its own streaming signal.
func renderListTurn(t Turn, generating bool) string {
	var b strings.Builder
	speaker, who := "human", "Ada"
	if t.Author == "assistant" {
		speaker, who = "bot", "Helper"
	}
	state := "done"
	if generating {
		state = "streaming"
	}
	fmt.Fprintf(&b, `<li class="entry" data-entry="%s" data-state="%s"><span class="who" data-speaker="%s">%s</span><div class="body"><p>%s</p>`,
		t.ID, state, speaker, who, template.HTMLEscapeString(t.Text))
	if t.Author == "assistant" {
		switch {
		case generating:
			b.WriteString(`<span class="spinner" role="status">Writing…</span>`)
		case t.Kind == KindConfirm:
			b.WriteString(confirmButtons(t))
		case t.Kind == KindError:
			b.WriteString(failureControls(t))
		case t.Media != "":
			b.WriteString(`<div class="attachments">` + renderMedia(t) + `</div>`)
		}
		if t.Redo && !generating && t.Kind != KindConfirm && t.Kind != KindError {
			b.WriteString(regenerateButton(t))
		}
	}
	b.WriteString(`</div></li>`)
	return b.String()
}
