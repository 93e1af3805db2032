-- Schema 18: adversarial rounds (issue 29, item 4; ANLI, Nie et al. 2020: R1, R2, R3).
-- A writing batch belongs to a round (`elicit create --round N`), NULL for none: the pairs
-- written in it are that round's, so that `stats --table model-loop` counts per round and
-- `split --by-round` keeps each round's dev and test apart. A column of `batches` rather
-- than of `pairs`: a round is decided when the work is handed out, and every pair written
-- in the workbench, and every try of the model (`model_tries`, schema 17), knows its batch.
ALTER TABLE batches ADD COLUMN round INTEGER CHECK (round IS NULL OR round >= 1);
