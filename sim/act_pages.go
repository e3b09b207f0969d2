package sim

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The action pages (SPEC ACT-1 … ACT-4, LOC-2): each shows one case of
// outcome discipline. The Save buttons call /act/save, which records
// every call in Received as "act:save:<page>", so a live scenario can
// prove how many times an action reached the server (ACT-4: never
// re-sent); the page itself shows counters of what the browser delivered
// (LOC-2: zero inputs), which a replay sees too.
func init() {
	register(Page{Path: "/act/mask", What: `an input mask: textbox "Phone" keeps digits only and formats them as 555-0100 (typed values are rewritten); textbox "Name" has no mask`,
		Handler: staticPage(actMaskHTML)})
	register(Page{Path: "/act/never", What: `button "Save" reaches the server (/act/save) but its effect ("Saved") never shows`,
		Handler: staticPage(actSaveHTML("never"))})
	register(Page{Path: "/act/late", What: `button "Save" reaches the server (/act/save); "Saved" shows 1500 ms later`,
		Handler: func(s *Server) http.HandlerFunc { return s.stagePage(actLateStage, actSaveHTML("late")) }})
	register(Page{Path: "/act/duplicates", What: `a form with two textboxes named "Email" (billing and shipping) and a Submit button; counters show the inputs and submissions the page received`,
		Handler: staticPage(actDuplicatesHTML)})
	register(Page{Path: "/act/links", What: `link "Next page" navigates to /act/links/next; link "Stay" goes nowhere`,
		Handler: staticPage(actLinksHTML)})
	register(Page{Path: "/act/links/next", What: "the page /act/links's link leads to",
		Handler: staticPage(actLinksNextHTML)})
	register(Page{Path: "/act/files", What: `a table of files (report.pdf, notes.txt, todo.md), each row with its own button "Delete" (look-alikes told apart by their row, AGT-3); a click removes the row and the page lists what was deleted`,
		Handler: staticPage(actFilesHTML)})
	register(Page{Path: "/act/save", What: "the endpoint the act pages' Save buttons call (GET ?page=NAME); every call is recorded in Received as act:save:NAME",
		Handler: func(s *Server) http.HandlerFunc { return s.actSave }, Endpoint: true})
}

// ActLateMS is how long /act/late takes to show its effect, on the
// server's clock.
const ActLateMS = 1500

// actLateStage is /act/late's key on the stage.
const actLateStage = "act/late"

// actSave records one call of a Save button.
func (s *Server) actSave(w http.ResponseWriter, r *http.Request) {
	page := r.URL.Query().Get("page")
	if page == "" || strings.ContainsAny(page, ": \n") {
		problem(w, http.StatusBadRequest, CodeBadRequest, "sim: /act/save needs ?page=NAME")
		return
	}
	s.stage.begin()
	defer s.stage.end()
	s.mu.Lock()
	s.received = append(s.received, "act:save:"+page)
	s.mu.Unlock()
	if page == "late" {
		s.clock.AfterFunc(ActLateMS*time.Millisecond, func() {
			s.stage.publish(actLateStage, stageOp{Op: "text", Sel: "#status", Text: "Saved"})
		})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`{"ok":true}`))
}

// ActSaves counts the calls of the named act page's Save button that
// reached the server.
func (s *Server) ActSaves(page string) int {
	n := 0
	for _, m := range s.Received() {
		if m == "act:save:"+page {
			n++
		}
	}
	return n
}

var actMaskHTML = fmt.Sprintf(pageHead, "Contact") + `<main><h1>Contact</h1>
<form onsubmit="return false">
<label>Name <input type="text" id="name"></label>
<label>Phone <input type="text" id="phone" inputmode="tel"></label>
</form>
<p id="typed">Inputs received: 0</p>
<script>
(function(){
  let n = 0;
  const phone = document.getElementById('phone');
  document.addEventListener('input', function(){ n++; document.getElementById('typed').textContent = 'Inputs received: ' + n; });
  phone.addEventListener('input', function(){
    const d = phone.value.replace(/\D/g, '').slice(0, 7);
    phone.value = d.length > 3 ? d.slice(0, 3) + '-' + d.slice(3) : d;
  });
})();
</script></main></body></html>`

// actSaveHTML is a Save button that calls /act/save?page=PAGE
// synchronously; the server shows "Saved" ActLateMS later on its clock for
// the late page, never for the others.
func actSaveHTML(page string) string {
	return fmt.Sprintf(pageHead, "Settings") + fmt.Sprintf(`<main><h1>Settings</h1>
<label>Display name <input type="text" id="display" value="Ada"></label>
<button type="button" id="save">Save</button>
<p id="status">Not saved yet.</p>
<script>
(function(){
  document.getElementById('save').addEventListener('click', function(){
    const x = new XMLHttpRequest();
    x.open('GET', '/act/save?page=%s', false);
    x.send();
  });
})();
</script></main></body></html>`, page)
}

var actDuplicatesHTML = fmt.Sprintf(pageHead, "Checkout") + `<main><h1>Checkout</h1>
<form id="checkout" onsubmit="return false">
<fieldset><legend>Billing</legend><label>Email <input type="email" name="email"></label></fieldset>
<fieldset><legend>Shipping</legend><label>Email <input type="email" name="email"></label></fieldset>
<button type="submit" id="submit">Submit</button>
</form>
<p id="inputs">Inputs received: 0</p>
<p id="submits">Submissions: 0</p>
<script>
(function(){
  let inputs = 0, submits = 0;
  const form = document.getElementById('checkout');
  form.addEventListener('input', function(){ inputs++; document.getElementById('inputs').textContent = 'Inputs received: ' + inputs; });
  form.addEventListener('submit', function(){ submits++; document.getElementById('submits').textContent = 'Submissions: ' + submits; });
})();
</script></main></body></html>`

var actLinksHTML = fmt.Sprintf(pageHead, "Start") + `<main><h1>Start</h1>
<p><a href="/act/links/next">Next page</a></p>
<p><a href="#" onclick="return false">Stay</a></p>
</main></body></html>`

var actLinksNextHTML = fmt.Sprintf(pageHead, "Next") + `<main><h1>Next</h1><p>You followed the link.</p>
<p><a href="/act/links">Back</a></p></main></body></html>`

// actFilesHTML is /act/files: three rows, three "Delete" buttons.
var actFilesHTML = fmt.Sprintf(pageHead, "Files") + `<main><h1>Files</h1>
<table><caption>Shared files</caption>
<thead><tr><th>Name</th><th>Size</th><th>Action</th></tr></thead>
<tbody>
<tr><td>report.pdf</td><td>12 KB</td><td><button type="button" data-file="report.pdf">Delete</button></td></tr>
<tr><td>notes.txt</td><td>2 KB</td><td><button type="button" data-file="notes.txt">Delete</button></td></tr>
<tr><td>todo.md</td><td>1 KB</td><td><button type="button" data-file="todo.md">Delete</button></td></tr>
</tbody></table>
<p id="deleted">Deleted: none</p>
<script>
const gone = [];
document.addEventListener('click', function(ev){
  const b = ev.target.closest('[data-file]');
  if (!b) return;
  gone.push(b.getAttribute('data-file'));
  b.closest('tr').remove();
  document.getElementById('deleted').textContent = 'Deleted: ' + gone.join(', ');
});
</script></main></body></html>`
