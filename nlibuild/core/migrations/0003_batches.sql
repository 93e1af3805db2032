-- Schema 3: elicitation and relabelling batches, their assignments and the violations found.
-- Elicitation (and later relabelling): batches of items, each sent to one annotator.
CREATE TABLE batches (
    pk           INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('elicit', 'relabel', 'translate')),
    protocol     TEXT,
    lang         TEXT NOT NULL,
    annotator_pk INTEGER NOT NULL REFERENCES annotators(pk),
    run_id       INTEGER NOT NULL REFERENCES runs(id)
);
-- An item is a premise ID (elicit) or a pair ID (relabel). `answer_key` is a hash of the
-- answer imported for it, so that importing the same answer again changes nothing and a
-- different second answer is caught.
CREATE TABLE assignments (
    batch_pk        INTEGER NOT NULL REFERENCES batches(pk),
    item_id         TEXT NOT NULL,
    position        INTEGER NOT NULL,
    status          TEXT NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'answered', 'unusable')),
    answer_key      TEXT,
    answered_run_id INTEGER REFERENCES runs(id),
    PRIMARY KEY (batch_pk, item_id)
) WITHOUT ROWID;
CREATE INDEX assignments_item ON assignments(item_id);
-- What the import checks found. Rows name items and pairs by their public IDs: a rejected
-- pair never enters `pairs`, yet its violation is kept. `kept` says whether the pair is in
-- the store (--on-violation flag) or was rejected.
CREATE TABLE violations (
    pk           INTEGER PRIMARY KEY,
    batch_pk     INTEGER REFERENCES batches(pk),
    annotator_pk INTEGER REFERENCES annotators(pk),
    item_id      TEXT NOT NULL,
    pair_id      TEXT,
    rule         TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    detail       TEXT NOT NULL,
    kept         INTEGER NOT NULL,
    run_id       INTEGER NOT NULL REFERENCES runs(id)
);
-- The same finding is stored once, however often a file is imported.
CREATE UNIQUE INDEX violations_once ON violations(
    item_id, rule, detail, ifnull(pair_id, ''), ifnull(annotator_pk, 0), ifnull(batch_pk, 0)
);
ALTER TABLE pairs ADD COLUMN batch_pk INTEGER REFERENCES batches(pk);
