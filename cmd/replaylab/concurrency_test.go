package main

import (
	"github.com/replaylab/replaylab/harness"
	"testing"
)

func TestDefaultConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode harness.Mode
		cpus int
		want int
	}{
		{name: "replay on 2 CPUs", mode: harness.ModeReplayOnly, cpus: 2, want: 4},
		{name: "replay on 1 CPU", mode: harness.ModeReplayOnly, cpus: 1, want: 4},
		{name: "replay on 8 CPUs", mode: harness.ModeReplayOnly, cpus: 8, want: 16},
		{name: "record-once may start a browser", mode: harness.ModeRecordOnce, cpus: 2, want: 2},
		{name: "record", mode: harness.ModeRecord, cpus: 8, want: 8},
		{name: "live", mode: harness.ModeLive, cpus: 2, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := defaultConcurrency(tc.mode, tc.cpus); got != tc.want {
				t.Errorf("defaultConcurrency(%s, %d) = %d, want %d", tc.mode, tc.cpus, got, tc.want)
			}
		})
	}
}
