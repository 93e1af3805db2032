"""The kernel under every stage.

- `database`: the SQLite connection (WAL, foreign keys, a busy timeout), the numbered SQL
  migrations in `migrations/`, and `atomic()` with savepoints.
- `runs`: `recorded_run()`, the one way a stage records itself in the provenance log
  (`running` -> `ok` | `failed` | `interrupted`), names the holder of a lock, and resumes a
  stage that commits in steps.
- `signature`: a run's signature, derived from every field of its settings model.
- `outputs`: a stage's outputs (its `OutputPath` settings) are never the store or its
  side files.
"""
