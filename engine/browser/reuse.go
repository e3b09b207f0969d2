package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Reused browser contexts (Options.ReuseContexts). A new browser context
// is the largest part of what a new page costs Chromium (a storage
// partition and a network context, made and torn down again); a context
// whose state is cleared serves the next page as a fresh one would. Each
// page still gets a new tab, so nothing a tab holds (session storage, its
// history, window.name, the scripts and bindings added to it, its
// renderer's memory cache) reaches the next page. When a page closes, its
// tab is closed (no document of the page runs any more) and its context
// goes on a free list with the origins the page's frames navigated to.
// The next page takes it, opens its new tab in it (on about:blank) and,
// before anything else runs there, clears every one of those origins of
// all its storage (cookies, local storage, IndexedDB, Cache Storage,
// service workers, file systems, …: Storage.clearDataForOrigin "all"),
// then the context's cookies, its HTTP cache and its permissions. A
// context whose page had a frame in another process, or that still holds
// another target (a popup; a worker of an origin the page did not
// navigate to), whose origins this side cannot all see, or whose clearing
// failed, is disposed of instead, as without reuse. Two pages open at once
// never share a context.

// recycleTimeout bounds the checks and the clearing of a context; past
// it the context is disposed of.
const recycleTimeout = 10 * time.Second

// reused is a page's hold on its reusable browser context.
type reused struct {
	b       *Browser
	id      cdp.BrowserContextID
	tctx    context.Context // the tab's chromedp context (the page's ctx is its child)
	tcancel context.CancelFunc
	once    sync.Once

	mu      sync.Mutex
	origins map[string]bool // of every frame the page navigated
	tainted atomic.Value    // string: why the context cannot be reused, "" when it can
}

// taint marks the context as not reusable.
func (r *reused) taint(why string) {
	if v, _ := r.tainted.Load().(string); v == "" {
		r.tainted.Store(why)
	}
}

// closedContext is a context whose page closed: clear names the origins
// its frames navigated to, cleared before the next page gets it.
type closedContext struct {
	id      cdp.BrowserContextID
	origins []string
}

// takeContext returns a closed page's context (to be cleared), or a new
// one (cc nil).
func (b *Browser) takeContext(ctx context.Context) (cdp.BrowserContextID, *closedContext, error) {
	b.freeMu.Lock()
	if n := len(b.free); n > 0 {
		cc := b.free[n-1]
		b.free = b.free[:n-1]
		b.freeMu.Unlock()
		return cc.id, cc, nil
	}
	b.freeMu.Unlock()
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil {
		return "", nil, errors.New("browser: no browser to make a context in")
	}
	res, err := cdp.Call(ctx, c.Browser, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return "", nil, fmt.Errorf("browser: new browser context: %w", err)
	}
	return res.BrowserContextID, nil, nil
}

// openReusedTab opens a tab in a reusable context, clearing what the
// context's last page left in it first, and starts recording the origins
// its frames navigate to. A context that cannot be cleared is disposed
// of and the page opens in a new one.
func (b *Browser) openReusedTab(ctx context.Context) (*reused, error) {
	id, cc, err := b.takeContext(ctx)
	if err != nil {
		return nil, err
	}
	tctx, tcancel := chromedp.NewContext(b.ctx, chromedp.WithExistingBrowserContext(id))
	err = chromedp.Do(tctx)
	if err == nil && cc != nil {
		if err = clearContext(ctx, tctx, cc); err == nil {
			b.reusedCount.Add(1)
		} else {
			b.notReused.Add(1)
			_ = chromedp.Cancel(tctx)
			tcancel()
			b.dispose(id)
			return b.openReusedTab(ctx) // the free list only shrinks: this ends
		}
	}
	if err != nil {
		tcancel()
		b.dispose(id)
		return nil, fmt.Errorf("browser: new page: %w", err)
	}
	r := &reused{b: b, id: id, tctx: tctx, tcancel: tcancel, origins: map[string]bool{}}
	r.tainted.Store("")
	err = chromedp.Listen(tctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventFrameNavigated:
			if e.Frame != nil {
				r.saw(e.Frame.URL)
			}
		case *page.EventNavigatedWithinDocument:
			r.saw(e.URL)
		case *target.EventAttachedToTarget:
			if ti := e.TargetInfo; ti != nil && isWorker(ti.Type) {
				r.saw(ti.URL) // a worker's origin is its creator's
			} else {
				r.taint("the page had another target attached (an out-of-process frame)")
			}
		}
	})
	if err != nil {
		tcancel()
		b.dispose(id)
		return nil, fmt.Errorf("browser: new page: %w", err)
	}
	return r, nil
}

// saw records the origin of a URL a frame navigated to.
func (r *reused) saw(raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		r.taint("a frame navigated to a URL that does not parse")
		return
	}
	if u.Scheme == "blob" { // blob:https://host/uuid: the inner URL's origin
		if u, err = url.Parse(u.Opaque); err != nil {
			r.taint("a blob URL that does not parse")
			return
		}
	}
	switch u.Scheme {
	case "http", "https":
	case "about", "data", "javascript":
		return // no storage of their own (an opaque origin, or their parent's)
	default:
		r.taint("a frame navigated to a " + u.Scheme + ": URL")
		return
	}
	r.mu.Lock()
	r.origins[u.Scheme+"://"+u.Host] = true
	r.mu.Unlock()
}

func isWorker(typ string) bool {
	return typ == "worker" || typ == "service_worker" || typ == "shared_worker"
}

// knows reports whether raw's origin is one the page's frames navigated
// to.
func (r *reused) knows(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.origins[u.Scheme+"://"+u.Host]
}

// recycle closes the page's tab and hands its context on (cleared when
// the next page takes it), or disposes of it when this side cannot know
// all it holds.
func (r *reused) recycle() {
	r.once.Do(func() {
		b := r.b
		b.recycling.Add(1)
		go func() {
			defer b.recycling.Done()
			err := r.check()
			_ = chromedp.Cancel(r.tctx) // closes the tab, and waits for it
			r.tcancel()
			if err != nil {
				b.notReused.Add(1)
				b.dispose(r.id)
				return
			}
			r.mu.Lock()
			cc := &closedContext{id: r.id}
			for o := range r.origins {
				cc.origins = append(cc.origins, o)
			}
			r.mu.Unlock()
			b.freeMu.Lock()
			closed := b.freeClosed
			if !closed {
				b.free = append(b.free, cc)
			}
			b.freeMu.Unlock()
			if closed {
				b.dispose(r.id)
			}
		}()
	})
}

// check tells why the page's context cannot be reused, nil when it can:
// a target other than the page's own that is not a worker of an origin the
// page navigated to (a popup, an out-of-process frame).
func (r *reused) check() error {
	if why, _ := r.tainted.Load().(string); why != "" {
		return errors.New(why)
	}
	c := chromedp.FromContext(r.b.ctx)
	if c == nil || c.Browser == nil {
		return errors.New("browser: gone")
	}
	ctx, cancel := context.WithTimeout(r.tctx, recycleTimeout)
	defer cancel()
	ts, err := cdp.Call(ctx, c.Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	own := chromedp.FromContext(r.tctx)
	for _, ti := range ts.TargetInfos {
		if ti.BrowserContextID != r.id || own != nil && own.Target != nil && ti.TargetID == own.Target.TargetID {
			continue
		}
		if isWorker(ti.Type) && r.knows(ti.URL) {
			continue // its origin's data is cleared, its registration with it
		}
		return fmt.Errorf("the context holds another target (%s %s)", ti.Type, ti.URL)
	}
	if why, _ := r.tainted.Load().(string); why != "" {
		return errors.New(why)
	}
	return nil
}

// clearContext clears what a closed page left in its context, through a
// new tab of that context (on about:blank: no document of the closed page
// runs in it).
func clearContext(ctx context.Context, tctx context.Context, cc *closedContext) error {
	ctx, cancel := context.WithTimeout(ctx, recycleTimeout)
	defer cancel()
	stop := context.AfterFunc(tctx, cancel)
	defer stop()
	c := chromedp.FromContext(tctx)
	return chromedp.Do(tctx, chromedp.Func(func(_ context.Context, t *chromedp.Target) error {
		for _, o := range cc.origins {
			if _, err := cdp.Call(ctx, t, storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: o, StorageTypes: "all"}); err != nil {
				return fmt.Errorf("clear %s: %w", o, err)
			}
		}
		if _, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{}); err != nil {
			return fmt.Errorf("clear the HTTP cache: %w", err)
		}
		if _, err := cdp.Call(ctx, c.Browser, storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: cc.id}); err != nil {
			return fmt.Errorf("clear cookies: %w", err)
		}
		if _, err := cdp.Call(ctx, c.Browser, cdpbrowser.ResetPermissions, cdpbrowser.ResetPermissionsParams{BrowserContextID: cc.id}); err != nil {
			return fmt.Errorf("reset permissions: %w", err)
		}
		return nil
	}))
}

// dispose disposes of a browser context (its tabs close with it).
func (b *Browser) dispose(id cdp.BrowserContextID) {
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil || b.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, recycleTimeout)
	defer cancel()
	_, _ = cdp.Call(ctx, c.Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id})
}

// ContextStats tells how many pages took a cleared context and how many
// contexts could not be reused (Options.ReuseContexts).
type ContextStats struct{ Reused, NotReused int64 }

// ContextStats returns the counts so far.
func (b *Browser) ContextStats() ContextStats {
	return ContextStats{Reused: b.reusedCount.Load(), NotReused: b.notReused.Load()}
}
