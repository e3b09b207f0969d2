package testskip

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/internal/skipnote"
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

// needTB records what Need asked of its test.
type needTB struct {
	testing.TB
	fatal, skip string
}

func (n *needTB) Helper()                        {}
func (n *needTB) Fatalf(format string, a ...any) { n.fatal = fmt.Sprintf(format, a...) }
func (n *needTB) Skip(a ...any)                  { n.skip = fmt.Sprint(a...) }

func TestNeed(t *testing.T) {
	missing := errors.New("chromium not found")
	cases := []struct {
		name        string
		ci          string
		err         error
		fatal, skip string
	}{
		{name: "nothing missing", ci: "true"},
		{name: "missing outside CI skips", ci: "", err: missing, skip: "SKIPPING browser tests: chromium not found"},
		{name: "missing in CI fails", ci: "true", err: missing, fatal: "CI=true and chromium not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CI", c.ci)
			n := &needTB{}
			Need(n, "browser tests", c.err)
			if c.skip != "" {
				skipnote.Forget(c.skip) // not a skip of this run
			}
			if n.fatal != c.fatal || n.skip != c.skip {
				t.Errorf("fatal %q skip %q, want fatal %q skip %q", n.fatal, n.skip, c.fatal, c.skip)
			}
		})
	}
}
