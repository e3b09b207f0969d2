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
// A page's close function returns at once and the tab closes in the
// background: Chromium takes 50-100 ms to close a target and dispose of
// its browser context, which a task's finish need not wait for (the next
// task's page is another browser context). Close waits for those closes.
type LazyBrowser struct {
	Options browser.Options

	mu      sync.Mutex
	b       *browser.Browser
	pages   int
	closed  bool
	closing sync.WaitGroup // pages closing in the background
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
	p, err := l.b.NewPage(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: open a page for %s/%s: %w", task, page, err)
	}
	l.pages++
	return p, l.closeLater(p), nil
}

// closeLater is p's close function: it starts closing p and returns.
func (l *LazyBrowser) closeLater(p *browser.Page) func() error {
	var once sync.Once
	return func() error {
		once.Do(func() {
			l.closing.Go(func() { _ = p.Close() })
		})
		return nil
	}
}

// Started reports whether the browser runs.
func (l *LazyBrowser) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b != nil
}

// Pages counts the pages opened so far.
func (l *LazyBrowser) Pages() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pages
}

// Close ends the browser, when one was started, and waits for it to exit
// (after the pages closing in the background).
func (l *LazyBrowser) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.closing.Wait()
	if l.b == nil {
		return nil
	}
	err := l.b.Close()
	l.b = nil
	return err
}

// Kill ends the browser at once, without Chromium's graceful close (see
// browser.Browser.Kill), and removes its profile directory: the shutdown
// after a signal.
func (l *LazyBrowser) Kill() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.b == nil {
		return nil
	}
	err := l.b.Kill()
	l.b = nil
	return err
}
