package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The page is watched for DOM changes from an isolated world, so the
// page's own scripts never see the observer: a MutationObserver calls a
// CDP binding at most once per 10 ms while the DOM changes. Sleep returns
// early on such a call, so waits capture right after a change instead of
// polling in a tight loop, and idle pages cost one capture per wait
// interval.
//
// Every report also bumps the page's change generation (Page.gen): a
// Capture while the generation has not moved since the last one returns
// that capture again, so an unchanged page costs no capture at all.
// Actions, navigations and Refresh bump it too: typed values and other
// live state that no DOM mutation reports are read afresh after every
// action, and a wait whose deadline falls due reads the page whatever the
// observer said. The script also reports input and change events, so
// values the user (or an input handler) changes count as changes.
const (
	changeWorld   = "replaylab"
	changeBinding = "__replaylabChanged" // tracker.js calls it by this name
)

// changeScript is the change observer and the incremental capture's
// tracker (incremental.go), run in the isolated world of every document.
//
//go:embed tracker.js
var changeScript string

// shadowHook is the page-world global of shadowHookScript.
const shadowHook = "__replaylabShadow"

// shadowHookScript runs in the page's world before its scripts: it wraps
// Element.prototype.attachShadow so that every shadow root attached, also
// after load and to an element already in the page, is announced to the
// tracker (an event, shadowEvent, on the host, which the isolated world
// hears in its capture phase: it then observes an open root's mutations),
// and keeps the hosts of closed roots, which no script outside the page's
// own can reach (mediaScript skips their subtrees as the capture does);
// any says whether a root was attached at all (pageclock.js reads images
// in open roots only then).
const shadowHookScript = `(() => {
  const P = Element.prototype, attach = P.attachShadow;
  if (typeof attach !== "function" || globalThis.` + shadowHook + `) return;
  const closed = new WeakSet();
  let any = false;
  const wrapped = { attachShadow(init) {
    const root = attach.call(this, init);
    any = true;
    if (root.mode === "closed") closed.add(this);
    try { this.dispatchEvent(new Event("` + shadowEvent + `")); } catch (e) {}
    return root;
  } }.attachShadow;
  Object.defineProperty(P, "attachShadow", { value: wrapped, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(globalThis, "` + shadowHook + `", { value: Object.freeze({ closed: (el) => closed.has(el), any: () => any }) });
})()`

// shadowEvent is the event shadowHookScript fires on a new root's host
// (tracker.js listens for it by this name).
const shadowEvent = "replaylab-shadow-root"

// watchChanges installs the observer on the page and every document it
// loads later, and calls notify on every report; world is told the unique
// id of the isolated world of each new main-frame document.
func watchChanges(pctx context.Context, notify func(), world func(string)) error {
	err := chromedp.Do(pctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: changeBinding, ExecutionContextName: changeWorld}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: changeScript, WorldName: changeWorld}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: shadowHookScript})
		return err
	}))
	if err != nil {
		return err
	}
	events := chromedp.Events(pctx, runtime.BindingCalled) // subscribed from here on
	contexts := chromedp.Events(pctx, runtime.ExecutionContextCreated)
	var mainFrame string
	if c := chromedp.FromContext(pctx); c != nil && c.Target != nil {
		mainFrame = string(c.Target.TargetID)
	}
	go func() {
		for ev, err := range contexts {
			if err != nil {
				return
			}
			if ev.Context == nil || ev.Context.Name != changeWorld {
				continue
			}
			var aux struct {
				FrameID string `json:"frameId"`
			}
			if json.Unmarshal(ev.Context.AuxData, &aux) == nil && aux.FrameID == mainFrame {
				world(ev.Context.UniqueID)
			}
		}
	}()
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			if ev.Name != changeBinding {
				continue
			}
			notify()
		}
	}()
	return nil
}

// mediaScript reads the live state of every media element of the main
// document, in the order of a DOMSnapshot capture (the flat tree: an open
// shadow root's content under its host, each slot's assigned nodes under
// the slot; a closed root's host is skipped, as the capture leaves its
// subtree out): tag, readiness, current source, natural size. It only
// reads.
const mediaScript = `(() => {
  const out = [], sh = globalThis.` + shadowHook + `, closed = sh ? (el) => sh.closed(el) : () => false;
  const row = (el) => [
    el.localName,
    el.localName === "img" ? (el.complete ? (el.naturalWidth > 0 ? "complete" : "broken") : "loading") : String(el.readyState),
    el.currentSrc || el.src || "",
    el.localName === "img" ? el.naturalWidth : (el.videoWidth || 0),
    el.localName === "img" ? el.naturalHeight : (el.videoHeight || 0)];
  const kids = (p) => { for (let c = p.firstChild; c; c = c.nextSibling) visit(c); };
  const visit = (n) => {
    if (n.nodeType !== 1) return;
    const t = n.localName;
    if (t === "img" || t === "video" || t === "audio") out.push(row(n));
    if (n.shadowRoot) return kids(n.shadowRoot);
    if (closed(n)) return;
    if (t === "slot" && n.assignedNodes().length) { for (const a of n.assignedNodes()) visit(a); return; }
    kids(n);
  };
  kids(document);
  return JSON.stringify(out);
})()`

// mediaState is one media element's live state.
type mediaState struct {
	tag, ready, src string
	w, h            int
}

func (m mediaState) size() string { return strconv.Itoa(m.w) + "x" + strconv.Itoa(m.h) }

// readMedia returns the main document's media states in document order.
func readMedia(ctx context.Context, t *chromedp.Target) ([]mediaState, error) {
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: mediaScript, ReturnByValue: new(true), Silent: new(true)})
	if err != nil {
		return nil, err
	}
	if res.Result == nil || res.ExceptionDetails != nil {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(res.Result.Value, &s); err != nil {
		return nil, err
	}
	var rows [][]any
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		return nil, err
	}
	out := make([]mediaState, 0, len(rows))
	for _, r := range rows {
		if len(r) != 5 {
			return nil, nil
		}
		tag, _ := r[0].(string)
		ready, _ := r[1].(string)
		src, _ := r[2].(string)
		w, _ := r[3].(float64)
		h, _ := r[4].(float64)
		out = append(out, mediaState{tag: tag, ready: ready, src: src, w: int(w), h: int(h)})
	}
	return out, nil
}
