package testskip

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestPrint(t *testing.T) {
	Record("SKIPPING browser tests: no Chromium")
	Record("PostgreSQL suite: REPLAYLAB_PG_URL is not set")
	Record("SKIPPING browser tests: no Chromium") // once
	var b bytes.Buffer
	Print(&b)
	want := "SKIPPING PostgreSQL suite: REPLAYLAB_PG_URL is not set\nSKIPPING browser tests: no Chromium\n"
	if got := b.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !strings.HasPrefix(b.String(), "SKIPPING") {
		t.Fatal("no SKIPPING prefix")
	}
}

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestChildSkips skips when run as the child of TestMainPrintsSkips.
func TestChildSkips(t *testing.T) {
	if os.Getenv("TESTSKIP_CHILD") != "1" {
		return
	}
	Skip(t, "SKIPPING child tests: nothing installed")
}

// TestMainPrintsSkips runs this test binary again with a test that skips:
// Main prints its message although the run passes and is not -v.
func TestMainPrintsSkips(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSkips$")
	cmd.Env = append(os.Environ(), "TESTSKIP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SKIPPING child tests: nothing installed\n") {
		t.Fatalf("the child printed no skip:\n%s", out)
	}
}
