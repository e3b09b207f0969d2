// Package browser is the live driver: real headless Chromium through
// chromedp (the only package of the project that imports chromedp). One
// Browser per run; each page gets a fresh browser context (or, with
// Options.ReuseContexts, one a closed page left, cleared: reuse.go), so
// scenarios share no cookies, storage or cache. Captures are written by a tracker
// script in an isolated world (own.go, incremental.go), or where it cannot
// be exact come from DOMSnapshot.captureSnapshot in one round trip; both
// are serialised into the capture format with live state written in.
// Actions address a node by the capture's stable node id: the tracker's id,
// resolved to the element when the action runs, or a backend node id.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/clock"
)

// ErrNoBrowser is returned when no Chromium executable can be found.
var ErrNoBrowser = errors.New("browser: no Chromium found (install Debian's chromium package, or set REPLAYLAB_CHROMIUM)")

// TempDirPrefix names the user-data dirs this package creates, so a leak
// check can look for them.
const TempDirPrefix = "replaylab-chromium-"

// Options configure Start.
type Options struct {
	// StorageState, when set, goes into every page the browser opens
	// (cookies and local storage, a signed-in session; APP-5).
	StorageState *StorageState
	// ExecPath is the Chromium binary; default: $REPLAYLAB_CHROMIUM, then
	// (headless) the headless shell when it is installed (FindHeadless),
	// then chromium, chromium-browser, google-chrome on PATH.
	ExecPath string
	// RemoteURL connects to a running browser over its CDP websocket URL
	// instead of starting one.
	RemoteURL string
	// Visible opens a window instead of running headless.
	Visible bool
	// SparePage keeps one page opened ahead: after the first capture that
	// follows a page's navigation (so it competes neither with the
	// navigation nor with that read for the CPU), or when a page closes,
	// the browser opens the next page in the background, and the next
	// NewPage takes it instead of waiting for a browser context, a tab and
	// their set-up (the MCP server: every task gets a new page). It costs
	// one idle tab.
	SparePage bool
	// ReuseContexts hands a page's browser context, cleared, to a later
	// page instead of disposing of it and making a new one (reuse.go):
	// each page still gets a new tab. The live runner sets it.
	ReuseContexts bool
}

// Flags are the Chromium flags every started browser gets beyond
// chromedp's defaults: the closed network of CI makes Chromium stall
// without the background-networking ones, and root needs no-sandbox.
var Flags = map[string]any{
	"no-sandbox":                    true,
	"disable-background-networking": true,
	"disable-component-update":      true,
	"disable-sync":                  true,
	"no-first-run":                  true,
	"disable-gpu":                   true,
	"disable-quic":                  true,
	// one renderer per site, as the full browser's default: the headless
	// shell (FindHeadless) otherwise keeps a cross-site frame in its
	// parent's process, where a capture reads it (OBS-7)
	"site-per-process": true,
}

// FindChromium returns the path of a Chromium binary or ErrNoBrowser.
func FindChromium() (string, error) {
	if p := os.Getenv("REPLAYLAB_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: REPLAYLAB_CHROMIUM=%s: %v", ErrNoBrowser, p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// HeadlessShells are where FindHeadless looks for chromium-headless-shell,
// Chromium's headless-only build (Debian's chromium-headless-shell
// package), before PATH: the binary itself first, so the process Start
// starts (and a Kill ends) is Chromium, not the wrapper script Debian puts
// on PATH.
var HeadlessShells = []string{"/usr/lib/chromium/chromium-headless-shell"}

// FindHeadless returns the Chromium binary for a headless browser:
// $REPLAYLAB_CHROMIUM when set; else chromium-headless-shell when it is
// installed (HeadlessShells, then PATH), which opens and runs a page for
// a fraction of the full browser's CPU (docs/performance.md, bench/newpage);
// else FindChromium's.
func FindHeadless() (string, error) {
	if os.Getenv("REPLAYLAB_CHROMIUM") != "" {
		return FindChromium()
	}
	for _, p := range HeadlessShells {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("chromium-headless-shell"); err == nil {
		return p, nil
	}
	return FindChromium()
}

// Browser is one running (or attached) Chromium.
type Browser struct {
	ctx         context.Context // the browser's chromedp context
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	dir         string
	sparePage   bool
	storage     *StorageState // put into every new page

	// spare is the page being opened (or opened) ahead, nil when none;
	// closed stops new ones.
	spareMu sync.Mutex
	spare   *spareSlot
	// busy counts the calls in flight on this browser's pages and lastUse
	// is when the last one ended (unix ns): the spare opens when the
	// browser has been idle for spareIdle
	busy    atomic.Int32
	lastUse atomic.Int64
	closed  bool

	// reusable browser contexts (Options.ReuseContexts, reuse.go): free
	// holds the cleared ones; recycling counts the ones being cleared
	reuse       bool
	freeMu      sync.Mutex
	free        []*closedContext
	freeClosed  bool
	recycling   sync.WaitGroup
	reusedCount atomic.Int64
	notReused   atomic.Int64

	closeOnce sync.Once
}

type spareResult struct {
	p   *Page
	err error
}

// spareSlot is the spare page waiting for an idle moment, being opened,
// or open. now makes it open at once; cancel drops it if it has not
// started opening.
type spareSlot struct {
	ch          chan spareResult
	now, cancel chan struct{}
}

// spareIdle is how long no call may have run on the browser's pages
// before the spare page opens: opening it takes Chromium a few hundred
// milliseconds of CPU, which should not compete with a call (on a 2-core
// machine the first snapshot after a navigation took 3-5x longer while
// the spare opened beside it).
const spareIdle = 300 * time.Millisecond

// errSpareDropped: the spare was dropped before it started opening.
var errSpareDropped = errors.New("browser: spare page dropped")

// idleFor returns how much longer the browser must stay idle before the
// spare opens (0: now).
func (b *Browser) idleFor() time.Duration {
	if b.busy.Load() > 0 {
		return spareIdle
	}
	return spareIdle - time.Since(time.Unix(0, b.lastUse.Load()))
}

// take removes the spare slot; start says whether to open it at once
// (else it is dropped if it has not started). It returns the slot's
// result channel, nil when there was no spare.
func (b *Browser) take(start bool) chan spareResult {
	b.spareMu.Lock()
	sl := b.spare
	b.spare = nil
	b.spareMu.Unlock()
	if sl == nil {
		return nil
	}
	if start {
		close(sl.now)
	} else {
		close(sl.cancel)
	}
	return sl.ch
}

// Start starts Chromium (or attaches to RemoteURL) and waits until it
// answers.
func Start(ctx context.Context, opt Options) (*Browser, error) {
	b := &Browser{sparePage: opt.SparePage, storage: opt.StorageState, reuse: opt.ReuseContexts}
	var allocCtx context.Context
	if opt.RemoteURL != "" {
		allocCtx, b.allocCancel = remote.NewAllocator(context.WithoutCancel(ctx), opt.RemoteURL)
	} else {
		path := opt.ExecPath
		if path == "" {
			find := FindHeadless
			if opt.Visible {
				find = FindChromium // the headless shell has no window
			}
			p, err := find()
			if err != nil {
				return nil, err
			}
			path = p
		}
		dir, err := os.MkdirTemp("", TempDirPrefix+"*")
		if err != nil {
			return nil, fmt.Errorf("browser: %w", err)
		}
		b.dir = dir
		started.Lock()
		started.dirs = append(started.dirs, dir)
		started.Unlock()
		opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
		opts = append(opts, chromedp.ExecPath(path), chromedp.UserDataDir(dir))
		for k, v := range Flags {
			opts = append(opts, chromedp.Flag(k, v))
		}
		if opt.Visible {
			opts = append(opts, chromedp.VisibleWindow)
		}
		allocCtx, b.allocCancel = chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	}
	b.ctx, b.cancel = chromedp.NewContext(allocCtx)
	if err := chromedp.Do(b.ctx); err != nil { // starts the browser, no timeout bound to it
		b.Close()
		return nil, fmt.Errorf("browser: start: %w", err)
	}
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			started.Lock()
			started.procs = append(started.procs, p)
			started.Unlock()
		}
	}
	return b, nil
}

// Close ends the browser (or detaches from a remote one) and removes its
// temp dir. It waits for the process to exit.
func (b *Browser) Close() error { return b.close(true) }

func (b *Browser) close(graceful bool) error {
	var err error
	b.closeOnce.Do(func() {
		b.spareMu.Lock()
		b.closed = true
		b.spareMu.Unlock()
		if ch := b.take(false); ch != nil && graceful {
			if r := <-ch; r.p != nil {
				_ = r.p.Close()
			}
		}
		b.freeMu.Lock()
		b.freeClosed = true
		b.freeMu.Unlock()
		if graceful {
			b.recycling.Wait() // contexts being cleared: bounded by recycleTimeout
		}
		// chromedp's cancel closes the browser gracefully; a kill goes
		// straight to the allocator, which waits for the killed process
		if b.cancel != nil && graceful {
			err = chromedp.Cancel(b.ctx)
			b.cancel()
		}
		if b.allocCancel != nil {
			b.allocCancel()
		}
		if b.dir != "" {
			// the allocator's cancel waits for the process; retry the
			// removal briefly for files Chromium writes on exit
			for range 20 {
				if rmErr := os.RemoveAll(b.dir); rmErr == nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// PID is the process id of the Chromium this package started, 0 for a
// remote browser: a benchmark reads the CPU of its process tree.
func (b *Browser) PID() int {
	if b.dir == "" || b.ctx == nil {
		return 0
	}
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			return p.Pid
		}
	}
	return 0
}

// Kill ends a browser this package started at once (SIGKILL, no
// graceful close), waits for it to exit and removes its temp dir: for a
// shutdown that must not wait for Chromium's own (a signal). A remote
// browser is detached from, as by Close.
func (b *Browser) Kill() error {
	if b.dir == "" {
		return b.Close()
	}
	if b.ctx != nil {
		if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
			if p := c.Browser.Process(); p != nil {
				_ = p.Kill()
			}
		}
	}
	return b.close(false)
}

// started remembers what this process started, so Leaks reports only its
// own leftovers even when other test binaries run browsers at the same time.
var started struct {
	sync.Mutex
	dirs  []string
	procs []*os.Process
}

// Leaks lists what browsers started by this process left behind: user-data
// dirs that still exist and processes that are still running. TestMain
// functions call it after the tests.
func Leaks() []string {
	started.Lock()
	defer started.Unlock()
	var out []string
	for _, d := range started.dirs {
		if _, err := os.Stat(d); err == nil {
			out = append(out, "dir "+d)
		}
	}
	for _, p := range started.procs {
		// signal 0 checks existence; a zombie is reaped by the allocator
		if err := p.Signal(syscall.Signal(0)); err == nil {
			if data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.Pid), "stat")); err == nil && strings.Contains(string(data), ") Z ") {
				continue
			}
			out = append(out, "process "+strconv.Itoa(p.Pid))
		}
	}
	return out
}

// Page is one tab in its own browser context. It implements engine.Driver.
type Page struct {
	ctx     context.Context
	cancel  context.CancelFunc
	changed chan struct{}
	// changes is told of every change touch records (Changes), unless
	// the page is on a clock (clocked)
	changes chan struct{}
	clocked atomic.Bool
	// user counts the user's actions the browser reported that WatchUser
	// has not yet passed on; userIdle is told when it reaches 0
	user     atomic.Int64
	userIdle chan struct{}

	// gen counts the changes the page's observer reported, actions and
	// refreshes; last is the capture taken at generation lastGen, done at
	// lastEnd.
	gen     atomic.Uint64
	mu      sync.Mutex
	last    *capture.Capture
	lastGen uint64
	lastEnd time.Time
	// wallNow reads the time a capture's age is counted in (nil:
	// time.Now; a test moves its own)
	wallNow func() time.Time
	clock   clock.Clock // nil: wall time, waking on page changes
	pclock  *pageClock  // InstallPageClock's gate, or nil

	statusMu sync.Mutex
	status   int // HTTP status of the last navigation's document, 0 unknown
	navs     *navigations
	owner    *Browser    // opens the spare page (Options.SparePage), or nil
	reuse    *reused     // the page's reusable browser context (Options.ReuseContexts), or nil
	warmNext atomic.Bool // the next Capture's end opens the spare page

	// the incremental capture (incremental.go): capMu serialises captures;
	// live is the kept capture of a tracked page, nil when the next capture
	// is full; forceFull makes the next capture full; worldID is the unique
	// id of the main document's isolated world.
	capMu     sync.Mutex
	live      *live
	forceFull atomic.Bool
	stats     Stats
	groups    atomic.Uint64 // names the object groups of the incremental captures and actions
	nextID    int32         // the tracker's ids of this page's later documents start here (own.go)
	worldMu   sync.Mutex
	worldID   string
}

func (p *Page) world() string {
	p.worldMu.Lock()
	defer p.worldMu.Unlock()
	return p.worldID
}

func (p *Page) setWorld(id string) {
	p.worldMu.Lock()
	p.worldID = id
	p.worldMu.Unlock()
}

// captureSettle is how long after a capture a change the page made just
// after it may still be on its way (the observer reports 10 ms after a
// change, then the report crosses the CDP pipe): a capture younger than
// this is never reused, so a read right after a change, an action or a
// navigation's outcome reads the page, as it always did.
const captureSettle = 250 * time.Millisecond

// touch records a change: the next Capture reads the page, and a Sleep
// returns at once.
func (p *Page) touch() {
	p.gen.Add(1)
	select {
	case p.changed <- struct{}{}:
	default:
	}
	if p.clocked.Load() {
		return
	}
	select {
	case p.changes <- struct{}{}:
	default:
	}
}

// Changes receives after the page's observer reported a change, an action
// or a Refresh (engine.Notifier); changes in a row may give one receive.
// It is for reading ahead on wall time: a page on a clock set by SetClock
// is read when its clock says, so from SetClock on it receives nothing.
func (p *Page) Changes() <-chan struct{} { return p.changes }

// Refresh makes the next Capture read the page even when the observer
// reported no change (engine.Refresher): a wait calls it when its deadline
// falls due. That capture is a full one (not incremental).
func (p *Page) Refresh() {
	p.forceFull.Store(true)
	p.gen.Add(1)
}

// SetClock makes the page keep time on c (call it before the page is
// used). Now and Sleep become c's; when c is a clock.Settler (the lab
// clock) every capture first waits for it to settle, so the engine never
// reads a page that has not acknowledged the transitions the clock has
// reached (the read gate of CLK-1). nil restores wall time.
func (p *Page) SetClock(c clock.Clock) {
	p.clock = c
	p.clocked.Store(c != nil)
}

// NewPage opens a tab in a fresh browser context (the spare one, when
// Options.SparePage opened it ahead: it is as fresh, nothing ran in it).
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	if ch := b.take(true); ch != nil {
		select {
		case r := <-ch:
			if r.err == nil {
				return r.p, nil
			}
		case <-ctx.Done():
			go func() { // still being opened: close it once it is
				if r := <-ch; r.p != nil {
					_ = r.p.Close()
				}
			}()
			return nil, fmt.Errorf("browser: new page: %w", ctx.Err())
		}
	}
	p, err := b.newPage(ctx)
	if err != nil {
		return nil, err
	}
	if b.sparePage {
		p.owner = b
	}
	return p, nil
}

// warm opens the spare page in the background, once the browser's pages
// have been idle for spareIdle, unless one is open or being opened.
func (b *Browser) warm() {
	b.spareMu.Lock()
	defer b.spareMu.Unlock()
	if b.closed || b.spare != nil {
		return
	}
	sl := &spareSlot{ch: make(chan spareResult, 1), now: make(chan struct{}), cancel: make(chan struct{})}
	b.spare = sl
	go func() {
		ch := sl.ch
		for wait := b.idleFor(); wait > 0; wait = b.idleFor() {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				continue
			case <-sl.now:
			case <-sl.cancel:
				t.Stop()
				ch <- spareResult{nil, errSpareDropped}
				return
			case <-b.ctx.Done():
				t.Stop()
				ch <- spareResult{nil, b.ctx.Err()}
				return
			}
			t.Stop()
			break
		}
		p, err := b.newPage(b.ctx)
		if p != nil {
			p.owner = b
		}
		ch <- spareResult{p, err}
	}()
}

func (b *Browser) newPage(ctx context.Context) (*Page, error) {
	var (
		pctx   context.Context
		cancel context.CancelFunc
		reuse  *reused
	)
	if b.reuse {
		r, err := b.openReusedTab(ctx)
		if err != nil {
			return nil, err
		}
		reuse = r
		// the page's life is a child of the tab's: the tab outlives the
		// page while its context is cleared
		var pcancel context.CancelFunc
		pctx, pcancel = context.WithCancel(r.tctx)
		cancel = func() {
			pcancel()
			r.recycle()
		}
	} else {
		pctx, cancel = chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
		if err := chromedp.Do(pctx); err != nil {
			cancel()
			return nil, fmt.Errorf("browser: new page: %w", err)
		}
	}
	if err := quietDomains(pctx); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: new page: %w", err)
	}
	p := &Page{ctx: pctx, cancel: cancel, changed: make(chan struct{}, 1), changes: make(chan struct{}, 1), userIdle: make(chan struct{}, 1), reuse: reuse}
	if err := watchChanges(pctx, p.touch, p.setWorld); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: watch page changes: %w", err)
	}
	navs, err := watchNavigations(pctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("browser: watch navigations: %w", err)
	}
	p.navs = navs
	if err := p.installInflight(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: count requests in flight: %w", err)
	}
	if st := b.storage; st != nil {
		if err := st.apply(ctx, p); err != nil {
			cancel()
			return nil, fmt.Errorf("browser: storage state: %w", err)
		}
	}
	return p, nil
}

// Close closes the tab and disposes of its browser context. With
// Options.SparePage it starts opening the spare page if none is (a new
// page usually follows a closed one).
func (p *Page) Close() error {
	p.cancel()
	if p.owner != nil {
		p.owner.warm()
	}
	return nil
}

// run runs a chromedp action bounded by both ctx and the tab's life.
func (p *Page) run(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	if b := p.owner; b != nil {
		b.busy.Add(1)
		defer func() {
			b.lastUse.Store(time.Now().UnixNano())
			b.busy.Add(-1)
		}()
	}
	tctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	err := chromedp.Do(tctx, steps...)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Navigate loads url and waits for the load event; NavigationStatus then
// tells the HTTP status the document answered with. A page that does not
// answer at all is an error (net::ERR_CONNECTION_REFUSED, …).
func (p *Page) Navigate(ctx context.Context, url string) error {
	defer p.gen.Add(1) // the next capture reads the page: actions change live state no mutation reports
	p.forceFull.Store(true)
	old := p.world()
	p.statusMu.Lock()
	p.status = 0
	p.statusMu.Unlock()
	if err := p.run(ctx, chromedp.Navigate(url)); err != nil {
		return fmt.Errorf("browser: navigate %s: %w", url, err)
	}
	// the document's status, read from the Navigation Timing entry (one
	// read-only evaluation; enabling the network domain for it would slow
	// every later capture)
	status := 0
	_ = p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: statusScript, ReturnByValue: new(true), Silent: new(true)})
		if err != nil || res.Result == nil {
			return err
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(res.Result.Value)))
		status = n
		return nil
	}))
	p.statusMu.Lock()
	p.status = status
	p.statusMu.Unlock()
	p.baseline(ctx, old)
	if p.owner != nil {
		p.warmNext.Store(true) // at the first capture's end, competing with neither
	}
	return nil
}

// baseline takes the new document's full capture as part of the
// navigation (on wall time; on a clock set by SetClock the first capture
// does), so the first read after it is incremental (incremental.go).
// Playwright MCP's navigate takes its snapshot too. A failure only means
// the next capture is full.
func (p *Page) baseline(ctx context.Context, oldWorld string) {
	if p.clock != nil {
		return
	}
	// the new document's isolated world is reported by an event
	for i := 0; i < 20 && p.world() == oldWorld; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	p.capMu.Lock()
	defer p.capMu.Unlock()
	p.live = nil
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := p.fullCapture(ctx, t)
		return err
	}))
	if err == nil && p.live != nil {
		p.forceFull.Store(false)
	}
}

// statusScript reads the HTTP status of the document's navigation (0 when
// the browser does not know it, e.g. a data: URL).
const statusScript = `(() => { const e = performance.getEntriesByType("navigation")[0]; return e && e.responseStatus ? e.responseStatus : 0; })()`

// NavigationStatus is the HTTP status of the last navigation's document
// (0 when unknown: not navigated, or a non-HTTP URL).
func (p *Page) NavigationStatus() int {
	p.statusMu.Lock()
	defer p.statusMu.Unlock()
	return p.status
}

// Click scrolls the node into view and clicks its centre.
func (p *Page) Click(ctx context.Context, node string) error {
	return p.click(ctx, node, 1)
}

// DoubleClick implements engine.DoubleClicker: it scrolls the node into
// view and double-clicks its centre, as a mouse does (a press and release
// with click count 1, then with click count 2: two click events and a
// dblclick).
func (p *Page) DoubleClick(ctx context.Context, node string) error {
	return p.click(ctx, node, 2)
}

// ScrollToTop implements engine.Scroller: a mouse wheel turned up over
// the page, far enough to reach the top of whatever scrolls there (the
// page gets its wheel and scroll events as from a user).
func (p *Page) ScrollToTop(ctx context.Context) error {
	defer p.gen.Add(1) // the next capture reads the page
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, ev := range []input.DispatchMouseEventParams{
			{Type: input.DispatchMouseEventTypeMouseMoved, X: 200, Y: 200},
			{Type: input.DispatchMouseEventTypeMouseWheel, X: 200, Y: 200, DeltaX: -1, DeltaY: -1e6}, // deltaX must be sent: 0 is left out of the JSON
		} {
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, ev); err != nil {
				return fmt.Errorf("browser: scroll to the top: %w", err)
			}
		}
		// The scroll (smooth or not) and its scroll events run over the
		// next frames: the action is over once the scroll positions held
		// still for two frames, so what the page did on its scroll events
		// is on the page before the engine reads it.
		if _, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: scrollSettledScript, AwaitPromise: new(true), ReturnByValue: new(true), Silent: new(true)}); err != nil {
			return fmt.Errorf("browser: wait for the scroll to end: %w", err)
		}
		return nil
	}))
}

// scrollSettledScript resolves once the scroll positions of the page and
// its elements held still for two animation frames (at most 3 s).
const scrollSettledScript = `new Promise(function(done){
  const pos = function(){
    let s = scrollX + ',' + scrollY;
    for (const e of document.querySelectorAll('*')) if (e.scrollTop || e.scrollLeft) s += ',' + e.scrollTop + ',' + e.scrollLeft;
    return s;
  };
  let last = null, still = 0;
  setTimeout(done, 3000);
  const tick = function(){
    const p = pos();
    still = p === last ? still + 1 : 0;
    last = p;
    if (still >= 2) done(); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`

// click presses and releases the left button at the node's centre n times
// in a row, the click count rising with each.
func (p *Page) click(ctx context.Context, node string, n int64) error {
	defer p.gen.Add(1) // the next capture reads the page: actions change live state no mutation reports
	ref, err := parseNode(node)
	if err != nil {
		return err
	}
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		id, release, err := p.resolve(ctx, t, node, ref)
		if err != nil {
			return err
		}
		defer release()
		if _, err := cdp.Call(ctx, t, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id.backend, ObjectID: id.obj}); err != nil {
			return fmt.Errorf("browser: scroll node %s into view: %w", node, err)
		}
		q, err := cdp.Call(ctx, t, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id.backend, ObjectID: id.obj})
		if err != nil {
			return fmt.Errorf("browser: node %s has no box: %w", node, err)
		}
		if len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
			return fmt.Errorf("browser: node %s is not rendered", node)
		}
		quad := q.Quads[0]
		x := (quad[0] + quad[2] + quad[4] + quad[6]) / 4
		y := (quad[1] + quad[3] + quad[5] + quad[7]) / 4
		if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y}); err != nil {
			return fmt.Errorf("browser: click node %s: %w", node, err)
		}
		for count := int64(1); count <= n; count++ {
			for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
				ev := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: count}
				if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, ev); err != nil {
					return fmt.Errorf("browser: click node %s: %w", node, err)
				}
			}
		}
		return nil
	}))
}

// Type focuses the node, selects its content and inserts text once, so the
// field ends up holding text (fill semantics, as a user who selects all and
// types).
func (p *Page) Type(ctx context.Context, node, text string) error {
	defer p.gen.Add(1) // the next capture reads the page: actions change live state no mutation reports
	ref, err := parseNode(node)
	if err != nil {
		return err
	}
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		id, release, err := p.resolve(ctx, t, node, ref)
		if err != nil {
			return err
		}
		defer release()
		if _, err := cdp.Call(ctx, t, dom.Focus, dom.FocusParams{BackendNodeID: id.backend, ObjectID: id.obj}); err != nil {
			return fmt.Errorf("browser: focus node %s: %w", node, err)
		}
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			ev := input.DispatchKeyEventParams{Type: typ, Key: "a", Code: "KeyA", WindowsVirtualKeyCode: 65, Modifiers: 2}
			if typ == input.DispatchKeyEventTypeRawKeyDown {
				ev.Commands = []string{"selectAll"}
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, ev); err != nil {
				return fmt.Errorf("browser: select the content of node %s: %w", node, err)
			}
		}
		if _, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
			return fmt.Errorf("browser: type into node %s: %w", node, err)
		}
		return nil
	}))
}

// keys maps key names to their key codes and the text they insert.
var keys = map[string]struct {
	code int64
	text string
}{
	"Enter": {13, "\r"}, "Tab": {9, ""}, "Escape": {27, ""}, "Backspace": {8, ""},
	"ArrowDown": {40, ""}, "ArrowUp": {38, ""}, "ArrowLeft": {37, ""}, "ArrowRight": {39, ""}, "Space": {32, " "},
}

// Press focuses the node and presses one key.
func (p *Page) Press(ctx context.Context, node, key string) error {
	defer p.gen.Add(1) // the next capture reads the page: actions change live state no mutation reports
	ref, err := parseNode(node)
	if err != nil {
		return err
	}
	k, ok := keys[key]
	if !ok {
		return fmt.Errorf("browser: unknown key %q", key)
	}
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		id, release, err := p.resolve(ctx, t, node, ref)
		if err != nil {
			return err
		}
		defer release()
		if _, err := cdp.Call(ctx, t, dom.Focus, dom.FocusParams{BackendNodeID: id.backend, ObjectID: id.obj}); err != nil {
			return fmt.Errorf("browser: focus node %s: %w", node, err)
		}
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: key, Code: key, WindowsVirtualKeyCode: k.code, NativeVirtualKeyCode: k.code, Text: k.text}
		if k.text == "" {
			down.Type = input.DispatchKeyEventTypeRawKeyDown
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: key, Code: key, WindowsVirtualKeyCode: k.code, NativeVirtualKeyCode: k.code}
		for _, ev := range []input.DispatchKeyEventParams{down, up} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, ev); err != nil {
				return fmt.Errorf("browser: press %s: %w", key, err)
			}
		}
		return nil
	}))
}

// Now is the page's clock: wall time unless SetClock said otherwise.
func (p *Page) Now() time.Time {
	if p.clock != nil {
		return p.clock.Now()
	}
	return time.Now()
}

// Sleep waits for d, or less when the page's DOM changed meanwhile (or
// since the last Sleep), so the caller captures right after a change. On
// a clock set by SetClock it is the clock's Sleep: a lab clock moves to
// its next transition or by d, whichever is first, without waiting.
func (p *Page) Sleep(ctx context.Context, d time.Duration) error {
	if p.clock != nil {
		select {
		case <-p.changed: // the clock, not the DOM, says when to look again
		default:
		}
		if _, lab := p.clock.(clock.Settler); lab {
			if err := p.awaitNavigations(ctx); err != nil {
				return fmt.Errorf("browser: sleep: %w", err)
			}
		}
		return p.clock.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.changed:
		return nil
	case <-t.C:
		return nil
	}
}

// SleepsToTransitions tells the engine (engine.Scheduled) that on a lab
// clock Sleep wakes at the next scheduled transition, so it need not poll.
func (p *Page) SleepsToTransitions() bool {
	_, ok := p.clock.(clock.Settler)
	return ok
}

// NotifiesChanges tells the engine that Sleep wakes on page changes, so it
// can wait longer between reads of an idle page.
func (p *Page) NotifiesChanges() bool { return true }

// now is the time a capture's age is counted in.
func (p *Page) now() time.Time {
	if p.wallNow != nil {
		return p.wallNow()
	}
	return time.Now()
}

// Capture freezes the page. When nothing changed since the last capture
// (no report of the page's change observer, no action, no Refresh) and
// that capture is older than captureSettle, it returns that capture again
// without asking Chromium: an unchanged page costs no capture, and the
// engine, seeing the same capture, no parse.
//
// On a settling clock (SetClock) it first waits until the page acknowledged
// every transition the clock reached, and then always reads the page: the
// observer's change reports are not ordered with the acknowledgements.
func (p *Page) Capture(ctx context.Context) (*capture.Capture, error) {
	st, lab := p.clock.(clock.Settler)
	if lab {
		if err := st.Settle(ctx); err != nil {
			return nil, fmt.Errorf("browser: capture: %w", err)
		}
	}
	gen := p.gen.Load()
	p.mu.Lock()
	last, lastGen, lastEnd := p.last, p.lastGen, p.lastEnd
	p.mu.Unlock()
	if !lab && last != nil && lastGen == gen && p.now().Sub(lastEnd) >= captureSettle {
		p.userSettled(ctx)
		return last, nil
	}
	c, err := p.capture(ctx)
	if err != nil {
		return nil, err
	}
	p.userSettled(ctx) // the user's actions before it come first
	p.mu.Lock()
	p.last, p.lastGen, p.lastEnd = c, gen, p.now()
	p.mu.Unlock()
	if p.warmNext.Swap(false) {
		p.owner.warm()
	}
	return c, nil
}

// capture reads the page: incrementally when the page is tracked
// (incremental.go), else in full.
func (p *Page) capture(ctx context.Context) (*capture.Capture, error) {
	p.capMu.Lock()
	defer p.capMu.Unlock()
	full := p.forceFull.Swap(false)
	var c *capture.Capture
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if p.live != nil && !full {
			got, err := p.incrementalCapture(ctx, t)
			if err == nil {
				c = got
				return nil
			}
			if ctx.Err() != nil {
				return err
			}
			reason := strings.TrimPrefix(err.Error(), errDrift.Error()+": ")
			p.count(func(s *Stats) { s.Fallbacks[reason]++ })
		}
		var err error
		c, err = p.fullCapture(ctx, t)
		return err
	}))
	if err != nil {
		p.live = nil
		return nil, fmt.Errorf("browser: capture: %w", err)
	}
	return c, nil
}

// CaptureFull takes a full capture (one DOMSnapshot.captureSnapshot) of
// the page as it is now, without changing what Capture keeps: the property
// test and the benchmarks compare the incremental capture with it.
func (p *Page) CaptureFull(ctx context.Context) (*capture.Capture, error) {
	var c *capture.Capture
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var err error
		c, _, err = snapshot(ctx, t)
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("browser: capture: %w", err)
	}
	return c, nil
}

// quietDomains turns off the CDP domains chromedp enables on every tab
// that nothing here reads: Network (an event per request and per chunk
// of a streamed body), CSS (an event per style sheet, and the agent's
// tracking of them) and Log. Their events cost Chromium's browser process
// and this process CPU on every page of a run; Page, Runtime and DOM stay
// on (navigations, the tracker's bindings, node descriptions), and
// Network.setCookies (storage states) needs no enabled domain.
func quietDomains(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, css.Disable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, network.Disable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, log.Disable, cdp.Empty{})
		return err
	}))
}
