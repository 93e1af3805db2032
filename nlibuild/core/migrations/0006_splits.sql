-- Schema 6: train/dev/test splits.
-- Train/dev/test: one split per pair (pairs left out of every split have no row).
CREATE TABLE splits (
    pair_pk INTEGER PRIMARY KEY REFERENCES pairs(pk),
    split   TEXT NOT NULL CHECK (split IN ('train', 'dev', 'test')),
    run_id  INTEGER NOT NULL REFERENCES runs(id)
);
