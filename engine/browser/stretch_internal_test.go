package browser

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/replaylab/replaylab/engine/clock"
)

// lateTimer is a clock.Stretcher whose timer fires only when the test
// says, late by what the test says: a loaded machine on demand, with no
// wall time spent.
type lateTimer struct {
	mu    sync.Mutex
	now   time.Time
	ticks chan chan time.Time
}

func newLateTimer(tick time.Duration) (*lateTimer, clock.Stretcher) {
	m := &lateTimer{now: clock.Epoch, ticks: make(chan chan time.Time, 16)}
	return m, clock.Stretcher{
		Tick: tick,
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

// fire lets the waiting timer fire, step plus late after the last one.
func (m *lateTimer) fire(t *testing.T, step, late time.Duration) {
	t.Helper()
	c := <-m.ticks
	m.mu.Lock()
	m.now = m.now.Add(step + late)
	now := m.now
	m.mu.Unlock()
	c <- now
}

// TestLabWaitsStretchWithSchedulingDelay: the page clock's settle
// (PageClockSettleTimeout) and the wait for pending navigations
// (NavigationWaitMax) are lab waits: on a machine whose timer fires late
// they keep waiting past their nominal budget by the delay measured, and
// end when the stretched budget is spent. Each row's budget is four ticks
// of the timer, which fires four ticks late at each; the test checks the
// wait is still on after three ticks (fifteen ticks of "wall time"
// measured, almost four times its nominal bound) and over after the
// fourth, by the waiting goroutines' state (testing/synctest), not by a
// stopwatch.
func TestLabWaitsStretchWithSchedulingDelay(t *testing.T) {
	const settleBudget = 300 * time.Millisecond
	cases := []struct {
		name   string
		budget time.Duration
		// wait starts the lab wait on s with a page that never becomes
		// ready; it returns the wait's error and what it reports.
		wait  func(ctx context.Context, s clock.Stretcher) (string, error)
		check func(t *testing.T, report string, err error)
	}{
		{
			name:   "page clock settle",
			budget: settleBudget,
			wait: func(ctx context.Context, s clock.Stretcher) (string, error) {
				chunks := 0
				res, lag, err := settleStretched(ctx, s, settleBudget, func(ctx context.Context, wall time.Duration, timers int) (*advanceResult, error) {
					chunks++
					time.Sleep(wall) // the page stays busy for the whole chunk (fake time in the bubble)
					return &advanceResult{Next: -1, Ran: 1, Waiting: "1 request(s) in flight"}, nil
				})
				if err != nil {
					return "", err
				}
				if res == nil || res.Quiet || res.Waiting != "1 request(s) in flight" {
					return "", errors.New("settle answered a quiet page")
				}
				if chunks < 2 {
					return "", errors.New("settle waited one chunk only")
				}
				return lag.String(), nil
			},
			check: func(t *testing.T, report string, err error) {
				// four ticks, each four ticks late
				if want := 4 * settleBudget; err != nil || report != want.String() {
					t.Errorf("settle ended with %v, scheduling delay %s; want no error and %v measured", err, report, want)
				}
			},
		},
		{
			name:   "pending navigation",
			budget: NavigationWaitMax,
			wait: func(ctx context.Context, s clock.Stretcher) (string, error) {
				n := &navigations{pending: map[cdp.FrameID]bool{"main": true}, changed: make(chan struct{})}
				return "", n.await(ctx, s)
			},
			check: func(t *testing.T, _ string, err error) {
				if err != nil {
					t.Errorf("the wait past NavigationWaitMax ended with %v, want nil (the sleep goes on)", err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tick := tc.budget / 4
				m, s := newLateTimer(tick)
				done := make(chan struct{})
				var report string
				var err error
				go func() {
					defer close(done)
					report, err = tc.wait(t.Context(), s)
				}()
				for i := range 4 {
					// whatever the wait does on its own (chunks of
					// fake wall time), it is still on until its
					// stretched budget is spent
					time.Sleep(5 * tc.budget)
					synctest.Wait()
					select {
					case <-done:
						t.Fatalf("ended after %d of its 4 ticks (%v): the bound did not stretch", i, err)
					default:
					}
					m.fire(t, tick, 4*tick)
				}
				<-done
				tc.check(t, report, err)
			})
		})
	}
}

// TestNavigationWaitEndsWithItsContext: a cancelled step ends the wait for
// a pending navigation with its error, a finished navigation at once.
func TestNavigationWaitEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, s := newLateTimer(time.Second)
		n := &navigations{pending: map[cdp.FrameID]bool{"main": true}, changed: make(chan struct{})}
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- n.await(ctx, s) }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v, want context.Canceled", err)
		}
		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		go func() { errc <- n.await(ctx, s) }()
		synctest.Wait()
		n.set("main", false)
		if err := <-errc; err != nil {
			t.Errorf("navigation done: %v, want nil", err)
		}
	})
}
