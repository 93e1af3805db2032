-- Schema 17: a model in the writers' loop (issue 29; ANLI, Nie et al. 2020, and Dynabench:
-- writers try to write pairs a model gets wrong). What the served model said of each pair
-- a writer submitted, written with the submission: its label, its probabilities as JSON
-- {label: p}, the model's identity (`<job>@<step> sha256:<12 hex>`), and how many model
-- checks of that field's hypothesis the writer made before submitting (ANLI's tries).
-- Whether the pair fooled the model is derived (label against the pair's author_label),
-- and "verified" later from the gold of the validators' votes: neither is stored.
CREATE TABLE model_predictions (
    pair_pk       INTEGER PRIMARY KEY REFERENCES pairs(pk),
    model         TEXT NOT NULL,
    label         TEXT NOT NULL,
    probabilities TEXT NOT NULL, -- JSON {label: p}
    tries         INTEGER NOT NULL CHECK (tries >= 0)
);
-- Every model check of a changed hypothesis before its premise was submitted: the
-- assignment (batch and premise), the form's field (`contradiction_2`, whose label is the
-- writer's intended one), the text checked, the model and its label, whether that fooled
-- it, and when. A try is kept when its premise is answered: ANLI counts the tries of a
-- round per verified example.
CREATE TABLE model_tries (
    pk         INTEGER PRIMARY KEY,
    batch_pk   INTEGER NOT NULL,
    item_id    TEXT NOT NULL,
    slot       TEXT NOT NULL,
    hypothesis TEXT NOT NULL,
    model      TEXT NOT NULL,
    label      TEXT NOT NULL,
    fooled     INTEGER NOT NULL CHECK (fooled IN (0, 1)),
    tried_at   TEXT NOT NULL,
    FOREIGN KEY (batch_pk, item_id) REFERENCES assignments(batch_pk, item_id)
);
CREATE INDEX model_tries_of_field ON model_tries(batch_pk, item_id, slot);
