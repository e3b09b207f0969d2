package adapter

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
)

// benchPage generates a chat page of n turns (alternating user and
// assistant) in one markup style, with a composer at the end.
func benchPage(style string, n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><style>.sr-only{position:absolute;clip:rect(0,0,0,0)}</style></head><body><nav><a href="/">Home</a></nav><main><div class="thread">`)
	for i := range n {
		user := i%2 == 0
		switch style {
		case "marker":
			role := "assistant"
			if user {
				role = "user"
			}
			fmt.Fprintf(&b, `<div data-message-author-role="%s" data-message-id="m%d"><div class="md"><p>Turn %d says something of a usual length, with <b>bold</b> and <a href="/r%d">a link</a>.</p></div><button>Copy</button></div>`, role, i, i, i)
		case "heading":
			label := "Sim said:"
			if user {
				label = "You said:"
			}
			fmt.Fprintf(&b, `<article><h3 class="sr-only">%s</h3><div class="md"><p>Turn %d says something of a usual length, with <b>bold</b> and <a href="/r%d">a link</a>.</p></div><button>Copy</button></article>`, label, i, i)
		case "heading-flat":
			label := "Sim said:"
			if user {
				label = "You said:"
			}
			fmt.Fprintf(&b, `<h3 class="sr-only">%s</h3><p>Turn %d says something of a usual length, with <b>bold</b> and <a href="/r%d">a link</a>.</p><button>Copy</button>`, label, i, i)
		}
	}
	b.WriteString(`</div><form><textarea aria-label="Message"></textarea><button>Send</button></form></main></body></html>`)
	return b.String()
}

// BenchmarkGroups measures group extraction alone (the page is parsed
// once, outside the timer) and reports ns per turn: equal figures at 1k and
// 10k turns show extraction is linear.
func BenchmarkGroups(b *testing.B) {
	for _, style := range []string{"marker", "heading", "heading-flat"} {
		ad := Adapter(DefaultMarker)
		if style != "marker" {
			ad = DefaultHeading
		}
		for _, n := range []int{1000, 10000} {
			b.Run(style+"/turns="+strconv.Itoa(n), func(b *testing.B) {
				doc := parse(b, benchPage(style, n))
				if r := ad.Groups(doc); len(r.Groups) != n/2 {
					b.Fatalf("got %d groups, want %d", len(r.Groups), n/2)
				}
				b.ResetTimer()
				for b.Loop() {
					ad.Groups(doc)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
			})
		}
	}
}

// BenchmarkLazyAfterChange: the groups of a live chat page read after a
// sentence was streamed into the newest answer (the page parsed resuming
// the last parse, observe.ParseAfter, outside the loop), found from the
// last read's groups (LazyAfter) against found afresh (Lazy) in the same
// loop: x-Lazy is LazyAfter ÷ Lazy.
//
//	go test ./engine/adapter -run '^$' -bench LazyAfterChange -count 5
func BenchmarkLazyAfterChange(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run("turns="+strconv.Itoa(n), func(b *testing.B) {
			src := chatpage.Live(chatpage.Render(chatpage.Options{Turns: n, Seed: 1}))
			prevDoc, err := observe.ParseAfter(capture.New("http://x/chat", src), nil)
			if err != nil {
				b.Fatal(err)
			}
			prev := Lazy(DefaultAuto, prevDoc)
			at := strings.LastIndex(src, `</div><div class="actions"`)
			doc, err := observe.ParseAfter(capture.New("http://x/chat", src[:at]+"<p>Streamed sentence.</p>"+src[at:]), prevDoc)
			if err != nil {
				b.Fatal(err)
			}
			if got := LazyAfter(DefaultAuto, doc, prev); len(got.Groups) != n/2 || !doc.Kept(got.Groups[0].Node) {
				b.Fatalf("%d groups (want %d), the first kept: %v", len(got.Groups), n/2, doc.Kept(got.Groups[0].Node))
			}
			pairbench.Run(b, "Lazy", func() { Lazy(DefaultAuto, doc) }, func() { LazyAfter(DefaultAuto, doc, prev) })
		})
	}
}
