package harness

import (
	"errors"
	"testing"
)

// TestModeDecide is the decision table: what each mode does with a
// recording that is present and one that is missing.
func TestModeDecide(t *testing.T) {
	tests := []struct {
		mode             Mode
		present, missing Decision
	}{
		{ModeReplayOnly, Decision{}, Decision{Missing: true}},
		{ModeRecordOnce, Decision{}, Decision{Live: true, Save: true}},
		{ModeRecord, Decision{Live: true, Save: true}, Decision{Live: true, Save: true}},
		{ModeLive, Decision{Live: true}, Decision{Live: true}},
		{ModeLiveRecordOnce, Decision{Live: true}, Decision{Live: true, Save: true}},
	}
	for _, tc := range tests {
		t.Run(tc.mode.String(), func(t *testing.T) {
			if got := tc.mode.Decide(true); got != tc.present {
				t.Errorf("present: got %+v, want %+v", got, tc.present)
			}
			if got := tc.mode.Decide(false); got != tc.missing {
				t.Errorf("missing: got %+v, want %+v", got, tc.missing)
			}
		})
	}
}

// TestModeOf: the command line's driver, --mode and --update make one
// mode.
func TestModeOf(t *testing.T) {
	tests := []struct {
		name   string
		driver string
		mode   Mode
		update bool
		want   Mode
		driven string
	}{
		{"replay", DriverReplay, ModeReplayOnly, false, ModeReplayOnly, DriverReplay},
		{"replay --update rewrites goldens only", DriverReplay, ModeReplayOnly, true, ModeReplayOnly, DriverReplay},
		{"record-once", DriverReplay, ModeRecordOnce, false, ModeRecordOnce, DriverReplay},
		{"--record", DriverReplay, ModeRecord, false, ModeRecord, DriverBrowser},
		{"browser", DriverBrowser, ModeReplayOnly, false, ModeLive, DriverBrowser},
		{"browser --update re-records", DriverBrowser, ModeReplayOnly, true, ModeRecord, DriverBrowser},
		{"browser record-once", DriverBrowser, ModeRecordOnce, false, ModeLiveRecordOnce, DriverBrowser},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ModeOf(tc.driver, tc.mode, tc.update)
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			if d := got.Driver(); d != tc.driven {
				t.Fatalf("driver %s, want %s", d, tc.driven)
			}
		})
	}
	for m, want := range map[Mode]bool{ModeReplayOnly: false, ModeLive: false, ModeRecordOnce: true, ModeLiveRecordOnce: true, ModeRecord: true} {
		if got := m.CreatesGoldens(); got != want {
			t.Errorf("%v.CreatesGoldens() = %v, want %v", m, got, want)
		}
	}
	if _, err := ModeOf("firefox", ModeReplayOnly, false); !errors.Is(err, ErrMode) {
		t.Fatalf("unknown driver: %v, want ErrMode", err)
	}
	if _, err := ParseMode("sometimes"); !errors.Is(err, ErrMode) {
		t.Fatalf("unknown mode: %v, want ErrMode", err)
	}
}
