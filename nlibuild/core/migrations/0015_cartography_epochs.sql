-- Schema 15: training dynamics as Swayamdipta et al. 2020 define them. Correctness is the
-- share of epochs in which the gold label was the model's argmax; the rows stored before
-- held the share with p(gold) > 0.5 instead (not the same with three labels), and their jobs
-- did not record the argmax, so it becomes NULL: unavailable. `epochs` counts the epochs
-- that reached the pair (a partial last epoch reaches only some rows): variability needs
-- two. Rows stored before take their job's whole epochs (job.json's `epochs`, rounded
-- down), or NULL when the spec does not say. SQLite cannot drop a NOT NULL in place, so
-- the table is rebuilt (a new table, the rows copied, the old one dropped, the new renamed).
CREATE TABLE score_dynamics_new (
    job_pk      INTEGER NOT NULL REFERENCES score_jobs(pk),
    pair_pk     INTEGER NOT NULL REFERENCES pairs(pk),
    confidence  REAL NOT NULL,
    variability REAL NOT NULL,
    correctness REAL,
    epochs      INTEGER,
    PRIMARY KEY (job_pk, pair_pk)
);
INSERT INTO score_dynamics_new(job_pk, pair_pk, confidence, variability, correctness, epochs)
    SELECT d.job_pk, d.pair_pk, d.confidence, d.variability, NULL,
           CASE WHEN json_valid(j.spec)
                THEN CAST(json_extract(j.spec, '$.epochs') AS INTEGER) END
    FROM score_dynamics d JOIN score_jobs j ON j.pk = d.job_pk;
DROP TABLE score_dynamics;
ALTER TABLE score_dynamics_new RENAME TO score_dynamics;
