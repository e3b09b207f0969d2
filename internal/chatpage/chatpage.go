// Package chatpage generates the seeded chat pages the performance
// benchmarks and the side-by-side script measure: a sidebar of links
// (300 by default) beside a thread of N turns in the marker style
// (data-message-author-role, data-message-id), alternating user and
// assistant, and a composer at the end. Assistant turns carry a standing
// action bar (Copy, Good response, Bad response, Read aloud) and, now and
// then, a list, a code block or a table, so the text, heading, table and
// candidate paths all have work to do.
//
// The same Options always give the same bytes. Sizes lists the turn counts
// the benchmarks measure: 20, 200, 2,000 and 20,000 turns are 38 KB,
// 198 KB, 1.8 MB and 18 MB of HTML with the default sidebar.
//
// The page is plain HTML, as an offline capture holds it: no data-rl-*
// live state. A browser serving it adds that state itself.
package chatpage

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
)

// Sizes are the turn counts the benchmarks measure.
var Sizes = []int{20, 200, 2000, 20000}

// Options shape one page.
type Options struct {
	Turns   int   // turns in the thread, alternating user (first) and assistant
	Sidebar int   // links in the sidebar; 0 means 300, a negative number none
	Seed    int64 // the same seed gives the same page
}

// DefaultSidebar is the sidebar's link count when Options.Sidebar is 0.
const DefaultSidebar = 300

var words = strings.Fields(`the a of to and in is it that for on with as this be are by at from or an
answer question model page turn data value table list code result error state group link button
function return string number request response server client browser capture observe snapshot
render stream token message chat user assistant system prompt context limit window budget cost
time clock wait change event node element attribute frame document style rule index test bench`)

// Render returns the page for o.
func Render(o Options) string {
	sidebar := o.Sidebar
	if sidebar == 0 {
		sidebar = DefaultSidebar
	}
	r := rand.New(rand.NewPCG(uint64(o.Seed), 0x5eed))
	var b strings.Builder
	b.Grow(4096 + max(sidebar, 0)*80 + o.Turns*1000)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bench Chat</title>
<style>
body{font-family:sans-serif;margin:0;display:flex}
nav{width:220px;height:100vh;overflow:auto;border-right:1px solid #ccc}
main{flex:1;padding:8px}
.turn{margin:6px 0;padding:6px}
.turn[data-message-author-role=user]{background:#eef}
.actions{display:flex;gap:4px}
.menu{display:none}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}
pre{background:#f4f4f4;padding:4px}
</style></head>
<body>
<nav aria-label="Chat history"><h2 class="sr-only">Chat history</h2><ol>
`)
	for i := range max(sidebar, 0) {
		fmt.Fprintf(&b, `<li><a href="/c/%08x-%04x">%s</a></li>`+"\n", r.Uint32(), i, sentence(r, 3+r.IntN(5), false))
	}
	b.WriteString(`</ol></nav>
<main>
<h1>Bench Chat</h1>
<div id="thread">
`)
	for i := range o.Turns {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<div class="turn" data-message-author-role="user" data-message-id="msg-%06d"><h5 class="sr-only">You said:</h5><div class="text"><p>%s</p></div></div>`+"\n",
				i, sentence(r, 16+r.IntN(36), true))
			continue
		}
		fmt.Fprintf(&b, `<div class="turn" data-message-author-role="assistant" data-message-id="msg-%06d"><h6 class="sr-only">Bench said:</h6><div class="text markdown">`, i)
		for p := range 2 + r.IntN(3) {
			fmt.Fprintf(&b, `<p>%s <b>%s</b> %s <a href="/ref/%d/%d">%s</a>.</p>`,
				sentence(r, 12+r.IntN(24), true), word(r), sentence(r, 8+r.IntN(12), false), i, p, word(r))
		}
		switch r.IntN(8) {
		case 0:
			b.WriteString(`<ul>`)
			for range 3 + r.IntN(3) {
				fmt.Fprintf(&b, `<li>%s</li>`, sentence(r, 4+r.IntN(6), false))
			}
			b.WriteString(`</ul>`)
		case 1:
			fmt.Fprintf(&b, `<pre><code>func %s(%s int) int { return %s * %d }</code></pre>`, word(r), word(r), word(r), r.IntN(100))
		case 2:
			fmt.Fprintf(&b, `<h3>%s</h3><table><tr><th>%s</th><th>%s</th></tr><tr><td>%d</td><td>%s</td></tr><tr><td>%d</td><td>%s</td></tr></table>`,
				sentence(r, 3, true), word(r), word(r), r.IntN(1000), word(r), r.IntN(1000), word(r))
		}
		b.WriteString(`</div><div class="actions"><button type="button" aria-label="Copy">Copy</button><button type="button" aria-label="Good response"><svg width="12" height="12"></svg></button><button type="button" aria-label="Bad response"><svg width="12" height="12"></svg></button><button type="button" aria-label="Read aloud"><svg width="12" height="12"></svg></button><div class="menu"><button type="button">Share</button><button type="button">Report</button></div></div></div>` + "\n")
	}
	b.WriteString(`</div>
<form id="composer"><textarea id="prompt" aria-label="Message" placeholder="Send a message"></textarea><button type="submit" aria-label="Send">Send</button></form>
</main></body></html>
`)
	return b.String()
}

func word(r *rand.Rand) string { return words[r.IntN(len(words))] }

func sentence(r *rand.Rand, n int, capital bool) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := word(r)
		if i == 0 && capital {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// Live returns a page as the browser driver's capture writes it: a node id
// on every element (data-rl-node, numbered in document order) and the
// computed hidden state on the hidden menus (data-rl-hidden), so the
// engine reads it as a live frame. src is a page Render made (its tags
// quote no '>').
func Live(src string) string {
	var b strings.Builder
	b.Grow(len(src) + len(src)/4)
	id := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '<' || i+1 >= len(src) || !('a' <= src[i+1] && src[i+1] <= 'z') {
			b.WriteByte(src[i])
			continue
		}
		j := i + strings.IndexByte(src[i:], '>')
		end := j
		if src[j-1] == '/' {
			end--
		}
		b.WriteString(src[i:end])
		id++
		fmt.Fprintf(&b, ` data-rl-node="%d"`, id)
		if strings.Contains(src[i:j], ` class="menu"`) {
			b.WriteString(` data-rl-hidden="display"`)
		}
		b.WriteString(src[end : j+1])
		i = j
	}
	return b.String()
}

// Serve serves pages (path → HTML) on a loopback port until close is
// called, and returns the base URL ("http://127.0.0.1:PORT").
func Serve(pages map[string]string) (base string, close func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv.Close, nil
}
