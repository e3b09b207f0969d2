package ledger_test

import (
	"os"
	"testing"

	"github.com/replaylab/replaylab/internal/testskip"
)

// TestMain prints the skips of the tests when they end (see testskip), so
// a missing PostgreSQL is visible under plain go test ./... too.
func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }
