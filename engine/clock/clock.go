// Package clock is the time a scenario runs on (SPEC CLK-1).
//
// Everything that waits in a scenario takes a Clock: the sim schedules its
// scripted transitions on it (AfterFunc), and the engine's waits read it
// and sleep on it (through the driver's Now and Sleep). Two clocks exist:
//
//   - Wall is the machine's time. Real sites run on it: their pages change
//     when they change, and a wait polls them.
//   - Lab is virtual time that the harness owns. It moves only when the
//     engine sleeps: Sleep(d) first settles (every Gate has caught up at
//     the current instant), then advances to the next scheduled timer or
//     to now+d, whichever is first, fires the timers due at that instant
//     in the order they were scheduled, and settles again before it
//     returns. A wait therefore wakes exactly at each scripted transition,
//     and a scripted delay costs no wall time at all.
//
// A Gate is a party outside the engine's goroutine that must have caught
// up before lab time moves on or a read completes: the sim's pages in
// Chromium acknowledging the last version they rendered (see package sim),
// or the sim's handlers still working on a request. The browser driver
// settles a Lab before every capture, so the engine never reads a page
// that has not rendered the transitions the clock has reached.
//
// A complete call sequence, as the harness and the explorer use it:
//
//	lab := clock.NewLab(clock.Epoch)
//	srv, _ := sim.NewServer(sim.Options{Clock: lab}) // schedules on lab
//	lab.AddGate(srv)                                 // pages must ack
//	page.SetClock(lab)                               // browser driver: Sleep/Now/read gate
//	// the engine's waits now sleep on lab; a 10 s deadline costs one
//	// capture per poll interval, not 10 s.
package clock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Clock tells time and waits.
type Clock interface {
	// Now is the clock's current time.
	Now() time.Time
	// Sleep waits until d has passed on the clock or ctx ends. A lab clock
	// may return earlier, at the first transition it fired (see Lab.Sleep).
	Sleep(ctx context.Context, d time.Duration) error
	// AfterFunc calls f in its own goroutine (Wall) or on the sleeping
	// goroutine (Lab) once d has passed on the clock.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a scheduled call.
type Timer interface {
	// Stop cancels the call; false when it already ran or was stopped.
	Stop() bool
}

// Gate is what a Lab waits for before time moves and before a read.
type Gate interface {
	// Settle returns once the gate has caught up with the lab's current
	// instant (or ctx ends, or the gate gives up with an error that says
	// what it was waiting for).
	Settle(ctx context.Context) error
}

// Scheduler is a Gate that keeps timers of its own outside the lab: a page
// whose JavaScript timers the lab owns (browser.InstallPageClock). After
// it settled, Due reports the instant of its earliest pending timer, so
// Lab.Sleep stops there as it stops at its own timers; the gate's next
// Settle at that instant runs what fell due.
type Scheduler interface {
	Gate
	// Due is when the gate's next timer falls due (false: none pending).
	Due() (time.Time, bool)
}

// Settler is implemented by clocks whose readers must wait for the world
// to catch up before reading (Lab). The browser driver settles before each
// capture when its clock is one.
type Settler interface {
	Settle(ctx context.Context) error
}

// Kinds of clock, as site profiles and recordings name them.
const (
	KindWall = "wall"
	KindLab  = "lab"
)

// Epoch is where lab time starts: a fixed instant, so nothing derived from
// lab time depends on when a run happened.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Wall is the machine's clock.
var Wall Clock = wall{}

type wall struct{}

func (wall) Now() time.Time { return time.Now() }

func (wall) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (wall) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Kind names c: KindLab for a *Lab, KindWall otherwise.
func Kind(c Clock) string {
	if _, ok := c.(*Lab); ok {
		return KindLab
	}
	return KindWall
}

// Limits of a Lab, every default written out.
const (
	// DefaultSettleTimeout bounds, in wall time, how long Settle waits for
	// the gates: a page that never acknowledges fails the step instead of
	// hanging it.
	DefaultSettleTimeout = 20 * time.Second
	// TimersMax bounds the timers pending at once.
	TimersMax = 10_000
)

// ErrSettle is wrapped by the error of a gate that did not catch up in
// time.
var ErrSettle = errors.New("clock: the lab did not settle")

// ErrTooManyTimers is what Settle (and so Sleep) returns once a schedule
// tried to keep more than TimersMax timers pending at once; the timer
// over the bound never runs.
var ErrTooManyTimers = errors.New("clock: too many pending timers")

// Lab is virtual time owned by the harness. The zero value is not usable:
// make one with NewLab. It is safe for concurrent use; timers fire on the
// goroutine that calls Sleep, one instant at a time.
type Lab struct {
	// SettleTimeout bounds each Settle in wall time; 0 is
	// DefaultSettleTimeout.
	SettleTimeout time.Duration

	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers []*labTimer // sorted by (at, seq)
	gates  []Gate
	fired  int
	err    error // first scheduling error (too many timers)
}

type labTimer struct {
	l    *Lab
	at   time.Time
	seq  uint64
	f    func()
	done bool
}

// NewLab returns a lab clock at start.
func NewLab(start time.Time) *Lab { return &Lab{now: start} }

// Now is the lab's current instant.
func (l *Lab) Now() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.now
}

// AddGate makes every Settle (and so every Sleep) wait for g.
func (l *Lab) AddGate(g Gate) {
	l.mu.Lock()
	l.gates = append(l.gates, g)
	l.mu.Unlock()
}

// AfterFunc schedules f at now+d (d < 0 counts as 0). f runs on the
// goroutine that sleeps past its instant; timers of the same instant run
// in the order they were scheduled.
func (l *Lab) AfterFunc(d time.Duration, f func()) Timer {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := &labTimer{l: l, at: l.now.Add(max(d, 0)), seq: l.seq, f: f}
	l.seq++
	if len(l.timers) >= TimersMax {
		if l.err == nil {
			l.err = fmt.Errorf("%w (%d)", ErrTooManyTimers, TimersMax)
		}
		t.done = true
		return t
	}
	i := len(l.timers)
	for i > 0 && l.timers[i-1].after(t) {
		i--
	}
	l.timers = append(l.timers, nil)
	copy(l.timers[i+1:], l.timers[i:])
	l.timers[i] = t
	return t
}

func (t *labTimer) after(o *labTimer) bool {
	return t.at.After(o.at) || (t.at.Equal(o.at) && t.seq > o.seq)
}

// Stop cancels the timer.
func (t *labTimer) Stop() bool {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	for i, x := range l.timers {
		if x == t {
			l.timers = append(l.timers[:i], l.timers[i+1:]...)
			break
		}
	}
	return true
}

// Next reports when the next timer is due.
func (l *Lab) Next() (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.timers) == 0 {
		return time.Time{}, false
	}
	return l.timers[0].at, true
}

// Fired counts the timers that ran so far.
func (l *Lab) Fired() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fired
}

// Settle waits, bounded by SettleTimeout of wall time, until every gate
// has caught up with the current instant. The bound stretches by the
// scheduling delay measured while it waits (WithStretchTimeout): on an
// overloaded machine a page that is slow to acknowledge because it was
// not scheduled gets the time it lost, instead of failing the step.
func (l *Lab) Settle(ctx context.Context) error {
	l.mu.Lock()
	gates := append([]Gate(nil), l.gates...)
	err := l.err
	l.mu.Unlock()
	if err != nil {
		return err
	}
	if len(gates) == 0 {
		return ctx.Err()
	}
	limit := l.SettleTimeout
	if limit <= 0 {
		limit = DefaultSettleTimeout
	}
	sctx, cancel := WithStretchTimeout(ctx, limit)
	defer cancel()
	for _, g := range gates {
		if err := g.Settle(sctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				lag, _ := StretchedBy(sctx)
				return fmt.Errorf("%w in %v of wall time (and %v of scheduling delay measured meanwhile): %w", ErrSettle, limit, lag.Round(time.Millisecond), err)
			}
			return err
		}
	}
	return nil
}

// Sleep settles, moves the lab to the next timer's instant (its own or a
// Scheduler gate's) or to now+d, whichever is first, runs every timer due at that instant (and any they
// schedule for it), and settles again. It returns early, at the first
// instant that had a timer, so a waiting reader looks at the page right
// after each transition; it never waits in wall time except for the gates.
func (l *Lab) Sleep(ctx context.Context, d time.Duration) error {
	if err := l.Settle(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	target := l.now.Add(max(d, 0))
	if len(l.timers) > 0 && !l.timers[0].at.After(target) {
		target = l.timers[0].at
	}
	gates, now := append([]Gate(nil), l.gates...), l.now
	l.mu.Unlock()
	for _, g := range gates {
		if s, ok := g.(Scheduler); ok {
			// a due instant not after now was run by the Settle above
			if at, ok := s.Due(); ok && at.After(now) && at.Before(target) {
				target = at
			}
		}
	}
	l.mu.Lock()
	if target.After(l.now) {
		l.now = target
	}
	l.mu.Unlock()
	l.fireDue()
	return l.Settle(ctx)
}

// fireDue runs the timers due at or before now, one at a time, without
// holding the lock while f runs.
func (l *Lab) fireDue() {
	for range TimersMax {
		l.mu.Lock()
		if len(l.timers) == 0 || l.timers[0].at.After(l.now) {
			l.mu.Unlock()
			return
		}
		t := l.timers[0]
		l.timers = l.timers[1:]
		t.done = true
		l.fired++
		l.mu.Unlock()
		t.f()
	}
}
