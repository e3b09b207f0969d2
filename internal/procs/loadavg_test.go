package procs_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/procs"
)

func TestLoadAvg(t *testing.T) {
	t.Parallel()
	got := procs.LoadAvg()
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		if got != "unknown" {
			t.Fatalf("no /proc/loadavg, got %q, want unknown", got)
		}
		return
	}
	f := strings.Fields(got)
	if len(f) != 3 {
		t.Fatalf("got %q, want three load averages", got)
	}
	for _, v := range f {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Errorf("%q in %q is not a number", v, got)
		}
	}
}
