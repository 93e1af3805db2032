"""The one table of label colours: the page's swatches (html.py) and every chart (plots.py)
read it, so entailment is the same green in a table, an SVG and a PNG of `stats --plot`.
Colours of series that are not labels (premise and hypothesis, the two cue shares) are none
of these, so a bar is never read as a label."""

from __future__ import annotations

LABEL_COLORS: dict[str, str] = {
    "entailment": "#54a24b",
    "neutral": "#eeca3b",
    "contradiction": "#e45756",
    "unrelated": "#b279a2",
    "unknown": "#9d755d",
    "-": "#bab0ac",  # no majority: the grey of "no label"
}
"""Tableau 10's colours; green, yellow and red as NLI papers colour their three labels."""

_OTHER_LABELS = ("#ff9da6", "#79706e", "#d67195", "#8cd17d")
"""A corpus's own labels (`--extra-labels`): one of these chosen by the name alone, so that
every chart and table of every store gives a label the same colour."""

PREMISE_COLOR = "#4c78a8"
HYPOTHESIS_COLOR = "#f58518"
SHARE_COLOR = "#4c78a8"
"""Bars of a statistic that is not per label (agreement)."""

DEV_COLOR = "#4c78a8"
TEST_COLOR = "#f58518"
PICK_COLOR = "#333333"
"""The accuracy-by-checkpoint chart's dev and test lines and the marks of the checkpoints
the selection rules pick: a split is not a label either."""


def label_color(label: str) -> str:
    """The colour of `label`: the table's, else one of the others by its name."""
    if label in LABEL_COLORS:
        return LABEL_COLORS[label]
    return _OTHER_LABELS[sum(map(ord, label)) % len(_OTHER_LABELS)]
