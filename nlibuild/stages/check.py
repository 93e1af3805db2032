"""`nlibuild check [--repair]`: recompute what the hot path keeps from the source rows.

`pair_labels` (schema 9) holds each pair's label counts, author label and majority gold so
that aggregation and the statistics read one narrow row a pair; every stage that adds votes
recounts it. This stage recomputes it from `votes` and reports every difference: rows whose
counts or author label differ, pairs with votes but no row, rows of pairs without votes,
and a stored gold that differs from the majority rule applied with the `min_agree` of the
run that wrote it, stale when votes came after that run, missing where a lost row came back
after `aggregate-labels` ran (whether it ran is read from `runs`: a store whose every row was
lost holds no other trace of its gold).

Without --repair it only reads (no run is recorded, like `info`). With --repair it rewrites
the differing rows' counts from the votes as one recorded run (stage `check-repair`) and
checks again. It never writes gold, not even on the rows it restores: gold is the decision of
an `aggregate-labels` run (its method and `min_agree`, the run `gold_run_id` and the
datasheet cite), and gold written before may rest on the counts that were wrong. So the check
after the repair names the pairs left without gold and asks for `aggregate-labels`, which
computes it anew after any repair.
"""

from __future__ import annotations

from pathlib import Path

from nlibuild.core.registry import CHECK_REPAIR
from nlibuild.core.stage import Stage
from nlibuild.models import CheckConfig, CheckFinding, CheckResult, lang_code_problem
from nlibuild.options import readable_lang, stored_lang_advice
from nlibuild.queries.pair_labels import (
    COUNTS_DIFFER,
    GOLD_DIFFERS,
    GOLD_MISSING,
    GOLD_STALE,
    ROW_MISSING,
    ROW_WITHOUT_VOTES,
    pair_label_differences,
    pair_label_row_count,
)
from nlibuild.render import counted
from nlibuild.store import Store

CHECKS = {
    COUNTS_DIFFER: "pair_labels counts or author label differ from the votes",
    ROW_MISSING: "pair_labels row missing for a pair with votes",
    ROW_WITHOUT_VOTES: "pair_labels row for a pair without votes",
    GOLD_STALE: "majority gold stale (votes came after the aggregate-labels run that wrote it)",
    GOLD_DIFFERS: "majority gold differs from the rule on the votes it was computed from",
    GOLD_MISSING: "majority gold missing (its pair_labels row was restored after aggregate-labels)",
}
"""Every check, in report order, with the line that reports it."""

PAIR_LABEL_CHECKS = (COUNTS_DIFFER, ROW_MISSING, ROW_WITHOUT_VOTES)
"""The checks whose differences --repair rewrites."""

FIRST_IDS = 5
"""Pair IDs a finding shows: enough to look a few up, short enough for one line."""


def _differences(store: Store) -> tuple[int, dict[str, list[tuple[int, str]]]]:
    """Pairs checked, and the (pair_pk, pair ID) of every difference by check."""
    found: dict[str, list[tuple[int, str]]] = {kind: [] for kind in CHECKS}
    for kind, pair_pk, pair_id in pair_label_differences(store):
        found[kind].append((pair_pk, pair_id))
    return pair_label_row_count(store) + len(found[ROW_MISSING]), found


def _finding(kind: str, pairs: list[tuple[int, str]]) -> CheckFinding:
    return CheckFinding(
        check=kind,
        description=CHECKS[kind],
        pairs=len(pairs),
        first_pair_ids=[pair_id for _, pair_id in pairs[:FIRST_IDS]],
    )


def check(store: Store) -> CheckResult:
    """Every difference between the hot path and the votes; writes nothing. The store's
    pages are checked first (`PRAGMA quick_check`): a check of the store that passed over
    a damaged page it does not read would say all is well."""
    store.check_intact()
    return _compared(store)


def _compared(store: Store) -> CheckResult:
    pairs_checked, found = _differences(store)
    lang = store.meta().get("lang", "en")
    return advised(
        CheckResult(
            pairs_checked=pairs_checked,
            findings=[_finding(kind, pairs) for kind, pairs in found.items()],
            store_lang=None if lang_code_problem(lang) is None else lang,
        ),
        store.path,
    )


def repair(store: Store, _cfg: CheckConfig) -> CheckResult:
    """Rewrite the differing `pair_labels` rows from the votes as one recorded run, and
    check again (a recounted or added row may now show its gold as stale or wrong).

    This stage is the repair whoever asks for it (`check --repair`, a recipe's
    `check-repair` step): its run is recorded with `repair = true` even where the settings
    were left at the model's default, so that the log says what was done."""
    with store.recorded_run(CHECK_REPAIR, CheckConfig(repair=True)) as run:
        _, before = _differences(store)
        recount = [pk for kind in (COUNTS_DIFFER, ROW_MISSING) for pk, _ in before[kind]]
        store.refresh_pair_labels(recount)
        store.remove_pair_labels(pk for pk, _ in before[ROW_WITHOUT_VOTES])
        lang_rewritten = _rewrite_old_lang(store)
        after = _compared(store)  # its pages were checked before the run began
        run.finish(
            {
                "recounted": len(before[COUNTS_DIFFER]),
                "added": len(before[ROW_MISSING]),
                "removed": len(before[ROW_WITHOUT_VOTES]),
                "differences_left": after.differences,
            }
            | ({"lang_rewritten": 1} if lang_rewritten else {})
        )
    return advised(
        after.model_copy(
            update={
                "repaired": [_finding(kind, before[kind]) for kind in PAIR_LABEL_CHECKS],
                "lang_rewritten": lang_rewritten,
                "run_id": run.id,
                "signature": run.signature,
            }
        ),
        store.path,
    )


def _rewrite_old_lang(store: Store) -> str | None:
    """The store's language as older releases could write it (`zh_CN`) rewritten as the
    code it stands for (`zh-CN`), in its meta and its corpus rows; the new code, or None
    when there was nothing to rewrite (or no code can be read from it)."""
    lang = store.meta().get("lang", "en")
    fixed = readable_lang(lang) if lang_code_problem(lang) is not None else None
    if fixed is not None:
        store.rewrite_corpus_lang(lang, fixed)
    return fixed


def pair_ids(finding: CheckFinding) -> str:
    """` (p1, p2 and 3 more)`: the first pairs a finding names, after its count."""
    if not finding.pairs:
        return ""
    more = finding.pairs - len(finding.first_pair_ids)
    return f" ({', '.join(finding.first_pair_ids)}{f' and {more} more' if more else ''})"


def summary(_cfg: CheckConfig, result: CheckResult) -> str:
    """What the repair rewrote; the checks after it are the CLI's report (`nlibuild check`)."""
    assert result.repaired is not None and result.run_id is not None, "a repair's result"
    actions = ", ".join(
        f"{action} {counted(f.pairs, 'row')}{pair_ids(f)}"
        for action, f in zip(("recounted", "added", "removed"), result.repaired, strict=True)
    )
    lang = (
        f"; rewrote the store's language as {result.lang_rewritten!r}"
        if result.lang_rewritten
        else ""
    )
    return f"Repaired pair_labels: {actions}{lang} (run {result.run_id}, {result.signature})"


def _pairs_found(result: CheckResult, kinds: tuple[str, ...]) -> int:
    return sum(f.pairs for f in result.findings if f.check in kinds)


def advice(result: CheckResult, path: Path) -> str | None:
    """What to do about the differences `result` found, as one sentence; None when every
    check agrees. A store language that is no code (`result.store_lang`) comes first: it
    refuses the stages that take it."""
    lang = None if result.store_lang is None else stored_lang_advice(path, result.store_lang)
    votes = _votes_advice(result)
    if lang is not None and votes is not None:
        return f"{lang}; and {votes}"
    return lang or votes


def _votes_advice(result: CheckResult) -> str | None:
    pair_labels = _pairs_found(result, PAIR_LABEL_CHECKS)
    stale = _pairs_found(result, (GOLD_STALE,))
    wrong = _pairs_found(result, (GOLD_DIFFERS,))
    missing = _pairs_found(result, (GOLD_MISSING,))
    if not pair_labels + stale + wrong + missing:
        return None
    problems = []
    if pair_labels:
        problems.append(f"pair_labels differs from the votes for {counted(pair_labels, 'pair')}")
    if stale:
        problems.append(f"the majority gold of {counted(stale, 'pair')} is stale")
    if wrong:
        problems.append(f"the majority gold of {counted(wrong, 'pair')} differs from the rule")
    if missing:
        problems.append(f"the majority gold of {counted(missing, 'pair')} is missing")
    # A repair run makes aggregate-labels compute the gold again even where no vote came
    # since (its up-to-date test): a wrong gold needs one, a stale one does not.
    steps = []
    if (pair_labels or wrong) and result.run_id is None:
        steps.append("`nlibuild check --repair`")
    if stale or wrong or missing:
        steps.append("`nlibuild aggregate-labels`")
    return f"{'; '.join(problems)}: run {', then '.join(steps)}"


def advised(result: CheckResult, path: Path) -> CheckResult:
    """`result` with its `advice`, so that every front end reads the CLI's line from it
    (after a repair, it asks for no second one)."""
    return result.model_copy(update={"advice": advice(result, path)})


STAGE = Stage(CHECK_REPAIR, settings=CheckConfig, run=repair, summary=summary)
