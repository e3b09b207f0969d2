-- ledger schema v3 (LED-14, LED-15): the sweeper's lease, and indexes for
-- the sweep over open attempts and for page keys.
CREATE TABLE leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_ns INTEGER NOT NULL
);
CREATE TRIGGER leases_no_delete BEFORE DELETE ON leases
BEGIN SELECT RAISE(ABORT, 'ledger: rows in leases are never deleted'); END;
CREATE INDEX attempts_state ON attempts(state, id);
CREATE INDEX jobs_key ON jobs(idem_key);
