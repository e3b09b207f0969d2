// Package driver is the contract between the engine and a browser: the
// Driver interface every driver implements (the live browser, the
// recorder, the replay) and the optional capabilities a driver may add.
// It is a leaf: its only module import is engine/capture, the data a
// driver returns, so the harness, the engine and the drivers all import
// it without importing each other.
package driver

import (
	"context"
	"time"

	"github.com/replaylab/replaylab/engine/capture"
)

// Driver is what the engine needs from a browser: captures, actions on a
// node by its stable id, and a clock. The browser driver runs on wall time;
// the replay driver on the recording's time.
type Driver interface {
	Navigate(ctx context.Context, url string) error
	// Capture freezes the page. A driver may return the capture it
	// returned before when the page did not change (the engine then reuses
	// its parse); it never changes a capture it returned.
	Capture(ctx context.Context) (*capture.Capture, error)
	Click(ctx context.Context, node string) error
	// Type types text into the node once (it focuses the node first).
	Type(ctx context.Context, node, text string) error
	// Press presses one key ("Enter") with the node focused.
	Press(ctx context.Context, node, key string) error

	Now() time.Time
	// Sleep waits for d, or less when the driver can tell the page changed.
	Sleep(ctx context.Context, d time.Duration) error
}

// DoubleClicker is a driver that can deliver a real double click: two
// presses and releases at the node's centre in a row (click counts 1 and
// 2), so the page sees two clicks and a dblclick, as from a user's mouse.
// The browser, recording and replay drivers are DoubleClickers.
type DoubleClicker interface {
	DoubleClick(ctx context.Context, node string) error
}

// Scroller is a driver that can scroll the page to its top as a user's
// mouse wheel does (the page gets its scroll events and may load earlier
// content). The browser, recording and replay drivers are Scrollers.
type Scroller interface {
	ScrollToTop(ctx context.Context) error
}

// Notifier is a driver that tells when the page may have changed (the
// browser driver): Changes receives after a change the page's observer
// reported or an action (changes in a row may give one receive). A server
// that sits idle between calls reads ahead on it (Page.ReadAhead).
type Notifier interface {
	Changes() <-chan struct{}
}

// Refresher is implemented by drivers that return their last capture
// again while they saw no change (the browser driver): after Refresh the
// next Capture reads the page whatever the driver saw. A wait calls it
// when its deadline falls due, so a change no observer reported is still
// read once before the wait gives up.
type Refresher interface {
	Refresh()
}

// Quieter is implemented by drivers that can tell when a page is quiet:
// no request in flight (fetch, XHR; not long-lived streams such as
// EventSource or WebSocket) and no DOM change for quiet, waiting at most
// max. It returns "" when the page got quiet, else what kept it busy ("1
// request in flight: GET /app/api/thread"). A recorder records the
// decision, so a replay takes it again without a browser.
type Quieter interface {
	WaitQuiet(ctx context.Context, quiet, max time.Duration) (busy string, err error)
}

// ChangeNotifier is implemented by drivers whose Sleep returns early when
// the page changes.
type ChangeNotifier interface {
	NotifiesChanges() bool
}

// Scheduled is implemented by drivers whose Sleep wakes at the page's
// next scheduled transition (a page on a lab clock, or the replay of a lab
// session): nothing changes between transitions, so the engine sleeps
// straight to its deadline instead of polling, and reads once per
// transition.
type Scheduled interface {
	SleepsToTransitions() bool
}

// StreamNoter is implemented by drivers that pace a page's streams on
// the lab clock (the browser's page clock, a profile's "clock": "page"):
// StreamNotes names the open streams whose pacing gave out before their
// end (they went quiet past a wall-time bound). A wait that ends without
// its answer appends them to its evidence, so the step's failure names
// them instead of a bare ANSWER_INCOMPLETE.
type StreamNoter interface {
	StreamNotes() []string
}

// StatusReporter is a driver that knows the HTTP status its last
// navigation's document answered with (0: unknown).
type StatusReporter interface {
	NavigationStatus() int
}

// Caps are the optional capabilities of one driver, each nil when the
// driver lacks it: the one place a wrapper (the recorder) asks what the
// driver it wraps can do.
type Caps struct {
	DoubleClicker  DoubleClicker
	Scroller       Scroller
	Quieter        Quieter
	ChangeNotifier ChangeNotifier
	Scheduled      Scheduled
	StreamNoter    StreamNoter
	StatusReporter StatusReporter
}

// CapsOf asks d once for each optional capability.
func CapsOf(d Driver) Caps {
	var c Caps
	c.DoubleClicker, _ = d.(DoubleClicker)
	c.Scroller, _ = d.(Scroller)
	c.Quieter, _ = d.(Quieter)
	c.ChangeNotifier, _ = d.(ChangeNotifier)
	c.Scheduled, _ = d.(Scheduled)
	c.StreamNoter, _ = d.(StreamNoter)
	c.StatusReporter, _ = d.(StatusReporter)
	return c
}
