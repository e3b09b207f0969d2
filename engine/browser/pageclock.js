// The page clock (see pageclock.go): fake timers on lab time, and the
// streams that reach the page (fetch bodies read as streams, XMLHttpRequest
// progress, EventSource, WebSocket and Worker messages) held and released
// one part per slot of lab time. Placeholders (__NAME__) are filled in by
// pageClockSource.
(() => {
  const W = window;
  if (W !== W.top) {
    // A frame keeps wall time: a stream it reads is named to the top
    // document's clock, whose next settle fails naming it.
    if (W.__replaylabFrame) return;
    W.__replaylabFrame = true;
    const report = (what) => {
      const m = what + " in the frame " + W.location.href;
      try { W.top.__replaylabClock.unpaced(m); return; } catch (e) { /* another origin */ }
      try { W.top.postMessage({__replaylabUnpaced: m}, "*"); } catch (e) { /* gone */ }
    };
    for (const k of ["WebSocket", "EventSource"]) {
      const C = W[k];
      if (C) W[k] = class extends C { constructor(...a) { super(...a); report(k + " " + this.url); } };
    }
    if (W.fetch && W.Response) {
      const f = W.fetch, got = new WeakSet(), d = Object.getOwnPropertyDescriptor(W.Response.prototype, "body");
      W.fetch = function (...a) { return f.apply(this, a).then((r) => { got.add(r); return r; }); };
      if (d && d.get) Object.defineProperty(W.Response.prototype, "body", {configurable: true, enumerable: d.enumerable, get() {
        if (got.has(this)) { got.delete(this); report("the body of fetch " + this.url); }
        return d.get.call(this);
      }});
    }
    return;
  }
  if (W.__replaylabClock) return;
  const RealDate = W.Date, realSetTimeout = W.setTimeout.bind(W), realNow = W.performance.now.bind(W.performance);
  const INTERVAL = __INTERVAL__, FIRST = __FIRST__, IDLE = __IDLE__, PART = __PART__;
  let now = __NOW__, seq = 0, ids = 0, flights = 0, slots = 0;
  const inflight = new Map(); // what is in flight, by a number of its own
  const origin = now, timers = new Map(), unpaced = new Set();
  const add = (fn, delay, args, every) => {
    const id = ++ids, d = Math.max(0, Number(delay) || 0);
    timers.set(id, {at: now + d, seq: ++seq, fn, args, every: every ? Math.max(1, d) : 0});
    return id;
  };
  const clear = (id) => { if (typeof id === "number") timers.delete(id); };
  W.setTimeout = function (fn, delay, ...args) { return add(fn, delay, args, false); };
  W.setInterval = function (fn, delay, ...args) { return add(fn, delay, args, true); };
  W.clearTimeout = clear; W.clearInterval = clear;
  W.requestAnimationFrame = function (fn) { return add(() => fn(now - origin), 16, [], false); };
  W.cancelAnimationFrame = clear;
  W.requestIdleCallback = function (fn) { return add(() => fn({didTimeout: false, timeRemaining: () => 50}), 1, [], false); };
  W.cancelIdleCallback = clear;
  function FakeDate(...a) {
    if (!new.target) return new RealDate(now).toString();
    return a.length ? new RealDate(...a) : new RealDate(now);
  }
  FakeDate.prototype = RealDate.prototype;
  FakeDate.now = () => now; FakeDate.parse = RealDate.parse; FakeDate.UTC = RealDate.UTC;
  W.Date = FakeDate;
  Object.defineProperty(W.performance, "now", {value: () => now - origin, configurable: true});
  const once = (what) => { const id = ++flights; inflight.set(id, what); return () => { inflight.delete(id); }; };
  const track = (p, what) => { const end = once(what); p.then(end, end); return p; };

  // Streams. A stream holds what arrived (q, parts in order, each a
  // function that hands one part to the page) and has at most one slot
  // in the timer queue: the lab instant its next part is released at.
  // A slot due with nothing held waits: a body ("body": a fetch body or
  // an XMLHttpRequest response) until its next part or its end arrives,
  // bounded only by the settle's wall time (and then named); a message
  // stream ("msgs": EventSource, WebSocket, Worker) for FIRST ms of wall
  // time after it opened or the page sent on it, IDLE ms after a message,
  // and then goes quiet (no slot) until something arrives again. A part
  // released at a slot makes the next slot INTERVAL ms of lab time later:
  // the schedule is in lab time only, whatever the wall time of arrival.
  const streams = new Set(), mine = new WeakSet(), quiet = new Map();
  const stream = (kind, name) => {
    const s = {kind, name, q: [], done: false, slot: null, window: FIRST, parts: 0};
    streams.add(s);
    return s;
  };
  const arm = (s, at) => {
    if (s.done || s.slot) return;
    s.slot = "s" + (++slots);
    timers.set(s.slot, {at, seq: ++seq, s});
  };
  const hold = (s, fn, end) => {
    if (s.done) return;
    if (s.quietAt) {
      const late = Math.round(realNow() - s.quietAt);
      quiet.set(s, s.kind === "response" ? s.name + ": its response came " + late + " ms of wall time after it went quiet; the lab had moved on" : s.name + ": a message came " + late + " ms of wall time after it went quiet (after " + s.parts + " message(s)); the lab had moved on");
      s.quietAt = 0;
    }
    s.q.push({fn, end: !!end});
    arm(s, now + INTERVAL);
  };
  const finish = (s) => {
    s.done = true; s.q.length = 0;
    quiet.delete(s);
    if (s.slot) { timers.delete(s.slot); s.slot = null; }
    streams.delete(s);
  };
  const expect = (s) => { if (s.done) return; s.window = FIRST; arm(s, now + INTERVAL); };
  W.addEventListener("message", (e) => {
    if (e.data && typeof e.data === "object" && typeof e.data.__replaylabUnpaced === "string") {
      e.stopImmediatePropagation();
      unpaced.add(e.data.__replaylabUnpaced);
    }
  }, true);

  // fetch: a response's body read as a stream is paced; json(), text()
  // and the like are counted in flight until they resolve.
  const fetched = new WeakMap(), pacedBody = new WeakMap(), NL = 10;
  if (W.fetch) {
    const f = W.fetch;
    W.fetch = function (input, init) {
      const method = ((init && init.method) || (input && input.method) || "GET").toUpperCase();
      let url = "";
      try { url = new URL(typeof input === "string" ? input : (input && input.url) || String(input), W.location.href).href; } catch (e) { url = String(input); }
      const signal = (init && init.signal) || (input && input.signal) || null;
      const name = "fetch " + method + " " + url;
      if (signal && signal.aborted) return f.apply(this, arguments);
      // The response is a stream of one part: it reaches the page at its
      // slot, INTERVAL of lab time after the request (later if it has not
      // arrived by then), so a page's loading state lasts a fixed stretch
      // of lab time whatever the server's wall latency.
      const s = stream("response", name);
      const real = f.apply(this, arguments);
      expect(s);
      return new Promise((resolve, reject) => {
        if (signal) signal.addEventListener("abort", () => { // the page's own abort is not held
          if (s.done) return;
          finish(s);
          reject(signal.reason !== undefined ? signal.reason : new DOMException("The user aborted a request.", "AbortError"));
        });
        real.then((r) => {
          fetched.set(r, {name: "fetch " + method + " " + r.url, signal, sse: /^\s*text\/event-stream/i.test(r.headers.get("content-type") || "")});
          hold(s, () => resolve(r), true);
        }, (e) => { hold(s, () => reject(e), true); });
      });
    };
  }
  if (W.Response) {
    for (const m of ["json", "text", "arrayBuffer", "blob", "formData", "bytes"]) {
      const f = W.Response.prototype[m];
      if (f) W.Response.prototype[m] = function (...a) { return track(f.apply(this, a), "the body of " + this.url + " (" + m + "())"); };
    }
    const d = Object.getOwnPropertyDescriptor(W.Response.prototype, "body");
    if (d && d.get) Object.defineProperty(W.Response.prototype, "body", {configurable: true, enumerable: d.enumerable, get() {
      const info = fetched.get(this);
      const real = d.get.call(this);
      if (!info || !real) return real;
      let rs = pacedBody.get(this);
      if (!rs) { rs = paceBody(real, info); pacedBody.set(this, rs); }
      return rs;
    }});
  }
  // cutter splits bytes after each newline, or for an SSE body
  // (text/event-stream) after each event (at its blank line), and every
  // PART bytes without one: the parts of a body are fixed by its bytes,
  // not by how the network cut them, and a page that parses each read as
  // whole events never sees half of one.
  const CR = 13;
  const cutter = (sse) => {
    let pend = new Uint8Array(0);
    const ends = (b, i, j) => !sse || j === i || b[j - 1] === NL || (b[j - 1] === CR && j - 2 >= i && b[j - 2] === NL);
    return {
      push(v) {
        const b = new Uint8Array(pend.length + v.length);
        b.set(pend); b.set(v, pend.length);
        const out = [];
        let i = 0;
        for (let j = 0; j < b.length; j++) {
          if ((b[j] === NL && ends(b, i, j)) || j + 1 - i >= PART) { out.push(b.slice(i, j + 1)); i = j + 1; }
        }
        pend = b.slice(i);
        return out;
      },
      rest() { const r = pend; pend = new Uint8Array(0); return r.length ? r : null; },
    };
  };
  const paceBody = (real, info) => {
    let ctl, reader = null, s = null;
    const abort = () => {
      if (!s || s.done) return;
      finish(s);
      const why = info.signal && info.signal.reason !== undefined ? info.signal.reason : new DOMException("The user aborted a request.", "AbortError");
      try { ctl.error(why); } catch (e) { /* closed */ }
    };
    const pump = async () => {
      s = stream("body", info.name);
      if (info.signal) { if (info.signal.aborted) { abort(); return; } info.signal.addEventListener("abort", abort); }
      expect(s);
      const cut = cutter(info.sse);
      // The last part that arrived is held back (s.look) until the next
      // one or the end does: the end reaches the page with the last part,
      // in the same slot, never a slot later when the page may have sent
      // again and would take the end for the new request's.
      const put = (part) => { const p = s.look; s.look = part; if (p) hold(s, () => ctl.enqueue(p)); };
      const last = (fn) => { const p = s.look; s.look = null; hold(s, () => { if (p) ctl.enqueue(p); fn(); }, true); };
      try {
        reader = real.getReader();
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          for (const part of cut.push(value)) put(part);
        }
        const r = cut.rest();
        if (r) put(r);
        last(() => ctl.close());
      } catch (e) {
        if (s.done) return;
        last(() => ctl.error(e));
      }
    };
    return new ReadableStream({
      start(c) { ctl = c; },
      pull() { if (!s) pump(); },
      cancel(why) { if (s) finish(s); return reader ? reader.cancel(why) : real.cancel(why); },
    }, {highWaterMark: 0});
  };

  // XMLHttpRequest: a text response whose progress the page listens to
  // (progress or readystatechange) is paced a line at a time: the page
  // sees readyState, responseText and the events of what was released.
  // Any other request is counted in flight until it ends.
  const X = W.XMLHttpRequest;
  if (X) {
    const get = (p) => Object.getOwnPropertyDescriptor(X.prototype, p).get;
    const rsGet = get("readyState"), rtGet = get("responseText"), rGet = get("response"), typeGet = get("responseType");
    const xs = new WeakMap();
    const open = X.prototype.open, send = X.prototype.send, abort = X.prototype.abort, ael = EventTarget.prototype.addEventListener;
    W.XMLHttpRequest = class XMLHttpRequest extends X {
      constructor(...a) {
        super(...a);
        const x = this, st = {s: null, listens: false, shown: null, text: "", seen: 0, pend: "", ends: null, end: null, name: "XMLHttpRequest"};
        xs.set(x, st);
        const show = () => st.shown !== null;
        Object.defineProperty(x, "readyState", {configurable: true, get: () => (show() ? st.shown : rsGet.call(x))});
        Object.defineProperty(x, "responseText", {configurable: true, get: () => (show() ? st.text : rtGet.call(x))});
        Object.defineProperty(x, "response", {configurable: true, get: () => (show() ? st.text : rGet.call(x))});
        const fire = (type, e) => {
          const ev = type === "readystatechange" ? new Event(type) : new ProgressEvent(type, {lengthComputable: !!(e && e.lengthComputable), loaded: st.text.length, total: e ? e.total : 0});
          mine.add(ev);
          x.dispatchEvent(ev);
        };
        const take = (last) => {
          const all = rtGet.call(x);
          st.pend += all.slice(st.seen);
          st.seen = all.length;
          // a line at a time, or an event (up to its blank line) of an
          // SSE response
          const cut = () => {
            if (!st.sse) { const i = st.pend.indexOf("\n"); return i >= 0 ? i + 1 : -1; }
            const m = /\r?\n\r?\n/.exec(st.pend);
            return m ? m.index + m[0].length : -1;
          };
          let i;
          while ((i = cut()) >= 0 || st.pend.length >= PART || (last && st.pend.length)) {
            const n = i >= 0 ? i : Math.min(PART, st.pend.length);
            const part = st.pend.slice(0, n);
            st.pend = st.pend.slice(n);
            hold(st.s, () => { st.text += part; st.shown = 3; fire("readystatechange"); fire("progress", st.last); });
          }
        };
        const on = (e) => {
          if (mine.has(e) || st.s === false) return;
          const rs = rsGet.call(x);
          if (!st.s) {
            const t = typeGet.call(x);
            if (rs < 3 || !(st.listens || x.onprogress || x.onreadystatechange) || (t !== "" && t !== "text")) return;
            st.s = stream("body", st.name);
            st.sse = /^\s*text\/event-stream/i.test(x.getResponseHeader("content-type") || "");
            st.shown = 2;
            if (st.end) st.end();
          }
          e.stopImmediatePropagation();
          if (st.ends) { st.ends.push(e.type); return; } // after the response ended, in order
          if (e.type === "progress") st.last = e;
          if (rs === 4) {
            take(true);
            st.ends = [];
            const ends = st.ends;
            hold(st.s, () => { st.shown = null; fire("readystatechange"); for (const type of ends) if (type !== "readystatechange") fire(type, st.last); }, true);
            return;
          }
          take(false);
        };
        for (const type of ["readystatechange", "progress", "load", "error", "timeout", "loadend"]) ael.call(x, type, on, true);
      }
      addEventListener(type, ...a) {
        const st = xs.get(this);
        if (st && (type === "progress" || type === "readystatechange")) st.listens = true;
        return super.addEventListener(type, ...a);
      }
      open(method, url, ...a) {
        const st = xs.get(this);
        if (st) Object.assign(st, {s: null, shown: null, text: "", seen: 0, pend: "", ends: null, last: null, name: "XMLHttpRequest " + String(method).toUpperCase() + " " + new URL(String(url), W.location.href).href});
        return open.call(this, method, url, ...a);
      }
      send(...a) {
        const st = xs.get(this);
        const end = once(st ? st.name : "XMLHttpRequest");
        if (st) st.end = end;
        ael.call(this, "loadend", end);
        try { return send.apply(this, a); } catch (e) { end(); throw e; }
      }
      abort() {
        const st = xs.get(this);
        // the page's own abort is not paced: its events come at once
        if (st) { if (st.s) finish(st.s); st.s = false; st.shown = null; }
        return abort.call(this);
      }
    };
  }

  // Message streams: every message (and the end: a WebSocket's close, an
  // EventSource's fatal error) is held and released at the stream's slot.
  const cloneEvent = (e) => {
    if (e instanceof MessageEvent) return new MessageEvent(e.type, {data: e.data, origin: e.origin, lastEventId: e.lastEventId, ports: Array.from(e.ports || [])});
    if (W.CloseEvent && e instanceof W.CloseEvent) return new W.CloseEvent(e.type, {code: e.code, reason: e.reason, wasClean: e.wasClean});
    return new Event(e.type);
  };
  const msgs = new WeakMap();
  const paceMessages = (tgt, name, isEnd) => {
    const s = stream("msgs", name), types = new Set();
    const intercept = (type) => {
      if (types.has(type)) return;
      types.add(type);
      EventTarget.prototype.addEventListener.call(tgt, type, (e) => {
        if (mine.has(e) || s.done) return;
        e.stopImmediatePropagation();
        const c = cloneEvent(e), end = isEnd(e);
        mine.add(c);
        hold(s, () => { s.window = IDLE; s.parts++; tgt.dispatchEvent(c); }, end);
      }, true);
    };
    msgs.set(tgt, {s, intercept});
    expect(s);
    return {s, intercept};
  };
  const connecting = (tgt) => {
    const end = once(tgt.constructor.name + " " + tgt.url + " (connecting)");
    for (const type of ["open", "error", "close"]) EventTarget.prototype.addEventListener.call(tgt, type, end, true);
  };
  if (W.WebSocket) {
    const C = W.WebSocket;
    W.WebSocket = class WebSocket extends C {
      constructor(...a) {
        super(...a);
        connecting(this);
        const m = paceMessages(this, "WebSocket " + this.url, (e) => e.type === "close");
        for (const type of ["message", "error", "close"]) m.intercept(type);
      }
      send(...a) { const r = super.send(...a); const m = msgs.get(this); if (m) expect(m.s); return r; }
      close(...a) {
        const m = msgs.get(this);
        // messages that arrive after close() never reach the page; the
        // close event still comes, in its slot
        if (m) { m.s.q = m.s.q.filter((u) => u.end); expect(m.s); }
        return super.close(...a);
      }
    };
  }
  if (W.EventSource) {
    const C = W.EventSource, esState = Object.getOwnPropertyDescriptor(C.prototype, "readyState").get;
    W.EventSource = class EventSource extends C {
      constructor(...a) {
        super(...a);
        connecting(this);
        const m = paceMessages(this, "EventSource " + this.url, (e) => e.type === "error" && esState.call(this) === 2);
        m.intercept("message"); m.intercept("error");
      }
      addEventListener(type, ...a) { const m = msgs.get(this); if (m && type !== "open") m.intercept(type); return super.addEventListener(type, ...a); }
      close() { const m = msgs.get(this); if (m) finish(m.s); return super.close(); }
    };
  }
  if (W.Worker) {
    const C = W.Worker;
    W.Worker = class Worker extends C {
      constructor(url, ...a) {
        super(url, ...a);
        const m = paceMessages(this, "Worker " + new URL(String(url), W.location.href).href, () => false);
        m.intercept("message"); m.intercept("messageerror");
      }
      postMessage(...a) { const r = super.postMessage(...a); const m = msgs.get(this); if (m) expect(m.s); return r; }
      terminate() { const m = msgs.get(this); if (m) finish(m.s); return super.terminate(); }
    };
  }

  const before = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
  const due = (t) => {
    let best = null;
    for (const [id, x] of timers) if (x.at <= t && (!best || before(x, best[1]))) best = [id, x];
    return best;
  };
  const next = () => { let m = -1; for (const x of timers.values()) if (m < 0 || x.at < m) m = x.at; return m; };
  // loading counts the images still loading, in open shadow roots too
  const loadingIn = (r) => {
    let k = 0;
    for (const i of r.querySelectorAll("img")) if (i.getAttribute("src") && !i.complete && i.loading !== "lazy") k++;
    for (const el of r.querySelectorAll("*")) if (el.shadowRoot) k += loadingIn(el.shadowRoot);
    return k;
  };
  const loading = () => {
    const sh = W.__replaylabShadow;
    if (!sh || !sh.any()) return Array.from(document.images).filter(i => i.getAttribute("src") && !i.complete && i.loading !== "lazy").length;
    return loadingIn(document);
  };
  const tick = () => new Promise(r => realSetTimeout(r, 5));
  const held = (s) => s.name + " (" + (s.kind === "body" ? (s.look ? "part " + (s.parts + 2) + " of its body or its end not arrived; part " + (s.parts + 1) + " is held until then" : "part " + (s.parts + 1) + " of its body not arrived") : s.kind === "response" ? "no response for " + Math.round(realNow() - s.since) + " ms" : "no message for " + Math.round(realNow() - s.since) + " ms") + ")";
  W.__replaylabClock = {
    now: () => now,
    unpaced: (m) => { unpaced.add(String(m)); },
    advance: async (t, wallMS, budget) => {
      const stop = realNow() + wallMS;
      let ran = 0;
      for (;;) {
        let blocked = null;
        for (let b = due(t); b; b = due(t)) {
          const [id, x] = b;
          if (ran >= budget) return {next: next(), ran, quiet: false, waiting: "more than " + budget + " timers due at one instant"};
          if (x.s) {
            const s = x.s;
            if (!s.q.length) {
              if (s.kind !== "body") {
                if (!x.since) x.since = realNow();
                s.since = x.since;
                if (realNow() - x.since > s.window) { // quiet until it delivers again
                  timers.delete(id); s.slot = null; s.quietAt = realNow();
                  if (!quiet.has(s)) quiet.set(s, s.kind === "response" ? s.name + " went quiet: no response for " + s.window + " ms of wall time" : s.name + " went quiet after " + s.parts + " message(s): none for " + s.window + " ms of wall time");
                  continue;
                }
              } else {
                if (!s.since) s.since = realNow();
              }
              blocked = s;
              if (x.at > now) now = x.at;
              break;
            }
            if (x.at > now) now = x.at;
            timers.delete(id); s.slot = null;
            const u = s.q.shift();
            if (s.kind === "body") { s.parts++; s.since = 0; }
            ran++;
            if (u.end) finish(s); else arm(s, x.at + INTERVAL);
            try { u.fn(); } catch (e) { console.error(e); }
            continue;
          }
          if (x.at > now) now = x.at;
          if (x.every) { x.at += x.every; x.seq = ++seq; } else timers.delete(id);
          ran++;
          try { if (typeof x.fn === "function") x.fn.apply(W, x.args); else (0, eval)(String(x.fn)); } catch (e) { console.error(e); }
        }
        if (!blocked && t > now) now = t;
        await tick();
        const busy = inflight.size, imgs = loading();
        if (unpaced.size) return {next: next(), ran, quiet: false, unpaced: Array.from(unpaced)};
        if (busy === 0 && imgs === 0 && !blocked && !due(t)) return {next: next(), ran, quiet: true, notes: Array.from(quiet.values())};
        if (realNow() > stop) {
          const w = [busy + " request(s) in flight" + (busy ? " (" + Array.from(inflight.values()).join(", ") + ")" : ""), imgs + " image(s) loading"];
          if (blocked) w.push("waiting for " + held(blocked));
          return {next: next(), ran, quiet: false, waiting: w.join(", ")};
        }
      }
    },
  };
})();
