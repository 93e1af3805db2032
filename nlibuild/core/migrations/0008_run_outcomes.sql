-- Schema 8: a run ends `ok`, `failed` (with its error) or `interrupted`, and names the process
-- that runs it, so that a lock can be explained and a killed run recognised.
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt (the migration runs
-- with foreign keys off and checks them before it commits; see nlibuild/core/database.py).
CREATE TABLE runs_v8 (
    id          INTEGER PRIMARY KEY,
    stage       TEXT NOT NULL,
    config_json TEXT NOT NULL,
    signature   TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    status      TEXT NOT NULL
                CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
    counts_json TEXT NOT NULL DEFAULT '{}',
    version     TEXT NOT NULL,
    command     TEXT,           -- the command line that started the run
    host        TEXT,           -- where it ran, with `pid`: a dead process means interrupted
    pid         INTEGER,
    error       TEXT,           -- why a run failed or was interrupted
    steps_json  TEXT NOT NULL DEFAULT '[]'  -- steps committed so far, for --resume
);
INSERT INTO runs_v8 (id, stage, config_json, signature, started_at, finished_at, status,
                     counts_json, version)
    SELECT id, stage, config_json, signature, started_at, finished_at, status, counts_json,
           version
    FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v8 RENAME TO runs;
CREATE INDEX runs_status ON runs(status);
