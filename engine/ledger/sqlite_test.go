package ledger_test

import (
	"path/filepath"
	"testing"

	"github.com/replaylab/replaylab/engine/ledger/ledgertest"
)

func TestSQLiteStore(t *testing.T) {
	ledgertest.Run(t, func(t testing.TB) string {
		return filepath.Join(t.TempDir(), "ledger.db")
	})
}
