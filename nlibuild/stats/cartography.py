"""`stats --table cartography`: the ambiguous and hard-to-learn pairs of a score run's
training dynamics (Swayamdipta et al. 2020), for `relabel create --pairs`."""

from __future__ import annotations

from rich.console import Console

from nlibuild.models import CartographyConfig, CartographyResult, RegionRule, TableFormat
from nlibuild.render import counted
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows
from nlibuild.store import Store


def cartography_settings(options: StatsOptions, store: Store) -> CartographyConfig:
    given = {"run": options.run, "job": options.job, "mode": options.mode,
             "regions": options.regions, "top": options.top, "out": options.out}  # fmt: skip
    return CartographyConfig(**{key: value for key, value in given.items() if value is not None})


def compute_cartography(store: Store, settings: CartographyConfig) -> CartographyResult:
    from nlibuild.core.outputs import refuse_outputs_onto_store
    from nlibuild.scores.cartography import cartography

    refuse_outputs_onto_store(store.path, settings)
    return cartography(store, settings)


def cartography_facts(result: CartographyResult, settings: CartographyConfig) -> list[Fact]:
    """What the title and the regions line say of the map every row is from: the score run,
    the model and mode, the job (when one alone is mapped) and how many were averaged, how
    many pairs each list holds, and the rule the regions were counted by."""
    job = result.job_names[0] if result.jobs == 1 else None
    return [("run", result.run_id), ("model", result.model), ("mode", result.mode),
            ("job", job), ("jobs", result.jobs), ("top", settings.top),
            ("region_rule", result.region_rule.value)]  # fmt: skip


def render_cartography(
    result: CartographyResult, settings: CartographyConfig, fmt: TableFormat, out: Console
) -> None:
    render_rows(
        out,
        f"Dataset cartography (Swayamdipta et al. 2020) of {mapped(result)}: the "
        f"{settings.top} most ambiguous and hardest-to-learn pairs",
        ["list", "pair", "gold", "confidence", "variability", "correctness", "premise",
         "hypothesis"],
        [(r.list, r.pair, r.gold, r.confidence, r.variability,
          UNAVAILABLE if r.correctness is None else r.correctness, r.premise, r.hypothesis)
         for r in result.rows],
        fmt,
        cartography_facts(result, settings),
        decimals=3,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        out.print(regions_line(result, settings), markup=False)
        if not result.correctness:
            out.print(CORRECTNESS_UNAVAILABLE, markup=False)


UNAVAILABLE = "n.a."
CORRECTNESS_UNAVAILABLE = (
    "correctness n.a.: a mapped job's files are of version 1, which recorded the gold "
    "label's probability but not whether it was the argmax; train the job again to have it"
)


def mapped(result: CartographyResult) -> str:
    """What the map is of: a job, or a model and mode's seeds, and the run."""
    if result.jobs == 1:
        return f"job {result.job_names[0]} (score run {result.run_id})"
    return (f"{result.model}, mode {result.mode}, {counted(result.jobs, 'seed')} averaged "
            f"(score run {result.run_id})")  # fmt: skip


def regions_line(result: CartographyResult, settings: CartographyConfig) -> str:
    regions = ", ".join(f"{name} {count}" for name, count in result.regions.items())
    if result.region_rule is RegionRule.OVERLAPPING:
        rule = f"the paper's overlapping thirds, {counted(result.in_two, 'pair')} in two"
    else:
        rule = "exclusive: ambiguous first, then hard, then easy"
    written = (
        f"; {counted(result.written, 'pair ID')} written to {settings.out}"
        if result.written is not None else ""
    )  # fmt: skip
    return (
        f"{counted(result.pairs, 'pair')} over {counted(result.jobs, 'job')}; "
        f"regions ({rule}): {regions}{written}"
    )


TABLE = StatsTable(
    name="cartography",
    rank=90,
    help="Dataset cartography (Swayamdipta et al. 2020), the data map of one training job "
    "(--job NAME) or of one mode's jobs (--mode MODE, their seeds averaged; modes are never "
    "mixed): per training pair, confidence (the mean over epochs of the gold label's "
    "probability), variability (its standard deviation; 2 epochs at least) and correctness "
    "(the share of epochs where the gold label was the argmax; n.a. for jobs of files "
    "version 1). Lists the --top (default 20) pairs of highest variability (ambiguous) and of "
    "lowest confidence (hard to learn), and counts the paper's regions: the top 33% by "
    "confidence (easy), the bottom 33% by confidence (hard), the top 33% by variability "
    "(ambiguous), which overlap; --regions exclusive puts each pair in the first of "
    "ambiguous, hard, easy, else other. --out FILE writes the listed pair IDs, one a line, "
    "for `relabel create --pairs FILE`. --run picks the score run (default: the newest with "
    "training dynamics).",
    options=frozenset({"run", "job", "mode", "regions", "top", "out"}),
    settings=cartography_settings,
    compute=compute_cartography,
    render=render_cartography,
    rows=lambda result, settings: result.rows,
    facts=cartography_facts,
)
