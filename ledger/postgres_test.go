package ledger_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/replaylab/replaylab/ledger"
	"github.com/replaylab/replaylab/ledger/ledgertest"

	"github.com/replaylab/replaylab/internal/testskip"
)

// pgURL returns REPLAYLAB_PG_URL. Without it the test is skipped with a
// visible message, except in CI (CI=true), where PostgreSQL is required.
func pgURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("REPLAYLAB_PG_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("REPLAYLAB_PG_URL is not set; PostgreSQL is required in CI")
		}
		testskip.Skip(t, "SKIPPING PostgreSQL ledger suite: set REPLAYLAB_PG_URL=postgres://user:pass@host:5432/db?sslmode=disable to run it")
	}
	return u
}

// freshSchema is ledger.FreshSchema for a test: it fails t on an error
// and drops the schema when t ends.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	dsn, drop, err := ledger.FreshSchema(context.Background(), base, "ledgertest_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

func TestPostgresStore(t *testing.T) {
	base := pgURL(t)
	ledgertest.Run(t, func(t testing.TB) string { return freshSchema(t, base) })
}

func TestFreshSchema(t *testing.T) {
	base := pgURL(t)
	ctx := context.Background()
	dsn, drop, err := ledger.FreshSchema(ctx, base, "ledgertest_fresh_")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	if !strings.HasPrefix(schema, "ledgertest_fresh_") || len(schema) != len("ledgertest_fresh_")+12 {
		t.Fatalf("got search_path %q, want ledgertest_fresh_ and 12 hex digits", schema)
	}
	exists := func() bool {
		t.Helper()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	st, err := ledger.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatalf("schema %s: got missing after FreshSchema, want created", schema)
	}
	if err := drop(ctx); err != nil {
		t.Fatal(err)
	}
	if exists() {
		t.Fatalf("schema %s: got still there after drop, want dropped", schema)
	}
}

func TestFreshSchemaRefusesABadURL(t *testing.T) {
	_, _, err := ledger.FreshSchema(context.Background(), "postgres://%zz", "ledgertest_")
	if err == nil || !strings.HasPrefix(err.Error(), "ledger: PostgreSQL URL: ") {
		t.Fatalf("got %v, want a refused PostgreSQL URL", err)
	}
}
