-- Schema 2: the sentence pool that premises are sampled from.
-- The sentence pool: what `nlibuild ingest` reads and `nlibuild sample` draws premises from.
CREATE TABLE sentences (
    pk        INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    genre     TEXT NOT NULL,
    lang      TEXT NOT NULL,
    text      TEXT NOT NULL CHECK (length(text) > 0),
    -- lang.text_key of the normalised, case-folded text: one sentence, one key.
    key       INTEGER NOT NULL CHECK (key >= 0),
    chars     INTEGER NOT NULL,
    tokens    INTEGER NOT NULL,
    length    INTEGER NOT NULL,  -- in the language's unit: chars or tokens
    run_id    INTEGER NOT NULL REFERENCES runs(id)
);
-- (genre, key) is unique: `nlibuild ingest` deduplicates in memory (nlibuild/keyset.py), since
-- a unique index over random hash keys cost 3-5 microseconds a sentence, most of the ingest
-- time. Rows of a genre mostly come together, so this index grows at its end.
CREATE INDEX sentences_genre ON sentences(genre);
ALTER TABLE premises ADD COLUMN sentence_pk INTEGER REFERENCES sentences(pk);
