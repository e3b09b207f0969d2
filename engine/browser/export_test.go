package browser

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/capture"
)

// ContextIDForTest is the page's browser context.
func (p *Page) ContextIDForTest() string {
	if c := chromedp.FromContext(p.ctx); c != nil {
		return string(c.BrowserContextID)
	}
	return ""
}

// WaitRecycledForTest waits until every closed page's context was
// cleared (or disposed of).
func (b *Browser) WaitRecycledForTest() { b.recycling.Wait() }

// GrantForTest grants the page's browser context a permission for origin.
func (p *Page) GrantForTest(ctx context.Context, origin, permission string) error {
	c := chromedp.FromContext(p.ctx)
	_, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: permission}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin, BrowserContextID: c.BrowserContextID})
	return err
}

// SetPageClockSettleForTest bounds a page clock's settle by d until the
// test ends.
func SetPageClockSettleForTest(t interface{ Cleanup(func()) }, d time.Duration) {
	old := pageClockSettle
	pageClockSettle = d
	t.Cleanup(func() { pageClockSettle = old })
}

// CaptureSettle is how old a capture must be to be returned again.
const CaptureSettle = captureSettle

// SetCaptureClockForTest makes the page count its captures' age on now
// (set it before the first capture).
func (p *Page) SetCaptureClockForTest(now func() time.Time) { p.wallNow = now }

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

// CaptureCheapForTest takes the tracker's full capture (cheap.go) of the
// page as it is now without changing what Capture keeps (nil and the
// reason when it declines): the tests compare it with CaptureFull.
func (p *Page) CaptureCheapForTest(ctx context.Context) (*capture.Capture, string, error) {
	var c *capture.Capture
	reason := ""
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		got, _, err := p.cheapCapture(ctx, t, p.world())
		if errors.Is(err, errDecline) {
			reason = err.Error()
			return nil
		}
		c = got
		return err
	}))
	return c, reason, err
}

// EvalWorldForTest evaluates expr in the tracker's isolated world.
func (p *Page) EvalWorldForTest(ctx context.Context, expr string) (string, error) {
	var out string
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var err error
		out, err = evalWorld(ctx, t, p.world(), expr)
		return err
	}))
	return out, err
}

// CheckSpliceForTest turns on (or off) the comparison of every incremental
// capture's spliced HTML with a write of every node (checkSplice).
func CheckSpliceForTest(on bool) { checkSplice.Store(on) }

// CheckDecodeForTest turns on (or off) the comparison of the fast snapshot
// reader with the generated decoder on every snapshot (checkDecode).
func CheckDecodeForTest(on bool) { checkDecode.Store(on) }

// trackedAttr matches the node id of an element the tracker numbered.
var trackedAttr = regexp.MustCompile(`data-rl-node="(t\d+)"`)

// BackendIDsForTest rewrites every tracked node id of c (own.go) into the
// backend node id of the element it names, resolved as an action resolves
// it (resolve, then DOM.describeNode of the handle), so the capture can be
// compared with a captureSnapshot one byte for byte. An id that resolves
// to no element, or two ids to one element, is an error.
func (p *Page) BackendIDsForTest(ctx context.Context, c *capture.Capture) (*capture.Capture, int, error) {
	out := *c
	out.Frames = slices.Clone(c.Frames)
	ids := map[string]string{}
	seen := map[string]string{}
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, m := range trackedAttr.FindAllStringSubmatch(c.Frames[0].HTML, -1) {
			node := m[1]
			if _, ok := ids[node]; ok {
				return fmt.Errorf("node id %s given twice", node)
			}
			ref, err := parseNode(node)
			if err != nil {
				return err
			}
			r, release, err := p.resolve(ctx, t, node, ref)
			if err != nil {
				return err
			}
			d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: r.obj})
			release()
			if err != nil {
				return fmt.Errorf("describe node %s: %w", node, err)
			}
			b := strconv.FormatInt(int64(d.Node.BackendNodeID), 10)
			if o, dup := seen[b]; dup {
				return fmt.Errorf("node ids %s and %s name one element", o, node)
			}
			seen[b] = node
			ids[node] = b
		}
		return nil
	}))
	if err != nil {
		return nil, 0, err
	}
	out.Frames[0].HTML = trackedAttr.ReplaceAllStringFunc(c.Frames[0].HTML, func(s string) string {
		return `data-rl-node="` + ids[s[len(`data-rl-node="`):len(s)-1]] + `"`
	})
	return &out, len(ids), nil
}

// SnapshotOnlyForTest turns the tracker's own capture off (every full
// capture a captureSnapshot one) until the test ends.
func SnapshotOnlyForTest(t interface{ Cleanup(func()) }) {
	snapshotOnly.Store(true)
	t.Cleanup(func() { snapshotOnly.Store(false) })
}
