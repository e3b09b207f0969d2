package adapter

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
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
