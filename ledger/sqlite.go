package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// SQLite pool and lock settings (written into the DSN, never set by Exec,
// so every pooled connection gets them).
const (
	SQLiteBusyTimeoutMillis = 5000
	// SQLiteConnsMax bounds the connections of the writing pool. SQLite
	// lets one writer in at a time; a second connection of this process
	// would only wait for the lock in SQLite's busy handler, which sleeps
	// up to 100 ms between looks, so a queue of writers left the lock idle
	// and went past Limits.StoreWaitMax on a loaded machine. With one, the
	// pool hands the connection to the next writer as soon as it is free;
	// the busy handler is left to writers of other processes.
	SQLiteConnsMax = 1
	// SQLiteReadConnsMax bounds the connections of the read pool (View).
	SQLiteReadConnsMax = 4
)

// sqliteStore has two pools on one file: db for writing transactions
// (BEGIN IMMEDIATE: they take the write lock first, so two never deadlock
// upgrading), and read for View (plain deferred BEGIN on query-only
// connections: in WAL mode they read a consistent snapshot while any
// writer, of this process or another, holds the write lock).
type sqliteStore struct {
	db   *sql.DB
	read *sql.DB
}

var sqliteDialect = &dialect{
	name:     "sqlite",
	timeArg:  func(t time.Time) any { return t.UTC().Format(time.RFC3339Nano) },
	classify: classifySQLite,
}

// SQLite primary result codes used here.
const (
	sqliteBusy       = 5
	sqliteLocked     = 6
	sqliteConstraint = 19
)

func classifySQLite(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteBusy, sqliteLocked:
			return fmt.Errorf("%w: %w", ErrRetry, err)
		case sqliteConstraint:
			if strings.Contains(se.Error(), "UNIQUE") || strings.Contains(se.Error(), "PRIMARY KEY") {
				return fmt.Errorf("%w: %w", ErrDuplicate, err)
			}
		}
	}
	return err
}

// SQLiteDSN builds the modernc.org/sqlite DSN for a database file: busy
// timeout, WAL journal, foreign keys and BEGIN IMMEDIATE transactions.
func SQLiteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", SQLiteBusyTimeoutMillis))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// sqliteReadDSN is the DSN of the read pool: deferred transactions on
// query-only connections.
func sqliteReadDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", SQLiteBusyTimeoutMillis))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "query_only(1)")
	return "file:" + path + "?" + q.Encode()
}

// OpenSQLite opens (creating if needed) the SQLite ledger at path with the
// pure-Go driver and applies the embedded migrations.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" {
		return nil, errors.New("ledger: sqlite: empty path")
	}
	db, err := sql.Open("sqlite", SQLiteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("ledger: sqlite open %s: %w", path, err)
	}
	db.SetMaxOpenConns(SQLiteConnsMax)
	db.SetMaxIdleConns(SQLiteConnsMax)
	s := &sqliteStore{db: db}
	err = s.Tx(ctx, func(t Tx) error {
		return migrate(ctx, t.(*sqlTx), "sqlite", time.Now())
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("ledger: sqlite %s: %w", path, err)
	}
	read, err := sql.Open("sqlite", sqliteReadDSN(path))
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("ledger: sqlite open %s for reading: %w", path, err)
	}
	read.SetMaxOpenConns(SQLiteReadConnsMax)
	read.SetMaxIdleConns(SQLiteReadConnsMax)
	s.read = read
	return s, nil
}

func (s *sqliteStore) Backend() string { return "sqlite" }

func (s *sqliteStore) Close() error { return errors.Join(s.read.Close(), s.db.Close()) }

func (s *sqliteStore) View(ctx context.Context, fn func(Tx) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // plain BEGIN: deferred
	if err != nil {
		return fmt.Errorf("ledger: sqlite begin read: %w", classifySQLite(err))
	}
	defer func() { _ = tx.Rollback() }()
	return fn(&sqlTx{q: sqliteQ{tx}, d: sqliteDialect})
}

func (s *sqliteStore) Exec(ctx context.Context, query string) (int64, error) {
	res, err := s.db.ExecContext(ctx, query)
	if err != nil {
		return 0, classifySQLite(err)
	}
	return res.RowsAffected()
}

func (s *sqliteStore) Tx(ctx context.Context, fn func(Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE via _txlock
	if err != nil {
		return fmt.Errorf("ledger: sqlite begin: %w", classifySQLite(err))
	}
	if err := fn(&sqlTx{q: sqliteQ{tx}, d: sqliteDialect}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		// SQLite usually leaves nothing behind when COMMIT fails, but an
		// error here does not prove it (I/O error after the WAL write):
		// let the caller re-read.
		return fmt.Errorf("%w: sqlite: %w", ErrCommitUncertain, err)
	}
	return nil
}

type sqliteQ struct{ tx *sql.Tx }

func (q sqliteQ) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqliteQ) query(ctx context.Context, query string, args ...any) (rowsIter, error) {
	r, err := q.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}
