package testsite

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The chat app: a second page of the test site, at /app/, shaped like a
// real chat product rather than like the sim or the page at /. See the
// package doc ("The chat app") for what it does; app.js is its script.

//go:embed app.js
var appJS []byte

// ProfileNames are the names of the site profiles in this directory whose
// pages this package's server serves: a live run maps each to the
// server's address.
var ProfileNames = []string{"testsite", "chatapp", "chatapp-lib", "chatapp-lib-wall", "chatapp-lib-nosettle", "chatapp-lib-unscoped"}

// App defaults.
const (
	// AppLoadMS is how long the thread's JSON takes to arrive after the
	// page asked for it (?load=MS; ?load=never never answers).
	AppLoadMS = 400
	// AppStreamMS is how long an answer streams, server-paced (?stream=MS).
	AppStreamMS = 1500
	// AppThinkMS is how long the server thinks before the first token;
	// the page shows "Thinking…" meanwhile.
	AppThinkMS = 300
	// AppHistory is how many turns the thread holds (?history=N).
	AppHistory = 4
	// AppPaintMS is how late the library style's renderer paints each
	// token (?paint=MS), so its last words appear after "done".
	AppPaintMS = 120
	// AppSendLateMS is how long after input the library style enables
	// Send (?sendlate=MS; ?sendlate=never: never).
	AppSendLateMS = 50
)

// Models are the app's two assistant personas: the value of a turn's
// data-speaker, the name in the model picker and the badge in its toolbar.
var Models = []Model{
	{Speaker: "nova", Name: "Nova", Badge: "nova-pro"},
	{Speaker: "orion", Name: "Orion", Badge: "orion-mini"},
}

// Model is one assistant persona of the app.
type Model struct{ Speaker, Name, Badge string }

func modelOf(speaker string) Model {
	for _, m := range Models {
		if m.Speaker == speaker {
			return m
		}
	}
	return Models[0]
}

// AppEvent is one line of an answer's stream (NDJSON over fetch, the data
// of one EventSource message, one WebSocket text message).
type AppEvent struct {
	Type    string `json:"type"`              // start, token, done, error
	Model   string `json:"model,omitempty"`   // start: the badge
	Text    string `json:"text,omitempty"`    // token: the next piece of text
	Kind    string `json:"kind,omitempty"`    // error: "alert" (role=alert, Retry) or "limit" (a usage-limit note, Try again)
	Message string `json:"message,omitempty"` // error: what the page shows
	Image   string `json:"image,omitempty"`   // done: a picture's URL (loads late; /app/img/missing.png never loads)
}

// AppAnswer is the app's answer to a prompt: deterministic from the
// prompt, the model, the regeneration count and the attempt, so
// recordings and goldens are stable. Prompts with "fail" stream a few
// words and then fail with an alert (a Retry succeeds: attempt 2); with
// "limit" they fail at once with a usage-limit note; with "picture" or
// "chart" they end with a picture that loads late ("broken picture": one
// that never loads); with "long" they are long (for Stop); with "stall"
// they stream a few words and then hold still, the stream open until the
// page stops it (for a Stop whose text is the same on any clock).
func AppAnswer(prompt, speaker string, regen, attempt int) []AppEvent {
	m := modelOf(speaker)
	p := strings.ToLower(prompt)
	ev := []AppEvent{{Type: "start", Model: m.Badge}}
	var text, image string
	switch {
	case strings.Contains(p, "limit") && attempt < 2:
		return append(ev, AppEvent{Type: "error", Kind: "limit", Message: "You have reached the " + m.Name + " usage limit for now."})
	case strings.Contains(p, "fail") && attempt < 2:
		for _, w := range words("Let me look into that for you") {
			ev = append(ev, AppEvent{Type: "token", Text: w})
		}
		return append(ev, AppEvent{Type: "error", Kind: "alert", Message: "Something went wrong while generating the response."})
	case strings.Contains(p, "capital of france"):
		text = []string{"The capital of France is Paris, on the Seine.", "Paris is the capital of France.", "France's capital city is Paris."}[regen%3]
	case strings.Contains(p, "picture") || strings.Contains(p, "chart"):
		text = "Here is the chart you asked for, drawn from the figures above."
		image = "/app/img/chart.png"
		if strings.Contains(p, "broken") {
			image = "/app/img/missing.png"
		}
	case strings.Contains(p, "stall"):
		// the stream holds still after these words, open until the page
		// stops it (appStream)
		text = "I am thinking about this very carefully."
	case strings.Contains(p, "long"):
		text = strings.Repeat("This is a long answer that goes on and on. ", 12) + "The end."
	default:
		text = fmt.Sprintf("%s read your %d-word message and has this to say: thank you for writing.", m.Name, len(strings.Fields(prompt)))
		if regen > 0 {
			text = fmt.Sprintf("%s read your %d-word message again (take %d): thanks once more.", m.Name, len(strings.Fields(prompt)), regen+1)
		}
	}
	if speaker == "orion" && !strings.Contains(p, "long") {
		text = "Orion here. " + text
	}
	for _, w := range words(text) {
		ev = append(ev, AppEvent{Type: "token", Text: w})
	}
	if strings.Contains(p, "stall") {
		return ev
	}
	return append(ev, AppEvent{Type: "done", Image: image})
}

// words splits text into tokens that join back to it (each but the last
// keeps its trailing space).
func words(text string) []string {
	f := strings.Fields(text)
	for i := range f[:len(f)-1] {
		f[i] += " "
	}
	return f
}

// appTurn is one turn of the thread's JSON.
type appTurn struct {
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Model   string `json:"model,omitempty"`
}

// appThread is the thread of ?history=N: user and assistant turns
// alternating, every second answer by the second persona.
func appThread(n int) []appTurn {
	var out []appTurn
	for i := 1; i <= n; i++ {
		if i%2 == 1 {
			out = append(out, appTurn{ID: fmt.Sprintf("h%d", i), Speaker: "human", Text: fmt.Sprintf("Earlier question %d", (i+1)/2)})
			continue
		}
		m := Models[(i/2+1)%2]
		out = append(out, appTurn{ID: fmt.Sprintf("h%d", i), Speaker: m.Speaker, Model: m.Badge, Text: fmt.Sprintf("Earlier answer %d from %s, complete.", i/2, m.Name)})
	}
	return out
}

func (s *Server) appRoutes(mux *http.ServeMux, opt Options) {
	imageMS := int(opt.ImageDelay.Milliseconds())
	mux.HandleFunc("GET /app/{$}", func(w http.ResponseWriter, r *http.Request) { s.appPage(w, r, imageMS) })
	mux.HandleFunc("GET /app/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(appJS)
	})
	mux.HandleFunc("GET /app/api/thread", s.appThreadAPI)
	mux.HandleFunc("GET /app/account", appAccount)
	mux.HandleFunc("GET /app/api/stream", func(w http.ResponseWriter, r *http.Request) { s.appStream(w, r, "fetch") })
	mux.HandleFunc("GET /app/api/sse", func(w http.ResponseWriter, r *http.Request) { s.appStream(w, r, "sse") })
	mux.HandleFunc("GET /app/api/ws", func(w http.ResponseWriter, r *http.Request) { s.appStream(w, r, "ws") })
	mux.HandleFunc("GET /app/img/chart.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(chart)
	})
	mux.HandleFunc("GET /app/img/avatar/{who}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(avatar)
	})
}

// appConfig is what the page's script reads from its config element.
type appConfig struct {
	Load      string `json:"load"`
	History   int    `json:"history"`
	Transport string `json:"transport"`
	StreamMS  int    `json:"streamMS"`
	ImageMS   int    `json:"imageMS"`
	Model     string `json:"model"`
	Autosend  string `json:"autosend,omitempty"`
	SameID    bool   `json:"sameID,omitempty"` // a regenerated answer keeps its id
	Signin    bool   `json:"signin,omitempty"` // the page needs AppTokenKey in local storage
	// Lib is the library style (?lib=1); PaintMS and SendLate (-1: never)
	// are its renderer's and its Send button's delays.
	Lib      bool `json:"lib,omitempty"`
	PaintMS  int  `json:"paintMS"`
	SendLate int  `json:"sendLate"`
}

// query reads an integer parameter within [lo, hi], def when absent.
func query(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("testsite: %s must be %d..%d", name, lo, hi)
	}
	return n, nil
}

func (s *Server) appPage(w http.ResponseWriter, r *http.Request, imageMS int) {
	cfg := appConfig{Load: strconv.Itoa(AppLoadMS), Transport: "fetch", ImageMS: imageMS, Model: "nova", Autosend: r.URL.Query().Get("autosend")}
	var err error
	if cfg.History, err = query(r, "history", AppHistory, 0, 400); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if cfg.StreamMS, err = query(r, "stream", AppStreamMS, 0, 60_000); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if v := r.URL.Query().Get("load"); v != "" {
		if _, err := query(r, "load", 0, 0, 60_000); err != nil && v != "never" {
			http.Error(w, "testsite: load must be 0..60000 ms or never", http.StatusBadRequest)
			return
		}
		cfg.Load = v
	}
	switch t := r.URL.Query().Get("transport"); t {
	case "", "fetch", "sse", "ws":
		if t != "" {
			cfg.Transport = t
		}
	default:
		http.Error(w, "testsite: transport must be fetch, sse or ws", http.StatusBadRequest)
		return
	}
	if m := r.URL.Query().Get("model"); m != "" {
		if modelOf(m).Speaker != m {
			http.Error(w, "testsite: model must be nova or orion", http.StatusBadRequest)
			return
		}
		cfg.Model = m
	}
	cfg.SameID = r.URL.Query().Get("sameid") == "1"
	cfg.Lib = r.URL.Query().Get("lib") == "1"
	if cfg.PaintMS, err = query(r, "paint", AppPaintMS, 0, 10_000); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Query().Get("sendlate") == "never" {
		cfg.SendLate = -1
	} else if cfg.SendLate, err = query(r, "sendlate", AppSendLateMS, 0, 60_000); err != nil {
		http.Error(w, "testsite: sendlate must be 0..60000 ms or never", http.StatusBadRequest)
		return
	}
	account := ""
	if r.URL.Query().Get("signin") == "1" {
		c, err := r.Cookie(AppSessionCookie)
		if err != nil || c.Value == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_ = signinPage.Execute(w, nil)
			return
		}
		cfg.Signin = true
		account = "Signed in, session " + c.Value
	}
	var cards []string
	for i := 1; i <= 24; i++ {
		cards = append(cards, fmt.Sprintf("Chat %d", i))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := appPage.Execute(w, map[string]any{"Config": cfg, "Cards": cards, "Models": Models, "Account": account}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// sleep waits d or until the request or the server ends; false when it
// ended first.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) appThreadAPI(w http.ResponseWriter, r *http.Request) {
	n, err := query(r, "history", AppHistory, 0, 400)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Query().Get("load") == "never" {
		<-r.Context().Done() // the thread never comes
		return
	}
	load, err := query(r, "load", AppLoadMS, 0, 60_000)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !s.sleep(r.Context(), time.Duration(load)*time.Millisecond) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"turns": appThread(n)})
}

// appStream streams an answer's events, server-paced: the first after
// AppThinkMS, the rest spread over ?stream=MS.
func (s *Server) appStream(w http.ResponseWriter, r *http.Request, transport string) {
	q := r.URL.Query()
	streamMS, err := query(r, "stream", AppStreamMS, 0, 60_000)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	regen, _ := query(r, "regen", 0, 0, 100)
	attempt, _ := query(r, "attempt", 1, 1, 100)
	events := AppAnswer(q.Get("q"), q.Get("model"), regen, attempt)
	step := time.Duration(streamMS) * time.Millisecond / time.Duration(max(1, len(events)-1))
	var send func(AppEvent) error
	var end func()
	ctx := r.Context()
	switch transport {
	case "ws":
		ws, err := wsAccept(w, r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		wsCtx, cancel := context.WithCancel(s.base)
		go func() { ws.waitClose(); cancel() }()
		ctx = wsCtx
		send = func(e AppEvent) error {
			b, _ := json.Marshal(e)
			return ws.WriteText(string(b))
		}
		end = func() { _ = ws.Close(); cancel() }
	case "sse":
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		send = func(e AppEvent) error {
			b, _ := json.Marshal(e)
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return err
			}
			return http.NewResponseController(w).Flush()
		}
		end = func() {}
	default:
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Cache-Control", "no-store")
		send = func(e AppEvent) error {
			b, _ := json.Marshal(e)
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
			return http.NewResponseController(w).Flush()
		}
		end = func() {}
	}
	defer end()
	for i, e := range events {
		d := step
		if i == 0 {
			d = 0
		} else if i == 1 {
			d = AppThinkMS * time.Millisecond
		}
		if d > 0 && !s.sleep(ctx, d) {
			return
		}
		if send(e) != nil {
			return
		}
	}
	if strings.Contains(strings.ToLower(q.Get("q")), "stall") {
		<-ctx.Done() // open until the page stops it
	}
}

var appPage = template.Must(template.New("app").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Nova Studio</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;display:flex;height:100vh}
aside.sidebar{width:230px;overflow:auto;background:#f3f1ee;padding:8px}
aside.sidebar article{padding:6px;border-radius:6px;margin:4px 0;background:#fff}
aside.sidebar article p{margin:2px 0;font-size:12px;color:#666}
.app{flex:1;display:flex;flex-direction:column;min-width:0}
header{display:flex;align-items:center;gap:12px;padding:8px 12px;border-bottom:1px solid #ddd}
header h1{font-size:18px;margin:0}
#thread{flex:1;overflow:auto;padding:12px 24px}
.skeleton .bone{height:14px;margin:10px 0;border-radius:7px;background:#e6e6e6;width:70%}
.skeleton .bone:nth-child(2n){width:45%}
article.turn{margin:12px 0;max-width:760px}
article.turn[data-speaker=human]{margin-left:auto;background:#eef3ff;border-radius:10px;padding:6px 10px;max-width:520px}
.thinking{color:#888;font-style:italic}
.msg-actions{display:flex;gap:6px;align-items:center;font-size:12px;color:#666}
.model-tag{border:1px solid #ccc;border-radius:8px;padding:0 6px}
.stop-note{color:#777;font-size:13px}
.error{color:#a00;border:1px solid #e0a0a0;border-radius:6px;padding:6px}
.limit{color:#8a5a00}
figure img{width:120px;height:60px}
.toast{position:fixed;right:16px;bottom:70px;background:#a00;color:#fff;border-radius:6px;padding:8px}
.stop-icon{width:32px}
.composer-bar{display:flex;gap:8px;padding:10px 24px;border-top:1px solid #ddd}
#composer{flex:1;min-height:1.4em;border:1px solid #999;border-radius:8px;padding:6px}
</style></head>
<body>
<aside class="sidebar" aria-label="Recent chats">
<h2>Recent</h2>
{{range $i, $c := .Cards}}<article class="chat-card"><a href="/app/?chat={{$i}}&amp;load=3000">{{$c}}</a><p>You: a question about {{$c}}</p></article>
{{end}}</aside>
<div class="app">
<header><h1>Nova Studio</h1>
<label>Model <select id="model" aria-label="Model">{{range .Models}}<option value="{{.Speaker}}">{{.Name}}</option>{{end}}</select></label>{{if .Account}}<p id="account">{{.Account}}</p>{{end}}</header>
<main id="thread" aria-label="Conversation" aria-busy="true" data-ready="false">
<div class="skeleton"><p class="loading">Loading conversation…</p><div class="bone"></div><div class="bone"></div><div class="bone"></div><div class="bone"></div></div>
</main>
<div class="composer-bar">
<div id="composer" contenteditable="true" role="textbox" aria-label="Ask Nova" aria-multiline="true"></div>
<button id="send" type="button" aria-label="Send">Send</button>
</div>
</div>
<script id="config" type="application/json">{{.Config}}</script>
<script src="/app/app.js"></script>
</body></html>
`))

// AppSessionCookie names the cookie of a signed-in visitor; /app/account
// shows its value and the local-storage entry AppTokenKey, so a test can
// tell that a storage state reached the page and that its values were
// scrubbed from what was written.
const (
	AppSessionCookie = "nova_sid"
	AppTokenKey      = "nova_token"
)

// signinPage is what ?signin=1 answers a visitor without the session
// cookie.
var signinPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><main><h1>Sign in to Nova Studio</h1>
<form method="post" action="/app/signin"><label>Email <input type="email" name="email" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>
`))

func appAccount(w http.ResponseWriter, r *http.Request) {
	who := "Signed out"
	if c, err := r.Cookie(AppSessionCookie); err == nil && c.Value != "" {
		who = "Signed in, session " + c.Value
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = accountPage.Execute(w, who)
}

var accountPage = template.Must(template.New("account").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Account</title></head>
<body><main><h1>Account</h1><p id="who">{{.}}</p><p id="token">No token</p></main>
<script>
const t = localStorage.getItem("nova_token");
if (t) document.getElementById("token").textContent = "Token " + t;
</script></body></html>
`))
