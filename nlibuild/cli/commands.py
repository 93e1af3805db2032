"""Every command of `nlibuild` as one row of a table: its words, its one-line help and where
its function lives. `nlibuild --help` (and a group's) lists the rows without importing a
command module; a command's module is imported when that command (or its `--help`) runs.

A stage's command takes its words and its help from the stage registry
(nlibuild/core/registry.py), so that a stage is named and described once. Adding a command
is one row here: `stage_command(registry.X, "module:function")` for a stage, `Command(...)`
for any other, `Group(...)` for a group of commands (whose help, options and callback stay on
its `typer.Typer` in its module). A test checks that each row's help is the first paragraph
of its command's `--help`, which the listing would otherwise contradict.

`LazyGroup` is the click group (typer's `cls=`) that reads the table: `list_commands`,
`format_commands` and completion use the rows alone; `get_command` imports the row's module
and builds the command with typer, as `app.command()` would have.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
from typer import _click
from typer._click.shell_completion import CompletionItem
from typer._click.utils import make_default_short_help
from typer.core import TyperGroup
from typer.models import CommandInfo, TyperInfo

from nlibuild.core import registry
from nlibuild.core.stage import StageName


@dataclass(frozen=True)
class Command:
    """A command: `target` is `module:function`, or `module:app` for a function registered
    on a `typer.Typer` with settings of its own (score's `report`, made in a function)."""

    words: tuple[str, ...]
    help: str
    """The first paragraph of the command's --help: what the listing shows (shortened)."""
    target: str
    long_help: str | None = None
    """`module:function` giving the whole --help, for a command whose help is not its
    docstring (`stats`: one paragraph per table)."""


@dataclass(frozen=True)
class Group:
    """A group of commands; `app` is `module:app`, the `typer.Typer` with the group's help,
    its options and its callback, imported when the group runs."""

    words: tuple[str, ...]
    help: str
    app: str


def stage_command(stage: StageName, target: str) -> Command:
    """The row of a stage's command: words and help from the registry."""
    assert stage.command, f"stage {stage.name} has no command of its own"
    return Command(stage.command, stage.help, target)


_C = "nlibuild.cli."

COMMANDS: tuple[Command | Group, ...] = (
    stage_command(registry.INIT, _C + "corpus:init"),
    stage_command(registry.IMPORT, _C + "corpus:import_"),
    stage_command(registry.EXPORT, _C + "corpus:export"),
    stage_command(registry.INGEST, _C + "pool:ingest"),
    stage_command(registry.SAMPLE, _C + "pool:sample"),
    stage_command(registry.AGGREGATE_LABELS, _C + "labels:aggregate_labels"),
    stage_command(registry.SPLIT, _C + "split:split"),
    Command(("stats",), "Tables about the corpus.", _C + "stats:stats", _C + "stats:stats_help"),
    Command(
        ("info",),
        "Counts of the store: pairs by genre, language, label and protocol; validated pairs; runs.",
        _C + "corpus:info",
    ),
    Command(
        ("runs",),
        "The provenance log: every stage run with its status (running, ok, failed, "
        "interrupted), when it started, how long it took and what it counted; with --verbose its "
        "settings, signature, error if it failed, the command that started it (`serve: lead ID` "
        "for a button of the workbench's lead page), host and pid.",
        _C + "corpus:runs",
    ),
    Command(
        ("check",),
        "Recompute pair_labels and the majority gold from the votes and report every "
        "difference; exit 1 if any. Read-only unless --repair.",
        _C + "check:check",
    ),
    Command(
        ("report",),
        "Write the corpus's datasheet (Gebru et al.) as one self-contained HTML page: counts, "
        "provenance of every run, agreement, subsets, lengths per language, cue words, "
        "translation quality and scores, with charts.",
        _C + "report:report",
    ),
    Command(
        ("run",),
        "Run a recipe's steps (pipelines/*.toml) in order on the store, skipping those that "
        "already ran ok with the same settings and input files.",
        _C + "recipe:run_recipe",
    ),
    Command(
        ("schemas",),
        "Write the JSON Schema of every interchange file (generated from the models).",
        _C + "corpus:schemas",
    ),
    Group(
        ("elicit",),
        "Hypothesis elicitation: batches of premises out to writers, their answers back in.",
        _C + "elicit:elicit_app",
    ),
    stage_command(registry.ELICIT_CREATE, _C + "elicit:create"),
    stage_command(registry.ELICIT_EXPORT, _C + "elicit:export"),
    stage_command(registry.ELICIT_IMPORT, _C + "elicit:import_"),
    Group(
        ("translate",),
        "Translation: premises and hypotheses out as separate units, translations back in.",
        _C + "translate:translate_app",
    ),
    stage_command(registry.TRANSLATE_EXPORT, _C + "translate:export"),
    stage_command(registry.TRANSLATE_IMPORT, _C + "translate:import_"),
    stage_command(registry.TRANSLATE_QA, _C + "translate:qa"),
    Group(
        ("relabel",),
        "Relabelling: pairs out to more annotators (never the author), their labels back.",
        _C + "relabel:relabel_app",
    ),
    stage_command(registry.RELABEL_CREATE, _C + "relabel:create"),
    stage_command(registry.RELABEL_EXPORT, _C + "relabel:export"),
    stage_command(registry.RELABEL_IMPORT, _C + "relabel:import_"),
    Group(
        ("bias",),
        "Annotation-artifact baselines: what a model learns from one sentence alone.",
        _C + "bias:bias_app",
    ),
    stage_command(registry.BIAS_HYPOTHESIS_ONLY, _C + "bias:hypothesis_only"),
    Group(
        ("score",),
        "Score models and baselines on the corpus: accuracy per checkpoint, language, split "
        "and slice, in the store.",
        _C + "score:score_app",
    ),
    stage_command(registry.SCORE_TRAIN, _C + "score:train"),
    stage_command(registry.SCORE_PLAN, _C + "score:plan"),
    stage_command(registry.SCORE_IMPORT, _C + "score:import_"),
    stage_command(registry.SCORE_BASELINES, _C + "score:baselines"),
    stage_command(registry.SCORE_EXPORT_MODEL, _C + "score:export_model"),
    Command(
        ("score", "tiny-model"),
        "Build a tiny random BERT-like classifier (2 layers, hidden size 32 or --hidden) whose "
        "WordPiece tokenizer is trained on the store's texts: a smoke test of `score train` on "
        "this corpus or on a GPU node, not a baseline (see `score baselines`). Needs the score "
        "extra.",
        _C + "score:tiny_model",
    ),
    Command(
        ("score", "report"),
        "Test accuracy by checkpoint selection, Keung et al.'s Tables 2, 3 and 5, the "
        "transfer gap, per-slice accuracy and the baselines of a score run.",
        _C + "score:score_app",
    ),
    Group(
        ("serve",),
        "The workbench: writers and validators do their batches in a web page.",
        _C + "serve:serve_app",
    ),
    Command(
        ("serve", "invite"),
        "Print a personal link for one person. The token is shown once, here: the store keeps "
        "only its hash (and first characters, to name it in `serve invites`).",
        _C + "serve:invite",
    ),
    Command(
        ("serve", "invites"),
        "List the invites (the first characters of each token, never the token).",
        _C + "serve:invites",
    ),
    Command(
        ("serve", "revoke"),
        "Revoke invites: their links stop working and their sessions end at once.",
        _C + "serve:revoke",
    ),
)
"""Every command and group, in the order `--help` lists them."""


def rows_under(words: tuple[str, ...]) -> dict[str, Command | Group]:
    """The rows one word below `words` (the root's for `()`), by that word, in order."""
    depth = len(words)
    return {
        row.words[depth]: row
        for row in COMMANDS
        if len(row.words) == depth + 1 and row.words[:depth] == words
    }


def load(target: str) -> Any:
    """The object `module:name` names, its module imported now."""
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


PRETTY_EXCEPTIONS_SHORT = True
"""typer's default; only its pretty tracebacks read it, which the app turns off."""


def build_command(row: Command, rich_markup_mode: Any) -> _click.Command:
    """The click command of a row, as `app.command(word)(function)` would have made it."""
    word = row.words[-1]
    target = load(row.target)
    if isinstance(target, typer.Typer):
        info = next(c for c in target.registered_commands if c.name == word)
    else:
        long_help = load(row.long_help)() if row.long_help else None
        info = CommandInfo(word, callback=target, help=long_help)
    return typer.main.get_command_from_info(
        info, pretty_exceptions_short=PRETTY_EXCEPTIONS_SHORT, rich_markup_mode=rich_markup_mode
    )


def build_group(row: Group, rich_markup_mode: Any) -> LazyGroup:
    """The click group of a row: help, options and callback from its `typer.Typer` (as
    `app.add_typer(app, name=word)` would take them), its commands from the table."""
    group = typer.main.get_group_from_info(
        TyperInfo(load(row.app), name=row.words[-1], cls=LazyGroup),
        pretty_exceptions_short=PRETTY_EXCEPTIONS_SHORT,
        rich_markup_mode=rich_markup_mode,
        suggest_commands=True,
    )
    assert isinstance(group, LazyGroup)
    group.words = row.words
    return group


class _TableCommands(MutableMapping[str, _click.Command]):
    """A group's `commands`: the table's rows under it, each built on first use. (typer's
    own `get_command` and its did-you-mean both read `commands`.)"""

    def __init__(self, group: LazyGroup) -> None:
        self._group = group
        self._built: dict[str, _click.Command] = {}

    def __getitem__(self, name: str) -> _click.Command:
        if name not in self._built:
            row = rows_under(self._group.words)[name]
            mode = self._group.rich_markup_mode
            if isinstance(row, Group):
                self._built[name] = build_group(row, mode)
            else:
                self._built[name] = build_command(row, mode)
        return self._built[name]

    def __setitem__(self, name: str, command: _click.Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("the commands of nlibuild are its table's (nlibuild/cli/commands.py)")

    def __iter__(self) -> Iterator[str]:
        extra = [name for name in self._built if name not in rows_under(self._group.words)]
        return iter([*rows_under(self._group.words), *extra])

    def __len__(self) -> int:
        return sum(1 for _ in self)


class LazyGroup(TyperGroup):
    """A group whose commands are the table's rows under `words` (the root's: none)."""

    words: tuple[str, ...] = ()

    def __init__(self, **attrs: Any) -> None:
        # The commands typer made from the group's own app are dropped: the table is the
        # one list (a test checks that it names each of them).
        super().__init__(**attrs)
        self.commands = _TableCommands(self)

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        """The `Commands:` section from the rows, shortened as click shortens a help."""
        rows = rows_under(self.words)
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name in rows)
        listing = [(name, make_default_short_help(r.help, limit)) for name, r in rows.items()]
        with formatter.section("Commands"):
            formatter.write_dl(listing)

    def shell_complete(self, ctx: _click.Context, incomplete: str) -> list[CompletionItem]:
        """Command names from the rows (no module imported), then the group's options."""
        results = [
            CompletionItem(name, help=make_default_short_help(row.help))
            for name, row in rows_under(self.words).items()
            if name.startswith(incomplete)
        ]
        results.extend(_click.Command.shell_complete(self, ctx, incomplete))
        return results
