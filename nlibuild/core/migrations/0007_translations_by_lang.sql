-- Schema 7: translations keyed language first.
-- Translations keyed language first. Keyed by unit first, every import of one more language
-- (XNLI: 15 of 400,000 pairs) inserted into every page of the table, and the write-ahead log
-- took a copy of each: a language's import slowed with each language before it. Now a
-- language's rows lie together and an import appends one range.
CREATE TABLE translations_by_lang (
    unit_id       TEXT NOT NULL,
    lang          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('human', 'mt')),
    text          TEXT NOT NULL,
    translator_pk INTEGER REFERENCES annotators(pk),
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (lang, kind, unit_id)
) WITHOUT ROWID;
INSERT INTO translations_by_lang (unit_id, lang, kind, text, translator_pk, run_id)
    SELECT unit_id, lang, kind, text, translator_pk, run_id FROM translations;
DROP TABLE translations;
ALTER TABLE translations_by_lang RENAME TO translations;
