"""Recipes: a corpus's rounds written down once, as a TOML file, and run again step by step.

A recipe (`pipelines/*.toml`) is a `[recipe]` table (its `name`, and the `preset` or `lang`
its store is created with, by an `init` run, when the store does not exist yet) and
`[[step]]` tables: `stage = "<a name of core/registry.py>"` and that stage's settings fields,
paths relative to the recipe's file. `run` goes through the steps in order:

- a step whose stage already ran `ok` on the store with the same signature (its settings
  and its input files' content, `core/signature.py`) is skipped: that work is in the store;
- once a step runs, every later step runs, since what it wrote may change what they do;
- a step whose input file does not exist yet (the annotators' answers are not back) stops
  the run there, naming the file; the next run skips what was done and goes on from it;
- so does a step with `wait_for = "FILE"` while FILE does not exist: people's work that
  lands in the store rather than in a file (writers and validators in `nlibuild serve`)
  has no input file to wait for, so the recipe names one the lead creates once it is done,
  and `wait_note` says what is awaited (both are the recipe's keys, not the stage's).

Every step's settings are checked before anything runs (an unknown stage or setting is one
error naming the recipe's line; tomllib keeps no positions, so `_locate` finds them in the
text), and built as `invoke` builds them (the fields given, the store's preset, the model's
defaults), so that the signature a plan compares is the one the run records.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from nlibuild.core import registry
from nlibuild.core.registry import INIT
from nlibuild.core.signature import input_paths, settings_signature
from nlibuild.core.stage import StoreFacts
from nlibuild.errors import ConfigError, InputError, NlibuildError, StepError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.invoke import Outcome, invoke, invoke_at, new_store_facts, settings_for
from nlibuild.options import store_facts
from nlibuild.queries.runs import latest_ok_run
from nlibuild.store import Store

WAIT_KEYS = ("wait_for", "wait_note")
"""A step's own keys besides `stage`: the file it waits for, and what that file says is done."""

RECIPE_KEYS = ("name", "preset", "lang", "extra_labels")
"""What `[recipe]` takes: its name, and the settings of the `init` run that creates its
store (`preset`, `lang`, or both; `extra_labels`)."""
TABLES = ("recipe", "step")


class Action(StrEnum):
    """What a step does on this run of its recipe."""

    RUN = "run"
    SKIP = "skip"
    WAIT = "wait"


@dataclass(frozen=True)
class RecipeStep:
    """One `[[step]]`: its stage, its settings fields (paths resolved against the recipe's
    folder), and where it and each of its keys are in the recipe's text."""

    number: int
    stage: str
    fields: Mapping[str, Any]
    line: int | None
    """The line of its `stage =` (else of its `[[step]]`)."""
    key_lines: Mapping[str, int] = field(default_factory=dict)
    waits_for: Path | None = None
    """`wait_for`: the step runs only once this file exists (people's work is done)."""
    wait_note: str | None = None

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key, self.line)


@dataclass(frozen=True)
class Recipe:
    path: Path
    name: str
    init_fields: Mapping[str, Any]
    """The settings of the `init` run that creates the store (`preset`, `lang`, ...)."""
    steps: tuple[RecipeStep, ...]
    key_lines: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedStep:
    """What a step does (or, in a plan, would do) and why; step 0 is the store's `init`."""

    number: int
    stage: str
    action: Action
    why: str
    ran_as: int | None = None
    """The run that did a skipped step's work."""
    waits_for: Path | None = None


@dataclass(frozen=True)
class StepRan:
    """A step that ran: its stage's outcome, whose summary line every front end prints."""

    number: int
    stage: str
    outcome: Outcome[Any, Any]


StepEvent = PlannedStep | StepRan


# --- reading a recipe -------------------------------------------------------------------------


@dataclass
class _Lines:
    """Where each table and key of a recipe's text begins (the first time it does)."""

    top: dict[str, int] = field(default_factory=dict)
    recipe: dict[str, int] = field(default_factory=dict)
    steps: list[dict[str, int]] = field(default_factory=list)
    """Per `[[step]]`, its keys' lines; "" is the line of the `[[step]]` header."""


_HEADER = re.compile(r"^\s*(\[\[?)\s*([\w\"'. -]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|[\w-]+)\s*(\.[^=]*)?=")


def _locate(text: str) -> _Lines:
    lines = _Lines()
    table = lines.top
    for number, line in enumerate(text.splitlines(), 1):
        if header := _HEADER.match(line):
            name = header.group(2).strip("\"' ")
            lines.top.setdefault(name, number)
            if name == "step" and header.group(1) == "[[":
                lines.steps.append({"": number})
                table = lines.steps[-1]
            else:
                table = lines.recipe if name == "recipe" else {}
                table.setdefault("", number)
        elif key := _KEY.match(line):
            table.setdefault(key.group(1).strip("\"'"), number)
    return lines


def _hint(word: str, known: Sequence[str]) -> str:
    guess = difflib.get_close_matches(word, known, n=1)
    return f"; did you mean {guess[0]}?" if guess else ""


def read_recipe(path: Path) -> Recipe:
    """The recipe at `path`, checked against the stage registry and each stage's settings
    model: anything wrong is an `InputError` naming the recipe's file and line."""
    text = read_utf8_text(path, "recipe")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        line = int(at.group(1)) if at else None
        raise InputError(path, f"not valid TOML ({exc}); fix the recipe", line) from None
    lines = _locate(text)
    for key in data:
        if key not in TABLES:
            raise InputError(
                path,
                f"unknown table or key {key!r}{_hint(key, TABLES)}; a recipe holds a [recipe] "
                "table and [[step]] tables",
                lines.top.get(key),
            )
    name, init_fields = _read_head(path, data.get("recipe"), lines)
    tables = data.get("step")
    if not isinstance(tables, list) or not tables:
        raise InputError(
            path,
            'no steps: give each as a [[step]] table with stage = "..." and its settings',
            lines.top.get("step"),
        )
    # A step written inline (`step = [{...}]`) has no [[step]] line: its errors name none.
    step_lines = [*lines.steps, *([{}] * len(tables))]
    steps = tuple(
        _read_step(path, number, table, step_lines[number - 1])
        for number, table in enumerate(tables, 1)
    )
    return Recipe(path, name, init_fields, steps, lines.recipe)


def _read_head(path: Path, head: object, lines: _Lines) -> tuple[str, dict[str, Any]]:
    """`[recipe]`: its name, and the fields of the `init` run that creates its store."""
    where = lines.recipe.get("")
    if not isinstance(head, dict):
        raise InputError(
            path, '[recipe] is missing: begin with [recipe], name = "..." and preset = "..." '
            'or lang = "..."', where,
        )  # fmt: skip
    for key in head:
        if key not in RECIPE_KEYS:
            raise InputError(
                path,
                f"[recipe] {key}: no such key{_hint(key, RECIPE_KEYS)} (it takes "
                f"{', '.join(RECIPE_KEYS)})",
                lines.recipe.get(key, where),
            )
    name = head.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputError(path, '[recipe] needs name = "..."', lines.recipe.get("name", where))
    init_fields = {key: head[key] for key in RECIPE_KEYS[1:] if key in head}
    if "preset" not in init_fields and "lang" not in init_fields:
        raise InputError(
            path, "[recipe] needs preset = \"...\" or lang = \"...\": the store's, made by "
            "init when it does not exist yet", where,
        )  # fmt: skip
    preset = init_fields.get("preset")
    if isinstance(preset, str) and preset.endswith(".toml"):
        init_fields["preset"] = str(_beside(path, preset))
    return name, init_fields


def _read_step(path: Path, number: int, table: object, key_lines: dict[str, int]) -> RecipeStep:
    where = key_lines.get("stage", key_lines.get(""))
    if not isinstance(table, dict):
        raise InputError(path, f"step {number} is not a table; write it as [[step]]", where)
    stage_name = table.get("stage")
    if not isinstance(stage_name, str):
        raise InputError(path, f'step {number} has no stage = "..."', where)
    if stage_name == INIT.name:
        raise InputError(
            path, f"step {number}: init is not a step; [recipe]'s preset or lang make the "
            "store when it does not exist", where,
        )  # fmt: skip
    try:
        info = registry.stage_name(stage_name)
    except ConfigError as exc:
        raise InputError(path, f"step {number}: {exc}", where) from None
    settings = registry.stage(info).settings
    fields = {key: value for key, value in table.items() if key not in ("stage", *WAIT_KEYS)}
    waits_for, wait_note = _read_wait(path, number, table, key_lines)
    known = list(settings.model_fields)
    for key in fields:
        if key not in settings.model_fields:
            raise InputError(
                path,
                f"step {number} ({stage_name}): no setting {key!r}{_hint(key, known)} (its "
                f"settings: {', '.join(known)})",
                key_lines.get(key, where),
            )
    resolved = _resolve_paths(settings, fields, path)
    return RecipeStep(number, stage_name, resolved, where, key_lines, waits_for, wait_note)


def _read_wait(
    path: Path, number: int, table: Mapping[str, Any], key_lines: dict[str, int]
) -> tuple[Path | None, str | None]:
    """A step's `wait_for` (relative to the recipe) and `wait_note`, both text."""
    for key in WAIT_KEYS:
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise InputError(
                path, f"step {number}: {key} must be text (wait_for a file's path)",
                key_lines.get(key, key_lines.get("")),
            )  # fmt: skip
    if "wait_note" in table and "wait_for" not in table:
        raise InputError(
            path, f"step {number}: wait_note says what wait_for's file stands for; give "
            'wait_for = "FILE" too', key_lines.get("wait_note", key_lines.get("")),
        )  # fmt: skip
    waits_for = _beside(path, table["wait_for"]) if "wait_for" in table else None
    return waits_for, table.get("wait_note")


def _beside(recipe: Path, value: str) -> Path:
    """A path a recipe names, relative to the recipe's folder (absolute ones as they are),
    without `..` detours: `pipelines/../data/x` is `data/x`."""
    return Path(os.path.normpath(recipe.parent / Path(value).expanduser()))


def _holds_path(annotation: object) -> bool:
    return annotation is Path or any(_holds_path(arg) for arg in get_args(annotation))


def _resolve_paths(
    settings: type[BaseModel], fields: Mapping[str, Any], recipe: Path
) -> dict[str, Any]:
    """`fields` with every value of a path setting (alone or in a list, inputs and outputs)
    taken relative to the recipe's folder; a group of settings (a nested model) likewise."""
    resolved = dict(fields)
    for key, value in fields.items():
        annotation = settings.model_fields[key].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if isinstance(value, dict):
                resolved[key] = _resolve_paths(annotation, value, recipe)
        elif _holds_path(annotation):
            if isinstance(value, str):
                resolved[key] = _beside(recipe, value)
            elif isinstance(value, list):
                resolved[key] = [_beside(recipe, v) if isinstance(v, str) else v for v in value]
    return resolved


# --- planning and running ---------------------------------------------------------------------


def store_exists(db: Path) -> bool:
    """Whether `db` holds a store (or some other file, which opening it refuses) rather than
    nothing: `init` takes an empty file as a new store, as `Store.create` does."""
    return db.exists() and (not db.is_file() or db.stat().st_size > 0)


def _new_store_facts(recipe: Recipe) -> StoreFacts:
    """The preset and language of the store the recipe's `init` will make."""
    return new_store_facts(recipe.init_fields.get("preset"), recipe.init_fields.get("lang"))


_OPTION = re.compile(r"^option (\w+)")


def _step_settings(recipe: Recipe, step: RecipeStep, facts: StoreFacts) -> BaseModel:
    """The step's settings as its run will build them (`invoke.settings_for`); a value the
    model refuses is an `InputError` at the line of its key in the recipe."""
    declared = registry.stage(step.stage)
    try:
        settings: BaseModel = settings_for(declared, facts, step.fields)
    except ConfigError as exc:
        option = _OPTION.match(str(exc))
        line = step.line_of(option.group(1)) if option else step.line
        raise InputError(recipe.path, f"step {step.number} ({step.stage}): {exc}", line) from None
    return settings


def _same_preset(given: str, stored: str | None) -> bool:
    if stored is None:
        return False
    if given.endswith(".toml"):
        return Path(given).resolve() == Path(stored).resolve()
    return given == stored


def _check_store(recipe: Recipe, store: Store, db: Path) -> None:
    """A recipe runs on the store its `[recipe]` describes, not on another corpus's."""
    meta = store.meta()
    for key in ("preset", "lang"):
        wanted = recipe.init_fields.get(key)
        if wanted is None:
            continue
        same = _same_preset(wanted, meta.get(key)) if key == "preset" else wanted == meta.get(key)
        if not same:
            raise InputError(
                recipe.path,
                f"[recipe] {key} is {wanted}, but the store {db} has {key} "
                f"{meta.get(key) or 'none'}; give --db a store made for this recipe (or a new "
                "path, which the recipe creates)",
                recipe.key_lines.get(key, recipe.key_lines.get("")),
            )


def _init_text(fields: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} {fields[key]}" for key in ("preset", "lang") if key in fields)


def _first_missing_input(settings: BaseModel) -> Path | None:
    return next((path for path in input_paths(settings) if not path.exists()), None)


def _decide(
    step: RecipeStep, settings: BaseModel, store: Store | None, runs_from: int | None
) -> PlannedStep:
    """Run, skip or wait, for a step whose earlier steps are done (or planned): `runs_from`
    is the first of them that runs, after which every step runs."""
    if step.waits_for is not None and not step.waits_for.exists():
        note = f" ({step.wait_note})" if step.wait_note else ""
        why = f"{step.waits_for} does not exist yet{note}"
        return PlannedStep(step.number, step.stage, Action.WAIT, why, waits_for=step.waits_for)
    missing = _first_missing_input(settings)
    if missing is not None:
        why = f"{missing} does not exist yet"
        return PlannedStep(step.number, step.stage, Action.WAIT, why, waits_for=missing)
    if runs_from is not None:
        return PlannedStep(step.number, step.stage, Action.RUN, f"step {runs_from} runs before it")
    signature = settings_signature(step.stage, settings)
    ran = latest_ok_run(store, step.stage, signature) if store is not None else None
    if ran is None:
        why = "no run of it with these settings and inputs has finished ok"
        return PlannedStep(step.number, step.stage, Action.RUN, why)
    return PlannedStep(step.number, step.stage, Action.SKIP, f"ran ok as run {ran}", ran_as=ran)


def _plan_steps(recipe: Recipe, store: Store | None, facts: StoreFacts) -> list[PlannedStep]:
    settings = [_step_settings(recipe, step, facts) for step in recipe.steps]
    planned: list[PlannedStep] = []
    runs_from = None if store is not None else 1
    waits_at: int | None = None
    for step, step_settings in zip(recipe.steps, settings, strict=True):
        if waits_at is not None:
            why = f"step {waits_at} waits for its input first"
            planned.append(PlannedStep(step.number, step.stage, Action.WAIT, why))
            continue
        decided = _decide(step, step_settings, store, runs_from)
        if store is None and decided.action is Action.RUN:
            decided = PlannedStep(step.number, step.stage, Action.RUN, "the store is new")
        planned.append(decided)
        if decided.action is Action.WAIT:
            waits_at = step.number
        elif decided.action is Action.RUN and runs_from is None:
            runs_from = step.number
    return planned


def plan(recipe: Recipe, db: Path) -> list[PlannedStep]:
    """What `run` would do on the store at `db` now, step by step, writing nothing: step 0
    is the store's `init`, run when there is no store yet."""
    if not store_exists(db):
        why = f"no store at {db}: init creates it ({_init_text(recipe.init_fields)})"
        head = PlannedStep(0, INIT.name, Action.RUN, why)
        return [head, *_plan_steps(recipe, None, _new_store_facts(recipe))]
    with Store.open(db) as store:
        _check_store(recipe, store, db)
        meta = store.meta()
        why = f"the store exists (lang {meta.get('lang')}, preset {meta.get('preset') or 'none'})"
        head = PlannedStep(0, INIT.name, Action.SKIP, why)
        return [head, *_plan_steps(recipe, store, store_facts(store))]


def run(recipe: Recipe, db: Path) -> Iterator[StepEvent]:
    """Run the recipe on the store at `db` (made first by its `init` when absent), yielding
    each step as it is done: a `StepRan`, or a `PlannedStep` skipped or waiting, the last."""
    if not store_exists(db):
        facts = _new_store_facts(recipe)
        for step in recipe.steps:  # a recipe in error makes no store
            _step_settings(recipe, step, facts)
        outcome = invoke_at(registry.stage(INIT), db, **recipe.init_fields)
        yield StepRan(0, INIT.name, outcome)
    with Store.open(db) as store:
        _check_store(recipe, store, db)
        facts = store_facts(store)
        for step in recipe.steps:  # every step checked before the first runs
            _step_settings(recipe, step, facts)
        runs_from: int | None = None
        for step in recipe.steps:
            # Built again now: an earlier step may have written a file this one reads.
            decided = _decide(step, _step_settings(recipe, step, facts), store, runs_from)
            if decided.action is not Action.RUN:
                yield decided
                if decided.action is Action.WAIT:
                    return
                continue
            runs_from = runs_from or step.number
            yield StepRan(step.number, step.stage, _invoke_step(recipe, step, store))


def _invoke_step(recipe: Recipe, step: RecipeStep, store: Store) -> Outcome[Any, Any]:
    try:
        return invoke(registry.stage(step.stage), store, **step.fields)
    except NlibuildError as exc:
        where = f"{recipe.path}, line {step.line}" if step.line else str(recipe.path)
        raise StepError(f"{where} (step {step.number}, {step.stage}): {exc}") from exc
