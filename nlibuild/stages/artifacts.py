"""`stats --table pmi|cues` and `bias hypothesis-only`: annotation artifacts per group.

Each reads the pairs with their gold label (the majority, else the released label, else
the author's; pairs without one, or with `-`, are left out), optionally of some splits and
in a translation, and records itself as a run with its signature like every stage.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import polars as pl

from nlibuild.core.progress import step
from nlibuild.core.registry import BIAS_HYPOTHESIS_ONLY, STATS_CUES, STATS_PMI
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.labelling.artifacts import (
    accuracy_interval,
    default_units,
    model_texts,
    pmi_cues,
    single_sentence_model,
    units_label,
    word_lists,
)
from nlibuild.models import (
    NLI_LABELS,
    OVERLAP_BINS,
    ArtifactGroup,
    ArtifactScope,
    CueRow,
    CuesConfig,
    CuesResult,
    HypothesisOnlyConfig,
    HypothesisOnlyResult,
    HypothesisOnlyRow,
    PmiConfig,
    PmiResult,
    PmiRow,
)
from nlibuild.queries.artifacts import artifact_columns
from nlibuild.queries.splits import pairs_per_split
from nlibuild.render import counted, run_note
from nlibuild.store import Store
from nlibuild.text.lang import length_unit, text_length
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import overlap_share, overlap_unit_name, table_overlap_units

ALL = "all"
"""The group of every pair, reported first (OCNLI Table 8's 'OCNLI' block)."""

NONE = "-"
"""The group of pairs without a value (no protocol, no level...)."""


def _groups(frame: pl.DataFrame, by: ArtifactGroup | None) -> list[str]:
    """The group of each row: ALL without `by`, else its value (NONE where it has none)."""
    if by is None:
        return [ALL] * frame.height
    return frame[by.value].fill_null(NONE).cast(pl.String).to_list()


def _check_splits(store: Store, named: Sequence[tuple[str, Sequence[str]]], instead: str) -> None:
    """Every split each option names exists ((option, splits) pairs, one read of the
    store); else an error that names the option and says what to do."""
    if not any(names for _, names in named):
        return
    present = set(pairs_per_split(store))
    for option, names in named:
        unknown = [name for name in names if name not in present]
        if not unknown:
            continue
        if not present:
            raise ConfigError(
                f"{option} {','.join(unknown)}: the store has no splits yet; run `nlibuild "
                f"split` (or import released splits with `import --split`) first, or {instead}"
            )
        raise ConfigError(
            f"{option} {','.join(unknown)}: the store's splits are {', '.join(sorted(present))}"
        )


def _labelled(
    store: Store, scope: ArtifactScope, fields: Sequence[str]
) -> tuple[pl.DataFrame, int, int]:
    """The pairs in scope with an NLI gold label (the columns `fields`, label and lang);
    the count left out without one and the count left out for want of a translation.
    The splits of `scope` are checked by the caller (`_check_splits`)."""
    wanted = list(dict.fromkeys([*fields, "label", "lang"]))
    columns, untranslated = artifact_columns(store, wanted, scope.splits, scope.lang)
    frame = pl.DataFrame(columns, schema={f: _FIELD_TYPES.get(f, pl.String) for f in wanted})
    del columns
    labelled = frame.filter(pl.col("label").is_in(NLI_LABELS))
    if scope.lang and not frame.height:
        raise ConfigError(
            f"--lang {scope.lang}: no pair has a human translation into {scope.lang}; "
            "import one with `nlibuild translate import`"
        )
    if not labelled.height:
        raise ConfigError(
            "no pair in scope has a gold label; import a corpus, elicit pairs or run "
            "`nlibuild aggregate-labels`"
        )
    return labelled, frame.height - labelled.height, untranslated


_FIELD_TYPES = {"pk": pl.Int64, "premise_pk": pl.Int64}


_EVERY_PAIR = "leave --split out to read every pair"


def pmi_table(store: Store, cfg: PmiConfig) -> PmiResult:
    """OCNLI Table 8: per group (and for all pairs first), the top (word, label) pairs."""
    with store.recorded_run(STATS_PMI, cfg) as run:
        fields = ["hypothesis", *(by.value for by in cfg.by)]
        _check_splits(store, [("--split", cfg.scope.splits)], _EVERY_PAIR)
        frame, without_gold, untranslated = _labelled(store, cfg.scope, fields)
        languages = sorted(set(frame["lang"].to_list()))
        # Each language is cut into its own units (Chinese by jieba...), once for every
        # grouping.
        units = {lang: cfg.units or default_units(lang) for lang in languages}
        run_id = run.id
        parts = {lang: frame.filter(pl.col("lang") == lang) for lang in languages}
        del frame
        words = {
            lang: word_lists(part["hypothesis"].to_list(), lang, units[lang])
            for lang, part in parts.items()
        }
        rows: list[PmiRow] = []
        order = {label: i for i, label in enumerate(NLI_LABELS)}
        for by in (None, *cfg.by):  # all pairs, then a section per grouping
            found = []
            for lang, part in parts.items():
                suffix = f" ({lang})" if len(languages) > 1 else ""
                cues = pmi_cues(
                    words[lang], part["label"].to_list(), _groups(part, by), cfg.smoothing,
                    cfg.min_count, cfg.top, cfg.per_label,
                )  # fmt: skip
                found += [(cue, suffix) for cue in cues]
            ranks: Counter[tuple[str, str]] = Counter()
            for cue, suffix in sorted(
                found,
                key=lambda f: (f[0].group + f[1], order[f[0].label] if cfg.per_label else 0,
                               -round(f[0].pmi, 12), -f[0].count, f[0].word,
                               order[f[0].label]),
            ):  # fmt: skip
                name = cue.group + suffix
                ranks[(name, cue.label if cfg.per_label else "")] += 1
                rows.append(
                    PmiRow(
                        group_by=by.value if by else ALL, group=name, pairs=cue.pairs,
                        rank=ranks[(name, cue.label if cfg.per_label else "")], word=cue.word,
                        label=cue.label, pmi=cue.pmi, count=cue.count,
                        word_count=cue.word_count,
                    )
                )  # fmt: skip
        pairs = sum(part.height for part in parts.values())
        run.finish({"pairs": pairs, "without_gold": without_gold, "rows": len(rows)})
    described = sorted({units_label(lang, units[lang]) for lang in languages})
    return PmiResult(
        run_id=run_id, signature=run.signature, units="; ".join(described), pairs=pairs,
        without_gold=without_gold, untranslated=untranslated, rows=rows,
    )  # fmt: skip


def cue_table(store: Store, cfg: CuesConfig) -> CuesResult:
    """Per group and gold label: the share of hypotheses with a negator (the elicitation
    lexicons), their overlap share under the configured measure (mean, histogram, share
    over the limit) and their mean length in the language's unit."""
    with store.recorded_run(STATS_CUES, cfg) as run:
        _check_splits(store, [("--split", cfg.scope.splits)], _EVERY_PAIR)
        frame, without_gold, untranslated = _labelled(
            store, cfg.scope, ["hypothesis", "premise", *(by.value for by in cfg.by)]
        )
        run_id = run.id
        langs = frame["lang"].to_list()
        lexicons = {lang: negator_lexicon(lang, cfg.negator_files) for lang in set(langs)}
        units_of = {lang: table_overlap_units(lang, cfg.overlap_units) for lang in lexicons}
        edges = np.asarray(OVERLAP_BINS[1:-1])
        # Keyed (grouping: 0 for all pairs, k for the k-th of --by; group, label, language):
        # a writer or genre that is called "all" stays apart from the row of every pair.
        tally: dict[tuple[int, str, str, str], list[list[float]]] = defaultdict(
            lambda: [[], [], []]
        )
        groups = list(zip(*(_groups(frame, by) for by in cfg.by), strict=True))
        for hypothesis, premise, lang, label, in_groups in zip(
            frame["hypothesis"].to_list(), frame["premise"].to_list(), langs,
            frame["label"].to_list(), groups, strict=True,
        ):  # fmt: skip
            overlap = overlap_share(hypothesis, premise or "", lang, cfg.overlap_measure,
                                    units_of[lang])  # fmt: skip
            negated = float(lexicons[lang].negated(hypothesis))
            length = float(text_length(hypothesis, lang))
            keys = [(k, group, label, lang) for k, group in enumerate(in_groups, 1)]
            for key in [(0, ALL, label, lang), *keys]:
                cell = tally[key]
                cell[0].append(overlap)
                cell[1].append(negated)
                cell[2].append(length)
        rows = []
        several = len(lexicons) > 1
        order = {label: i for i, label in enumerate(NLI_LABELS)}
        keys = sorted(tally, key=lambda k: (k[0], k[1], k[3], order[k[2]]))
        for grouping, group, label, lang in keys:
            overlaps, negations, lengths = (
                np.asarray(v) for v in tally[(grouping, group, label, lang)]
            )
            n = len(overlaps)
            bins = np.bincount(np.searchsorted(edges, overlaps, side="right"),
                               minlength=len(OVERLAP_BINS) - 1)  # fmt: skip
            rows.append(
                CueRow(
                    group_by=cfg.by[grouping - 1].value if grouping else ALL,
                    group=group + (f" ({lang})" if several else ""), label=label, pairs=n,
                    negated=float(negations.mean()) if not lexicons[lang].empty else None,
                    mean_overlap=float(overlaps.mean()),
                    overlap_bins=[float(b) / n for b in bins],
                    over_limit=float((overlaps > cfg.max_overlap).mean()),
                    mean_length=float(lengths.mean()), unit=length_unit(lang),
                    overlap_unit=overlap_unit_name(lang, units_of[lang]),
                )
            )  # fmt: skip
        run.finish({"pairs": frame.height, "rows": len(rows)})
    return CuesResult(
        run_id=run_id, signature=run.signature, pairs=frame.height, without_gold=without_gold,
        untranslated=untranslated,
        unchecked_langs=sorted(lang for lang, lexicon in lexicons.items() if lexicon.empty),
        rows=rows,
    )  # fmt: skip


# --- the hypothesis-only baseline -----------------------------------------------------------


def hypothesis_only(store: Store, cfg: HypothesisOnlyConfig) -> HypothesisOnlyResult:
    with step("bias hypothesis-only", "models trained and scored"):
        return _hypothesis_only(store, cfg)


def _hypothesis_only(store: Store, cfg: HypothesisOnlyConfig) -> HypothesisOnlyResult:
    """Train on one sentence of each pair and report accuracy per evaluation split and
    group beside the majority class of the training data (OCNLI Table 7). With
    `cross_validate`, K folds over every labelled pair instead, all pairs of a premise in
    one fold (so a premise's other hypotheses never train the model that is scored on it)."""
    side = "premise" if cfg.premise_only else "hypothesis"
    scope = ArtifactScope(
        splits=() if cfg.cross_validate else (cfg.train, *cfg.eval), lang=cfg.lang
    )
    with store.recorded_run(BIAS_HYPOTHESIS_ONLY, cfg) as run:
        if not cfg.cross_validate:
            instead = "score folds with --cross-validate K"
            _check_splits(store, [("--train", (cfg.train,)), ("--eval", cfg.eval)], instead)
        fields = [side, "id", "premise_id", "split", *(b.value for b in cfg.by)]
        frame, _, _ = _labelled(store, scope, fields)
        # Rows come in key order, which is the order the lines were imported in, and the
        # folds follow the rows (and the premises' keys would too): in the order of the
        # public IDs, the same pairs train and score the same models however they came.
        frame = frame.sort("id")
        run_id = run.id
        lang = frame["lang"][0]
        texts = model_texts(frame[side].fill_null("").to_list(), lang)
        labels = frame["label"].to_numpy().astype(str)
        if cfg.cross_validate:
            predicted, baseline, features, trained = _cross_validated(
                frame["premise_id"].to_numpy(), texts, labels, lang, cfg
            )
            evaluated = {"cv": np.arange(frame.height)}
            # Each fold's baseline is its own training majority; they usually agree.
            fold_majorities = sorted(set(baseline.tolist()))
            majority = fold_majorities[0] if len(fold_majorities) == 1 else "per fold"
        else:
            split = frame["split"].fill_null("").to_numpy().astype(str)
            train = np.flatnonzero(split == cfg.train)
            if not len(train):
                raise ConfigError(f"--train {cfg.train}: no labelled pair in that split")
            model = single_sentence_model(lang, cfg.seed)
            model.fit([texts[i] for i in train], labels[train])
            trained = len(train)
            features = _feature_count(model)
            majority = _majority(labels[train])
            baseline = np.full(frame.height, majority)
            evaluated = {name: np.flatnonzero(split == name) for name in cfg.eval}
            empty = [name for name, at in evaluated.items() if not len(at)]
            if empty:
                raise ConfigError(f"--eval {','.join(empty)}: no labelled pair in that split")
            # Only the evaluated pairs are predicted (the training split is not scored).
            predicted = np.full(frame.height, "", dtype=object)
            scored = np.concatenate(list(evaluated.values()))
            predicted[scored] = model.predict([texts[i] for i in scored])
            predicted = predicted.astype(str)
        rows = []
        group_of = {by: np.asarray(_groups(frame, by)) for by in (None, *cfg.by)}
        for name, at in evaluated.items():
            for by, groups in group_of.items():
                for value in sorted(set(groups[at].tolist())):
                    chosen = at[groups[at] == value]
                    correct = predicted[chosen] == labels[chosen]
                    low, high = accuracy_interval(correct, cfg.ci, cfg.resamples, cfg.seed)
                    rows.append(
                        HypothesisOnlyRow(
                            eval=name, group_by=by.value if by else ALL, group=value,
                            pairs=len(chosen), accuracy=float(correct.mean()), low=low,
                            high=high, majority_label=majority,
                            majority_accuracy=float((baseline[chosen] == labels[chosen]).mean()),
                        )
                    )  # fmt: skip
        run.finish({"train_pairs": trained, "rows": len(rows)})
    return HypothesisOnlyResult(
        run_id=run_id, signature=run.signature, side=side, train_pairs=trained, features=features,
        rows=rows,
    )  # fmt: skip


def _majority(labels: np.ndarray) -> str:
    """The most frequent label; ties go to the first in entailment, neutral, contradiction."""
    counts = Counter(labels.tolist())
    return max(NLI_LABELS, key=lambda label: (counts[label], -NLI_LABELS.index(label)))


def _feature_count(model: object) -> int:
    features = model.named_steps["features"]  # type: ignore[attr-defined]
    return sum(len(t.vocabulary_) for _, t in features.transformer_list)


def _cross_validated(
    premises: np.ndarray,
    texts: list[str],
    labels: np.ndarray,
    lang: str,
    cfg: HypothesisOnlyConfig,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Out-of-fold predictions and majority baselines (each fold's training majority);
    `premises` holds each pair's premise ID, all pairs of a premise going to one fold."""
    from sklearn.model_selection import StratifiedGroupKFold

    k = cfg.cross_validate or 2
    distinct = len(set(premises.tolist()))
    if distinct < k:
        raise ConfigError(
            f"--cross-validate {k}: only {counted(distinct, 'premise')}; give fewer folds"
        )
    folds = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=cfg.seed)
    predicted = np.empty(len(texts), dtype=object)
    baseline = np.empty(len(texts), dtype=object)
    features = trained = 0
    for train, test in folds.split(texts, labels, premises):
        model = single_sentence_model(lang, cfg.seed)
        model.fit([texts[i] for i in train], labels[train])
        predicted[test] = model.predict([texts[i] for i in test])
        baseline[test] = _majority(labels[train])
        features = max(features, _feature_count(model))
        trained = max(trained, len(train))
    return predicted.astype(str), baseline.astype(str), features, trained


# --- the stages and their lines -------------------------------------------------------------


def left_out(without_gold: int, untranslated: int, lang: str | None) -> str:
    """The pairs a table could not count: without a gold label, and (read in a translation)
    without one."""
    parts = [f"{counted(without_gold, 'pair')} without a gold label left out"]
    if lang:
        parts.append(f"{counted(untranslated, 'pair')} without a {lang} translation left out")
    return "; ".join(parts)


def table_summary(cfg: PmiConfig | CuesConfig, result: PmiResult | CuesResult) -> str:
    """The line under `stats --table pmi|cues`: the pairs counted, those left out, the run."""
    left = left_out(result.without_gold, result.untranslated, cfg.scope.lang)
    return f"{counted(result.pairs, 'pair')}; {left} {run_note(result)}"


def hypothesis_only_summary(_cfg: HypothesisOnlyConfig, result: HypothesisOnlyResult) -> str:
    return (
        f"Trained on {counted(result.train_pairs, 'pair')}, {result.features:,} features "
        f"{run_note(result)}"
    )


HYPOTHESIS_ONLY_STAGE = Stage(
    BIAS_HYPOTHESIS_ONLY,
    settings=HypothesisOnlyConfig,
    run=hypothesis_only,
    summary=hypothesis_only_summary,
)
PMI_STAGE = Stage(STATS_PMI, settings=PmiConfig, run=pmi_table, summary=table_summary)
CUES_STAGE = Stage(STATS_CUES, settings=CuesConfig, run=cue_table, summary=table_summary)
