-- Schema 16: a machine translation knows what it translated (issue 27).
-- XNLI's and XTREME's translate-test "translate each test set into English": the text
-- translated is a unit's human translation (the German of an English pair), not the pair's
-- own text, and its machine translation into English is not the English original. So a
-- translation is keyed by its source too: `source_lang` '' is the pair's own text (every row
-- before this schema), a language code is the unit's human translation into that language.
-- '' rather than NULL: the columns of a WITHOUT ROWID table's key are NOT NULL. The checks
-- of a translation are kept per source likewise.
CREATE TABLE translations_by_source (
    unit_id       TEXT NOT NULL,
    lang          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('human', 'mt')),
    source_lang   TEXT NOT NULL DEFAULT '' CHECK (source_lang = '' OR kind = 'mt'),
    text          TEXT NOT NULL,
    translator_pk INTEGER REFERENCES annotators(pk),
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (lang, kind, source_lang, unit_id)
) WITHOUT ROWID;
INSERT INTO translations_by_source (unit_id, lang, kind, source_lang, text, translator_pk, run_id)
    SELECT unit_id, lang, kind, '', text, translator_pk, run_id FROM translations;
DROP TABLE translations;
ALTER TABLE translations_by_source RENAME TO translations;
CREATE TABLE translation_checks_by_source (
    unit_id     TEXT NOT NULL,
    lang        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    source_lang TEXT NOT NULL DEFAULT '',
    "check"     TEXT NOT NULL,
    detail      TEXT NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (unit_id, lang, kind, source_lang, "check")
) WITHOUT ROWID;
INSERT INTO translation_checks_by_source (unit_id, lang, kind, source_lang, "check", detail,
                                          run_id)
    SELECT unit_id, lang, kind, '', "check", detail, run_id FROM translation_checks;
DROP TABLE translation_checks;
ALTER TABLE translation_checks_by_source RENAME TO translation_checks;
-- `score --modes translate-train` is now `translate-train-all` (XTREME's name; XNLI's
-- per-language translate-train is `translate-train-each`): stored jobs take the new name,
-- so that a report groups old and new jobs of the mode together.
UPDATE score_jobs SET mode = 'translate-train-all' WHERE mode = 'translate-train';
