package steps

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/internal/pairbench"
	"github.com/replaylab/replaylab/sim"
)

// observeCycle is what the engine does with every capture: parse the
// frames, find the answer groups, build the observation and its view.
func observeCycle(b *testing.B, c *capture.Capture) {
	doc, err := observe.Parse(c)
	if err != nil {
		b.Fatal(err)
	}
	groups := adapter.DefaultMarker.Groups(doc)
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf()})
	if v := o.View(observe.ViewFull, observe.DefaultLimits); len(v.Elements) == 0 || len(groups.Groups) != 100 {
		b.Fatalf("observed %d elements and %d groups", len(v.Elements), len(groups.Groups))
	}
}

// BenchmarkObserve200Turns: one capture→observe cycle on the sim's chat
// page with 200 earlier turns, alternating in one loop with bare
// html.Parse of the same bytes (x-html.Parse; the capture's bytes for the
// live row), so both see the same load.
//
//	go test ./steps -run '^$' -bench Observe200 -benchmem
func BenchmarkObserve200Turns(b *testing.B) {
	chat := sim.Chat{Style: sim.StyleMarker, History: 200, Seed: 1}
	offline := capture.New("http://sim.test/chat", sim.RenderChat(chat, chat.HistoryTurns()))

	parse := func(src string) func() {
		return func() {
			if _, err := html.Parse(strings.NewReader(src)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("observe", func(b *testing.B) {
		b.SetBytes(int64(len(offline.Frames[0].HTML)))
		pairbench.Run(b, "html.Parse", parse(offline.Frames[0].HTML), func() { observeCycle(b, offline) })
	})
	b.Run("capture+observe", func(b *testing.B) {
		if _, err := browser.FindChromium(); err != nil {
			b.Skipf("SKIPPING the live capture: %v", err)
		}
		ctx := context.Background()
		srv, err := sim.NewServer(sim.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		srv.SetChat(chat)
		br, err := browser.Start(ctx, browser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		p, err := br.NewPage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		if err := p.Navigate(ctx, srv.URL+"/chat"); err != nil {
			b.Fatal(err)
		}
		c, err := p.Capture(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(c.Frames[0].HTML)))
		pairbench.Run(b, "html.Parse", parse(c.Frames[0].HTML), func() {
			c, err := p.Capture(ctx)
			if err != nil {
				b.Fatal(err)
			}
			observeCycle(b, c)
		})
	})
}
