package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// RecordingState is what a project holds for one scenario: its golden and
// its sessions, and which sessions were recorded from other steps. It is
// read from disk only (no run), for front ends such as an editor.
type RecordingState struct {
	// Golden is the golden trace's path, "" when there is none.
	Golden string `json:"golden,omitempty"`
	// Sessions are the scenario's session files, the main tab's first.
	Sessions []string `json:"sessions,omitempty"`
	// Stale lists the sessions recorded from other steps than the
	// scenario's, its checks aside (a replay of them fails until they are
	// re-recorded; see Fingerprint).
	Stale []string `json:"stale,omitempty"`
}

// Recorded reports whether the scenario has a session.
func (s RecordingState) Recorded() bool { return len(s.Sessions) > 0 }

// sessionFiles are the session files of the scenario slug under root,
// the main tab's first.
func sessionFiles(root, slug string) []string {
	base := filepath.Join(root, "recordings", "sessions", filepath.FromSlash(slug))
	tabs, _ := filepath.Glob(base + "@*.json")
	sort.Strings(tabs)
	var out []string
	if _, err := os.Stat(base + ".json"); err == nil {
		out = append(out, base+".json")
	}
	return append(out, tabs...)
}

// State reads sc's recording state in the project at root.
func State(root string, sc Scenario) (RecordingState, error) {
	var st RecordingState
	golden := filepath.Join(root, "recordings", "golden", filepath.FromSlash(sc.Slug)+".golden")
	if _, err := os.Stat(golden); err == nil {
		st.Golden = golden
	} else if !errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("harness: state of %s: %w", sc.ID(), err)
	}
	st.Sessions = sessionFiles(root, sc.Slug)
	for _, p := range st.Sessions {
		data, err := os.ReadFile(p)
		if err != nil {
			return st, fmt.Errorf("harness: state of %s: %w", sc.ID(), err)
		}
		var head struct {
			Scenario string `json:"scenario"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return st, fmt.Errorf("harness: state of %s: %s: %w", sc.ID(), p, err)
		}
		if sc.Fingerprint != "" && !RecordedFrom(head.Scenario, sc.Fingerprint, sc.StepsFingerprint) {
			st.Stale = append(st.Stale, p)
		}
	}
	return st, nil
}

// Drivers names what runs the selection: "replay" or "browser" when
// every selected scenario is replayed or runs live, else both, with how
// many run live ("replay+browser (2 of 9 scenarios have no recording and
// run live)"). Under --mode record-once only the scenarios with no
// recording run live; the run header says so instead of one driver.
func (r *Runner) Drivers() string {
	m := r.opt.Mode
	if m.AlwaysLive() {
		return DriverBrowser
	}
	if !m.MayGoLive() {
		return DriverReplay
	}
	sel, err := r.Selected()
	if err != nil {
		return m.Driver()
	}
	live := 0
	for _, sc := range sel {
		if m.Decide(len(sessionFiles(r.opt.Root, sc.Slug)) > 0).Live {
			live++
		}
	}
	switch live {
	case 0:
		return DriverReplay
	case len(sel):
		return DriverBrowser
	}
	return fmt.Sprintf("%s+%s (%d of %d scenarios have no recording and run live)", DriverReplay, DriverBrowser, live, len(sel))
}
