"""The scripts `score plan` writes beside its job folders: run.sh (the jobs one after another
on this machine's GPUs) and slurm.sh (an sbatch array, one task a job).

Both run the jobs from the plan folder, whatever the current directory (job folders are
named relative to it; model folders by their absolute path, or inside the plan), each job
as `python -m nlibuild.scoring.job FOLDER --resume`: running a script again skips the jobs
that finished and takes up the ones cut short (a crash, Slurm's time limit). A job of
several GPUs runs under torchrun (`python -m torch.distributed.run`, the same interpreter),
which starts one process a GPU and splits the global batch across them (scoring/ddp.py).

The interpreter is `$NLIBUILD_PYTHON`, else `python3`: the one the environment line
(`--env-setup`) activates. Every value from the user is shell-quoted; the sbatch values are
checked first (models/score.py) to need no quoting, since sbatch reads `#SBATCH` lines
itself, not through a shell.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from nlibuild._version import VERSION
from nlibuild.models import Launcher, ScorePlanConfig
from nlibuild.render import counted

PLAN_FILE = "plan.json"
SCRIPTS = {Launcher.TORCHRUN: "run.sh", Launcher.SLURM: "slurm.sh"}
PYTHON_VARIABLE = "NLIBUILD_PYTHON"


def launch_script(cfg: ScorePlanConfig, jobs: Sequence[str]) -> str:
    """The script of `cfg.launcher` running the job folders `jobs` (names in the plan)."""
    if cfg.launcher is Launcher.SLURM:
        return _slurm_script(cfg, jobs)
    return _run_script(cfg, jobs)


def job_command(gpus: int, folder: str) -> str:
    """The shell command that runs (or takes up) one job folder on `gpus` GPUs."""
    job = f"-m nlibuild.scoring.job {folder} --resume"
    if gpus == 1:
        return f'"$PYTHON" {job}'
    return f'"$PYTHON" -m torch.distributed.run --standalone --nproc_per_node={gpus} {job}'


def _header(cfg: ScorePlanConfig, jobs: Sequence[str], how: str) -> list[str]:
    return [
        f"# Written by nlibuild {VERSION} `score plan`: {counted(len(jobs), 'job')}, "
        f"{counted(cfg.gpus_per_job, 'GPU')} each, {how}.",
        "# Running it again skips the jobs that finished and takes up the ones cut short;",
        "# delete a job's results/ folder to run it afresh. Python: $NLIBUILD_PYTHON, else",
        "# python3, with torch, transformers and nlibuild. Then bring the results back with",
        "# `nlibuild score import THIS_FOLDER` on the machine that has the store.",
    ]


def _environment(cfg: ScorePlanConfig) -> list[str]:
    """`set -e`, the environment line (before `set -u`: activate scripts read unset
    variables), and the interpreter."""
    python = f'PYTHON="${{{PYTHON_VARIABLE}:-python3}}"'
    if cfg.env_setup is None:
        return ["set -euo pipefail", python]
    return [
        "set -eo pipefail",
        "# The environment (--env-setup):",
        # eval of the quoted text: the line runs as written (`~`, `$VAR`, `&&`), and
        # whatever it holds (quotes, newlines) cannot end the string it is written in.
        f"eval {shlex.quote(cfg.env_setup)}",
        "set -u",
        python,
    ]


def _run_script(cfg: ScorePlanConfig, jobs: Sequence[str]) -> str:
    lines = [
        "#!/usr/bin/env bash",
        *_header(cfg, jobs, "one after another; run it from any folder"),
        'cd "$(dirname "${BASH_SOURCE[0]}")"',
        *_environment(cfg),
        *(job_command(cfg.gpus_per_job, shlex.quote(job)) for job in jobs),
    ]
    return "\n".join(lines) + "\n"


def _slurm_script(cfg: ScorePlanConfig, jobs: Sequence[str]) -> str:
    sbatch = {
        "job-name": "nlibuild-score",
        "array": f"0-{len(jobs) - 1}",
        "ntasks": "1",
        "gpus-per-task": str(cfg.gpus_per_job),
        "partition": cfg.partition,
        "time": cfg.time,
        "cpus-per-task": None if cfg.cpus_per_task is None else str(cfg.cpus_per_task),
    }
    missing_plan = (
        f'echo "slurm.sh: $PWD has no {PLAN_FILE}; submit from the plan folder: '
        'cd PLAN_FOLDER && sbatch slurm.sh" >&2'
    )
    lines = [
        "#!/usr/bin/env bash",
        *(f"#SBATCH --{name}={shlex.quote(value)}" for name, value in sbatch.items() if value),
        *_header(cfg, jobs, "an array task a job"),
        "# Submit from the plan folder: cd PLAN_FOLDER && sbatch slurm.sh",
        # Slurm runs a copy of the script: the plan folder is where it was submitted from.
        'cd "${SLURM_SUBMIT_DIR:-.}"',
        f"[[ -f {PLAN_FILE} ]] || {{ {missing_plan}; exit 1; }}",
        *_environment(cfg),
        f"JOBS=({' '.join(shlex.quote(job) for job in jobs)})",
        job_command(cfg.gpus_per_job, '"${JOBS[$SLURM_ARRAY_TASK_ID]}"'),
    ]
    return "\n".join(lines) + "\n"
