package procs

import (
	"os"
	"testing"
)

// TestStatsHoldsThisProcess: Stats reads this very process with its
// parent and a command name.
func TestStatsHoldsThisProcess(t *testing.T) {
	t.Parallel()
	stats, err := Stats()
	if err != nil {
		t.Fatal(err)
	}
	me, ok := stats[os.Getpid()]
	if !ok {
		t.Fatalf("Stats has no line for this process (%d) among %d", os.Getpid(), len(stats))
	}
	if me.PPID != os.Getppid() || me.Comm == "" || me.User < 0 || me.Sys < 0 {
		t.Errorf("this process read as %+v, want parent %d and a command name", me, os.Getppid())
	}
}
