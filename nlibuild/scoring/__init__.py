"""Baseline scoring: fine-tune and evaluate a model on a store's corpus (issue: the GPU stage).

The only package of nlibuild that imports torch or transformers (the `score` install extra);
`tests/test_architecture.py` keeps it so. `job_files` is the contract with the rest of
nlibuild and imports neither, so the store side can write and read job folders without torch,
and a job can run on a GPU node with neither the store nor polars.
"""

from nlibuild.errors import NlibuildError


class ScoringError(NlibuildError):
    """A job that cannot run as given: a model folder that is missing or incomplete, a job
    folder without its files. The message names the path and what to do. A user error
    (an NlibuildError, whose module a job may import: it needs nothing else), so the CLI
    prints it as one `Error:` line and a run it stops is refused, not failed;
    `python -m nlibuild.scoring.job` prints it as one line too."""
