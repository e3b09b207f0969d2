package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

const url = "http://sim.test/chat"

type turn struct {
	id, role, text string
	attrs          string // extra attributes on the turn element
	inner          string // extra markup inside the turn
}

// page renders a marker-style chat with stable node ids on the composer
// (n1) and the send button (n2).
func page(turns ...turn) *capture.Capture {
	var b strings.Builder
	b.WriteString(`<html><body><main>`)
	for _, t := range turns {
		fmt.Fprintf(&b, `<div data-message-author-role="%s" data-message-id="%s" %s><p>%s</p>%s</div>`, t.role, t.id, t.attrs, t.text, t.inner)
	}
	b.WriteString(`<textarea aria-label="Message" data-rl-node="n1"></textarea><button data-rl-node="n2">Send</button></main></body></html>`)
	return capture.New(url, b.String())
}

// recording builds a session: navigate, the captures before sending, a
// click on Send, then the captures after it, 100 ms apart.
func recording(before []*capture.Capture, after ...*capture.Capture) *replay.Session {
	s := &replay.Session{Version: replay.FormatVersion}
	at := int64(0)
	add := func(c *capture.Capture) {
		i := len(s.Captures)
		s.Captures = append(s.Captures, c)
		s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindCapture, Capture: &i})
		at += 100
	}
	s.Steps = append(s.Steps, replay.Step{AtMS: 0, Kind: replay.KindNavigate, URL: url})
	for _, c := range before {
		add(c)
	}
	s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindClick, Node: "n2"})
	for _, c := range after {
		add(c)
	}
	return s
}

func run(t *testing.T, s *replay.Session) (*engine.Page, *trace.Log, *replay.Driver) {
	t.Helper()
	log := &trace.Log{}
	d := replay.NewDriver(s)
	task := engine.New(engine.Config{Tracer: log}).Begin(context.Background(), t.Name())
	p := task.Page("main", d)
	if err := p.Navigate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	return p, log, d
}

var sendExpectingAnswer = engine.Expect{NewAnswer: true, Timeout: 2 * time.Second}

func TestWaitAnswer(t *testing.T) {
	long := strings.Repeat("A long complete earlier answer. ", 100)
	u1 := turn{id: "m1", role: "user", text: "q1"}
	a1 := turn{id: "m2", role: "assistant", text: long}
	u2 := turn{id: "m3", role: "user", text: "q2"}
	tests := []struct {
		name       string
		before     *capture.Capture
		after      []*capture.Capture
		media      string
		wantStatus string
		wantGroup  string
		wantStates string
		wantText   string
	}{
		{
			name:   "partial then complete in the new group (ANS-3, ANS-5)",
			before: page(u1, a1),
			after: []*capture.Capture{
				page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Par", attrs: `aria-busy="true"`}),
				page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Paris is the capital."}),
			},
			wantStatus: answer.StatusComplete, wantGroup: "m4", wantStates: "generating>complete", wantText: "Paris is the capital.",
		},
		{
			name:       "a long complete old answer is never the new one (ANS-3)",
			before:     page(u1, a1),
			after:      []*capture.Capture{page(u1, a1, u2)},
			wantStatus: answer.StatusNoNewAnswer,
		},
		{
			name:       "same text under a new id is the new answer (ANS-4)",
			before:     page(u1, a1),
			after:      []*capture.Capture{page(u1, a1, u2, turn{id: "m4", role: "assistant", text: long})},
			wantStatus: answer.StatusComplete, wantGroup: "m4", wantStates: "complete",
		},
		{
			name:       "confirmation request ends the wait (ANS-5)",
			before:     page(u1, a1),
			after:      []*capture.Capture{page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Run it?", inner: `<button>Confirm</button><button>Cancel</button>`})},
			wantStatus: answer.StatusNeedsConfirmation, wantGroup: "m4", wantStates: "needs_confirmation",
		},
		{
			name:       "an error with retry is a failure (ANS-5)",
			before:     page(u1, a1),
			after:      []*capture.Capture{page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Something went wrong", inner: `<button>Retry</button>`})},
			wantStatus: answer.StatusFailed, wantGroup: "m4", wantStates: "failed",
		},
		{
			name:       "still generating at the deadline is partial, not the answer",
			before:     page(u1, a1),
			after:      []*capture.Capture{page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Par", attrs: `data-is-streaming="true"`})},
			wantStatus: answer.StatusIncomplete, wantGroup: "m4", wantStates: "generating",
		},
		{
			name:   "ready video only in an older group is no evidence (ANS-6)",
			before: page(u1, turn{id: "m2", role: "assistant", text: "old", inner: `<video src="a.mp4" data-rl-ready="4"></video>`}),
			after: []*capture.Capture{page(u1, turn{id: "m2", role: "assistant", text: "old", inner: `<video src="a.mp4" data-rl-ready="4"></video>`}, u2,
				turn{id: "m4", role: "assistant", text: "new", inner: `<video src="b.mp4" data-rl-ready="1"></video>`})},
			media:      "video",
			wantStatus: answer.StatusMediaNotReady, wantGroup: "m4", wantStates: "complete",
		},
		{
			name:   "ready video in the new group completes (ANS-6 control)",
			before: page(u1, a1),
			after: []*capture.Capture{page(u1, a1, u2,
				turn{id: "m4", role: "assistant", text: "new", inner: `<video src="b.mp4" data-rl-ready="4"></video>`})},
			media:      "video",
			wantStatus: answer.StatusComplete, wantGroup: "m4", wantStates: "complete",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, log, d := run(t, recording([]*capture.Capture{tt.before}, tt.after...))
			err := p.Click(ctx, engine.ByRole("button", "Send"), sendExpectingAnswer)
			if tt.wantStatus == answer.StatusNoNewAnswer {
				if !errors.Is(err, engine.OutcomeUnknown) {
					t.Fatalf("click: got %v, want OUTCOME_UNKNOWN", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.WaitAnswer(ctx, answer.Options{Timeout: 3 * time.Second, Media: tt.media})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tt.wantStatus || r.GroupID != tt.wantGroup || strings.Join(r.States, ">") != tt.wantStates {
				t.Fatalf("got status=%s group=%s states=%v evidence=%q, want %s %s %s", r.Status, r.GroupID, r.States, r.Evidence, tt.wantStatus, tt.wantGroup, tt.wantStates)
			}
			if tt.wantText != "" && r.Text != tt.wantText {
				t.Fatalf("text: got %q, want %q", r.Text, tt.wantText)
			}
			if r.BaselineSize != 1 || r.Rule == "" {
				t.Fatalf("result must say what was read: baseline=%d rule=%q", r.BaselineSize, r.Rule)
			}
			if u := d.Unused(); len(u) > 0 {
				t.Fatalf("unused recorded actions: %v", u)
			}
			if !strings.Contains(string(trace.Format(log.Events())), "answer.result") {
				t.Fatal("no answer.result in the trace")
			}
		})
	}
}

func TestStructureUnknown(t *testing.T) {
	ctx := context.Background()
	plain := capture.New(url, `<main><p>Some long text that is not a chat.</p><button data-rl-node="n2">Send</button></main>`)
	s := recording([]*capture.Capture{plain}, plain)
	p, _, _ := run(t, s)
	// a text expectation lets the click succeed; the answer wait then
	// finds no turn structure at all
	if err := p.Click(ctx, engine.ByRole("button", "Send"), engine.Expect{TextVisible: "not a chat"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitAnswer(ctx, answer.Options{}); !errors.Is(err, engine.NoBaseline) {
		t.Fatalf("wait without a baseline: got %v, want NO_BASELINE", err)
	}
}

func TestExpectationsAreCheckedBeforeSending(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		expect engine.Expect
		want   error
	}{
		{"none", engine.Expect{}, engine.MissingExpectation},
		{"relative url", engine.Expect{URL: "/next"}, engine.InvalidExpectation},
		{"no host", engine.Expect{URL: "http:///x"}, engine.InvalidExpectation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// the recording holds no click: sending anything would diverge
			s := replay.SinglePage(page())
			p, _, _ := run(t, s)
			err := p.Click(ctx, engine.ByRole("button", "Send"), tt.expect)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOutcomeUnknownBlocksMutationsNotReads(t *testing.T) {
	ctx := context.Background()
	u1 := turn{id: "m1", role: "user", text: "q"}
	s := recording([]*capture.Capture{page(u1)}, page(u1))
	log := &trace.Log{}
	task := engine.New(engine.Config{Tracer: log}).Begin(ctx, "blocked")
	p := task.Page("main", replay.NewDriver(s))
	if err := p.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	err := p.Click(ctx, engine.ByRole("button", "Send"), engine.Expect{TextVisible: "Done!", Timeout: time.Second})
	if !errors.Is(err, engine.OutcomeUnknown) || !task.Blocked() {
		t.Fatalf("click: got %v blocked=%v, want OUTCOME_UNKNOWN and a blocked task", err, task.Blocked())
	}
	if _, err := p.Snapshot(ctx, "page"); err != nil {
		t.Fatalf("a read on a blocked task failed: %v", err)
	}
	for name, op := range map[string]func() error{
		"fill":     func() error { return p.Fill(ctx, engine.ByRole("textbox", "Message"), "x") },
		"click":    func() error { return p.Click(ctx, engine.ByRole("button", "Send"), sendExpectingAnswer) },
		"navigate": func() error { return p.Navigate(ctx, url) },
		"finish":   func() error { return task.Finish(ctx) },
	} {
		if err := op(); !errors.Is(err, engine.TaskBlocked) {
			t.Errorf("%s on a blocked task: got %v, want TASK_BLOCKED", name, err)
		}
	}
	ok, err := task.Recheck(ctx)
	if err != nil || ok {
		t.Fatalf("recheck: got %v %v, want still unknown", ok, err)
	}
	if _, err := task.Recheck(ctx); !errors.Is(err, engine.TaskBlocked) {
		t.Fatalf("second recheck: got %v, want TASK_BLOCKED", err)
	}
}

func TestStaleRefIsRefused(t *testing.T) {
	ctx := context.Background()
	c := page(turn{id: "m1", role: "user", text: "q"})
	s := replay.SinglePage(c)
	p, _, _ := run(t, s)
	v1, err := p.Snapshot(ctx, "page")
	if err != nil {
		t.Fatal(err)
	}
	ref := v1.Elements[0].Ref
	if _, err := p.Snapshot(ctx, "page"); err != nil { // the page did not change
		t.Fatal(err)
	}
	err = p.Fill(ctx, engine.Target{Ref: ref}, "x")
	if !errors.Is(err, locate.StaleRef) {
		t.Fatalf("fill with a ref from the older snapshot: got %v, want STALE_REF", err)
	}
}

func TestNewTaskInheritsNothing(t *testing.T) {
	ctx := context.Background()
	e := engine.New(engine.Config{})
	t1 := e.Begin(ctx, "one")
	t2 := e.Begin(ctx, "two")
	if t1.ID == t2.ID {
		t.Fatalf("task ids repeat: %s", t1.ID)
	}
	p := t2.Page("main", replay.NewDriver(&replay.Session{Version: replay.FormatVersion}))
	if _, err := p.WaitAnswer(ctx, answer.Options{}); !errors.Is(err, engine.NoBaseline) {
		t.Fatalf("a new task waited on an old baseline: %v", err)
	}
}

// TestReleaseForgetsAnEndedTasksPages: Release refuses a running task; on
// an ended one the page's reads go, and a page asked for afterwards is a
// new one whose mutations are refused.
func TestReleaseForgetsAnEndedTasksPages(t *testing.T) {
	ctx := context.Background()
	task := engine.New(engine.Config{}).Begin(ctx, "release")
	p := task.Page("main", replay.NewDriver(&replay.Session{Version: replay.FormatVersion}))
	if err := task.Release(); !errors.Is(err, engine.InvalidArgument) {
		t.Fatalf("release of a running task: %v, want INVALID_ARGUMENT", err)
	}
	if err := task.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := task.Release(); err != nil {
		t.Fatalf("release of a finished task: %v", err)
	}
	again := task.Page("main", replay.NewDriver(&replay.Session{Version: replay.FormatVersion}))
	if again == p {
		t.Error("the released task still holds its page")
	}
	if err := again.Navigate(ctx, "http://x.test/"); !errors.Is(err, engine.TaskFinished) {
		t.Errorf("navigate on a released task's page: %v, want TASK_FINISHED", err)
	}
}

func TestViewsBoundTheGroups(t *testing.T) {
	ctx := context.Background()
	var turns []turn
	for i := range 30 {
		turns = append(turns, turn{id: fmt.Sprintf("u%d", i), role: "user", text: "q"},
			turn{id: fmt.Sprintf("a%d", i), role: "assistant", text: strings.Repeat("long answer ", 300)})
	}
	c := page(turns...)
	s := replay.SinglePage(c)
	p, _, _ := run(t, s)
	tests := []struct {
		name    string
		view    string
		limits  engine.GroupLimits
		lastID  string
		wantLen int
	}{
		{"page view", "page", engine.DefaultPageGroups, "a29", engine.DefaultPageGroups.GroupsMax},
		{"full view", "full", engine.DefaultFullGroups, "a29", engine.DefaultFullGroups.GroupsMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := p.Snapshot(ctx, tt.view)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Groups) != tt.wantLen || v.GroupCount.Total != 30 || !v.GroupCount.Truncated || v.Complete {
				t.Fatalf("got %d groups, count %+v, complete %v", len(v.Groups), v.GroupCount, v.Complete)
			}
			last := v.Groups[len(v.Groups)-1]
			if last.ID != tt.lastID || len([]rune(last.Text)) != tt.limits.TextCharsMax || !last.TextTruncated {
				t.Fatalf("last group %s has %d chars (truncated %v)", last.ID, len([]rune(last.Text)), last.TextTruncated)
			}
		})
	}
}

// TestUnchangedSnapshotIsReissued: a snapshot of an unchanged page (the
// driver returns the same capture) is the first snapshot under the new id:
// the same view with fresh refs; the older refs are stale.
func TestUnchangedSnapshotIsReissued(t *testing.T) {
	ctx := context.Background()
	c := page(turn{id: "m1", role: "user", text: "q"}, turn{id: "m2", role: "assistant", text: "a", inner: `<button>Copy</button>`})
	p, _, _ := run(t, replay.SinglePage(c))
	v1, err := p.Snapshot(ctx, "page")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := p.Snapshot(ctx, "page")
	if err != nil {
		t.Fatal(err)
	}
	if v2.ID != v1.ID+1 || len(v2.Elements) != len(v1.Elements) || len(v1.Elements) < 3 {
		t.Fatalf("snapshots %d then %d, %d then %d elements", v1.ID, v2.ID, len(v1.Elements), len(v2.Elements))
	}
	// the second view is the first with the new snapshot id in its refs
	renamed := *v1.Snapshot
	renamed.ID = v2.ID
	renamed.Elements = slices.Clone(v1.Elements)
	for i := range renamed.Elements {
		renamed.Elements[i].Ref = strings.Replace(renamed.Elements[i].Ref, fmt.Sprintf("s%de", v1.ID), fmt.Sprintf("s%de", v2.ID), 1)
	}
	want, _ := json.Marshal(engine.View{Snapshot: &renamed, Adapter: v1.Adapter, Groups: v1.Groups, GroupCount: v1.GroupCount})
	got, _ := json.Marshal(engine.View{Snapshot: v2.Snapshot, Adapter: v2.Adapter, Groups: v2.Groups, GroupCount: v2.GroupCount})
	if string(got) != string(want) {
		t.Fatalf("the unchanged page's second view\n%s\nwant\n%s", got, want)
	}
	var box string
	for _, e := range v2.Elements {
		if e.Role == "textbox" {
			box = e.Ref
		}
	}
	if err := p.Fill(ctx, engine.Target{Ref: v1.Elements[0].Ref}, "x"); !errors.Is(err, locate.StaleRef) {
		t.Fatalf("a ref of the first snapshot: %v, want STALE_REF", err)
	}
	if box == "" {
		t.Fatalf("no textbox in %+v", v2.Elements)
	}
	if _, err := p.Snapshot(ctx, "page"); err != nil {
		t.Fatal(err)
	}
	if err := p.Fill(ctx, engine.Target{Ref: box}, "x"); !errors.Is(err, locate.StaleRef) {
		t.Fatalf("a ref of the second snapshot after a third: %v, want STALE_REF", err)
	}
}

// notingDriver is a replay driver whose page clock let a stream go quiet
// (engine.StreamNoter).
type notingDriver struct {
	*replay.Driver
	notes []string
}

func (d notingDriver) StreamNotes() []string { return d.notes }

// TestWaitAnswerNamesStreamsThatWentQuiet (APP-2): a wait that ends
// without its answer names the streams the page clock stopped waiting
// for; a complete answer does not mention them.
func TestWaitAnswerNamesStreamsThatWentQuiet(t *testing.T) {
	u1 := turn{id: "m1", role: "user", text: "q1"}
	a1 := turn{id: "m2", role: "assistant", text: "a1"}
	u2 := turn{id: "m3", role: "user", text: "q2"}
	note := "WebSocket ws://site.test/chat went quiet after 3 message(s): none for 2000 ms of wall time"
	for _, tc := range []struct {
		name       string
		last       turn
		wantStatus string
		wantNote   bool
	}{
		{"still generating at the deadline", turn{id: "m4", role: "assistant", text: "Par", attrs: `aria-busy="true"`}, answer.StatusIncomplete, true},
		{"complete", turn{id: "m4", role: "assistant", text: "Paris."}, answer.StatusComplete, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := notingDriver{replay.NewDriver(recording([]*capture.Capture{page(u1, a1)}, page(u1, a1, u2, tc.last))), []string{note}}
			p := engine.New(engine.Config{Tracer: &trace.Log{}}).Begin(ctx, t.Name()).Page("main", d)
			if err := p.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			if err := p.Click(ctx, engine.ByRole("button", "Send"), sendExpectingAnswer); err != nil {
				t.Fatal(err)
			}
			r, err := p.WaitAnswer(ctx, answer.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.wantStatus || strings.Contains(r.Evidence, note) != tc.wantNote {
				t.Fatalf("status %s, evidence %q; want %s, the note named: %v", r.Status, r.Evidence, tc.wantStatus, tc.wantNote)
			}
		})
	}
}

// TestRefOfIsStrict: a ref is taken from the latest snapshot by the same
// resolve as an action's: two matches are refused with both described,
// never the first taken; a row narrows to one; before any snapshot there
// is none to take.
func TestRefOfIsStrict(t *testing.T) {
	ctx := context.Background()
	c := capture.New(url, `<html><body><main><table>`+
		`<tr><td>report.pdf</td><td><button>Delete</button></td></tr>`+
		`<tr><td>notes.txt</td><td><button>Delete</button></td></tr>`+
		`</table><button>Archive</button></main></body></html>`)
	p, _, _ := run(t, replay.SinglePage(c))
	if _, err := p.RefOf(ctx, locate.Locator{Role: "button", Name: "Archive"}); !errors.Is(err, engine.InvalidArgument) {
		t.Fatalf("before a snapshot: %v, want INVALID_ARGUMENT", err)
	}
	v, err := p.Snapshot(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		loc      locate.Locator
		code     errcode.Code
		count    int
		wantText string // the match's context (ok) or a candidate's (refused)
	}{
		{"one match", locate.Locator{Role: "button", Name: "Archive"}, "", 0, ""},
		{"two matches", locate.Locator{Role: "button", Name: "Delete"}, locate.TargetAmbiguous, 2, "notes.txt"},
		{"narrowed by row", locate.Locator{Role: "button", Name: "Delete", Within: "notes.txt"}, "", 0, "notes.txt"},
		{"narrowed to none", locate.Locator{Role: "button", Name: "Delete", Within: "todo.md"}, locate.TargetNotFound, 0, ""},
		{"no match", locate.Locator{Role: "button", Name: "Remove"}, locate.TargetNotFound, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			el, err := p.RefOf(ctx, tt.loc)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if observe.RefSnapshot(el.Ref) != v.ID || !strings.Contains(el.Context, tt.wantText) {
					t.Fatalf("ref %s (context %q), want one of snapshot %d in %q", el.Ref, el.Context, v.ID, tt.wantText)
				}
				return
			}
			var le *locate.Error
			if !errors.As(err, &le) || le.Code != tt.code || le.Count != tt.count {
				t.Fatalf("got %v, want %s with %d matches", err, tt.code, tt.count)
			}
			if tt.wantText != "" && (len(le.Candidates) != tt.count || !strings.Contains(strings.Join(le.Candidates, "\n"), tt.wantText)) {
				t.Fatalf("candidates %q do not describe each match", le.Candidates)
			}
		})
	}
}
