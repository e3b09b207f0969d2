package browser_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/observe"
)

const composerPage = `<!doctype html><html><body>
<div id="c" contenteditable="true" role="textbox" aria-label="Message"></div>
<button id="send" onclick="event.stopPropagation(); document.getElementById('c').textContent=''">Send</button>
<script>document.addEventListener('click', e => e.stopPropagation(), true);</script>
</body></html>`

// The user's typing, clicks and key presses reach WatchUser from the page,
// even when the page's own capture-phase listener stops propagation, and
// the text typed is flushed before the click that follows it.
func TestWatchUser(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": composerPage})
	var mu sync.Mutex
	var got []browser.UserEvent
	if err := p.WatchUser(ctx, func(ev browser.UserEvent) { mu.Lock(); got = append(got, ev); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := observe.Parse(c)
	nodes := map[string]string{}
	for _, e := range observe.Observe(doc, 1, observe.Options{}).All {
		nodes[e.Name] = e.Node
	}
	if err := p.Type(ctx, nodes["Message"], "Hello there"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, nodes["Send"]); err != nil {
		t.Fatal(err)
	}
	if err := p.Type(ctx, nodes["Message"], "Again"); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, nodes["Message"], "Enter"); err != nil {
		t.Fatal(err)
	}
	want := []browser.UserEvent{
		{Kind: "type", Node: nodes["Message"], Text: "Hello there"},
		{Kind: "click", Node: nodes["Send"]},
		{Kind: "type", Node: nodes["Message"], Text: "Again"},
		{Kind: "press", Node: nodes["Message"], Key: "Enter"},
	}
	// the events come from Chromium in its own time: poll, bounded
	// against a hang only (the check below says what was missing)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %+v, want %+v (all: %+v)", i, got[i], want[i], got)
		}
	}
}

const relabelPage = `<!doctype html><html><body>
<button id="b" onclick="this.textContent = 'Stop generating'">Send</button>
</body></html>`

// A capture that shows a click's effect returns only after WatchUser's fn
// had the click, however slowly fn runs: a recording puts the person's
// action before the capture it caused, so validate reads the control as
// it was when clicked (Send, not the Stop it became).
func TestWatchUserReportsAClickBeforeTheCaptureOfItsEffect(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": relabelPage})
	var mu sync.Mutex
	clicks := 0
	if err := p.WatchUser(ctx, func(ev browser.UserEvent) {
		time.Sleep(300 * time.Millisecond) // a slow consumer
		mu.Lock()
		clicks++
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := observe.Parse(c)
	node := ""
	for _, e := range observe.Observe(doc, 1, observe.Options{}).All {
		if e.Name == "Send" {
			node = e.Node
		}
	}
	if err := p.Click(ctx, node); err != nil {
		t.Fatal(err)
	}
	for {
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := observe.Parse(c)
		stop := false
		for _, e := range observe.Observe(doc, 1, observe.Options{}).All {
			stop = stop || e.Name == "Stop generating"
		}
		if stop {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if clicks != 1 {
		t.Fatalf("a capture showed the click's effect before WatchUser had the click (%d clicks reported)", clicks)
	}
}
