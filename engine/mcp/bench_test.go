package mcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/mcp/mcptest"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
)

const benchURL = "http://bench.test/chat"

// benchSession is a recording of one seeded chat page (replay.SinglePage).
func benchSession(page string) *replay.Session {
	return replay.SinglePage(capture.New(benchURL, page))
}

// coldDriver returns a new copy of the replayed capture on every call, so
// the engine parses it every time: the cost of a snapshot of a page that
// changed (the engine reuses the parse of a capture it already read).
type coldDriver struct{ *replay.Driver }

func (d coldDriver) Capture(ctx context.Context) (*capture.Capture, error) {
	c, err := d.Driver.Capture(ctx)
	if err != nil {
		return nil, err
	}
	fresh := *c
	return &fresh, nil
}

// BenchmarkPageSnapshot is the MCP snapshot tool's work on the replay
// driver with the auto adapter (the engine's page snapshot and its JSON),
// on the seeded chat pages, alternating in one loop with bare html.Parse
// of the same bytes (x-html.Parse, xmem-html.Parse); every snapshot
// parses its capture (coldDriver). mcp-B is the size of
// the snapshot tool's structured result over MCP for the page view (the
// bytes an agent reads), full-B that of the full view.
//
//	go test ./engine/mcp -run '^$' -bench PageSnapshot -count 5
func BenchmarkPageSnapshot(b *testing.B) {
	ctx := context.Background()
	cfg := engine.Config{Adapter: adapter.DefaultAuto}
	for _, n := range chatpage.Sizes {
		b.Run("turns="+strconv.Itoa(n), func(b *testing.B) {
			page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
			p := engine.New(cfg).Begin(ctx, "bench").Page("main", coldDriver{replay.NewDriver(benchSession(page))})
			if err := p.Navigate(ctx, benchURL); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(page)))
			pairbench.Run(b, "html.Parse", func() {
				if _, err := html.Parse(strings.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}, func() {
				v, err := p.Snapshot(ctx, observe.ViewPage)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(mcpSnapshotBytes(b, cfg, page, observe.ViewPage)), "mcp-B")
			b.ReportMetric(float64(mcpSnapshotBytes(b, cfg, page, observe.ViewFull)), "full-B")
		})
	}
}

// mcpSnapshotBytes returns the size of one snapshot tool result's
// structured content over an in-memory MCP session.
func mcpSnapshotBytes(tb testing.TB, cfg engine.Config, page, view string) int {
	tb.Helper()
	s := mcptest.Start(tb, mcp.Options{Engine: cfg, Driver: mcptest.Replaying(benchSession(page))})
	s.Call("begin", mcp.BeginIn{Goal: "bench"})
	s.Call("navigate", mcp.NavigateIn{PageIn: mcp.PageIn{Task: "t1"}, URL: benchURL})
	res := s.Call("snapshot", mcp.SnapshotIn{PageIn: mcp.PageIn{Task: "t1"}, View: view})
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	return len(body)
}

// BenchmarkPageSnapshotUnchanged is BenchmarkPageSnapshot on a page that
// did not change between snapshots: the replay driver returns the same
// capture, so the engine reuses its parse and groups and reissues the last
// observation under the new snapshot id (refs renamed, every earlier ref
// stale) instead of observing again; the view and its JSON are built as
// for any snapshot. html.Parse of the page runs in the same loop as the
// baseline (x-html.Parse).
//
//	go test ./engine/mcp -run '^$' -bench PageSnapshotUnchanged -count 5
func BenchmarkPageSnapshotUnchanged(b *testing.B) {
	ctx := context.Background()
	cfg := engine.Config{Adapter: adapter.DefaultAuto}
	for _, n := range chatpage.Sizes[:3] {
		b.Run("turns="+strconv.Itoa(n), func(b *testing.B) {
			page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
			p := engine.New(cfg).Begin(ctx, "bench").Page("main", replay.NewDriver(benchSession(page)))
			if err := p.Navigate(ctx, benchURL); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Snapshot(ctx, observe.ViewPage); err != nil {
				b.Fatal(err)
			}
			pairbench.Run(b, "html.Parse", func() {
				if _, err := html.Parse(strings.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}, func() {
				v, err := p.Snapshot(ctx, observe.ViewPage)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
