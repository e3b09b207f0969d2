package sim

import (
	"fmt"
	"net/http"
	"strings"
)

// The observation and locator pages (SPEC OBS-*, LOC-*): fixed markup,
// deterministic, each showing one hard case of real sites. Buttons that
// change the page write what happened into #status, so a scenario can tell
// whether input was delivered.
func init() {
	register(Page{Path: "/sidebar", What: "a 300-link navigation sidebar beside the composer (textbox Message, button Send)",
		Handler: staticPage(sidebarHTML())})
	register(Page{Path: "/duplicates", What: `two buttons named "Delete" and one "Archive"; clicks write to the status line`,
		Handler: staticPage(duplicatesHTML)})
	register(Page{Path: "/many-links", What: `45 links named "Docs" (more than one find page) and one "Home"`,
		Handler: staticPage(manyLinksHTML())})
	register(Page{Path: "/tables", What: "a nested table, a table over the row and column limits, role=grid and role=treegrid",
		Handler: staticPage(tablesHTML())})
	register(Page{Path: "/frames", What: "a srcdoc iframe and a same-origin iframe (/frames/child), each with its own controls",
		Handler: staticPage(framesHTML)})
	register(Page{Path: "/frames/child", What: "the same-origin child document of /frames",
		Handler: staticPage(frameChildHTML)})
	register(Page{Path: "/frames-cross", What: "an iframe from another origin (localhost vs 127.0.0.1): a frame the capture cannot read",
		Handler: func(s *Server) http.HandlerFunc { return s.crossFramePage }})
	register(Page{Path: "/hidden", What: `one visible "Send" button among display:none, visibility:hidden, hidden, aria-hidden and inert decoys`,
		Handler: staticPage(hiddenHTML)})
	register(Page{Path: "/labels", What: "form controls labelled every way accname knows (label for, wrapping label, aria-labelledby, aria-label, title, placeholder, alt, value)",
		Handler: staticPage(labelsHTML)})
	register(Page{Path: "/long-text", What: "a page of 40 paragraphs, 25 of which mention an invoice number",
		Handler: staticPage(longTextHTML())})
}

func staticPage(body string) func(s *Server) http.HandlerFunc {
	return func(s *Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write([]byte(body))
		}
	}
}

const pageHead = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title></head><body>`

// statusScript makes every button with data-status write it to #status.
const statusScript = `<p id="status">Nothing happened yet.</p>
<script>
document.addEventListener('click', function(ev){
  const b = ev.target.closest('[data-status]');
  if (b) { document.getElementById('status').textContent = b.getAttribute('data-status'); }
});
</script>`

func sidebarHTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, pageHead, "Sidebar")
	b.WriteString(`<nav aria-label="Conversations"><ul>`)
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, `<li><a href="/c/%03d">Conversation %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav><main><h1>Chat</h1><p>Ask anything.</p>
<form id="composer" onsubmit="return false"><textarea aria-label="Message" placeholder="Send a message"></textarea>
<button type="button" data-status="Sent">Send</button></form>`)
	b.WriteString(statusScript)
	b.WriteString(`</main></body></html>`)
	return b.String()
}

var duplicatesHTML = fmt.Sprintf(pageHead, "Duplicates") + `<main><h1>Files</h1>
<div class="row"><span>report.pdf</span> <button type="button" data-status="Deleted report.pdf">Delete</button></div>
<div class="row"><span>notes.txt</span> <button type="button" data-status="Deleted notes.txt">Delete</button></div>
<button type="button" data-status="Archived">Archive</button>
<label>Comment <input type="text" name="comment"></label>
` + statusScript + `</main></body></html>`

func manyLinksHTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, pageHead, "Many links")
	b.WriteString(`<main><h1>Library</h1><a href="/">Home</a><ul>`)
	for i := 1; i <= 45; i++ {
		fmt.Fprintf(&b, `<li><a href="#docs-%02d" data-status="Opened docs %02d">Docs</a> for module %d</li>`, i, i, i)
	}
	b.WriteString(`</ul>` + statusScript + `</main></body></html>`)
	return b.String()
}

func tablesHTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, pageHead, "Tables")
	b.WriteString(`<main><h1>Ledger</h1>
<table id="orders"><caption>Orders</caption>
<thead><tr><th>Order</th><th>Lines</th><th>Total</th></tr></thead>
<tbody>
<tr><td>A-1</td><td><table><caption>Lines of A-1</caption><tr><td>pen</td><td>2</td></tr><tr><td>ink</td><td>1</td></tr></table></td><td>30</td></tr>
<tr><td>A-2</td><td>none</td><td>0</td></tr>
</tbody></table>
<h2>Big</h2><table aria-label="Transactions">`)
	for r := 1; r <= 30; r++ {
		b.WriteString("<tr>")
		for c := 1; c <= 12; c++ {
			fmt.Fprintf(&b, "<td>r%dc%d</td>", r, c)
		}
		b.WriteString("</tr>")
	}
	b.WriteString(`</table>
<h2>Grid</h2><div role="grid" aria-label="Seats"><div role="row"><div role="columnheader">Seat</div><div role="columnheader">State</div></div>
<div role="row"><div role="gridcell">1A</div><div role="gridcell">free</div></div></div>
<h2>Tree</h2><div role="treegrid" aria-label="Folders"><div role="row"><div role="gridcell">src</div><div role="gridcell">3 files</div></div></div>
<table role="presentation"><tr><td>layout only</td></tr></table>
</main></body></html>`)
	return b.String()
}

var framesHTML = fmt.Sprintf(pageHead, "Frames") + `<main><h1>Frames</h1><button type="button">Top</button>
<iframe title="Inline" srcdoc="&lt;h2&gt;Inline frame&lt;/h2&gt;&lt;button type=button&gt;Inner&lt;/button&gt;&lt;a href='/x'&gt;Help&lt;/a&gt;"></iframe>
<iframe title="Child" src="/frames/child"></iframe>
</main></body></html>`

var frameChildHTML = fmt.Sprintf(pageHead, "Child") + `<h2>Child frame</h2><a href="/help">Help</a><input aria-label="Search help" type="search"></body></html>`

func (s *Server) crossFramePage(w http.ResponseWriter, r *http.Request) {
	// The same server under another host name is another origin and, with
	// site isolation, another renderer: its document is not in the capture.
	other := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, pageHead, "Cross-origin frame")
	fmt.Fprintf(w, `<main><h1>Checkout</h1><button type="button">Back</button><iframe title="Payment" src="%s/frames/child"></iframe></main></body></html>`, other)
}

var hiddenHTML = fmt.Sprintf(pageHead, "Hidden decoys") + `<main><h1>Compose</h1>
<div style="display:none"><button type="button" data-status="decoy 1">Send</button></div>
<button type="button" style="visibility:hidden" data-status="decoy 2">Send</button>
<button type="button" hidden data-status="decoy 3">Send</button>
<div aria-hidden="true"><button type="button" data-status="decoy 4">Send</button></div>
<div inert><button type="button" data-status="decoy 5">Send</button></div>
<template><button type="button">Send</button></template>
<textarea aria-label="Message"></textarea>
<button type="button" data-status="Sent">Send</button>
` + statusScript + `</main></body></html>`

var labelsHTML = fmt.Sprintf(pageHead, "Labels") + `<main><h1>Profile</h1><form onsubmit="return false">
<label for="first">First name</label> <input id="first" type="text">
<label>Last name <input type="text"></label>
<span id="mail-l">Email</span> <span id="mail-h">(work)</span> <input type="email" aria-labelledby="mail-l mail-h">
<input type="tel" aria-label="Phone">
<input type="text" title="Postcode">
<input type="search" placeholder="Search the site">
<label><input type="checkbox"> Subscribe</label>
<fieldset><legend>Plan</legend><label><input type="radio" name="plan"> Free</label><label><input type="radio" name="plan"> Pro</label></fieldset>
<label for="country">Country</label> <select id="country"><option>Norway</option><option>Chile</option></select>
<input type="image" alt="Upload avatar" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==">
<input type="submit" value="Save profile">
<button type="button" aria-label="Close"><span aria-hidden="true">×</span></button>
<a href="/help"><img alt="Help" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="></a>
</form></main></body></html>`

func longTextHTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, pageHead, "Statement")
	b.WriteString(`<main><h1>Statement</h1>`)
	for i := 1; i <= 40; i++ {
		if i%8 < 5 {
			fmt.Fprintf(&b, "<p>Line %d: invoice number %d is due at the end of the month; payment terms are thirty days net.</p>", i, 1000+i)
		} else {
			fmt.Fprintf(&b, "<p>Line %d: a note about deliveries, packaging and the warehouse schedule for the season.</p>", i)
		}
	}
	b.WriteString(`</main></body></html>`)
	return b.String()
}
