package mcp_test

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// TestEndedTaskLetsItsPagesGo: once a task finishes or is abandoned, the
// server keeps nothing its page read — the driver, and with it the parses
// and observations, are collectable — while the task still answers
// TASK_FINISHED and its metrics. A server that kept them grew by a page's
// reads per task (tens of megabytes on a 2,000-turn chat).
// ender is how a client ends a task (mcp.Task).
type ender interface {
	Finish(ctx context.Context) error
	Abandon(ctx context.Context, reason string) error
}

func TestEndedTaskLetsItsPagesGo(t *testing.T) {
	page := chatpage.Render(chatpage.Options{Turns: 20, Seed: 1})
	for _, tc := range []struct {
		name string
		end  func(ctx context.Context, task ender) error
	}{
		{"finish", func(ctx context.Context, task ender) error {
			return task.Finish(ctx)
		}},
		{"abandon", func(ctx context.Context, task ender) error {
			return task.Abandon(ctx, "the test is done")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var drivers []weak.Pointer[replay.Driver]
			closed := 0
			srv := mcp.NewServer(mcp.Options{Driver: func(ctx context.Context, task, name string) (engine.Driver, func() error, error) {
				d := replay.NewDriver(benchSession(page))
				drivers = append(drivers, weak.Make(d))
				return d, func() error { closed++; return nil }, nil
			}})
			c := inMemory(t, srv, 30*time.Second)
			ctx := context.Background()
			task, err := c.Begin(ctx, "read and end")
			if err != nil {
				t.Fatal(err)
			}
			p := task.Page("main")
			if err := p.Navigate(ctx, benchURL); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Snapshot(ctx, observe.ViewPage); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			if len(drivers) != 1 || drivers[0].Value() == nil {
				t.Fatalf("%d drivers opened, the first collected while its task runs; want 1, alive", len(drivers))
			}
			if err := tc.end(ctx, task); err != nil {
				t.Fatal(err)
			}
			if closed != 1 {
				t.Errorf("the page's close ran %d times, want 1", closed)
			}
			runtime.GC()
			runtime.GC()
			if drivers[0].Value() != nil {
				t.Error("the ended task's driver is still reachable: the server keeps what its page read")
			}
			if _, err := p.Snapshot(ctx, observe.ViewPage); errcode.Of(err) != mcp.TaskFinished {
				t.Errorf("a snapshot of the ended task: %v, want TASK_FINISHED", err)
			}
			if m, err := task.Metrics(ctx); err != nil || m.Calls < 3 {
				t.Errorf("the ended task's metrics: %+v %v, want its calls", m, err)
			}
		})
	}
}
