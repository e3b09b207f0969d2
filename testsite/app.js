// The test site's chat app (testsite/app.go): a single-page app that
// renders its thread from JSON fetched after the page loads and streams
// each answer token by token from the server, over fetch + ReadableStream
// (NDJSON), EventSource or WebSocket (?transport=fetch|sse|ws).
//
// ?lib=1 renders it as chat UI libraries do (the package doc, "Library
// style"): no data-status, an empty bubble until the first token, a
// renderer that paints each token cfg.paintMS late (after "done"), a Send
// button enabled cfg.sendLate ms after input (-1: never), an icon Stop
// button without a name, no stopped note, a Regenerate and a Copy on every
// answer, and failures as a toast outside the thread.
(() => {
  "use strict";
  const cfg = JSON.parse(document.getElementById("config").textContent);
  const thread = document.getElementById("thread");
  const composer = document.getElementById("composer");
  const send = document.getElementById("send");
  const picker = document.getElementById("model");
  picker.value = cfg.model;
  let seq = 0;        // ids of new turns: m1, m2, …
  let current = null; // the answer streaming now: {stop()}
  const lib = cfg.lib;
  let stopIcon = null; // lib: the icon Stop button while an answer streams
  let toast = null;    // lib: the failure toast
  const status = (t, s) => { if (!lib) t.dataset.status = s; };
  // lib: Send is enabled in a deferred update after the composer changes
  let enableTimer = 0;
  function sendState() {
    if (!lib) return;
    clearTimeout(enableTimer);
    const empty = composer.textContent.trim() === "" || current !== null;
    if (empty) { send.disabled = true; return; }
    if (cfg.sendLate < 0) return; // never
    enableTimer = setTimeout(() => { send.disabled = composer.textContent.trim() === "" || current !== null; }, cfg.sendLate);
  }
  if (lib) { send.disabled = true; composer.addEventListener("input", sendState); }

  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const badgeOf = (speaker) => speaker === "orion" ? "orion-mini" : "nova-pro";

  // A turn: <article class="turn" data-speaker data-msg data-status>.
  function turn(id, speaker, st) {
    const t = el("article", {"class": "turn", "data-speaker": speaker, "data-msg": id});
    status(t, st);
    t.appendChild(el("div", {"class": "body"}));
    return t;
  }
  function userTurn(id, text) {
    const t = turn(id, "human", "done");
    t.querySelector(".body").appendChild(el("p", {}, text));
    return t;
  }
  // The toolbar under a finished answer: the model badge, Copy, thumbs
  // and Regenerate (Retry on a failed answer lives in the error notice).
  function toolbar(t, badge, prompt, speaker) {
    const bar = el("div", {"class": "msg-actions"});
    bar.appendChild(el("span", {"class": "model-tag"}, badge));
    const copy = el("button", {"type": "button", "aria-label": "Copy"}, "\u29C9");
    copy.addEventListener("click", () => {
      copy.setAttribute("aria-label", "Copied");
      if (lib) bar.appendChild(el("span", {"class": "copied"}, "Copied " + t.dataset.msg));
    });
    bar.appendChild(copy);
    for (const [label, glyph] of [["Good response", "\uD83D\uDC4D"], ["Bad response", "\uD83D\uDC4E"]]) {
      const b = el("button", {"type": "button", "aria-label": label, "aria-pressed": "false"}, glyph);
      b.addEventListener("click", () => b.setAttribute("aria-pressed", "true"));
      bar.appendChild(b);
    }
    const regen = el("button", {"type": "button", "class": "regen"}, "Regenerate");
    regen.addEventListener("click", () => {
      if (current) return;
      const n = Number(t.dataset.regen || "0") + 1;
      answer(prompt, speaker, {replace: t, regen: n});
    });
    bar.appendChild(regen);
    t.appendChild(bar);
    lastOnlyRegen();
  }
  // Only the last answer offers Regenerate (as real chat apps do); a
  // library's every answer does.
  function lastOnlyRegen() {
    if (lib) return;
    const turns = thread.querySelectorAll("article.turn");
    const last = turns[turns.length - 1];
    for (const b of thread.querySelectorAll("button.regen")) {
      if (b.closest("article.turn") !== last) b.remove();
    }
  }
  function assistantTurn(id, speaker, text, badge, prompt) {
    const t = turn(id, speaker, "done");
    t.querySelector(".body").appendChild(el("p", {}, text));
    toolbar(t, badge, prompt, speaker);
    return t;
  }

  function busy(on) {
    if (lib) {
      if (on && !stopIcon) {
        // an icon button: no text, no label
        stopIcon = el("button", {"type": "button", "class": "stop-icon"});
        stopIcon.innerHTML = '<svg width="14" height="14" aria-hidden="true"><rect width="14" height="14"/></svg>';
        stopIcon.addEventListener("click", () => { if (current) current.stop(); });
        send.after(stopIcon);
      } else if (!on && stopIcon) {
        stopIcon.remove();
        stopIcon = null;
      }
      sendState();
      return;
    }
    send.textContent = on ? "Stop generating" : "Send";
    send.setAttribute("aria-label", on ? "Stop generating" : "Send");
  }
  function scroll() { thread.scrollTop = thread.scrollHeight; }

  // open starts an answer's stream and calls on(event) for each event;
  // it returns the function that stops it.
  function open(url, on, closed) {
    if (cfg.transport === "sse") {
      const es = new EventSource(url);
      es.onmessage = (m) => {
        const e = JSON.parse(m.data);
        on(e);
        if (e.type === "done" || e.type === "error") es.close();
      };
      es.onerror = () => { es.close(); closed(); };
      return () => es.close();
    }
    if (cfg.transport === "ws") {
      const ws = new WebSocket(url.replace(/^http/, "ws"));
      ws.onmessage = (m) => on(JSON.parse(m.data));
      ws.onclose = () => closed();
      return () => ws.close();
    }
    const ctl = new AbortController();
    (async () => {
      try {
        const r = await fetch(url, {signal: ctl.signal});
        const reader = r.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buf += dec.decode(value, {stream: true});
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) on(JSON.parse(line));
          }
        }
      } catch (e) {
        if (e.name !== "AbortError") console.error(e);
      }
      closed();
    })();
    return () => ctl.abort();
  }

  // answer streams the answer to prompt into a new turn, or in place of
  // opts.replace (Regenerate, Retry: the turn keeps its place, with a new id).
  function answer(prompt, speaker, opts) {
    opts = opts || {};
    seq++;
    // ?sameid=1: a regenerated (or retried) answer keeps the id of the one it replaces
    const t = turn(opts.replace && cfg.sameID ? opts.replace.dataset.msg : "m" + seq, speaker, "pending");
    if (opts.regen) t.dataset.regen = String(opts.regen);
    const body = t.querySelector(".body");
    if (!lib) t.appendChild(el("div", {"class": "thinking"}, "Thinking\u2026"));
    if (opts.replace) thread.replaceChild(t, opts.replace); else thread.appendChild(t);
    lastOnlyRegen();
    scroll();
    const p = el("p");
    let text = "", badge = badgeOf(speaker), ended = false;
    current = {stop: () => {}};
    busy(true);
    const url = "/app/api/" + ({fetch: "stream", sse: "sse", ws: "ws"})[cfg.transport] +
      "?q=" + encodeURIComponent(prompt) + "&model=" + speaker + "&stream=" + cfg.streamMS +
      "&regen=" + (opts.regen || 0) + "&attempt=" + (opts.attempt || 1);
    const finish = (st) => {
      if (ended) return;
      ended = true;
      current = null;
      const th = t.querySelector(".thinking");
      if (th) th.remove();
      status(t, st);
      body.classList.remove("streaming");
      busy(false);
    };
    const stop = open(url, (e) => {
      if (ended) return;
      switch (e.type) {
      case "start":
        badge = e.model;
        break;
      case "token": {
        const th = t.querySelector(".thinking");
        if (th) { th.remove(); body.appendChild(p); t.dataset.status = "streaming"; }
        if (lib && !p.parentNode) { body.appendChild(p); body.classList.add("streaming"); }
        text += e.text;
        if (lib) {
          // the renderer paints a token late, in its own update
          const now = text;
          setTimeout(() => { if (p.textContent.length < now.length) p.textContent = now; }, cfg.paintMS);
        } else {
          p.textContent = text;
        }
        scroll();
        break;
      }
      case "done":
        if (e.image) {
          const f = el("figure");
          const img = el("img", {"alt": "Chart"});
          f.appendChild(img);
          body.appendChild(f);
          setTimeout(() => { img.src = e.image; }, cfg.imageMS); // the picture loads late
        }
        finish("done");
        toolbar(t, badge, prompt, speaker);
        break;
      case "error": {
        const retry = (label) => {
          const b = el("button", {"type": "button"}, label);
          b.addEventListener("click", () => { if (!current) answer(prompt, speaker, {replace: t, attempt: (opts.attempt || 1) + 1}); });
          return b;
        };
        if (lib) {
          // a toast outside the thread; the answer keeps what it showed
          finish("error");
          toast = el("div", {"class": "toast error", "role": "status"}, e.message + " ");
          const b = el("button", {"type": "button", "class": "retry", "title": "Retry"}, "\u21BB");
          b.addEventListener("click", () => {
            if (current) return;
            if (toast) { toast.remove(); toast = null; }
            answer(prompt, speaker, {replace: t, attempt: (opts.attempt || 1) + 1});
          });
          toast.appendChild(b);
          document.body.appendChild(toast);
        } else if (e.kind === "limit") {
          finish("limit");
          body.appendChild(el("p", {"class": "limit"}, e.message));
          t.appendChild(retry("Try again"));
        } else {
          finish("error");
          const n = el("div", {"class": "error", "role": "alert"}, e.message + " ");
          n.appendChild(retry("Retry"));
          t.appendChild(n);
        }
        break;
      }
      }
    }, () => {
      if (!ended) { finish("stopped"); if (!lib) t.appendChild(el("div", {"class": "stop-note"}, "You stopped this response.")); toolbar(t, badge, prompt, speaker); }
    });
    current = {stop: () => {
      stop();
      if (!ended) { finish("stopped"); if (!lib) t.appendChild(el("div", {"class": "stop-note"}, "You stopped this response.")); toolbar(t, badge, prompt, speaker); }
    }};
  }

  function submit() {
    if (current) { if (!lib) current.stop(); return; }
    const text = composer.textContent.trim();
    if (!text) return;
    if (lib && send.disabled) return;
    if (toast) { toast.remove(); toast = null; }
    composer.textContent = "";
    seq++;
    thread.appendChild(userTurn("m" + seq, text));
    answer(text, picker.value);
  }
  send.addEventListener("click", submit);
  composer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); if (!current) submit(); }
  });

  // The thread arrives after the page: a skeleton until then; what was
  // sent meanwhile stays below the history.
  (async () => {
    if (cfg.signin) { // ?signin=1: the session's token lives in local storage
      const token = localStorage.getItem("nova_token");
      const acct = document.getElementById("account");
      if (!token) {
        thread.querySelector(".skeleton").replaceWith(el("p", {"class": "signin"}, "Your session has expired. Sign in to Nova Studio again."));
        return;
      }
      acct.textContent += ", token " + token;
    }
    const r = await fetch("/app/api/thread?history=" + cfg.history + "&load=" + cfg.load);
    const data = await r.json();
    const first = thread.querySelector("article.turn");
    let prompt = "";
    for (const x of data.turns) {
      const node = x.speaker === "human" ? userTurn(x.id, x.text) : assistantTurn(x.id, x.speaker, x.text, x.model, prompt);
      if (x.speaker === "human") prompt = x.text;
      thread.insertBefore(node, first);
    }
    const sk = thread.querySelector(".skeleton");
    if (sk) sk.remove();
    lastOnlyRegen();
    thread.setAttribute("aria-busy", "false");
    thread.dataset.ready = "true";
    if (cfg.autosend) setTimeout(() => { composer.textContent = cfg.autosend; submit(); }, 300);
  })();
})();
