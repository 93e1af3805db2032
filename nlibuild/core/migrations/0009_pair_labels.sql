-- Schema 9: what the hot path reads, one narrow row per pair with votes.
-- Every vote stays in `votes` (who, what, when, which run). Aggregation and the agreement
-- statistics need only each pair's label counts, its author's label and its gold: kept here
-- by every stage that writes votes, they are read as 1 row a pair instead of 5, and gold is
-- written as one column update instead of a million inserted rows. A table of its own and
-- not columns of `pairs`: a pair's row carries its texts and a released corpus's parse trees
-- (about 1 KB in MNLI), which every scan and update of these columns would otherwise read
-- and rewrite. `nlibuild check` recomputes it from the votes.
CREATE TABLE pair_labels (
    pair_pk         INTEGER PRIMARY KEY REFERENCES pairs(pk),
    n_votes         INTEGER NOT NULL,  -- every vote, extra labels included
    n_entailment    INTEGER NOT NULL,
    n_neutral       INTEGER NOT NULL,
    n_contradiction INTEGER NOT NULL,
    author_label    TEXT,              -- the vote at position 0 (the author's), if any
    gold            TEXT,              -- the majority gold, '-' for none; NULL until aggregated
    gold_run_id     INTEGER REFERENCES runs(id)
);
INSERT INTO pair_labels (pair_pk, n_votes, n_entailment, n_neutral, n_contradiction,
                         author_label)
    SELECT pair_pk, count(*), sum(label = 'entailment'), sum(label = 'neutral'),
           sum(label = 'contradiction'), max(CASE WHEN position = 0 THEN label END)
    FROM votes GROUP BY pair_pk;
UPDATE pair_labels SET (gold, gold_run_id) = (
    SELECT label, run_id FROM gold
    WHERE gold.pair_pk = pair_labels.pair_pk AND gold.method = 'majority'
);
-- The majority gold moves onto pair_labels; the other methods' rows (a released corpus's
-- gold, Dawid-Skene) stay in `gold_rows`, and the view `gold` shows all of them as before.
DELETE FROM gold WHERE method = 'majority';
ALTER TABLE gold RENAME TO gold_rows;
CREATE VIEW gold (pair_pk, method, label, n_votes, n_top, run_id) AS
    SELECT pair_pk, method, label, n_votes, n_top, run_id FROM gold_rows
    UNION ALL
    SELECT pair_pk, 'majority', gold, n_votes, max(n_entailment, n_neutral, n_contradiction),
           gold_run_id
    FROM pair_labels WHERE gold IS NOT NULL;
