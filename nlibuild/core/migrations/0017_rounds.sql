-- Schema 17: adversarial rounds (issue 29, item 4; ANLI, Nie et al. 2020: R1, R2, R3).
-- A writing batch belongs to a round (`elicit create --round N`), NULL for none: the pairs
-- written in it are that round's, so that `stats --table model-loop` counts per round and
-- `split --by-round` keeps each round's dev and test apart. A column of `batches` rather
-- than of `pairs`: a round is decided when the work is handed out, and every pair of the
-- workbench knows its batch.
ALTER TABLE batches ADD COLUMN round INTEGER CHECK (round IS NULL OR round >= 1);
-- What the model in the writers' loop said of each submitted pair (the modelloop branch's
-- migration, as issue 29 specifies it; IF NOT EXISTS so that either order of the two
-- migrations gives the same store): its label, its probabilities ({label: p} as JSON), the
-- model's identity (`<job name>@<checkpoint step> sha256:<weights>`) and how many times the
-- writer checked the hypothesis against the model before submitting it.
CREATE TABLE IF NOT EXISTS model_predictions (
    pair_pk       INTEGER PRIMARY KEY REFERENCES pairs(pk),
    model         TEXT NOT NULL,
    label         TEXT NOT NULL,
    probabilities TEXT NOT NULL,
    tries         INTEGER NOT NULL
);
