package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/trace"
)

// scriptedLive is a live page on a virtual wall clock: a navigation and
// each read take the time the script gives, and what the page shows is a
// function of the time since the start and since the click on Send.
type scriptedLive struct {
	now, start, clicked time.Time
	navTook             time.Duration
	// readTook is how long the n-th read after the click takes (n from 0;
	// before the click every read takes 30 ms).
	readTook func(n int) time.Duration
	reads    int
	show     func(sinceStart, sinceClick time.Duration) *capture.Capture
}

func newScriptedLive() *scriptedLive {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &scriptedLive{now: t0, start: t0, readTook: func(int) time.Duration { return 30 * time.Millisecond }}
}

func (l *scriptedLive) Navigate(ctx context.Context, url string) error {
	l.now = l.now.Add(l.navTook)
	return nil
}

func (l *scriptedLive) Capture(ctx context.Context) (*capture.Capture, error) {
	took := 30 * time.Millisecond
	sinceClick := time.Duration(-1)
	if !l.clicked.IsZero() {
		took = l.readTook(l.reads)
		l.reads++
	}
	l.now = l.now.Add(took)
	if !l.clicked.IsZero() {
		sinceClick = l.now.Sub(l.clicked)
	}
	return l.show(l.now.Sub(l.start), sinceClick), nil
}

func (l *scriptedLive) Click(ctx context.Context, node string) error {
	l.now = l.now.Add(5 * time.Millisecond)
	l.clicked = l.now
	return nil
}
func (l *scriptedLive) Type(ctx context.Context, node, text string) error { return nil }
func (l *scriptedLive) Press(ctx context.Context, node, key string) error { return nil }
func (l *scriptedLive) Now() time.Time                                    { return l.now }
func (l *scriptedLive) Sleep(ctx context.Context, d time.Duration) error {
	l.now = l.now.Add(d)
	return nil
}
func (l *scriptedLive) status(sinceClick time.Duration, done time.Duration) string {
	if sinceClick < done {
		return `aria-busy="true"`
	}
	return ""
}

// TestReplayIsTheLiveRun (SPEC LIB-4): a session recorded live is
// replayed read for read on its own timeline, so the replay's trace is
// the live run's: a ready timeout met live is met in the replay, and the
// answer states are the ones the live wait read, no more.
func TestReplayIsTheLiveRun(t *testing.T) {
	u1 := turn{id: "m1", role: "user", text: "q1"}
	a1 := turn{id: "m2", role: "assistant", text: "An earlier answer"}
	u2 := turn{id: "m3", role: "user", text: "q2"}
	tests := []struct {
		name string
		// live sets the page up; act drives it (after the navigation)
		live  func(l *scriptedLive)
		ready engine.Readiness
		act   func(ctx context.Context, p *engine.Page) error
		// want is a line the live trace holds (the case is what it says)
		want string
	}{
		{
			name: "a ready timeout starts when the navigation returned",
			live: func(l *scriptedLive) {
				l.navTook = 2 * time.Second // the composer shows at 11.9 s, 9.9 s after
				l.show = func(since, _ time.Duration) *capture.Capture {
					return threadPage(since >= 11900*time.Millisecond, a1)
				}
			},
			ready: engine.Readiness{Check: loadedCheck, Awaited: "the thread", Timeout: 10 * time.Second},
			want:  `ready page=main awaited="the thread"`,
		},
		{
			name: "a state the live wait never read is not read in the replay",
			live: func(l *scriptedLive) {
				// the outcome's read sees the answer generating; the wait's
				// first read is slow and finds it complete
				l.readTook = func(n int) time.Duration {
					if n == 0 {
						return 30 * time.Millisecond
					}
					return 1250 * time.Millisecond
				}
				l.show = func(_, sinceClick time.Duration) *capture.Capture {
					if sinceClick < 0 {
						return page(u1, a1)
					}
					return page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Paris", attrs: l.status(sinceClick, 200*time.Millisecond)})
				}
			},
			act: func(ctx context.Context, p *engine.Page) error {
				if err := p.Click(ctx, engine.ByRole("button", "Send"), sendExpectingAnswer); err != nil {
					return err
				}
				_, err := p.WaitAnswer(ctx, answer.Options{Timeout: 5 * time.Second})
				return err
			},
			want: "states=complete ",
		},
		{
			name: "a text wait met live at the edge of its timeout is met in the replay",
			live: func(l *scriptedLive) {
				l.readTook = func(n int) time.Duration { return 700 * time.Millisecond }
				l.show = func(_, sinceClick time.Duration) *capture.Capture {
					if sinceClick < 2960*time.Millisecond {
						return page(u1, a1)
					}
					return page(u1, a1, turn{id: "m5", role: "assistant", text: "Saved"})
				}
			},
			act: func(ctx context.Context, p *engine.Page) error {
				return p.Click(ctx, engine.ByRole("button", "Send"), engine.Expect{TextVisible: "Saved", Timeout: 3 * time.Second})
			},
			want: "status=met",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			run := func(d engine.Driver) (string, error) {
				log := &trace.Log{}
				p := engine.New(engine.Config{Tracer: log, Ready: tt.ready}).Begin(ctx, tt.name).Page("main", d)
				err := p.Navigate(ctx, url)
				if err == nil && tt.act != nil {
					err = tt.act(ctx, p)
				}
				return string(trace.Format(log.Events())), err
			}
			l := newScriptedLive()
			tt.live(l)
			rec := replay.NewRecorder(l, "", replay.Hooks{})
			live, err := run(rec)
			if err != nil {
				t.Fatalf("live: %v\n%s", err, live)
			}
			if !strings.Contains(live, tt.want) {
				t.Fatalf("the live run is not the case (no %q):\n%s", tt.want, live)
			}
			data, err := rec.Session().Encode()
			if err != nil {
				t.Fatal(err)
			}
			s, err := replay.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			d := replay.NewDriver(s)
			got, err := run(d)
			if err != nil {
				t.Fatalf("replay: %v\n--- live\n%s--- replay\n%s", err, live, got)
			}
			if got != live {
				t.Fatalf("the replay is not the live run:\n--- live\n%s--- replay\n%s", live, got)
			}
			if u := d.Unused(); len(u) > 0 {
				t.Fatalf("unused recorded actions: %v", u)
			}
		})
	}
}

// TestAnswerIDSwappedWhileGenerating (SPEC LIB-1): a placeholder the page
// replaces by the real message under a new id while generating is
// followed as one answer, and the golden names it once.
func TestAnswerIDSwappedWhileGenerating(t *testing.T) {
	u1 := turn{id: "m1", role: "user", text: "q1"}
	a1 := turn{id: "m2", role: "assistant", text: "An earlier answer"}
	u2 := turn{id: "m3", role: "user", text: "q2"}
	busy := `aria-busy="true"`
	tests := []struct {
		name           string
		after          []*capture.Capture
		group, states  string
		was            string
		goldenContains []string
	}{
		{
			name: "the placeholder's id swapped once is one answer",
			after: []*capture.Capture{
				page(u1, a1, u2, turn{id: "tmp-1", role: "assistant", text: "", attrs: busy}),
				page(u1, a1, u2, turn{id: "m4", role: "assistant", text: "Paris."}),
			},
			group: "m4", states: "generating>complete", was: "tmp-1",
			goldenContains: []string{
				"answer.state page=main group=a1 state=generating",
				"answer.state page=main group=a1 state=complete",
				"answer.result page=main status=complete group=a1 ",
				" was=a1 ",
			},
		},
		{
			name: "a second new group beside the first is another answer",
			after: []*capture.Capture{
				page(u1, a1, u2, turn{id: "tmp-1", role: "assistant", text: "", attrs: busy}),
				page(u1, a1, u2, turn{id: "tmp-1", role: "assistant", text: "Thinking"}, turn{id: "m4", role: "assistant", text: "Paris."}),
			},
			group: "m4", states: "complete",
			goldenContains: []string{"answer.state page=main group=a2 state=complete"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			p, log, _ := run(t, recording([]*capture.Capture{page(u1, a1)}, tt.after...))
			if err := p.Click(ctx, engine.ByRole("button", "Send"), sendExpectingAnswer); err != nil {
				t.Fatal(err)
			}
			r, err := p.WaitAnswer(ctx, answer.Options{Timeout: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if r.GroupID != tt.group || strings.Join(r.States, ">") != tt.states || r.Was != tt.was {
				t.Fatalf("followed %s through %v (was %q), want %s through %s (was %q)", r.GroupID, r.States, r.Was, tt.group, tt.states, tt.was)
			}
			golden := string(trace.Golden(log.Events()))
			for _, want := range tt.goldenContains {
				if !strings.Contains(golden, want) {
					t.Errorf("the golden lacks %q:\n%s", want, golden)
				}
			}
		})
	}
}
