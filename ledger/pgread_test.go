package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"
)

// TestPostgresReadsApartFromWriters: while another connection holds the
// write lock and writers of this process wait on it, a read answers
// without waiting for them and without opening a connection (LED-16).
// Reads used to share the writers' pool: a waiting writer took the warm
// connection (the read paid for a new one inside its StoreWaitMax, which a
// loaded machine did not give it: STORE_BUSY on a read) or every slot (the
// read waited for the writers). And a writer that waited out its own
// deadline closed every idle connection, the reads' too. No verdict here
// depends on a wall-clock margin: writers wait without a deadline unless
// the row gives them one, and the read is checked against the writers'
// state and the server's count of connections, not a duration.
func TestPostgresReadsApartFromWriters(t *testing.T) {
	base := pgURL(t)
	cases := []struct {
		name    string
		writers int
		// writerWait is the writers' StoreWaitMax; 0 waits until the
		// lock is released. With one, the read starts once every writer
		// has answered STORE_BUSY.
		writerWait time.Duration
	}{
		{name: "one writer waiting holds the only write connection", writers: 1},
		{name: "writers waiting fill the write pool", writers: ledger.PostgresConnsMax},
		{name: "a writer that waited out its deadline keeps the reads' connection", writers: 1, writerWait: 200 * time.Millisecond},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			app := fmt.Sprintf("ledgertest_reads_%d_%d", time.Now().UnixNano(), i)
			dsn := withParam(t, freshSchema(t, base), "application_name", app)
			store, err := ledger.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			unbounded := ledger.DefaultLimits
			unbounded.StoreWaitMax = 0
			reader := ledger.New(store, ledger.WithLimits(unbounded))
			j, _, err := reader.Create(ctx, ledgertest.Alice, "k-before", json.RawMessage(`{"p":0}`), "")
			if err != nil {
				t.Fatal(err)
			}
			mon, err := pgx.Connect(ctx, base)
			if err != nil {
				t.Fatal(err)
			}
			defer mon.Close(context.WithoutCancel(ctx))

			release, err := ledger.LockWrites(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			released := false
			defer func() {
				if !released {
					_ = release()
				}
			}()
			wl := ledger.DefaultLimits
			wl.StoreWaitMax = tc.writerWait
			writer := ledger.New(store, ledger.WithLimits(wl))
			var answered atomic.Int64
			errs := make(chan error, tc.writers)
			for w := range tc.writers {
				go func() {
					_, _, err := writer.Create(ctx, ledgertest.Alice, fmt.Sprintf("k-during-%d", w), json.RawMessage(fmt.Sprintf(`{"p":%d}`, w+1)), "")
					answered.Add(1)
					errs <- err
				}()
			}
			if tc.writerWait > 0 {
				for range tc.writers {
					if err := <-errs; ledger.ProblemCode(err) != ledger.CodeBusy {
						t.Fatalf("writer with a deadline while locked: %v, want STORE_BUSY", err)
					}
				}
			} else {
				// The server says when every writer waits on the lock.
				waitFor(ctx, t, mon, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
					WHERE NOT l.granted AND a.application_name = $1`, app, tc.writers)
			}
			before := pids(ctx, t, mon, app)

			got, err := reader.Get(ctx, ledgertest.Alice, j.ID)
			if err != nil {
				t.Fatalf("read while %d writers wait on the lock: %v, want the job", tc.writers, err)
			}
			if got.ID != j.ID {
				t.Fatalf("read %s, want %s", got.ID, j.ID)
			}
			if tc.writerWait == 0 {
				if n := answered.Load(); n != 0 {
					t.Fatalf("%d writers answered before the lock was released, want the read to answer while all %d wait", n, tc.writers)
				}
			}
			for pid := range pids(ctx, t, mon, app) {
				if !before[pid] {
					t.Fatalf("the read opened a connection (backend %d): want the read pool's warm one", pid)
				}
			}

			released = true
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if tc.writerWait == 0 {
				for range tc.writers {
					if err := <-errs; err != nil {
						t.Fatalf("writer after the lock was released: %v", err)
					}
				}
			}
		})
	}
}

func withParam(t *testing.T, dsn, k, v string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

func count(ctx context.Context, t *testing.T, c *pgx.Conn, q string, arg any) int {
	t.Helper()
	var n int
	if err := c.QueryRow(ctx, q, arg).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pids are the server's backends of the application: a new one is a new
// connection.
func pids(ctx context.Context, t *testing.T, c *pgx.Conn, app string) map[int32]bool {
	t.Helper()
	rows, err := c.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	m := map[int32]bool{}
	for _, p := range got {
		m[p] = true
	}
	return m
}

// waitFor asks the server until q counts want; the server's own state, not
// a sleep, says when the test goes on. It polls (another process: no
// event to wait on), bounded by ctx.
func waitFor(ctx context.Context, t *testing.T, c *pgx.Conn, q string, arg any, want int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if n := count(ctx, t, c, q, arg); n == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %d from %q: %v", want, q, errors.Join(ctx.Err(), context.Cause(ctx)))
		case <-tick.C:
		}
	}
}
