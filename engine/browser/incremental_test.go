package browser_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/internal/pairbench"
)

var (
	incSeeds = flag.Int("incremental.seeds", 16, "TestIncrementalCaptureMatchesFull: how many seeds (1 … n)")
	incSeed  = flag.Int("incremental.seed", 0, "TestIncrementalCaptureMatchesFull: replay this one seed")
	incSteps = flag.Int("incremental.steps", 30, "TestIncrementalCaptureMatchesFull: random edits per seed")
)

// propPage is the page the property test edits: a stylesheet whose rules
// hide through classes, sibling and :has() selectors and pseudo-classes,
// and helpers the edits use to pick nodes.
//
// The seeds take turns with three stylesheets: one with :has() (the
// tracker checks the whole document on every capture), one with sibling
// combinators and :checked (the changed elements' siblings are checked
// too; a checked or value change checks everything), one with neither
// (only the changed subtrees and their ancestors are checked).
var propSheets = []string{
	`.hide{display:none} .vis{visibility:hidden} .show{visibility:visible} .coll{visibility:collapse}
.contents{display:contents} .sib + *{display:none} .has:has(.trigger){visibility:hidden}
input:checked + span{display:none} .x p{color:red}`,
	`.hide{display:none} .vis{visibility:hidden} .show{visibility:visible} .coll{visibility:collapse}
.contents{display:contents} .sib + *{display:none} .sib ~ .trigger{visibility:hidden}
input:checked + span{display:none} .x p{display:none} li:last-child{visibility:hidden}`,
	`.hide{display:none} .vis{visibility:hidden} .show{visibility:visible} .coll{visibility:collapse}
.contents{display:contents} .x p{display:none} .trigger .turn{visibility:hidden} .has > b{display:none}
@media (min-width: 1px) { .has .sib{display:none} }`,
}

const propPage = `<!DOCTYPE html><html><head><title>prop</title><style id="base">
SHEET
</style></head><body><main id="root" class="has">
  <h1>Title</h1>
  <section class="turn"><p>first <b>answer</b> text</p> <p>second</p></section>
  <form><input id="t" type="text" value="start"><input type="checkbox" id="c"><span>after check</span>
  <textarea>area</textarea><select><option>a</option><option selected>b</option><option>c</option></select></form>
  <ul><li>one</li><li class="hide">two <i>in</i></li><li>three</li></ul>
  <img src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" alt="pixel">
  <video></video><div style="display:contents">contents <span>child</span></div>
</main><script>
document.addEventListener("submit", (e) => e.preventDefault(), true);
document.addEventListener("click", (e) => { if (e.target.closest && e.target.closest("a")) e.preventDefault(); }, true);
window.__els = () => Array.from(document.body.querySelectorAll("*"));
window.__pick = (r) => { const a = __els(); return a.length ? a[Math.floor(r * a.length)] : null; };
window.__texts = () => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); const a = []; while (w.nextNode()) a.push(w.currentNode); return a; };
window.__frag = (h) => { const t = document.createElement("template"); t.innerHTML = h; return t.content; };
window.__settle = async () => {
  for (const i of document.images) { if (!i.complete) await new Promise((r) => { i.addEventListener("load", r, {once: true}); i.addEventListener("error", r, {once: true}); setTimeout(r, 500); }); }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
};
</script></body></html>`

var (
	propTags    = []string{"div", "span", "p", "b", "section", "button", "a", "ul", "li", "label", "article", "h2", "em"}
	propClasses = []string{"hide", "vis", "show", "coll", "contents", "sib", "has", "trigger", "x", "turn"}
	propTexts   = []string{"hello", " ", "", "\n  ", "a < b & c > \"d\"", "streamed sentence", "ünïcødé ✓", "\u00a0"}
	propStyles  = []string{"", "display:none", "visibility:hidden", "visibility:visible", "display:block", "display:contents", "display:inline-block; width:10px"}
	propSrcs    = []string{
		"data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==",
		"data:image/gif;base64,R0lGODlhAgACAIAAAP///wAAACH5BAEAAAAALAAAAAACAAIAAAIChFEAOw==",
		"data:image/png;base64,broken",
		"/missing.png",
	}
)

// propFrag writes a random fragment of HTML.
func propFrag(r *rand.Rand, depth int) string {
	var b strings.Builder
	for range 1 + r.Intn(3) {
		switch k := r.Intn(12); {
		case k < 3:
			b.WriteString(htmlEscape(propTexts[r.Intn(len(propTexts))]))
		case k == 3:
			fmt.Fprintf(&b, `<input type="%s" value="%s">`, []string{"text", "checkbox", "radio", "Checkbox"}[r.Intn(4)], htmlEscape(propTexts[r.Intn(len(propTexts))]))
		case k == 4:
			b.WriteString(`<select><option>x</option><option>y</option><option selected>z</option></select>`)
		case k == 5:
			fmt.Fprintf(&b, `<img src="%s" alt="i">`, propSrcs[r.Intn(len(propSrcs))])
		case k == 6:
			b.WriteString(`<textarea>typed</textarea>`)
		default:
			tag := propTags[r.Intn(len(propTags))]
			b.WriteString("<" + tag)
			if r.Intn(2) == 0 {
				fmt.Fprintf(&b, ` class="%s"`, propClasses[r.Intn(len(propClasses))])
			}
			if r.Intn(4) == 0 {
				fmt.Fprintf(&b, ` style="%s"`, propStyles[r.Intn(len(propStyles))])
			}
			if r.Intn(8) == 0 {
				b.WriteString(` hidden`)
			}
			if r.Intn(8) == 0 {
				b.WriteString(` data-rl-node="999" data-rl-hidden="display"`) // the page's own copies are dropped
			}
			b.WriteString(">")
			if depth > 0 {
				b.WriteString(propFrag(r, depth-1))
			} else {
				b.WriteString(htmlEscape(propTexts[r.Intn(len(propTexts))]))
			}
			b.WriteString("</" + tag + ">")
		}
	}
	return b.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func jsq(s string) string { return strconv.Quote(s) }

// propEdit returns one random edit as JavaScript for the page's own world.
func propEdit(r *rand.Rand, frames bool) string {
	f := func() string { return strconv.FormatFloat(r.Float64(), 'f', 6, 64) }
	where := []string{"beforebegin", "afterbegin", "beforeend", "afterend"}[r.Intn(4)]
	switch k := r.Intn(22); k {
	case 0, 1, 2:
		return fmt.Sprintf(`{const e=__pick(%s); if(e) e.insertAdjacentHTML(%s, %s)}`, f(), jsq(where), jsq(propFrag(r, 2)))
	case 3:
		return fmt.Sprintf(`{const e=__pick(%s); if(e && e.id!=="root" && e.id!=="base") e.remove()}`, f())
	case 4:
		return fmt.Sprintf(`{const e=__pick(%s), t=__pick(%s); if(e && t && !e.contains(t) && e.id!=="root") t.insertAdjacentElement(%s, e)}`, f(), f(), jsq(where))
	case 5, 6:
		return fmt.Sprintf(`{const a=__texts(); if(a.length) a[Math.floor(%s*a.length)].data=%s}`, f(), jsq(propTexts[r.Intn(len(propTexts))]))
	case 7, 8:
		return fmt.Sprintf(`{const e=__pick(%s); if(e) e.classList.toggle(%s)}`, f(), jsq(propClasses[r.Intn(len(propClasses))]))
	case 9:
		return fmt.Sprintf(`{const e=__pick(%s); if(e) e.setAttribute("style", %s)}`, f(), jsq(propStyles[r.Intn(len(propStyles))]))
	case 10:
		return fmt.Sprintf(`{const e=__pick(%s); if(e) e.style.%s=%s}`, f(), []string{"display", "visibility"}[r.Intn(2)], jsq([]string{"none", "", "hidden", "visible", "contents", "block"}[r.Intn(6)]))
	case 11:
		attr := []string{"title", "aria-label", "hidden", "data-x", "type", "value", "checked", "selected", "data-rl-value"}[r.Intn(9)]
		if r.Intn(3) == 0 {
			return fmt.Sprintf(`{const e=__pick(%s); if(e) e.removeAttribute(%s)}`, f(), jsq(attr))
		}
		return fmt.Sprintf(`{const e=__pick(%s); if(e) e.setAttribute(%s, %s)}`, f(), jsq(attr), jsq([]string{"checkbox", "text", "", "x y", "radio"}[r.Intn(5)]))
	case 12:
		return fmt.Sprintf(`{const a=document.querySelectorAll("input,textarea"); if(a.length) a[Math.floor(%s*a.length)].value=%s}`, f(), jsq(propTexts[r.Intn(len(propTexts))]))
	case 13:
		return fmt.Sprintf(`{const a=document.querySelectorAll("input"); if(a.length){const e=a[Math.floor(%s*a.length)]; e.checked=!e.checked}}`, f())
	case 14:
		return fmt.Sprintf(`{const a=document.querySelectorAll("select"); if(a.length){const e=a[Math.floor(%s*a.length)]; e.selectedIndex=Math.floor(%s*(e.options.length+1))-1}}`, f(), f())
	case 15:
		return fmt.Sprintf(`{const a=document.querySelectorAll("img,video"); if(a.length){const e=a[Math.floor(%s*a.length)]; if(%s<0.2) e.removeAttribute("src"); else e.src=%s}}`, f(), f(), jsq(propSrcs[r.Intn(len(propSrcs))]))
	case 16:
		rule := []string{".x{display:none}", "li{visibility:hidden}", "p{display:contents}", ".turn b{display:none}", "section{visibility:visible}"}[r.Intn(5)]
		if r.Intn(2) == 0 {
			return fmt.Sprintf(`{const s=document.getElementById("base"); if(s) s.sheet.insertRule(%s, s.sheet.cssRules.length)}`, jsq(rule)) // CSSOM: no DOM mutation
		}
		return fmt.Sprintf(`{const s=document.getElementById("base"); if(s) s.textContent+=%s}`, jsq(rule))
	case 17:
		return fmt.Sprintf(`document.title=%s`, jsq(propTexts[r.Intn(len(propTexts))]))
	case 18:
		if frames {
			return fmt.Sprintf(`{const e=__pick(%s); if(e) e.insertAdjacentHTML(%s, '<iframe srcdoc="<p>in a frame</p>"></iframe>')}`, f(), jsq(where))
		}
		return `document.querySelectorAll("iframe").forEach((e) => e.remove())`
	case 19:
		return `document.querySelectorAll("iframe").forEach((e) => e.remove())`
	case 20:
		return fmt.Sprintf(`{const e=__pick(%s); if(e && e.id!=="root") e.innerHTML=%s}`, f(), jsq(propFrag(r, 1)))
	default:
		return fmt.Sprintf(`{const e=__pick(%s); if(e && e.parentNode) e.parentNode.insertBefore(__frag(%s), e)}`, f(), jsq(propFrag(r, 1)))
	}
}

var inputNode = regexp.MustCompile(`<(?:input|textarea)[^>]*data-rl-node="(t?\d+)"`)

// TestIncrementalCaptureMatchesFull is the incremental capture's property
// test: over many seeds it applies random DOM edits to a page in real
// Chromium (subtrees inserted, removed, moved and replaced, texts, classes,
// styles and attributes, display:none/contents and visibility on
// ancestors, stylesheet rules through the DOM and through CSSOM, values
// typed and set by script, checked, selected options, image sources,
// iframes, the title) and after every edit compares the capture Capture
// returns (incremental once the page is tracked) with a full
// DOMSnapshot.captureSnapshot capture, byte for byte. Where the tracker
// wrote the capture (own.go) its node ids are the tracker's: each is
// resolved to its element as an action resolves it and replaced by that
// element's backend node id first, and the ids must be a mapping that
// holds over time: no tracker id names two elements in a page's life, and
// an element keeps its id from capture to capture while the tracker's own
// captures follow one another. A failure prints the seed;
// -incremental.seed=N replays it.
func TestIncrementalCaptureMatchesFull(t *testing.T) {
	p := idlePage(t)
	ctx := context.Background()
	browser.CheckSpliceForTest(true)
	browser.CheckDecodeForTest(true)
	t.Cleanup(func() { browser.CheckSpliceForTest(false); browser.CheckDecodeForTest(false) })
	pages := map[string]string{}
	for i, sh := range propSheets {
		pages["/"+strconv.Itoa(i)] = strings.Replace(propPage, "SHEET", sh, 1)
	}
	base := serveTB(t, pages)
	seeds := []int{}
	if *incSeed != 0 {
		seeds = append(seeds, *incSeed)
	} else {
		for s := 1; s <= *incSeeds; s++ {
			seeds = append(seeds, s)
		}
	}
	total := browser.Stats{}
	steps, cheapSteps, ownSteps := 0, 0, 0
	// what the tracker's ids resolved to: every id ever (a backend id per
	// tracker id, in the page's life), and per element while the captures
	// carry tracker ids (reset when one does not)
	idBackend, backendID := map[string]string{}, map[string]string{}
	declined := map[string]int{}
	for _, seed := range seeds {
		r := rand.New(rand.NewSource(int64(seed)))
		if err := p.Navigate(ctx, base+"/"+strconv.Itoa(seed%len(propSheets))); err != nil {
			t.Fatal(err)
		}
		before := p.CaptureStats()
		var log []string
		fail := func(step int, format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d step %d: %s\nedits:\n  %s\nreplay: go test ./engine/browser -run TestIncrementalCaptureMatchesFull -incremental.seed=%d -incremental.steps=%d -v",
				seed, step, fmt.Sprintf(format, args...), strings.Join(log, "\n  "), seed, *incSteps)
		}
		var last *capture.Capture
		for step := 0; step <= *incSteps; step++ {
			if step > 0 {
				frames := seed%4 == 0 // a quarter of the seeds insert iframes
				switch {
				case r.Intn(10) == 0 && last != nil:
					// a user types into a field (or clicks a box)
					ids := inputNode.FindAllStringSubmatch(last.Frames[0].HTML, -1)
					if len(ids) > 0 {
						id := ids[r.Intn(len(ids))][1]
						if r.Intn(2) == 0 {
							text := propTexts[r.Intn(len(propTexts))]
							log = append(log, fmt.Sprintf("type %q into node %s", text, id))
							_ = p.Type(ctx, id, text) // a hidden field cannot take focus: the edit is a no-op
						} else {
							log = append(log, "click node "+id)
							_ = p.Click(ctx, id)
						}
						break
					}
					fallthrough
				default:
					js := propEdit(r, frames)
					log = append(log, js)
					if _, err := p.EvalForTest(ctx, js); err != nil {
						fail(step, "edit: %v", err)
					}
				}
			}
			if _, err := p.EvalForTest(ctx, "__settle()"); err != nil {
				fail(step, "settle: %v", err)
			}
			got, err := p.Capture(ctx)
			if err != nil {
				fail(step, "capture: %v", err)
			}
			mapped, n, err := p.BackendIDsForTest(ctx, got)
			if err != nil {
				fail(step, "resolving the tracker's ids: %v", err)
			}
			if n == 0 {
				clear(backendID)
			} else {
				ownSteps++
			}
			for id, b := range trackedIDs(got, mapped) {
				if was, ok := idBackend[id]; ok && was != b {
					fail(step, "tracker id %s named backend node %s, now %s", id, was, b)
				}
				idBackend[id] = b
				if was, ok := backendID[b]; ok && was != id {
					fail(step, "backend node %s had tracker id %s, now %s", b, was, id)
				}
				backendID[b] = id
			}
			want, err := p.CaptureFull(ctx)
			if err != nil {
				fail(step, "full capture: %v", err)
			}
			if d := captureDiff(mapped, want); d != "" {
				fail(step, "the capture differs from a full capture: %s", d)
			}
			// the tracker's full capture (cheap.go), taken without
			// restarting the tracker, equals it too, or declines
			cheap, reason, err := p.CaptureCheapForTest(ctx)
			if err != nil {
				fail(step, "the tracker's full capture: %v", err)
			}
			if cheap == nil {
				declined[reason]++
			} else if d := captureDiff(cheap, want); d != "" {
				fail(step, "the tracker's full capture differs from captureSnapshot's: %s", d)
			} else {
				cheapSteps++
			}
			last = got
			steps++
		}
		after := p.CaptureStats()
		total.Full += after.Full - before.Full
		total.Incremental += after.Incremental - before.Incremental
		t.Logf("seed %d: %d full, %d incremental captures", seed, after.Full-before.Full, after.Incremental-before.Incremental)
	}
	st := p.CaptureStats()
	t.Logf("%d steps over %d seeds: %d full captures, %d incremental; fallbacks %v; state passes %v", steps, len(seeds), total.Full, total.Incremental, st.Fallbacks, st.Passes)
	t.Logf("the tracker's full capture: %d of %d steps equal, declined %v", cheapSteps, steps, declined)
	t.Logf("tracker ids: %d of %d captures, %d own full captures, declined %v", ownSteps, steps, st.Own, st.Declined)
	if ownSteps < steps/2 {
		t.Errorf("only %d of %d captures carried the tracker's ids (declined %v)", ownSteps, steps, st.Declined)
	}
	if cheapSteps < steps/2 {
		t.Errorf("the tracker's full capture was taken in only %d of %d steps (declined %v)", cheapSteps, steps, declined)
	}
	for reason, n := range st.Fallbacks {
		if strings.Contains(reason, "spliced") {
			t.Errorf("%d incremental captures wrote spliced HTML that differs from a write of every node", n)
		}
	}
	// the test proves nothing if the incremental path never ran
	if total.Incremental < steps/2 {
		t.Errorf("only %d of %d captures were incremental (fallbacks %v)", total.Incremental, steps, st.Fallbacks)
	}
	if *incSeed == 0 && st.Passes["scoped"] < steps/10 {
		t.Errorf("only %d of %d state passes were scoped (%v)", st.Passes["scoped"], steps, st.Passes)
	}
}

var nodeAttr = regexp.MustCompile(`data-rl-node="([^"]*)"`)

// trackedIDs pairs the tracker ids of a capture with the backend ids they
// were rewritten into (same HTML but for the ids, in the same order).
func trackedIDs(got, mapped *capture.Capture) map[string]string {
	a := nodeAttr.FindAllStringSubmatch(got.Frames[0].HTML, -1)
	b := nodeAttr.FindAllStringSubmatch(mapped.Frames[0].HTML, -1)
	out := map[string]string{}
	for i := range a {
		if i < len(b) && strings.HasPrefix(a[i][1], "t") {
			out[a[i][1]] = b[i][1]
		}
	}
	return out
}

// captureDiff describes the first difference between two captures, "" when
// they are equal.
func captureDiff(got, want *capture.Capture) string {
	if got.URL != want.URL || got.Title != want.Title {
		return fmt.Sprintf("url/title %q %q, want %q %q", got.URL, got.Title, want.URL, want.Title)
	}
	if len(got.Frames) != len(want.Frames) {
		return fmt.Sprintf("%d frames, want %d", len(got.Frames), len(want.Frames))
	}
	for i := range got.Frames {
		g, w := got.Frames[i], want.Frames[i]
		if g.ID != w.ID || g.Parent != w.Parent || g.Owner != w.Owner || g.URL != w.URL {
			return fmt.Sprintf("frame %d is %+v, want %+v", i, frameHead(g), frameHead(w))
		}
		if g.HTML != w.HTML {
			k := 0
			for k < len(g.HTML) && k < len(w.HTML) && g.HTML[k] == w.HTML[k] {
				k++
			}
			from := max(0, k-160)
			return fmt.Sprintf("frame %s at byte %d:\n  got  …%s⟦%s⟧\n  want …%s⟦%s⟧", g.ID, k, g.HTML[from:k], clip(g.HTML[k:], 160), w.HTML[from:k], clip(w.HTML[k:], 160))
		}
	}
	return ""
}

func frameHead(f capture.Frame) capture.Frame { f.HTML = ""; return f }

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// streamEdit appends a sentence to the newest answer of a chatpage page,
// as an answer streaming in does.
const streamEdit = `{const t=document.querySelectorAll('[data-message-author-role=assistant] .text'); const p=t[t.length-1]; if(p) p.insertAdjacentHTML('beforeend','<p>Streamed sentence '+performance.now()+'.</p>')}`

// BenchmarkLiveSnapshotAfterChange: a live capture of a chat page right
// after a small change (a sentence streamed into the newest answer), the
// incremental capture (Capture) against a full DOMSnapshot.captureSnapshot
// capture (CaptureFull) in the same loop: x-full is incremental ÷ full.
// Both include the edit (one evaluation).
//
//	go test ./engine/browser -run '^$' -bench LiveSnapshotAfterChange -benchtime 10x
func BenchmarkLiveSnapshotAfterChange(b *testing.B) {
	onChatPages(b, func(b *testing.B, ctx context.Context, p *browser.Page) {
		if _, err := p.Capture(ctx); err != nil {
			b.Fatal(err)
		}
		edit := func() {
			if _, err := p.EvalForTest(ctx, streamEdit); err != nil {
				b.Fatal(err)
			}
		}
		// warm: the first incremental capture of a document checks it all
		edit()
		if _, err := p.Capture(ctx); err != nil {
			b.Fatal(err)
		}
		before := p.CaptureStats()
		pairbench.Run(b, "full",
			func() {
				edit()
				if _, err := p.CaptureFull(ctx); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				edit()
				if _, err := p.Capture(ctx); err != nil {
					b.Fatal(err)
				}
			})
		after := p.CaptureStats()
		if n := after.Incremental - before.Incremental; n > 0 {
			b.ReportMetric((after.TrackerMS-before.TrackerMS)/float64(n), "tracker-ms/op")
		}
		if after.Full != before.Full {
			b.Errorf("%d of the captures were full (fallbacks %v)", after.Full-before.Full, after.Fallbacks)
		}
	})
}
