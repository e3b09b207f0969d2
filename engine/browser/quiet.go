package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/clock"
)

// A page's default readiness (engine.Quieter, SPEC APP-1): no request in
// flight and no DOM change for a quiet window. Requests are counted in
// the page by a script every new document runs first (the network domain
// is not enabled: it would slow every capture), which wraps fetch,
// XMLHttpRequest and a response's whole-body reads: a fetch is in flight
// until its response headers arrive, a read of the whole body (json(),
// text(), …) until it ends (a body read as a stream is not counted), an
// XHR until it ends. EventSource and WebSocket are long-lived by design
// and never counted. DOM changes are the ones the page's change observer
// reports.

// inflightScript installs window.__replaylabInflight, which lists the
// requests in flight ("GET /app/api/thread").
const inflightScript = `(() => {
  if (window.__replaylabInflight) return;
  const open = new Map();
  let seq = 0, lastEnd = 0;
  const begin = (what) => { const id = ++seq; open.set(id, what); return () => { open.delete(id); lastEnd = performance.now(); }; };
  const f = window.fetch;
  if (f) {
    window.fetch = function (input, init) {
      const url = typeof input === "string" ? input : (input && input.url) || String(input);
      const method = (init && init.method) || (input && input.method) || "GET";
      const end = begin(method.toUpperCase() + " " + url);
      let p;
      try { p = f.apply(this, arguments); } catch (e) { end(); throw e; }
      p.then(end, end);
      return p;
    };
  }
  // a whole-body read: the page renders what it read when it ends
  const R = window.Response && window.Response.prototype;
  if (R) {
    for (const m of ["json", "text", "arrayBuffer", "blob", "formData", "bytes"]) {
      const g = R[m];
      if (typeof g !== "function") continue;
      R[m] = function () {
        const end = begin("the body of " + this.url + " (" + m + "())");
        let p;
        try { p = g.apply(this, arguments); } catch (e) { end(); throw e; }
        p.then(end, end);
        return p;
      };
    }
  }
  const X = window.XMLHttpRequest;
  if (X) {
    const o = X.prototype.open, s = X.prototype.send;
    X.prototype.open = function (m, u) { this.__replaylabWhat = String(m).toUpperCase() + " " + u; return o.apply(this, arguments); };
    X.prototype.send = function () {
      const end = begin(this.__replaylabWhat || "XHR");
      this.addEventListener("loadend", end, {once: true});
      try { return s.apply(this, arguments); } catch (e) { end(); throw e; }
    };
  }
  let muts = 0, lastMut = 0; // DOM changes, counted in the page (a page clock's quiet window is lab time), and when the last was
  // counted from the parser's end (DOMContentLoaded; a page that loads is
  // busy anyway): the parser's own insertions would make a record per
  // node of the page; the start counts as a change
  // open shadow roots count too: each is observed, those in the page at
  // the start, those inserted with their host, and those attached later
  // (the attachShadow hook's event, live.go shadowHookScript)
  const OPTS = {childList: true, subtree: true, attributes: true, characterData: true};
  const roots = new WeakSet();
  let mo = null;
  const anyShadow = () => { const h = window.` + shadowHook + `; return !h || h.any(); };
  const root = (r) => { if (roots.has(r)) return; roots.add(r); mo.observe(r, OPTS); find(r); };
  const find = (n) => {
    if (n.shadowRoot) root(n.shadowRoot);
    if (n.firstElementChild) for (const el of n.querySelectorAll("*")) if (el.shadowRoot) root(el.shadowRoot);
  };
  const watch = () => {
    muts++; lastMut = performance.now();
    try {
      mo = new MutationObserver((rs) => {
        muts += rs.length; lastMut = performance.now();
        if (anyShadow()) for (const r of rs) if (r.type === "childList") for (const n of r.addedNodes) if (n.nodeType === 1 && n.isConnected) find(n);
      });
      mo.observe(document, OPTS);
      find(document);
    } catch (e) { /* no document */ }
  };
  document.addEventListener("` + shadowEvent + `", (e) => {
    muts++; lastMut = performance.now();
    if (mo && e.target.shadowRoot) root(e.target.shadowRoot);
  }, true);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch, {once: true}); else watch();
  Object.defineProperty(window, "__replaylabInflight", {value: () => Array.from(open.values())});
  Object.defineProperty(window, "__replaylabMutations", {value: () => muts});
  Object.defineProperty(window, "__replaylabIdle", {value: () => {
    const nav = performance.getEntriesByType("navigation")[0];
    const load = nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : performance.now();
    return performance.now() - Math.max(load, lastEnd, lastMut);
  }});
})()`

// busyScript lists what keeps the page busy: requests in flight, and the
// document itself while it loads; and for how long (ms, -1 unknown) the
// page has been quiet: since the latest of the load event's end, the last
// request's end and the last DOM change.
const busyScript = `(() => {
  const l = window.__replaylabInflight ? window.__replaylabInflight() : [];
  if (document.readyState !== "complete") l.unshift("the document (" + document.readyState + ")");
  const idle = l.length ? 0 : window.__replaylabIdle ? window.__replaylabIdle() : -1;
  return JSON.stringify({busy: l, changes: window.__replaylabMutations ? window.__replaylabMutations() : -1, href: location.href, idle: idle});
})()`

// quietPoll is how often WaitQuiet looks.
const quietPoll = 50 * time.Millisecond

// installInflight makes every new document of the page count its requests.
func (p *Page) installInflight(ctx context.Context) error {
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: inflightScript})
		return err
	}))
}

// pageBusy is what busyScript answers: what keeps the page busy, the
// page's own count of DOM changes and its document.
type pageBusy struct {
	Busy    []string `json:"busy"`
	Changes int64    `json:"changes"`
	Href    string   `json:"href"`
	Idle    float64  `json:"idle"` // ms the page has been quiet by its own clock, -1 unknown
}

// busy says what keeps the page busy now.
func (p *Page) busy(ctx context.Context) (pageBusy, error) {
	var out pageBusy
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: busyScript, ReturnByValue: new(true), Silent: new(true)})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil || res.Result == nil {
			out.Idle = -1
			return nil // a page mid-navigation: ask again
		}
		var s string
		if err := json.Unmarshal(res.Result.Value, &s); err != nil {
			return err
		}
		return json.Unmarshal([]byte(s), &out)
	}))
	return out, err
}

// WaitQuiet implements engine.Quieter: it returns "" once no request has
// been in flight and the page's DOM has not changed for quiet, else, at
// max, what kept the page busy.
//
// On wall time the page keeps the times (the load event's end, the last
// request's end, the last DOM change), so a window that began before the
// call (while the navigation's capture ran) counts; a page that cannot
// say (no counting script) is quiet once the window has passed from the
// call with no change reported.
//
// On a page clock the wait is on lab time: it settles the page and sleeps
// on the lab between looks, so the responses the page clock holds reach
// the page (they are due on lab time) and the quiet window is lab time.
func (p *Page) WaitQuiet(ctx context.Context, quiet, max time.Duration) (string, error) {
	now := time.Now
	lab, onLab := p.clock.(clock.Settler)
	onLab = onLab && p.pclock != nil
	if onLab {
		now = p.Now
	}
	start := now()
	deadline := start.Add(max)
	gen, since := p.gen.Load(), start
	var busy []string
	var changes int64 = -1
	href := ""
	if onLab {
		if err := lab.Settle(ctx); err != nil {
			return "", fmt.Errorf("browser: wait for the page to be quiet: %w", err)
		}
	}
	for {
		b, err := p.busy(ctx)
		if err != nil {
			return "", fmt.Errorf("browser: wait for the page to be quiet: %w", err)
		}
		busy = b.Busy
		now := now()
		if onLab {
			// the page's own count: a change is seen at the lab instant
			// it happened at, not when its report reached the driver
			if b.Changes != changes || b.Href != href {
				changes, href, since = b.Changes, b.Href, now
			}
		} else if g := p.gen.Load(); g != gen {
			gen, since = g, now
		}
		if len(busy) > 0 {
			since = now
		} else if !onLab && b.Idle >= 0 {
			// the page's own account of the window
			since = now.Add(-time.Duration(b.Idle * float64(time.Millisecond)))
		}
		if now.Sub(since) >= quiet {
			return "", nil
		}
		if !now.Before(deadline) {
			break
		}
		if onLab {
			if err := p.Sleep(ctx, min(quietPoll, deadline.Sub(now))); err != nil {
				return "", fmt.Errorf("browser: wait for the page to be quiet: %w", err)
			}
			continue
		}
		t := time.NewTimer(min(quietPoll, deadline.Sub(now), quiet-now.Sub(since)))
		select {
		case <-ctx.Done():
			t.Stop()
			return "", ctx.Err()
		case <-t.C:
		}
	}
	if len(busy) > 0 {
		s := "s"
		if len(busy) == 1 {
			s = ""
		}
		return fmt.Sprintf("%d request%s in flight: %s", len(busy), s, strings.Join(busy, ", ")), nil
	}
	return fmt.Sprintf("the DOM still changing (last change %s ago)", now().Sub(since).Round(time.Millisecond)), nil
}
