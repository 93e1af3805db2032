"""Baseline scoring: fine-tune and evaluate a model on a store's corpus (issue: the GPU stage).

The only package of nlibuild that imports torch or transformers (the `score` install extra);
`tests/test_architecture.py` keeps it so. `job_files` is the contract with the rest of
nlibuild and imports neither, so the store side can write and read job folders without torch,
and a job can run on a GPU node with neither the store nor polars.
"""


class ScoringError(Exception):
    """A job that cannot run as given: a model folder that is missing or incomplete, a job
    folder without its files. The message names the path and what to do; the store side
    turns it into one `Error:` line, `python -m nlibuild.scoring.job` prints it as one."""
