"""`nlibuild check [--repair]`: the hot path (`pair_labels`, the majority gold) recomputed
from the votes, every difference reported (nlibuild/stages/check.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from nlibuild.cli.common import err, open_store, out, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.models import CheckConfig, CheckFinding, CheckResult, TableFormat
from nlibuild.options import choice
from nlibuild.render import counted


def check(
    ctx: typer.Context,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Rewrite pair_labels counts from the votes (a recorded run); gold stays "
            "for aggregate-labels.",
        ),
    ] = False,
    format: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
) -> None:
    """Recompute pair_labels and the majority gold from the votes and report every
    difference; exit 1 if any. Read-only unless --repair.

    Examples:

    \b
      nlibuild --db corpus.db check
    """
    from nlibuild.stages.check import advice, run

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if fmt not in (TableFormat.TABLE, TableFormat.JSON):
            raise ConfigError(f"check --format: table or json, not {format}")
        store = open_store(state_of(ctx))
        with store:
            result = run(store, CheckConfig(repair=repair))
    if fmt is TableFormat.JSON:
        out.print(result.model_dump_json(), markup=False)
    else:
        _render_report(result)
    problem = advice(result)
    if problem is not None:
        err.print(f"Error: {problem}", markup=False)
        raise typer.Exit(1)


def _pair_ids(finding: CheckFinding) -> str:
    if not finding.pairs:
        return ""
    more = finding.pairs - len(finding.first_pair_ids)
    return f" ({', '.join(finding.first_pair_ids)}{f' and {more} more' if more else ''})"


def _render_report(result: CheckResult) -> None:
    if result.repaired is not None:
        actions = ", ".join(
            f"{action} {counted(f.pairs, 'row')}{_pair_ids(f)}"
            for action, f in zip(("recounted", "added", "removed"), result.repaired, strict=True)
        )
        out.print(
            f"Repaired pair_labels: {actions} (run {result.run_id}, {result.signature})",
            markup=False,
        )
    for finding in result.findings:
        out.print(
            f"{finding.description}: {counted(finding.pairs, 'pair')}{_pair_ids(finding)}",
            markup=False,
        )
    verdict = (
        "every check agrees with the votes"
        if not result.differences
        else counted(result.differences, "difference")
    )
    after = " after the repair" if result.repaired is not None else ""
    out.print(f"Checked {counted(result.pairs_checked, 'pair')}{after}: {verdict}", markup=False)
