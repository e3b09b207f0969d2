package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// EvalForTest runs expr in the page's own world (as the page's scripts
// would), awaits its promise, and counts it as an action: the next
// Capture reads the page.
func (p *Page) EvalForTest(ctx context.Context, expr string) (string, error) {
	defer p.gen.Add(1)
	var out string
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: new(true), ReturnByValue: new(true)})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("%s: %s", res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
		}
		if res.Result != nil {
			out = string(res.Result.Value)
		}
		return nil
	}))
	return out, err
}
