package sim

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
)

// Page is one sim page for the index and the router. Files of this
// package add their pages with register in an init function.
type Page struct {
	Path    string // the mux pattern's path, e.g. "/tables"
	What    string // one line for the index
	Handler func(s *Server) http.HandlerFunc
}

// Pages lists every sim page, in registration order.
var Pages []Page

func register(p Page) { Pages = append(Pages, p) }

func init() {
	register(Page{Path: "/chat", What: "marker-style chat: earlier turns, a composer and a send button; answers stream, then complete",
		Handler: func(s *Server) http.HandlerFunc { return s.chatPage }})
}

func (s *Server) routes(mux *http.ServeMux, api http.Handler) {
	mux.HandleFunc("GET /{$}", s.index)
	for _, p := range Pages {
		mux.HandleFunc("GET "+p.Path, p.Handler(s))
	}
	mux.HandleFunc("POST /sim/chat/send", s.send)
	if api != nil {
		mux.Handle("/api/", api)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("sim: no page at %s %s; see / for the index", r.Method, r.URL.Path), http.StatusNotFound)
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>replaylab sim</title></head><body><h1>replaylab sim</h1><ul>")
	for _, p := range Pages {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a> — %s</li>`, p.Path, p.Path, template.HTMLEscapeString(p.What))
	}
	b.WriteString("</ul></body></html>")
	_, _ = w.Write([]byte(b.String()))
}

func (s *Server) chatPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c := s.chat
	turns := append(c.HistoryTurns(), s.turns...)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(RenderChat(c, turns)))
}

// sendReply is what the page's script gets back for a sent message.
type sendReply struct {
	UserID      string `json:"userId"`
	AssistantID string `json:"assistantId"`
	Partial     string `json:"partial"`
	Final       string `json:"final"`
	GenerateMS  int64  `json:"generateMs"`
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Text string `json:"text"`
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "sim: body must be JSON {\"text\": …}: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.received = append(s.received, req.Text)
	a := DefaultAnswer
	if s.next < len(s.chat.Answers) {
		a = s.chat.Answers[s.next]
	}
	s.next++
	base := s.chat.History + len(s.turns)
	reply := sendReply{UserID: turnID(base), AssistantID: turnID(base + 1), Partial: a.Partial, Final: a.Final, GenerateMS: a.Generate.Milliseconds()}
	s.turns = append(s.turns, Turn{ID: reply.UserID, Author: "user", Text: req.Text}, Turn{ID: reply.AssistantID, Author: "assistant", Text: a.Final})
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// RenderChat renders a chat page with the given turns. It is exported for
// benchmarks and offline fixtures.
func RenderChat(c Chat, turns []Turn) string {
	var b strings.Builder
	b.Grow(512 + len(turns)*256)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sim Chat</title>
<style>
body{font-family:sans-serif;margin:0;display:flex}
nav{width:180px;padding:8px;border-right:1px solid #ccc}
main{flex:1;padding:8px}
.turn{margin:6px 0;padding:6px;border-radius:6px}
[data-message-author-role=user]{background:#eef}
.typing-indicator::after{content:"…"}
form{display:flex;gap:4px;margin-top:8px}
textarea{flex:1;min-height:40px}
</style></head>
<body>
<nav aria-label="Chats"><a href="/chat">Current chat</a></nav>
<main>
<h1>Sim Chat</h1>
<div id="thread">
`)
	for _, t := range turns {
		writeTurn(&b, t)
	}
	b.WriteString(`</div>
<form id="composer" action="#">
<textarea id="prompt" name="prompt" aria-label="Message" placeholder="Send a message"></textarea>
<button id="send" type="submit">Send</button>
</form>
</main>
<script>
(function(){
  const thread = document.getElementById('thread');
  const form = document.getElementById('composer');
  const prompt = document.getElementById('prompt');
  function turn(id, author, text){
    const d = document.createElement('div');
    d.className = 'turn';
    d.setAttribute('data-message-author-role', author);
    d.setAttribute('data-message-id', id);
    const p = document.createElement('div');
    p.className = 'text';
    p.textContent = text;
    d.appendChild(p);
    thread.appendChild(d);
    return d;
  }
  form.addEventListener('submit', async function(ev){
    ev.preventDefault();
    const text = prompt.value;
    if (!text.trim()) return;
    const res = await fetch('/sim/chat/send', {method:'POST', headers:{'Content-Type':'application/json'}, body: JSON.stringify({text})});
    const r = await res.json();
    prompt.value = '';
    turn(r.userId, 'user', text);
    const a = turn(r.assistantId, 'assistant', r.partial);
    a.setAttribute('aria-busy', 'true');
    a.setAttribute('data-is-streaming', 'true');
    const ind = document.createElement('span');
    ind.className = 'typing-indicator';
    a.appendChild(ind);
    const stop = document.createElement('button');
    stop.type = 'button';
    stop.textContent = 'Stop generating';
    a.appendChild(stop);
    setTimeout(function(){
      a.querySelector('.text').textContent = r.final;
      a.removeAttribute('aria-busy');
      a.removeAttribute('data-is-streaming');
      ind.remove();
      stop.remove();
      const copy = document.createElement('button');
      copy.type = 'button';
      copy.textContent = 'Copy';
      a.appendChild(copy);
    }, r.generateMs);
  });
})();
</script>
</body></html>
`)
	return b.String()
}

func writeTurn(b *strings.Builder, t Turn) {
	fmt.Fprintf(b, `<div class="turn" data-message-author-role="%s" data-message-id="%s"><div class="text">%s</div>`,
		t.Author, t.ID, template.HTMLEscapeString(t.Text))
	if t.Author == "assistant" {
		b.WriteString(`<button type="button">Copy</button>`)
	}
	b.WriteString("</div>\n")
}
