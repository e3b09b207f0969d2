package browser

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// UserEvent is one thing the user did in the page: a click, a key press
// (Enter, Escape, Tab) or the text typed into an editor, flushed before the
// next click or key press. Node is the element's node id in the captures.
type UserEvent struct {
	Kind string // "click", "press" or "type"
	Node string
	Text string // typed text (type)
	Key  string // key name (press)
}

// The user's actions are taken from the page by listeners in the same
// isolated world as the change watcher (the page's scripts never see
// them), in the capture phase, so a page that stops propagation still
// reports them. Each event's element is kept in the world's list; the
// binding call carries its index, and the Go side asks the browser for
// the element's backend node id.
const (
	userBinding = "__replaylabUser"
	userScript  = `(() => {
  const T = globalThis.__rlUserTargets = [];
  const send = (kind, el, extra) => {
    if (!el) return;
    T.push(el);
    try { globalThis.` + userBinding + `(JSON.stringify(Object.assign({kind: kind, i: T.length - 1}, extra || {}))); } catch (e) {}
  };
  const editor = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e.isContentEditable && (!e.parentElement || !e.parentElement.isContentEditable)) return e;
      if (e.tagName === "TEXTAREA") return e;
      if (e.tagName === "INPUT" && !["button", "submit", "checkbox", "radio", "reset", "image", "file"].includes(e.type)) return e;
    }
    return null;
  };
  const valueOf = (el) => el.isContentEditable ? el.innerText : el.value;
  let typed = null;
  const flush = () => { if (typed) { const el = typed; typed = null; send("type", el, {text: valueOf(el)}); } };
  document.addEventListener("input", (e) => { const ed = editor(e.target); if (ed) typed = ed; }, true);
  document.addEventListener("change", (e) => { if (typed && typed === editor(e.target)) flush(); }, true);
  document.addEventListener("click", (e) => {
    flush();
    const el = e.target.closest ? (e.target.closest("button, a[href], input, select, summary, label, [role=button], [role=link], [role=menuitem], [role=tab], [role=checkbox], [role=option]") || e.target) : e.target;
    send("click", el);
  }, true);
  document.addEventListener("keydown", (e) => {
    if (e.isComposing || !["Enter", "Escape", "Tab"].includes(e.key) || (e.key === "Enter" && e.shiftKey)) return;
    flush();
    send("press", e.target, {key: e.key});
  }, true);
})();`
)

// WatchUser reports the user's actions in this page and every document it
// loads later to fn, in the order they happened. Call it before the first
// navigation.
func (p *Page) WatchUser(ctx context.Context, fn func(UserEvent)) error {
	err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: userBinding, ExecutionContextName: changeWorld}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: userScript, WorldName: changeWorld})
		return err
	}))
	if err != nil {
		return err
	}
	// Listen sees a binding call before the reply to any command sent
	// after it, so a Capture that returns after the user's action knows
	// of it and waits until fn had it (userSettled): the action comes
	// before the capture that shows its effect, however late fn runs.
	queue := make(chan *runtime.EventBindingCalled, userQueueMax)
	err = chromedp.Listen(p.ctx, func(ev any) {
		if b, ok := ev.(*runtime.EventBindingCalled); ok && b.Name == userBinding {
			p.user.Add(1)
			select {
			case queue <- b:
			default:
				p.userDone() // a flood beyond the queue: dropped
			}
		}
	})
	if err != nil {
		return err
	}
	go func() {
		for {
			var ev *runtime.EventBindingCalled
			select {
			case <-p.ctx.Done():
				return
			case ev = <-queue:
			}
			var msg struct {
				Kind, Text, Key string
				I               int
			}
			if json.Unmarshal([]byte(ev.Payload), &msg) == nil {
				if node := p.userNode(ev.ExecutionContextID, msg.I); node != "" {
					fn(UserEvent{Kind: msg.Kind, Node: node, Text: msg.Text, Key: msg.Key})
				}
			}
			p.userDone()
		}
	}()
	return nil
}

// userQueueMax bounds the user's actions waiting for their element.
const userQueueMax = 256

// userSettleMax bounds how long a capture waits for the user's actions
// before it to be reported.
const userSettleMax = 5 * time.Second

// userDone notes that one user action was reported (or dropped).
func (p *Page) userDone() {
	if p.user.Add(-1) == 0 {
		select {
		case p.userIdle <- struct{}{}:
		default:
		}
	}
}

// userSettled waits until every user action the browser reported so far
// went to WatchUser's fn (at most userSettleMax).
func (p *Page) userSettled(ctx context.Context) {
	if p.user.Load() == 0 {
		return
	}
	t := time.NewTimer(userSettleMax)
	defer t.Stop()
	for p.user.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			return
		case <-p.userIdle:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// userNode resolves the index'th element of the world's list to its
// backend node id ("" when it is gone).
func (p *Page) userNode(ctxID runtime.ExecutionContextID, i int) string {
	var node string
	_ = chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// the tracker's id when the document's captures carry them
		// (own.go), else the element, whose backend node id is read
		expr := "(() => { const el = globalThis.__rlUserTargets[" + strconv.Itoa(i) + "]; return " + trackerExpr + ".ref(el) || el; })()"
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: ctxID, Silent: new(true)})
		if err != nil || res.Result == nil {
			return err
		}
		if res.Result.Type == runtime.RemoteObjectTypeString {
			return json.Unmarshal(res.Result.Value, &node)
		}
		if res.Result.ObjectID == "" {
			return nil
		}
		d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
		if err != nil || d.Node == nil {
			return err
		}
		node = strconv.FormatInt(int64(d.Node.BackendNodeID), 10)
		_, _ = cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
		return nil
	}))
	return node
}
