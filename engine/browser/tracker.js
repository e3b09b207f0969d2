// The incremental capture's tracker (see livetree.go). It runs in the
// isolated world only, next to the change observer, and mirrors the
// capture tree of livetree.go: every element, text node and doctype gets an
// id in the order of a full capture; mutation records say which child lists,
// attributes and texts changed; a state pass over every element compares
// the live state a capture writes (computed hidden, values, checked,
// selected, media readiness) with what the kept capture holds.
(() => {
  const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
  const NOKIDS = new Set(["script", "style", "iframe"]);
  const NOBOX = new Set(["html", "head", "meta", "title", "link", "script", "style", "base", "option", "optgroup", "datalist", "source", "track", "template", "noscript", "param", "area", "map", "col", "colgroup"]);
  const DEF = "||||";
  // Ids numbers nodes: a node's id is a property of its wrapper in this
  // world (the page's world does not see it; a wrapper with a property of
  // its own lives as long as its node), cheaper than a WeakMap on a page
  // of 100,000 nodes. Every numbering has its generation, kept in the
  // value beside the id (gen * 2^32 + id), so a new numbering forgets
  // the last one's ids without touching a node and a node keeps one
  // property whatever the count of numberings.
  const IDK = Symbol("replaylab id");
  let idGens = 0;
  class Ids {
    // k: the property; a numbering that lives beside the tracker's own
    // (full's) has one of its own
    constructor(k = IDK) { this.k = k; this.g = ++idGens * 4294967296; }
    get(n) {
      const v = n[this.k];
      return v !== undefined && v >= this.g && v < this.g + 4294967296 ? v - this.g : undefined;
    }
    has(n) { return this.get(n) !== undefined; }
    set(n, v) { n[this.k] = this.g + v; }
  }
  const S = {
    active: false, over: false, ids: new Ids(), cache: new WeakMap(), next: 1,
    parents: new Set(), attrs: new Set(), texts: new Set(), added: new Set(),
    byId: null, roots: [], fresh: new Set(), seq: 0,
    // watch: the numbered form and media elements, whose live state can
    // change without a DOM mutation (script-set values, checked, selected,
    // media loading); every state pass checks them
    watch: new Set(),
  };
  const WATCH = new Set(["input", "textarea", "option", "video", "audio", "img"]);
  let observe = () => {}; // starts the mutation observer (set below)
  const absorb = (recs) => {
    for (const r of recs) if (r.type === "childList") S.seq++;
    if (!S.active) return;
    for (const r of recs) {
      if (r.type === "childList") {
        S.parents.add(r.target);
        for (const n of r.addedNodes) S.added.add(n);
      } else if (r.type === "attributes") S.attrs.add(r.target);
      else S.texts.add(r.target);
    }
    if (S.parents.size + S.attrs.size + S.texts.size + S.added.size > 200000) {
      S.over = true;
      S.parents.clear(); S.attrs.clear(); S.texts.clear(); S.added.clear();
    }
  };
  const clearRecs = () => { S.parents = new Set(); S.attrs = new Set(); S.texts = new Set(); S.added = new Set(); };
  // tagOf is el.nodeName.toLowerCase(), one lowercasing per distinct name
  const TAGS = new Map();
  const tagOf = (el) => {
    const n = el.nodeName;
    let t = TAGS.get(n);
    if (t === undefined) { t = n.toLowerCase(); TAGS.set(n, t); }
    return t;
  };
  const modelKind = (k) => k === 1 || k === 3 || k === 10;
  const noKids = (t) => VOID.has(t) || NOKIDS.has(t);
  // textBox: a text node under a display:contents element has a box when
  // the nearest ancestor that is not display:contents has one.
  const textBox = (t) => {
    let p = t.parentElement;
    while (p && getComputedStyle(p).display === "contents") p = p.parentElement;
    if (!p || !p.checkVisibility()) return false;
    if (/\S/.test(t.data)) return true;
    // whether whitespace gets a layout box depends on what surrounds it
    // (Chromium's whitespace rules): the tracker cannot tell, so the
    // capture is taken in full
    S.doubt = true;
    return false;
  };
  const boxBelow = (el) => {
    if (el.checkVisibility()) return true;
    if (getComputedStyle(el).display !== "contents") return false;
    for (const p of ["::before", "::after"]) {
      const c = getComputedStyle(el, p).content;
      if (c && c !== "none" && c !== "normal") return true;
    }
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 ? boxBelow(c) : c.nodeType === 3 && textBox(c)) return true;
    }
    return false;
  };
  // skipped: checkVisibility said no box, but neither the element nor an
  // ancestor is display:none, so it may have a layout box that
  // checkVisibility does not count (content-visibility:hidden, a closed
  // <details>, hidden=until-found, fallback content of replaced elements):
  // only a captureSnapshot capture can tell.
  const skipped = (el) => {
    for (let a = el; a && a.nodeType === 1; a = a.parentNode) if (getComputedStyle(a).display === "none") return false;
    return true;
  };
  const VIS = { visibilityProperty: true };
  // hiddenOf: nb says an ancestor is display:none, so the element has no
  // box either (as in a captureSnapshot capture: no layout node below a
  // display:none element); none says the element itself is display:none
  // (ser passes it down as its children's nb).
  let none = false;
  const hiddenOf = (el, t, ib, is, nb) => {
    none = false;
    if (!ib || is || NOBOX.has(t)) return "";
    if (nb) { none = true; return "display"; }
    // one call for a shown element (most are); a second tells a box that
    // is visibility:hidden from no box
    if (el.checkVisibility(VIS)) return "";
    if (el.checkVisibility()) return "visibility";
    if (getComputedStyle(el).display === "none") { none = true; return "display"; }
    if (boxBelow(el)) return "";
    if (getComputedStyle(el).display !== "contents" && skipped(el)) S.skipped = true;
    return "display";
  };
  const mediaOf = (el, t) => {
    if (t !== "video" && t !== "audio" && t !== "img") return null;
    if (!(el instanceof HTMLMediaElement || el instanceof HTMLImageElement)) return null;
    const img = el instanceof HTMLImageElement;
    return [
      img ? (el.complete ? (el.naturalWidth > 0 ? "complete" : "broken") : "loading") : String(el.readyState),
      el.currentSrc || el.src || "",
      img ? el.naturalWidth : (el.videoWidth || 0),
      img ? el.naturalHeight : (el.videoHeight || 0),
    ];
  };
  // state: [hidden, value|null, checked, selected, media|null]
  // (only an element whose local name is in LIVE can be an input,
  // textarea, option, media or image element; a shown one of the others
  // gets PLAIN, which nothing writes to)
  const LIVE = new Set(["input", "textarea", "option", "video", "audio", "img"]);
  const PLAIN = Object.freeze(["", null, false, false, null]);
  const stateOf = (el, t, ib, is, nb) => {
    const h = hiddenOf(el, t, ib, is, nb);
    if (!LIVE.has(el.localName)) return h === "" ? PLAIN : [h, null, false, false, null];
    const v = (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) ? el.value : null;
    const c = el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio") && el.checked;
    const s = el instanceof HTMLOptionElement && el.selected;
    return [h, v, c, s, mediaOf(el, t)];
  };
  const keyOf = (st) => st[0] + "|" + (st[1] === null ? "" : "v" + st[1]) + "|" + (st[2] ? "1" : "") + "|" + (st[3] ? "1" : "") + "|" +
    (st[4] ? st[4][0] + "\u0002" + st[4][1] + "\u0002" + st[4][2] + "x" + st[4][3] : "");
  // attrsOf lists an element's attributes as [name, value, …] in order.
  // getAttributeNames and getAttribute make no Attr objects (many times
  // faster on a large page); an element where they could disagree with the
  // attribute list (two attributes of one qualified name, a name
  // getAttribute lowercases) is read from its attribute list.
  const attrsOf = (el) => {
    const out = [];
    if (!el.hasAttributes()) return out;
    const names = el.getAttributeNames();
    if (names.length > 1 && new Set(names).size !== names.length) {
      for (const a of el.attributes) out.push(a.name, a.value);
      return out;
    }
    for (const a of names) {
      const v = el.getAttribute(a);
      if (v === null) {
        out.length = 0;
        for (const x of el.attributes) out.push(x.name, x.value);
        return out;
      }
      out.push(a, v);
    }
    return out;
  };
  // A whole-document serialisation (capture, full) is about a third
  // smaller with its repeated strings written once: while one runs, tab
  // numbers the strings of tag, attribute and text positions in the order
  // they are first written, and ix writes a string seen before as its
  // number (own.go jsonReader.sref reads it back); an id is written as the
  // difference from the one the node before it would be followed by (ids
  // are mostly consecutive in capture order: mostly 0).
  let tab = null, prev = 0;
  const ix = (v) => {
    const k = tab.get(v);
    if (k !== undefined) return k;
    tab.set(v, tab.size);
    return v;
  };
  const whole = (f) => {
    tab = new Map(); prev = 0;
    try { return f(); } finally { tab = null; }
  };
  // serDocument serialises the whole document, in capture order: its
  // top-level nodes as ser writes them, strings and ids as whole says.
  const serDocument = () => whole(() => {
    const kids = [];
    for (let c = document.firstChild; c; c = c.nextSibling) if (modelKind(c.nodeType)) kids.push(ser(c, false, false));
    return kids;
  });
  // setKey records the live state the kept capture holds for el (the
  // default is not stored).
  const setKey = (el, k) => { if (k === DEF) S.cache.delete(el); else S.cache.set(el, k); };
  // ser serialises a node the capture tree does not hold yet: [3, id,
  // text], [10, id], or [1, id, tag, attrs, kids] for an element in the
  // default state (most are; keyOf's DEF) and [1, id, tag, attrs, hidden,
  // value, checked, selected, media, kids] for the others (ids and
  // strings as whole says, in a whole-document serialisation).
  // A node keeps its id while it is in the document, also when it moves
  // (a moved node is serialised again under its old id), as a backend
  // node id does.
  const ser = (n, ib, is, nb) => {
    let id = S.ids.get(n);
    if (!id) { id = S.next++; S.ids.set(n, id); }
    let wid = id;
    if (tab !== null) { wid = id - prev - 1; prev = id; }
    if (n.nodeType === 3) return [3, wid, tab === null ? n.data : ix(n.data)];
    if (n.nodeType === 10) return [10, wid];
    const t = tagOf(n), b = ib || t === "body";
    // shadow DOM is only in a captureSnapshot capture; so may be a closed
    // shadow root of a custom element that was defined (upgraded)
    if (n.shadowRoot) S.shadow = true;
    else if (S.own && t.includes("-") && n.matches(":defined")) S.custom = true;
    if (WATCH.has(t)) S.watch.add(n);
    const st = stateOf(n, t, b, is, nb), below = nb || none;
    const plain = st === PLAIN || (st[0] === "" && st[1] === null && !st[2] && !st[3] && st[4] === null);
    if (plain) S.cache.delete(n); else setKey(n, keyOf(st));
    // (interned in the order the JSON has them: tag, attributes, kids)
    const wt = tab === null ? t : ix(t);
    const attrs = attrsOf(n);
    if (tab !== null) for (let i = 0; i < attrs.length; i++) attrs[i] = ix(attrs[i]);
    const kids = [];
    if (!noKids(t)) {
      const sel = is || t === "select" || t === "datalist";
      for (let c = n.firstChild; c; c = c.nextSibling) if (modelKind(c.nodeType)) kids.push(ser(c, b, sel, below));
    }
    return plain ? [1, wid, wt, attrs, kids] : [1, wid, wt, attrs, st[0], st[1], st[2], st[3], st[4], kids];
  };
  // ctx: is n in the capture tree, and in which context (inside a body
  // element, inside a select)?
  const ctx = (n) => {
    let ib = false, is = false;
    for (let a = n, first = true; a; a = a.parentNode, first = false) {
      if (a === document) return { ok: true, ib, is };
      if (a.nodeType !== 1) return { ok: false };
      const t = tagOf(a);
      if (!first && noKids(t)) return { ok: false };
      if (t === "body") ib = true;
      if (t === "select" || t === "datalist") is = true;
    }
    return { ok: false };
  };
  const inFresh = (n) => {
    for (let a = n; a; a = a.parentNode) if (S.fresh.has(a)) return true;
    return false;
  };
  // walk visits every element of the capture tree with its context.
  const walk = (n, ib, is, fn) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType !== 1) continue;
      const t = tagOf(c), b = ib || t === "body";
      if (fn(c, t, b, is) === false) return false;
      if (!noKids(t) && walk(c, b, is || t === "select" || t === "datalist", fn) === false) return false;
    }
    return true;
  };
  // isAbove: is el inside a select or datalist (not counting itself)?
  const isAbove = (el) => {
    for (let a = el.parentNode; a && a.nodeType === 1; a = a.parentNode) {
      const t = tagOf(a);
      if (t === "select" || t === "datalist") return true;
    }
    return false;
  };
  // Pseudo-classes whose matching the scoped state pass can follow: those
  // that depend on the element, its attributes and its ancestors (a
  // change inside the subtree of a changed element), on its siblings
  // (SIBLING: the changed element's siblings are checked too), or on user
  // input the tracker hears about (events, values, the focused element:
  // then everything is checked). Any other (:has, :defined, :state,
  // :popover-open, validity, media states, …), a @container or @scope
  // rule, or a stylesheet the tracker cannot read makes every state pass
  // check the whole document.
  const SAFE = new Set(["hover", "active", "focus", "focus-within", "focus-visible", "checked", "placeholder-shown", "required", "optional",
    "read-only", "read-write", "disabled", "enabled", "link", "any-link", "visited", "target", "root", "scope", "not", "is", "where", "lang",
    "first-child", "last-child", "only-child", "nth-child", "nth-last-child", "first-of-type", "last-of-type", "only-of-type", "nth-of-type",
    "nth-last-of-type", "empty", "-webkit-any-link", "before", "after", "first-line", "first-letter"]);
  const SIBLING = /[+~]|:(first-child|last-child|only-child|nth-child|nth-last-child|first-of-type|last-of-type|only-of-type|nth-of-type|nth-last-of-type|empty)/;
  const sheetsKey = () => {
    const parts = [];
    let risky = false, sibling = false;
    const rules = (list) => {
      for (const r of list) {
        if (r instanceof CSSImportRule) {
          parts.push("@import " + r.href);
          if (r.styleSheet) sheet(r.styleSheet);
          continue;
        }
        if (r instanceof CSSContainerRule || (typeof CSSScopeRule !== "undefined" && r instanceof CSSScopeRule)) risky = true;
        if (r instanceof CSSStyleRule) {
          const sel = r.selectorText;
          for (const m of sel.matchAll(/(?<![:\\]):([-a-zA-Z]+)/g)) if (!SAFE.has(m[1].toLowerCase())) risky = true;
          if (SIBLING.test(sel)) sibling = true;
          parts.push(r.cssText);
        } else if (!(r.cssRules)) parts.push(r.cssText);
        if (r.cssRules) { parts.push("{" + (r.conditionText || r.name || "") + "{"); rules(r.cssRules); parts.push("}}"); }
      }
    };
    const sheet = (sh) => {
      parts.push("sheet " + (sh.disabled ? "off " : "") + (sh.media ? sh.media.mediaText : "") + " " + (sh.href || ""));
      let list;
      try { list = sh.cssRules; } catch (e) { risky = true; return; }
      if (list) rules(list); else risky = true;
    };
    for (const sh of document.styleSheets) sheet(sh);
    for (const sh of document.adoptedStyleSheets || []) sheet(sh);
    return { key: parts.join("\n"), risky, sibling };
  };
  // animating: an animation or transition that can change display or
  // visibility is running.
  const animating = () => {
    for (const a of document.getAnimations()) {
      if (typeof CSSTransition !== "undefined" && a instanceof CSSTransition) {
        if (["display", "visibility", "all", "content-visibility"].includes(a.transitionProperty)) return true;
        continue;
      }
      try {
        for (const k of a.effect.getKeyframes()) if ("display" in k || "visibility" in k || "contentVisibility" in k) return true;
      } catch (e) { return true; }
    }
    return false;
  };
  const styleScope = () => {
    const k = sheetsKey();
    const changed = k.key !== S.sheets;
    S.sheets = k.key; S.risky = k.risky; S.sibling = k.sibling;
    const focus = document.activeElement;
    const moved = focus !== S.focus;
    S.focus = focus;
    if (changed) return "sheets";
    if (k.risky) return "risky";
    if (S.global) return "events";
    if (moved) return "focus";
    if (animating()) return "animating";
    return "scoped";
  };
  const FRAMES = "iframe,frame,object,embed,fencedframe,portal";
  const framed = () => !!document.querySelector(FRAMES);
  const T = {
    // begin numbers the document's nodes in capture order and starts
    // recording; the full capture that follows is matched to it by shape.
    // Node k of the walk (k >= 1) gets the id base + k - 1, base being at
    // least the next unused id: ids are never reused within a document.
    begin(base) {
      observe();
      mo.takeRecords();
      S.active = true; S.own = false; S.over = false; clearRecs();
      if (S.next < base) S.next = base;
      const b = S.next;
      S.base = b;
      S.ids = new Ids(); S.cache = new WeakMap(); S.byId = [document]; S.fresh = new Set(); S.roots = [];
      S.ids.set(document, 0);
      S.global = false; S.focus = document.activeElement;
      { const k = sheetsKey(); S.sheets = k.key; S.risky = k.risky; S.sibling = k.sibling; }
      S.watch = new Set(); S.framed = undefined;
      // one walk numbers the nodes and hashes their shape (text "#",
      // doctype "!", element "<tag" … ">", FNV-1a as livetree.go number)
      let h = 0x811c9dc5;
      const mix = (c) => { h ^= c; h = Math.imul(h, 0x01000193) >>> 0; };
      const num = (n) => {
        for (let c = n.firstChild; c; c = c.nextSibling) {
          const k = c.nodeType;
          if (!modelKind(k)) continue;
          S.ids.set(c, b + S.byId.length - 1); S.byId.push(c);
          if (k === 3) mix(35);
          else if (k === 10) mix(33);
          else {
            const t = tagOf(c);
            mix(60);
            for (let i = 0; i < t.length; i++) mix(t.charCodeAt(i) & 0xff);
            if (WATCH.has(t)) S.watch.add(c);
            if (!noKids(t)) num(c);
            mix(62);
          }
        }
      };
      num(document);
      S.next = b + S.byId.length - 1;
      return JSON.stringify({ n: S.next, base: b, hash: h >>> 0 });
    },
    // commit takes the live state the full capture wrote ([id, key] for
    // every element whose state is not the default), so the state pass
    // compares with what the kept capture holds.
    commit(keys) {
      if (!S.byId) return false;
      for (const [id, k] of keys) { const el = id === 0 ? document : S.byId[id - S.base + 1]; if (el) S.cache.set(el, k); }
      S.byId = null;
      return true;
    },
    stop() { S.active = false; S.own = false; S.byId = null; clearRecs(); },
    // capture serialises the whole document in capture order and starts
    // tracking it, the ids being the capture's node ids ("own" mode: no
    // DOMSnapshot.captureSnapshot, no backend node id read): [url, title,
    // next, kids] with every node as ser writes it. Nodes numbered before
    // keep their ids; new ones get ids from base on, so no id of an
    // earlier document of the page names a node of this one. It declines
    // ({full: reason}, the tracker stopped) where only captureSnapshot can
    // write the capture: frames, shadow DOM, a defined custom element,
    // whitespace-only text in display:contents, a box checkVisibility does
    // not see, media elements outside the HTML namespace.
    capture(base) {
      observe();
      absorb(mo.takeRecords());
      const decline = (why) => { T.stop(); return JSON.stringify({ full: why }); };
      if (framed()) return decline("frames");
      // a root seen (a closed one too, announced by the attachShadow hook)
      if (S.sawShadow) return decline("shadow");
      for (const el of document.querySelectorAll("video,audio,img")) {
        if (!(el instanceof HTMLMediaElement || el instanceof HTMLImageElement)) return decline("foreign media");
      }
      if (S.next < base) S.next = base;
      S.ids.set(document, 0);
      S.active = true; S.own = true; S.over = false; clearRecs();
      S.cache = new WeakMap(); S.watch = new Set(); S.fresh = new Set(); S.roots = []; S.byId = null;
      S.global = false; S.focus = document.activeElement; S.framed = false;
      { const k = sheetsKey(); S.sheets = k.key; S.risky = k.risky; S.sibling = k.sibling; }
      S.doubt = false; S.skipped = false; S.shadow = false; S.custom = false;
      const kids = serDocument();
      const bad = S.doubt ? "whitespace in display:contents" : S.skipped ? "a box checkVisibility does not see" :
        S.shadow ? "shadow" : S.custom ? "custom element" : "";
      S.doubt = false; S.skipped = false; S.shadow = false; S.custom = false;
      if (bad) return decline(bad);
      return JSON.stringify([document.URL, document.title, S.next, kids]);
    },
    // node returns the element whose own-mode id is id (null: none, or
    // not in own mode): an action resolves a capture's node id with it.
    node(id) {
      if (!S.own || !S.active) return null;
      for (const el of document.getElementsByTagName("*")) if (S.ids.get(el) === id) return el;
      return null;
    },
    // ref is el's node id in own mode ("t" and its id, numbering it if it
    // has none yet: the capture that serialises it keeps that id), "" in
    // the other modes (the caller reads its backend node id).
    ref(el) {
      if (!S.own || !S.active || !el || el.nodeType !== 1) return "";
      let id = S.ids.get(el);
      if (!id) { id = S.next++; S.ids.set(el, id); }
      return "t" + id;
    },
    delta() {
      const t0 = performance.now();
      absorb(mo.takeRecords());
      if (!S.active || S.over) return JSON.stringify({ full: S.active ? "overflow" : "inactive" });
      if (S.sawShadow) { S.active = false; S.own = false; return JSON.stringify({ full: "shadow" }); }
      // frames come with inserted nodes only: once the document is known
      // to hold none, only the subtrees inserted since are searched
      if (S.framed === undefined) S.framed = framed();
      else if (!S.framed) for (const n of S.added) if (n.nodeType === 1 && n.isConnected && (n.matches(FRAMES) || n.querySelector(FRAMES))) { S.framed = true; break; }
      if (S.framed) return JSON.stringify({ full: "frames" });
      const out = { url: document.URL, title: document.title, kids: [], texts: [], attrs: [], state: [] };
      const parents = S.parents, attrs = S.attrs, texts = S.texts, added = S.added;
      clearRecs();
      S.fresh = new Set(); S.roots = []; S.doubt = false; S.shadow = false; S.custom = false;
      const ps = [];
      for (const p of parents) if ((p === document || p.isConnected) && S.ids.has(p)) ps.push(p);
      ps.sort((a, b) => a === b ? 0 : (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
      for (const p of ps) {
        if (inFresh(p)) continue;
        const c0 = p === document ? { ok: true, ib: false, is: false } : ctx(p);
        if (!c0.ok) continue;
        const t = p === document ? "" : tagOf(p);
        if (t && noKids(t)) continue;
        const ib = c0.ib, is = c0.is || t === "select" || t === "datalist";
        const list = [];
        for (let c = p.firstChild; c; c = c.nextSibling) {
          if (!modelKind(c.nodeType)) continue;
          if (added.has(c) || !S.ids.has(c)) {
            list.push(ser(c, ib, is));
            S.fresh.add(c);
            if (c.nodeType === 1) S.roots.push(c);
          } else list.push(S.ids.get(c));
        }
        out.kids.push([S.ids.get(p), list]);
      }
      for (const n of texts) {
        if (n.nodeType !== 3 || !n.isConnected || !S.ids.has(n) || inFresh(n) || !ctx(n.parentNode).ok) continue;
        out.texts.push([S.ids.get(n), n.data]);
      }
      for (const el of attrs) {
        if (!el.isConnected || !S.ids.has(el) || inFresh(el) || !ctx(el).ok) continue;
        out.attrs.push([S.ids.get(el), attrsOf(el)]);
      }
      let bad = "";
      const seen = new Set();
      const check = (el, t, ib, is) => {
        if (S.fresh.has(el) || seen.has(el)) return true;
        seen.add(el);
        if (el.shadowRoot) { bad = "shadow"; return false; }
        const id = S.ids.get(el);
        if (id === undefined) { bad = "unnumbered"; return false; }
        const st = stateOf(el, t, ib, is), k = keyOf(st);
        const was = S.cache.get(el) ?? DEF;
        if (was !== k) {
          setKey(el, k);
          out.state.push([id, st[0], st[1], st[2], st[3], st[4]]);
          // a value, checked or selected state can change what CSS
          // pseudo-classes match anywhere: check everything
          if (was.slice(was.indexOf("|")) !== k.slice(k.indexOf("|")) && t !== "video" && t !== "audio" && t !== "img") S.global = true;
        }
        return true;
      };
      // the whole document when the styles may have changed anywhere,
      // else only where the DOM changed (styleScope)
      const sc = styleScope();
      out.pass = sc;
      if (sc === "scoped") {
        const subtree = (el) => {
          if (inFresh(el)) return;
          const c = ctx(el);
          if (!c.ok || el === document) return;
          const t = tagOf(el);
          const ib = c.ib, is = isAbove(el);
          if (check(el, t, ib, is) === false) return;
          if (!noKids(t)) walk(el, ib, is || t === "select" || t === "datalist", check);
        };
        const chain = (n) => {
          for (let a = n; a && a !== document; a = a.parentNode) {
            if (a.nodeType !== 1) return;
            if (inFresh(a)) continue;
            const c = ctx(a);
            if (!c.ok) return;
            check(a, tagOf(a), c.ib, isAbove(a));
          }
        };
        for (const el of S.watch) {
          if (!el.isConnected) { S.watch.delete(el); continue; } // back in the page: inserted, so serialised again
          if (!S.ids.has(el) || inFresh(el)) continue;
          const c = ctx(el);
          if (c.ok) check(el, tagOf(el), c.ib, isAbove(el));
        }
        if (!S.global) {
          for (const el of attrs) {
            if (!el.isConnected || el.nodeType !== 1) continue;
            subtree(el);
            if (S.sibling && el.parentNode) for (let c = el.parentNode.firstElementChild; c; c = c.nextElementSibling) subtree(c);
            chain(el.parentNode);
          }
          for (const p of ps) {
            chain(p);
            if (S.sibling && p !== document) for (let c = p.firstElementChild; c; c = c.nextElementSibling) subtree(c);
          }
          for (const n of texts) if (n.isConnected && n.parentNode) chain(n.parentNode);
        }
        if (S.global && !bad) { out.pass = "global"; walk(document, false, false, check); }
      } else if (!bad) walk(document, false, false, check);
      S.global = false;
      if (S.doubt) { S.doubt = false; bad = "whitespace in display:contents"; }
      if (S.skipped) { S.skipped = false; bad = "a box checkVisibility does not see"; }
      if (S.shadow) { S.shadow = false; bad = "shadow"; }
      if (S.custom) { S.custom = false; bad = "custom element"; }
      if (bad) { S.active = false; S.own = false; return JSON.stringify({ full: bad }); }
      out.roots = S.roots.length;
      out.next = S.next;
      out.ms = performance.now() - t0;
      return JSON.stringify(out);
    },
    // full serialises the whole document in capture order, changing
    // nothing the tracker keeps: [url, title, n, kids] with every node as
    // ser writes it, or {full: reason} when the page has what only
    // DOMSnapshot.captureSnapshot can write (frames, whitespace-only text
    // in display:contents, a box checkVisibility does not see, media
    // elements outside the HTML namespace). The tests compare it with a
    // captureSnapshot capture (trackerfull_test.go).
    full() {
      observe();
      absorb(mo.takeRecords());
      if (framed()) return JSON.stringify({ full: "frames" });
      for (const el of document.querySelectorAll("video,audio,img")) {
        if (!(el instanceof HTMLMediaElement || el instanceof HTMLImageElement)) return JSON.stringify({ full: "foreign media" });
      }
      const save = { ids: S.ids, cache: S.cache, next: S.next, doubt: S.doubt, skipped: S.skipped, watch: S.watch, shadow: S.shadow, custom: S.custom, own: S.own };
      S.ids = new Ids(Symbol("replaylab full id")); S.cache = new WeakMap(); S.next = 1; S.doubt = false; S.skipped = false; S.watch = new Set(); S.own = false;
      S.ids.set(document, 0);
      const kids = serDocument();
      const doubt = S.doubt, skip = S.skipped, n = S.next;
      Object.assign(S, save);
      if (doubt) return JSON.stringify({ full: "whitespace in display:contents" });
      if (skip) return JSON.stringify({ full: "a box checkVisibility does not see" });
      return JSON.stringify([document.URL, document.title, n, kids]);
    },
    // mark starts the window of a full capture and returns the document
    // (whose backend ids the driver reads); settled: no child list changed
    // since, so the ids read and the nodes full serialised are the same.
    mark() {
      observe();
      absorb(mo.takeRecords());
      S.mark = S.seq;
      return document;
    },
    settled() {
      absorb(mo.takeRecords());
      return S.seq === S.mark;
    },
    // deltaRoots is delta, with the inserted subtrees' roots when there are
    // any ([delta, root, …], so the driver reads their backend ids without
    // another round trip).
    deltaRoots() {
      const s = T.delta();
      return !S.own && S.roots.length && s.charCodeAt(0) === 123 && !s.startsWith('{"full"') ? [s, ...S.roots] : s;
    },
    // verify: true when no child list inside a fresh subtree changed since
    // delta, so the backend ids read for them belong to the nodes delta
    // serialised.
    verify() {
      absorb(mo.takeRecords());
      for (const p of S.parents) if (inFresh(p)) return false;
      S.fresh = new Set();
      return true;
    },
  };
  let pending = false;
  const notify = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; try { globalThis.__replaylabChanged("1"); } catch (e) {} }, 10);
  };
  // Open shadow roots are page: the observer observes each one, those in
  // the page when it starts and those attached later (the page world's
  // attachShadow hook, live.go shadowHookScript, fires SHADOW on the host;
  // a host inserted with its root already attached is found among the
  // inserted nodes). A closed root cannot be observed from here; the
  // capture leaves its content out, so nothing it reads goes unobserved.
  // Once the document has had any shadow root, every capture is taken in
  // full (delta declines): the tracker's serialisation is of the light DOM.
  const SHADOW = "replaylab-shadow-root";
  const OPTS = { subtree: true, childList: true, attributes: true, characterData: true };
  const roots = new WeakSet();
  const observeRoot = (r) => {
    S.sawShadow = true;
    if (roots.has(r)) return;
    roots.add(r);
    mo.observe(r, OPTS);
    findRoots(r);
  };
  // findRoots observes the open roots of n's subtree (n's own, nested ones)
  const findRoots = (n) => {
    if (n.nodeType === 1 && n.shadowRoot) observeRoot(n.shadowRoot);
    if (!n.firstElementChild) return;
    for (const el of n.querySelectorAll("*")) if (el.shadowRoot) observeRoot(el.shadowRoot);
  };
  const mo = new MutationObserver((recs) => {
    for (const r of recs) if (r.type === "childList") for (const n of r.addedNodes) if (n.nodeType === 1 && n.isConnected) findRoots(n);
    absorb(recs);
    notify();
  });
  // The observer starts when the parser is done (DOMContentLoaded), or at
  // the first capture if that comes first: the parser's own insertions
  // would make a record per node of a page being loaded (on a 2,000-turn
  // chat about a tenth of its load time), and nothing reads them (a page
  // that loads is busy, and its first capture reads all of it). The new
  // document reports a change when it starts and when the observer does.
  let observing = false;
  observe = () => {
    if (observing) return;
    observing = true;
    mo.observe(document, OPTS);
    findRoots(document);
    notify();
  };
  document.addEventListener(SHADOW, (e) => {
    S.sawShadow = true;
    const r = e.target.shadowRoot; // null for a closed root
    if (r && observing) observeRoot(r);
    notify();
  }, { capture: true, passive: true });
  notify();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", observe, { once: true });
  else observe();
  // user input and the like can change what CSS matches without a DOM
  // mutation: the next state pass checks the whole document
  const global = (e) => { S.global = true; };
  for (const ev of ["focusin", "focusout", "pointerover", "pointerout", "pointerdown", "pointerup", "mouseover", "mouseout", "mousedown", "mouseup",
    "keydown", "keyup", "input", "change", "toggle", "beforetoggle", "transitionstart", "transitionrun", "transitionend", "transitioncancel",
    "animationstart", "animationend", "animationcancel", "fullscreenchange", "play", "pause", "ended", "scroll", "dragstart", "dragend", "drop"]) document.addEventListener(ev, global, { capture: true, passive: true });
  // a stylesheet that finished loading (or failed to)
  const sheetLoad = (e) => { if (e.target instanceof HTMLLinkElement || e.target instanceof HTMLStyleElement) S.global = true; };
  document.addEventListener("load", sheetLoad, { capture: true, passive: true });
  document.addEventListener("error", sheetLoad, { capture: true, passive: true });
  for (const ev of ["hashchange", "resize", "popstate", "pageshow", "focus", "blur"]) window.addEventListener(ev, global, { capture: true, passive: true });
  for (const ev of ["load", "loadedmetadata", "loadeddata", "canplay", "canplaythrough", "playing", "waiting", "emptied", "abort", "error", "input", "change"]) document.addEventListener(ev, notify, true);
  Object.defineProperty(globalThis, "__replaylabTracker", { value: T });
})();
