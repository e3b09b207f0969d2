package observe_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// spliceStep parses src with sp (resuming the previous source's tree) and
// fails unless the result is a fresh parse's: the fast builder takes src
// resumed exactly when it takes it fresh, and then the tree is html.Parse's
// node for node and in rendering. It returns the offset the parse resumed
// at (-1: afresh, or declined).
func spliceStep(t testing.TB, sp *observe.Splicer, name, src string) int {
	t.Helper()
	got, ok, from := sp.Parse(src)
	_, fresh := observe.FastParse(src)
	if ok != fresh {
		t.Fatalf("%s: resumed at %d the fast builder took the source: %v, fresh: %v\ninput: %.300q", name, from, ok, fresh, src)
	}
	if !ok {
		return -1
	}
	want, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatalf("%s: html.Parse: %v", name, err)
	}
	if diff := treeDiff(got, want); diff != "" {
		t.Fatalf("%s: resumed at %d the tree differs from html.Parse's: %s\ninput from there: %.300q", name, from, diff, src[max(from, 0):])
	}
	var a, b strings.Builder
	if err := html.Render(&a, got); err != nil {
		t.Fatal(err)
	}
	if err := html.Render(&b, want); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("%s: resumed at %d the rendering differs", name, from)
	}
	return from
}

// chatEdit is one random change to a chat page, at tag boundaries or
// inside text, the kinds a live page goes through (an answer streaming in,
// a turn added or removed, an attribute or a text changed) and some a
// serialised DOM does not (misnesting, a byte removed: temporary, the
// next version is the one before it, as a page that is well-formed again).
func chatEdit(r *rand.Rand, src string, k int) (string, bool) {
	out := chatEditOnce(r, src, k)
	return out, out != src && (len(out) == len(src)-1 || strings.Contains(out, "<p><div>x</div>"))
}

func chatEditOnce(r *rand.Rand, src string, k int) string {
	lines := strings.SplitAfter(src, "\n")
	pick := func() int { return r.IntN(len(lines)) }
	switch r.IntN(16) {
	case 0, 1, 2: // a streamed paragraph into the newest answer (bench/sidebyside's script)
		i := strings.LastIndex(src, `</div><div class="actions"`)
		if i < 0 {
			return src + fmt.Sprintf("<p>Streamed %d.</p>", k)
		}
		return src[:i] + fmt.Sprintf("<p>Streamed sentence %d.</p>", k) + src[i:]
	case 3: // a new turn at a random line
		i := pick()
		lines[i] = fmt.Sprintf(`<div class="turn" data-message-author-role="assistant" data-message-id="new-%d"><div class="text"><p>new <b>%d</b></p><table><tr><td>%d</td></tr></table><svg><path d="M0"/></svg></div></div>`+"\n", k, k, k) + lines[i]
	case 4: // a turn removed
		if i := pick(); strings.HasPrefix(lines[i], `<div class="turn"`) {
			lines = append(lines[:i], lines[i+1:]...)
		}
	case 5: // an attribute on a random element
		j := r.IntN(len(src))
		if at := strings.Index(src[j:], "<div"); at >= 0 {
			j += at + len("<div")
			return src[:j] + fmt.Sprintf(` data-rl-hidden="display" data-k="%d"`, k) + src[j:]
		}
	case 6: // a word inside a text
		j := r.IntN(len(src))
		if at := strings.Index(src[j:], "<p>"); at >= 0 {
			j += at + len("<p>")
			return src[:j] + fmt.Sprintf("word%d &amp; ", k) + src[j:]
		}
	case 7: // the end of the page
		return src + fmt.Sprintf("<!--%d-->", k)
	case 8: // the title (the very start)
		return strings.Replace(src, "<title>", fmt.Sprintf("<title>%d ", k), 1)
	case 9: // misnesting: the fast builder declines; the next edit may undo it
		i := pick()
		lines[i] = "<p><div>x</div>" + lines[i]
	case 10: // a random byte removed
		j := r.IntN(len(src))
		return src[:j] + src[j+1:]
	case 11: // a list and a pre
		i := pick()
		lines[i] = fmt.Sprintf("<ul><li>a %d</li><li><pre>\nb</pre><img src=\"/i/%d\" alt=\"\"></li></ul>", k, k) + lines[i]
	case 12, 13: // names that read elements by id: the referring control early, the element late
		i := pick()
		if r.IntN(2) == 0 {
			lines[i] = `<button aria-labelledby="late">b</button>` + lines[i]
		} else {
			lines[i] = `<input id="lin"><label>Wrapping <input data-k="1"></label>` + lines[i]
		}
		src = strings.Join(lines, "")
		at := strings.LastIndex(src, `</div><div class="actions"`)
		if at < 0 || strings.Contains(src, `id="late"`) {
			return src
		}
		return src[:at] + `<span id="late">late</span><label for="lin">Late label</label>` + src[at:]
	case 15: // a button open at a mark (its name from content) gets more content
		if at := strings.LastIndex(src, `<b>open</b></button>`); at >= 0 {
			return src[:at+len(`<b>open</b>`)] + fmt.Sprintf("<i>%d</i>", k) + src[at+len(`<b>open</b>`):]
		}
		if at := strings.LastIndex(src, `</div><div class="actions"`); at >= 0 {
			return src[:at] + `<button><b>open</b></button>` + src[at:]
		}
	case 14: // the late elements' text changes
		if at := strings.LastIndex(src, `</label>`); at >= 0 && r.IntN(2) == 0 {
			return src[:at] + fmt.Sprintf(" w%d", k) + src[at:]
		}
		if at := strings.LastIndex(src, `</span>`); at >= 0 {
			return src[:at] + fmt.Sprintf(" w%d", k) + src[at:]
		}
	}
	return strings.Join(lines, "")
}

// TestSpliceParseChatPages resumes the tree of each version of a seeded
// chat page for the next one, through random edit sequences, at every
// size: each tree is a fresh parse's.
func TestSpliceParseChatPages(t *testing.T) {
	sizes := chatpage.Sizes
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, n := range sizes {
		seeds, steps := 4, 40
		switch n {
		case 2000:
			seeds, steps = 2, 15
		case 20000:
			seeds, steps = 1, 3
		}
		for seed := range seeds {
			for _, step := range []int{0, 64} { // the default marks, and dense ones
				if n == 20000 && step != 0 {
					continue // 18 MB: the default marks only
				}
				restore := observe.SetMarkStep(step)
				r := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
				src := chatpage.Render(chatpage.Options{Turns: n, Seed: int64(seed + 1)})
				var sp observe.Splicer
				resumed := 0
				spliceStep(t, &sp, "first", src)
				for k := range steps {
					next, temporary := chatEdit(r, src, k)
					if spliceStep(t, &sp, fmt.Sprintf("chat%d seed %d marks %d step %d", n, seed, step, k), next) >= 0 {
						resumed++
					}
					if !temporary {
						src = next
					}
				}
				restore()
				if resumed*5 < steps {
					t.Errorf("chat%d seed %d: only %d of %d parses resumed", n, seed, resumed, steps)
				}
			}
		}
	}
}

// recordedSession is a session under recordings/sessions and its file.
type recordedSession struct {
	path string
	s    *replay.Session
}

// recordedSessions loads every session under recordings/sessions.
func recordedSessions(t *testing.T) []recordedSession {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "recordings", "sessions", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded sessions: %v", err)
	}
	var out []recordedSession
	for _, path := range files {
		s, err := replay.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recordedSession{path, s})
	}
	return out
}

// TestSpliceParseRecordings resumes every frame of every capture in
// recordings/ from the same frame of the capture before it (consecutive
// captures of real scenarios), with dense marks and with the default ones.
func TestSpliceParseRecordings(t *testing.T) {
	sessions := recordedSessions(t)
	for _, step := range []int{1, 0} {
		restore := observe.SetMarkStep(step)
		pairs, resumed := 0, 0
		for _, rs := range sessions {
			path, s := rs.path, rs.s
			splicers := map[string]*observe.Splicer{}
			for ci, c := range s.Captures {
				for _, f := range c.Frames {
					sp := splicers[f.ID]
					if sp == nil {
						sp = &observe.Splicer{}
						splicers[f.ID] = sp
					} else {
						pairs++
					}
					if spliceStep(t, sp, fmt.Sprintf("%s capture %d frame %s", path, ci, f.ID), f.HTML) >= 0 {
						resumed++
					}
				}
			}
		}
		restore()
		t.Logf("marks every %d: %d consecutive frame pairs in %d sessions, %d parses resumed", step, pairs, len(sessions), resumed)
		if step == 1 && resumed*4 < pairs {
			t.Errorf("only %d of %d consecutive frames resumed", resumed, pairs)
		}
	}
}

// TestSpliceParseHTML5Lib takes every html5lib document the fast builder
// takes, then parses random edits of it resuming the previous tree, with
// a mark at every resumable point.
func TestSpliceParseHTML5Lib(t *testing.T) {
	defer observe.SetMarkStep(1)()
	_, all := html5libDocs(t)
	var docs []string
	for _, d := range all {
		if _, ok := observe.FastParse(d.src); ok {
			docs = append(docs, d.src)
		}
	}
	r := rand.New(rand.NewPCG(16, 16))
	resumed := 0
	for i, doc := range docs {
		var sp observe.Splicer
		spliceStep(t, &sp, fmt.Sprintf("html5lib %d", i), doc)
		other := docs[r.IntN(len(docs))]
		for k, next := range []string{
			doc + other,
			doc[:len(doc)/2] + other[len(other)/2:],
			doc,
			doc[:r.IntN(len(doc)+1)] + "<b>x</b>" + doc[r.IntN(len(doc)+1):],
			doc,
		} {
			if spliceStep(t, &sp, fmt.Sprintf("html5lib %d edit %d", i, k), next) >= 0 {
				resumed++
			}
		}
	}
	t.Logf("%d html5lib documents the fast builder takes, %d parses resumed", len(docs), resumed)
}

// FuzzSpliceParse: two documents in; the parse of the second resuming the
// first's tree (a mark at every resumable point) is the fresh parse of the
// second, and so is the parse of the first again after it (seeds that found
// bugs live in testdata/fuzz/FuzzSpliceParse).
func FuzzSpliceParse(f *testing.F) {
	page := chatpage.Render(chatpage.Options{Turns: 4, Seed: 1, Sidebar: 2})
	i := strings.LastIndex(page, `</div><div class="actions">`)
	f.Add(page, page[:i]+"<p>Streamed.</p>"+page[i:])
	f.Add(`<html><head></head><body><table><tr><td><b>x</b></td></tr></table><p>a</p></body></html>`,
		`<html><head></head><body><table><tr><td><b>x</b></td><td>y</td></tr></table></body></html>`)
	f.Add(`<html><head></head><body><svg><path d="M0"/><g><rect/></g></svg><form><ul><li>a</li></ul></form></body></html>`,
		`<html><head></head><body><svg><path d="M0"/><g><rect/><circle/></g></svg></body></html>`)
	f.Add(`<html><head></head><body><pre><b>x</b></pre><textarea>t</textarea></body></html><!--c-->`,
		`<html><head></head><body><pre><b>x</b>`+"\n"+`y</pre></body></html><!--c--><!--d-->`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1<<15 || len(b) > 1<<15 {
			return
		}
		defer observe.SetMarkStep(1)()
		var sp observe.Splicer
		spliceStep(t, &sp, "first", a)
		spliceStep(t, &sp, "second after first", b)
		spliceStep(t, &sp, "first after second", a)
		// the same as documents, plain and live (the walk resumes)
		for _, live := range []bool{false, true} {
			x, y := a, b
			if live {
				x = strings.Replace(x, "<html", `<html data-rl-node="1"`, 1)
				y = strings.Replace(y, "<html", `<html data-rl-node="1"`, 1)
			}
			var prev *observe.Document
			for _, src := range []string{x, y, x} {
				c := capture.New("http://fuzz/", src)
				got, err := observe.ParseAfter(c, prev)
				if err != nil {
					t.Fatal(err)
				}
				want, err := observe.Parse(c)
				if err != nil {
					t.Fatal(err)
				}
				if msg := docDiff(got, want); msg != "" {
					t.Fatalf("live %v: %s\nfrom %q\nto %q", live, msg, x, src)
				}
				prev = got
			}
		}
	})
}

// TestParseAfter: a document parsed after the previous capture of the page
// (ParseAfter) is Parse's: the same node ids, hidden flags and frames for
// every element, and the same observation and views.
func TestParseAfter(t *testing.T) {
	defer observe.SetMarkStep(64)()
	r := rand.New(rand.NewPCG(7, 7))
	src := chatpage.Render(chatpage.Options{Turns: 200, Seed: 9})
	frame := `<html><head></head><body><button>in frame</button></body></html>`
	var prev *observe.Document
	for k := range 30 {
		c := capture.New("http://x/chat", src)
		c.Frames = append(c.Frames, capture.Frame{ID: "f2", Parent: c.Frames[0].ID, URL: "http://x/f", HTML: frame})
		got, err := observe.ParseAfter(c, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := observe.Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		if msg := docDiff(got, want); msg != "" {
			t.Fatalf("step %d: %s", k, msg)
		}
		prev = got
		if next, temporary := chatEdit(r, src, k); !temporary {
			src = next
		}
		if k%5 == 4 {
			frame = strings.Replace(frame, "</body>", fmt.Sprintf("<p>%d</p></body>", k), 1)
		}
	}
}

// TestParseAfterLive is TestParseAfter on live captures (node ids and
// hidden state written by the browser), where the index walk resumes too.
func TestParseAfterLive(t *testing.T) {
	for _, step := range []int{0, 64, 1} {
		restore := observe.SetMarkStep(step)
		r := rand.New(rand.NewPCG(8, uint64(step)))
		src := chatpage.Live(chatpage.Render(chatpage.Options{Turns: 200, Seed: 10}))
		var prev *observe.Document
		walks := 0
		for k := range 40 {
			got, err := observe.ParseAfter(capture.New("http://x/chat", src), prev)
			if err != nil {
				t.Fatal(err)
			}
			want, err := observe.Parse(capture.New("http://x/chat", src))
			if err != nil {
				t.Fatal(err)
			}
			if msg := docDiff(got, want); msg != "" {
				t.Fatalf("marks %d step %d (walk resumed at %d): %s", step, k, got.WalkFrom(0), msg)
			}
			if got.WalkFrom(0) >= 0 {
				walks++
			}
			prev = got
			if next, temporary := chatEdit(r, src, k); !temporary {
				src = next
			}
		}
		restore()
		if walks < 4 {
			t.Errorf("marks %d: the index walk resumed in only %d of 40 reads", step, walks)
		}
	}
}

// TestParseAfterRecordings parses every capture of every recorded session
// after the capture before it (ParseAfter) and compares the document with
// Parse's: trees, node ids, hidden flags, frames, observations.
func TestParseAfterRecordings(t *testing.T) {
	sessions := recordedSessions(t)
	for _, step := range []int{1, 0} {
		restore := observe.SetMarkStep(step)
		reads, walks := 0, 0
		for _, rs := range sessions {
			path, s := rs.path, rs.s
			var prev *observe.Document
			for ci, c := range s.Captures {
				got, err := observe.ParseAfter(c, prev)
				if err != nil {
					t.Fatal(err)
				}
				want, err := observe.Parse(c)
				if err != nil {
					t.Fatal(err)
				}
				if msg := docDiff(got, want); msg != "" {
					t.Fatalf("%s capture %d, marks %d: %s", path, ci, step, msg)
				}
				reads++
				for i := range got.Frames {
					if got.WalkFrom(i) >= 0 {
						walks++
					}
				}
				prev = got
			}
		}
		restore()
		t.Logf("marks every %d: %d reads, %d frame walks resumed", step, reads, walks)
		if step == 1 && walks == 0 {
			t.Error("no index walk resumed on the recordings")
		}
	}
}

// docDiff compares two documents of the same capture: every element's
// node id, frame and hidden flag, and both views and the full candidate
// list of their observations.
func docDiff(got, want *observe.Document) string {
	if len(got.Frames) != len(want.Frames) {
		return fmt.Sprintf("%d frames, want %d", len(got.Frames), len(want.Frames))
	}
	for i := range got.Frames {
		if diff := treeDiff(got.Frames[i].Root, want.Frames[i].Root); diff != "" {
			return "frame " + got.Frames[i].ID + ": " + diff
		}
		var ge, we []*html.Node
		observe.WalkElements(got.Frames[i].Root, func(n *html.Node) bool { ge = append(ge, n); return true })
		observe.WalkElements(want.Frames[i].Root, func(n *html.Node) bool { we = append(we, n); return true })
		for k := range we {
			if a, b := got.NodeID(ge[k]), want.NodeID(we[k]); a != b {
				return fmt.Sprintf("element %d: node id %q, want %q", k, a, b)
			}
			if a, b := got.Hidden(ge[k]), want.Hidden(we[k]); a != b {
				return fmt.Sprintf("element %d (%s): hidden %v, want %v", k, got.NodeID(ge[k]), a, b)
			}
			if a, b := got.FrameOf(ge[k]), want.FrameOf(we[k]); a != b {
				return fmt.Sprintf("element %d: frame %q, want %q", k, a, b)
			}
		}
	}
	media := false
	for _, f := range want.Frames {
		observe.WalkElements(f.Root, func(n *html.Node) bool {
			media = media || n.DataAtom == atom.Img || n.DataAtom == atom.Video || n.DataAtom == atom.Audio
			return true
		})
	}
	if got.HasMedia() != media || want.HasMedia() != media {
		return fmt.Sprintf("HasMedia %v (Parse: %v), the page has media: %v", got.HasMedia(), want.HasMedia(), media)
	}
	og, ow := observe.Observe(got, 3, observe.Options{}), observe.Observe(want, 3, observe.Options{})
	big := observe.DefaultLimits
	big.ElementsMax, big.MergedElementsMax, big.TextCharsMax, big.MergedTextCharsMax = 1<<30, 1<<30, 1<<30, 1<<30
	a, _ := json.Marshal([]any{og.View(observe.ViewFull, big), og.View(observe.ViewPage, observe.PageLimits), og.All})
	b, _ := json.Marshal([]any{ow.View(observe.ViewFull, big), ow.View(observe.ViewPage, observe.PageLimits), ow.All})
	if string(a) != string(b) {
		return "the observations differ"
	}
	return ""
}

// TestParseAfterNames: names an observation computed on the previous
// document are kept only where they cannot have changed; each row changes
// what a kept name would have read.
func TestParseAfterNames(t *testing.T) {
	defer observe.SetMarkStep(1)()
	head := `<!doctype html><html data-rl-node="1"><head></head><body><main>`
	tail := `</main></body></html>`
	for _, tc := range []struct{ name, before, after string }{
		{"content of a button open at the mark", `<p>x</p><button><b>open</b></button>`, `<p>x</p><button><b>open</b><i>more</i></button>`},
		{"aria-labelledby of a later element", `<button aria-labelledby="l">b</button><p>x</p><span id="l">late</span>`, `<button aria-labelledby="l">b</button><p>x</p><span id="l">late <b>and</b></span>`},
		{"aria-labelledby of an element added later", `<button aria-labelledby="l">b</button><p>x</p>`, `<button aria-labelledby="l">b</button><p>x</p><span id="l">late</span>`},
		{"label for added later", `<input id="i"><p>x</p>`, `<input id="i"><p>x</p><label for="i">Late</label>`},
		{"wrapping label open at the mark", `<label>Name <input><b>x</b></label>`, `<label>Name <input><b>x</b> more</label>`},
		{"a closed button keeps its name", `<button>one</button><p>x</p>`, `<button>one</button><p>x</p><button>two</button>`},
		{"a heading open at the mark", `<h2><b>one</b></h2>`, `<h2><b>one</b> two</h2>`},
		{"a heading labelled by a later element", `<h2 aria-labelledby="h"><b>x</b></h2><p>x</p><span id="h">a</span>`, `<h2 aria-labelledby="h"><b>x</b></h2><p>x</p><span id="h">a <b>b</b></span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c1 := capture.New("http://x/", head+tc.before+tail)
			c2 := capture.New("http://x/", head+tc.after+tail)
			if _, ok := observe.FastParse(c2.Frames[0].HTML); !ok {
				t.Fatalf("the fast builder declines %q", c2.Frames[0].HTML)
			}
			d1, err := observe.ParseAfter(c1, nil)
			if err != nil {
				t.Fatal(err)
			}
			observe.Observe(d1, 1, observe.Options{}) // names computed on the first tree
			got, err := observe.ParseAfter(c2, d1)
			if err != nil {
				t.Fatal(err)
			}
			if got.WalkFrom(0) < 0 {
				t.Fatal("the walk did not resume")
			}
			want, err := observe.Parse(c2)
			if err != nil {
				t.Fatal(err)
			}
			if msg := docDiff(got, want); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}
