-- Schema 10: baseline scores (issue 17), what `score train`, `score import` and
-- `score baselines` record. A job is one model x mode x seed (a baseline is a job with mode
-- majority, hypothesis-only-bow or overlap, model '' and one checkpoint). Accuracy is kept
-- per checkpoint, language, split and slice as counts, not as a rate, so that any selection
-- rule (Keung et al. 2020: English dev, target dev, oracle) and any pooling can be computed
-- later from the store alone. The training data, tokenisation cache and per-example
-- predictions stay in the job's folder beside the store (`folder`), not in it.
CREATE TABLE score_jobs (
    pk          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    name        TEXT NOT NULL,
    model       TEXT NOT NULL,
    mode        TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    train_langs TEXT NOT NULL,  -- JSON array
    eval_langs  TEXT NOT NULL,  -- JSON array
    spec        TEXT NOT NULL,  -- the job's job.json text
    folder      TEXT NOT NULL,  -- the job folder, beside the store ('' for a baseline)
    finished    INTEGER NOT NULL DEFAULT 0,
    UNIQUE (run_id, name)
);
CREATE TABLE score_checkpoints (
    job_pk        INTEGER NOT NULL REFERENCES score_jobs(pk),
    idx           INTEGER NOT NULL,
    step          INTEGER NOT NULL,
    epoch         REAL NOT NULL,
    examples_seen INTEGER NOT NULL,
    train_loss    REAL,
    seconds       REAL NOT NULL,
    PRIMARY KEY (job_pk, idx)
);
CREATE TABLE score_accuracy (
    job_pk  INTEGER NOT NULL,
    idx     INTEGER NOT NULL,
    lang    TEXT NOT NULL,
    split   TEXT NOT NULL,  -- dev | test
    slice   TEXT NOT NULL,  -- all | genre | protocol | level | label | relabelled | negated
    value   TEXT NOT NULL,  -- '' for all
    correct INTEGER NOT NULL,
    total   INTEGER NOT NULL,
    PRIMARY KEY (job_pk, idx, lang, split, slice, value),
    FOREIGN KEY (job_pk, idx) REFERENCES score_checkpoints(job_pk, idx)
);
-- Swayamdipta et al. 2020 (Dataset Cartography): per training pair, the mean and standard
-- deviation over epochs of the probability the model gave its gold label, and the share of
-- epochs in which that probability was over 0.5.
CREATE TABLE score_dynamics (
    job_pk      INTEGER NOT NULL REFERENCES score_jobs(pk),
    pair_pk     INTEGER NOT NULL REFERENCES pairs(pk),
    confidence  REAL NOT NULL,
    variability REAL NOT NULL,
    correctness REAL NOT NULL,
    PRIMARY KEY (job_pk, pair_pk)
);
