package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateOfTheRepository: the fingerprint Select computes is the one the
// recordings were made with, so no session of the repository is stale,
// and every recorded scenario has its golden.
func TestStateOfTheRepository(t *testing.T) {
	sel, err := Select(Selection{Root: "..", Dir: ".."})
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, sc := range sel {
		st, err := State("..", sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Stale) > 0 {
			t.Errorf("%s: stale sessions %v (fingerprint %s)", sc.ID(), st.Stale, sc.Fingerprint)
		}
		if st.Recorded() {
			recorded++
			if st.Golden == "" {
				t.Errorf("%s: recorded, but no golden", sc.ID())
			}
		}
	}
	if recorded < len(sel)/2 {
		t.Fatalf("only %d of %d scenarios recorded", recorded, len(sel))
	}
}

// TestStaleFromWhatMustReplay: a session stays valid when only checks
// (steps under Then) are added, removed or changed, and goes stale when a
// Given or When step changes; a session stamped with every step's
// fingerprint (recordings made before checks were left out) stays valid
// until its steps change.
func TestStaleFromWhatMustReplay(t *testing.T) {
	const recorded = `Feature: F
  Scenario: S
    Given a marker-style chat with 2 earlier turns
    When I open the chat
    And I send "Hi"
    Then the answer status is "complete"
`
	tests := []struct {
		name   string
		edited string
		legacy bool // the session carries StepsFingerprint
		stale  bool
	}{
		{"unchanged", recorded, false, false},
		{"a check added", recorded + "    And the answer text is \"Fine.\"\n", false, false},
		{"a check's value changed", strings.Replace(recorded, `"complete"`, `"failed"`, 1), false, false},
		{"the checks removed", strings.Replace(recorded, "    Then the answer status is \"complete\"\n", "", 1), false, false},
		{"what is sent changed", strings.Replace(recorded, `"Hi"`, `"Hello"`, 1), false, true},
		{"what is scripted changed", strings.Replace(recorded, "2 earlier", "4 earlier", 1), false, true},
		{"a When step added after the checks", recorded + "    When I open the chat\n", false, true},
		{"a check moved under When", strings.Replace(recorded, "    Then the answer", "    And the answer", 1), false, true},
		{"an older stamp, unchanged", recorded, true, false},
		{"an older stamp, a check added", recorded + "    And the answer text is \"Fine.\"\n", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			orig, err := ScenariosOf([]byte(recorded), filepath.Join(root, "features", "f.feature"), "features/f.feature")
			if err != nil {
				t.Fatal(err)
			}
			stamp := orig[0].Fingerprint
			if tt.legacy {
				stamp = orig[0].StepsFingerprint
			}
			session := filepath.Join(root, "recordings", "sessions", "f", "s.json")
			if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(session, []byte(`{"version": 2, "scenario": "`+stamp+`"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			edited, err := ScenariosOf([]byte(tt.edited), filepath.Join(root, "features", "f.feature"), "features/f.feature")
			if err != nil {
				t.Fatal(err)
			}
			st, err := State(root, edited[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := len(st.Stale) > 0; got != tt.stale {
				t.Fatalf("stale = %v, want %v", got, tt.stale)
			}
		})
	}
}

func TestDrivers(t *testing.T) {
	root := t.TempDir()
	recorded := filepath.Join(root, "recordings", "sessions", "chat", "recorded.json")
	if err := os.MkdirAll(filepath.Dir(recorded), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recorded, []byte(`{"scenario":""}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := Scenario{URI: "features/chat.feature", Line: 2, Slug: "chat/recorded"}
	fresh := Scenario{URI: "features/chat.feature", Line: 5, Slug: "chat/fresh"}
	for _, tc := range []struct {
		name string
		mode Mode
		sel  []Scenario
		want string
	}{
		{"replay only", ModeReplayOnly, []Scenario{rec, fresh}, "replay"},
		{"record-once, one of two has no recording", ModeRecordOnce, []Scenario{rec, fresh}, "replay+browser (1 of 2 scenarios have no recording and run live)"},
		{"record-once, everything recorded", ModeRecordOnce, []Scenario{rec}, "replay"},
		{"record-once, nothing recorded", ModeRecordOnce, []Scenario{fresh}, "browser"},
		{"record", ModeRecord, []Scenario{rec, fresh}, "browser"},
		{"live", ModeLive, []Scenario{rec}, "browser"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(Options{Root: root, Mode: tc.mode, Scenarios: tc.sel}, nopFixture{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Drivers(); got != tc.want {
				t.Errorf("Drivers() = %q, want %q", got, tc.want)
			}
		})
	}
}
