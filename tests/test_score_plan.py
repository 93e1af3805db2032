"""`score plan` writes a plan that runs (issue 27, item 8) and sweeps (item 5; its report
half, the configuration picked on En dev, end to end here, by hand in test_score_sweep.py).

The help's own example ran into "tiny-model: no such model folder": the model folder was
stored as typed and run.sh changes directory. Now model folders are stored by their
absolute path (or copied into the plan), run.sh runs from any folder, slurm.sh takes the
cluster's settings and an environment line, and `--lr 1e-5,2e-5 --batch-size 16,32` writes
one job per configuration x seed with each job's settings recorded.

The scripts are run by bash: the end-to-end test trains the tiny model on the CPU (it needs
torch); the others put a stand-in interpreter ($NLIBUILD_PYTHON) that logs how it was called.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import DATA, PROJECT, copy_store, fails, json_object, ok
from test_help_examples import HAS_TORCH, examples_before, examples_of, help_text
from test_preset_keys import last_run, with_stored_preset

import nlibuild
from nlibuild.models import ScoreTraining
from nlibuild.scores.score_jobs import (
    configuration_key,
    configuration_text,
    stored_configuration,
)
from nlibuild.scoring.job import model_folder_of
from nlibuild.scoring.job_files import DONE_FILE, read_spec

GERMAN = DATA / "translations" / "sample_mnli.de.tsv"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 48 sample pairs split 28/10/10, with German human translations."""
    db = tmp_path_factory.mktemp("score-plan") / "corpus.db"
    corpus = nlibuild.create(db, lang="en")
    corpus.import_corpus(path=DATA / "sample_mnli.jsonl", format="mnli")
    corpus.split(dev=10, test=10, draw_from="labelled", group_by="pair")
    corpus.translate_import(path=GERMAN, lang="de", translator="de01")
    return db


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    return copy_store(template, tmp_path / "store" / "corpus.db")


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A model folder (its files are not read before a job runs)."""
    folder = tmp_path / "models" / "tiny-bert"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    return folder


def stand_in_python(folder: Path) -> tuple[Path, Path]:
    """An executable that logs its current folder and arguments, one call a line, in place
    of the interpreter the scripts run ($NLIBUILD_PYTHON); (it, its log)."""
    log = folder / "calls.log"
    python = folder / "python"
    python.write_text(f'#!/bin/sh\necho "$PWD|$*" >> {shlex.quote(str(log))}\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python, log


def bash(script: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script)], cwd=cwd, capture_output=True, text=True,
        env=os.environ | {"OMP_NUM_THREADS": "1"} | env, timeout=300,
    )  # fmt: skip


# --- the help's example runs ----------------------------------------------------------------


@pytest.mark.skipif(not HAS_TORCH, reason="the score extra (torch) is not installed")
def test_the_helps_plan_runs_from_another_folder_and_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The examples of `score plan --help` as a user types them (after every help's examples
    before them, which make the store and what it uses), then `bash work/plan/run.sh`
    from a folder that is not the plan's nor the model's: the tiny model trains on the CPU
    and `score import` takes the finished job."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    shutil.copytree(DATA, work / "data")
    shutil.copytree(PROJECT / "pipelines", work / "pipelines")
    elsewhere.mkdir()
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    monkeypatch.chdir(work)
    for line in examples_before("score plan"):
        ok(*shlex.split(line)[1:])
    for example in examples_of(help_text("score plan")):
        ok(*shlex.split(example)[1:])
    plan = work / "plan"
    assert read_spec(plan / "tiny-h64-zero-shot-s1").model == str(work / "tiny-h64")

    ran = bash(plan / "run.sh", elsewhere, NLIBUILD_PYTHON=sys.executable,
               PYTHONPATH=str(PROJECT))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (plan / "tiny-h64-zero-shot-s1" / DONE_FILE).is_file()
    assert "Imported tiny-h64-zero-shot-s1:" in ok("--db", "corpus.db", "score", "import", plan)
    assert "finished" in ok("--db", "corpus.db", "score", "import", plan)


# --- run.sh and slurm.sh ------------------------------------------------------------------


def test_run_sh_runs_each_job_in_the_plan_folder_from_anywhere(
    db: Path, model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(model.parent)  # --models as typed there: relative
    ok("--db", db, "score", "plan", "--models", "tiny-bert", "--seeds", "1,2",
       "--out", tmp_path / "my plan")  # fmt: skip
    plan = tmp_path / "my plan"
    assert read_spec(plan / "tiny-bert-zero-shot-s1").model == str(model)
    python, log = stand_in_python(tmp_path)
    ran = bash(plan / "run.sh", tmp_path / "store", NLIBUILD_PYTHON=str(python))
    assert ran.returncode == 0, ran.stderr
    assert log.read_text().splitlines() == [
        f"{plan}|-m nlibuild.scoring.job tiny-bert-zero-shot-s{seed} --resume" for seed in (1, 2)
    ]


def test_a_job_of_several_gpus_runs_under_torchrun_of_the_same_python(
    db: Path, model: Path, tmp_path: Path
) -> None:
    ok("--db", db, "score", "plan", "--models", model, "--seeds", 1, "--gpus-per-job", 4,
       "--out", tmp_path / "plan")  # fmt: skip
    python, log = stand_in_python(tmp_path)
    assert bash(tmp_path / "plan" / "run.sh", tmp_path, NLIBUILD_PYTHON=str(python)).returncode == 0
    assert log.read_text().split("|")[1].split() == [
        "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=4",
        "-m", "nlibuild.scoring.job", "tiny-bert-zero-shot-s1", "--resume",
    ]  # fmt: skip


ENV_SETUP = 'export GREETING="it\'s $HOME" && cd .\necho "$GREETING;" \'`x`\' > env.txt'
"""An environment line with both quotes, a variable, a backquote and a newline."""


def test_slurm_sh_takes_the_clusters_settings_and_runs_the_environment_line_as_written(
    db: Path, model: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan"
    ok("--db", db, "score", "plan", "--models", model, "--seeds", "1,2,3", "--launcher", "slurm",
       "--partition", "gpu,gpu-long", "--time", "1-12:00", "--cpus-per-task", 8,
       "--env-setup", ENV_SETUP, "--out", plan)  # fmt: skip
    script = (plan / "slurm.sh").read_text()
    sbatch = [line for line in script.splitlines() if line.startswith("#SBATCH")]
    assert sbatch[-3:] == [
        "#SBATCH --partition=gpu,gpu-long", "#SBATCH --time=1-12:00", "#SBATCH --cpus-per-task=8"
    ]  # fmt: skip
    # sbatch reads its settings up to the first command: none comes before them.
    assert script.index("#SBATCH --cpus-per-task") < script.index("\ncd ")

    python, log = stand_in_python(tmp_path)
    task = {"NLIBUILD_PYTHON": str(python), "SLURM_SUBMIT_DIR": str(plan), "HOME": "/home/me"}
    ran = bash(plan / "slurm.sh", tmp_path, SLURM_ARRAY_TASK_ID="1", **task)
    assert ran.returncode == 0, ran.stderr
    assert (plan / "env.txt").read_text() == "it's /home/me; `x`\n"
    assert log.read_text() == f"{plan}|-m nlibuild.scoring.job tiny-bert-zero-shot-s2 --resume\n"

    submitted_elsewhere = task | {"SLURM_SUBMIT_DIR": str(tmp_path)}
    ran = bash(plan / "slurm.sh", tmp_path, SLURM_ARRAY_TASK_ID="0", **submitted_elsewhere)
    assert ran.returncode == 1
    assert "submit from the plan folder: cd PLAN_FOLDER && sbatch slurm.sh" in ran.stderr


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--time", "2 hours", "'2 hours' is not a Slurm time limit"),
        ("--partition", "gpu;rm -rf", "'gpu;rm -rf' is not a Slurm partition"),
        ("--cpus-per-task", "0", "cpus_per_task"),
        ("--env-setup", " ", "give a shell command"),
        ("--lr", "1e-5,fast", "--lr 'fast' is not a number"),
        ("--lr", "1e-5,1e-5", "1e-05 is named twice"),
        ("--batch-size", "16,0", "batch_sizes"),
    ],
)
def test_a_value_a_script_cannot_take_is_one_error_line(
    db: Path, model: Path, tmp_path: Path, option: str, value: str, says: str
) -> None:
    fails(db, "score", "plan", "--models", model, "--out", tmp_path / "plan", option, value,
          says=(says,))  # fmt: skip
    assert not (tmp_path / "plan").exists()


def test_a_plan_is_not_written_over_another_nor_two_models_of_one_name(
    db: Path, model: Path, tmp_path: Path
) -> None:
    ok("--db", db, "score", "plan", "--models", model, "--out", tmp_path / "plan")
    fails(db, "score", "plan", "--models", model, "--out", tmp_path / "plan",
          says=("already holds a plan (plan.json)", "choose another --out"))  # fmt: skip
    namesake = tmp_path / "elsewhere" / "tiny-bert"
    namesake.mkdir(parents=True)
    fails(db, "score", "plan", "--models", f"{model},{namesake}", "--out", tmp_path / "two",
          says=("tiny-bert is named twice",))  # fmt: skip


# --- --copy-models --------------------------------------------------------------------------


def test_copied_models_travel_with_the_plan(db: Path, model: Path, tmp_path: Path) -> None:
    ok("--db", db, "score", "plan", "--models", model, "--seeds", 1, "--copy-models",
       "--out", tmp_path / "plan")  # fmt: skip
    moved = Path(shutil.move(tmp_path / "plan", tmp_path / "cluster" / "plan"))
    shutil.rmtree(model)
    job = moved / "tiny-bert-zero-shot-s1"
    assert read_spec(job).model == "../models/tiny-bert"
    assert (model_folder_of(job, read_spec(job)) / "config.json").read_text() == "{}"
    # run.sh's own relative job folder (it runs from the plan folder) finds it too.
    assert os.path.normpath(model_folder_of(Path(job.name), read_spec(job))) == "models/tiny-bert"


# --- sweeps ---------------------------------------------------------------------------------


def test_a_sweep_writes_a_job_per_configuration_and_seed_with_its_settings(
    db: Path, model: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan"
    shown = ok("--db", db, "score", "plan", "--models", model, "--seeds", "1,2",
               "--lr", "1e-5,2e-5,3e-5", "--batch-size", "16,32", "--out", plan)  # fmt: skip
    assert "Planned 12 jobs (6 configurations of the sweep)" in shown
    jobs = json.loads((plan / "plan.json").read_text())["jobs"]
    assert jobs[0]["name"] == "tiny-bert-zero-shot-lr1e-05-bs16-s1"
    seeds_of = defaultdict(list)
    for job in jobs:
        spec = read_spec(plan / job["folder"])
        assert job["configuration"] == dict(configuration_key(spec))
        assert stored_configuration(spec.to_json()) == configuration_key(spec)  # as imported
        seeds_of[configuration_key(spec)].append(spec.seed)
    assert list(seeds_of.values()) == [[1, 2]] * 6
    assert [configuration_text(key, ("lr", "batch_size")) for key in seeds_of] == [
        f"lr {lr}, batch_size {size}" for lr in ("1e-05", "2e-05", "3e-05") for size in (16, 32)
    ]
    swept, _ = last_run(db, "score-plan")
    assert (swept["lrs"], swept["batch_sizes"]) == ([1e-5, 2e-5, 3e-5], [16, 32])


def test_one_value_is_no_sweep_and_keeps_the_names_a_plan_had(
    db: Path, model: Path, tmp_path: Path
) -> None:
    nlibuild.open(db).score_plan(
        models=(model,), training=ScoreTraining(seeds=(1,), lr=3e-5), out=tmp_path / "plan"
    )
    assert read_spec(tmp_path / "plan" / "tiny-bert-zero-shot-s1").lr == 3e-5


def test_the_preset_sweeps_and_the_slurm_settings_and_a_flag_wins(
    db: Path, model: Path, tmp_path: Path
) -> None:
    with_stored_preset(db, '[score]\nseeds = [1]\nlrs = [1e-5, 2e-5]\nlauncher = "slurm"\n'
                       'partition = "gpu"\nenv_setup = "module load cuda"\n')  # fmt: skip
    ok("--db", db, "score", "plan", "--models", model, "--out", tmp_path / "by-preset")
    script = (tmp_path / "by-preset" / "slurm.sh").read_text()
    assert "#SBATCH --partition=gpu\n" in script and "\neval 'module load cuda'\n" in script
    assert "tiny-bert-zero-shot-lr2e-05-s1" in script

    ok("--db", db, "score", "plan", "--models", model, "--lr", "5e-5", "--out", tmp_path / "flag")
    by_flag, _ = last_run(db, "score-plan")
    assert (by_flag["lrs"], by_flag["training"]["lr"]) == ([], 5e-5)
    assert read_spec(tmp_path / "flag" / "tiny-bert-zero-shot-s1").lr == 5e-5


@pytest.mark.skipif(not HAS_TORCH, reason="the score extra (torch) is not installed")
def test_a_planned_sweep_runs_imports_and_reports_the_configuration_picked_on_en_dev(
    db: Path, tmp_path: Path
) -> None:
    """Item 5 end to end: `score plan --lr a,b`, run.sh trains each configuration on the CPU,
    `score import`, and `score report` computes its tables on the configuration with the
    best mean En dev, naming it and the runner-up."""
    model, plan = tmp_path / "tiny", tmp_path / "plan"
    ok("--db", db, "score", "tiny-model", "--out", model)
    ok("--db", db, "score", "plan", "--models", model, "--seeds", 1, "--lr", "1e-3,1e-2",
       "--epochs", 1, "--eval-every", 0.5, "--batch-size", 8, "--out", plan)  # fmt: skip
    ran = bash(plan / "run.sh", tmp_path, NLIBUILD_PYTHON=sys.executable, PYTHONPATH=str(PROJECT))
    assert ran.returncode == 0, ran.stderr
    ok("--db", db, "score", "import", plan)

    report = json_object("--db", db, "score", "report")

    (pick,) = report["picked_configurations"]
    picked, runner_up = pick["picked"], pick["runner_up"]
    assert {picked["configuration"], runner_up["configuration"]} == {"lr 0.001", "lr 0.01"}
    assert picked["mean_en_dev"] >= runner_up["mean_en_dev"]
    # Table 2's En dev row is the one seed of the picked configuration: its mean En dev
    (en_dev,) = [row for row in report["spread"] if row["split"] == "dev"]
    assert (en_dev["group"], en_dev["max"]) == ("tiny/zero-shot", picked["mean_en_dev"])
    assert {row["seeds"] for row in report["accuracy"]} == {1}
    every = json_object("--db", db, "score", "report", "--configuration", "all")
    assert {row["group"] for row in every["accuracy"]} == {
        "tiny/zero-shot [lr 0.001]", "tiny/zero-shot [lr 0.01]",
    }  # fmt: skip
