package ledger_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/replaylab/replaylab/engine/ledger/ledgertest"

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

// freshSchema creates a schema with a random name, returns base with
// search_path set to it, and drops it when t ends.
func freshSchema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "ledgertest_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect %s: %v", base, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestPostgresStore(t *testing.T) {
	base := pgURL(t)
	ledgertest.Run(t, func(t testing.TB) string { return freshSchema(t, base) })
}
