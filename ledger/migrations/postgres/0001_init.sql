-- ledger schema v1 (PostgreSQL). Nothing is ever deleted: every table refuses DELETE and TRUNCATE.
CREATE TABLE jobs (
  id                 TEXT PRIMARY KEY,
  owner              TEXT NOT NULL,
  idem_key           TEXT NOT NULL,
  input              TEXT NOT NULL,
  input_digest       TEXT NOT NULL,
  state              TEXT NOT NULL CHECK (state IN ('accepted','running','needs_review','completed','cancelled')),
  version            INTEGER NOT NULL CHECK (version >= 1),
  winning_attempt_id TEXT NOT NULL DEFAULT '',
  fallback_enabled   BOOLEAN NOT NULL DEFAULT TRUE,
  created_at         TIMESTAMPTZ NOT NULL,
  updated_at         TIMESTAMPTZ NOT NULL,
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
  output_truncated BOOLEAN NOT NULL DEFAULT FALSE,
  output_sha256    TEXT NOT NULL DEFAULT '',
  applied          BOOLEAN NOT NULL DEFAULT FALSE,
  created_at       TIMESTAMPTZ NOT NULL,
  updated_at       TIMESTAMPTZ NOT NULL,
  UNIQUE (job_id, number)
);
CREATE INDEX attempts_job ON attempts(job_id, number);

CREATE TABLE events (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id     TEXT NOT NULL,
  attempt_id TEXT NOT NULL DEFAULT '',
  kind       TEXT NOT NULL,
  from_state TEXT NOT NULL DEFAULT '',
  to_state   TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT '',
  op_id      TEXT NOT NULL DEFAULT '',
  at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_job ON events(job_id, seq);
CREATE INDEX events_op ON events(op_id);

CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

CREATE FUNCTION ledger_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger: rows in % are never deleted', TG_TABLE_NAME;
END
$$;
CREATE FUNCTION ledger_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger: % is append-only', TG_TABLE_NAME;
END
$$;

CREATE TRIGGER jobs_no_delete BEFORE DELETE OR TRUNCATE ON jobs FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_delete();
CREATE TRIGGER attempts_no_delete BEFORE DELETE OR TRUNCATE ON attempts FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_delete();
CREATE TRIGGER events_no_delete BEFORE DELETE OR TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_delete();
CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_update();
CREATE TRIGGER settings_no_delete BEFORE DELETE OR TRUNCATE ON settings FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_delete();
