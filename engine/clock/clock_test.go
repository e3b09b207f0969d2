package clock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
)

func TestLabSleepWakesAtEachTimer(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	var got []string
	lab.AfterFunc(300*time.Millisecond, func() { got = append(got, "final") })
	lab.AfterFunc(0, func() { got = append(got, "start") })
	lab.AfterFunc(700*time.Millisecond, func() { got = append(got, "media") })
	ctx := context.Background()
	tests := []struct {
		name  string
		sleep time.Duration
		at    time.Duration
		fired []string
	}{
		{"a zero sleep runs what is due now", 0, 0, []string{"start"}},
		{"wakes at the next timer before the deadline", 500 * time.Millisecond, 300 * time.Millisecond, []string{"start", "final"}},
		{"reaches the deadline when nothing is due", 200 * time.Millisecond, 500 * time.Millisecond, []string{"start", "final"}},
		{"wakes at the last timer", time.Second, 700 * time.Millisecond, []string{"start", "final", "media"}},
		{"moves on to the deadline once idle", 10 * time.Second, 10700 * time.Millisecond, []string{"start", "final", "media"}},
	}
	for _, tt := range tests {
		if err := lab.Sleep(ctx, tt.sleep); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if at := lab.Now().Sub(clock.Epoch); at != tt.at {
			t.Errorf("%s: now is +%v, want +%v", tt.name, at, tt.at)
		}
		if strings.Join(got, ",") != strings.Join(tt.fired, ",") {
			t.Errorf("%s: fired %v, want %v", tt.name, got, tt.fired)
		}
	}
}

func TestLabSameInstantRunsInScheduleOrderAndChains(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	var got []string
	lab.AfterFunc(time.Second, func() {
		got = append(got, "a")
		lab.AfterFunc(0, func() { got = append(got, "a+0") }) // same instant: runs in this sleep
		lab.AfterFunc(time.Millisecond, func() { got = append(got, "a+1") })
	})
	lab.AfterFunc(time.Second, func() { got = append(got, "b") })
	stopped := lab.AfterFunc(time.Second, func() { got = append(got, "stopped") })
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop: want true once, then false")
	}
	if err := lab.Sleep(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, ","); s != "a,b,a+0" {
		t.Errorf("fired %s, want a,b,a+0", s)
	}
	if next, ok := lab.Next(); !ok || next.Sub(clock.Epoch) != time.Second+time.Millisecond {
		t.Errorf("next = %v %v, want +1.001s", next.Sub(clock.Epoch), ok)
	}
	if lab.Fired() != 3 {
		t.Errorf("fired %d, want 3", lab.Fired())
	}
}

// gate counts settles and can hold them.
type gate struct {
	mu      sync.Mutex
	settles int
	hold    chan struct{}
}

func (g *gate) Settle(ctx context.Context) error {
	g.mu.Lock()
	g.settles++
	h := g.hold
	g.mu.Unlock()
	if h == nil {
		return nil
	}
	select {
	case <-h:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestLabSleepSettlesBeforeAndAfterMoving(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	g := &gate{}
	lab.AddGate(g)
	seen := -1
	lab.AfterFunc(time.Second, func() { g.mu.Lock(); seen = g.settles; g.mu.Unlock() })
	if err := lab.Sleep(context.Background(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if seen != 1 || g.settles != 2 {
		t.Errorf("settles before the timer %d, after the sleep %d; want 1 and 2", seen, g.settles)
	}
}

func TestLabSettleGivesUpNamingItself(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	lab.SettleTimeout = 20 * time.Millisecond
	lab.AddGate(&gate{hold: make(chan struct{})})
	err := lab.Sleep(context.Background(), time.Second)
	if !errors.Is(err, clock.ErrSettle) {
		t.Fatalf("err = %v, want ErrSettle", err)
	}
	if lab.Now() != clock.Epoch {
		t.Errorf("time moved to %v though the gate never settled", lab.Now())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := lab.Settle(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled settle: %v, want context.Canceled", err)
	}
}

func TestLabBoundsPendingTimers(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	for range clock.TimersMax + 1 {
		lab.AfterFunc(time.Hour, func() {})
	}
	if err := lab.Settle(context.Background()); !errors.Is(err, clock.ErrTooManyTimers) {
		t.Fatalf("err = %v, want ErrTooManyTimers", err)
	}
}

func TestWall(t *testing.T) {
	done := make(chan struct{})
	clock.Wall.AfterFunc(time.Millisecond, func() { close(done) })
	if err := clock.Wall.Sleep(context.Background(), 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	<-done
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Wall.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sleep: %v", err)
	}
	if clock.Kind(clock.Wall) != clock.KindWall || clock.Kind(clock.NewLab(clock.Epoch)) != clock.KindLab {
		t.Error("Kind names the clocks wrong")
	}
}

func ExampleLab() {
	lab := clock.NewLab(clock.Epoch)
	lab.AfterFunc(300*time.Millisecond, func() { fmt.Println("complete at", lab.Now().Sub(clock.Epoch)) })
	// a 10 s wait wakes at the transition, with no wall time spent
	_ = lab.Sleep(context.Background(), 10*time.Second)
	fmt.Println("woke at", lab.Now().Sub(clock.Epoch))
	_ = lab.Sleep(context.Background(), 10*time.Second)
	fmt.Println("then at", lab.Now().Sub(clock.Epoch))
	// Output:
	// complete at 300ms
	// woke at 300ms
	// then at 10.3s
}

// pageGate keeps timers of its own, as a page on the page clock does: its
// Settle runs those due at the lab's instant, its Due names the next.
type pageGate struct {
	lab *clock.Lab
	due []time.Duration // pending, ascending, since the epoch
	ran []time.Duration
}

func (g *pageGate) Settle(context.Context) error {
	for len(g.due) > 0 && !clock.Epoch.Add(g.due[0]).After(g.lab.Now()) {
		g.ran = append(g.ran, g.lab.Now().Sub(clock.Epoch))
		g.due = g.due[1:]
	}
	return nil
}

func (g *pageGate) Due() (time.Time, bool) {
	if len(g.due) == 0 {
		return time.Time{}, false
	}
	return clock.Epoch.Add(g.due[0]), true
}

func TestLabSleepWakesAtASchedulersTimers(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	g := &pageGate{lab: lab, due: []time.Duration{150 * time.Millisecond, 900 * time.Millisecond}}
	lab.AddGate(g)
	lab.AfterFunc(500*time.Millisecond, func() {})
	for _, want := range []time.Duration{150 * time.Millisecond, 500 * time.Millisecond, 900 * time.Millisecond, 10900 * time.Millisecond} {
		if err := lab.Sleep(context.Background(), 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := lab.Now().Sub(clock.Epoch); got != want {
			t.Fatalf("woke at %v, want %v", got, want)
		}
	}
	if fmt.Sprint(g.ran) != "[150ms 900ms]" {
		t.Fatalf("the gate ran its timers at %v, want [150ms 900ms]", g.ran)
	}
}
