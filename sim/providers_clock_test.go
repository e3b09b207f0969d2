package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/sim"
)

// TestProvidersWaitOnTheLabClock: on a lab clock a provider's latency,
// its timeout and its late callback happen at exactly their lab instants,
// cost no wall time, and Settle moves the lab to them.
func TestProvidersWaitOnTheLabClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		script    sim.Script
		wantAt    time.Duration
		wantState ledger.JobState
	}{
		{"an answer after 30 s", sim.Script{Behaviour: sim.Succeed, Latency: 30 * time.Second}, 30 * time.Second, ledger.JobCompleted},
		{"a failure after 5 s", sim.Script{Behaviour: sim.Fail, Latency: 5 * time.Second}, 5 * time.Second, ledger.JobNeedsReview},
		{"a timeout after 45 s", sim.Script{Behaviour: sim.TimeOut, Latency: 45 * time.Second}, 45 * time.Second, ledger.JobNeedsReview},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			lab := clock.NewLab(clock.Epoch)
			s := startLedger(t, sim.Options{Clock: lab, Scripts: map[string][]sim.Script{ledger.DefaultProvider: {tc.script}}})
			lab.AddGate(s)
			start := time.Now()
			job, _, err := s.Ledger().Create(ctx, alice, "k1", []byte(`{"n":1}`), "")
			if err != nil {
				t.Fatal(err)
			}
			settle(t, s)
			if got := lab.Now().Sub(clock.Epoch); got != tc.wantAt {
				t.Fatalf("the provider's part happened at %v of lab time, want %v", got, tc.wantAt)
			}
			t.Logf("the lab's %v took %v of wall time", tc.wantAt, time.Since(start))
			j, err := s.Ledger().Get(ctx, alice, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if j.State != tc.wantState {
				t.Fatalf("job %s, want %s", j.State, tc.wantState)
			}
		})
	}
}

// TestFaultScheduleOnTheLabIsTheSameEveryRun: seeded timeouts with late
// callbacks and latencies of up to a minute, on the lab clock: every
// decision and every job's end repeat, and so does the lab's end instant.
func TestFaultScheduleOnTheLabIsTheSameEveryRun(t *testing.T) {
	faults := sim.Faults{Seed: 7, TimeoutProb: 0.4, FailProb: 0.2, DuplicateProb: 0.3, LateProb: 0.7, LatencyMax: time.Minute}
	run := func() string {
		ctx := context.Background()
		lab := clock.NewLab(clock.Epoch)
		s := startLedger(t, sim.Options{Clock: lab, Faults: faults})
		lab.AddGate(s)
		// all at once: the schedule is drawn per attempt id, not by goroutine order
		for i := range 12 {
			if _, _, err := s.Ledger().Create(ctx, alice, fmt.Sprint("k", i), []byte(`{"n":`+fmt.Sprint(i)+`}`), ""); err != nil {
				t.Fatal(err)
			}
		}
		settle(t, s)
		var out []string
		for _, d := range s.Providers().Journal() {
			out = append(out, fmt.Sprintf("%s %s %s %s", d.AttemptID, d.Behaviour, d.Latency, d.Note))
		}
		for i := range 12 {
			j, err := s.Ledger().Get(ctx, alice, fmt.Sprintf("job_%04d", i+1))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %s %s", j.ID, j.State, j.WinningAttemptID))
		}
		return strings.Join(append(out, "lab at "+lab.Now().Sub(clock.Epoch).String()), "\n")
	}
	start := time.Now()
	a, b := run(), run()
	if a != b {
		t.Fatalf("two runs differ:\n%s\n--\n%s", a, b)
	}
	if !strings.Contains(a, "late callback") {
		t.Fatalf("the schedule drew no late callback:\n%s", a)
	}
	t.Logf("two runs of minutes of lab time took %v of wall time\n%s", time.Since(start), a)
}
