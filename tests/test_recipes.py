"""Recipes (issue 25): `nlibuild --db STORE run RECIPE.toml` runs a recipe's steps in order,
skips a step whose stage ran ok with the same signature, runs every step after one that
runs, stops at a step whose input file is not there yet (exit code 3) and goes on from it
the next time; `--dry-run` plans without writing.

Most stages declare their `Stage` in other branches being merged now; these tests use
`aggregate-labels` and `tally-lines`, a stage of their own registered for the test (it reads
an input file, so that waiting and signatures over a file's content can be seen). The
demo's recipes are checked against the commands typed one by one once `ingest` declares
its `Stage`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shlex
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    PROJECT,
    SAMPLE_MNLI,
    drawn_tables,
    new_store,
    ok,
    query,
    run_cli,
    table_counts,
)
from pydantic import BaseModel, ConfigDict

import nlibuild
from nlibuild.core import registry
from nlibuild.core.signature import OutputPath
from nlibuild.core.stage import Stage, StageName
from nlibuild.recipes import read_recipe
from nlibuild.render import run_note
from nlibuild.store import LAST_VOTE_RUN, Store

PIPELINES = PROJECT / "pipelines"

# --- a stage of the tests' own: it counts an input file's lines ----------------------------


class TallyConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    out: OutputPath | None = None
    unit: str = "line"


class TallyResult(BaseModel):
    run_id: int
    signature: str
    count: int


TALLY = StageName("tally-lines", (), "Count a file's lines (a stage of the tests).", __name__)


def tally(store: Store, cfg: TallyConfig) -> TallyResult:
    with store.recorded_run(TALLY, cfg) as run:
        count = len(cfg.path.read_text(encoding="utf-8").splitlines())
        if cfg.out is not None:
            cfg.out.parent.mkdir(parents=True, exist_ok=True)
            cfg.out.write_text(f"{count}\n", encoding="utf-8")
        run.finish({"lines": count})
    return TallyResult(run_id=run.id, signature=run.signature, count=count)


def tally_summary(cfg: TallyConfig, result: TallyResult) -> str:
    return f"Tallied {result.count} {cfg.unit}s of {cfg.path.name} {run_note(result)}"


TALLY_STAGE = Stage(TALLY, settings=TallyConfig, run=tally, summary=tally_summary)


@pytest.fixture(autouse=True)
def stages(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`tally-lines` in the registry: a stage of the tests' own that counts a file's lines."""
    monkeypatch.setitem(registry.BY_NAME, TALLY.name, TALLY)
    declared = registry.stage

    def stage(name: str | StageName) -> Stage[Any, Any]:
        info = name if isinstance(name, StageName) else registry.stage_name(name)
        return TALLY_STAGE if info is TALLY else declared(info)

    monkeypatch.setattr(registry, "stage", stage)
    yield


def write_recipe(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


HEAD = '[recipe]\nname = "test"\npreset = "mnli"\n'


@pytest.fixture
def sample_store(tmp_path: Path) -> Path:
    db = new_store(tmp_path / "corpus.db", "--preset", "mnli")
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    return db


def runs_of(db: Path) -> list[tuple[int, str, str]]:
    return [(r[0], r[1], r[2]) for r in query(db, "SELECT id, stage, status FROM runs")]


# --- running, skipping, waiting --------------------------------------------------------------


def test_a_recipe_runs_its_steps_and_run_again_skips_each_naming_its_run(
    sample_store: Path, tmp_path: Path
) -> None:
    recipe = write_recipe(
        tmp_path / "gold.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\n\n'
        '[[step]]\nstage = "aggregate-labels"\nmin_agree = 0.6\n',
    )
    first = ok("--db", sample_store, "run", recipe).splitlines()
    # Each step's line is its stage's own summary, as the command prints it.
    assert first[0].startswith("Aggregated 48 pairs by majority (at least 3): entailment 16")
    assert first[1].startswith("Aggregated 48 pairs by majority (at least 0.6)")
    ran = [run_id for run_id, stage, _ in runs_of(sample_store) if stage == "aggregate-labels"]
    again = ok("--db", sample_store, "run", recipe).splitlines()
    assert again == [
        f"Skipped step 1 (aggregate-labels): ran ok as run {ran[0]}",
        f"Skipped step 2 (aggregate-labels): ran ok as run {ran[1]}",
    ]
    assert len(runs_of(sample_store)) == ran[1]


def test_once_a_step_runs_every_later_step_runs(sample_store: Path, tmp_path: Path) -> None:
    counted = tmp_path / "lines.txt"
    counted.write_text("a\nb\n", encoding="utf-8")
    recipe = write_recipe(
        tmp_path / "r.toml",
        HEAD + '\n[[step]]\nstage = "tally-lines"\npath = "lines.txt"\n\n'
        '[[step]]\nstage = "aggregate-labels"\n',
    )
    ok("--db", sample_store, "run", recipe)
    assert ok("--db", sample_store, "run", recipe).startswith("Skipped step 1")
    # Another content is another signature: the tally runs again, and the gold after it,
    # although a run with the gold's settings finished ok.
    counted.write_text("a\nb\nc\n", encoding="utf-8")
    lines = ok("--db", sample_store, "run", recipe).splitlines()
    assert lines[0].startswith("Tallied 3 lines of lines.txt (run ")
    assert lines[1].startswith("Aggregated 48 pairs")


def test_a_step_whose_input_is_not_there_stops_the_run_with_exit_3_and_the_next_goes_on(
    sample_store: Path, tmp_path: Path
) -> None:
    recipe = write_recipe(
        tmp_path / "pipelines" / "r.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\n\n'
        '[[step]]\nstage = "tally-lines"\npath = "../answers/back.txt"\n\n'
        '[[step]]\nstage = "aggregate-labels"\nmin_agree = 0.6\n',
    )
    before = len(runs_of(sample_store))
    waiting = run_cli("--db", sample_store, "run", recipe)
    assert waiting.exit_code == 3, waiting.output
    assert waiting.stdout.startswith("Aggregated 48 pairs by majority (at least 3)")
    answers = tmp_path / "answers" / "back.txt"
    assert waiting.stderr == (
        f"Waiting at step 2 (tally-lines): {answers} does not exist yet; run the recipe again "
        "once it does\n"
    )
    assert len(runs_of(sample_store)) == before + 1  # step 3 did not run
    answers.parent.mkdir()
    answers.write_text("yes\n", encoding="utf-8")
    lines = ok("--db", sample_store, "run", recipe).splitlines()
    assert lines[0] == f"Skipped step 1 (aggregate-labels): ran ok as run {before + 1}"
    assert lines[1].startswith("Tallied 1 lines of back.txt")
    assert lines[2].startswith("Aggregated 48 pairs by majority (at least 0.6)")


def test_a_step_waits_for_the_file_its_wait_for_names_saying_what_it_stands_for(
    sample_store: Path, tmp_path: Path
) -> None:
    """People's work that lands in the store (votes in the workbench) has no input file: the
    recipe names one the lead creates, and stops there (exit 3) until it exists."""
    recipe = write_recipe(
        tmp_path / "pipelines" / "r.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\nwait_for = "../votes.done"\n'
        'wait_note = "validators vote in the workbench"\n',
    )
    done = tmp_path / "votes.done"
    waiting = run_cli("--db", sample_store, "run", recipe)
    assert waiting.exit_code == 3, waiting.output
    assert waiting.stderr == (
        f"Waiting at step 1 (aggregate-labels): {done} does not exist yet (validators vote in "
        "the workbench); run the recipe again once it does\n"
    )
    assert not [run for run in runs_of(sample_store) if run[1] == "aggregate-labels"]
    done.touch()
    assert ok("--db", sample_store, "run", recipe).startswith("Aggregated 48 pairs")


@pytest.mark.parametrize(
    ("step", "says"),
    [
        ('wait_note = "votes"\n', "step 1: wait_note says what wait_for's file stands for"),
        ("wait_for = 3\n", "step 1: wait_for must be text"),
    ],
)
def test_a_wait_without_a_file_is_one_line_naming_its_key(
    sample_store: Path, tmp_path: Path, step: str, says: str
) -> None:
    recipe = write_recipe(
        tmp_path / "r.toml", HEAD + '[[step]]\nstage = "aggregate-labels"\n' + step
    )
    error = recipe_error(sample_store, recipe)
    assert error.startswith(f"Error: {recipe}, line 6: "), error
    assert says in error


def test_paths_are_relative_to_the_recipe_not_to_the_working_folder(
    sample_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "three.txt").write_text("1\n2\n3\n", encoding="utf-8")
    recipe = write_recipe(
        tmp_path / "pipelines" / "count.toml",
        HEAD + '\n[[step]]\nstage = "tally-lines"\npath = "../data/three.txt"\n'
        'out = "../out/count.txt"\n',
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert ok("--db", sample_store, "run", recipe).startswith("Tallied 3 lines of three.txt")
    assert (tmp_path / "out" / "count.txt").read_text(encoding="utf-8") == "3\n"
    assert not (elsewhere / "out").exists()


def test_a_step_its_stage_refuses_is_one_error_line_naming_the_recipe_line_and_step(
    tmp_path: Path,
) -> None:
    db = new_store(tmp_path / "empty.db", "--lang", "en")
    recipe = write_recipe(
        tmp_path / "r.toml",
        '[recipe]\nname = "gold"\nlang = "en"\n\n[[step]]\nstage = "aggregate-labels"\n',
    )
    result = run_cli("--db", db, "run", recipe)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {recipe}, line 6 (step 1, aggregate-labels): the store has no votes to "
        "aggregate; import or relabel pairs first\n"
    )


# --- a new store ---------------------------------------------------------------------------


def test_a_recipe_creates_its_store_with_its_preset_when_there_is_none(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    (tmp_path / "lines.txt").write_text("x\n", encoding="utf-8")
    recipe = write_recipe(
        tmp_path / "r.toml", HEAD + '\n[[step]]\nstage = "tally-lines"\npath = "lines.txt"\n'
    )
    plan = json.loads(ok("--db", db, "run", recipe, "--dry-run", "--format", "json"))
    assert not db.exists()
    assert [(s["step"], s["stage"], s["action"]) for s in plan] == [
        (0, "init", "run"),
        (1, "tally-lines", "run"),
    ]
    assert plan[0]["why"] == f"no store at {db}: init creates it (preset mnli)"
    lines = ok("--db", db, "run", recipe).splitlines()
    assert lines[0].startswith(f"Created store {db}")
    assert lines[1].startswith("Tallied 1 lines")
    assert dict(query(db, "SELECT key, value FROM meta WHERE key IN ('lang', 'preset')")) == {
        "lang": "en",
        "preset": "mnli",
    }


def test_a_recipe_refuses_a_store_made_for_another_preset(tmp_path: Path) -> None:
    db = new_store(tmp_path / "zh.db", "--preset", "ocnli")
    recipe = write_recipe(tmp_path / "r.toml", HEAD + '\n[[step]]\nstage = "aggregate-labels"\n')
    before = table_counts(db)
    result = run_cli("--db", db, "run", recipe)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"Error: {recipe}, line 3: [recipe] preset is mnli, but the store {db} has preset ocnli"
    )
    assert table_counts(db) == before


# --- the plan ------------------------------------------------------------------------------


def test_a_dry_run_plans_run_skip_and_wait_and_writes_nothing(
    sample_store: Path, tmp_path: Path
) -> None:
    (tmp_path / "lines.txt").write_text("x\n", encoding="utf-8")
    recipe = write_recipe(
        tmp_path / "r.toml",
        HEAD + '\n[[step]]\nstage = "tally-lines"\npath = "lines.txt"\n\n'
        '[[step]]\nstage = "aggregate-labels"\n\n'
        '[[step]]\nstage = "tally-lines"\npath = "answers.txt"\n\n'
        '[[step]]\nstage = "aggregate-labels"\nmin_agree = 0.6\n',
    )
    ok("--db", sample_store, "run", recipe, "--dry-run")
    ok("--db", sample_store, "run", recipe, "--dry-run", "--format", "json")
    assert runs_of(sample_store)[-1][1] == "import"  # nothing ran
    result = run_cli("--db", sample_store, "run", recipe)
    assert result.exit_code == 3
    tally_run = runs_of(sample_store)[-2][0]
    before = table_counts(sample_store)
    plan = json.loads(ok("--db", sample_store, "run", recipe, "--dry-run", "--format", "json"))
    assert plan == [
        {"step": 0, "stage": "init", "action": "skip",
         "why": "the store exists (lang en, preset mnli)"},
        {"step": 1, "stage": "tally-lines", "action": "skip",
         "why": f"ran ok as run {tally_run}"},
        {"step": 2, "stage": "aggregate-labels", "action": "skip",
         "why": f"ran ok as run {tally_run + 1}"},
        {"step": 3, "stage": "tally-lines", "action": "wait",
         "why": f"{tmp_path / 'answers.txt'} does not exist yet"},
        {"step": 4, "stage": "aggregate-labels", "action": "wait",
         "why": "step 3 waits for its input first"},
    ]  # fmt: skip
    assert table_counts(sample_store) == before
    (tmp_path / "answers.txt").write_text("y\n", encoding="utf-8")
    (tmp_path / "lines.txt").write_text("x\nz\n", encoding="utf-8")
    lines = ok("--db", sample_store, "run", recipe, "--dry-run").splitlines()
    assert lines[0] == f"Recipe test on {sample_store}:"
    assert [line.split()[:4] for line in lines[1:]] == [
        ["step", "0", "init", "skip"],
        ["step", "1", "tally-lines", "run"],
        ["step", "2", "aggregate-labels", "run"],
        ["step", "3", "tally-lines", "run"],
        ["step", "4", "aggregate-labels", "run"],
    ]
    assert lines[3].endswith("step 1 runs before it")
    assert table_counts(sample_store) == before


def test_format_is_the_plans_and_needs_dry_run(sample_store: Path, tmp_path: Path) -> None:
    recipe = write_recipe(tmp_path / "r.toml", HEAD + '\n[[step]]\nstage = "aggregate-labels"\n')
    result = run_cli("--db", sample_store, "run", recipe, "--format", "json")
    assert result.exit_code == 1
    assert result.stderr == "Error: --format is the plan's: give it with --dry-run\n"


# --- errors in the recipe, by file and line ------------------------------------------------


def recipe_error(db: Path, recipe: Path) -> str:
    """`run` on a recipe in error: one `Error:` line, and the store as it was."""
    before = table_counts(db)
    for args in ((), ("--dry-run",)):
        result = run_cli("--db", db, "run", recipe, *args)
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result.stderr
    assert table_counts(db) == before
    return result.stderr.strip()


def test_an_unknown_stage_names_the_recipe_line_and_the_nearest_stage(
    sample_store: Path, tmp_path: Path
) -> None:
    recipe = write_recipe(
        tmp_path / "r.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\n\n'
        '# gold again\n[[step]]\n  stage = "agregate-labels"\n',
    )
    line = recipe_error(sample_store, recipe)
    assert line.startswith(
        f"Error: {recipe}, line 10: step 2: unknown stage 'agregate-labels'; did you mean "
        "aggregate-labels?"
    )


def test_an_unknown_setting_names_its_line_and_the_nearest_setting(
    sample_store: Path, tmp_path: Path
) -> None:
    recipe = write_recipe(
        tmp_path / "r.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\nmethod = "majority"\nmin_agre = 3\n',
    )
    line = recipe_error(sample_store, recipe)
    assert line.startswith(
        f"Error: {recipe}, line 8: step 1 (aggregate-labels): no setting 'min_agre'; did you "
        "mean min_agree? (its settings: min_agree, votes_per_pair, method"
    )


def test_a_value_its_settings_refuse_names_the_line_of_its_key(
    sample_store: Path, tmp_path: Path
) -> None:
    recipe = write_recipe(
        tmp_path / "r.toml",
        HEAD + '\n[[step]]\nstage = "aggregate-labels"\nmethod = "majority"\nmin_agree = 7.5\n',
    )
    line = recipe_error(sample_store, recipe)
    assert line.startswith(f"Error: {recipe}, line 8: step 1 (aggregate-labels): option min_agree")


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        (HEAD + "[[step]\n", ", line 4", "not valid TOML"),
        ('[recipe]\nname = "x"\n\n[[step]]\nstage = "aggregate-labels"\n', ", line 1",
         "[recipe] needs preset"),
        (HEAD + 'lang = "en"\ngenre = "x"\n[[step]]\nstage = "aggregate-labels"\n', ", line 5",
         "[recipe] genre: no such key"),
        (HEAD + '[step]\nstage = "aggregate-labels"\n', ", line 4", "no steps"),
        (HEAD + '[[steps]]\nstage = "aggregate-labels"\n', ", line 4",
         "unknown table or key 'steps'; did you mean step?"),
        (HEAD + '[[step]]\nmin_agree = 3\n', ", line 4", "step 1 has no stage"),
        (HEAD + '[[step]]\nstage = "init"\n', ", line 5", "step 1: init is not a step"),
    ],
)  # fmt: skip
def test_a_recipe_in_error_is_one_line_naming_where(
    sample_store: Path, tmp_path: Path, text: str, line: str, says: str
) -> None:
    recipe = write_recipe(tmp_path / "r.toml", text)
    error = recipe_error(sample_store, recipe)
    assert error.startswith(f"Error: {recipe}{line}: "), error
    assert says in error


# --- the demo's recipes against the commands typed one by one -------------------------------

DEMO = "out/demo"
ZH_GENRES = ("gov", "news", "lit", "tv", "phone")
EN_GENRES = ("fiction", "government", "news", "telephone", "travel")

TYPED_DEMO: dict[str, tuple[str, tuple[str, ...]]] = {
    "premises.db": (
        "ocnli-zh.toml",
        (
            "init --preset ocnli",
            *(f"ingest data/sources/zh/{genre}.txt --genre {genre}" for genre in ZH_GENRES),
            "sample --per-genre 10 --seed 13",
            "elicit create --protocol MULTI_CONSTRAINT --annotators w01,w02 --batch-size 4 "
            "--max-per-writer 8",
            f"elicit export e0001 --format labelstudio --out {DEMO}/elicit-zh",
            "elicit import data/elicit/zh_e0001.labelstudio.json --format labelstudio "
            "--annotator-map data/elicit/annotators.csv",
            "relabel create --fraction 0.5 --annotators w01,v01,v02,v03,v04",
            f"relabel export --all --format labelstudio --out {DEMO}/relabel-zh",
            "relabel import data/relabel/zh_votes.jsonl",
            "aggregate-labels --method dawid-skene",
        ),
    ),
    "english.db": (
        "elicit-en.toml",
        (
            "init --lang en",
            *(f"ingest data/sources/en/{genre}.txt --genre {genre}" for genre in EN_GENRES),
            "sample --per-genre 2 --seed 13",
            "elicit create --protocol SINGLE --annotators ann,ben --batch-size 5",
            f"elicit export e0001 --format csv --out {DEMO}/elicit-en",
            "elicit import data/elicit/en_e0001.csv --format csv",
        ),
    ),
    "demo.db": (
        "mnli-en.toml",
        (
            "init --preset mnli",
            "import data/sample_mnli.jsonl --format mnli",
            f"export --format mnli-jsonl --out {DEMO}/sample.mnli.jsonl",
            f"export --format xnli-tsv --out {DEMO}/sample.xnli.tsv",
            f"export --format hf-jsonl --out {DEMO}/sample.hf.jsonl",
            f"translate export --lang de --out {DEMO}/units.de.tsv",
            "translate import data/translations/sample_mnli.de.tsv --lang de --translator de01",
            f"export --format xnli-tsv --lang en,de --out {DEMO}/sample.en-de.xnli.tsv",
        ),
    ),
    "ocnli.db": (
        "ocnli-release.toml",
        (
            "init --preset ocnli",
            "import data/sample_ocnli.json",
            f"export --format hf-jsonl --out {DEMO}/ocnli.hf.jsonl",
        ),
    ),
}
"""Each demo store: its recipe, and the commands the Makefile's demo typed before recipes."""


def store_digest(db: Path) -> dict[str, str]:
    """A SHA-256 per table of every row, but for the provenance log (`runs`) and the
    columns that name a run (a run's ID depends on what ran before it), and the meta key
    that names one."""
    digests: dict[str, str] = {}
    with contextlib.closing(sqlite3.connect(db)) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name <> 'runs' ORDER BY name"
        )]  # fmt: skip
        for table in tables:
            keys = conn.execute(f"PRAGMA foreign_key_list({table})").fetchall()
            run_columns = {key[3] for key in keys if key[2] == "runs"}
            columns = [
                row[1] for row in conn.execute(f"PRAGMA table_info({table})")
                if row[1] not in run_columns
            ]  # fmt: skip
            listed = ", ".join(f'"{column}"' for column in columns)
            rows = conn.execute(f"SELECT {listed} FROM {table}").fetchall()
            if table == "meta":
                rows = [row for row in rows if row[0] != LAST_VOTE_RUN]
            digest = hashlib.sha256(repr(sorted(rows, key=repr)).encode())
            digests[table] = digest.hexdigest()
    return digests


def output_digests(folder: Path) -> dict[str, str]:
    """A SHA-256 per file the stages wrote under `folder` (the stores left out)."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and ".db" not in path.name
    }


def typed_demo(folder: Path) -> None:
    """The demo's stage commands typed one by one, run in `folder` (holding `data/`)."""
    for store, (_recipe, commands) in TYPED_DEMO.items():
        for command in commands:
            ok("--db", f"{DEMO}/{store}", *shlex.split(command))


def recipe_demo(folder: Path) -> None:
    """The demo's recipes, run in `folder` (holding `data/` and `pipelines/`)."""
    for store, (recipe, _commands) in TYPED_DEMO.items():
        ok("--db", f"{DEMO}/{store}", "run", f"pipelines/{recipe}")


def api_demo(folder: Path) -> None:
    """The demo's recipes, step by step, as calls of the Python API (`Corpus` methods named
    after each step's stage, its settings as keyword arguments), run in `folder`."""
    for store, (recipe_file, _commands) in TYPED_DEMO.items():
        recipe = read_recipe(Path("pipelines") / recipe_file)  # as `run` is given it
        corpus = nlibuild.create(Path(DEMO) / store, **recipe.init_fields)
        for step in recipe.steps:
            method = getattr(corpus, registry.stage_name(step.stage).method)
            method(**step.fields)


def demo_folder(root: Path) -> Path:
    root.mkdir()
    shutil.copytree(DATA, root / "data")
    shutil.copytree(PIPELINES, root / "pipelines")
    (root / DEMO).mkdir(parents=True)
    return root


def test_the_demo_as_recipes_and_as_python_calls_gives_the_stores_and_files_of_the_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    typed = demo_folder(tmp_path / "typed")
    monkeypatch.chdir(typed)
    typed_demo(typed)
    recipes = demo_folder(tmp_path / "recipes")
    monkeypatch.chdir(recipes)
    recipe_demo(recipes)
    called = demo_folder(tmp_path / "api")
    monkeypatch.chdir(called)
    api_demo(called)
    for store in TYPED_DEMO:
        assert store_digest(recipes / DEMO / store) == store_digest(typed / DEMO / store), store
        assert store_digest(called / DEMO / store) == store_digest(typed / DEMO / store), store
    assert output_digests(recipes / DEMO) == output_digests(typed / DEMO)
    assert output_digests(called / DEMO) == output_digests(typed / DEMO)
    # Run again, every recipe skips every step: its work is in the store.
    for store, (recipe, _commands) in TYPED_DEMO.items():
        plan_args = ("run", f"pipelines/{recipe}", "--dry-run", "--format", "json")
        plan = json.loads(ok("--db", f"{DEMO}/{store}", *plan_args))
        assert {step["action"] for step in plan} == {"skip"}, plan


DRAWN_BY_DEMO = {
    "premises.db": [
        "Batches", "Checks", "Writers (part 1 of 2)", "Writers (part 2 of 2)", "Batches",
        "Annotators (part 1 of 2)", "Annotators (part 2 of 2)",
    ],
    "demo.db": ["Notes"],
}  # fmt: skip
"""The titles of the tables each demo's steps draw: elicit create's and relabel create's
batches, elicit import's checks and writers, relabel import's annotators (folded in two at
the tests' 80 columns), translate import's notes."""


@pytest.mark.parametrize("store", sorted(DRAWN_BY_DEMO))
def test_a_recipe_step_draws_the_tables_its_command_draws(
    store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each stage's tables (`Stage.tables`) are the same drawn by `run` for its step as by
    its command typed alone."""
    monkeypatch.delenv("NLIBUILD_DB", raising=False)
    recipe, commands = TYPED_DEMO[store]
    db = f"{DEMO}/{store}"
    monkeypatch.chdir(demo_folder(tmp_path / "typed"))
    typed = [
        line for command in commands for line in drawn_tables(ok("--db", db, *shlex.split(command)))
    ]
    monkeypatch.chdir(demo_folder(tmp_path / "recipe"))
    ran = drawn_tables(ok("--db", db, "run", f"pipelines/{recipe}"))
    titles = [line for line in ran if not line.startswith(("┏", "┃", "┡", "│", "└"))]
    assert titles == DRAWN_BY_DEMO[store]
    assert ran == typed


def test_every_demo_recipe_names_only_files_that_exist_or_that_it_writes() -> None:
    """The recipes' inputs are the project's data files (checked without their stages'
    settings models: the files every path of a recipe names, under data/ or out/)."""
    for _store, (recipe, _commands) in TYPED_DEMO.items():
        text = (PIPELINES / recipe).read_text(encoding="utf-8")
        for word in text.split('"'):
            if word.startswith("../data/"):
                assert (PIPELINES / word).resolve().is_file(), f"{recipe}: {word}"
            elif word.startswith("../"):
                assert word.startswith(f"../{DEMO}/"), f"{recipe}: {word} is not under {DEMO}"


def test_a_recipe_that_is_not_there_is_one_error_line(sample_store: Path, tmp_path: Path) -> None:
    line = recipe_error(sample_store, tmp_path / "absent.toml")
    assert line.startswith(f"Error: {tmp_path / 'absent.toml'}: "), line


def test_the_readmes_recipe_is_one_the_demo_data_runs(tmp_path: Path) -> None:
    """The example in README.md's "Recipes" section, put in a copy of pipelines/ beside the
    data, plans an init and its two steps, and runs them."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Recipes", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    folder = demo_folder(tmp_path / "readme")
    recipe = write_recipe(folder / "pipelines" / "readme.toml", example)
    db = folder / "readme.db"
    plan = json.loads(ok("--db", db, "run", recipe, "--dry-run", "--format", "json"))
    assert [(step["stage"], step["action"]) for step in plan] == [
        ("init", "run"), ("ingest", "run"), ("sample", "run"),
    ]  # fmt: skip
    printed = ok("--db", db, "run", recipe)
    assert "Ingested 1 file" in printed and "Sampled" in printed
