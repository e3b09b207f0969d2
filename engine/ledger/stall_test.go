package ledger_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/ledger"
	"github.com/replaylab/replaylab/engine/ledger/ledgertest"
)

// TestStalledStoreAnswersBusy (LED-16): while another connection holds the
// write lock (ledger.LockWrites), reads answer at once and a write answers
// STORE_BUSY within Limits.StoreWaitMax, on both stores; afterwards writes
// work again.
func TestStalledStoreAnswersBusy(t *testing.T) {
	eachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		store := openStore(t, dsn)
		defer store.Close()
		l := ledger.DefaultLimits
		l.StoreWaitMax = time.Second
		svc := ledger.New(store, ledger.WithLimits(l))
		j, _, err := svc.Create(ctx, ledgertest.Alice, "a", json.RawMessage(`{"a":1}`), "")
		if err != nil {
			t.Fatal(err)
		}
		release, err := ledger.LockWrites(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := svc.Get(ctx, ledgertest.Alice, j.ID); err != nil {
			t.Fatal(err)
		}
		t.Logf("get %s", time.Since(start))
		start = time.Now()
		_, _, err = svc.Create(ctx, ledgertest.Alice, "b", json.RawMessage(`{"a":2}`), "")
		t.Logf("create while locked: %v after %s", err, time.Since(start))
		if ledger.ProblemCode(err) != ledger.CodeBusy || time.Since(start) > 3*time.Second {
			t.Errorf("create while locked: %v after %s, want STORE_BUSY within about 1 s", err, time.Since(start))
		}
		start = time.Now()
		if err := release(); err != nil {
			t.Fatal(err)
		}
		t.Logf("release %s", time.Since(start))
		if _, _, err := svc.Create(ctx, ledgertest.Alice, "b", json.RawMessage(`{"a":2}`), ""); err != nil {
			t.Fatal(err)
		}
	})
}
