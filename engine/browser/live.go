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

// watchChanges installs the observer on the page and every document it
// loads later, and calls notify on every report; world is told the unique
// id of the isolated world of each new main-frame document.
func watchChanges(pctx context.Context, notify func(), world func(string)) error {
	err := chromedp.Do(pctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: changeBinding, ExecutionContextName: changeWorld}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: changeScript, WorldName: changeWorld})
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
// document, in document order: tag, readiness, current source, natural
// size. It only reads.
const mediaScript = `JSON.stringify(Array.from(document.querySelectorAll("video,audio,img"), el => [
  el.tagName.toLowerCase(),
  el.tagName === "IMG" ? (el.complete ? (el.naturalWidth > 0 ? "complete" : "broken") : "loading") : String(el.readyState),
  el.currentSrc || el.src || "",
  el.tagName === "IMG" ? el.naturalWidth : (el.videoWidth || 0),
  el.tagName === "IMG" ? el.naturalHeight : (el.videoHeight || 0)
]))`

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
