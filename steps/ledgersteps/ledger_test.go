package ledgersteps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/ledger/ledgerlab"
)

// TestLedgerStoresGiveOneTrace checks LED-10's promise that the ledger
// behaves the same on both stores: the golden traces of the SQLite and
// PostgreSQL runs of one scenario are identical.
func TestLedgerStoresGiveOneTrace(t *testing.T) {
	dir := filepath.Join("..", "..", "recordings", "golden", "ledger")
	read := func(name string) []trace.Event {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	sqlite := read("the-same-ledger-behaviour-stored-in-sqlite.golden")
	pg := read("the-same-ledger-behaviour-stored-in-postgres.golden")
	if len(sqlite) == 0 || string(trace.Format(sqlite)) != string(trace.Format(pg)) {
		t.Fatalf("postgres trace:\n%s\nsqlite trace:\n%s", trace.Format(pg), trace.Format(sqlite))
	}
}

// TestLedgerRecoveryStoresGiveOneTrace: LED-13's recovery scenario gives
// the same trace on SQLite and PostgreSQL.
func TestLedgerRecoveryStoresGiveOneTrace(t *testing.T) {
	dir := filepath.Join("..", "..", "recordings", "golden", "ledger-trust")
	var traces []string
	for _, store := range []string{"sqlite", "postgres"} {
		b, err := os.ReadFile(filepath.Join(dir, "work-lost-in-a-crash-is-re-sent-once-after-the-restart-stored-in-"+store+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, string(b))
	}
	if traces[0] == "" || traces[0] != traces[1] {
		t.Fatalf("sqlite trace:\n%s\npostgres trace:\n%s", traces[0], traces[1])
	}
}

func TestLedgerPrincipalToken(t *testing.T) {
	for _, tc := range []struct {
		name, actor, want string
		wantErr           bool
	}{
		{name: "owner", actor: "alice", want: "alice-token"},
		{name: "reviewer", actor: "rita", want: "rita-token"},
		{name: "unknown", actor: "mallory", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ledgerlab.Token(tc.actor)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("got %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
