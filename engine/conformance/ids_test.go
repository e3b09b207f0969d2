package conformance_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
)

// t is one turn of a synthetic chat page: who, its data-k id ("" for
// none), its text, and whether it is generating.
type tn struct {
	who, id, text string
	busy          bool
}

func chat(turns ...tn) *capture.Capture {
	var b strings.Builder
	b.WriteString(`<html><body><main>`)
	for _, t := range turns {
		attrs := ""
		if t.id != "" {
			attrs += fmt.Sprintf(` data-k="%s"`, t.id)
		}
		if t.busy {
			attrs += ` aria-busy="true"`
		}
		fmt.Fprintf(&b, `<div class="t" data-who="%s"%s><p>%s</p></div>`, t.who, attrs, t.text)
	}
	b.WriteString(`<textarea aria-label="Message" data-rl-node="n1"></textarea><button data-rl-node="n2">Send</button></main></body></html>`)
	return capture.New("http://chat.test/", b.String())
}

// step of a synthetic session: a capture, or "nav", or "send" (typing
// then a click on Send).
type sstep struct {
	action string
	page   *capture.Capture
}

func session(steps ...sstep) *replay.Session {
	s := &replay.Session{Version: replay.FormatVersion}
	at := int64(0)
	for _, st := range steps {
		at += 100
		switch st.action {
		case "nav":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindNavigate, URL: "http://chat.test/"})
		case "send":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindType, Node: "n1", Text: "q2"},
				replay.Step{AtMS: at, Kind: replay.KindClick, Node: "n2"})
		default:
			i := len(s.Captures)
			s.Captures = append(s.Captures, st.page)
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindCapture, Capture: &i})
		}
	}
	return s
}

// TestDeclaredIDs (SPEC LIB-1): a declared kind of ids is no violation;
// validate checks what can break instead (position ids shifted by a turn
// inserted above, a volatile id reused for another turn), and a
// placeholder's id swapped once while generating is one answer.
func TestDeclaredIDs(t *testing.T) {
	const (
		position = `{"kind":"position"}`
		volatile = `{"attribute":"data-k","kind":"volatile"}`
		stable   = `{"attribute":"data-k"}`
	)
	u1, a1 := tn{"user", "u1", "q1", false}, tn{"bot", "x1", "First answer.", false}
	u2 := tn{"user", "u2", "q2", false}
	noIDs := func(ts ...tn) *capture.Capture {
		out := make([]tn, len(ts))
		for i, t := range ts {
			t.id = ""
			out[i] = t
		}
		return chat(out...)
	}
	send := sstep{action: "send"}
	tests := []struct {
		name string
		id   string
		s    *replay.Session
		want []string // the id checks that fail, in any order
		says string
		// group is the new group the send's decision followed ("" to
		// skip), states its states
		group, states string
	}{
		{
			name: "declared position ids are no violation",
			id:   position,
			s: session(sstep{action: "nav"}, sstep{page: noIDs(u1, a1)}, send,
				sstep{page: noIDs(u1, a1, u2, tn{"bot", "", "Sec", true})}, sstep{page: noIDs(u1, a1, u2, tn{"bot", "", "Second answer.", false})}),
			group: "pos-2", states: "generating>complete",
		},
		{
			name: "the same page with an id attribute it lacks is position-id",
			id:   stable,
			s: session(sstep{action: "nav"}, sstep{page: noIDs(u1, a1)}, send,
				sstep{page: noIDs(u1, a1, u2, tn{"bot", "", "Sec", true})}, sstep{page: noIDs(u1, a1, u2, tn{"bot", "", "Second answer.", false})}),
			want: []string{conformance.CheckPositionID},
		},
		{
			name: "a turn inserted above shifts declared position ids",
			id:   position,
			s: session(sstep{action: "nav"}, sstep{page: noIDs(u1, a1)},
				sstep{page: noIDs(tn{"user", "", "q0", false}, tn{"bot", "", "An older answer.", false}, u1, a1)}),
			want: []string{conformance.CheckPositionShift}, says: `pos-1 read "First answer." in the capture before and now reads "An older answer."`,
		},
		{
			name: "volatile ids made anew by a reload are no violation",
			id:   volatile,
			s:    session(sstep{action: "nav"}, sstep{page: chat(u1, a1)}, sstep{action: "nav"}, sstep{page: chat(tn{"user", "u7", "q1", false}, tn{"bot", "x7", "First answer.", false})}),
		},
		{
			name: "stable ids that change at a reload are group-id-stable",
			id:   stable,
			s:    session(sstep{action: "nav"}, sstep{page: chat(u1, a1)}, sstep{action: "nav"}, sstep{page: chat(tn{"user", "u7", "q1", false}, tn{"bot", "x7", "First answer.", false})}),
			want: []string{conformance.CheckStability},
			says: `declare "kind": "volatile" in turn.id`,
		},
		{
			name: "a volatile id reused for another turn in one load",
			id:   volatile,
			s: session(sstep{action: "nav"}, sstep{page: chat(u1, a1)},
				sstep{page: chat(tn{"user", "u0", "q0", false}, tn{"bot", "x1", "An older answer.", false}, u1, tn{"bot", "x2", "First answer.", false})}),
			want: []string{conformance.CheckIDReused}, says: `the id x1 named a turn reading "First answer." and now names one reading "An older answer."`,
		},
		{
			name: "a placeholder's id swapped while generating is one answer",
			id:   volatile,
			s: session(sstep{action: "nav"}, sstep{page: chat(u1, a1)}, send,
				sstep{page: chat(u1, a1, u2, tn{"bot", "tmp-1", "", true})},
				sstep{page: chat(u1, a1, u2, tn{"bot", "m-9", "Second answer.", false})}),
			group: "m-9", states: "generating>complete",
		},
		{
			name: "an id that changes twice while generating is group-id-stable",
			id:   volatile,
			s: session(sstep{action: "nav"}, sstep{page: chat(u1, a1)}, send,
				sstep{page: chat(u1, a1, u2, tn{"bot", "tmp-1", "", true})},
				sstep{page: chat(u1, a1, u2, tn{"bot", "m-9", "Sec", true})},
				sstep{page: chat(u1, a1, u2, tn{"bot", "m-10", "Second answer.", false})}),
			want: []string{conformance.CheckStability}, says: "already changed once while it was generating",
		},
	}
	idChecks := []string{conformance.CheckPositionID, conformance.CheckStability, conformance.CheckPositionShift, conformance.CheckIDReused, conformance.CheckDuplicateID}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := "2"
			if tt.id == stable {
				version = "1"
			}
			ad, err := adapter.ParseFile([]byte(`{"version":`+version+`,"turn":{"selector":"div.t","speaker":{"attribute":"data-who","assistant":["bot"],"user":["user"]},"id":`+tt.id+`}}`), "ids.json")
			if err != nil {
				t.Fatal(err)
			}
			rep := conformance.Check("s.json", tt.s, ad, conformance.DefaultOptions)
			var got, details []string
			for _, v := range rep.Violations {
				details = append(details, "["+v.Check+"] "+v.Detail)
				if slices.Contains(idChecks, v.Check) && !slices.Contains(got, v.Check) {
					got = append(got, v.Check)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("id checks %v, want %v:\n%s", got, want, strings.Join(details, "\n"))
			}
			if tt.says != "" && !strings.Contains(strings.Join(details, "\n"), tt.says) {
				t.Errorf("no violation says %q:\n%s", tt.says, strings.Join(details, "\n"))
			}
			if tt.group != "" {
				if len(rep.Decisions) != 1 {
					t.Fatalf("%d decisions, want 1", len(rep.Decisions))
				}
				d := rep.Decisions[0]
				if d.Group != tt.group || strings.Join(d.States, ">") != tt.states {
					t.Errorf("decision followed %s through %v, want %s through %s:\n%s", d.Group, d.States, tt.group, tt.states, strings.Join(details, "\n"))
				}
			}
		})
	}
}
