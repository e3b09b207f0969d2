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

// TestPlantedMistakes: each planted mistake of zoo/chatscope/broken and
// zoo/aisdk/broken is named by the check that describes it, over the
// site's real recorded sessions.
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
		{"send control misnamed", "send-misnamed.json", conformance.CheckSend, `button "Send"`},
		{"ready that never holds", "ready-never.json", conformance.CheckReadyNever, `selector ".cs-message-input[data-ready=true]"`},
	}
	aisdkMistakes = []mistake{
		{"swapped speakers", "swapped-speakers.adapter.json", conformance.CheckSwapped, "swap the assistant and user values"},
		{"forgotten assistant", "forgotten-assistant.adapter.json", conformance.CheckSpeakerUnknown, `"assistant"`},
		{"one id on every answer", "same-id.adapter.json", conformance.CheckDuplicateID, `the id "assistant"`},
		{"id attribute the site lacks", "missing-id.adapter.json", conformance.CheckPositionID, "the id attribute is on no turn"},
		{"no generating signal", "generating-nothing.json", conformance.CheckGenerating, "never showed a generating state"},
		{"stop control misnamed", "stop-misnamed.json", conformance.CheckStopControl, `button "Stop"`},
		{"composer misnamed", "composer-misnamed.json", conformance.CheckComposer, `textbox "Ask Ada"`},
		{"send control misnamed", "send-misnamed.json", conformance.CheckSend, `button "Submit"`},
		{"ready that never holds", "ready-never.json", conformance.CheckReadyNever, `selector "form.composer[data-ready=true]"`},
	}
)

func plantedMistakes(t *testing.T, lib string, tests []mistake) {
	t.Helper()
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
