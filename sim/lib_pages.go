package sim

import (
	"fmt"
	"html"
	"net/http"
	"time"
)

// Pages of chat UI libraries' habits (SPEC LIB-1): ids the page makes up
// in the browser on every load, and a placeholder answer the page replaces
// by the real message under a new id.

func init() {
	register(Page{Path: "/lib/browser-ids", What: `a chat whose turns get ids made in the browser on every load (data-k, random); a send shows the user's turn and an empty generating placeholder (id tmp-…), which the answer replaces ` + fmt.Sprint(LibAnswerMS) + ` ms later under a new random id; answers are "Answer N: …"`,
		Handler: func(s *Server) http.HandlerFunc { return s.stagePage(libIDsStage, libIDsHTML) }})
	register(Page{Path: "/lib/browser-ids/send", Endpoint: true, What: "the endpoint /lib/browser-ids's Send calls (GET ?text=…); the answer arrives on the server's clock",
		Handler: func(s *Server) http.HandlerFunc { return s.libIDsSend }})
}

const (
	// libIDsStage is /lib/browser-ids's key on the stage.
	libIDsStage = "lib/browser-ids"
	// LibAnswerMS is how long /lib/browser-ids's answer takes.
	LibAnswerMS = 600
)

// libTurn renders one turn of /lib/browser-ids, with no id: the page's
// script gives each one.
func libTurn(who, text string, busy bool) string {
	attrs := ""
	if busy {
		attrs = ` aria-busy="true"`
	}
	return fmt.Sprintf(`<div class="turn" data-who="%s"%s><p>%s</p></div>`, who, attrs, html.EscapeString(text))
}

var libIDsHTML = fmt.Sprintf(pageHead, "Library chat") + `<main><h1>Library chat</h1>
<div id="thread">` + libTurn("user", "Hello there", false) + libTurn("bot", "Hi! Ask me anything.", false) + `</div>
<textarea aria-label="Message" id="composer"></textarea>
<button type="button" id="send">Send</button>
<script>
// ids are made here, per load, as chat UI libraries do: a placeholder
// gets a tmp- id, every other turn a random one
function rlID() { return Math.random().toString(36).slice(2, 10); }
function rlName(root) {
  for (const t of root.querySelectorAll('.turn:not([data-k])')) {
    t.setAttribute('data-k', (t.hasAttribute('aria-busy') ? 'tmp-' : '') + rlID());
  }
}
rlName(document);
new MutationObserver(() => rlName(document)).observe(document.getElementById('thread'), {childList: true});
document.getElementById('send').addEventListener('click', function () {
  const box = document.getElementById('composer');
  const x = new XMLHttpRequest();
  x.open('GET', '/lib/browser-ids/send?text=' + encodeURIComponent(box.value), false);
  x.send();
  box.value = '';
});
</script>
</main></body></html>`

// libIDsSend shows the user's turn and a placeholder at once, then
// replaces the placeholder by the answer LibAnswerMS later.
func (s *Server) libIDsSend(w http.ResponseWriter, r *http.Request) {
	s.stage.begin()
	defer s.stage.end()
	text := r.URL.Query().Get("text")
	s.mu.Lock()
	s.received = append(s.received, text)
	s.libSends++
	n := s.libSends
	// the thread holds 2 turns, then a user turn and an answer per send
	index := 2 + 2*(n-1) + 1
	s.mu.Unlock()
	s.stage.publish(libIDsStage, stageOp{Op: "append", HTML: libTurn("user", text, false) + libTurn("bot", "", true)})
	answer := fmt.Sprintf("Answer %d: you said %s.", n, text)
	s.clock.AfterFunc(LibAnswerMS*time.Millisecond, func() {
		s.stage.publish(libIDsStage, stageOp{Op: "replace", Index: index, HTML: libTurn("bot", answer, false)})
	})
	w.WriteHeader(http.StatusNoContent)
}
