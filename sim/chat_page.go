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
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(RenderChat(c, turns)))
}

// sendReply is what the page's script gets back for a sent message: the
// turns as HTML, rendered by the same Go code as a reload would.
type sendReply struct {
	UserHTML     string `json:"userHtml"`
	PartialHTML  string `json:"partialHtml"`
	FinalHTML    string `json:"finalHtml"`
	GenerateMS   int64  `json:"generateMs"`
	MediaDelayMS int64  `json:"mediaDelayMs"` // -1: never attach the source
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
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
	final := Turn{ID: turnID(base + 1), Author: "assistant", Text: a.Final, Kind: a.Kind, Media: a.Media}
	stored := final
	if a.Media != "" && !a.NoMediaSource {
		stored.MediaSrc = mediaSrc(a.Media) // a reload shows the finished turn
	}
	if a.Kind == KindNone {
		s.turns = append(s.turns, user)
	} else {
		s.turns = append(s.turns, user, stored)
	}
	s.mu.Unlock()
	if a.Kind == KindNone {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(sendReply{UserHTML: renderTurn(style, user, false), MediaDelayMS: -1})
		return
	}

	partial := Turn{ID: final.ID, Author: "assistant", Text: a.Partial}
	reply := sendReply{
		UserHTML:     renderTurn(style, user, false),
		PartialHTML:  renderTurn(style, partial, true),
		FinalHTML:    renderTurn(style, final, false),
		GenerateMS:   a.Generate.Milliseconds(),
		MediaDelayMS: a.MediaDelay.Milliseconds(),
	}
	if a.NoMediaSource {
		reply.MediaDelayMS = -1
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// RenderChat renders a chat page with the given turns. It is exported for
// benchmarks and offline fixtures.
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
	if c.Style == StyleList {
		b.WriteString(`<ol class="conversation" id="thread">` + "\n")
	} else {
		b.WriteString(`<div id="thread">` + "\n")
	}
	for _, t := range turns {
		b.WriteString(renderTurn(c.Style, t, false))
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
  const thread = document.getElementById('thread');
  const form = document.getElementById('composer');
  const prompt = document.getElementById('prompt');
  form.addEventListener('submit', async function(ev){
    ev.preventDefault();
    const text = prompt.value;
    if (!text.trim()) return;
    const res = await fetch('/sim/chat/send', {method:'POST', headers:{'Content-Type':'application/json'}, body: JSON.stringify({text})});
    const r = await res.json();
    prompt.value = '';
    thread.insertAdjacentHTML('beforeend', r.userHtml + (r.partialHtml || ''));
    if (!r.partialHtml) return;
    const partial = thread.lastElementChild;
    setTimeout(function(){
      partial.insertAdjacentHTML('afterend', r.finalHtml);
      const done = partial.nextElementSibling;
      partial.remove();
      if (r.mediaDelayMs < 0) return;
      setTimeout(function(){
        for (const m of done.querySelectorAll('[data-src]')) { m.src = m.getAttribute('data-src'); m.removeAttribute('data-src'); }
      }, r.mediaDelayMs);
    }, r.generateMs);
  });
})();
</script>
` + confirmScript + `
</body></html>
`)
	return b.String()
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
		case generating:
			b.WriteString(`<span class="typing-indicator"></span><button type="button">Stop generating</button>`)
		case t.Kind == KindConfirm:
			b.WriteString(confirmButtons(t))
		case t.Kind == KindError:
			b.WriteString(`<div role="alert">Something went wrong while answering.</div><button type="button">Retry</button>`)
		default:
			if t.Media != "" {
				b.WriteString(renderMedia(t))
			}
			b.WriteString(`<button type="button">Copy</button>`)
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
			b.WriteString(`<div role="alert">Something went wrong while answering.</div><button type="button">Retry</button>`)
		case t.Media != "":
			b.WriteString(`<div class="attachments">` + renderMedia(t) + `</div>`)
		}
	}
	b.WriteString(`</div></li>`)
	return b.String()
}
