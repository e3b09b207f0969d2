package answer

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
)

func TestNewestIsAfterTheBaseline(t *testing.T) {
	t.Parallel()
	groups := func(ids ...string) adapter.Result {
		r := adapter.Result{Structure: true}
		for _, id := range ids {
			r.Groups = append(r.Groups, adapter.Group{ID: id})
		}
		return r
	}
	tests := []struct {
		name     string
		baseline []string
		page     []string
		want     string // "" none
	}{
		{"a new group after the baseline", []string{"a", "b"}, []string{"a", "b", "new"}, "new"},
		{"no new group", []string{"a", "b"}, []string{"a", "b"}, ""},
		{"history loaded above the baseline is not new", []string{"a", "b"}, []string{"old1", "old2", "a", "b"}, ""},
		{"history above and a new answer", []string{"a", "b"}, []string{"old1", "a", "b", "new"}, "new"},
		{"the last of two new groups", []string{"a"}, []string{"a", "n1", "n2"}, "n2"},
		{"an empty baseline takes the last group", nil, []string{"x", "y"}, "y"},
		{"no groups at all", []string{"a"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBaseline(groups(tt.baseline...))
			g, ok := b.Newest(groups(tt.page...))
			if got := map[bool]string{true: g.ID}[ok]; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A regenerate or retry replaces the last answer in place, under a new id
// or the old one (InPlace): the group under the old id is new once it
// reads otherwise (another element, state or text), and only that group.
func TestNewestInPlaceUnderTheOldID(t *testing.T) {
	t.Parallel()
	g := func(id, node, state, text string) adapter.Group {
		n := &html.Node{Type: html.ElementNode, Data: "article", Attr: []html.Attribute{{Key: capture.AttrNode, Val: node}}}
		return adapter.Group{ID: id, Node: n, State: state, Text: text}
	}
	before := adapter.Result{Groups: []adapter.Group{g("a", "1", "complete", "old a"), g("b", "2", "complete", "old b")}}
	tests := []struct {
		name    string
		inPlace bool
		last    adapter.Group
		want    string // "" none
	}{
		{"not yet replaced", true, g("b", "2", "complete", "old b"), ""},
		{"another element under the old id", true, g("b", "9", "generating", ""), "b"},
		{"the same element, generating again", true, g("b", "2", "generating", "old b"), "b"},
		{"the same element, new text", true, g("b", "2", "complete", "new b"), "b"},
		{"a new id", true, g("c", "9", "generating", ""), "c"},
		{"without InPlace the old id is never new", false, g("b", "9", "generating", ""), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBaseline(before)
			if tt.inPlace {
				b.InPlace(before)
			}
			page := adapter.Result{Groups: []adapter.Group{before.Groups[0], tt.last}}
			got, ok := b.Newest(page)
			if id := map[bool]string{true: got.ID}[ok]; id != tt.want {
				t.Fatalf("got %q, want %q", id, tt.want)
			}
		})
	}
}

// script is a Source on a fake clock: each read shows the last frame whose
// time has come; Sleep moves the clock by d, or to the next frame when the
// page changes sooner (as a driver that notifies changes does).
type script struct {
	now    time.Time
	t0     time.Time
	frames []frame
	// failure is the page-level failure signal shown from failFrom on
	failure  string
	failFrom time.Duration
}

type frame struct {
	at    time.Duration
	state string // "" shows no new group
	text  string
	media []adapter.Media
}

func (s *script) Groups(context.Context) (adapter.Result, error) {
	r := adapter.Result{Structure: true, Groups: []adapter.Group{{ID: "old", State: adapter.StateComplete, Text: "earlier"}}}
	var cur *frame
	for i := range s.frames {
		if s.t0.Add(s.frames[i].at).After(s.now) {
			break
		}
		cur = &s.frames[i]
	}
	if cur != nil && cur.state != "" {
		r.Groups = append(r.Groups, adapter.Group{ID: "new", State: cur.state, Text: cur.text, Media: cur.media})
	}
	if s.failure != "" && !s.t0.Add(s.failFrom).After(s.now) {
		r.Failure = s.failure
	}
	return r, nil
}

func (s *script) Now() time.Time { return s.now }

func (s *script) Sleep(_ context.Context, d time.Duration) error {
	target := s.now.Add(d)
	frames := s.frames
	if s.failure != "" {
		frames = append(frames[:len(frames):len(frames)], frame{at: s.failFrom})
	}
	for _, f := range frames {
		if at := s.t0.Add(f.at); at.After(s.now) && at.Before(target) {
			target = at
			break
		}
	}
	s.now = target
	return nil
}

// LIB-3: complete means settled, an empty group is never complete, an
// answer the engine stopped is ANSWER_STOPPED.
func TestWaitSettles(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	gen, done := adapter.StateGenerating, adapter.StateComplete
	tests := []struct {
		name     string
		frames   []frame
		opt      Options
		status   string
		text     string
		states   string
		endsAtMS int
	}{
		{"a last paint after done is waited for",
			[]frame{{0, gen, "That is", nil}, {100 * ms, done, "That is", nil}, {200 * ms, done, "That is all.", nil}},
			Options{Timeout: 5 * time.Second}, StatusComplete, "That is all.", "generating>complete", 500},
		{"no window: the first complete read is taken",
			[]frame{{0, gen, "That is", nil}, {100 * ms, done, "That is", nil}, {200 * ms, done, "That is all.", nil}},
			Options{Timeout: 5 * time.Second, Settle: -1}, StatusComplete, "That is", "generating>complete", 100},
		{"an empty new group is not complete",
			[]frame{{0, done, "", nil}, {400 * ms, gen, "Hel", nil}, {500 * ms, done, "Hello.", nil}},
			Options{Timeout: 5 * time.Second}, StatusComplete, "Hello.", "generating>complete", 800},
		{"an empty new group at the deadline is incomplete",
			[]frame{{0, done, "", nil}},
			Options{Timeout: time.Second}, StatusIncomplete, "", "", 1000},
		{"a group with media only is not empty",
			[]frame{{0, done, "", []adapter.Media{{Kind: "image", Ready: true}}}},
			Options{Timeout: time.Second}, StatusComplete, "", "complete", 300},
		{"media that gets ready restarts the window",
			[]frame{{0, done, "Chart:", []adapter.Media{{Kind: "image"}}}, {200 * ms, done, "Chart:", []adapter.Media{{Kind: "image", Ready: true}}}},
			Options{Timeout: 5 * time.Second}, StatusComplete, "Chart:", "complete", 500},
		{"complete just before the deadline gets its whole window",
			[]frame{{0, gen, "a", nil}, {900 * ms, done, "a b", nil}},
			Options{Timeout: time.Second}, StatusComplete, "a b", "generating>complete", 1200},
		{"text still changing past the deadline is incomplete",
			[]frame{{0, gen, "a", nil}, {900 * ms, done, "a b", nil}, {1100 * ms, done, "a b c", nil}, {1250 * ms, done, "a b c d", nil}},
			Options{Timeout: time.Second}, StatusIncomplete, "a b c d", "generating>complete", 1300},
		{"stopped by the engine, no note on the site",
			[]frame{{0, gen, "Once upon", nil}, {100 * ms, done, "Once upon", nil}},
			Options{Timeout: 5 * time.Second, Stopped: true}, StatusStopped, "Once upon", "generating>stopped", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(0, 0)
			src := &script{now: t0, t0: t0, frames: tt.frames}
			b := NewBaseline(adapter.Result{Groups: []adapter.Group{{ID: "old"}}})
			res, err := Wait(context.Background(), src, b, tt.opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.Text != tt.text || strings.Join(res.States, ">") != tt.states {
				t.Errorf("got %s %q states %q (%s), want %s %q states %q", res.Status, res.Text, strings.Join(res.States, ">"), res.Evidence, tt.status, tt.text, tt.states)
			}
			if got := src.now.Sub(t0); got != time.Duration(tt.endsAtMS)*ms {
				t.Errorf("ended at %s, want %d ms", got, tt.endsAtMS)
			}
		})
	}
}

// LIB-5: a page-level failure signal (a toast outside the turns) that
// appears after the send ends the wait ANSWER_FAILED when the library
// added no answer group; one already on the page before the send is not
// this send's.
func TestWaitPageFailureWithoutAGroup(t *testing.T) {
	const ms = time.Millisecond
	const toast = `page failure signal selector ".toast"`
	tests := []struct {
		name     string
		before   string // the failure signal at the baseline
		frames   []frame
		failAtMS int
		status   string
		states   string
		endsAtMS int
	}{
		{"a toast and no answer group", "", nil, 200, StatusFailed, "failed", 200},
		{"the toast of an earlier send is not this send's", toast, nil, 0, StatusNoNewAnswer, "", 1000},
		{"an answer group's own state decides", "",
			[]frame{{0, adapter.StateGenerating, "Hel", nil}, {100 * ms, adapter.StateComplete, "Hello.", nil}}, 100,
			StatusComplete, "generating>complete", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Unix(0, 0)
			src := &script{now: t0, t0: t0, frames: tt.frames, failure: toast, failFrom: time.Duration(tt.failAtMS) * ms}
			b := NewBaseline(adapter.Result{Groups: []adapter.Group{{ID: "old"}}, Failure: tt.before})
			res, err := Wait(context.Background(), src, b, Options{Timeout: time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || strings.Join(res.States, ">") != tt.states {
				t.Errorf("got %s states %q (%s), want %s states %q", res.Status, strings.Join(res.States, ">"), res.Evidence, tt.status, tt.states)
			}
			if tt.status == StatusFailed && !strings.Contains(res.Evidence, toast) {
				t.Errorf("evidence %q does not name the signal", res.Evidence)
			}
			if got := src.now.Sub(t0); got != time.Duration(tt.endsAtMS)*ms {
				t.Errorf("ended at %s, want %d ms", got, tt.endsAtMS)
			}
		})
	}
}
