package harness

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/replaylab/replaylab/report"
)

func TestRerunFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".replaylab", "last-failed.txt")
	if _, err := ReadRerun(path); !errors.Is(err, ErrNoRerun) {
		t.Fatalf("missing file: %v, want ErrNoRerun", err)
	}
	run := &report.Run{Scenarios: []*report.Scenario{
		{ID: "features/a.feature:3", Status: report.Passed},
		{ID: "features/a.feature:7", Status: report.Failed},
		{ID: "features/b.feature:2", Status: report.Undefined},
		{ID: "features/b.feature:9", Status: report.Flaky},
		{ID: "features/a.feature:7", Status: report.Failed, Repeat: 2},
	}}
	if err := WriteRerun(path, run); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRerun(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"features/a.feature:7", "features/b.feature:2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := WriteRerun(path, &report.Run{}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRerun(path); err != nil || len(got) != 0 {
		t.Fatalf("after a passing run: %q, %v", got, err)
	}
}

func TestReplayCost(t *testing.T) {
	root := t.TempDir()
	sessions := filepath.Join(root, "recordings", "sessions", "f")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(sessions, "big.json"), make([]byte, 3000), 0o644)
	_ = os.WriteFile(filepath.Join(sessions, "small.json"), make([]byte, 1000), 0o644)
	r, err := New(Options{Root: root}, nopFixture{})
	if err != nil {
		t.Fatal(err)
	}
	big, small := Scenario{Slug: "f/big"}, Scenario{Slug: "f/small"}
	if w := r.replayCost(); w(big) <= w(small) {
		t.Fatalf("by session size: big %v, small %v", w(big), w(small))
	}
	// measured costs win over sizes
	run := &report.Run{Scenarios: []*report.Scenario{
		{Slug: "f/big", Attempts: []*report.Attempt{{Status: report.Passed, Duration: report.Duration(time.Millisecond)}}},
		{Slug: "f/small", Attempts: []*report.Attempt{{Status: report.Passed, Duration: report.Duration(time.Second)}}},
	}}
	if err := saveCosts(filepath.Join(root, filepath.FromSlash(CostFile)), run); err != nil {
		t.Fatal(err)
	}
	if w := r.replayCost(); w(big) != time.Millisecond || w(small) != time.Second {
		t.Fatalf("measured: big %v, small %v", w(big), w(small))
	}
}

func TestOrderCost(t *testing.T) {
	root := t.TempDir()
	runOf := func(big, small time.Duration) *report.Run {
		return &report.Run{Scenarios: []*report.Scenario{
			{Slug: "f/big", Attempts: []*report.Attempt{{Status: report.Passed, Duration: report.Duration(big)}}},
			{Slug: "f/small", Attempts: []*report.Attempt{{Status: report.Passed, Duration: report.Duration(small)}}},
		}}
	}
	// replayed, big costs more; live, small does
	if err := saveCosts(filepath.Join(root, filepath.FromSlash(CostFile)), runOf(time.Second, time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := saveCosts(filepath.Join(root, filepath.FromSlash(LiveCostFile)), runOf(time.Millisecond, time.Second)); err != nil {
		t.Fatal(err)
	}
	big, small := Scenario{Slug: "f/big"}, Scenario{Slug: "f/small"}
	for _, tc := range []struct {
		name       string
		mode       Mode
		bigHeavier bool
	}{
		{"replay only weighs the replay costs", ModeReplayOnly, true},
		{"record-once mostly replays: the replay costs", ModeRecordOnce, true},
		{"the browser driver weighs the live costs", ModeLive, false},
		{"--record runs every scenario live: the live costs", ModeRecord, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(Options{Root: root, Mode: tc.mode}, nopFixture{})
			if err != nil {
				t.Fatal(err)
			}
			w := r.orderCost()
			if got := w(big) > w(small); got != tc.bigHeavier {
				t.Fatalf("big %v, small %v; want big heavier: %v", w(big), w(small), tc.bigHeavier)
			}
		})
	}
}
