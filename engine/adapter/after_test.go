package adapter

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// liveEdit is one random change to a live chat page (chatpage.Live) of the
// kinds a page goes through while an agent reads it: an answer streaming
// in, a turn added at the end or in the middle, a turn removed, a turn's
// message id changed or removed (its id then comes from its position or
// a descendant), a user turn added, a generating signal on and off.
func liveEdit(r *rand.Rand, src string, k int) string {
	lines := strings.SplitAfter(src, "\n")
	turnLine := func() int {
		for range 20 {
			if i := r.IntN(len(lines)); strings.HasPrefix(lines[i], `<div class="turn"`) {
				return i
			}
		}
		return -1
	}
	switch r.IntN(10) {
	case 0, 1, 2, 3: // a streamed paragraph into the newest answer
		if i := strings.LastIndex(src, `</div><div class="actions"`); i >= 0 {
			return src[:i] + fmt.Sprintf("<p>Streamed sentence %d.</p>", k) + src[i:]
		}
	case 4: // a new answer after a random turn, or at the end
		turn := fmt.Sprintf(`<div class="turn" data-message-author-role="assistant" data-message-id="new-%d"><div class="text"><p>New %d.</p></div></div>`+"\n", k, k)
		if i := turnLine(); i >= 0 && r.IntN(2) == 0 {
			lines[i] += turn
		} else if at := strings.LastIndex(src, "</div>\n<form"); at >= 0 {
			return src[:at] + turn + src[at:]
		}
	case 5: // a turn removed
		if i := turnLine(); i >= 0 {
			lines = append(lines[:i], lines[i+1:]...)
		}
	case 6: // a message id changed or removed
		if i := turnLine(); i >= 0 {
			if r.IntN(2) == 0 {
				lines[i] = strings.Replace(lines[i], `data-message-id="`, fmt.Sprintf(`data-message-id="x%d-`, k), 1)
			} else {
				lines[i] = strings.Replace(lines[i], `data-message-id="`, `data-was="`, 1)
			}
		}
	case 7: // a user turn added
		if i := turnLine(); i >= 0 {
			lines[i] += fmt.Sprintf(`<div class="turn" data-message-author-role="user"><div class="text"><p>Q %d</p></div></div>`+"\n", k)
		}
	case 8: // the newest answer generating, or not
		if i := strings.LastIndex(src, `data-message-author-role="assistant"`); i >= 0 {
			if j := strings.Index(src[i:], ` aria-busy="true"`); j >= 0 && j < 200 {
				return src[:i+j] + src[i+j+len(` aria-busy="true"`):]
			}
			return src[:i] + `aria-busy="true" ` + src[i:]
		}
	case 9: // a turn's id from a descendant
		if i := turnLine(); i >= 0 {
			lines[i] = strings.Replace(strings.Replace(lines[i], `data-message-id="`, `data-gone="`, 1), `<div class="text`, fmt.Sprintf(`<div data-id="d%d" class="text`, k), 1)
		}
	}
	return strings.Join(lines, "")
}

// TestLazyAfterIsLazy: through random edit sequences of a live chat page,
// groups found on each parse resumed from the last (observe.ParseAfter)
// with the last result (LazyAfter) are, once loaded, the groups of a fresh
// parse — ids, rules, texts, states, media, the turns' nodes (by node id)
// and the user turns — and turns the parse kept are taken over.
func TestLazyAfterIsLazy(t *testing.T) {
	t.Parallel()
	for _, ad := range []Adapter{DefaultMarker, DefaultAuto} {
		for seed := range uint64(6) {
			t.Run(fmt.Sprintf("%s/seed=%d", ad.Name(), seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 28))
				src := chatpage.Live(chatpage.Render(chatpage.Options{Turns: 60, Seed: int64(seed)}))
				var prevDoc *observe.Document
				var prev Result
				kept := 0
				for k := range 30 {
					c := capture.New("http://x/chat", src)
					doc, err := observe.ParseAfter(c, prevDoc)
					if err != nil {
						t.Fatal(err)
					}
					fresh, err := observe.Parse(capture.New("http://x/chat", src))
					if err != nil {
						t.Fatal(err)
					}
					got := LazyAfter(ad, doc, prev)
					for _, g := range got.Groups {
						if doc.Kept(g.Node) {
							kept++
						}
					}
					prev = got
					got.Load(0, len(got.Groups))
					want := ad.Groups(fresh)
					if msg := resultDiff(doc, got, fresh, want); msg != "" {
						t.Fatalf("edit %d: %s", k, msg)
					}
					prevDoc = doc
					src = liveEdit(r, src, k)
				}
				if kept == 0 {
					t.Error("no turn was kept")
				}
			})
		}
	}
}

// resultDiff compares two results of two parses of one page, nodes by
// their node ids.
func resultDiff(gd *observe.Document, got Result, wd *observe.Document, want Result) string {
	ids := func(d *observe.Document, ns []*html.Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, d.NodeID(n))
		}
		return out
	}
	if !reflect.DeepEqual(ids(gd, got.Users), ids(wd, want.Users)) {
		return fmt.Sprintf("users %v, want %v", ids(gd, got.Users), ids(wd, want.Users))
	}
	if len(got.Groups) != len(want.Groups) {
		return fmt.Sprintf("%d groups, want %d", len(got.Groups), len(want.Groups))
	}
	for i := range got.Groups {
		g, w := got.Groups[i], want.Groups[i]
		if gd.NodeID(g.Node) != wd.NodeID(w.Node) {
			return fmt.Sprintf("group %d: node %s, want %s", i, gd.NodeID(g.Node), wd.NodeID(w.Node))
		}
		g.Node, w.Node, g.pending, w.pending = nil, nil, nil, nil
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("group %d:\n%+v\nwant\n%+v", i, g, w)
		}
	}
	got.Groups, want.Groups, got.Users, want.Users = nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("result %+v, want %+v", got, want)
	}
	return ""
}

// TestGroupRootsIsGroupOf: an observation naming groups by their roots'
// place in document order (observe.Options.GroupRoots) names every
// candidate's group as one asking GroupOf does, for every built-in style
// (flat sibling turns too), through live edits.
func TestGroupRootsIsGroupOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ad   Adapter
		page string
	}{
		{"marker chat page", DefaultMarker, chatpage.Live(chatpage.Render(chatpage.Options{Turns: 40, Seed: 3}))},
		{"heading", DefaultHeading, benchPage("heading", 30)},
		{"heading flat", DefaultHeading, benchPage("heading-flat", 30)},
		{"auto", DefaultAuto, chatpage.Render(chatpage.Options{Turns: 20, Seed: 4})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			src := tt.page
			named := 0
			for k := range 8 {
				doc := parse(t, src)
				res := Lazy(tt.ad, doc)
				want := observe.Observe(doc, 1, observe.Options{GroupOf: res.GroupOf()})
				doc2 := parse(t, src)
				res2 := Lazy(tt.ad, doc2)
				got := observe.Observe(doc2, 1, observe.Options{GroupOf: func(*html.Node) string { return "asked" }, GroupRoots: res2.GroupRoots()})
				if len(got.All) != len(want.All) {
					t.Fatalf("edit %d: %d candidates, want %d", k, len(got.All), len(want.All))
				}
				for i := range got.All {
					if got.All[i].Group != want.All[i].Group {
						t.Fatalf("edit %d: candidate %d (%s %q): group %q, want %q", k, i, want.All[i].Role, want.All[i].Name, got.All[i].Group, want.All[i].Group)
					}
					if got.All[i].Group != "" {
						named++
					}
				}
				src = liveEdit(r, src, k)
			}
			if named == 0 {
				t.Error("no candidate in a group")
			}
		})
	}
}
