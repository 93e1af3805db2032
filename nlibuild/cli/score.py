"""`score train|plan|import|baselines|report`: baseline scores on the corpus (issue 17). The
training itself needs the `score` extra (torch, transformers); nothing here imports it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from nlibuild.cli import score_report
from nlibuild.cli.common import (
    open_store,
    out,
    print_outcome,
    refuse_outputs,
    state_of,
    user_errors,
)
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.models import (
    ExportSelect,
    Launcher,
    ScoreBaselinesConfig,
    ScoreExportModelConfig,
    ScoreLanguages,
    ScoreMode,
    ScorePlanConfig,
    ScoreTinyModelConfig,
    ScoreTrainConfig,
    ScoreTraining,
)
from nlibuild.options import choice, default_text, split_list

score_app = typer.Typer(
    help="Score models and baselines on the corpus: accuracy per checkpoint, language, split "
    "and slice, in the store."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db corpus.db score baselines\n"
    "  nlibuild --db corpus.db score report\n",
    no_args_is_help=True,
)

_MODE_HELP = (
    "zero-shot (train in --train-lang, evaluate every language), translate-train-all "
    "(XTREME's; formerly translate-train: the train split plus its machine translations into "
    "every evaluated language, one model), translate-train-each (XNLI's translate-train: a "
    "model per language, trained on the train split machine-translated into it), "
    "translate-test (each language's dev and test machine-translated into --train-lang: "
    "translate import --kind mt, with --source-lang L for the human translations into L), "
    "hyp-only (the hypothesis alone, a model per language with train text in it)."
)


def _training_help(field: str, text: str) -> str:
    return f"{text} (default {default_text(ScoreTraining, field)})."


TrainLang = Annotated[
    str | None, typer.Option("--train-lang", help="Train language (default: the corpus's).")
]
EvalLangs = Annotated[
    str | None,
    typer.Option(
        "--eval-langs",
        help="Evaluation languages, comma-separated; all: the corpus language and every "
        f"language with translations (default {default_text(ScoreLanguages, 'eval_langs')}).",
    ),
]
Seeds = Annotated[str | None, typer.Option(help=_training_help("seeds", "Seeds, one job each"))]
Epochs = Annotated[float | None, typer.Option(help=_training_help("epochs", "Epochs"))]
Lr = Annotated[float | None, typer.Option("--lr", help=_training_help("lr", "Learning rate"))]
Schedule = Annotated[
    str | None, typer.Option(help=_training_help("schedule", "constant or linear"))
]
BatchSize = Annotated[
    int | None, typer.Option(help=_training_help("batch_size", "Global batch size"))
]
MaxLength = Annotated[
    int | None, typer.Option(help=_training_help("max_length", "Tokens per pair at most"))
]
EvalEvery = Annotated[
    float | None,
    typer.Option(help=_training_help("eval_every", "Evaluate every this share of an epoch")),
]


def _langs(train_lang: str | None, eval_langs: str | None) -> ScoreLanguages:
    # Built of the options given only: the preset's [score] keys fill the others.
    given: dict[str, Any] = {"train_lang": train_lang}
    if eval_langs is not None:
        given["eval_langs"] = split_list([eval_langs])
    return ScoreLanguages(**{k: v for k, v in given.items() if v is not None})


def _training(**flags: Any) -> ScoreTraining:
    given = {k: v for k, v in flags.items() if v is not None}
    if "seeds" in given:
        given["seeds"] = tuple(int(s) if s.isdigit() else s for s in split_list([given["seeds"]]))
    return ScoreTraining(**given)


@score_app.command("train")
def train(
    ctx: typer.Context,
    model: Annotated[Path, typer.Option(help="A local model folder (config, tokenizer, weights).")],
    mode: Annotated[
        str | None,
        typer.Option(help=f"{_MODE_HELP[:-1]} (default {default_text(ScoreTrainConfig, 'mode')})."),
    ] = None,
    train_lang: TrainLang = None,
    eval_langs: EvalLangs = None,
    seeds: Seeds = None,
    epochs: Epochs = None,
    lr: Lr = None,
    schedule: Schedule = None,
    batch_size: BatchSize = None,
    max_length: MaxLength = None,
    eval_every: EvalEvery = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Take up the interrupted run of these settings.")
    ] = False,
) -> None:
    """Fine-tune a local model on the train split, one job a seed, and record every
    checkpoint's accuracy (needs the score extra).

    Accuracy per language, split and slice. The score extra: pip install 'nlibuild[score]'.

    Examples:

    \b
      nlibuild --db corpus.db score tiny-model --out tiny-model
      nlibuild --db corpus.db score train --model tiny-model --seeds 1 --epochs 1 --eval-every \\
          0.5 --batch-size 8
    """
    from nlibuild.stages.score_train import RESUMING_STAGE, STAGE

    with user_errors():
        outcome = invoke_at(
            RESUMING_STAGE if resume else STAGE,
            state_of(ctx).db,
            model=model,
            mode=choice(ScoreMode, mode, "--mode") if mode is not None else None,
            langs=_langs(train_lang, eval_langs),
            training=_training(seeds=seeds, epochs=epochs, lr=lr, schedule=schedule,
                               batch_size=batch_size, max_length=max_length,
                               eval_every=eval_every),
        )  # fmt: skip
    print_outcome(outcome)


def _swept(text: str | None, kind: type[float] | type[int], option: str) -> tuple[Any, Any]:
    """`--lr 2e-5`: one value, the training's own (and no sweep: a flag wins over the
    preset's); `--lr 1e-5,2e-5`: a sweep. (value, sweep), None where not given."""
    if text is None:
        return None, None
    values = []
    for item in split_list([text]) or [text]:
        try:
            values.append(kind(item))
        except ValueError:
            raise ConfigError(
                f"{option} {item!r} is not {'a number' if kind is float else 'a whole number'}; "
                "give one value, or several, comma-separated, to sweep them"
            ) from None
    return (values[0], ()) if len(values) == 1 else (None, tuple(values))


_SWEEP_HELP = "; several, comma-separated, make a sweep: a job for each"


@score_app.command("plan")
def plan(
    ctx: typer.Context,
    models: Annotated[str, typer.Option(help="Local model folders, comma-separated.")],
    out_dir: Annotated[Path, typer.Option("--out", help="The plan folder to write.")],
    modes: Annotated[
        str | None,
        typer.Option(
            help=f"Modes, comma-separated: {_MODE_HELP[:-1]} "
            f"(default {default_text(ScorePlanConfig, 'modes')})."
        ),
    ] = None,
    train_lang: TrainLang = None,
    eval_langs: EvalLangs = None,
    seeds: Seeds = None,
    epochs: Epochs = None,
    lr: Annotated[
        str | None, typer.Option("--lr", help=_training_help("lr", f"Learning rate{_SWEEP_HELP}"))
    ] = None,
    schedule: Schedule = None,
    batch_size: Annotated[
        str | None,
        typer.Option(help=_training_help("batch_size", f"Global batch size{_SWEEP_HELP}")),
    ] = None,
    max_length: MaxLength = None,
    eval_every: EvalEvery = None,
    copy_models: Annotated[
        bool | None,
        typer.Option(
            "--copy-models/--no-copy-models",
            help="Copy the model folders into the plan (to carry it to another machine) "
            "instead of naming them by their absolute path (default: named).",
        ),
    ] = None,
    launcher: Annotated[
        str | None,
        typer.Option(
            help="torchrun (run.sh: the jobs one after another on this machine) or slurm "
            f"(slurm.sh: an sbatch array) (default {default_text(ScorePlanConfig, 'launcher')})."
        ),
    ] = None,
    gpus_per_job: Annotated[
        int | None,
        typer.Option(
            help="GPUs (torchrun processes) a job "
            f"(default {default_text(ScorePlanConfig, 'gpus_per_job')})."
        ),
    ] = None,
    partition: Annotated[
        str | None, typer.Option(help="slurm.sh's partition (default: the cluster's).")
    ] = None,
    time: Annotated[
        str | None,
        typer.Option(help="slurm.sh's time limit a job, e.g. 02:00:00 (default: the cluster's)."),
    ] = None,
    cpus_per_task: Annotated[
        int | None,
        typer.Option(help="slurm.sh's CPUs a job, for tokenising (default: the cluster's)."),
    ] = None,
    env_setup: Annotated[
        str | None,
        typer.Option(
            help="A shell command the script runs first, in the plan folder, e.g. "
            "'source ~/venv/bin/activate' (default: none)."
        ),
    ] = None,
) -> None:
    """Write one job folder per model x mode x configuration x seed, a launch script and
    plan.json, to run on GPU nodes.

    Run the script from any folder (again: it takes up what is unfinished); bring the
    results back with `score import`.

    Examples:

    \b
      nlibuild --db corpus.db score tiny-model --out tiny-h64 --hidden 64
      nlibuild --db corpus.db score plan --models tiny-h64 --seeds 1 --out plan
      nlibuild --db corpus.db score plan --models tiny-h64 --lr 1e-5,2e-5 --batch-size \\
          16,32 --launcher slurm --time 02:00:00 --env-setup 'source ~/venv/bin/activate' \\
          --out sweep
    """
    from nlibuild.stages.score_plan import STAGE

    with user_errors():
        one_lr, lrs = _swept(lr, float, "--lr")
        one_batch_size, batch_sizes = _swept(batch_size, int, "--batch-size")
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            models=tuple(Path(m) for m in split_list([models])),
            modes=tuple(choice(ScoreMode, m, "--modes") for m in split_list([modes]))
            if modes is not None
            else None,
            langs=_langs(train_lang, eval_langs),
            training=_training(seeds=seeds, epochs=epochs, lr=one_lr, schedule=schedule,
                               batch_size=one_batch_size, max_length=max_length,
                               eval_every=eval_every),
            lrs=lrs, batch_sizes=batch_sizes, out=out_dir, copy_models=copy_models,
            launcher=choice(Launcher, launcher, "--launcher") if launcher is not None else None,
            gpus_per_job=gpus_per_job, partition=partition, time=time,
            cpus_per_task=cpus_per_task, env_setup=env_setup,
        )  # fmt: skip
    print_outcome(outcome)


@score_app.command("import")
def import_(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(help="A folder written by `score plan`.")],
) -> None:
    """Merge the results of a plan's finished (and partly finished) jobs into the store.

    Importing again adds only what is new.

    Examples:

    \b
      nlibuild --db corpus.db score import plan
      nlibuild --db corpus.db score import sweep
    """
    from nlibuild.stages.score_import import STAGE

    with user_errors():
        outcome = invoke_at(STAGE, state_of(ctx).db, folder=folder)
    print_outcome(outcome)


@score_app.command("baselines")
def baselines(
    ctx: typer.Context,
    train_lang: TrainLang = None,
    eval_langs: EvalLangs = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help=f"Seed of the classifiers (default {default_text(ScoreBaselinesConfig, 'seed')})."
        ),
    ] = None,
) -> None:
    """Majority class, hypothesis-only bag of words and lexical overlap, on CPU, scored on
    every language's dev and test.

    Each is trained on the train split.

    Examples:

    \b
      nlibuild --db corpus.db score baselines
    """
    from nlibuild.stages.score_baselines import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE, state_of(ctx).db, langs=_langs(train_lang, eval_langs), seed=seed
        )
    print_outcome(outcome)


@score_app.command("export-model")
def export_model(
    ctx: typer.Context,
    job: Annotated[str, typer.Argument(help="The job's name, as `score train` lists it.")],
    out_dir: Annotated[Path, typer.Option("--out", help="A new (or empty) folder for the model.")],
    select: Annotated[
        str | None,
        typer.Option(
            help="Which checkpoint: en-dev (the best dev accuracy in the training language), "
            "target-dev (the best dev accuracy in --lang) or last "
            f"(default {default_text(ScoreExportModelConfig, 'select')})."
        ),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="target-dev's language (default: the corpus language)."),
    ] = None,
    run: Annotated[
        int | None,
        typer.Option(help="The score run of the job (default: the newest with that name)."),
    ] = None,
) -> None:
    """Write a finished job's checkpoint (--select en-dev, target-dev or last) as a model
    folder for `nlibuild serve --model`.

    The folder holds the weights the job kept, its config and tokenizer, and nlibuild.json
    (the store, job, checkpoint and its accuracies). A job keeps the weights of its best
    training-language dev checkpoint and of its last: a rule that picks another is refused.

    Examples:

    \b
      nlibuild --db corpus.db score export-model tiny-model-zero-shot-s1 --select en-dev --out \\
          served-model
      nlibuild --db corpus.db score export-model tiny-model-zero-shot-s1 --select last --out \\
          served-last
    """
    from nlibuild.stages.score_export_model import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            job=job,
            select=choice(ExportSelect, select, "--select") if select is not None else None,
            lang=lang,
            run=run,
            out=out_dir,
        )
    print_outcome(outcome)


@score_app.command("tiny-model")
def tiny_model(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Option("--out", help="A new (or empty) folder for the model.")],
    seed: Annotated[int | None, typer.Option(help="Seed of the random weights (default 0).")] = (
        None
    ),
    hidden: Annotated[
        int | None,
        typer.Option(
            help="Hidden size, a multiple of 16, one attention head per 16 "
            f"(default {default_text(ScoreTinyModelConfig, 'hidden')})."
        ),
    ] = None,
) -> None:
    """Build a tiny random BERT-like classifier (2 layers, hidden size 32 or --hidden) whose
    WordPiece tokenizer is trained on the store's texts: a smoke test of `score train` on this
    corpus or on a GPU node, not a baseline (see `score baselines`). Needs the score extra.

    Examples:

    \b
      nlibuild --db corpus.db score tiny-model --out tiny-seed2 --seed 2
    """
    from nlibuild.stages.score_tiny_model import run

    with user_errors():
        refuse_outputs(ctx, out=folder)
        given = {"seed": seed, "hidden": hidden}
        cfg = ScoreTinyModelConfig(out=folder, **{k: v for k, v in given.items() if v is not None})
        with open_store(state_of(ctx)) as store:
            built = run(store, cfg)
    out.print(f"Built a tiny random model in {built} (its tokenizer trained on the store's texts)")


score_report.register(score_app)
