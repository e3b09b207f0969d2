package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/clock"
)

func TestFollowWallRunsTimersNeverAhead(t *testing.T) {
	lab := clock.NewLab(clock.Epoch)
	fired := make(chan time.Time, 1)
	start := time.Now()
	lab.AfterFunc(50*time.Millisecond, func() { fired <- time.Now() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lab.FollowWall(ctx, 5*time.Millisecond) }()
	select {
	case at := <-fired:
		if wall := at.Sub(start); wall < 50*time.Millisecond {
			t.Errorf("the 50 ms timer fired after %v of wall time: the lab ran ahead", wall)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the lab following wall time never ran its 50 ms timer")
	}
	if ahead := lab.Now().Sub(clock.Epoch) - time.Since(start); ahead > 0 {
		t.Errorf("the lab is %v ahead of wall time", ahead)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("FollowWall: %v", err)
	}
}
