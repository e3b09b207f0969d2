package testsite

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// The shadow widget (/shadow/) is the test site's chat built the way
// web-component chat widgets are: the whole UI lives in open shadow roots.
// <nova-chat> is in the page's markup, but its element is defined
// ShadowDefineMS after load, so its open root (the log, the composer
// "Message", Send and Stop) is attached to an element already in the page,
// with no DOM mutation to announce it. Each message is a <nova-message>
// (data-who "user" or "nova", data-mid its id) with an open root of its
// own (nested in the chat's): the speaker's label, the text streamed word
// by word with a blinking cursor span, and pictures that load late
// (figure img, its src set ImageDelay after the text). The footer's
// <nova-badge> has a closed root ("Nova 2.1, private build"), and a light
// DOM logo picture. A prompt that asks for code in Python is answered with
// a highlighted code block (one <span> per token, two lines) under a
// header with the language label and a Copy button. Every delay is a JS
// timer, so a page clock owns them all; replies come from
// /shadow/api/reply. shadow.json beside this file is its profile (page
// clock), shadow-wall.json the same on wall time, shadow.adapter.json its
// adapter.

// ShadowDefineMS is how long after load the widget's element is defined
// (and its open root attached).
const ShadowDefineMS = 400

// ShadowCode is the highlighted code block of a code answer, one token a
// span (class "" is plain text), and ShadowCodeText its text as rendered.
var ShadowCode = [][2]string{
	{"k", "def"}, {"", " "}, {"nf", "greet"}, {"p", "("}, {"n", "name"}, {"p", "):"}, {"", "\n    "},
	{"k", "return"}, {"", " "}, {"s", `f"Hello, `}, {"si", "{"}, {"n", "name"}, {"si", "}"}, {"s", `!"`}, {"", "\n"},
}

// ShadowCodeText is ShadowCode as the page renders it.
var ShadowCodeText = func() string {
	var b strings.Builder
	for _, t := range ShadowCode {
		b.WriteString(t[1])
	}
	return b.String()
}()

// shadowReply is the widget's answer to a prompt: the site's Reply, or a
// code answer for a prompt that asks for code in Python.
func shadowReply(prompt string) map[string]any {
	p := strings.ToLower(prompt)
	if strings.Contains(p, "python") {
		return map[string]any{"text": "Here is a greeting function in Python:", "picture": false, "code": ShadowCode, "lang": "python"}
	}
	text, pic := Reply(prompt)
	return map[string]any{"text": text, "picture": pic}
}

func (s *Server) shadowRoutes(mux *http.ServeMux, opt Options) {
	mux.HandleFunc("GET /shadow/{$}", func(w http.ResponseWriter, r *http.Request) {
		stream := opt.StreamMS
		if v := r.URL.Query().Get("stream"); v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 || ms > 60_000 {
				http.Error(w, "testsite: stream must be 0..60000 ms", http.StatusBadRequest)
				return
			}
			stream = ms
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("history"))
		n = max(0, min(n, 400))
		var b bytes.Buffer
		err := shadowPage.Execute(&b, map[string]any{"StreamMS": stream, "ImageMS": opt.ImageDelay.Milliseconds(),
			"DefineMS": ShadowDefineMS, "History": n})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b.Bytes())
	})
	mux.HandleFunc("GET /shadow/api/reply", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(shadowReply(r.URL.Query().Get("q")))
	})
}

var shadowPage = template.Must(template.New("shadow").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Nova widget</title>
<style>
body{font-family:sans-serif;margin:0}
nova-chat{display:block;height:80vh}
footer{display:flex;gap:8px;align-items:center;padding:4px 12px}
footer img{width:24px;height:24px}
</style></head>
<body>
<header><h1>Nova widget</h1></header>
<nova-chat history="{{.History}}"></nova-chat>
<footer><img class="logo" alt="Nova logo" src="/img/avatar/nova.png"><nova-badge></nova-badge></footer>
<script>
(() => {
  const streamMS = {{.StreamMS}}, imageMS = {{.ImageMS}}, defineMS = {{.DefineMS}};
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  // a closed root: the page's own; no script outside it can read it
  class NovaBadge extends HTMLElement {
    constructor() { super(); this.attachShadow({mode: "closed"}).innerHTML = "<small>Nova 2.1, private build</small>"; }
  }
  customElements.define("nova-badge", NovaBadge);
  // one message: an open root nested in the chat's
  class NovaMessage extends HTMLElement {
    constructor() {
      super();
      this.root = this.attachShadow({mode: "open"});
      this.root.innerHTML = "<style>:host{display:block;margin:8px 0}.who{font-weight:bold;margin-right:6px}" +
        ".cursor{animation:blink 1s step-end infinite}@keyframes blink{50%{opacity:0}}figure img{width:120px;height:60px}" +
        ".code-head{display:flex;gap:8px;font-size:12px}</style><div class=\"bubble\"><span class=\"who\"></span><div class=\"body\"></div></div>";
    }
    connectedCallback() { this.root.querySelector(".who").textContent = this.getAttribute("data-who") === "user" ? "You" : "Nova"; }
    get body() { return this.root.querySelector(".body"); }
  }
  customElements.define("nova-message", NovaMessage);
  class NovaChat extends HTMLElement {
    constructor() {
      super();
      const r = this.attachShadow({mode: "open"});
      r.innerHTML = "<style>#log{height:70vh;overflow:auto;padding:12px}.bar{display:flex;gap:8px;padding:8px}" +
        "textarea{flex:1}[hidden]{display:none!important}</style>" +
        "<div id=\"log\" role=\"log\" aria-busy=\"false\"></div>" +
        "<div class=\"bar\"><textarea aria-label=\"Message\"></textarea>" +
        "<button id=\"send\" type=\"button\">Send</button><button id=\"stop\" type=\"button\" hidden>Stop</button></div>";
      this.log = r.getElementById("log");
      this.composer = r.querySelector("textarea");
      this.sendBtn = r.getElementById("send");
      this.stopBtn = r.getElementById("stop");
      this.seq = 0; this.streaming = false; this.stopped = false;
      const n = Number(this.getAttribute("history")) || 0;
      for (let i = 1; i <= n; i++) {
        const who = i % 2 === 1 ? "user" : "nova";
        this.message(who, "h" + i).appendChild(el("p", {}, who === "user" ? "Earlier question " + (i + 1) / 2 : "Earlier answer " + i / 2 + ", complete."));
      }
      this.sendBtn.addEventListener("click", () => this.submit());
      this.stopBtn.addEventListener("click", () => { this.stopped = true; });
      this.composer.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); this.submit(); }
      });
    }
    message(who, id) {
      const m = el("nova-message", {"data-who": who, "data-mid": id || "m" + (++this.seq)});
      this.log.appendChild(m);
      return m.body;
    }
    busy(on) {
      this.streaming = on;
      this.log.setAttribute("aria-busy", on ? "true" : "false");
      this.sendBtn.hidden = on;
      this.stopBtn.hidden = !on;
    }
    async submit() {
      const text = this.composer.value.trim();
      if (!text || this.streaming) return;
      this.composer.value = "";
      this.message("user").appendChild(el("p", {}, text));
      this.busy(true);
      this.stopped = false;
      const r = await (await fetch("/shadow/api/reply?q=" + encodeURIComponent(text))).json();
      await new Promise(res => setTimeout(res, 150));
      const c = this.message("nova");
      const p = el("p");
      const cursor = el("span", {"class": "cursor"}, "\u258D");
      c.appendChild(p);
      const words = r.text.split(" ");
      if (streamMS === 0) {
        p.textContent = r.text;
      } else {
        c.appendChild(cursor);
        const step = Math.max(20, Math.floor(streamMS / words.length));
        for (let i = 0; i < words.length && !this.stopped; i++) {
          p.textContent = words.slice(0, i + 1).join(" ");
          await new Promise(res => setTimeout(res, step));
        }
      }
      if (r.code && !this.stopped) {
        const block = el("div", {"class": "code"});
        const head = el("div", {"class": "code-head"});
        head.appendChild(el("span", {"class": "lang"}, r.lang));
        head.appendChild(el("button", {"type": "button", "class": "copy"}, "Copy"));
        const code = el("code", {"class": "language-" + r.lang});
        for (const [cls, t] of r.code) code.appendChild(cls ? el("span", {"class": cls}, t) : document.createTextNode(t));
        const pre = el("pre");
        pre.appendChild(code);
        block.appendChild(head);
        block.appendChild(pre);
        c.insertBefore(block, cursor.parentNode === c ? cursor : null);
      }
      if (r.picture) {
        const f = el("figure");
        const img = el("img", {"alt": "Chart"});
        f.appendChild(img);
        f.appendChild(el("figcaption", {}, "Figure 1: the figures above, as a chart"));
        c.appendChild(f);
        setTimeout(() => { img.src = "/img/chart.png"; }, imageMS);
      }
      cursor.remove();
      this.busy(false);
    }
  }
  // defined after load: the chat's root is attached to an element that is
  // in the page already
  setTimeout(() => customElements.define("nova-chat", NovaChat), defineMS);
})();
</script>
</body></html>
`))
