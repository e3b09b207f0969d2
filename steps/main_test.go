package steps

import (
	"fmt"
	"os"
	"testing"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/testskip"
)

// The scenarios of features/ run in internal/selftest, which binds the
// self-tests' groups this vocabulary lacks.

func TestCatalogue(t *testing.T) {
	if err := CheckCatalogue(); err != nil {
		t.Fatal(err)
	}
	if len(Catalogue()) == 0 {
		t.Fatal("empty catalogue")
	}
}

// TestMain checks that no browser process or temp dir outlives the tests.
func TestMain(m *testing.M) {
	code := testskip.Main(m)
	if leaks := browser.Leaks(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "LEAK: browsers started by these tests left behind: %v\n", leaks)
		code = 1
	}
	os.Exit(code)
}
