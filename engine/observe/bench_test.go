package observe

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
)

// BenchmarkObserve observes the seeded chat pages (a 300-link sidebar and
// 20 to 20,000 turns): ParseHTML, Observe and both views, alternating in
// one loop with bare html.Parse of the same bytes, and reports the time
// and memory ratios (x-html.Parse, xmem-html.Parse).
//
//	go test ./engine/observe -run '^$' -bench 'Observe$' -count 5
func BenchmarkObserve(b *testing.B) {
	for _, n := range chatpage.Sizes {
		b.Run("turns="+strconv.Itoa(n), func(b *testing.B) {
			page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
			b.SetBytes(int64(len(page)))
			var s *Snapshot
			pairbench.Run(b, "html.Parse", func() {
				if _, err := html.Parse(strings.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}, func() {
				doc, err := ParseHTML("http://x/chat", page)
				if err != nil {
					b.Fatal(err)
				}
				o := Observe(doc, 1, Options{})
				o.View(ViewPage, PageLimits)
				s = o.View(ViewFull, DefaultLimits)
			})
			if len(s.Elements) > DefaultLimits.MergedElementsMax || s.Counts.Text.Returned > DefaultLimits.MergedTextCharsMax {
				b.Fatalf("view exceeds its limits: %+v", s.Counts)
			}
		})
	}
}
