package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// coldDriver returns a new copy of the replayed capture on every call,
// its frame under a new id, so the engine parses it whole every time: the
// cost of a snapshot of a page it has not read (it reuses the parse of a
// capture it already read, and the parse of a frame of the same id for
// the bytes the new HTML shares with it, observe.ParseAfter).
type coldDriver struct {
	*replay.Driver
	k *int
}

func (d coldDriver) Capture(ctx context.Context) (*capture.Capture, error) {
	c, err := d.Driver.Capture(ctx)
	if err != nil {
		return nil, err
	}
	*d.k++
	fresh := *c
	fresh.Frames = slices.Clone(c.Frames)
	fresh.Frames[0].ID = "cold" + strconv.Itoa(*d.k)
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
			p := engine.New(cfg).Begin(ctx, "bench").Page("main", coldDriver{replay.NewDriver(benchSession(page)), new(int)})
			if err := p.Navigate(ctx, benchURL); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(page)))
			pairbench.Run(b, "html.Parse", func() {
				if _, err := html.Parse(strings.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}, func() { pageViewJSON(ctx, b, p) })
			b.StopTimer()
			b.ReportMetric(float64(mcpSnapshotBytes(b, cfg, page, observe.ViewPage)), "mcp-B")
			b.ReportMetric(float64(mcpSnapshotBytes(b, cfg, page, observe.ViewFull)), "full-B")
		})
	}
}

// mcpSnapshotBytes returns the size of one snapshot tool result's
// JSON (its text block) over an in-memory MCP session.
func mcpSnapshotBytes(tb testing.TB, cfg engine.Config, page, view string) int {
	tb.Helper()
	s := mcptest.Start(tb, mcp.Options{Engine: cfg, Driver: mcptest.Replaying(benchSession(page))})
	s.Call("begin", mcp.BeginIn{Goal: "bench"})
	s.Call("navigate", mcp.NavigateIn{PageIn: mcp.PageIn{Task: "t1"}, URL: benchURL})
	res := s.Call("snapshot", mcp.SnapshotIn{PageIn: mcp.PageIn{Task: "t1"}, View: view})
	body, err := mcp.ResultJSON(res)
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
			}, func() { pageViewJSON(ctx, b, p) })
		})
	}
}

// streamDriver returns the next version of a page on every capture: a
// paragraph more streamed into the newest answer (bench/sidebyside's page
// script), cycling through versions, so every snapshot reads a page that
// changed a little.
type streamDriver struct {
	*replay.Driver
	caps []*capture.Capture
	k    int
}

func (d *streamDriver) Capture(ctx context.Context) (*capture.Capture, error) {
	d.k++
	return d.caps[d.k%len(d.caps)], nil
}

// BenchmarkPageSnapshotAfterChange is BenchmarkPageSnapshot after a small
// change: each snapshot reads the page with one more paragraph streamed
// into the newest answer (the step from the last version back to the first
// removes seven), so the engine parses it reusing the last read's parse
// (observe.ParseAfter) and observes it again; html.Parse of the page runs
// in the same loop as the baseline (x-html.Parse). On the plain page and
// on its live form (chatpage.Live: node ids and hidden state, as the
// browser driver writes captures), where the index walk resumes too.
//
//	go test ./engine/mcp -run '^$' -bench PageSnapshotAfterChange -count 5
func BenchmarkPageSnapshotAfterChange(b *testing.B) {
	cfg := engine.Config{Adapter: adapter.DefaultAuto}
	for _, n := range chatpage.Sizes[:3] {
		for _, live := range []bool{false, true} {
			b.Run(fmt.Sprintf("turns=%d/live=%v", n, live), func(b *testing.B) {
				benchAfterChange(b, cfg, n, live)
			})
		}
	}
}

func benchAfterChange(b *testing.B, cfg engine.Config, n int, live bool) {
	ctx := context.Background()
	page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
	if live {
		page = chatpage.Live(page)
	}
	at := strings.LastIndex(page, `</div><div class="actions"`)
	d := &streamDriver{Driver: replay.NewDriver(benchSession(page))}
	var streamed strings.Builder
	for k := range 8 {
		d.caps = append(d.caps, capture.New(benchURL, page[:at]+streamed.String()+page[at:]))
		fmt.Fprintf(&streamed, "<p>Streamed sentence %d.</p>", 1764601000000+k)
	}
	p := engine.New(cfg).Begin(ctx, "bench").Page("main", d)
	if err := p.Navigate(ctx, benchURL); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Snapshot(ctx, observe.ViewPage); err != nil {
		b.Fatal(err)
	}
	pairbench.Run(b, "html.Parse", func() {
		if _, err := html.Parse(strings.NewReader(d.caps[(d.k+1)%len(d.caps)].Frames[0].HTML)); err != nil {
			b.Fatal(err)
		}
	}, func() { pageViewJSON(ctx, b, p) })
}

// pageViewJSON takes the page view of p and encodes it, as the MCP
// snapshot tool does: the work side of the snapshot benchmarks.
func pageViewJSON(ctx context.Context, b *testing.B, p *engine.Page) {
	b.Helper()
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := json.Marshal(v); err != nil {
		b.Fatal(err)
	}
}
