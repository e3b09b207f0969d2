package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// lateMachine is a stretch whose timer fires late by a set delay, tick by
// tick as the test says: a loaded machine on demand, with no wall time.
type lateMachine struct {
	mu    sync.Mutex
	now   time.Time
	ticks chan chan time.Time
}

func newLateMachine() (*lateMachine, Stretcher) {
	m := &lateMachine{now: Epoch, ticks: make(chan chan time.Time)}
	return m, Stretcher{
		Tick: 100 * time.Millisecond,
		Now: func() time.Time {
			m.mu.Lock()
			defer m.mu.Unlock()
			return m.now
		},
		After: func(time.Duration) <-chan time.Time {
			c := make(chan time.Time, 1)
			m.ticks <- c
			return c
		},
	}
}

// fire lets the waiting timer fire after step plus late of wall time;
// false when ctx ended instead of waiting on its timer.
func (m *lateMachine) fire(ctx context.Context, step, late time.Duration) bool {
	var c chan time.Time
	select {
	case c = <-m.ticks:
	case <-ctx.Done():
		return false
	}
	m.mu.Lock()
	m.now = m.now.Add(step + late)
	now := m.now
	m.mu.Unlock()
	c <- now
	return true
}

// TestStretchCountsOnlyScheduledTime: a 1 s budget on a machine whose
// timer fires 300 ms late at every 100 ms tick ends after its tenth tick
// (4 s of wall time), not its third, and says it was stretched by 3 s.
func TestStretchCountsOnlyScheduledTime(t *testing.T) {
	cases := []struct {
		name string
		late time.Duration
	}{
		{name: "quiet machine", late: 0},
		{name: "timers fire 300 ms late", late: 300 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newLateMachine()
			ctx, cancel := s.WithTimeout(context.Background(), time.Second)
			defer cancel()
			for i := range 10 {
				if !m.fire(ctx, 100*time.Millisecond, tc.late) {
					t.Fatalf("ended after %d ticks (%v): want the whole budget of 10", i, ctx.Err())
				}
			}
			<-ctx.Done()
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("err %v, want context.DeadlineExceeded", ctx.Err())
			}
			if lag, _ := StretchedBy(ctx); lag != 10*tc.late {
				t.Errorf("stretched by %v, want %v", lag, 10*tc.late)
			}
			// a context derived from it sees the same error
			child, cc := context.WithCancel(ctx)
			defer cc()
			<-child.Done()
			if !errors.Is(child.Err(), context.DeadlineExceeded) {
				t.Errorf("derived context: %v, want context.DeadlineExceeded", child.Err())
			}
		})
	}
}

// TestStretchEndsWithItsParentAndCancel: cancel and the parent end it at
// once, with their own errors.
func TestStretchEndsWithItsParentAndCancel(t *testing.T) {
	m, s := newLateMachine()
	ctx, cancel := s.WithTimeout(context.Background(), time.Second)
	<-m.ticks // waiting on its first tick
	cancel()
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	parent, pcancel := context.WithCancel(context.Background())
	ctx, cancel = s.WithTimeout(parent, time.Second)
	defer cancel()
	<-m.ticks
	pcancel()
	<-ctx.Done()
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("parent cancelled: %v, want context.Canceled", err)
	}
}
