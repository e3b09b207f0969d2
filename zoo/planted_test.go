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

// chatscopeSessions are the chatscope site's recorded sessions: its
// scenarios' and its record --send session.
func chatscopeSessions(t *testing.T) map[string]*replay.Session {
	t.Helper()
	files, err := filepath.Glob("recordings/sessions/chatscope/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no chatscope scenario sessions: %v", err)
	}
	files = append(files, "chatscope/recordings/send/session.json")
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

// TestChatscopePlantedMistakes: each planted mistake of
// zoo/chatscope/broken is named by the check that describes it, over the
// site's real recorded sessions.
func TestChatscopePlantedMistakes(t *testing.T) {
	tests := []struct {
		name, file, check, says string
	}{
		{"swapped speakers", "swapped-speakers.adapter.json", conformance.CheckSwapped, "swap the assistant and user values"},
		{"forgotten assistant", "forgotten-assistant.adapter.json", conformance.CheckSpeakerUnknown, `"kit"`},
		{"the same id on every answer", "same-id.adapter.json", conformance.CheckDuplicateID, `the id "Kit"`},
		{"no generating signal", "generating-nothing.json", conformance.CheckGenerating, "never showed a generating state"},
		{"stop control misnamed", "stop-misnamed.json", conformance.CheckStopControl, `button "Stop"`},
		{"composer misnamed", "composer-misnamed.json", conformance.CheckComposer, `textbox "Message"`},
		{"send control misnamed", "send-misnamed.json", conformance.CheckSend, `button "Send"`},
		{"ready that never holds", "ready-never.json", conformance.CheckReadyNever, `selector ".cs-message-input[data-ready=true]"`},
	}
	sessions := chatscopeSessions(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile := "chatscope/chatscope.json"
			if !strings.HasSuffix(tt.file, ".adapter.json") {
				profile = "chatscope/broken/" + tt.file
			}
			p, err := site.LoadIn(profile, ".")
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tt.file, ".adapter.json") {
				ad, err := adapter.LoadFile("chatscope/broken/" + tt.file)
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
