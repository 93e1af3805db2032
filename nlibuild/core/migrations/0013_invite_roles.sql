-- Schema 13: one invite may carry the roles writer and validator together, so a person who
-- writes and validates opens one link, not two. `role` holds the roles comma-separated in
-- the one order nlibuild writes them ('writer,validator'); a lead's link stays a lead's
-- alone (the lead page is the project's controls, kept apart from annotation work). SQLite
-- cannot change a CHECK in place, so the table is rebuilt by its documented procedure
-- (a new table, the rows copied, the old one dropped, the new one renamed): the sessions'
-- foreign key names the table by name and keeps pointing at it, keys unchanged.
CREATE TABLE workbench_tokens_new (
    pk           INTEGER PRIMARY KEY,
    selector     TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    person       TEXT NOT NULL,
    annotator_pk INTEGER REFERENCES annotators(pk),
    role         TEXT NOT NULL
                 CHECK (role IN ('writer', 'validator', 'writer,validator', 'lead')),
    created      TEXT NOT NULL,
    expires      TEXT NOT NULL,
    revoked      TEXT,
    CHECK (role = 'lead' OR annotator_pk IS NOT NULL)
);
INSERT INTO workbench_tokens_new(pk, selector, token_sha256, person, annotator_pk, role,
                                 created, expires, revoked)
    SELECT pk, selector, token_sha256, person, annotator_pk, role, created, expires, revoked
    FROM workbench_tokens;
DROP TABLE workbench_tokens;
ALTER TABLE workbench_tokens_new RENAME TO workbench_tokens;
CREATE INDEX workbench_tokens_selector ON workbench_tokens(selector);
CREATE INDEX workbench_tokens_person ON workbench_tokens(person);
