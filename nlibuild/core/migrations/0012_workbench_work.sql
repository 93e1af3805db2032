-- Schema 12: what the workbench (issue 19, `nlibuild serve`) keeps beside the imports' rows.
-- A writer's draft of one premise of a batch, saved as they type: the form's fields as a
-- JSON object. Never a run: a draft is not an answer until it is submitted, and then the
-- submission is recorded as `elicit import` records one.
CREATE TABLE drafts (
    batch_pk     INTEGER NOT NULL REFERENCES batches(pk),
    item_id      TEXT NOT NULL,
    fields_json  TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (batch_pk, item_id)
) WITHOUT ROWID;
-- The seconds a validator spent on a pair before voting (a quality signal: the median per
-- annotator is a column of `stats --table annotators`). One row per vote; undoing the vote
-- removes it with the vote.
CREATE TABLE vote_times (
    pair_pk      INTEGER NOT NULL REFERENCES pairs(pk),
    annotator_pk INTEGER NOT NULL REFERENCES annotators(pk),
    seconds      REAL NOT NULL CHECK (seconds >= 0),
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (pair_pk, annotator_pk)
) WITHOUT ROWID;
