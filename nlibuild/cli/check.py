"""`nlibuild check [--repair]`: the hot path (`pair_labels`, the majority gold) recomputed
from the votes, every difference reported (nlibuild/stages/check.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    err,
    format_option,
    open_store,
    out,
    state_of,
    table_folder_option,
    user_errors,
)
from nlibuild.models import CheckConfig, CheckFinding, CheckResult, TableFormat
from nlibuild.options import choice
from nlibuild.render import (
    NamedTable,
    check_table_folder,
    counted,
    render_tables,
    write_tables,
)


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
    from nlibuild.stages.check import advice, run

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if out_dir is not None:
            check_table_folder(out_dir, fmt)
        store = open_store(state_of(ctx))
        with store:
            result = run(store, CheckConfig(repair=repair))
        if fmt is TableFormat.TABLE:
            _render_report(result)
        elif out_dir is not None:
            written = write_tables(out_dir, _finding_tables(result), fmt)
            out.print(f"{_verdict(result)}; wrote {', '.join(map(str, written))}", markup=False)
        else:
            render_tables(out, err, _finding_tables(result), fmt)
            if not result.differences:  # else the `Error:` line below says what differs
                err.print(_verdict(result), markup=False)
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
