package browser_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
	"github.com/replaylab/replaylab/sim"
	"github.com/replaylab/replaylab/testsite"
)

// cheapPages are pages the tracker's full capture must write byte for
// byte as DOMSnapshot.captureSnapshot does, or decline (declines: the
// reason it must give).
var cheapPages = []struct {
	name, html, declines string
}{
	{name: "forms", html: `<!doctype html><title>forms</title><form><label>Name <input name=n value="x &amp; y"></label>
<input type=checkbox checked><input type=RADIO name=r><input type=radio name=r checked><input type=password value=secret>
<input type=number value=12><input type=hidden value=h><input type=file><input type=range value=30><input type=color value="#ff0000">
<input type=date value="2026-12-01"><input disabled value=off><input readonly value=ro><button type=button>Go</button>
<textarea>  area &lt;text&gt;
second line</textarea><select><option>a</option><option selected>b</option><optgroup label=g><option>c</option></optgroup></select>
<select multiple><option selected>m1</option><option selected>m2</option></select><datalist id=dl><option value=d1></datalist>
<input list=dl><output>out</output><progress value=3 max=10></progress><meter value=0.5></meter><fieldset disabled><legend>L</legend><input></fieldset></form>`},
	{name: "hidden", html: `<!doctype html><style>.n{display:none}.v{visibility:hidden}.c{visibility:collapse}.s{visibility:visible}</style>
<div hidden>hidden attr <b>child</b></div><div class=n><p class=s>shown in none</p></div><div class=v>vis <span class=s>back</span> <i>still</i></div>
<table><tr class=c><td>collapsed</td></tr><tr><td>row</td></tr></table><div style="display:none"><input value=in></div>
<p style="opacity:0">transparent</p><p style="width:0;height:0;overflow:hidden">zero</p>
<p style="position:absolute;left:-9999px">offscreen</p><div inert><button>inert</button></div><span style="display:none">a</span><span>b</span>`},
	{name: "details and dialog", html: `<!doctype html><details open><summary>Open</summary><p>open content</p></details><dialog>closed dialog</dialog><dialog open>open dialog <button>OK</button></dialog>
<div popover>popover</div><noscript><p>no script</p></noscript><template><p>template <img src="x.png"></p></template>`},
	{name: "display contents", html: `<!doctype html><style>.c{display:contents}</style><div class=c><p>in contents</p>text</div>
<ul class=c><li>one</li></ul><span class=c><span class=c>nested</span></span><div class=c><div style="display:none">none in contents</div></div>
<div class=c></div><b class=c>bold</b>`},
	{name: "whitespace in display contents", html: `<!doctype html><div><b style=display:contents> </b></div>`, declines: "whitespace in display:contents"},
	{name: "images and media", html: `<!doctype html><img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt=px>
<img src="/missing.png" alt=broken><img alt=nosrc><img src="data:image/png;base64,broken"><picture><source srcset="/none.webp" type="image/webp"><img src="data:image/gif;base64,R0lGODlhAgACAIAAAP///wAAACH5BAEAAAAALAAAAAACAAIAAAIChFEAOw=="></picture>
<video></video><video src="/missing.mp4" controls></video><audio controls></audio><img style="display:none" src="/missing2.png">
<svg width=10 height=10><rect width=5 height=5></rect><image href="/x.png" width=2 height=2></image><foreignObject><p>html in svg</p></foreignObject></svg>`},
	{name: "svg and math", html: `<!doctype html><svg viewBox="0 0 10 10" xmlns:xlink="http://www.w3.org/1999/xlink"><defs><linearGradient id=g></linearGradient></defs><use xlink:href="#g"/><text x=1 y=5>svg text</text></svg>
<math><mi>x</mi><mo>=</mo><mn>1</mn></math><p>after</p>`},
	{name: "foreign img", html: `<!doctype html><svg id=s></svg><p>x</p><script>s.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "img"))</script>`, declines: "foreign media"},
	{name: "content-visibility hidden", html: `<!doctype html><p style="content-visibility:hidden">cv hidden <b>x</b></p>`, declines: "a box checkVisibility does not see"},
	{name: "closed details", html: `<!doctype html><details><summary>More</summary><p>closed content</p></details>`, declines: "a box checkVisibility does not see"},
	{name: "canvas fallback", html: `<!doctype html><canvas><p>fallback</p></canvas><video><p>no video</p></video>`, declines: "a box checkVisibility does not see"},
	{name: "entities and text", html: "<!doctype html><p>a &lt; b &amp; c &gt; \"d\" 'e' \u00a0nbsp ünïcødé ✓ \U0001F600</p><pre>\n  pre\n\ttab</pre><p title='q\"uote &amp; &lt;'>t</p><p data-rl-node=5 data-rl-hidden=display>page's own</p><!-- comment --><p>x<!--c-->y</p>"},
	{name: "tables and lists", html: `<!doctype html><table><caption>cap</caption><colgroup><col span=2></colgroup><thead><tr><th>h</th></tr></thead><tbody><tr><td>d<td>e</tr></tbody></table>
<ol><li>one<li>two</ol><dl><dt>t<dd>d</dl>`},
	{name: "no doctype, quirks", html: `<title>q</title><p>quirks <b>mode`},
	{name: "scripts and styles", html: `<!doctype html><head><style>p{color:red}</style><script>var x = "<p>not a tag</p>";</script><link rel=stylesheet href="data:text/css,b{color:blue}"></head><body><script type="text/template"><b>t</b></script><p>p</p></body>`},
	{name: "open shadow root", html: `<!doctype html><div id=h></div><script>document.getElementById("h").attachShadow({mode:"open"}).innerHTML="<p>in shadow</p>"</script>`, declines: "shadow"},
	{name: "closed shadow root", html: `<!doctype html><div id=h></div><script>document.getElementById("h").attachShadow({mode:"closed"}).innerHTML="<p>in shadow</p>"</script>`, declines: "shadow"},
	{name: "iframe", html: `<!doctype html><iframe srcdoc="<p>framed</p>"></iframe>`, declines: "frames"},
	{name: "script-made state", html: `<!doctype html><input id=a><input id=b type=checkbox><select id=s><option>1</option><option>2</option></select><textarea id=t></textarea>
<script>a.value="typed by script"; b.checked=true; s.selectedIndex=1; t.value="area by script"; document.title="set title"; document.body.insertAdjacentHTML("beforeend","<p>added</p>")</script>`},
}

// TestCheapFullCaptureMatchesSnapshot: on real pages (the rows above, every
// page of the sim, the test site, the WPT accname pages, a seeded chat
// page), the tracker's full capture equals a DOMSnapshot.captureSnapshot
// capture byte for byte with no normalisation, or declines for the reason
// the row names.
func TestCheapFullCaptureMatchesSnapshot(t *testing.T) {
	p := idlePage(t)
	ctx := context.Background()
	browser.CheckDecodeForTest(true) // and every captureSnapshot reply read by the fast reader equals the generated decoder's
	t.Cleanup(func() { browser.CheckDecodeForTest(false) })
	type row struct{ name, url, declines string }
	var rows []row
	pages := map[string]string{}
	for i, c := range cheapPages {
		path := "/t" + strconv.Itoa(i)
		pages[path] = c.html
		rows = append(rows, row{c.name, path, c.declines})
	}
	pages["/chat200"] = chatpage.Render(chatpage.Options{Turns: 200, Seed: 3})
	rows = append(rows, row{"chat page, 200 turns", "/chat200", ""})
	wpt, _ := filepath.Glob(filepath.Join("..", "observe", "testdata", "wpt-accname", "name", "*.html"))
	for _, f := range wpt {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		path := "/wpt/" + filepath.Base(f)
		pages[path] = string(b)
		declines := ""
		if strings.Contains(string(b), "<iframe") {
			declines = "frames"
		}
		rows = append(rows, row{"wpt " + filepath.Base(f), path, declines})
	}
	if len(wpt) == 0 {
		t.Error("no WPT accname pages found")
	}
	srv := serve(t, pages)
	for i := range rows {
		rows[i].url = srv.URL + rows[i].url
	}
	s, err := sim.NewServer(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, pg := range sim.Pages {
		if strings.HasSuffix(pg.Path, "/") || strings.Contains(pg.Path, "{") || strings.Contains(pg.What, "endpoint") {
			continue
		}
		declines := ""
		if strings.HasPrefix(pg.Path, "/frames") && !strings.HasSuffix(pg.Path, "/child") {
			declines = "frames"
		}
		rows = append(rows, row{"sim " + pg.Path, s.URL + pg.Path, declines})
	}
	ts, err := testsite.Start(testsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	rows = append(rows, row{"testsite", ts.URL + "/", ""})
	cheap := 0
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if err := p.Navigate(ctx, r.url); err != nil {
				t.Fatal(err)
			}
			if st := p.NavigationStatus(); st != http.StatusOK && st != 0 {
				t.Skipf("status %d", st)
			}
			got, reason, err := p.CaptureCheapForTest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.CaptureFull(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r.declines != "" {
				if got != nil || !strings.Contains(reason, r.declines) {
					t.Fatalf("want a decline for %q, got %q (capture %v)", r.declines, reason, got != nil)
				}
				return
			}
			if got == nil {
				t.Fatalf("declined: %s", reason)
			}
			if d := captureDiff(got, want); d != "" {
				t.Fatalf("the tracker's full capture differs from captureSnapshot's: %s", d)
			}
			cheap++
		})
	}
	if cheap < len(rows)/2 {
		t.Errorf("only %d of %d pages were captured by the tracker", cheap, len(rows))
	}
}

// BenchmarkFirstCapture: the full capture of a chat page after a
// navigation, the tracker's (cheap.go) against DOMSnapshot.captureSnapshot
// (CaptureFull) in the same loop: x-snapshot is tracker ÷ snapshot.
//
//	go test ./engine/browser -run '^$' -bench FirstCapture -benchtime 5x
func BenchmarkFirstCapture(b *testing.B) {
	onChatPages(b, func(b *testing.B, ctx context.Context, p *browser.Page) {
		pairbench.Run(b, "snapshot",
			func() {
				if _, err := p.CaptureFull(ctx); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				c, reason, err := p.CaptureCheapForTest(ctx)
				if err != nil || c == nil {
					b.Fatal(err, reason)
				}
			})
	})
}

// BenchmarkOwnFullCapture: the full capture a navigation takes on a
// tracked page, the tracker's own (own.go: its ids the node ids, no
// backend id read), against a DOMSnapshot.captureSnapshot capture in the
// same loop: x-snapshot is own ÷ snapshot. Each own capture is a Refresh
// and a Capture (a full capture, restarting the tracker, as after a
// navigation).
//
//	go test ./engine/browser -run '^$' -bench OwnFullCapture -benchtime 10x
func BenchmarkOwnFullCapture(b *testing.B) {
	onChatPages(b, func(b *testing.B, ctx context.Context, p *browser.Page) {
		before := p.CaptureStats()
		pairbench.Run(b, "snapshot",
			func() {
				if _, err := p.CaptureFull(ctx); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				p.Refresh()
				if _, err := p.Capture(ctx); err != nil {
					b.Fatal(err)
				}
			})
		after := p.CaptureStats()
		if after.Own-before.Own != after.Full-before.Full || after.Full == before.Full {
			b.Errorf("%d of %d full captures were the tracker's own (declined %v)", after.Own-before.Own, after.Full-before.Full, after.Declined)
		}
	})
}

// onChatPages runs fn as a sub-benchmark for a seeded chat page of 20,
// 200 and 2,000 turns, opened in an idle page.
func onChatPages(b *testing.B, fn func(b *testing.B, ctx context.Context, p *browser.Page)) {
	b.Helper()
	for _, turns := range []int{20, 200, 2000} {
		page := chatpage.Render(chatpage.Options{Turns: turns, Seed: 1})
		b.Run("turns="+strconv.Itoa(turns), func(b *testing.B) {
			p := idlePage(b)
			ctx := context.Background()
			base := serveTB(b, map[string]string{"/chat": page})
			if err := p.Navigate(ctx, base+"/chat"); err != nil {
				b.Fatal(err)
			}
			fn(b, ctx, p)
		})
	}
}
