package browser_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

// shadowPage has an open root with slots, a nested open root, an image in
// a root, a closed root, and a root attached after load to an element
// already in the page (no DOM mutation announces it).
const shadowPage = `<!doctype html><html><head><title>S</title></head><body>
<img src="/dot.gif" alt="light">
<x-open id="o"><span slot="b">light-b</span><span>light-default</span></x-open>
<x-closed id="c"><span>closed-light</span></x-closed>
<x-later id="l"></x-later>
<x-late2 id="l2"></x-late2>
<script>
const o = document.getElementById('o').attachShadow({mode:'open'});
o.innerHTML = '<p>shadow-first</p><slot name="b"></slot><div><slot></slot></div><x-nest></x-nest><img src="/dot.gif" alt="inshadow">';
o.querySelector('x-nest').attachShadow({mode:'open'}).innerHTML = '<b>nested</b><img src="/dot.gif" alt="nested-img">';
document.getElementById('c').attachShadow({mode:'closed'}).innerHTML = '<i>secret</i><slot></slot><img src="/dot.gif" alt="closed-img">';
window.later = () => {
  const r = document.getElementById('l').attachShadow({mode:'open'});
  setTimeout(() => { r.innerHTML = '<em>later</em>'; }, 50);
  setTimeout(() => { r.querySelector('em').textContent = 'later, changed'; }, 100);
};
</script>
</body></html>`

// TestShadowRootsAreComposed proves LIB-2 in the browser driver: the
// capture holds open roots' content where the page renders it (slots
// filled, nested roots), names a closed root on its host and leaves its
// content out, reads every image's readiness (light DOM and open roots),
// and a change inside a root attached after load is reported, so a wait
// sees it.
func TestShadowRootsAreComposed(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	gif := "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
	srv := serve(t, map[string]string{"/": shadowPage, "/dot.gif": gif})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Frames[0].HTML
	for _, want := range []string{"shadow-first", `<slot name="b"`, "light-b", "light-default", "nested", `data-rl-shadow="closed"`} {
		if !strings.Contains(h, want) {
			t.Errorf("capture lacks %q:\n%s", want, h)
		}
	}
	for _, not := range []string{"secret", "closed-img", "closed-light"} {
		if strings.Contains(h, not) {
			t.Errorf("capture holds %q from a closed root:\n%s", not, h)
		}
	}
	if n := strings.Count(h, capture.AttrMediaReady+`="complete"`); n != 3 {
		t.Errorf("media readiness on %d images, want 3 (light, open root, nested root):\n%s", n, h)
	}
	doc, err := observe.Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.ClosedRoots) != 1 || doc.ClosedRoots[0].Tag != "x-closed" {
		t.Errorf("closed roots: got %+v, want the x-closed host", doc.ClosedRoots)
	}
	if sel := doc.Select(cascadia.MustCompile("x-open > p")); sel.Length() != 1 {
		t.Errorf("a child selector into an open root matched %d, want 1", sel.Length())
	}

	// a root attached after load to an element in the page, its content
	// changed twice: each change is reported and captured
	if _, err := p.EvalForTest(ctx, "later()"); err != nil {
		t.Fatal(err)
	}
	// (Capture answers the last capture again until the page reports a
	// change: without the reports this never sees the text)
	hang := time.NewTimer(30 * time.Second) // a hang guard, not a margin
	defer hang.Stop()
	for {
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.Frames[0].HTML, "later, changed") {
			break
		}
		select {
		case <-p.Changes():
		case <-hang.C:
			t.Fatalf("the change inside a root attached after load was never captured:\n%s", c.Frames[0].HTML)
		}
	}
}

// TestShadowChangesCountForQuiet proves that the page's own count of DOM
// changes (the quiet window of readiness and of the page clock) counts a
// change inside an open root, one in the page from the start and one
// attached after load to an element already in the page.
func TestShadowChangesCountForQuiet(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": shadowPage})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		v, err := p.EvalForTest(ctx, "window.__replaylabMutations()")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("mutation count %q: %v", v, err)
		}
		return n
	}
	tests := []struct{ name, setup, change string }{
		{"a root from the start", "", "document.getElementById('o').shadowRoot.querySelector('p').textContent = 'changed'"},
		{"a root attached after load", "window.r2 = document.getElementById('l2').attachShadow({mode: 'open'})", "r2.innerHTML = '<i>late</i>'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != "" {
				if _, err := p.EvalForTest(ctx, tt.setup+"; 0"); err != nil {
					t.Fatal(err)
				}
			}
			before := count()
			if _, err := p.EvalForTest(ctx, tt.change+"; 0"); err != nil {
				t.Fatal(err)
			}
			// the observer's records are delivered before the next evaluation
			if after := count(); after <= before {
				t.Errorf("a change inside the root did not count: %d changes before, %d after", before, after)
			}
		})
	}
}

// TestClosedRootOnAPlainElementIsNamed: a closed root on an element that
// is not a custom element (nothing in the light DOM says it is there; with
// no light children, nothing else makes the tracker decline to write the
// capture itself) is named in the capture.
func TestClosedRootOnAPlainElementIsNamed(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": `<!doctype html><html><body><p>light</p><div id="d"></div>
<script>document.getElementById('d').attachShadow({mode: 'closed'}).innerHTML = '<b>secret</b>';</script></body></html>`})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Frames[0].HTML
	if !strings.Contains(h, capture.AttrShadow+`="closed"`) || strings.Contains(h, "secret") {
		t.Errorf("want the div named as a closed root's host, its root's content not read:\n%s", h)
	}
}
