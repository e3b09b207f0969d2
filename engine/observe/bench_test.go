package observe

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/capture"

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

// streamedPages returns versions of a seeded chat page with 0 to n-1
// streamed paragraphs at the end of the newest answer, as bench/sidebyside's
// page script appends them: cycling through them, every read after the
// first is of a page that changed a little (the step from the last version
// back to the first removes n-1 paragraphs).
func streamedPages(turns, n int, live bool) []string {
	page := chatpage.Render(chatpage.Options{Turns: turns, Seed: 1})
	if live {
		page = chatpage.Live(page)
	}
	at := strings.LastIndex(page, `</div><div class="actions"`)
	out := make([]string, n)
	var streamed strings.Builder
	for k := range n {
		out[k] = page[:at] + streamed.String() + page[at:]
		fmt.Fprintf(&streamed, "<p>Streamed sentence %d.</p>", 1764601000000+k)
	}
	return out
}

// BenchmarkParseAfterChange is a read after a small change (a paragraph
// streamed into the newest answer) on the seeded chat pages: ParseAfter
// reusing the previous version's parse, alternating in one loop with a
// fresh Parse of the same capture (x-Parse) and, as its own row, with bare
// html.Parse (x-html.Parse); on the plain page and on its live form
// (chatpage.Live: node ids and hidden state, as the browser driver writes
// captures), where the index walk resumes too.
//
//	go test ./engine/observe -run '^$' -bench ParseAfterChange -count 5
func BenchmarkParseAfterChange(b *testing.B) {
	for _, n := range chatpage.Sizes[:3] {
		for _, live := range []bool{false, true} {
			pages := streamedPages(n, 8, live)
			caps := make([]*capture.Capture, len(pages))
			for i, p := range pages {
				caps[i] = capture.New("http://x/chat", p)
			}
			for _, base := range []string{"Parse", "html.Parse"} {
				b.Run(fmt.Sprintf("turns=%d/live=%v/vs=%s", n, live, base), func(b *testing.B) {
					benchParseAfter(b, caps, base)
				})
			}
		}
	}
}

func benchParseAfter(b *testing.B, caps []*capture.Capture, base string) {
	prev, err := ParseAfter(caps[0], nil)
	if err != nil {
		b.Fatal(err)
	}
	k := 0
	pairbench.Run(b, base, func() {
		c := caps[(k+1)%len(caps)]
		if base == "Parse" {
			if _, err := Parse(c); err != nil {
				b.Fatal(err)
			}
		} else if _, err := html.Parse(strings.NewReader(c.Frames[0].HTML)); err != nil {
			b.Fatal(err)
		}
	}, func() {
		k++
		doc, err := ParseAfter(caps[k%len(caps)], prev)
		if err != nil {
			b.Fatal(err)
		}
		prev = doc
	})
}
