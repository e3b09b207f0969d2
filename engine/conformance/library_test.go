package conformance_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

// lt is one turn of a synthetic library page: who ("user" or "bot"), its
// extra classes, its inner HTML, and its data-k id ("" for none).
type lt struct{ who, class, inner, id string }

func (t lt) withID(id string) lt { t.id = id; return t }

func user(text string) lt { return lt{"user", "", "<p>" + text + "</p>", ""} }
func bot(text string) lt  { return lt{"bot", "", "<p>" + text + "</p>", ""} }
func busy(text string) lt { return lt{"bot", "busy", "<p>" + text + "</p>", ""} }

// libPage is a library's chat page: the turns in a list, then the
// composer (node n1) and its one primary button (node n2) labelled send
// ("Send", or "Stop" while the same button stops); extra goes after it.
func libPage(send, extra string, turns ...lt) *capture.Capture {
	var b strings.Builder
	b.WriteString(`<html><body><main><div class="list">`)
	for _, t := range turns {
		id := ""
		if t.id != "" {
			id = fmt.Sprintf(` data-k="%s"`, t.id)
		}
		fmt.Fprintf(&b, `<div class="t %s" data-who="%s"%s>%s</div>`, t.class, t.who, id, t.inner)
	}
	fmt.Fprintf(&b, `</div><form class="composer"><textarea aria-label="Message" data-rl-node="n1"></textarea><button class="primary" data-rl-node="n2">%s</button></form>%s</main></body></html>`, send, extra)
	return capture.New("http://chat.test/", b.String())
}

// act is one step of a synthetic session: a page (a capture), or an
// action: "nav", "type TEXT", "click NODE", "press Enter".
type act struct {
	do   string
	page *capture.Capture
}

func libSession(steps ...act) *replay.Session {
	s := &replay.Session{Version: replay.FormatVersion}
	at := int64(0)
	for _, st := range steps {
		at += 400 // past any settle window: each capture is the page at rest
		verb, arg, _ := strings.Cut(st.do, " ")
		switch verb {
		case "":
			i := len(s.Captures)
			s.Captures = append(s.Captures, st.page)
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindCapture, Capture: &i})
		case "nav":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindNavigate, URL: "http://chat.test/"})
		case "type":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindType, Node: "n1", Text: arg})
		case "click":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindClick, Node: arg})
		case "press":
			s.Steps = append(s.Steps, replay.Step{AtMS: at, Kind: replay.KindPress, Node: "n1", Key: arg})
		default:
			panic("unknown step " + st.do)
		}
	}
	return s
}

func pg(c *capture.Capture) act { return act{page: c} }
func do(s string) act           { return act{do: s} }

// libProfile is a library site's profile: the adapter reads div.t turns
// by data-who, generating while a turn has the class busy, failed while
// it has the class failed-mapped, ids by position; change edits it.
func libProfile(t *testing.T, change func(p, ad map[string]any)) *site.Profile {
	t.Helper()
	ad := map[string]any{
		"version": 2,
		"turn": map[string]any{
			"selector": "div.t",
			"speaker":  map[string]any{"attribute": "data-who", "assistant": []string{"bot"}, "user": []string{"user"}},
			"id":       map[string]any{"kind": "position"},
		},
		"states": map[string]any{"generating": map[string]any{"selectors": []string{"div.t.busy"}}},
	}
	p := map[string]any{
		"version":   1,
		"name":      "lib",
		"base_url":  "http://chat.test",
		"composer":  map[string]any{"role": "textbox", "name": "Message"},
		"send":      map[string]any{"selector": "button.primary", "by": "click"},
		"stop":      map[string]any{"role": "button", "name": "Stop"},
		"settle_ms": 300,
	}
	if change != nil {
		change(p, ad)
	}
	p["adapter"] = ad
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := site.Parse(data, "")
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

// TestLibraryMistakes (SPEC LIB-6): each mistake an adapter team makes on
// a chat UI library is named by the check that describes it, on a planted
// capture sequence; and what a library's page does that is no mistake
// (a send's user turn a capture after the click, a Stop on the Send
// button's element, an error message removed at the next send, an
// answer regenerated in place) raises no violation at all.
func TestLibraryMistakes(t *testing.T) {
	const code = `<p>Like this:</p><div class="code-block"><div class="code-head"><span>python</span></div><pre><code>print("hi")</code></pre></div>`
	q1, q2 := user("q1"), user("q2")
	first := bot("First answer.")
	// a library that adds no answer on an error and shows a toast outside
	// the turns instead (useChat's alert, NLUX's exception box, LIB-5)
	const failedToast = `<div class="toast">Failed to stream content</div>`
	toast := func(p, ad map[string]any) {
		p["failed"] = map[string]any{"selectors": []string{"div.toast"}}
	}
	tests := []struct {
		name    string
		profile func(p, ad map[string]any)
		s       *replay.Session
		check   string // "" for no violation at all
		says    string
		not     string // a check that must not be reported
		sends   int    // the sends and regenerates checked, -1 to skip
	}{
		{
			name:  "an error bubble with no alert role read complete",
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"), pg(libPage("Send", "", q1, lt{"bot", "msg-error", "<p>Error: the model is overloaded.</p>", ""}))),
			check: conformance.CheckErrorComplete, says: `holds class "msg-error"`, sends: 1,
		},
		{
			name: "a stopped answer the site marks stopped read complete",
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", `<button data-rl-node="n3">Stop</button>`, q1, busy("Here is a"))), do("click n3"),
				pg(libPage("Send", "", q1, lt{"bot", "", `<p>Here is a</p><span class="note">Stopped</span>`, ""}))),
			check: conformance.CheckStoppedAsDone, says: `the site marks it stopped (the note "Stopped")`, sends: 1,
		},
		{
			name:  "a stopped answer the site does not mark is no violation (the engine says ANSWER_STOPPED)",
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"), pg(libPage("Send", `<button data-rl-node="n3">Stop</button>`, q1, busy("Here is a"))), do("click n3"), pg(libPage("Send", "", q1, bot("Here is a")))),
			sends: 1,
		},
		{
			name: "a code block's language label in the answer text",
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1, lt{"bot", "", code, ""}))),
			check: conformance.CheckControlText, says: `"python" from <div class="code-head">, a code block's label`, sends: 1,
		},
		{
			name: "a code block without a label is no violation",
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1, lt{"bot", "", `<p>Like this:</p><pre><code>print("hi")</code></pre><p>Short.</p>`, ""}))),
			sends: 1,
		},
		{
			name: "a turn selector on the message list: one turn holds them all",
			profile: func(p, ad map[string]any) {
				ad["turn"] = map[string]any{"selector": "div.list", "speaker": map[string]any{"selector": "div.t", "attribute": "data-who", "assistant": []string{"bot"}, "user": []string{"user"}}, "id": map[string]any{"attribute": "data-k"}}
			},
			s:     libSession(do("nav"), pg(libPage("Send", "", first)), do("type q1"), do("click n2"), pg(libPage("Send", "", first, q1, bot("Second answer.")))),
			check: conformance.CheckContainerTurn, says: `turn.selector "div.list" matches the list of the chat's messages`, not: conformance.CheckPositionID, sends: -1,
		},
		{
			name: "a turn selector on the message list, empty before the first send",
			profile: func(p, ad map[string]any) {
				ad["turn"] = map[string]any{"selector": "div.list", "speaker": map[string]any{"selector": "div.t", "attribute": "data-who", "assistant": []string{"bot"}, "user": []string{"user"}}, "id": map[string]any{"attribute": "data-k"}}
			},
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"), pg(libPage("Send", "", q1)), pg(libPage("Send", "", q1, bot("First answer.")))),
			check: conformance.CheckContainerTurn, says: "holds 2 elements with a speaker value", not: conformance.CheckNoSpeaker, sends: -1,
		},
		{
			name: "a page-level generating signal that never clears",
			profile: func(p, ad map[string]any) {
				p["generating"] = map[string]any{"selectors": []string{"form.composer"}}
			},
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1, busy("Sec"))), pg(libPage("Send", "", q1, bot("Second answer.")))),
			check: conformance.CheckGeneratingStay, says: `(selector "form.composer") showed on the page a send was made on`, not: conformance.CheckGenerating, sends: 1,
		},
		{
			name: "a send while an answer streams (a site that queues) is no generating-never-clears",
			profile: func(p, ad map[string]any) {
				p["generating"] = map[string]any{"controls": []map[string]string{{"role": "button", "name": "Stop"}}}
			},
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", `<button>Stop</button>`, q1, busy("Fir"))), do("type q2"), do("click n2"),
				pg(libPage("Send", `<button>Stop</button>`, q1, first, q2, busy("Sec"))), pg(libPage("Send", "", q1, first, q2, bot("Second answer.")))),
			sends: 2,
		},
		{
			name: "a misnamed send control: no sends, the likely one named",
			profile: func(p, ad map[string]any) {
				p["send"] = map[string]any{"role": "button", "name": "Submit"}
			},
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"), pg(libPage("Send", "", q1, bot("First answer.")))),
			check: conformance.CheckNoSends, says: `a user turn appeared after click button "Send" (1×)`, sends: 0,
		},
		{
			name: "a misnamed send control: the page's buttons listed",
			profile: func(p, ad map[string]any) {
				p["send"] = map[string]any{"role": "button", "name": "Submit"}
			},
			s:     libSession(do("nav"), pg(libPage("Send", ""))),
			check: conformance.CheckSend, says: `the page's buttons: button "Send"`, sends: 0,
		},
		{
			name: "send.by switched to enter while the session clicks",
			profile: func(p, ad map[string]any) {
				p["send"] = map[string]any{"selector": "button.primary", "by": "enter"}
			},
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"), pg(libPage("Send", "", q1, bot("First answer.")))),
			check: conformance.CheckSendBy, says: `send.by is "enter", but the session sends by clicking the send control (click button "Send", 1×)`, not: conformance.CheckNoSends, sends: 0,
		},
		{
			name: "send.by enter with Enter pressed is a send",
			profile: func(p, ad map[string]any) {
				p["send"] = map[string]any{"selector": "button.primary", "by": "enter"}
			},
			s:     libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("press Enter"), pg(libPage("Send", "", q1, bot("First answer.")))),
			sends: 1,
		},
		{
			name: "the send's own user turn a capture after the click is no ready-too-early",
			profile: func(p, ad map[string]any) {
				p["ready"] = map[string]any{"selector": "textarea"}
			},
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "")), pg(libPage("Send", "", q1)), pg(libPage("Send", "", q1, busy("Fir"))), pg(libPage("Send", "", q1, first))),
			sends: 1,
		},
		{
			name: "a Stop on the Send button's element is no send",
			profile: func(p, ad map[string]any) {
				p["stop"] = map[string]any{"selector": "button.primary"}
			},
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Stop", "", q1, busy("Here is a"))), do("click n2"),
				pg(libPage("Send", "", q1, bot("Here is a")))),
			sends: 1,
		},
		{
			name: "an error message the site removes at the next send is no send-turns",
			profile: func(p, ad map[string]any) {
				ad["states"].(map[string]any)["failure"] = map[string]any{"selectors": []string{"div.t.failed-mapped"}}
				ad["turn"].(map[string]any)["id"] = map[string]any{"attribute": "data-k"}
			},
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1, lt{"bot", "failed-mapped", "<p>Error: overloaded.</p>", "e1"})), do("type q2"), do("click n2"),
				pg(libPage("Send", "", q1, q2, busy("Sec").withID("m2"))), pg(libPage("Send", "", q1, q2, bot("Second answer.").withID("m2")))),
			sends: 2,
		},
		{
			name:    "a send met only by the page failure signal (no answer group) is no new-group or send-turns",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1)), pg(libPage("Send", failedToast, q1))),
			sends: 1,
		},
		{
			name:    "a send whose turns the library takes away with its failure signal is no structure",
			profile: toast,
			// NLUX: a loader without the user's turn, then the empty chat
			// again beside the failure toast
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "")), pg(libPage("Send", failedToast))),
			sends: 1,
		},
		{
			name:    "a send with no failure signal and no answer is new-group",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1)), pg(libPage("Send", "", q1))),
			check: conformance.CheckNewGroup, says: "no group outside the baseline of 0 appeared", sends: 1,
		},
		{
			name:    "a send with no failure signal and no answer is send-turns",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "", q1)), pg(libPage("Send", "", q1))),
			check: conformance.CheckSendTurns, says: "added 1 user turns and 0 assistant groups, want 1 and 1", sends: 1,
		},
		{
			name:    "a failure signal shown before the send is no outcome of it",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", failedToast)), do("type q1"), do("click n2"),
				pg(libPage("Send", failedToast, q1))),
			check: conformance.CheckNewGroup, says: "no group outside the baseline of 0 appeared", sends: 1,
		},
		{
			name:    "a send with no failure signal whose turns never show is structure",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", "")), pg(libPage("Send", ""))),
			check: conformance.CheckStructure, says: "found no turns", sends: 1,
		},
		{
			name:    "two user turns for a send met by the failure signal is send-turns",
			profile: toast,
			s: libSession(do("nav"), pg(libPage("Send", "")), do("type q1"), do("click n2"),
				pg(libPage("Send", failedToast, q1, q2))),
			check: conformance.CheckSendTurns, says: "which the page's failure signal met (page failure signal selector \"div.toast\"), the send added 2 user turns and 0 assistant groups, want at most 1 and 0", sends: 1,
		},
		{
			name: "an answer regenerated in place, taken out first, is no position-shift",
			profile: func(p, ad map[string]any) {
				p["generating"] = map[string]any{"controls": []map[string]string{{"role": "button", "name": "Stop"}}}
			},
			// chatscope: Regenerate under the first answer takes it out,
			// then streams the new one in its place
			s: libSession(do("nav"), pg(libPage("Send", "", q1, lt{"bot", "", `<p>First answer.</p><button data-rl-node="n4">Regenerate</button>`, ""}, q2, bot("Second answer."))),
				do("click n4"),
				pg(libPage("Send", `<button>Stop</button>`, q1, q2, bot("Second answer."))),
				pg(libPage("Send", `<button>Stop</button>`, q1, busy("Put another way"), q2, bot("Second answer."))),
				pg(libPage("Send", "", q1, bot("Put another way: first."), q2, bot("Second answer.")))),
			sends: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := libProfile(t, tt.profile)
			rep := conformance.Check("s.json", tt.s, p.Adapter, conformance.OptionsFor(p))
			var checks, details []string
			for _, v := range rep.Violations {
				details = append(details, "["+v.Check+"] "+v.Detail)
				if !slices.Contains(checks, v.Check) {
					checks = append(checks, v.Check)
				}
			}
			all := strings.Join(details, "\n")
			if tt.check == "" && len(rep.Violations) > 0 {
				t.Fatalf("violations, want none:\n%s", all)
			}
			if tt.check != "" && !slices.Contains(checks, tt.check) {
				t.Fatalf("checks %v, want %s:\n%s", checks, tt.check, all)
			}
			if tt.says != "" && !slices.ContainsFunc(details, func(d string) bool { return strings.HasPrefix(d, "["+tt.check+"]") && strings.Contains(d, tt.says) }) {
				t.Errorf("no %s violation says %q:\n%s", tt.check, tt.says, all)
			}
			if tt.not != "" && slices.Contains(checks, tt.not) {
				t.Errorf("%s reported beside %s, want only the one that names the mistake:\n%s", tt.not, tt.check, all)
			}
			if tt.sends >= 0 && len(rep.Decisions) != tt.sends {
				t.Errorf("%d sends checked, want %d:\n%s", len(rep.Decisions), tt.sends, all)
			}
		})
	}
}
