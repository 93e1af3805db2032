-- Schema 11: who may open the workbench (`nlibuild serve`): invites and their sessions.
-- An invite is a personal link `/t/<token>`. The token itself is never stored: only its
-- first characters (`selector`, shown by `serve invites` and matched by `serve revoke
-- --token-prefix`, as services show a key's prefix) and the SHA-256 of the whole token,
-- which login compares in constant time. A leaked store therefore opens no workbench.
-- Writers and validators are annotators (`annotator_pk`); a lead need not be one, so the
-- person's ID is kept as text for every role.
CREATE TABLE workbench_tokens (
    pk           INTEGER PRIMARY KEY,
    selector     TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    person       TEXT NOT NULL,
    annotator_pk INTEGER REFERENCES annotators(pk),
    role         TEXT NOT NULL CHECK (role IN ('writer', 'validator', 'lead')),
    created      TEXT NOT NULL,
    expires      TEXT NOT NULL,
    revoked      TEXT,
    CHECK (role = 'lead' OR annotator_pk IS NOT NULL)
);
CREATE INDEX workbench_tokens_selector ON workbench_tokens(selector);
CREATE INDEX workbench_tokens_person ON workbench_tokens(person);
-- A login's session: the cookie's random ID is stored hashed too, beside the token it came
-- from, so revoking a token ends every session it opened (the session's check joins it).
CREATE TABLE workbench_sessions (
    session_sha256 TEXT PRIMARY KEY,
    token_pk       INTEGER NOT NULL REFERENCES workbench_tokens(pk),
    created        TEXT NOT NULL,
    expires        TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX workbench_sessions_token ON workbench_sessions(token_pk);
