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
	deadline := time.Now().Add(5 * time.Second)
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
