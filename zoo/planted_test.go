package zoo_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
)

// libSessions are a zoo site's recorded sessions: its scenarios' and its
// record --send session.
func libSessions(t *testing.T, lib string) map[string]*replay.Session {
	t.Helper()
	files, err := filepath.Glob("recordings/sessions/" + lib + "/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s scenario sessions: %v", lib, err)
	}
	files = append(files, lib+"/recordings/send/session.json")
	out := map[string]*replay.Session{}
	for _, f := range files {
		s, err := replay.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = s
	}
	return out
}

// TestValidateCorrectAdapters: on every zoo library the correct profile and
// adapter give no violation over its record --send session and its
// scenarios' sessions (SPEC LIB-6: no false alarms).
func TestValidateCorrectAdapters(t *testing.T) {
	for _, lib := range []string{"aisdk", "chatscope", "deepchat", "nlux"} {
		t.Run(lib, func(t *testing.T) {
			p, err := site.LoadIn(lib+"/"+lib+".json", ".")
			if err != nil {
				t.Fatal(err)
			}
			for name, s := range libSessions(t, lib) {
				rep := conformance.Check(name, s, p.Adapter, conformance.OptionsFor(p))
				if len(rep.Decisions) == 0 {
					t.Errorf("%s: no send checked", name)
				}
				for _, v := range rep.Violations {
					t.Errorf("%s: capture %d: [%s] %s", name, v.Capture, v.Check, v.Detail)
				}
			}
		})
	}
}

// TestPlantedMistakes: each planted mistake of zoo/chatscope/broken and
// zoo/aisdk/broken is named by the check that describes it, over the
// site's real recorded sessions (SPEC LIB-6), and none is left unnamed.
func TestPlantedMistakes(t *testing.T) {
	t.Run("chatscope", func(t *testing.T) { plantedMistakes(t, "chatscope", chatscopeMistakes) })
	t.Run("aisdk", func(t *testing.T) { plantedMistakes(t, "aisdk", aisdkMistakes) })
}

type mistake struct{ name, file, check, says string }

var (
	chatscopeMistakes = []mistake{
		{"swapped speakers", "swapped-speakers.adapter.json", conformance.CheckSwapped, "swap the assistant and user values"},
		{"forgotten assistant", "forgotten-assistant.adapter.json", conformance.CheckSpeakerUnknown, `"kit"`},
		{"the same id on every answer", "same-id.adapter.json", conformance.CheckDuplicateID, `the id "Kit"`},
		{"no generating signal", "generating-nothing.json", conformance.CheckGenerating, "never showed a generating state"},
		{"stop control misnamed", "stop-misnamed.json", conformance.CheckStopControl, `button "Stop"`},
		{"composer misnamed", "composer-misnamed.json", conformance.CheckComposer, `textbox "Message"`},
		{"send control misnamed: the icon button named as candidate", "send-misnamed.json", conformance.CheckNoSends, `a user turn appeared after click button <button class="cs-button cs-button--send">`},
		{"ready that never holds", "ready-never.json", conformance.CheckReadyNever, `selector ".cs-message-input[data-ready=true]"`},
		{"error bubble read complete", "unmapped-error.adapter.json", conformance.CheckErrorComplete, `class "state-error"`},
		{"stopped answer read complete", "stopped-unmapped.adapter.json", conformance.CheckStoppedAsDone, `the site marks it stopped (class "state-stopped")`},
		{"turn selector on the message list", "container-turns.adapter.json", conformance.CheckContainerTurn, `turn.selector "div.cs-message-list__scroll-wrapper" matches the list`},
		{"generating signal that never clears", "generating-stuck.json", conformance.CheckGeneratingStay, `(selector ".cs-message-input") showed on the page a send was made on`},
		{"send.by switched to enter", "send-by-enter.json", conformance.CheckSendBy, `send.by is "enter", but the session sends by clicking the send control`},
	}
	aisdkMistakes = []mistake{
		{"swapped speakers", "swapped-speakers.adapter.json", conformance.CheckSwapped, "swap the assistant and user values"},
		{"forgotten assistant", "forgotten-assistant.adapter.json", conformance.CheckSpeakerUnknown, `"assistant"`},
		{"one id on every answer", "same-id.adapter.json", conformance.CheckDuplicateID, `the id "assistant"`},
		{"id attribute the site lacks", "missing-id.adapter.json", conformance.CheckPositionID, "the id attribute is on no turn"},
		{"no generating signal", "generating-nothing.json", conformance.CheckGenerating, "never showed a generating state"},
		{"stop control misnamed", "stop-misnamed.json", conformance.CheckStopControl, `button "Stop"`},
		{"composer misnamed", "composer-misnamed.json", conformance.CheckComposer, `textbox "Ask Ada"`},
		{"send control misnamed: the likely one named", "send-misnamed.json", conformance.CheckNoSends, `send button "Submit"), so no check of a send ran; a user turn appeared after click button "Send"`},
		{"ready that never holds", "ready-never.json", conformance.CheckReadyNever, `selector "form.composer[data-ready=true]"`},
		{"turn selector on the thread", "container-turns.adapter.json", conformance.CheckContainerTurn, `turn.selector ".thread" matches the list`},
		{"generating signal that never clears", "generating-stuck.json", conformance.CheckGeneratingStay, `(selector ".thread") showed on the page a send was made on`},
		{"send.by switched to enter", "send-by-enter.json", conformance.CheckSendBy, `(click button "Send", 2×)`},
	}
)

func plantedMistakes(t *testing.T, lib string, tests []mistake) {
	t.Helper()
	// every planted mistake is in the table: none goes unnamed
	files, err := filepath.Glob(lib + "/broken/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".adapter.json") && slices.ContainsFunc(files, func(g string) bool { return filepath.Base(g) == strings.TrimSuffix(base, ".adapter.json")+".json" }) {
			continue // the adapter of a planted profile
		}
		if !slices.ContainsFunc(tests, func(m mistake) bool { return m.file == base }) {
			t.Errorf("%s is planted but no row says which check names it", f)
		}
	}
	if len(tests) < 8 {
		t.Errorf("%d planted mistakes, want at least 8", len(tests))
	}
	sessions := libSessions(t, lib)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile := lib + "/" + lib + ".json"
			if !strings.HasSuffix(tt.file, ".adapter.json") {
				profile = lib + "/broken/" + tt.file
			}
			p, err := site.LoadIn(profile, ".")
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tt.file, ".adapter.json") {
				ad, err := adapter.LoadFile(lib + "/broken/" + tt.file)
				if err != nil {
					t.Fatal(err)
				}
				q := *p
				q.Adapter = ad
				p = &q
			}
			var checks, details []string
			for name, s := range sessions {
				for _, v := range conformance.Check(name, s, p.Adapter, conformance.OptionsFor(p)).Violations {
					if v.Severity == conformance.SeverityWarning {
						continue
					}
					if !slices.Contains(checks, v.Check) {
						checks = append(checks, v.Check)
					}
					details = append(details, "["+v.Check+"] "+v.Detail)
				}
			}
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
}
