package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sqlTx implements Tx once for both backends over a tiny querier; the two
// stores differ only in their driver, placeholders, time encoding and error
// classification (the dialect). No business rule lives here.
type sqlTx struct {
	q querier
	d *dialect
}

type querier interface {
	exec(ctx context.Context, query string, args ...any) (int64, error)
	query(ctx context.Context, query string, args ...any) (rowsIter, error)
}

type rowsIter interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type dialect struct {
	name     string
	dollar   bool                  // $1, $2 placeholders instead of ?
	timeArg  func(time.Time) any   // how a time is bound
	classify func(err error) error // wraps ErrDuplicate / ErrRetry where they apply
	// forUpdate is the row-lock clause of LockJob ("" when the
	// transaction already holds the database's write lock).
	forUpdate string
}

func (d *dialect) bind(q string) string {
	if !d.dollar {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (t *sqlTx) exec(ctx context.Context, q string, args ...any) (int64, error) {
	n, err := t.q.exec(ctx, t.d.bind(q), args...)
	if err != nil {
		return 0, t.d.classify(err)
	}
	return n, nil
}

func (t *sqlTx) query(ctx context.Context, q string, args ...any) (rowsIter, error) {
	r, err := t.q.query(ctx, t.d.bind(q), args...)
	if err != nil {
		return nil, t.d.classify(err)
	}
	return r, nil
}

// dbTime scans a time stored as TEXT (SQLite) or TIMESTAMPTZ (PostgreSQL).
type dbTime struct{ t *time.Time }

func (d dbTime) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d.t = v.UTC()
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	case nil:
		*d.t = time.Time{}
	default:
		return fmt.Errorf("ledger: cannot scan %T into a time", src)
	}
	return nil
}

func (d dbTime) parse(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("ledger: bad stored time %q: %w", s, err)
	}
	*d.t = t.UTC()
	return nil
}

const jobCols = `id, owner, idem_key, input, input_digest, state, version, winning_attempt_id, fallback_enabled, created_at, updated_at`

func scanJob(r rowsIter) (Job, error) {
	var j Job
	var input string
	err := r.Scan(&j.ID, &j.Owner, &j.IdempotencyKey, &input, &j.InputDigest, &j.State, &j.Version,
		&j.WinningAttemptID, &j.FallbackEnabled, dbTime{&j.CreatedAt}, dbTime{&j.UpdatedAt})
	j.Input = []byte(input)
	return j, err
}

func (t *sqlTx) oneJob(ctx context.Context, where string, args ...any) (Job, error) {
	r, err := t.query(ctx, `SELECT `+jobCols+` FROM jobs WHERE `+where, args...)
	if err != nil {
		return Job{}, err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return Job{}, t.d.classify(err)
		}
		return Job{}, ErrNoRow
	}
	j, err := scanJob(r)
	if err != nil {
		return Job{}, t.d.classify(err)
	}
	return j, nil
}

func (t *sqlTx) InsertJob(ctx context.Context, j Job) error {
	_, err := t.exec(ctx, `INSERT INTO jobs (`+jobCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		j.ID, j.Owner, j.IdempotencyKey, string(j.Input), j.InputDigest, string(j.State), j.Version,
		j.WinningAttemptID, j.FallbackEnabled, t.d.timeArg(j.CreatedAt), t.d.timeArg(j.UpdatedAt))
	return err
}

func (t *sqlTx) Job(ctx context.Context, id string) (Job, error) {
	return t.oneJob(ctx, `id = ?`, id)
}

func (t *sqlTx) LockJob(ctx context.Context, id string) (Job, error) {
	if t.d.forUpdate == "" {
		return t.oneJob(ctx, `id = ?`, id)
	}
	return t.oneJob(ctx, `id = ? `+t.d.forUpdate, id)
}

func (t *sqlTx) JobByKey(ctx context.Context, owner, key string) (Job, error) {
	return t.oneJob(ctx, `owner = ? AND idem_key = ?`, owner, key)
}

func (t *sqlTx) UpdateJob(ctx context.Context, j Job, fromVersion int) (bool, error) {
	n, err := t.exec(ctx, `UPDATE jobs SET state = ?, fallback_enabled = ?, updated_at = ?, version = version + 1
		WHERE id = ? AND version = ?`,
		string(j.State), j.FallbackEnabled, t.d.timeArg(j.UpdatedAt), j.ID, fromVersion)
	return n == 1, err
}

func (t *sqlTx) ClaimWinner(ctx context.Context, jobID, attemptID string, fromVersion int, at time.Time) (bool, error) {
	n, err := t.exec(ctx, `UPDATE jobs SET winning_attempt_id = ?, state = 'completed', version = version + 1, updated_at = ?
		WHERE id = ? AND version = ?`,
		attemptID, t.d.timeArg(at), jobID, fromVersion)
	return n == 1, err
}

const attemptCols = `id, job_id, number, provider, state, supersede_reason, reviewer, callback_status,
	output, output_bytes, output_truncated, output_sha256, applied, callback_secret, created_at, updated_at`

func scanAttempt(r rowsIter) (Attempt, error) {
	var a Attempt
	err := r.Scan(&a.ID, &a.JobID, &a.Number, &a.Provider, &a.State, &a.SupersedeReason, &a.Reviewer,
		&a.CallbackStatus, &a.Output, &a.OutputBytes, &a.OutputTruncated, &a.OutputSHA256, &a.Applied, &a.CallbackSecret,
		dbTime{&a.CreatedAt}, dbTime{&a.UpdatedAt})
	return a, err
}

func (t *sqlTx) attempts(ctx context.Context, where string, args ...any) ([]Attempt, error) {
	r, err := t.query(ctx, `SELECT `+attemptCols+` FROM attempts WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Attempt
	for r.Next() {
		a, err := scanAttempt(r)
		if err != nil {
			return nil, t.d.classify(err)
		}
		out = append(out, a)
	}
	return out, t.d.classifyNil(r.Err())
}

func (t *sqlTx) InsertAttempt(ctx context.Context, a Attempt) error {
	_, err := t.exec(ctx, `INSERT INTO attempts (`+attemptCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		a.ID, a.JobID, a.Number, a.Provider, string(a.State), a.SupersedeReason, a.Reviewer, a.CallbackStatus,
		a.Output, a.OutputBytes, a.OutputTruncated, a.OutputSHA256, a.Applied, a.CallbackSecret,
		t.d.timeArg(a.CreatedAt), t.d.timeArg(a.UpdatedAt))
	return err
}

func (t *sqlTx) Attempt(ctx context.Context, id string) (Attempt, error) {
	as, err := t.attempts(ctx, `id = ?`, id)
	if err != nil {
		return Attempt{}, err
	}
	if len(as) == 0 {
		return Attempt{}, ErrNoRow
	}
	return as[0], nil
}

func (t *sqlTx) Attempts(ctx context.Context, jobID string) ([]Attempt, error) {
	return t.attempts(ctx, `job_id = ? ORDER BY number`, jobID)
}

func (t *sqlTx) UncertainAttempts(ctx context.Context, afterID string, limit int) ([]Attempt, error) {
	return t.attempts(ctx, `state = 'starting' AND id > ?
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.job_id = attempts.job_id AND e.attempt_id = attempts.id AND e.kind = 'attempt_sent')
		ORDER BY id LIMIT ?`, afterID, limit)
}

func (t *sqlTx) OpenAttempts(ctx context.Context, afterID string, limit int) ([]Attempt, error) {
	return t.attempts(ctx, `state IN ('starting', 'unknown') AND id > ?
		AND job_id IN (SELECT id FROM jobs WHERE state NOT IN ('completed', 'cancelled'))
		ORDER BY id LIMIT ?`, afterID, limit)
}

func (t *sqlTx) UpdateAttempt(ctx context.Context, a Attempt, fromState AttemptState, fromCallback string) (bool, error) {
	n, err := t.exec(ctx, `UPDATE attempts SET state = ?, supersede_reason = ?, reviewer = ?, callback_status = ?,
		output = ?, output_bytes = ?, output_truncated = ?, output_sha256 = ?, applied = ?, updated_at = ?
		WHERE id = ? AND state = ? AND callback_status = ?`,
		string(a.State), a.SupersedeReason, a.Reviewer, a.CallbackStatus,
		a.Output, a.OutputBytes, a.OutputTruncated, a.OutputSHA256, a.Applied, t.d.timeArg(a.UpdatedAt),
		a.ID, string(fromState), fromCallback)
	return n == 1, err
}

func (t *sqlTx) AppendEvent(ctx context.Context, e Event) error {
	_, err := t.exec(ctx, `INSERT INTO events (job_id, attempt_id, kind, from_state, to_state, detail, op_id, at)
		VALUES (?,?,?,?,?,?,?,?)`,
		e.JobID, e.AttemptID, e.Kind, e.From, e.To, e.Detail, e.OpID, t.d.timeArg(e.At))
	return err
}

func (t *sqlTx) Events(ctx context.Context, jobID string) ([]Event, error) {
	r, err := t.query(ctx, `SELECT seq, job_id, attempt_id, kind, from_state, to_state, detail, op_id, at
		FROM events WHERE job_id = ? ORDER BY seq`, jobID)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Event
	for r.Next() {
		var e Event
		if err := r.Scan(&e.Seq, &e.JobID, &e.AttemptID, &e.Kind, &e.From, &e.To, &e.Detail, &e.OpID, dbTime{&e.At}); err != nil {
			return nil, t.d.classify(err)
		}
		out = append(out, e)
	}
	return out, t.d.classifyNil(r.Err())
}

func (t *sqlTx) HasOp(ctx context.Context, opID string) (bool, error) {
	r, err := t.query(ctx, `SELECT 1 FROM events WHERE op_id = ? LIMIT 1`, opID)
	if err != nil {
		return false, err
	}
	defer r.Close()
	found := r.Next()
	return found, t.d.classifyNil(r.Err())
}

func (t *sqlTx) Setting(ctx context.Context, key string) (string, bool, error) {
	r, err := t.query(ctx, `SELECT value FROM settings WHERE key = ?`, key)
	if err != nil {
		return "", false, err
	}
	defer r.Close()
	if !r.Next() {
		return "", false, t.d.classifyNil(r.Err())
	}
	var v string
	if err := r.Scan(&v); err != nil {
		return "", false, t.d.classify(err)
	}
	return v, true, nil
}

func (t *sqlTx) PutSetting(ctx context.Context, key, value string, at time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?,?,?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, value, t.d.timeArg(at))
	return err
}

func (t *sqlTx) NextSequence(ctx context.Context, name string, at time.Time) (int64, error) {
	r, err := t.query(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, '1', ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(settings.value AS BIGINT) + 1 AS TEXT), updated_at = excluded.updated_at
		RETURNING value`, "seq:"+name, t.d.timeArg(at))
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return 0, t.d.classify(err)
		}
		return 0, fmt.Errorf("ledger: sequence %s: no row returned", name)
	}
	var v string
	if err := r.Scan(&v); err != nil {
		return 0, t.d.classify(err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ledger: sequence %s holds %q: %w", name, v, err)
	}
	return n, nil
}

func (t *sqlTx) KeyUsed(ctx context.Context, key string) (bool, error) {
	r, err := t.query(ctx, `SELECT 1 FROM jobs WHERE idem_key = ? LIMIT 1`, key)
	if err != nil {
		return false, err
	}
	defer r.Close()
	found := r.Next()
	return found, t.d.classifyNil(r.Err())
}

func (t *sqlTx) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	n, err := t.exec(ctx, `INSERT INTO leases (name, holder, expires_ns) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ns = excluded.expires_ns
		WHERE leases.holder = excluded.holder OR leases.expires_ns < ?`,
		name, holder, until.UnixNano(), now.UnixNano())
	return n == 1, err
}

func (d *dialect) classifyNil(err error) error {
	if err == nil {
		return nil
	}
	return d.classify(err)
}

// sqlRows adapts *sql.Rows to rowsIter.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }
