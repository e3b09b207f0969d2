package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/mcp"
	"github.com/replaylab/replaylab/engine/replay"
)

// TestSchemasHaveOneTypePerProperty: optional objects are "object", not
// ["null","object"], so clients that build arguments from one type per
// property (the MCP Inspector's CLI) can pass them.
func TestSchemasHaveOneTypePerProperty(t *testing.T) {
	c := inMemory(t, mcp.NewServer(mcp.Options{Driver: blockingDrivers}), 5*time.Second)
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var walk func(tool, path string, v any)
	walk = func(tool, path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if ty, ok := x["type"].([]any); ok {
				t.Errorf("tool %s: %s has types %v", tool, path, ty)
			}
			for k, e := range x {
				walk(tool, path+"/"+k, e)
			}
		case []any:
			for _, e := range x {
				walk(tool, path, e)
			}
		}
	}
	for _, tool := range tools {
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema any
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		walk(tool.Name, "", schema)
	}
}

// TestRecordThenReplayAPage records a page through Recording (its live
// side a replay of a made-up session), saves it under SessionPath and
// serves it again through Replaying.
func TestRecordThenReplayAPage(t *testing.T) {
	ctx := context.Background()
	const live, canonical = "http://127.0.0.1:4321", "http://sim.replaylab.test"
	page := capture.New(live+"/a", `<html><body><a href="`+live+`/b">Next</a></body></html>`)
	src := replay.SinglePage(page)
	file := filepath.Join(t.TempDir(), "scenario.json")
	rec := &mcp.Recording{File: file, Base: canonical, Scenario: "fp1",
		Hooks: replay.Hooks{Rewrite: replay.BaseRewriter(canonical, live)},
		Next: func(context.Context, string, string) (engine.Driver, func() error, error) {
			return replay.NewDriver(src), func() error { return nil }, nil
		}}
	d, _, err := rec.Driver(ctx, "t1", "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Navigate(ctx, live+"/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(file), "scenario@t1-main.json")
	if got := rec.Paths(); len(got) != 1 || got[0] != want {
		t.Fatalf("paths %v, want [%s]", got, want)
	}

	tests := []struct {
		name     string
		scenario string
		also     []string
		task     string
		wantErr  string
	}{
		{name: "same scenario", scenario: "fp1", task: "t1"},
		{name: "any scenario", task: "t1"},
		{name: "other scenario", scenario: "fp2", task: "t1", wantErr: "made from other calls"},
		{name: "an older stamp of the same calls", scenario: "fp2", also: []string{"fp1"}, task: "t1"},
		{name: "other older stamps", scenario: "fp2", also: []string{"fp3"}, task: "t1", wantErr: "made from other calls"},
		{name: "page never recorded", scenario: "fp1", task: "t2", wantErr: "no recording"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &mcp.Replaying{File: file, Scenario: tt.scenario, Also: tt.also}
			d, _, err := rep.Driver(ctx, tt.task, "main")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Navigate(ctx, canonical+"/a"); err != nil {
				t.Fatal(err)
			}
			c, err := d.Capture(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.URL != canonical+"/a" || !strings.Contains(c.Frames[0].HTML, canonical+"/b") || strings.Contains(c.Frames[0].HTML, live) {
				t.Fatalf("replayed capture not rewritten: %s %s", c.URL, c.Frames[0].HTML)
			}
			if err := rep.Unused(); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("unused action", func(t *testing.T) {
		rep := &mcp.Replaying{File: file}
		if _, _, err := rep.Driver(ctx, "t1", "main"); err != nil {
			t.Fatal(err)
		}
		if err := rep.Unused(); err == nil || !strings.Contains(err.Error(), "never replayed") {
			t.Fatalf("a navigate never replayed: got %v", err)
		}
	})
	if _, _, err := rec.Driver(ctx, "t1", "a/b"); err == nil {
		t.Fatal("a page name with a slash was accepted as part of a file name")
	}
}
