package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// LockWrites takes the write lock of the ledger database at dsn on a
// connection of its own, as another process writing for a long time would
// hold it, and keeps it until release is called (LED-16: a stalled store).
// SQLite: BEGIN IMMEDIATE (readers go on, in WAL mode); PostgreSQL: LOCK
// TABLE jobs, attempts IN EXCLUSIVE MODE (reads go on, writes wait). It is
// an operator and test API for outage drills.
func LockWrites(ctx context.Context, dsn string) (release func() error, err error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("ledger: lock writes: %w", err)
		}
		tx, err := c.Begin(ctx)
		if err == nil {
			_, err = tx.Exec(ctx, `LOCK TABLE jobs, attempts IN EXCLUSIVE MODE`)
		}
		if err != nil {
			_ = c.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("ledger: lock writes: %w", err)
		}
		return func() error {
			rctx := context.WithoutCancel(ctx)
			return errors.Join(tx.Rollback(rctx), c.Close(rctx))
		}, nil
	}
	db, err := sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("ledger: lock writes: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("ledger: lock writes: %w", err)
	}
	return func() error {
		_, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return errors.Join(rerr, conn.Close(), db.Close())
	}, nil
}
