package observe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// chatPage is a marker-style chat page with n turns, like the sim's, built
// here because engine packages never import the sim.
func chatPage(n int) string {
	var b strings.Builder
	b.Grow(n * 400)
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chat</title>
<style>body{display:flex} .turn{margin:6px} .hidden-tools{display:none}</style></head><body>
<nav aria-label="Chats">`)
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, `<a href="/c/%d">Chat %d</a>`, i, i)
	}
	b.WriteString(`</nav><main><h1>Chat</h1><div id="thread">`)
	for i := 0; i < n; i++ {
		author := "user"
		if i%2 == 1 {
			author = "assistant"
		}
		fmt.Fprintf(&b, `<div class="turn" data-message-author-role="%s" data-message-id="msg-%05d"><div class="text"><p>Turn %d says something about item %d, with <b>bold</b> and <a href="/ref/%d">a link</a>.</p><p>A second paragraph of text for turn %d.</p></div>`,
			author, i, i, i*7, i, i)
		if author == "assistant" {
			b.WriteString(`<div class="tools"><button type="button">Copy</button><button type="button" aria-label="Good response"><svg></svg></button><span class="hidden-tools"><button>Share</button></span></div>`)
		}
		b.WriteString("</div>\n")
	}
	b.WriteString(`</div><form id="composer"><textarea id="prompt" aria-label="Message" placeholder="Send a message"></textarea><button type="submit">Send</button></form></main></body></html>`)
	return b.String()
}

const benchTurns = 10000

// BenchmarkObserveChat10k observes a 10,000-turn chat page (Parse, Observe
// and the full view) and reports the ratio to bare html.Parse of the same
// bytes; the target is ≤ 2.
func BenchmarkObserveChat10k(b *testing.B) {
	page := chatPage(benchTurns)
	b.SetBytes(int64(len(page)))
	parse := measure(b, 5, func() {
		if _, err := html.Parse(strings.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	var s *Snapshot
	start := time.Now()
	for i := 0; i < b.N; i++ {
		doc, err := ParseHTML("http://x/chat", page)
		if err != nil {
			b.Fatal(err)
		}
		o := Observe(doc, 1, Options{})
		s = o.View(ViewFull, DefaultLimits)
	}
	per := time.Since(start) / time.Duration(b.N)
	b.StopTimer()
	if len(s.Elements) > DefaultLimits.MergedElementsMax || s.Counts.Text.Returned > DefaultLimits.MergedTextCharsMax {
		b.Fatalf("view exceeds its limits: %+v", s.Counts)
	}
	b.ReportMetric(float64(per)/float64(parse), "x-html.Parse")
	b.ReportMetric(float64(len(page))/1e6, "MB")
}

// BenchmarkHTMLParseChat10k is the baseline: bare html.Parse.
func BenchmarkHTMLParseChat10k(b *testing.B) {
	page := chatPage(benchTurns)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := html.Parse(strings.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
}

// measure returns the mean time of fn over runs runs, garbage collection
// included, as the observe loop's time includes it.
func measure(tb testing.TB, runs int, fn func()) time.Duration {
	tb.Helper()
	t := time.Now()
	for i := 0; i < runs; i++ {
		fn()
	}
	return time.Since(t) / time.Duration(runs)
}
