package ledgertest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/replaylab/replaylab/ledger"
)

// QueryApp is the PostgreSQL application_name of Query's connections, so
// that WaitBackendsGone never waits for them.
const QueryApp = "replaylab-ledgertest"

// Query runs query on the database at dsn (a SQLite path or a
// postgres:// URL) on a connection of its own, outside any Store, and
// returns the first column of every row as text: what a crash test reads
// of what the processes it killed left.
func Query(t testing.TB, dsn, query string) []string {
	t.Helper()
	ctx := context.Background()
	if strings.HasPrefix(dsn, "postgres") {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = QueryApp
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		rows, err := c.Query(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		return texts(t, rows)
	}
	db, err := sql.Open("sqlite", ledger.SQLiteDSN(dsn))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	return texts(t, rows)
}

// rows are pgx's or database/sql's.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// texts is the first column of every row, as text.
func texts(t testing.TB, r rows) []string {
	t.Helper()
	var out []string
	for r.Next() {
		var v any
		if err := r.Scan(&v); err != nil {
			t.Fatal(err)
		}
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		out = append(out, fmt.Sprint(v))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Count is Query of a query that counts: its one number.
func Count(t testing.TB, dsn, query string) int {
	t.Helper()
	rows := Query(t, dsn, query)
	var n int
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want one count", query, len(rows))
	}
	if _, err := fmt.Sscan(rows[0], &n); err != nil {
		t.Fatalf("%s: %q is no count: %v", query, rows[0], err)
	}
	return n
}

// WaitBackendsGone waits, at most 10 s, until PostgreSQL has ended every
// backend of the application app, a process the test killed: a COMMIT it
// sent just before the kill may still be in progress, and a recovery must
// see its outcome (as a restarted process does once the old one's
// connections are gone). On SQLite it returns at once.
func WaitBackendsGone(t testing.TB, dsn, app string) {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres") {
		return
	}
	for range 200 {
		if Count(t, dsn, `SELECT count(*) FROM pg_stat_activity WHERE application_name = '`+app+`'`) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the killed process's PostgreSQL backends (%s) did not end in 10 s", app)
}

// WhileBusy runs op, and runs it again after Retry-After while it answers
// STORE_BUSY (the store did not answer within Limits.StoreWaitMax and
// applied nothing: LED-16), for at most a minute, as a caller would. A
// concurrency test on a loaded machine reaches StoreWaitMax; what it
// proves is the outcome of the race, which a busy answer does not change.
func WhileBusy(op func() error) error {
	for deadline := time.Now().Add(time.Minute); ; {
		err := op()
		if !errors.Is(err, ledger.CodeBusy) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(ledger.RetryAfterSeconds * time.Second)
	}
}
