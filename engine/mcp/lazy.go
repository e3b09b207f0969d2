package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/browser"
)

// LazyBrowser starts one Chromium on the first page that needs it and
// shares it across tasks; every page gets its own browser context
// (browser.NewPage). Its Driver method is a DriverFunc.
//
// Opening a browser context and its tab takes Chromium a few hundred
// milliseconds, so the LazyBrowser keeps one spare page: each page it hands
// out starts the opening of the next in the background, and a task's first
// navigation does not wait for it. A spare that failed to open is dropped
// and the page is opened on demand, as without one.
type LazyBrowser struct {
	Options browser.Options
	// NoSpare opens every page on demand.
	NoSpare bool

	mu     sync.Mutex
	b      *browser.Browser
	pages  int
	spares int
	spare  chan openedPage // the spare being opened or ready; nil when none
	closed bool
}

type openedPage struct {
	p   *browser.Page
	err error
}

// Driver opens a new browser page, starting the browser first when none
// runs yet.
func (l *LazyBrowser) Driver(ctx context.Context, task, page string) (engine.Driver, func() error, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, nil, errors.New("mcp: the browser was closed")
	}
	if l.b == nil {
		b, err := browser.Start(ctx, l.Options)
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: start the browser: %w", err)
		}
		l.b = b
	}
	var p *browser.Page
	if ch := l.spare; ch != nil {
		l.spare = nil
		select {
		case r := <-ch:
			if r.err == nil {
				p = r.p
				l.spares++
			}
		case <-ctx.Done():
			go closeWhenOpened(ch)
			return nil, nil, fmt.Errorf("mcp: open a page for %s/%s: %w", task, page, ctx.Err())
		}
	}
	if p == nil {
		var err error
		if p, err = l.b.NewPage(ctx); err != nil {
			return nil, nil, fmt.Errorf("mcp: open a page for %s/%s: %w", task, page, err)
		}
	}
	l.pages++
	if !l.NoSpare {
		ch := make(chan openedPage, 1)
		b := l.b
		go func() {
			sp, err := b.NewPage(context.WithoutCancel(ctx))
			ch <- openedPage{sp, err}
		}()
		l.spare = ch
	}
	return p, p.Close, nil
}

// closeWhenOpened closes a spare page once its opening ends.
func closeWhenOpened(ch chan openedPage) error {
	if r := <-ch; r.p != nil {
		return r.p.Close()
	}
	return nil
}

// Started reports whether the browser runs.
func (l *LazyBrowser) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b != nil
}

// Pages counts the pages handed out so far (a spare not yet handed out
// does not count).
func (l *LazyBrowser) Pages() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pages
}

// Spares counts the pages handed out that were opened in advance.
func (l *LazyBrowser) Spares() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spares
}

// Close ends the browser, when one was started, and waits for it to exit.
func (l *LazyBrowser) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	var spareErr error
	if ch := l.spare; ch != nil {
		l.spare = nil
		spareErr = closeWhenOpened(ch)
	}
	if l.b == nil {
		return spareErr
	}
	err := l.b.Close()
	l.b = nil
	return errors.Join(err, spareErr)
}
