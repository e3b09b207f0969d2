package browser

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Request is one request the page made, from its resource timing: the URL
// and how it was made ("fetch", "xmlhttprequest", "other" for an
// EventSource, "script", "img", …).
type Request struct {
	URL       string  `json:"name"`
	Initiator string  `json:"initiatorType"`
	StartMS   float64 `json:"startTime"`
}

const requestsScript = `JSON.stringify(performance.getEntriesByType("resource").map(e => ({name: e.name, initiatorType: e.initiatorType, startTime: e.startTime})))`

// Requests lists the requests the page's document made so far, in the
// order they started (a WebSocket is none: resource timing does not see
// it). replaylab init reads what an answer arrived over.
func (p *Page) Requests(ctx context.Context) ([]Request, error) {
	var out []Request
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: requestsScript, ReturnByValue: new(true), Silent: new(true)})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil || res.Result == nil {
			return nil
		}
		var s string
		if err := json.Unmarshal(res.Result.Value, &s); err != nil {
			return err
		}
		return json.Unmarshal([]byte(s), &out)
	}))
	return out, err
}
