package site

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"
)

const good = `{
  "version": 1, "name": "acme", "base_url": "http://127.0.0.1:8700/",
  "adapter": {"version": 1, "turn": {"selector": "div.msg", "speaker": {"attribute": "data-from", "assistant": ["*"], "user": ["me"]}, "id": {"attribute": "data-id"}}},
  "composer": {"selector": "div[contenteditable]"},
  "send": {"by": "enter"},
  "stop": {"role": "button", "name": "Stop"},
  "generating": {"selectors": ["#log[aria-busy=true]"], "controls": [{"role": "button", "name": "Stop"}]}
}`

func TestParseGood(t *testing.T) {
	p, err := Parse([]byte(good), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "acme" || p.BaseURL != "http://127.0.0.1:8700" || p.SendBy != SendEnter || p.Clock != ClockWall || p.ChatPath != "/" {
		t.Fatalf("profile %+v", p)
	}
	if p.Composer.Selector != "div[contenteditable]" || p.Stop.String() != `button "Stop"` {
		t.Fatalf("controls %+v %+v", p.Composer, p.Stop)
	}
	if got := p.URL("/x"); got != "http://127.0.0.1:8700/x" {
		t.Fatalf("URL(/x) = %s", got)
	}
	if got := p.URL("https://example.test/y"); got != "https://example.test/y" {
		t.Fatalf("absolute URL changed: %s", got)
	}
}

func TestRepoProfileLoads(t *testing.T) {
	for _, tc := range []struct{ name, file, clock string }{
		{"the test site on the page clock", "testsite/testsite.json", ClockPage},
		{"the test site on wall time", "testsite/testsite-wall.json", ClockWall},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LoadIn(tc.file, "../..")
			if err != nil {
				t.Fatal(err)
			}
			if p.AdapterSource != "testsite/testsite.adapter.json" || p.Adapter.Name() != "file:testsite" {
				t.Fatalf("adapter %s %s", p.AdapterSource, p.Adapter.Name())
			}
			if p.Clock != tc.clock {
				t.Fatalf("clock %q, want %q", p.Clock, tc.clock)
			}
		})
	}
}

// TestClockValues: version 1 files name one of three clocks; a file
// written before "page" existed reads the same.
func TestClockValues(t *testing.T) {
	for _, tc := range []struct{ name, field, want string }{
		{"left out is wall", ``, ClockWall},
		{"wall", `"clock":"wall",`, ClockWall},
		{"lab", `"clock":"lab",`, ClockLab},
		{"page", `"clock":"page",`, ClockPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(strings.Replace(good, `"version": 1,`, `"version": 1, `+tc.field, 1)), "acme.json")
			if err != nil {
				t.Fatal(err)
			}
			if p.Clock != tc.want {
				t.Fatalf("clock %q, want %q", p.Clock, tc.want)
			}
		})
	}
}

func TestSimProfile(t *testing.T) {
	p := Sim("http://sim.test", adapter.DefaultMarker)
	if !p.IsSim() || p.Clock != ClockLab || p.URL(p.ChatPath) != "http://sim.test/chat" || p.Send.String() != `button "Send"` {
		t.Fatalf("sim profile %+v", p)
	}
}

func TestParseBad(t *testing.T) {
	for _, tc := range []struct{ name, file, field, reason string }{
		{"not json", `{`, "", "not JSON"},
		{"no version", `{"name":"a"}`, "version", "missing required field"},
		{"future version", `{"version":2}`, "version", "unknown version 2 (this build reads version 1)"},
		{"unknown field", `{"version":1,"nme":"a"}`, "nme", "unknown field"},
		{"bad name", `{"version":1,"name":"Acme Chat"}`, "name", "not a site name"},
		{"sim name", `{"version":1,"name":"sim"}`, "name", "built-in"},
		{"relative base", `{"version":1,"name":"a","base_url":"/chat"}`, "base_url", "not an absolute http(s) URL"},
		{"bad clock", `{"version":1,"name":"a","base_url":"http://x","clock":"fast"}`, "clock", `unknown clock "fast"`},
		{"no adapter", `{"version":1,"name":"a","base_url":"http://x"}`, "adapter", "missing required field"},
		{"inline adapter field", `{"version":1,"name":"a","base_url":"http://x","adapter":{"version":1,"turn":{"selector":"div","id":{"attribute":"id"},"speaker":{"attribute":"x","assistant":[3]}}}}`, "adapter.turn.speaker.assistant[0]", "wrong type"},
		{"missing adapter file", `{"version":1,"name":"a","base_url":"http://x","adapter":"nope.json"}`, "adapter", "nope.json"},
		{"no composer", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker"}`, "composer", "missing required field"},
		{"composer both", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox","selector":"x"}}`, "composer.selector", "not both"},
		{"composer bad selector", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"selector":"div[["}}`, "composer.selector", "invalid CSS selector"},
		{"name without role", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"name":"Message"}}`, "composer.role", "needs its role"},
		{"send by", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"tap"}}`, "send.by", `unknown send mode "tap"`},
		{"click needs control", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{}}`, "send.role", "missing required field"},
		{"signal selector type", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"generating":{"selectors":[1]}}`, "generating.selectors[0]", "wrong type"},
		{"signal control selector", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"generating":{"controls":[{"selector":"b"}]}}`, "generating.controls[0]", "role and name"},
		{"ready names nothing", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"ready":{}}`, "ready", "names no condition"},
		{"ready bad selector", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"ready":{"selector":"div[["}}`, "ready.selector", "invalid CSS selector"},
		{"ready unknown field", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"ready":{"present":"x"}}`, "ready.present", "unknown field"},
		{"ready timeout", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"ready":{"absent":".spinner","timeout_ms":0}}`, "ready.timeout_ms", ""},
		{"stop none empty", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"stop":{"none":" "}}`, "stop.none", "empty"},
		{"stop none and a role", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"stop":{"none":"x","role":"button"}}`, "stop.role", "unknown field"},
		{"settle too long", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"settle_ms":60000}`, "settle_ms", "out of range 0…10000"},
		{"settle negative", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"settle_ms":-1}`, "settle_ms", "out of range"},
		{"scoped send", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"selector":"b","in":"newest"}}`, "send.in", "unknown field"},
		{"scoped composer", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"selector":"b","in":"newest"}}`, "composer.in", "not scoped"},
		{"empty scope", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"regenerate":{"selector":"b","in":" "}}`, "regenerate.in", "empty"},
		{"failed control selector", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"failed":{"controls":[{"selector":"b"}]}}`, "failed.controls[0]", "role and name"},
		{"failed bad selector", `{"version":1,"name":"a","base_url":"http://x","adapter":"marker","composer":{"role":"textbox"},"send":{"by":"enter"},"failed":{"selectors":["div[["]}}`, "failed.selectors[0]", "invalid CSS selector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file), "p.json")
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrBadProfile) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Reason, tc.reason) {
				t.Fatalf("got field %q reason %q, want %q containing %q", fe.Field, fe.Reason, tc.field, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "site: p.json: ") {
				t.Fatalf("message %q does not name the file", err)
			}
		})
	}
}

func doc(t *testing.T, html string) *observe.Document {
	t.Helper()
	d, err := observe.Parse(&capture.Capture{Version: capture.FormatVersion, URL: "http://x/", Frames: []capture.Frame{{ID: "main", URL: "http://x/", HTML: html}}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPageSignals(t *testing.T) {
	p, err := Parse([]byte(good), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	r := p.Reader()
	for _, tc := range []struct{ name, html, state, evidence string }{
		{"busy log marks the newest group", `<div id="log" aria-busy="true"><div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="bot" data-id="2">Par</div></div>`, "generating", `page signal selector "#log[aria-busy=true]"`},
		{"stop control marks it", `<div id="log"><div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="bot" data-id="2">Par</div></div><button>Stop</button>`, "generating", `page signal control button "Stop"`},
		{"hidden stop is no signal", `<div id="log"><div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="bot" data-id="2">Paris.</div></div><button hidden>Stop</button>`, "complete", "no generating signal"},
		{"an answer before the newest user turn stays complete", `<div id="log" aria-busy="true"><div class="msg" data-from="bot" data-id="2">Old.</div><div class="msg" data-from="me" data-id="3">next?</div></div>`, "complete", "no generating signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := r.Groups(doc(t, tc.html))
			g := res.Groups[len(res.Groups)-1]
			if g.State != tc.state || g.Evidence != tc.evidence {
				t.Fatalf("state %s (%s), want %s (%s)", g.State, g.Evidence, tc.state, tc.evidence)
			}
		})
	}
}

// LIB-3: settle_ms left out is the default (0 here), 0 turns the window
// off (negative), a value is that many milliseconds.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		want        time.Duration
	}{
		{"left out takes the default", ``, 0},
		{"zero turns it off", `"settle_ms": 0,`, -1},
		{"a window", `"settle_ms": 250,`, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(strings.Replace(good, `"version": 1,`, `"version": 1, `+tc.field, 1)), "acme.json")
			if err != nil {
				t.Fatal(err)
			}
			if p.Settle != tc.want {
				t.Fatalf("settle %s, want %s", p.Settle, tc.want)
			}
		})
	}
}

// LIB-5: a control given by selector and scoped to an answer becomes a
// scoped selector target; a page-level failure signal fails the newest
// answer, before a generating signal.
func TestScopedControlsAndFailureSignals(t *testing.T) {
	file := strings.Replace(good, `"stop": {"role": "button", "name": "Stop"},`,
		`"stop": {"role": "button", "name": "Stop"}, "regenerate": {"selector": "button.regen", "in": "newest"}, "failed": {"selectors": [".toast.error"]},`, 1)
	p, err := Parse([]byte(file), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	if tg := Target(p.RegenerateControl()); tg.Selector != "button.regen" || tg.In != InNewest || p.RegenerateControl().String() != `selector "button.regen" in answer newest` {
		t.Fatalf("regenerate %+v (%s)", tg, p.RegenerateControl())
	}
	r := p.Reader()
	for _, tc := range []struct{ name, html, state, evidence string }{
		{"a toast fails the newest answer", `<div id="log" aria-busy="true"><div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="bot" data-id="2">Par</div></div><div class="toast error">Something went wrong</div>`, "failed", `page failure signal selector ".toast.error"`},
		{"no toast", `<div id="log"><div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="bot" data-id="2">Paris.</div></div><div class="toast">Saved</div>`, "complete", "no generating signal"},
		{"an answer before the newest user turn is not failed", `<div id="log"><div class="msg" data-from="bot" data-id="2">Old.</div><div class="msg" data-from="me" data-id="3">next?</div></div><div class="toast error">x</div>`, "complete", "no generating signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := r.Groups(doc(t, tc.html))
			g := res.Groups[len(res.Groups)-1]
			if g.State != tc.state || g.Evidence != tc.evidence {
				t.Fatalf("state %s (%s), want %s (%s)", g.State, g.Evidence, tc.state, tc.evidence)
			}
		})
	}
	// a library that adds no answer on an error: the result names the
	// page's failure (the send's outcome, answer.Baseline.Failed)
	for _, tc := range []struct{ name, html, failure string }{
		{"a toast and no answer group", `<div id="log"><div class="msg" data-from="me" data-id="1">hi</div></div><div class="toast error">Overloaded</div>`, `page failure signal selector ".toast.error"`},
		{"no toast", `<div id="log"><div class="msg" data-from="me" data-id="1">hi</div></div>`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := r.Groups(doc(t, tc.html)); res.Failure != tc.failure || len(res.Groups) != 0 {
				t.Fatalf("failure %q with %d groups, want %q and none", res.Failure, len(res.Groups), tc.failure)
			}
		})
	}
}

func TestSpeakerPattern(t *testing.T) {
	p, err := Parse([]byte(good), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	res := p.Adapter.Groups(doc(t, `<div class="msg" data-from="me" data-id="1">hi</div><div class="msg" data-from="Nova" data-id="2">a</div><div class="msg" data-from="Orion" data-id="3">b</div>`))
	if len(res.Groups) != 2 || res.Turns != 3 {
		t.Fatalf("groups %v turns %d, want 2 assistant groups of 3 turns", res.IDs(), res.Turns)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"version":1}`))
	if data, err := os.ReadFile(filepath.Join("..", "..", "testsite", "testsite.json")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "fuzz.json")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			return
		}
		if p.Adapter == nil || p.Name == "" || p.BaseURL == "" {
			t.Fatalf("accepted profile lacks a required part: %+v", p)
		}
		_ = p.Reader().Groups(doc(t, `<div class="msg">x</div>`))
	})
}

func TestReady(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(good, `"version": 1,`, `"version": 1, "ready": {"selector": "#thread[data-ready=true]", "text": "Today", "absent": ".skeleton"},`, 1)), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	r := p.Readiness()
	if r.Check == nil || r.Awaited != `selector "#thread[data-ready=true]" and the text "Today" and no ".skeleton"` {
		t.Fatalf("readiness %+v", r)
	}
	for _, tc := range []struct{ name, html, missing string }{
		{"loading", `<main id="thread" data-ready="false"><div class="skeleton">Loading</div></main>`, `nothing matches "#thread[data-ready=true]"; "Today" is not on the page; ".skeleton" still shows (1 element)`},
		{"ready", `<main id="thread" data-ready="true"><h2>Today</h2></main>`, ""},
		{"a hidden skeleton is absent", `<main id="thread" data-ready="true"><p>Today</p><div class="skeleton" hidden>x</div></main>`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Check(doc(t, tc.html)); got != tc.missing {
				t.Fatalf("missing %q, want %q", got, tc.missing)
			}
		})
	}
	if s := Sim("http://sim.test", nil).Readiness(); !s.AtLoad {
		t.Errorf("the sim's pages are ready at their load event: %+v", s)
	}
	d, _ := Parse([]byte(good), "acme.json")
	if r := d.Readiness(); r.Check != nil || r.AtLoad {
		t.Errorf("a profile without ready takes the default: %+v", r)
	}
}

// A site without a Stop control says so in its profile: StopAnswer
// refuses with ErrNoStop and the reason, and clicks nothing.
func TestNoStop(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(good, `"stop": {"role": "button", "name": "Stop"},`, `"stop": {"none": "its one button is disabled while it streams"},`, 1)), "acme.json")
	if err != nil {
		t.Fatal(err)
	}
	err = p.StopAnswer(context.Background(), nil, time.Second)
	if !errors.Is(err, ErrNoStop) || !strings.Contains(err.Error(), "its one button is disabled while it streams") {
		t.Fatalf("StopAnswer: %v, want ErrNoStop with the reason", err)
	}
}
