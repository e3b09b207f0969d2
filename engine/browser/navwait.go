package browser

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/engine/clock"
)

// On a lab clock, time must not move while a navigation that an action
// started is still under way (a click on a link): the lab knows the sim's
// transitions, not the browser's loads. The page remembers every frame
// that requested a navigation until it stopped loading; before the lab
// clock moves, Sleep makes one round trip to the renderer (events the
// renderer sent before it are seen first: chromedp.Listen runs in order)
// and waits, in wall time, until no navigation is pending.

// NavigationWaitMax bounds that wait in wall time, stretched by the
// scheduling delay measured meanwhile (clock.WithStretchTimeout); past it
// the sleep goes on (the engine's own deadline then decides).
const NavigationWaitMax = 20 * time.Second

type navigations struct {
	mu      sync.Mutex
	pending map[cdp.FrameID]bool
	changed chan struct{}
}

func (n *navigations) set(id cdp.FrameID, on bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending[id] == on {
		return
	}
	if on {
		n.pending[id] = true
	} else {
		delete(n.pending, id)
	}
	close(n.changed)
	n.changed = make(chan struct{})
}

// watchNavigations records the page's pending navigations.
func watchNavigations(pctx context.Context) (*navigations, error) {
	n := &navigations{pending: map[cdp.FrameID]bool{}, changed: make(chan struct{})}
	err := chromedp.Listen(pctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventFrameRequestedNavigation:
			if e.Disposition == page.ClientNavigationDispositionCurrentTab {
				n.set(e.FrameID, true)
			}
		case *page.EventFrameStoppedLoading:
			n.set(e.FrameID, false)
		case *page.EventNavigatedWithinDocument:
			n.set(e.FrameID, false)
		case *page.EventFrameDetached:
			n.set(e.FrameID, false)
		}
	})
	return n, err
}

// awaitNavigations makes a round trip to the renderer, then waits until
// no navigation is pending (at most NavigationWaitMax).
func (p *Page) awaitNavigations(ctx context.Context) error {
	if p.navs == nil {
		return nil
	}
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "0", Silent: new(true)})
		return err
	}))
	if err != nil {
		return err
	}
	return p.navs.await(ctx, clock.WallStretcher)
}

// await waits until no navigation is pending, at most NavigationWaitMax
// stretched by the scheduling delay s measures; only ctx ending is an
// error.
func (n *navigations) await(ctx context.Context, s clock.Stretcher) error {
	limit, cancel := s.WithTimeout(ctx, NavigationWaitMax)
	defer cancel()
	for {
		n.mu.Lock()
		k, ch := len(n.pending), n.changed
		n.mu.Unlock()
		if k == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-limit.Done():
			return ctx.Err()
		}
	}
}
