package conformance_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

const root = "../.."

// chatappSessions are the directories of the chat app's scenario sessions.
var chatappSessions = []string{"recordings/sessions/chatapp", "recordings/sessions/streams"}

// sessionsIn loads every recorded session of dirs.
func sessionsIn(t *testing.T, dirs ...string) map[string]*replay.Session {
	t.Helper()
	out := map[string]*replay.Session{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sessions in %s: %v", dir, err)
		}
		for _, f := range files {
			s, err := replay.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimPrefix(f, root+"/")] = s
		}
	}
	return out
}

// run validates every session with the profile (and the adapter file,
// when given) and returns the checks that failed, with their details.
func run(t *testing.T, profile, adapterFile string) (checks []string, details []string, total int) {
	t.Helper()
	return runOver(t, profile, adapterFile, chatappSessions...)
}

// runOver is run over the sessions of dirs.
func runOver(t *testing.T, profile, adapterFile string, dirs ...string) (checks []string, details []string, total int) {
	t.Helper()
	p, err := site.LoadIn(profile, root)
	if err != nil {
		t.Fatal(err)
	}
	if adapterFile != "" {
		ad, err := adapter.LoadFile(filepath.Join(root, adapterFile))
		if err != nil {
			t.Fatal(err)
		}
		q := *p
		q.Adapter = ad
		p = &q
	}
	for name, s := range sessionsIn(t, dirs...) {
		rep := conformance.Check(name, s, p.Adapter, conformance.OptionsFor(p))
		total += rep.Errors()
		for _, v := range rep.Violations {
			if v.Severity == conformance.SeverityWarning {
				continue
			}
			if !slices.Contains(checks, v.Check) {
				checks = append(checks, v.Check)
			}
			details = append(details, "["+v.Check+"] "+v.Detail)
		}
	}
	return checks, details, total
}

// The correct profile and adapter of the chat app give no violation over
// every session of its scenarios (APP-4: no false alarms).
func TestTheCorrectAdapterRaisesNoAlarm(t *testing.T) {
	const profile = "testsite/chatapp.json"
	if _, details, n := run(t, profile, ""); n != 0 {
		t.Errorf("%s: %d violations, want 0:\n%s", profile, n, strings.Join(details, "\n"))
	}
}

// LIB-6: correct profiles raise no alarm over the sessions they are for: a
// send control by selector on the element that turns into Stop (the stop
// is no send), and the library style's profiles on both clocks (a last
// paint inside the settle window, a send refused CONTROL_DISABLED before
// the next page).
func TestCorrectProfilesOfLibraryPagesRaiseNoAlarm(t *testing.T) {
	for _, tc := range []struct{ name, profile, dir string }{
		{"send by selector, Stop on the same element", "testsite/chatapp-selectors.json", "recordings/sessions/chatapp"},
		{"library style, page clock", "testsite/chatapp-lib.json", "recordings/sessions/library-lifecycle"},
		{"library style, wall clock", "testsite/chatapp-lib-wall.json", "recordings/sessions/library-lifecycle"},
		// useChat adds the send's user turn, then its answer, captures
		// after the click: turns of the send, not a thread loading late
		{"zoo aisdk, turns captures after the send", "zoo/aisdk/aisdk.json", "zoo/aisdk/recordings/send"},
		// chatscope's Copy and Regenerate sit beside the text in the
		// message's wrapper: the wrapper's text is the answer, no toolbar
		{"zoo chatscope, controls beside a short answer", "zoo/chatscope/chatscope.json", "zoo/chatscope/recordings/send"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, details, n := runOver(t, tc.profile, "", tc.dir); n != 0 {
				t.Errorf("%s: %d violations, want 0:\n%s", tc.profile, n, strings.Join(details, "\n"))
			}
		})
	}
}

// Each planted mistake of testsite/chatapp-broken is named by its check,
// with the values seen in the message.
func TestEveryPlantedMistakeIsNamed(t *testing.T) {
	tests := []struct {
		name, profile, adapter, check, says string
	}{
		{"unmapped error", "", "unmapped-error.adapter.json", conformance.CheckErrorComplete, `a retry control "Try again"`},
		{"generating covers only Thinking…", "thinking-only.json", "", conformance.CheckStreamEnded, "covers only part of the stream"},
		{"toolbar text in the answer", "", "toolbar-in-text.adapter.json", conformance.CheckControlText, `"nova-pro" from <div class="msg-actions">`},
		{"turn selector matches the sidebar", "", "sidebar-turns.adapter.json", conformance.CheckNoSpeaker, `matches 24 elements with no speaker value (first: <article class="chat-card">)`},
		{"forgotten second assistant", "", "forgotten-assistant.adapter.json", conformance.CheckSpeakerUnknown, `"orion"×`},
		{"swapped speakers", "", "swapped-speakers.adapter.json", conformance.CheckSwapped, "swap the assistant and user values"},
		{"id attribute the site lacks", "", "missing-id.adapter.json", conformance.CheckPositionID, "the id attribute is on no turn"},
		{"the same id on every turn", "", "same-id.adapter.json", conformance.CheckDuplicateID, `both have the id "nova"`},
		{"media rule matching nothing", "", "media-nothing.adapter.json", conformance.CheckMedia, "img src=/app/img/chart.png"},
		{"no generating signal", "generating-nothing.json", "", conformance.CheckGenerating, "never showed a generating state"},
		{"stop control misnamed", "stop-misnamed.json", "", conformance.CheckStopControl, `the page showed button "Stop generating"`},
		{"composer misnamed", "composer-misnamed.json", "", conformance.CheckComposer, `textbox "Message"`},
		{"send misnamed: no send, the likely one named", "send-misnamed.json", "", conformance.CheckNoSends, `a user turn appeared after click button "Send"`},
		{"ready before the thread", "ready-too-early.json", "", conformance.CheckReadyEarly, "arrived with no action in between"},
		{"ready that never holds", "ready-never.json", "", conformance.CheckReadyNever, `selector "#thread[data-loaded=true]"`},
	}
	const dir = "testsite/chatapp-broken/"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, ad := "testsite/chatapp.json", ""
			if tt.profile != "" {
				profile = dir + tt.profile
			}
			if tt.adapter != "" {
				ad = dir + tt.adapter
			}
			checks, details, _ := run(t, profile, ad)
			if !slices.Contains(checks, tt.check) {
				t.Fatalf("checks %v, want %s", checks, tt.check)
			}
			for _, d := range details {
				if strings.HasPrefix(d, "["+tt.check+"]") && strings.Contains(d, tt.says) {
					return
				}
			}
			t.Errorf("no %s violation says %q:\n%s", tt.check, tt.says, strings.Join(details, "\n"))
		})
	}
	if _, err := os.Stat(filepath.Join(root, dir, "README.md")); err != nil {
		t.Error(err)
	}
}

// A library whose one button sends and, while streaming, stops (NLUX:
// stop and send given by the same selector) and whose send's user turn
// shows captures after the click: each click after typed text is a send,
// and the empty chat before the send's turns show is no STRUCTURE_UNKNOWN.
func TestSendAndStopOnOneElement(t *testing.T) {
	p, err := site.LoadIn("zoo/nlux/nlux.json", root)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range sessionsIn(t, "zoo/nlux/recordings/send") {
		rep := conformance.Check(name, s, p.Adapter, conformance.OptionsFor(p))
		if len(rep.Decisions) != 2 {
			t.Errorf("%s: %d sends, want 2 (one per --send)", name, len(rep.Decisions))
		}
		for _, v := range rep.Violations {
			t.Errorf("%s: [%s] %s", name, v.Check, v.Detail)
		}
	}
}
