package steps

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/mcp/mcptest"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/sim"
)

// chat200Session is a recording of the sim's chat page with 200 earlier
// turns: a navigate, then the one capture, which a replay returns for
// every later observation.
func chat200Session() (*replay.Session, string) {
	const url = CanonicalBase + "/chat"
	chat := sim.Chat{Style: sim.StyleMarker, History: 200, Seed: 1}
	return replay.SinglePage(capture.New(url, sim.RenderChat(chat, chat.HistoryTurns()))), url
}

// BenchmarkSnapshot200Turns: the bytes an agent gets for one snapshot of
// the sim's 200-turn chat page, and the time it takes, for both views:
// in process (engine.Page.Snapshot, its View as JSON) and through the
// MCP snapshot tool (in-memory transport; bytes/snapshot is the tool's
// JSON result, result-bytes/snapshot the whole CallToolResult with its
// text copy and _meta; observation-bytes/snapshot is the bounded
// observation alone, without the answer groups the View adds). The page is replayed from one capture, so the
// time is the engine's and the protocol's, not the browser's.
//
//	go test ./steps -run '^$' -bench Snapshot200 -benchmem
func BenchmarkSnapshot200Turns(b *testing.B) {
	ctx := context.Background()
	cfg := engine.Config{Adapter: adapter.DefaultMarker}
	for _, view := range []string{observe.ViewPage, observe.ViewFull} {
		b.Run("engine/"+view, func(b *testing.B) {
			s, url := chat200Session()
			p := engine.New(cfg).Begin(ctx, "bench").Page(mainTab, replay.NewDriver(s))
			if err := p.Navigate(ctx, url); err != nil {
				b.Fatal(err)
			}
			var size, bounded int
			b.ReportAllocs()
			for b.Loop() {
				v, err := p.Snapshot(ctx, view)
				if err != nil {
					b.Fatal(err)
				}
				data, err := json.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			// the bounded observation alone, without the answer groups
			// the View adds
			v, err := p.Snapshot(ctx, view)
			if err != nil {
				b.Fatal(err)
			}
			obs, err := json.Marshal(v.Snapshot)
			if err != nil {
				b.Fatal(err)
			}
			bounded = len(obs)
			b.ReportMetric(float64(size), "bytes/snapshot")
			b.ReportMetric(float64(bounded), "observation-bytes/snapshot")
		})
		b.Run("mcp/"+view, func(b *testing.B) {
			s, url := chat200Session()
			ms := mcptest.Start(b, mcp.Options{Engine: cfg, Driver: mcptest.Replaying(s)})
			ms.Call("begin", mcp.BeginIn{Goal: "bench"})
			ms.Call("navigate", mcp.NavigateIn{PageIn: mcp.PageIn{Task: "t1"}, URL: url})
			var size, whole int
			b.ReportAllocs()
			for b.Loop() {
				res := ms.Call("snapshot", mcp.SnapshotIn{PageIn: mcp.PageIn{Task: "t1"}, View: view})
				body, err := mcp.ResultJSON(res)
				if err != nil {
					b.Fatal(err)
				}
				all, err := json.Marshal(res)
				if err != nil {
					b.Fatal(err)
				}
				size, whole = len(body), len(all)
			}
			b.ReportMetric(float64(size), "bytes/snapshot")
			b.ReportMetric(float64(whole), "result-bytes/snapshot")
		})
	}
}
