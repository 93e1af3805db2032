-- Schema 14: a lead reopens an answered premise (issue 26) so that its writer can answer it
-- again. What the answer made leaves the corpus, so that `check`, `export`, `stats` and the
-- next answer's pair IDs see the premise as never answered, but not the store: one row here
-- per reopening keeps the assignment's former answer (status, hash, the run that imported
-- it) and, as JSON arrays of the rows as they were, its pairs (each with its author's vote)
-- and the violations the checks found in it. `run_id` is the `elicit-reopen` run, whose
-- `command` says which lead reopened it (`serve: lead ID`) and whose times say when.
CREATE TABLE reopened_answers (
    pk              INTEGER PRIMARY KEY,
    batch_pk        INTEGER NOT NULL REFERENCES batches(pk),
    item_id         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('answered', 'unusable')),
    answer_key      TEXT,
    answered_run_id INTEGER REFERENCES runs(id),
    pairs_json      TEXT NOT NULL,
    violations_json TEXT NOT NULL,
    run_id          INTEGER NOT NULL REFERENCES runs(id)
);
CREATE INDEX reopened_answers_item ON reopened_answers(batch_pk, item_id);
