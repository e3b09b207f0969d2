package ledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// FreshSchema creates a schema named prefix and twelve random hex digits
// on the PostgreSQL server at base and returns base with search_path set
// to it, so a store opened there starts empty and keeps its tables apart,
// and a function that drops the schema with everything in it. The tests,
// the steps and the explorer give each run a database of its own with it.
func FreshSchema(ctx context.Context, base, prefix string) (dsn string, drop func(context.Context) error, err error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("ledger: PostgreSQL URL: %w", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := prefix + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("ledger: connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, fmt.Errorf("ledger: create schema %s: %w", schema, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	drop = func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return fmt.Errorf("ledger: drop schema %s: %w", schema, err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			return fmt.Errorf("ledger: drop schema %s: %w", schema, err)
		}
		return nil
	}
	return u.String(), drop, nil
}
