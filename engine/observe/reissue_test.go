package observe_test

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// TestReissue: an observation reissued under a new snapshot id is the one
// Observe builds for that id (refs included), every view of it too, and the
// original keeps its own refs.
func TestReissue(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"empty":     `<html><body></body></html>`,
		"form":      `<main><label for=q>Query</label><input id=q value=v><input type=checkbox checked aria-label=Box><button disabled>Go</button><a href=/x>X</a></main>`,
		"frames":    `<p>outer</p><iframe srcdoc="<button>in</button>"></iframe><iframe src=/far></iframe>`,
		"chat20":    chatpage.Render(chatpage.Options{Turns: 20, Seed: 3}),
		"chat200":   chatpage.Render(chatpage.Options{Turns: 200, Seed: 4}),
		"nosidebar": chatpage.Render(chatpage.Options{Turns: 5, Sidebar: -1, Seed: 5}),
	}
	for name, src := range pages {
		t.Run(name, func(t *testing.T) {
			doc, err := observe.ParseHTML("http://x/"+name, src)
			if err != nil {
				t.Fatal(err)
			}
			o1 := observe.Observe(doc, 1, observe.Options{})
			before := slices.Clone(o1.All)
			for _, id := range []int{2, 17, 1000} {
				got, want := o1.Reissue(id), observe.Observe(doc, id, observe.Options{})
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Reissue(%d) differs from Observe(doc, %d)", id, id)
				}
				for _, v := range []string{observe.ViewPage, observe.ViewFull} {
					lim := observe.DefaultLimits
					if v == observe.ViewPage {
						lim = observe.PageLimits
					}
					if g, w := got.View(v, lim), want.View(v, lim); !reflect.DeepEqual(g, w) {
						t.Fatalf("Reissue(%d).View(%s) differs", id, v)
					}
				}
				if len(got.All) > 0 && got.All[0].Ref != "s"+strconv.Itoa(id)+"e1" {
					t.Fatalf("first ref %q", got.All[0].Ref)
				}
				if len(o1.All) > 0 {
					if _, ok := got.ByRef(o1.All[0].Ref); ok {
						t.Fatalf("a ref of snapshot 1 resolves in snapshot %d", id)
					}
				}
			}
			if !reflect.DeepEqual(before, o1.All) {
				t.Fatal("Reissue changed the original observation")
			}
		})
	}
}
