package engine

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
