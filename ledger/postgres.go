package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// PostgresConnsMax bounds the connections a PostgreSQL store opens for
// writing transactions (Tx, Exec).
const PostgresConnsMax = 8

// PostgresReadConnsMax bounds the connections of the read pool (View).
const PostgresReadConnsMax = 4

// PostgresConnectTimeout bounds one connection attempt when the URL sets
// no connect_timeout.
const PostgresConnectTimeout = 2 * time.Second

// PostgresCancelWait bounds how long a statement whose context ended
// (a writer that waited out its StoreWaitMax on a lock) waits for the
// server to confirm its cancel request. The statement ends with
// query_canceled and its connection stays in the pool; past this wait the
// connection is closed, as pgx closes it by default. A pool that lost its
// connection made the next write pay for a new one (a backend to start, a
// password exchange) inside its own StoreWaitMax: on a loaded machine
// more than a second, so a write right after a lock was released
// answered STORE_BUSY (LED-16).
const PostgresCancelWait = 2 * time.Second

// cancelOnContextEnd makes a statement whose context ends send the server
// a cancel request instead of closing its connection.
func cancelOnContextEnd(c *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: PostgresCancelWait}
}

// pgStore keeps two small bounded pools of *pgx.Conn, as the SQLite store
// keeps two pools (pgxpool would do, but it needs
// github.com/jackc/puddle/v2, which go.mod does not list; a pool is the
// few lines the ledger needs). Reads have a pool of their own, opened
// with one connection: a writer waiting on a lock holds a connection of
// the write pool until its deadline, and when reads took theirs from the
// same pool, a read found the pool full or its warm connection taken and
// paid for a new connection (a backend to start, a password exchange)
// within its StoreWaitMax — on a loaded machine more than a second, so a
// read answered STORE_BUSY while a writer waited (LED-16).
type pgStore struct {
	write *pgPool
	read  *pgPool
}

// pgPool is one bounded pool of connections.
type pgPool struct {
	cfg  *pgx.ConnConfig
	sem  chan struct{}
	mu   sync.Mutex
	idle []*pgx.Conn
	shut bool
}

func newPGPool(cfg *pgx.ConnConfig, n int) *pgPool {
	return &pgPool{cfg: cfg, sem: make(chan struct{}, n)}
}

var pgDialect = &dialect{
	name:      "postgres",
	dollar:    true,
	timeArg:   func(t time.Time) any { return t.UTC() },
	classify:  classifyPG,
	forUpdate: "FOR UPDATE",
}

func classifyPG(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return fmt.Errorf("%w: %w", ErrDuplicate, err)
		case pe.Code == "40001", pe.Code == "40P01": // serialization_failure, deadlock_detected
			return fmt.Errorf("%w: %w", ErrRetry, err)
		case pgUnavailable(pe.Code):
			return fmt.Errorf("%w: %w", ErrRetry, err)
		}
		return err
	}
	if pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", ErrRetry, err)
	}
	return err
}

// pgUnavailable reports SQLSTATEs that mean the server is going away,
// not there yet or out of room (LED-16): class 08 (connection exception),
// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
// 53300 too_many_connections, 57014 query_canceled (a statement timeout)
// and 55P03 lock_not_available. A statement that failed so committed
// nothing, so the transaction may run again.
func pgUnavailable(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300", "57014", "55P03":
		return true
	}
	return strings.HasPrefix(code, "08")
}

// connLost reports whether err, returned before COMMIT was sent, came
// from a connection that is gone: the transaction cannot have committed,
// so it may run again on another connection.
func connLost(c *pgx.Conn, err error) bool {
	if c.IsClosed() {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// A statement cancelled (57014) or refused a lock (55P03) leaves
		// its connection as it was.
		return pgUnavailable(pe.Code) && pe.Code != "57014" && pe.Code != "55P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// OpenPostgres connects to the PostgreSQL ledger at url (a postgres:// URL;
// extra query parameters such as search_path become session settings) and
// applies the embedded migrations under an advisory lock.
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("ledger: postgres config: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = PostgresConnectTimeout
	}
	cfg.BuildContextWatcherHandler = cancelOnContextEnd
	s := &pgStore{write: newPGPool(cfg, PostgresConnsMax), read: newPGPool(cfg, PostgresReadConnsMax)}
	err = s.Tx(ctx, func(t Tx) error {
		st := t.(*sqlTx)
		if _, err := st.exec(ctx, `SELECT pg_advisory_xact_lock(7271001)`); err != nil {
			return err
		}
		return migrate(ctx, st, "postgres", time.Now())
	})
	if err == nil {
		// Open the read pool's first connection now, so that the first
		// read does not pay for it.
		err = s.View(ctx, func(t Tx) error {
			_, e := t.(*sqlTx).exec(ctx, `SELECT 1`)
			return e
		})
	}
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("ledger: postgres: %w", err)
	}
	return s, nil
}

func (s *pgStore) Backend() string { return "postgres" }

func (p *pgPool) acquire(ctx context.Context) (*pgx.Conn, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	if p.shut {
		p.mu.Unlock()
		<-p.sem
		return nil, errors.New("ledger: postgres store is closed")
	}
	for len(p.idle) > 0 {
		n := len(p.idle)
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		if c.IsClosed() {
			continue
		}
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		<-p.sem
		return nil, fmt.Errorf("%w: connect: %w", ErrRetry, err)
	}
	return c, nil
}

func (p *pgPool) release(c *pgx.Conn) {
	defer func() { <-p.sem }()
	p.mu.Lock()
	if p.shut || c.IsClosed() || c.PgConn().TxStatus() != 'I' {
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = c.Close(ctx)
		return
	}
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

// dropIdle closes every idle connection of the pool.
func (p *pgPool) dropIdle() {
	p.closeIdle(false, time.Second)
}

func (p *pgPool) closeIdle(shut bool, wait time.Duration) error {
	p.mu.Lock()
	if shut {
		p.shut = true
	}
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var first error
	for _, c := range idle {
		if err := c.Close(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// dropIdle closes every idle connection of both pools: after one
// connection was lost (a restart, an admin shutdown) the others are most
// likely gone too, and each would cost a failed run to find out.
func (s *pgStore) dropIdle() {
	s.write.dropIdle()
	s.read.dropIdle()
}

func (s *pgStore) Close() error {
	return errors.Join(s.write.closeIdle(true, 5*time.Second), s.read.closeIdle(true, 5*time.Second))
}

func (s *pgStore) Exec(ctx context.Context, query string) (int64, error) {
	c, err := s.write.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer s.write.release(c)
	tag, err := c.Exec(ctx, query)
	if err != nil {
		return 0, classifyPG(err)
	}
	return tag.RowsAffected(), nil
}

func (s *pgStore) Tx(ctx context.Context, fn func(Tx) error) error {
	c, err := s.write.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.write.release(c)
	tx, err := c.Begin(ctx)
	if err != nil {
		return s.lost(ctx, c, fmt.Errorf("ledger: postgres begin: %w", classifyPG(err)))
	}
	if err := fn(&sqlTx{q: pgQ{tx: tx, bound: ctx}, d: pgDialect}); err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = tx.Rollback(rctx)
		cancel()
		return s.lost(ctx, c, err)
	}
	if err := tx.Commit(ctx); err != nil {
		var pe *pgconn.PgError
		if pgconn.SafeToRetry(err) || (errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")) {
			return fmt.Errorf("%w: postgres commit: %w", ErrRetry, err)
		}
		if c.IsClosed() && ctx.Err() == nil {
			s.dropIdle()
		}
		return fmt.Errorf("%w: postgres: %w", ErrCommitUncertain, err)
	}
	return nil
}

// lost marks err, returned before COMMIT was sent, as safe to run again
// when its connection is gone, and drops the idle connections with it
// unless it was ctx that ended the connection: a connection whose
// statement outlives its context is closed when the server does not
// confirm the cancel within PostgresCancelWait, which says nothing about
// the others (a writer that waited out its deadline on a lock must not take
// the reads' warm connections with it).
func (s *pgStore) lost(ctx context.Context, c *pgx.Conn, err error) error {
	if !connLost(c, err) {
		return err
	}
	if ctx.Err() == nil {
		s.dropIdle()
	}
	if errors.Is(err, ErrRetry) {
		return err
	}
	return fmt.Errorf("%w: connection lost: %w", ErrRetry, err)
}

func (s *pgStore) View(ctx context.Context, fn func(Tx) error) error {
	c, err := s.read.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.read.release(c)
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return s.lost(ctx, c, fmt.Errorf("ledger: postgres begin read: %w", classifyPG(err)))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = tx.Rollback(rctx)
		cancel()
	}()
	if err := fn(&sqlTx{q: pgQ{tx: tx, bound: ctx}, d: pgDialect}); err != nil {
		return s.lost(ctx, c, err)
	}
	return nil
}

// pgQ runs the statements of one transaction. bound is the context the
// transaction was begun with: its deadline (the Service's StoreWaitMax)
// bounds every statement too, whatever context the statement was given,
// so a statement waiting on a lock or a stalled server ends in time.
type pgQ struct {
	tx    pgx.Tx
	bound context.Context
}

func (q pgQ) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if q.bound == nil {
		return ctx, func() {}
	}
	c, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(q.bound, cancel)
	return c, func() { stop(); cancel() }
}

func (q pgQ) exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx, cancel := q.ctx(ctx)
	defer cancel()
	tag, err := q.tx.Exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q pgQ) query(ctx context.Context, query string, args ...any) (rowsIter, error) {
	ctx, cancel := q.ctx(ctx)
	r, err := q.tx.Query(ctx, query, args...)
	if err != nil {
		cancel()
		return nil, err
	}
	return pgRows{r, cancel}, nil
}

// pgRows ends its statement's context when closed.
type pgRows struct {
	pgx.Rows
	cancel context.CancelFunc
}

func (r pgRows) Close() { r.Rows.Close(); r.cancel() }
