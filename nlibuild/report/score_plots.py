"""The report page's accuracy-by-checkpoint chart: a model group's dev and test accuracy per
language over training, with the checkpoints the selection rules pick marked.

Keung et al. 2020 show that which checkpoint a zero-shot run reports moves its target
accuracy by points (their Tables 2 and 5); the chart shows why: target test wanders while En
dev is flat, and the En-dev pick and the target-dev pick (Keung's oracle) land on different
checkpoints. Every point is a row of `score report --per-checkpoint` and every mark a row of
`score report --per-seed`, so the chart says nothing the command does not. matplotlib
loads inside the function, as in plots.py.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlibuild.models import CheckpointRow, SeedRow, SelectRule
from nlibuild.report.colors import DEV_COLOR, PICK_COLOR, TEST_COLOR
from nlibuild.report.plots import _WIDTH

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PICK_MARKERS: dict[str, tuple[str, str]] = {
    SelectRule.EN_DEV.value: ("o", "en-dev pick"),
    SelectRule.TARGET_DEV.value: ("^", "target-dev pick (Keung's oracle)"),
}
"""The rules whose picks the chart marks (on the test line), and each mark's shape and name:
the usual practice and the oracle, whose gap is Keung et al.'s Table 5."""

PANELS_PER_ROW = 4
"""Languages side by side before the panels wrap (XNLI's 15 make four rows)."""

Positions = dict[tuple[str, int], float]
"""(job, checkpoint) -> where it stands on the x axis."""

EPOCH = "epoch"
STEP = "step"


def progress_unit(rows: Sequence[CheckpointRow]) -> str:
    """The x axis's unit: epochs (the paper's "training progress"), unless some job's
    checkpoints share an epoch (a job imported without it); then steps."""
    epochs: dict[str, dict[int, float]] = defaultdict(dict)
    for row in rows:
        epochs[row.job][row.checkpoint] = row.epoch
    distinct = all(len(set(found.values())) == len(found) for found in epochs.values())
    return EPOCH if distinct else STEP


def checkpoint_positions(rows: Sequence[CheckpointRow], unit: str) -> Positions:
    """Each checkpoint's place on the x axis, in `unit`."""
    return {(row.job, row.checkpoint): row.epoch if unit == EPOCH else float(row.step)
            for row in rows}  # fmt: skip


def checkpoint_figure(rows: Sequence[CheckpointRow], picks: Sequence[SeedRow]) -> Figure:
    """One panel a language (the training language first, as the rows come), a thin line a
    seed for its dev and its test accuracy, and on the test line each seed's en-dev and
    target-dev picks. `rows` and `picks` are one model group's."""
    from matplotlib.figure import Figure

    langs = list(dict.fromkeys(row.lang for row in rows))
    columns = max(1, min(len(langs), PANELS_PER_ROW))
    lines = max(1, math.ceil(len(langs) / columns))
    figure = Figure(figsize=(_WIDTH, 0.9 + 2.1 * lines), layout="constrained")
    axes = list(figure.subplots(lines, columns, squeeze=False).flat)
    unit = progress_unit(rows)
    positions = checkpoint_positions(rows, unit)
    for axis, lang in zip(axes, langs, strict=False):
        _draw_lines(axis, [row for row in rows if row.lang == lang], positions)
        _draw_picks(axis, [pick for pick in picks if pick.lang == lang], positions)
        axis.set_title(lang, fontsize=10)
        axis.tick_params(labelsize=8)
    for axis in axes[len(langs) :]:
        axis.set_visible(False)
    figure.supxlabel(f"training progress ({unit}s)", fontsize=9)
    figure.supylabel("accuracy (share of rows right)", fontsize=9)
    handles, names = axes[0].get_legend_handles_labels()
    figure.legend(handles, names, loc="outside upper center", ncols=len(names), fontsize=8)
    return figure


def _draw_lines(axis: Any, rows: Sequence[CheckpointRow], positions: Positions) -> None:
    """Each seed's dev and test line: thin where there are several seeds, so that their
    spread shows; named once in the legend."""
    jobs = list(dict.fromkeys(row.job for row in rows))
    width = 0.9 if len(jobs) > 1 else 1.6
    for number, job in enumerate(jobs):
        mine = sorted((row for row in rows if row.job == job), key=lambda row: row.checkpoint)
        for split, color in (("dev", DEV_COLOR), ("test", TEST_COLOR)):
            points = [(positions[(job, row.checkpoint)], value) for row in mine
                      if (value := getattr(row, f"{split}_accuracy")) is not None]  # fmt: skip
            name = split if number == 0 else "_nolegend_"
            # A job of one checkpoint is a point: a line of one point draws nothing.
            dot = "." if len(points) == 1 else None
            axis.plot([x for x, _ in points], [y for _, y in points], color=color,
                      linewidth=width, alpha=0.8, label=name, marker=dot)  # fmt: skip


def _draw_picks(axis: Any, picks: Sequence[SeedRow], positions: Positions) -> None:
    """Each seed's picked checkpoint under the marked rules, at its test accuracy."""
    for rule, (marker, name) in PICK_MARKERS.items():
        chosen = [pick for pick in picks if pick.select == rule]
        axis.plot([positions[(pick.job, pick.checkpoint)] for pick in chosen],
                  [pick.test_accuracy for pick in chosen], linestyle="none", marker=marker,
                  markersize=7, markerfacecolor="none", markeredgecolor=PICK_COLOR,
                  markeredgewidth=1.3, label=name, zorder=3)  # fmt: skip
