package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"
)

// TestPostgresWriterKeepsItsConnectionPastItsDeadline: a write that
// waited out its StoreWaitMax on a lock answers STORE_BUSY and leaves its
// connection in the pool, so the write after the lock was released uses
// it and opens none (LED-16). pgx used to close a connection whose
// statement outlived its context; the next write then paid for a new one
// (a backend to start, a password exchange) inside its own StoreWaitMax,
// which a loaded machine did not give it: STORE_BUSY right after the
// release (features/ledger_hardened.feature, the postgres row of "A store
// held by another writer"). The check is the server's list of backends,
// not a duration.
func TestPostgresWriterKeepsItsConnectionPastItsDeadline(t *testing.T) {
	base := pgURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app := fmt.Sprintf("ledgertest_cancel_%d", time.Now().UnixNano())
	schema := freshSchema(t, base)
	store, err := ledger.Open(ctx, withParam(t, schema, "application_name", app))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := ledger.DefaultLimits
	l.StoreWaitMax = 300 * time.Millisecond
	svc := ledger.New(store, ledger.WithLimits(l))
	if _, _, err := svc.Create(ctx, ledgertest.Alice, "k-before", json.RawMessage(`{"p":0}`), ""); err != nil {
		t.Fatal(err)
	}
	mon, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close(context.WithoutCancel(ctx))
	before := pids(ctx, t, mon, app)

	release, err := ledger.LockWrites(ctx, withParam(t, schema, "application_name", app+"_lock"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Create(ctx, ledgertest.Alice, "k-during", json.RawMessage(`{"p":1}`), "")
	if ledger.ProblemCode(err) != ledger.CodeBusy {
		_ = release()
		t.Fatalf("write while locked: %v, want STORE_BUSY", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	unbounded := l
	unbounded.StoreWaitMax = 0 // what it opens is the check, not how long it took
	if _, _, err := ledger.New(store, ledger.WithLimits(unbounded)).Create(ctx, ledgertest.Alice, "k-after", json.RawMessage(`{"p":2}`), ""); err != nil {
		t.Fatalf("write after the release: %v", err)
	}
	after := pids(ctx, t, mon, app)
	for pid := range after {
		if !before[pid] {
			t.Errorf("the write after the release opened a connection (backend %d; before: %v): the busy write's connection was closed", pid, before)
		}
	}
	for pid := range before {
		if !after[pid] {
			t.Errorf("backend %d of the store is gone after a write waited out its deadline", pid)
		}
	}
}
