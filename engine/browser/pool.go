package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// ErrNoEndpoint is returned when no endpoint of a pool answers.
var ErrNoEndpoint = errors.New("browser: pool: no CDP endpoint is reachable")

// PoolOptions configure NewPool.
type PoolOptions struct {
	// Report receives one line per endpoint that is found dead, once
	// (default: os.Stderr).
	Report io.Writer
	// ConnectTimeout bounds connecting to one endpoint and opening one
	// page on it (default DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// StorageState, when set, goes into every page the pool opens, on
	// whichever endpoint (as Options.StorageState; APP-5).
	StorageState *StorageState
}

// DefaultConnectTimeout bounds a pool's connect and new-page calls.
const DefaultConnectTimeout = 30 * time.Second

// Pool shares several remote Chromium endpoints (CDP websocket URLs)
// among concurrent scenarios: each page opens in its own browser context
// on the live endpoint with the fewest open pages. An endpoint that fails
// to connect or to open a page is reported once and skipped from then on;
// when none is left, NewPage fails with ErrNoEndpoint.
type Pool struct {
	opt PoolOptions

	mu        sync.Mutex
	endpoints []*endpoint
}

type endpoint struct {
	url   string
	b     *Browser
	dead  error
	open  int // pages open now
	pages int // pages opened in all
}

// NewPool connects to every URL. Endpoints that do not answer are
// reported and skipped; if none answers, it returns ErrNoEndpoint with
// every endpoint's error.
func NewPool(ctx context.Context, urls []string, opt PoolOptions) (*Pool, error) {
	if opt.Report == nil {
		opt.Report = os.Stderr
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = DefaultConnectTimeout
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("%w: no endpoint given", ErrNoEndpoint)
	}
	p := &Pool{opt: opt}
	var wg sync.WaitGroup
	for _, u := range urls {
		e := &endpoint{url: u}
		p.endpoints = append(p.endpoints, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, opt.ConnectTimeout)
			defer cancel()
			b, err := connect(cctx, u, opt.StorageState)
			if err != nil {
				e.dead = err
				return
			}
			e.b = b
		}()
	}
	wg.Wait()
	var errs []string
	live := 0
	for _, e := range p.endpoints {
		if e.dead != nil {
			p.reportDead(e)
			errs = append(errs, fmt.Sprintf("%s: %v", e.url, e.dead))
			continue
		}
		live++
	}
	if live == 0 {
		return nil, fmt.Errorf("%w (%d tried): %s", ErrNoEndpoint, len(urls), strings.Join(errs, "; "))
	}
	return p, nil
}

// connect attaches to one endpoint, bounded by ctx (Start's own attach
// waits as long as the browser takes).
func connect(ctx context.Context, url string, st *StorageState) (*Browser, error) {
	type result struct {
		b   *Browser
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := Start(context.WithoutCancel(ctx), Options{RemoteURL: url, StorageState: st})
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		go func() { // close it if it ever answers
			if r := <-ch; r.b != nil {
				_ = r.b.Close()
			}
		}()
		return nil, fmt.Errorf("browser: connect: %w", ctx.Err())
	}
}

func (p *Pool) reportDead(e *endpoint) {
	fmt.Fprintf(p.opt.Report, "browser pool: endpoint %s is dead or unreachable, skipping it: %v\n", e.url, e.dead)
}

// pick returns the live endpoint with the fewest open pages.
func (p *Pool) pick() *endpoint {
	var best *endpoint
	for _, e := range p.endpoints {
		if e.dead != nil {
			continue
		}
		if e.b.ctx.Err() != nil { // the connection dropped
			e.dead = fmt.Errorf("connection lost: %w", e.b.ctx.Err())
			p.reportDead(e)
			continue
		}
		if best == nil || e.open < best.open {
			best = e
		}
	}
	return best
}

// NewPage opens a page in a fresh browser context on a live endpoint,
// skipping (and reporting, once) endpoints that fail.
func (p *Pool) NewPage(ctx context.Context) (*Page, error) {
	for {
		p.mu.Lock()
		e := p.pick()
		if e == nil {
			var errs []string
			for _, d := range p.endpoints {
				errs = append(errs, fmt.Sprintf("%s: %v", d.url, d.dead))
			}
			p.mu.Unlock()
			return nil, fmt.Errorf("%w any more: %s", ErrNoEndpoint, strings.Join(errs, "; "))
		}
		e.open++
		p.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, p.opt.ConnectTimeout)
		page, err := newPageBounded(pctx, e.b)
		cancel()
		p.mu.Lock()
		if err == nil {
			e.pages++
			p.mu.Unlock()
			go func() { // the page's context ends when it is closed
				<-page.ctx.Done()
				p.mu.Lock()
				e.open--
				p.mu.Unlock()
			}()
			return page, nil
		}
		e.open--
		if ctx.Err() != nil {
			p.mu.Unlock()
			return nil, err
		}
		if e.dead == nil {
			e.dead = err
			p.reportDead(e)
		}
		p.mu.Unlock()
	}
}

// newPageBounded is NewPage that gives up when ctx ends, even if the
// endpoint never answers.
func newPageBounded(ctx context.Context, b *Browser) (*Page, error) {
	type result struct {
		p   *Page
		err error
	}
	ch := make(chan result, 1)
	go func() {
		pg, err := b.NewPage(ctx)
		ch <- result{pg, err}
	}()
	select {
	case r := <-ch:
		return r.p, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.p != nil {
				_ = r.p.Close()
			}
		}()
		return nil, fmt.Errorf("browser: new page: %w", ctx.Err())
	}
}

// Stats returns, per endpoint URL, how many pages it opened and whether
// it is dead.
func (p *Pool) Stats() map[string]EndpointStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]EndpointStats{}
	for _, e := range p.endpoints {
		out[e.url] = EndpointStats{Pages: e.pages, Open: e.open, Dead: e.dead != nil}
	}
	return out
}

// EndpointStats is one endpoint's use.
type EndpointStats struct {
	Pages, Open int
	Dead        bool
}

// Close detaches from every endpoint (the remote browsers keep running).
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, e := range p.endpoints {
		if e.b != nil {
			if err := e.b.Close(); err != nil && e.dead == nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.url, err))
			}
		}
	}
	return errors.Join(errs...)
}

// ReadEndpoints reads a --cdp-file: one CDP websocket URL per line; blank
// lines and lines starting with # are ignored.
func ReadEndpoints(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("browser: endpoints file: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "ws://") && !strings.HasPrefix(line, "wss://") {
			return nil, fmt.Errorf("browser: endpoints file %s:%d: want a ws:// CDP URL, got %q", path, n, line)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("browser: endpoints file %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("browser: endpoints file %s holds no endpoint", path)
	}
	return out, nil
}
