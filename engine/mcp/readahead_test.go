package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/observe"
)

// countingDriver counts the captures of a browser page and passes its
// change reports on (engine.Notifier).
type countingDriver struct {
	engine.Driver
	captures, changed *atomic.Int64 // changed: captures that hold the page's change
}

func (d countingDriver) Capture(ctx context.Context) (*capture.Capture, error) {
	c, err := d.Driver.Capture(ctx)
	d.captures.Add(1)
	if err == nil && strings.Contains(c.Frames[0].HTML, "changed after load") {
		d.changed.Add(1)
	}
	return c, err
}

func (d countingDriver) Changes() <-chan struct{} { return d.Driver.(engine.Notifier).Changes() }

// With ReadAhead the server reads a page that changed while no call ran,
// and what the calls return is what they return without it: the same
// snapshots, refs and text, call by call.
func TestReadAheadChangesNoResult(t *testing.T) {
	needChromium(t)
	// the page changes once the test says so (/go), whatever the load took
	var goNow atomic.Bool
	var applied atomic.Int64 // the page says it changed (/applied)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/applied" {
			applied.Add(1)
			return
		}
		if r.URL.Path == "/go" {
			fmt.Fprint(w, goNow.Load())
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<main><p id="a">first</p><button>Send</button></main>
<script>let changed = false;
const poll = setInterval(async () => {
  if (await (await fetch("/go")).text() !== "true" || changed) return;
  changed = true;
  clearInterval(poll);
  document.getElementById("a").textContent = "changed after load";
  document.querySelector("main").insertAdjacentHTML("beforeend", "<button>Stop</button>");
  fetch("/applied");
}, 150)</script>`)
	}))
	t.Cleanup(page.Close)
	lb := lazyBrowser(t)
	run := func(readAhead bool) (views []string, idle, idleChanged int64) {
		t.Helper()
		var n, changed atomic.Int64
		drivers := func(ctx context.Context, task, name string) (engine.Driver, func() error, error) {
			d, closeFn, err := lb.Driver(ctx, task, name)
			if err != nil {
				return nil, nil, err
			}
			return countingDriver{Driver: d, captures: &n, changed: &changed}, closeFn, nil
		}
		c := inMemory(t, mcp.NewServer(mcp.Options{Driver: drivers, ReadAhead: readAhead}), 30*time.Second)
		ctx := context.Background()
		task, err := c.Begin(ctx, "read ahead")
		if err != nil {
			t.Fatal(err)
		}
		p := task.Page("main")
		if err := p.Navigate(ctx, page.URL+"/"); err != nil {
			t.Fatal(err)
		}
		snap := func() string {
			t.Helper()
			v, err := p.Snapshot(ctx, observe.ViewFull)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		views = append(views, snap())
		// the page changes with no call running. The calls go on once the
		// page says it changed and, with ReadAhead, once a capture read
		// the change (waited for, not timed: a loaded machine only makes
		// it later); without it, after 2 s more in which no capture may
		// run. The loops poll another process (Chromium).
		before, beforeChanged := n.Load(), changed.Load()
		applied.Store(0)
		goNow.Store(true)
		for applied.Load() == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		if readAhead {
			for changed.Load() == beforeChanged {
				time.Sleep(20 * time.Millisecond)
			}
		} else {
			time.Sleep(2 * time.Second)
		}
		goNow.Store(false)
		idle, idleChanged = n.Load()-before, changed.Load()-beforeChanged
		views = append(views, snap(), snap())
		if err := task.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		return views, idle, idleChanged
	}
	with, _, readChanged := run(true)
	without, readIdleOff, _ := run(false)
	if readChanged == 0 {
		t.Errorf("with ReadAhead, no capture of the change while no call ran")
	}
	if readIdleOff != 0 {
		t.Errorf("without ReadAhead, %d captures while no call ran", readIdleOff)
	}
	if !strings.Contains(with[1], "changed after load") || !strings.Contains(with[1], "Stop") {
		t.Fatalf("the snapshot after the change does not show it: %s", with[1])
	}
	for i := range with {
		if with[i] != without[i] {
			t.Errorf("snapshot %d differs with ReadAhead:\n with    %s\n without %s", i+1, with[i], without[i])
		}
	}
}
