package sim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The loop monitor's pages (SPEC §5, MON-*): a menu whose DOM differs every
// time it opens, pages read in order, two tabs to alternate between, a
// result that needs waiting, and a login form with sensitive fields. Every
// volatile part (counters, the fake clock) is counted in the page's own
// script from its load, never taken from the wall clock, so a recording
// replays the same DOM.
func init() {
	register(Page{Path: "/loop/menu", What: `a menu ("Open menu", "Close menu") whose counter and fake clock change every time it opens or closes; a Note field; "Check for updates" that changes nothing but a number`,
		Handler: staticPage(loopMenuHTML)})
	register(Page{Path: "/loop/pages/", What: "a contents page and chapters /loop/pages/1 … /loop/pages/" + strconv.Itoa(len(loopChapters)) + `, each with a "Next" link`,
		Handler: func(s *Server) http.HandlerFunc { return loopChapter }})
	register(Page{Path: "/loop/tab-a", What: `a fare to watch in one tab: "Refresh" updates the price and the fake clock only`,
		Handler: staticPage(loopTabHTML("Flight to Lisbon", "fare", 12450))})
	register(Page{Path: "/loop/tab-b", What: `a room rate to watch in another tab: "Refresh" updates the price and the fake clock only`,
		Handler: staticPage(loopTabHTML("Hotel in Porto", "rate", 8900))})
	register(Page{Path: "/loop/slow", What: `"Build report" shows "Working" at once and "Report ready" 800 ms later; a prefilled Reference field`,
		Handler: func(s *Server) http.HandlerFunc { return s.stagePage(loopSlowStage, loopSlowHTML) }})
	register(Page{Path: "/loop/slow/build", What: `the endpoint "Build report" calls: "Report ready" shows 800 ms later on the server's clock`,
		Handler: func(s *Server) http.HandlerFunc { return s.loopSlowBuild }, Endpoint: true})
	register(Page{Path: "/loop/login", What: `sign-in with Username, a password field and a one-time-code field; "Sign in" always answers that the code expired and clears the code`,
		Handler: staticPage(loopLoginHTML)})
}

// loopClock is a fake clock for the pages' scripts: it starts at 09:00:00
// and advances a fixed number of seconds per event.
const loopClock = `<script>
let rlSeconds = 9 * 3600;
function rlTick(step) {
  rlSeconds += step;
  const p = n => String(n).padStart(2, '0');
  return p(Math.floor(rlSeconds / 3600)) + ':' + p(Math.floor(rlSeconds / 60) % 60) + ':' + p(rlSeconds % 60);
}
</script>`

var loopMenuHTML = fmt.Sprintf(pageHead, "Workspace") + loopClock + `<main><h1>Workspace</h1>
<p id="status">The menu is closed.</p>
<button type="button" id="open" aria-haspopup="menu" aria-controls="menu">Open menu</button>
<div id="menu" hidden>
  <p id="stamp"></p>
  <ul role="menu" aria-label="Workspace menu">
    <li role="menuitem" tabindex="-1">Profile</li>
    <li role="menuitem" tabindex="-1">Settings</li>
  </ul>
  <button type="button" id="close">Close menu</button>
</div>
<p><label>Note <input type="text" name="note"></label></p>
<p><button type="button" id="check">Check for updates</button> <span id="updates">No updates.</span></p>
<script>
let opened = 0, closed = 0, checks = 0;
document.getElementById('open').addEventListener('click', function () {
  opened++;
  document.getElementById('stamp').textContent = 'Opened ' + opened + ' times, last at ' + rlTick(7) + '.';
  document.getElementById('menu').hidden = false;
  document.getElementById('status').textContent = 'The menu is open.';
});
document.getElementById('close').addEventListener('click', function () {
  closed++;
  document.getElementById('menu').hidden = true;
  document.getElementById('status').textContent = 'The menu is closed (' + closed + ' times, last at ' + rlTick(5) + ').';
});
document.getElementById('check').addEventListener('click', function () {
  checks++;
  document.getElementById('updates').textContent = 'No updates (checked ' + checks + ' times, last at ' + rlTick(3) + ').';
});
</script>
</main></body></html>`

// loopChapters are the chapters of /loop/pages/N, read in order.
var loopChapters = []struct{ title, text string }{
	{"Getting started", "Install the tool and open a terminal."},
	{"Recording", "Run the scenarios once against the live site."},
	{"Replaying", "Replay the sessions offline, without a browser."},
	{"Goldens", "Compare every decision with the golden trace."},
	{"Tags", "Select scenarios by the behaviour they prove."},
	{"Reports", "Write JUnit and Cucumber reports for CI."},
	{"Adapters", "Describe a site's markup for the engine."},
	{"Troubleshooting", "Read the divergence message field by field."},
}

// loopChapter serves the contents at /loop/pages/ and chapter N at
// /loop/pages/N.
func loopChapter(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	var b strings.Builder
	rest := strings.TrimPrefix(r.URL.Path, "/loop/pages/")
	if rest == "" {
		fmt.Fprintf(&b, pageHead, "Guide")
		b.WriteString(`<main><h1>Guide</h1><ol>`)
		for i, c := range loopChapters {
			fmt.Fprintf(&b, `<li><a href="/loop/pages/%d">%s</a></li>`, i+1, c.title)
		}
		b.WriteString(`</ol></main></body></html>`)
		_, _ = w.Write([]byte(b.String()))
		return
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > len(loopChapters) {
		problem(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("sim: no chapter %q; chapters are 1 to %d", rest, len(loopChapters)))
		return
	}
	c := loopChapters[n-1]
	fmt.Fprintf(&b, pageHead, c.title)
	fmt.Fprintf(&b, `<main><h1>%s</h1><p>%s</p><p>Chapter %d of %d.</p>`, c.title, c.text, n, len(loopChapters))
	if n < len(loopChapters) {
		fmt.Fprintf(&b, `<p><a href="/loop/pages/%d">Next</a></p>`, n+1)
	} else {
		b.WriteString(`<p>The end.</p>`)
	}
	b.WriteString(`</main></body></html>`)
	_, _ = w.Write([]byte(b.String()))
}

// loopTabHTML is a price to watch: Refresh changes only numbers (the price
// and the fake clock).
func loopTabHTML(title, what string, cents int) string {
	return fmt.Sprintf(pageHead, title) + loopClock + fmt.Sprintf(`<main><h1>%s</h1>
<p id="price">The %s is not loaded yet.</p>
<button type="button" id="refresh">Refresh</button>
<script>
let refreshes = 0;
document.getElementById('refresh').addEventListener('click', function () {
  refreshes++;
  const cents = %d + (refreshes %% 3) * 25;
  document.getElementById('price').textContent = 'The %s is ' + (cents / 100).toFixed(2) + ' EUR as of ' + rlTick(11) + '.';
});
</script>
</main></body></html>`, title, what, cents, what)
}

var loopSlowHTML = fmt.Sprintf(pageHead, "Reports") + `<main><h1>Reports</h1>
<p><label>Reference <input type="text" name="reference" value="RL-7"></label></p>
<button type="button" id="build">Build report</button>
<p id="result">No report yet.</p>
<script>
document.getElementById('build').addEventListener('click', function () {
  document.getElementById('result').textContent = 'Working on the report.';
  const x = new XMLHttpRequest();
  x.open('GET', '/loop/slow/build', false);
  x.send();
});
</script>
</main></body></html>`

var loopLoginHTML = fmt.Sprintf(pageHead, "Sign in") + `<main><h1>Sign in</h1>
<form id="login" onsubmit="return false">
  <p><label>Username <input type="text" name="username" autocomplete="username"></label></p>
  <p><label>Password <input type="password" name="password" autocomplete="current-password"></label></p>
  <p><label>One-time code <input type="text" name="otp" inputmode="numeric" autocomplete="one-time-code"></label></p>
  <button type="button" id="signin">Sign in</button>
</form>
<p id="message" role="status">Enter your details.</p>
<script>
let attempts = 0;
document.getElementById('signin').addEventListener('click', function () {
  attempts++;
  document.querySelector('input[name=otp]').value = '';
  document.getElementById('message').textContent = 'That code has expired. Attempt ' + attempts + ' refused.';
});
</script>
</main></body></html>`

// loopSlowStage is /loop/slow's key on the stage; LoopSlowMS is how long
// its report takes on the server's clock.
const (
	loopSlowStage = "loop/slow"
	LoopSlowMS    = 800
)

// loopSlowBuild schedules the slow page's report.
func (s *Server) loopSlowBuild(w http.ResponseWriter, r *http.Request) {
	s.stage.begin()
	defer s.stage.end()
	s.clock.AfterFunc(LoopSlowMS*time.Millisecond, func() {
		s.stage.publish(loopSlowStage, stageOp{Op: "text", Sel: "#result", Text: "Report ready: 3 findings."})
	})
	w.WriteHeader(http.StatusNoContent)
}
