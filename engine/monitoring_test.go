package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

const formURL = "http://sim.test/form"

// formPage is a page with a "Check" button (n2) that changes nothing, a
// "Security code" field (n3) that only its label marks sensitive, and a
// status line.
func formPage(code string) *capture.Capture {
	return capture.New(formURL, fmt.Sprintf(`<html><body><main><p>Nothing new.</p>
<button data-rl-node="n2">Check</button>
<label>Security code <input type="text" data-rl-node="n3" data-rl-value=%q></label>
</main></body></html>`, code))
}

// session is navigate, then the given captures and actions in order, 10 ms
// apart.
func session(items ...any) *replay.Session {
	s := &replay.Session{Version: replay.FormatVersion}
	s.Steps = append(s.Steps, replay.Step{Kind: replay.KindNavigate, URL: formURL})
	at := int64(0)
	for _, it := range items {
		at += 10
		switch v := it.(type) {
		case *capture.Capture:
			i := len(s.Captures)
			s.Captures = append(s.Captures, v)
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindCapture, Capture: &i})
		case replay.Step:
			v.AtMS = at
			s.Steps = append(s.Steps, v)
		}
	}
	return s
}

func startTask(t *testing.T, s *replay.Session) (*engine.Task, *engine.Page, *trace.Log) {
	t.Helper()
	log := &trace.Log{}
	task := engine.New(engine.Config{Tracer: log}).Begin(context.Background(), t.Name())
	p := task.Page("main", replay.NewDriver(s))
	if err := p.Navigate(context.Background(), formURL); err != nil {
		t.Fatal(err)
	}
	return task, p, log
}

func signals(log *trace.Log) []trace.Event {
	var out []trace.Event
	for _, e := range log.Events() {
		if e.Kind == "monitor.signal" {
			out = append(out, e)
		}
	}
	return out
}

var checkButton = engine.ByRole("button", "Check")

func clicks(n int) []any {
	items := []any{formPage("")}
	for range n {
		items = append(items, replay.Step{Kind: replay.KindClick, Node: "n2"})
	}
	return items
}

// Stagnation is found on the observation after the fifth unchanged action;
// the signal reaches the task before any further action (a Find is a read)
// and is traced once (MON-4 b, MON-8).
func TestStagnationSignalReachesTheTaskOnARead(t *testing.T) {
	ctx := context.Background()
	task, p, log := startTask(t, session(clicks(5)...))
	for i := range 5 {
		if err := p.Click(ctx, checkButton, engine.Expect{TextVisible: "Nothing new", Timeout: time.Second}); err != nil {
			t.Fatalf("click %d: %v", i+1, err)
		}
		if s := task.Signal(); s != nil {
			t.Fatalf("click %d: got signal %+v, want none before the observation that shows stagnation", i+1, s)
		}
	}
	if _, err := p.Find(ctx, observe.Query{Role: "button"}); err != nil {
		t.Fatal(err)
	}
	s := task.Signal()
	if s == nil || s.Rule != monitor.RuleStagnation || s.Stagnant != 5 {
		t.Fatalf("got signal %+v, want stagnation with 5 stagnant actions", s)
	}
	if again := task.Signal(); again != nil {
		t.Errorf("got the signal twice: %+v", again)
	}
	if ev := signals(log); len(ev) != 1 || ev[0].Get("rule") != string(monitor.RuleStagnation) {
		t.Errorf("got traced signals %v, want one stagnation", ev)
	}
	if err := task.Finish(ctx); err != nil {
		t.Errorf("a task with a signal must finish (MON-8): %v", err)
	}
}

// A signal rides on the next View and is then gone from the task.
func TestSignalRidesOnTheNextView(t *testing.T) {
	ctx := context.Background()
	task, p, _ := startTask(t, session(clicks(5)...))
	for range 5 {
		if err := p.Click(ctx, checkButton, engine.Expect{TextVisible: "Nothing new", Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		t.Fatal(err)
	}
	if v.Signal == nil || v.Signal.Rule != monitor.RuleStagnation {
		t.Fatalf("got view signal %+v, want stagnation", v.Signal)
	}
	if s := task.Signal(); s != nil {
		t.Errorf("got %+v from the task after the view carried it, want nil", s)
	}
}

// Passive operations, however many, never signal (MON-6).
func TestPassiveOperationsNeverSignal(t *testing.T) {
	ctx := context.Background()
	task, p, log := startTask(t, session(formPage("")))
	ops := []struct {
		name string
		op   func() error
	}{
		{name: "waitFor", op: func() error { return p.WaitFor(ctx, engine.Expect{TextVisible: "Nothing new", Timeout: time.Second}) }},
		{name: "verifyOutcome", op: func() error { return p.VerifyOutcome(ctx, engine.Expect{TextVisible: "Nothing new"}) }},
		{name: "verifyField", op: func() error { return p.VerifyField(ctx, engine.ByRole("textbox", "Security code"), "") }},
	}
	for _, tc := range ops {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 12 {
				if err := tc.op(); err != nil {
					t.Fatalf("%s %d: %v", tc.name, i+1, err)
				}
				if s := task.Signal(); s != nil {
					t.Fatalf("%s %d: got signal %+v", tc.name, i+1, s)
				}
			}
		})
	}
	if ev := signals(log); len(ev) > 0 {
		t.Errorf("got traced signals %v, want none", ev)
	}
}

// The same click by one ref, five times with no observation in between, is
// rule (c): the page API reaches it through refs.
func TestSameRefWithoutObservation(t *testing.T) {
	ctx := context.Background()
	task, p, _ := startTask(t, session(clicks(5)...))
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		t.Fatal(err)
	}
	ref := ""
	for _, e := range v.Elements {
		if e.Role == "button" {
			ref = e.Ref
		}
	}
	var got *monitor.Signal
	for range 5 {
		if err := p.Click(ctx, engine.Target{Ref: ref}, engine.Expect{TextVisible: "Nothing new", Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		if s := task.Signal(); s != nil {
			got = s
		}
	}
	if got == nil || got.Rule != monitor.RuleSameActionNoObservation || got.SinceObservation != 5 {
		t.Fatalf("got %+v, want same_action_no_observation with 5 since the observation", got)
	}
}

// The change summary names a field that only its label marks sensitive as
// "a sensitive field", never by its name or value, and holds no ref
// (MON-7, MON-9).
func TestChangesHideSensitiveFieldsAndGrantNoRef(t *testing.T) {
	ctx := context.Background()
	_, p, _ := startTask(t, session(formPage(""), replay.Step{Kind: replay.KindType, Node: "n3", Text: "493817"}, formPage("493817")))
	if err := p.Fill(ctx, engine.ByRole("textbox", "Security code"), "493817"); err != nil {
		t.Fatal(err)
	}
	s, ok := p.Changes()
	if !ok {
		t.Fatal("no change summary after a fill")
	}
	if len(s.Changed) != 1 || s.Changed[0].Name != monitor.SensitiveName || strings.Join(s.Changed[0].Fields, ",") != "value" {
		t.Fatalf("got changed %+v, want one %q with its value changed", s.Changed, monitor.SensitiveName)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"Security code", "493817", "n3", `"s1e`, `"s2e`} {
		if strings.Contains(string(b), leak) {
			t.Errorf("summary %s holds %q", b, leak)
		}
	}
}

// benchPage is a chat page of 40 turns (20 answer groups) with a 60-link
// sidebar: about the size the page API observes after every action.
func benchPage() *capture.Capture {
	var b strings.Builder
	b.WriteString(`<html><body><nav>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<a href="/c/%d">Conversation %d</a>`, i, i)
	}
	b.WriteString(`</nav><main>`)
	for i := range 40 {
		role := []string{"user", "assistant"}[i%2]
		fmt.Fprintf(&b, `<div data-message-author-role="%s" data-message-id="m%d"><p>%s %d</p></div>`, role, i,
			strings.Repeat("The assistant answered the question in detail. ", 2), i)
	}
	b.WriteString(`<textarea aria-label="Message"></textarea><button>Send</button></main></body></html>`)
	return capture.New(url, b.String())
}

// BenchmarkMonitorPerAction compares what the loop monitor adds to an
// action with the capture→observe cycle every action already pays:
//
//	go test ./engine -run '^$' -bench MonitorPerAction -benchmem
//
// capture→observe is parse, answer groups and observation; monitor is the
// engine's mapping of that observation (its full view) plus Observe, Act
// and Pending; monitor-core is Observe, Act and Pending on an
// already-mapped observation.
func BenchmarkMonitorPerAction(b *testing.B) {
	c := benchPage()
	doc, err := observe.Parse(c)
	if err != nil {
		b.Fatal(err)
	}
	groups := adapter.DefaultMarker.Groups(doc)
	o := observe.Observe(doc, 1, observe.Options{GroupOf: groups.GroupOf()})
	if len(o.All) < 60 || len(groups.Groups) != 20 {
		b.Fatalf("page has %d elements and %d groups", len(o.All), len(groups.Groups))
	}
	act := monitor.Action{Op: "click", Tab: "main", Role: "button", Name: "Send"}

	b.Run("capture→observe", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := observe.Parse(c)
			if err != nil {
				b.Fatal(err)
			}
			g := adapter.DefaultMarker.Groups(d)
			observe.Observe(d, 1, observe.Options{GroupOf: g.GroupOf()})
		}
	})
	b.Run("monitor", func(b *testing.B) {
		m := monitor.New(monitor.Config{})
		b.ReportAllocs()
		for b.Loop() {
			m.Act(act)
			m.Observe(engine.MonitorObservation("main", o, groups))
			m.Pending()
		}
	})
	b.Run("monitor-core", func(b *testing.B) {
		m := monitor.New(monitor.Config{})
		mo := engine.MonitorObservation("main", o, groups)
		b.ReportAllocs()
		for b.Loop() {
			m.Act(act)
			m.Observe(mo)
			m.Pending()
		}
	})
}
