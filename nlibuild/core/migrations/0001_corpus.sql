-- Schema 1: the corpus (premises, pairs, votes, gold, translations) and its provenance (runs).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    stage       TEXT NOT NULL,
    config_json TEXT NOT NULL,
    signature   TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    status      TEXT NOT NULL CHECK (status IN ('running', 'ok')),
    counts_json TEXT NOT NULL DEFAULT '{}',
    version     TEXT NOT NULL
);
CREATE TABLE sources (
    id      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    genre   TEXT,
    lang    TEXT,
    path    TEXT NOT NULL,
    sha256  TEXT NOT NULL,
    run_id  INTEGER NOT NULL REFERENCES runs(id)
);
CREATE TABLE annotators (
    pk        INTEGER PRIMARY KEY,
    id        TEXT NOT NULL UNIQUE,
    anonymous INTEGER NOT NULL DEFAULT 0,
    note      TEXT
);
CREATE TABLE annotator_aliases (
    platform     TEXT NOT NULL,
    platform_id  TEXT NOT NULL,
    annotator_pk INTEGER NOT NULL REFERENCES annotators(pk),
    PRIMARY KEY (platform, platform_id)
);
CREATE TABLE premises (
    pk         INTEGER PRIMARY KEY,
    id         TEXT NOT NULL,
    genre      TEXT,
    lang       TEXT NOT NULL,
    text       TEXT NOT NULL CHECK (length(trim(text)) > 0),
    length     INTEGER NOT NULL,
    status     TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'flagged')),
    extra_json TEXT,
    run_id     INTEGER NOT NULL REFERENCES runs(id)
);
-- Unique IDs are named indexes, not column constraints, so that a bulk load can build
-- them once at the end (see Store.deferred_indexes).
CREATE UNIQUE INDEX premises_id ON premises(id);
CREATE INDEX premises_genre ON premises(genre);
CREATE TABLE pairs (
    pk           INTEGER PRIMARY KEY,
    id           TEXT NOT NULL,
    premise_pk   INTEGER NOT NULL REFERENCES premises(pk),
    hypothesis   TEXT NOT NULL CHECK (length(trim(hypothesis)) > 0),
    lang         TEXT NOT NULL,
    protocol     TEXT,
    level        TEXT,
    author_pk    INTEGER REFERENCES annotators(pk),
    author_label TEXT,
    extra_json   TEXT,
    run_id       INTEGER NOT NULL REFERENCES runs(id)
);
CREATE UNIQUE INDEX pairs_id ON pairs(id);
CREATE INDEX pairs_premise ON pairs(premise_pk);
CREATE INDEX pairs_facets ON pairs(lang, protocol, level, author_label);
-- A vote's role follows from its position: 0 is the author's label (absent when a corpus
-- gave only gold labels), and validators' votes take positions 1, 2, ... in the order they came,
-- so a pair is validated when it has a vote at position 1. (No role column: it would be
-- derived data, and dropping it made the importer's 5 million vote rows 35% cheaper.)
CREATE TABLE votes (
    pair_pk      INTEGER NOT NULL REFERENCES pairs(pk),
    annotator_pk INTEGER NOT NULL REFERENCES annotators(pk),
    position     INTEGER NOT NULL,
    label        TEXT NOT NULL,
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (pair_pk, annotator_pk)
) WITHOUT ROWID;
CREATE TABLE gold (
    pair_pk INTEGER NOT NULL REFERENCES pairs(pk),
    method  TEXT NOT NULL,
    label   TEXT NOT NULL,
    n_votes INTEGER NOT NULL,
    n_top   INTEGER NOT NULL,
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (pair_pk, method)
) WITHOUT ROWID;
CREATE INDEX gold_label ON gold(method, label);
CREATE TABLE translations (
    unit_id       TEXT NOT NULL,
    lang          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('human', 'mt')),
    text          TEXT NOT NULL,
    translator_pk INTEGER REFERENCES annotators(pk),
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (unit_id, lang, kind)
) WITHOUT ROWID;
