-- ledger schema v2: each attempt's own callback credential (LED-11).
ALTER TABLE attempts ADD COLUMN callback_secret TEXT NOT NULL DEFAULT '';
