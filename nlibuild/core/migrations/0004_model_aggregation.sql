-- Schema 4: Dawid-Skene posteriors and annotator quality.
-- Model-based aggregation (Dawid-Skene): each pair's posterior over the NLI labels and each
-- annotator's confusion matrix, beside the gold rows of method 'dawid-skene'.
CREATE TABLE posteriors (
    pair_pk       INTEGER NOT NULL REFERENCES pairs(pk),
    method        TEXT NOT NULL,
    entailment    REAL NOT NULL,
    neutral       REAL NOT NULL,
    contradiction REAL NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (pair_pk, method)
) WITHOUT ROWID;
CREATE TABLE annotator_quality (
    annotator_pk   INTEGER NOT NULL REFERENCES annotators(pk),
    method         TEXT NOT NULL,
    confusion_json TEXT NOT NULL,  -- rows: true label; columns: the label values given
    reliability    REAL NOT NULL,  -- the mean of the confusion matrix's diagonal
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (annotator_pk, method)
) WITHOUT ROWID;
