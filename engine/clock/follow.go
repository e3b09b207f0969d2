package clock

import (
	"context"
	"time"
)

// FollowWall moves the lab along with wall time until ctx ends: every
// tick it sleeps the lab (settling its gates, running the timers due) by
// as much wall time as has passed since it started, never ahead of it.
// It is for a live page driven by a process that keeps wall time — e.g.
// an engine in another process, whose waits cannot sleep on this lab — so
// the lab's scheduled transitions still happen, at their wall-time pace.
// A Sleep error (a gate that did not settle) ends the following and is
// returned; ctx ending returns nil.
func (l *Lab) FollowWall(ctx context.Context, tick time.Duration) error {
	if tick <= 0 {
		tick = 10 * time.Millisecond
	}
	start, lab0 := time.Now(), l.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		// catch up with the wall time of this tick: Sleep stops at each
		// timer's instant, so it takes as many calls as there are instants
		target := lab0.Add(time.Since(start))
		for now := l.Now(); now.Before(target) && ctx.Err() == nil; now = l.Now() {
			if err := l.Sleep(ctx, target.Sub(now)); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
	}
}
