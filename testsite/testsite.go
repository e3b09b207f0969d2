// Package testsite is a second chat site for the lab's tests, unlike the
// sim in every way an adapter notices: the speaker is given by an avatar
// image's alt text ("You" for the user, the assistant's name otherwise),
// message ids live in a data-mid attribute, an answer streams word by word
// from the page's own JavaScript with a blinking cursor span and
// aria-busy="true" on the message log (?autosend=TEXT sends TEXT 300 ms
// after the page loads, for recordings with no one at the keyboard;
// ?stream=MS streams for MS instead of StreamMS, ?stream=0 shows the
// answer whole, with no cursor), the Send button is replaced by a
// Stop button while an answer streams, pictures in answers load late
// (their figure has a caption; the page's script sets the picture's src
// ImageDelay after the text, so every delay of the page is a JS timer, and
// a page clock, a profile's "clock": "page", owns them all), the composer is a contenteditable element,
// and a sidebar holds 200 links. The answer to a prompt is deterministic
// (the server's /api/reply), so recordings and goldens are stable.
//
// It serves on 127.0.0.1 only, on a free port unless told otherwise;
// testsite.json beside this file is its site profile and
// testsite.adapter.json its adapter file. Error pages: /missing answers
// 404, /broken 500.
//
// # The chat app
//
// /app/ is a second page shaped like a real chat product, a single-page
// app with its own script (app.js): the page loads with a skeleton, and
// the thread arrives as JSON from /app/api/thread AppLoadMS later
// (?load=MS; ?load=never: it never comes, the skeleton stays); then
// #thread gets data-ready="true". Turns are <article class="turn"> with
// data-speaker ("human", or the persona: "nova" or "orion", Models),
// data-msg (the message id) and data-status (pending while "Thinking…"
// shows, streaming, done, stopped, error, limit). Each answer streams from
// the server token by token, server-paced over AppStreamMS (?stream=MS),
// over fetch + ReadableStream (NDJSON, the default), EventSource
// (?transport=sse) or WebSocket (?transport=ws); the events are AppEvent
// and their content AppAnswer. While an answer streams, Send turns into
// "Stop generating"; a stopped answer keeps its text and says "You stopped
// this response.". A finished answer has a toolbar (div.msg-actions: the
// model badge, Copy, Good/Bad response, and on the last answer
// Regenerate, which replaces the answer in place under a new id). A
// failed answer shows an alert with Retry (role=alert) or a usage-limit
// note with Try again; either replaces it in place. Pictures load late
// (a JS timer) or never ("broken picture"). The composer is a
// contenteditable "Ask Nova"; the model picker (or ?model=orion) chooses
// the persona. The sidebar lists 24 recent chats as <article> cards
// (each opens the app again, with a thread that takes 3 s). With
// ?sameid=1 a regenerated or retried answer keeps the id of the one it
// replaces (as some sites do). With ?signin=1 the app needs a signed-in
// visitor: without the AppSessionCookie it answers its sign-in page
// ("Sign in to Nova Studio"), and without the local-storage entry
// AppTokenKey the page asks to sign in again instead of loading the
// thread; signed in, the header shows both values ("Signed in, session
// SID, token TOKEN"), so a test can tell that they were scrubbed.
// chatapp.json is its site profile, chatapp.adapter.json its adapter, and
// chatapp-broken/ holds planted mistakes for validate.
//
// # Library style
//
// /app/?lib=1 renders the same app as chat UI libraries do (LIB-3, LIB-5):
// turns carry no data-status; a new answer is an empty bubble until its
// first token, then its body has the class "streaming" until "done"; the
// renderer paints each token AppPaintMS late (?paint=MS), so the last words
// appear after "done"; Send is disabled while the composer is empty or an
// answer streams, and enabled AppSendLateMS after input (?sendlate=MS,
// ?sendlate=never); Stop is an icon button without a name
// (button.stop-icon) beside Send, and a stopped answer shows no note;
// every answer keeps its Regenerate and Copy (a Copy click shows "Copied
// ID"); a failed answer keeps its words and the failure shows as a toast
// outside the thread (div.toast.error, with an icon Retry button,
// button.retry), removed at the next send. chatapp-lib.json (page clock)
// and chatapp-lib-wall.json (wall clock) are its profiles,
// chatapp-lib.adapter.json their adapter.
package testsite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"image/color"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/internal/serve"
	"github.com/replaylab/replaylab/internal/solidpng"
)

// Server is a running test site.
type Server struct {
	// URL is "http://127.0.0.1:PORT".
	URL string

	srv *serve.Server
	// base is every request's parent context; Close cancels it, so the
	// app's streams and a thread that never loads end with the server.
	base context.Context
}

// Options configure a server.
type Options struct {
	// Addr is the listen address, default "127.0.0.1:0"; loopback only.
	Addr string
	// ImageDelay is how long after its answer's text a picture starts
	// loading (default 700 ms): the page's own script sets the picture's
	// src after this delay (a JS timer, so a page clock sees it; the
	// server answers the picture at once).
	ImageDelay time.Duration
	// StreamMS is how long an answer streams in the page (default 1200).
	StreamMS int
}

// ErrNotLoopback refuses a listen address off the loopback.
var ErrNotLoopback = serve.ErrNotLoopback

// Start serves the test site.
func Start(opt Options) (*Server, error) {
	if opt.ImageDelay <= 0 {
		opt.ImageDelay = 700 * time.Millisecond
	}
	if opt.StreamMS <= 0 {
		opt.StreamMS = 1200
	}
	s := &Server{}
	srv, err := serve.Start(opt.Addr, func(base context.Context) http.Handler {
		s.base = base
		return s.routes(opt)
	})
	if err != nil {
		return nil, fmt.Errorf("testsite: %w", err)
	}
	s.srv, s.URL = srv, srv.URL
	return s, nil
}

// routes is the site's pages, API and images.
func (s *Server) routes(opt Options) http.Handler {
	mux := http.NewServeMux()
	s.appRoutes(mux, opt)
	s.shadowRoutes(mux, opt)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { s.chat(w, r, opt) })
	mux.HandleFunc("GET /api/reply", reply)
	mux.HandleFunc("GET /img/avatar/{who}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(avatar)
	})
	mux.HandleFunc("GET /img/chart.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(chart)
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "testsite: this page is broken on purpose", http.StatusInternalServerError)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "testsite: no page at "+r.URL.Path, http.StatusNotFound)
	})
	return mux
}

// Close stops the server and waits for requests in flight.
func (s *Server) Close() error { return s.srv.Close() }

// Reply is the site's answer to a prompt: deterministic, never equal to
// the prompt; prompts that ask for a picture or a chart get one.
func Reply(prompt string) (text string, picture bool) {
	p := strings.ToLower(prompt)
	picture = strings.Contains(p, "picture") || strings.Contains(p, "chart")
	switch {
	case strings.Contains(p, "capital of france"):
		text = "The capital of France is Paris, on the Seine."
	case picture:
		text = "Here is the chart you asked for, drawn from the figures above."
	default:
		n := len(strings.Fields(prompt))
		text = fmt.Sprintf("Nova read your %d-word message and has this to say: thank you for writing.", n)
	}
	return text, picture
}

func reply(w http.ResponseWriter, r *http.Request) {
	text, pic := Reply(r.URL.Query().Get("q"))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"text": text, "picture": pic})
}

type turn struct {
	ID, Who, Alt, Text string
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, opt Options) {
	n, _ := strconv.Atoi(r.URL.Query().Get("history"))
	n = max(0, min(n, 400))
	var turns []turn
	for i := 1; i <= n; i++ {
		if i%2 == 1 {
			turns = append(turns, turn{ID: fmt.Sprintf("h%d", i), Who: "user", Alt: "You", Text: fmt.Sprintf("Earlier question %d", (i+1)/2)})
		} else {
			turns = append(turns, turn{ID: fmt.Sprintf("h%d", i), Who: "nova", Alt: "Nova", Text: fmt.Sprintf("Earlier answer %d, complete.", i/2)})
		}
	}
	stream := opt.StreamMS
	if v := r.URL.Query().Get("stream"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 || ms > 60_000 {
			http.Error(w, "testsite: stream must be 0..60000 ms", http.StatusBadRequest)
			return
		}
		stream = ms
	}
	links := make([]int, 200)
	for i := range links {
		links[i] = i + 1
	}
	var b bytes.Buffer
	err := page.Execute(&b, map[string]any{"Turns": turns, "Links": links, "StreamMS": stream, "ImageMS": opt.ImageDelay.Milliseconds(), "Autosend": r.URL.Query().Get("autosend")})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

var page = template.Must(template.New("chat").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Nova chat</title>
<style>
body{font-family:sans-serif;margin:0;display:flex}
nav.history{width:220px;height:100vh;overflow:auto;background:#f4f4f4}
nav.history a{display:block;padding:2px 8px;font-size:12px}
.app{flex:1;display:flex;flex-direction:column;height:100vh}
#log{flex:1;overflow:auto;padding:12px}
.msg{display:flex;gap:8px;margin:8px 0}
.msg img.avatar{width:24px;height:24px;border-radius:12px}
.cursor{animation:blink 1s step-end infinite}
@keyframes blink{50%{opacity:0}}
figure img{width:120px;height:60px}
.bar{display:flex;gap:8px;padding:8px;border-top:1px solid #ccc}
#composer{flex:1;min-height:1.4em;border:1px solid #999;padding:4px}
[hidden]{display:none!important}
</style></head>
<body>
<nav class="history" aria-label="Chats">{{range .Links}}<a href="/?chat={{.}}">Chat {{.}}</a>{{end}}</nav>
<div class="app">
<header><h1>Nova</h1></header>
<div id="log" role="log" aria-busy="false">
{{range .Turns}}<div class="msg {{.Who}}" data-mid="{{.ID}}"><img class="avatar" alt="{{.Alt}}" src="/img/avatar/{{.Who}}.png"><div class="content"><p>{{.Text}}</p></div></div>
{{end}}</div>
<div class="bar">
<div id="composer" contenteditable="true" role="textbox" aria-label="Message" aria-multiline="true"></div>
<button id="send" type="button">Send</button>
<button id="stop" type="button" hidden>Stop</button>
</div>
</div>
<script>
(() => {
  const log = document.getElementById("log");
  const composer = document.getElementById("composer");
  const send = document.getElementById("send");
  const stop = document.getElementById("stop");
  const streamMS = {{.StreamMS}}, imageMS = {{.ImageMS}};
  let seq = 0, streaming = false, stopped = false;
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const message = (who, alt) => {
    seq++;
    const m = el("div", {"class": "msg " + who, "data-mid": "m" + seq});
    m.appendChild(el("img", {"class": "avatar", "alt": alt, "src": "/img/avatar/" + who + ".png"}));
    const c = el("div", {"class": "content"});
    m.appendChild(c);
    log.appendChild(m);
    return c;
  };
  const busy = (on) => {
    streaming = on;
    log.setAttribute("aria-busy", on ? "true" : "false");
    send.hidden = on;
    stop.hidden = !on;
  };
  async function submit() {
    const text = composer.textContent.trim();
    if (!text || streaming) return;
    composer.textContent = "";
    message("user", "You").appendChild(el("p", {}, text));
    busy(true);
    stopped = false;
    const r = await (await fetch("/api/reply?q=" + encodeURIComponent(text))).json();
    await new Promise(res => setTimeout(res, 150));
    const c = message("nova", "Nova");
    const p = el("p");
    const cursor = el("span", {"class": "cursor"}, "\u258D");
    c.appendChild(p);
    const words = r.text.split(" ");
    if (streamMS === 0) {
      p.textContent = r.text; // ?stream=0: the answer appears whole
    } else {
      c.appendChild(cursor);
      const step = Math.max(20, Math.floor(streamMS / words.length));
      for (let i = 0; i < words.length && !stopped; i++) {
        p.textContent = words.slice(0, i + 1).join(" ");
        await new Promise(res => setTimeout(res, step));
      }
    }
    if (r.picture) {
      const f = el("figure");
      const img = el("img", {"alt": "Chart"});
      f.appendChild(img);
      f.appendChild(el("figcaption", {}, "Figure 1: the figures above, as a chart"));
      c.appendChild(f);
      setTimeout(() => { img.src = "/img/chart.png"; }, imageMS); // the picture loads late
    }
    cursor.remove();
    busy(false);
  }
  send.addEventListener("click", submit);
  stop.addEventListener("click", () => { stopped = true; });
  const autosend = {{.Autosend}};
  if (autosend) setTimeout(() => { composer.textContent = autosend; submit(); }, 300);
  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); submit(); }
  });
})();
</script>
</body></html>
`))

var avatar, chart = solidpng.Of(24, 24, color.RGBA{90, 120, 200, 255}), solidpng.Of(120, 60, color.RGBA{40, 160, 90, 255})
