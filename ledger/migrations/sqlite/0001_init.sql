-- ledger schema v1 (SQLite). Nothing is ever deleted: every table refuses DELETE.
CREATE TABLE jobs (
  id                 TEXT PRIMARY KEY,
  owner              TEXT NOT NULL,
  idem_key           TEXT NOT NULL,
  input              TEXT NOT NULL,
  input_digest       TEXT NOT NULL,
  state              TEXT NOT NULL CHECK (state IN ('accepted','running','needs_review','completed','cancelled')),
  version            INTEGER NOT NULL CHECK (version >= 1),
  winning_attempt_id TEXT NOT NULL DEFAULT '',
  fallback_enabled   INTEGER NOT NULL DEFAULT 1,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  UNIQUE (owner, idem_key)
);

CREATE TABLE attempts (
  id               TEXT PRIMARY KEY,
  job_id           TEXT NOT NULL REFERENCES jobs(id),
  number           INTEGER NOT NULL,
  provider         TEXT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('starting','unknown','failed','succeeded','superseded')),
  supersede_reason TEXT NOT NULL DEFAULT '',
  reviewer         TEXT NOT NULL DEFAULT '',
  callback_status  TEXT NOT NULL DEFAULT '',
  output           TEXT NOT NULL DEFAULT '',
  output_bytes     INTEGER NOT NULL DEFAULT 0,
  output_truncated INTEGER NOT NULL DEFAULT 0,
  output_sha256    TEXT NOT NULL DEFAULT '',
  applied          INTEGER NOT NULL DEFAULT 0,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (job_id, number)
);
CREATE INDEX attempts_job ON attempts(job_id, number);

CREATE TABLE events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id     TEXT NOT NULL,
  attempt_id TEXT NOT NULL DEFAULT '',
  kind       TEXT NOT NULL,
  from_state TEXT NOT NULL DEFAULT '',
  to_state   TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT '',
  op_id      TEXT NOT NULL DEFAULT '',
  at         TEXT NOT NULL
);
CREATE INDEX events_job ON events(job_id, seq);
CREATE INDEX events_op ON events(op_id);

CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TRIGGER jobs_no_delete BEFORE DELETE ON jobs
BEGIN SELECT RAISE(ABORT, 'ledger: rows in jobs are never deleted'); END;
CREATE TRIGGER attempts_no_delete BEFORE DELETE ON attempts
BEGIN SELECT RAISE(ABORT, 'ledger: rows in attempts are never deleted'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'ledger: rows in events are never deleted'); END;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'ledger: events are append-only'); END;
CREATE TRIGGER settings_no_delete BEFORE DELETE ON settings
BEGIN SELECT RAISE(ABORT, 'ledger: rows in settings are never deleted'); END;
