"""`nlibuild check [--repair]`: the hot path (`pair_labels`, the majority gold) recomputed
from the votes, every difference reported (nlibuild/stages/check.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    err,
    format_option,
    out,
    print_outcome,
    refuse_outputs,
    state_of,
    table_folder_option,
    user_errors,
)
from nlibuild.invoke import invoke_at
from nlibuild.models import CheckFinding, CheckResult, TableFormat
from nlibuild.options import choice
from nlibuild.render import (
    NamedTable,
    check_table_folder,
    counted,
    render_tables,
    write_tables,
)
from nlibuild.store import Store


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
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
    out_dir: Annotated[Path | None, table_folder_option()] = None,
) -> None:
    """Recompute pair_labels and the majority gold from the votes and report every
    difference; exit 1 if any. Read-only unless --repair.

    Examples:

    \b
      nlibuild --db corpus.db check
    """
    from nlibuild.stages.check import STAGE

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if out_dir is not None:
            refuse_outputs(ctx, out=out_dir)
            check_table_folder(out_dir, fmt)
        outcome = invoke_at(STAGE, state_of(ctx).db, repair=True) if repair else None
        result = _read_check(state_of(ctx).db) if outcome is None else outcome.result
        if fmt is TableFormat.TABLE:
            if outcome is not None:
                print_outcome(outcome)
            _render_findings(result)
        elif out_dir is not None:
            written = write_tables(out_dir, _finding_tables(result), fmt)
            out.print(f"{_verdict(result)}; wrote {', '.join(map(str, written))}", markup=False)
        else:
            render_tables(out, err, _finding_tables(result), fmt)
            if not result.differences:  # else the `Error:` line below says what differs
                err.print(_verdict(result), markup=False)
    if result.advice is not None:
        err.print(f"Error: {result.advice}", markup=False)
        raise typer.Exit(1)


def _read_check(db: Path) -> CheckResult:
    """The check without --repair: it only reads, and records no run (as `info`)."""
    from nlibuild.stages.check import check

    with Store.open(db) as store:
        return check(store)


def _render_findings(result: CheckResult) -> None:
    from nlibuild.stages.check import pair_ids

    for finding in result.findings:
        out.print(
            f"{finding.description}: {counted(finding.pairs, 'pair')}{pair_ids(finding)}",
            markup=False,
        )
    if result.store_lang is not None:
        out.print(f"store language {result.store_lang!r}: not a language code", markup=False)
    out.print(_verdict(result), markup=False)


def _verdict(result: CheckResult) -> str:
    verdict = (
        "every check agrees with the votes"
        if not result.differences
        else counted(result.differences, "difference")
    )
    after = " after the repair" if result.repaired is not None else ""
    return f"Checked {counted(result.pairs_checked, 'pair')}{after}: {verdict}"


_FINDING_COLUMNS = ["check", "description", "pairs", "first_pair_ids"]


def _finding_rows(findings: list[CheckFinding]) -> list[tuple[str, str, int, str]]:
    return [(f.check, f.description, f.pairs, " ".join(f.first_pair_ids)) for f in findings]


def _finding_tables(result: CheckResult) -> list[NamedTable]:
    """Every check (the main table), then, with --repair, what was rewritten."""
    tables = [NamedTable("check-findings", "Checks", _FINDING_COLUMNS,
                         _finding_rows(result.findings))]  # fmt: skip
    if result.repaired is not None:
        tables.append(NamedTable("check-repairs", "Repaired", _FINDING_COLUMNS,
                                 _finding_rows(result.repaired)))  # fmt: skip
    return tables
