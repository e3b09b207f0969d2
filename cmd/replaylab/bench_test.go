package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
)

// BenchmarkObserveCLI is `replaylab observe` on an HTML file of the seeded
// chat pages with the marker adapter (the CLI path: parse, answer groups,
// observation, full view), alternating in one loop with bare html.Parse of
// the same bytes. json-B is the size of `observe --json`'s output.
//
//	go test ./cmd/replaylab -run '^$' -bench ObserveCLI -count 5
func BenchmarkObserveCLI(b *testing.B) {
	for _, n := range chatpage.Sizes {
		b.Run("turns="+strconv.Itoa(n), func(b *testing.B) {
			page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
			c := capture.New("file://chat.html", page)
			b.SetBytes(int64(len(page)))
			var out observation
			pairbench.Run(b, "html.Parse", func() {
				if _, err := html.Parse(strings.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}, func() {
				var err error
				if out, _, err = observeCapture(c, adapter.DefaultMarker, "", observe.ViewFull, observe.DefaultLimits, engine.DefaultFullGroups); err != nil {
					b.Fatal(err)
				}
			})
			data, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(data)), "json-B")
		})
	}
}
