package clock

import (
	"context"
	"sync"
	"time"
)

// StretchTick is how often a stretched wait (WithStretchTimeout) measures
// how late its timer fired.
const StretchTick = 50 * time.Millisecond

// WithStretchTimeout is context.WithTimeout for a wait that belongs to
// the lab — the gates catching up, the simulated providers settling — and
// that a loaded machine should slow down, not fail. Its budget d counts
// only the wall time the process was scheduled to use: a timer of
// StretchTick measures, tick by tick, how late it fired, and that
// scheduling delay is added to the deadline. On a quiet machine the
// context ends after about d; on one where timers fire three times late,
// after about 3d. The context's Err is context.DeadlineExceeded once the
// budget is spent; StretchedBy reports the delay it added.
func WithStretchTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return WallStretcher.WithTimeout(parent, d)
}

// StretchedBy reports the scheduling delay a context of WithStretchTimeout
// added to its budget so far (false for any other context).
func StretchedBy(ctx context.Context) (time.Duration, bool) {
	c, ok := ctx.(*stretchCtx)
	if !ok {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lag, true
}

// A Stretcher is where a stretched wait reads time and waits: Now reads
// the time, After fires a timer of Tick. WallStretcher is the machine's
// own; a test of a lab wait gives the wait one whose timer fires late on
// demand, to be a loaded machine without spending wall time.
type Stretcher struct {
	Tick  time.Duration
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

// WallStretcher measures the machine's scheduling delay on its own timer
// (WithStretchTimeout).
var WallStretcher = Stretcher{Tick: StretchTick, Now: time.Now, After: time.After}

// WithTimeout is WithStretchTimeout on s's time and timer.
func (s Stretcher) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := &stretchCtx{parent: parent, done: make(chan struct{}), stop: make(chan struct{})}
	if err := parent.Err(); err != nil {
		c.end(err)
		return c, func() {}
	}
	go func() {
		left, prev := d, s.Now()
		for left > 0 {
			step := min(s.Tick, left)
			select {
			case <-parent.Done():
				c.end(parent.Err())
				return
			case <-c.stop:
				return
			case <-s.After(step):
			}
			now := s.Now()
			if late := now.Sub(prev) - step; late > 0 {
				c.mu.Lock()
				c.lag += late
				c.mu.Unlock()
			}
			left -= step
			prev = now
		}
		c.end(context.DeadlineExceeded)
	}()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			close(c.stop)
			c.end(context.Canceled)
		})
	}
}

// stretchCtx is a context of its own (not a wrapped cancel context), so
// that contexts derived from it see its Err, DeadlineExceeded included.
type stretchCtx struct {
	parent context.Context
	done   chan struct{}
	stop   chan struct{}
	mu     sync.Mutex
	err    error
	lag    time.Duration
}

func (c *stretchCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// Deadline is the parent's: a stretched deadline has no fixed instant.
func (c *stretchCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *stretchCtx) Done() <-chan struct{}       { return c.done }
func (c *stretchCtx) Value(key any) any           { return c.parent.Value(key) }

func (c *stretchCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
