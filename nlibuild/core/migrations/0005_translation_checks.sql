-- Schema 5: translation checks.
-- What the checks of `translate import` found, per translated unit and language.
CREATE TABLE translation_checks (
    unit_id TEXT NOT NULL,
    lang    TEXT NOT NULL,
    kind    TEXT NOT NULL,
    "check" TEXT NOT NULL,
    detail  TEXT NOT NULL,
    run_id  INTEGER NOT NULL REFERENCES runs(id),
    PRIMARY KEY (unit_id, lang, kind, "check")
) WITHOUT ROWID;
