package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"
)

// TestStalledStoreAnswersBusy (LED-16): while another connection holds the
// write lock (ledger.LockWrites), reads answer at once and a write answers
// STORE_BUSY within Limits.StoreWaitMax, on both stores; afterwards writes
// work again. That the wait was bounded by StoreWaitMax is read from the
// answer (the deadline's STORE_BUSY names it), not from a stopwatch, so a
// loaded machine does not change the verdict; the times are logged.
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
		var le *ledger.Error
		if ledger.ProblemCode(err) != ledger.CodeBusy || !errors.As(err, &le) || !strings.Contains(le.Detail, "did not answer within 1s") {
			t.Errorf("create while locked: %v, want the STORE_BUSY of StoreWaitMax (the store did not answer within 1s)", err)
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
