package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

// loadedCheck is a site readiness: the page is ready once #thread says so.
func loadedCheck(doc *observe.Document) string {
	found := false
	for _, f := range doc.Frames {
		observe.WalkElements(f.Root, func(n *html.Node) bool {
			if observe.Attr(n, "id") == "thread" && observe.Attr(n, "data-ready") == "true" {
				found = true
			}
			return !found
		})
	}
	if found {
		return ""
	}
	return "no ready thread"
}

var siteReady = engine.Readiness{Check: loadedCheck, Awaited: `selector "#thread[data-ready=true]"`, Timeout: 2 * time.Second}

func threadPage(ready bool, turns ...turn) *capture.Capture {
	c := page(turns...)
	attr := `data-ready="false"><p>Loading conversation</p`
	if ready {
		attr = `data-ready="true"`
	}
	c.Frames[0].HTML = strings.Replace(c.Frames[0].HTML, "<main>", `<a href="/chat2" data-rl-node="n9">Chat 2</a><main id="thread" `+attr+`>`, 1)
	return c
}

// session: navigate, then captures 100 ms apart (and an optional click).
func readySession(caps ...*capture.Capture) *replay.Session {
	s := &replay.Session{Version: replay.FormatVersion}
	s.Steps = append(s.Steps, replay.Step{Kind: replay.KindNavigate, URL: url})
	for i, c := range caps {
		s.Captures = append(s.Captures, c)
		s.Steps = append(s.Steps, replay.Step{AtMS: int64(100 * i), Kind: replay.KindCapture, Capture: new(i)})
	}
	return s
}

func TestNavigateWaitsForTheSitesReadiness(t *testing.T) {
	a := turn{id: "h2", role: "assistant", text: "An earlier answer"}
	tests := []struct {
		name    string
		caps    []*capture.Capture
		code    string
		groups  int
		message string
	}{
		{"ready at the third capture", []*capture.Capture{threadPage(false), threadPage(false), threadPage(true, a)}, "", 1, ""},
		{"ready at once", []*capture.Capture{threadPage(true, a)}, "", 1, ""},
		{"never ready", []*capture.Capture{threadPage(false), threadPage(false, a)}, string(engine.PageNotReady), 0, `waited 2s for selector "#thread[data-ready=true]": no ready thread`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &trace.Log{}
			d := replay.NewDriver(readySession(tt.caps...))
			p := engine.New(engine.Config{Tracer: log, Ready: siteReady}).Begin(context.Background(), t.Name()).Page("main", d)
			err := p.Navigate(context.Background(), url)
			if got := string(errcode.Of(err)); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			if tt.code != "" {
				if !errors.Is(err, engine.PageNotReady) || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("error %q, want errors.Is PAGE_NOT_READY and %q", err, tt.message)
				}
				return
			}
			v, err := p.Snapshot(context.Background(), "full")
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Groups) != tt.groups {
				t.Errorf("%d groups after the wait, want %d", len(v.Groups), tt.groups)
			}
			if !strings.Contains(string(trace.Format(log.Events())), `ready page=main awaited="selector \"#thread[data-ready=true]\""`) {
				t.Errorf("no ready event in the trace:\n%s", trace.Format(log.Events()))
			}
		})
	}
}

func TestSendBeforeReadyIsRefused(t *testing.T) {
	// ready at the navigation, then a click opened a half-loaded page
	s := readySession(threadPage(true))
	s.Steps = append(s.Steps, replay.Step{AtMS: 100, Kind: replay.KindClick, Node: "n9"})
	s.Captures = append(s.Captures, threadPage(false))
	s.Steps = append(s.Steps, replay.Step{AtMS: 200, Kind: replay.KindCapture, Capture: new(1)})
	log := &trace.Log{}
	p := engine.New(engine.Config{Tracer: log, Ready: siteReady}).Begin(context.Background(), t.Name()).Page("main", replay.NewDriver(s))
	if err := p.Navigate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(context.Background(), engine.ByRole("link", "Chat 2"), engine.Expect{TextVisible: "Loading conversation"}); err != nil {
		t.Fatal(err)
	}
	err := p.CheckReady(context.Background())
	if !errors.Is(err, engine.PageNotReady) || !strings.Contains(err.Error(), "no baseline is taken from a half-loaded page") {
		t.Fatalf("CheckReady = %v, want PAGE_NOT_READY", err)
	}
	err = p.Click(context.Background(), engine.ByRole("button", "Send"), sendExpectingAnswer)
	if !errors.Is(err, engine.PageNotReady) {
		t.Fatalf("a send's click = %v, want PAGE_NOT_READY", err)
	}
	if strings.Contains(string(trace.Format(log.Events())), "baseline page=main") {
		t.Errorf("a baseline was taken from the half-loaded page:\n%s", trace.Format(log.Events()))
	}
}

func TestDefaultReadinessReplaysTheRecordedQuietWait(t *testing.T) {
	tests := []struct {
		name, clock, busy, code string
		window                  time.Duration // the quiet window the message names
	}{
		{"quiet", replay.ClockWall, "", "", 0},
		{"busy", replay.ClockWall, "1 request in flight: GET /api/thread", string(engine.PageNotReady), engine.DefaultQuietWindow},
		{"busy on the lab clock", replay.ClockLab, "1 request in flight: GET /api/thread", string(engine.PageNotReady), engine.DefaultLabQuietWindow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readySession(threadPage(false))
			s.Clock = tt.clock
			s.Steps = append(s.Steps[:1], append([]replay.Step{{Kind: replay.KindQuiet, Error: tt.busy}}, s.Steps[1:]...)...)
			d := replay.NewDriver(s)
			p := engine.New(engine.Config{}).Begin(context.Background(), t.Name()).Page("main", d)
			err := p.Navigate(context.Background(), url)
			if got := string(errcode.Of(err)); got != tt.code {
				t.Fatalf("code %q (%v), want %q", got, err, tt.code)
			}
			if tt.busy != "" && !strings.Contains(err.Error(), fmt.Sprintf("no request in flight and the DOM quiet for %v: %s", tt.window, tt.busy)) {
				t.Errorf("error %q does not name what was awaited and what kept the page busy", err)
			}
			if u := d.Unused(); len(u) != 0 {
				t.Errorf("the recorded quiet wait was not replayed: %v", u)
			}
		})
	}
	// a session recorded before quiet waits existed is ready at once
	p := engine.New(engine.Config{}).Begin(context.Background(), "old").Page("main", replay.NewDriver(readySession(threadPage(false))))
	if err := p.Navigate(context.Background(), url); err != nil {
		t.Fatalf("an old session: %v", err)
	}
}
