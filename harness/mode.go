package harness

import (
	"errors"
	"fmt"
)

// Mode is what a run does with a scenario's recorded session, in the
// manner of go-vcr: one enum and one decision table (Decide). Each value's
// doc says what happens when the recording is present and when it is
// missing; the driver (live Chromium or the replay driver) follows from
// the decision, never from a second flag.
type Mode int

const (
	// ModeReplayOnly (the CI default): present, the session is replayed
	// with no browser; missing, the scenario fails with the command that
	// records it. Nothing is written.
	ModeReplayOnly Mode = iota
	// ModeRecordOnce: present, the session is replayed; missing, the
	// scenario runs live in Chromium, its session is saved and its
	// missing golden created.
	ModeRecordOnce
	// ModeRecord: present or missing, the scenario runs live in Chromium
	// and its session is saved over what exists; a missing golden is
	// created (a present one is compared unless goldens are updated).
	ModeRecord
	// ModeLive (the browser driver): present or missing, the scenario
	// runs live in Chromium and nothing is saved.
	ModeLive
	// ModeLiveRecordOnce (the browser driver in record-once): present or
	// missing, the scenario runs live; a missing session is saved and a
	// missing golden created, a present one is left as it is.
	ModeLiveRecordOnce
)

// Decision is what a run does with one recording.
type Decision struct {
	// Live runs the scenario in Chromium; false replays the recording.
	Live bool
	// Save writes the live session when the scenario passes.
	Save bool
	// Missing fails the scenario: the recording is missing and this mode
	// never records.
	Missing bool
}

// Decide is the decision table: what m does with a recording that is
// present (recorded) or missing.
func (m Mode) Decide(recorded bool) Decision {
	switch m {
	case ModeRecordOnce:
		return Decision{Live: !recorded, Save: !recorded}
	case ModeRecord:
		return Decision{Live: true, Save: true}
	case ModeLive:
		return Decision{Live: true}
	case ModeLiveRecordOnce:
		return Decision{Live: true, Save: !recorded}
	}
	return Decision{Missing: !recorded}
}

// AlwaysLive reports whether every scenario of m runs live, whatever is
// recorded: the run needs the live site and a browser from the start.
func (m Mode) AlwaysLive() bool { return m.Decide(true).Live && m.Decide(false).Live }

// MayGoLive reports whether some scenario of m may run live (a browser
// and the live site may be needed).
func (m Mode) MayGoLive() bool { return m.Decide(true).Live || m.Decide(false).Live }

// CreatesGoldens reports whether m creates the golden of a scenario that
// has none (instead of failing it).
func (m Mode) CreatesGoldens() bool {
	return m == ModeRecordOnce || m == ModeLiveRecordOnce || m == ModeRecord
}

// Driver names the driver the mode starts with: DriverBrowser when every
// scenario runs live, else DriverReplay.
func (m Mode) Driver() string {
	if m.AlwaysLive() {
		return DriverBrowser
	}
	return DriverReplay
}

// String is the mode's name as ParseMode reads it (the live modes are
// named by their driver and mode flags).
func (m Mode) String() string {
	switch m {
	case ModeReplayOnly:
		return "replay"
	case ModeRecordOnce:
		return "record-once"
	case ModeRecord:
		return "record"
	case ModeLive:
		return "live"
	case ModeLiveRecordOnce:
		return "live record-once"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Drivers, as the --driver flag names them.
const (
	DriverReplay  = "replay"
	DriverBrowser = "browser"
)

// ErrMode is a mode or driver name ParseMode and ModeOf do not know.
var ErrMode = errors.New("unknown recording mode")

// ParseMode reads the --mode flag: "replay" (or "" or "replay-only"),
// "record-once" or "record".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "replay", "replay-only":
		return ModeReplayOnly, nil
	case "record-once":
		return ModeRecordOnce, nil
	case "record":
		return ModeRecord, nil
	}
	return 0, fmt.Errorf("%w %q (want replay, record-once or record)", ErrMode, s)
}

// ModeOf combines the command line's flags into the one mode of a run:
// the driver ("replay" or "browser"), the --mode flag (ParseMode) and
// --update (rewrite goldens). With the browser driver, --update
// re-records (ModeRecord) and replay becomes ModeLive; record is live
// whatever the driver.
func ModeOf(driver string, mode Mode, update bool) (Mode, error) {
	switch driver {
	case "", DriverReplay:
		return mode, nil
	case DriverBrowser:
	default:
		return 0, fmt.Errorf("%w: driver %q (want replay or browser)", ErrMode, driver)
	}
	switch {
	case update || mode == ModeRecord:
		return ModeRecord, nil
	case mode == ModeRecordOnce:
		return ModeLiveRecordOnce, nil
	}
	return ModeLive, nil
}
