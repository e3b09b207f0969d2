package infer_test

import (
	"errors"
	"testing"

	"github.com/replaylab/replaylab/engine/infer"
	"github.com/replaylab/replaylab/engine/replay"
)

// TestInferRecordedSessions infers from sessions the repo holds, each of one
// page style, and checks what the hand-written adapters chose.
func TestInferRecordedSessions(t *testing.T) {
	for _, tc := range []struct {
		name, session  string
		turn, speaker  string // the turn selector; the speaker's attribute (with its child selector)
		idAttr, idKind string
		generating     bool // a generating signal beyond the built-in ones
		stop           string
	}{
		{"sim marker", "../../recordings/sessions/answer-groups/a-partial-answer-is-followed-to-completion-in-the-new-group-marker.json",
			"div.turn", "data-message-author-role", "data-message-id", "stable", true, `button "Stop generating"`},
		{"sim heading", "../../recordings/sessions/answer-groups/a-partial-answer-is-followed-to-completion-in-the-new-group-heading.json",
			"article.turn", "class", "", "position", true, `button "Stop generating"`},
		{"sim list", "../../recordings/sessions/recording/a-third-markup-style-is-read-by-an-adapter-file-live-and-replayed.json",
			"li.entry", "span.who data-speaker", "data-entry", "stable", true, ""},
		{"test site", "../../testsite/recordings/send/session.json",
			"div.msg", "img.avatar alt", "data-mid", "stable", true, `button "Stop"`},
		{"zoo aisdk: ids made in the browser", "../../zoo/aisdk/recordings/send/session.json",
			"div.message", "data-role", "data-message-id", "volatile", true, `button "Stop"`},
		{"zoo chatscope: no ids", "../../zoo/chatscope/recordings/send/session.json",
			"section.cs-message", "aria-label", "", "position", true, `button "Stop"`},
		// recorded live by init itself (testdata/*.session.json): the sim's
		// three styles, the test site, its chat app, three zoo libraries
		{"init live: sim marker", "testdata/marker.session.json",
			"div.turn", "data-message-author-role", "data-message-id", "stable", true, `button "Stop generating"`},
		{"init live: sim heading", "testdata/heading.session.json",
			"article.turn", "class", "", "position", true, `button "Stop generating"`},
		{"init live: sim list", "testdata/list.session.json",
			"li.entry", "span.who data-speaker", "data-entry", "stable", true, ""},
		{"init live: test site", "testdata/testsite.session.json",
			"div.msg", "img.avatar alt", "data-mid", "stable", true, `button "Stop"`},
		{"init live: chat app", "testdata/chatapp.session.json",
			"article.turn", "data-speaker", "data-msg", "stable", true, `button "Stop generating"`},
		{"init live: zoo deep-chat, open shadow roots", "testdata/deepchat.session.json",
			"div.outer-message-container", "class", "", "position", true, `selector "div.input-button"`},
		{"init live: zoo chatscope, no ids", "testdata/chatscope.session.json",
			"section.cs-message", "aria-label", "", "position", true, `button "Stop"`},
		{"init live: zoo aisdk, ids made in the browser", "testdata/aisdk.session.json",
			"div.message", "data-role", "data-message-id", "volatile", true, `button "Stop"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := replay.Load(tc.session)
			if err != nil {
				t.Fatal(err)
			}
			r, err := infer.Infer(s, infer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tu := r.Adapter.Turn
			sp := tu.Speaker.Attribute
			if tu.Speaker.Selector != "" {
				sp = tu.Speaker.Selector + " " + sp
			}
			stop := ""
			if r.Profile.Stop != nil {
				stop = r.Profile.Stop.String()
			}
			gen := r.Adapter.States != nil || r.Profile.Generating != nil
			if tu.Selector != tc.turn || sp != tc.speaker || tu.ID.Attribute != tc.idAttr || tu.ID.Kind != tc.idKind || gen != tc.generating || stop != tc.stop {
				t.Errorf("inferred turn %q speaker %q id %q kind %q generating %v stop %q\nwant turn %q speaker %q id %q kind %q generating %v stop %q\nfindings: %+v",
					tu.Selector, sp, tu.ID.Attribute, tu.ID.Kind, gen, stop, tc.turn, tc.speaker, tc.idAttr, tc.idKind, tc.generating, tc.stop, r.Findings)
			}
			if len(tu.Speaker.User) == 0 || len(tu.Speaker.Assistant) == 0 {
				t.Errorf("speaker values: %+v", tu.Speaker)
			}
		})
	}
}

// TestInferRefuses: a session that shows no send, or no answer, is no
// ground for an inference, and says which.
func TestInferRefuses(t *testing.T) {
	s, err := replay.Load("../../recordings/sessions/answer-groups/a-partial-answer-is-followed-to-completion-in-the-new-group-marker.json")
	if err != nil {
		t.Fatal(err)
	}
	cut := func(keep func(replay.Step) bool) *replay.Session {
		out := *s
		out.Steps = nil
		for _, st := range s.Steps {
			if keep(st) {
				out.Steps = append(out.Steps, st)
			}
		}
		return &out
	}
	for _, tc := range []struct {
		name string
		s    *replay.Session
		want string
	}{
		{"no page opened", cut(func(st replay.Step) bool { return st.Kind != replay.KindNavigate }), "opens no page"},
		{"nothing typed", cut(func(st replay.Step) bool { return st.Kind != replay.KindType }), "nothing was typed"},
		{"typed, never sent", cut(func(st replay.Step) bool { return st.Kind != replay.KindClick && st.Kind != replay.KindPress }), "never sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := infer.Infer(tc.s, infer.Options{})
			if !errors.Is(err, infer.ErrNoInference) || !contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrNoInference saying %q", err, tc.want)
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}
