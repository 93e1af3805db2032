"""`stats --table pmi|cues` and `bias hypothesis-only`: annotation artifacts per group.

Each reads the pairs with their gold label (the majority, else the released label, else
the author's; pairs without one, or with `-`, are left out), optionally of some splits and
in a translation, and records itself as a run with its signature like every stage.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from nlibuild._version import VERSION
from nlibuild.artifacts import (
    accuracy_interval,
    default_units,
    model_texts,
    pmi_cues,
    single_sentence_model,
    units_label,
    word_lists,
)
from nlibuild.errors import ConfigError
from nlibuild.lang import length_unit, negator_lexicon, overlap_ratio, text_length
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
from nlibuild.render import counted
from nlibuild.signature import make_signature
from nlibuild.store import ArtifactPair, Store

ALL = "all"
"""The group of every pair, reported first (OCNLI Table 8's 'OCNLI' block)."""

NONE = "-"
"""The group of pairs without a value (no protocol, no level...)."""


def _group_of(by: ArtifactGroup | None) -> Callable[[ArtifactPair], str]:
    if by is None:
        return lambda _: ALL
    return lambda pair: getattr(pair, by.value) or NONE


def _check_splits(store: Store, option: str, names: Sequence[str], instead: str) -> None:
    """Every split named by `option` exists; else an error that says what to do."""
    present = set(store.split_counts())
    unknown = [name for name in names if name not in present]
    if not unknown:
        return
    if not present:
        raise ConfigError(
            f"{option} {','.join(unknown)}: the store has no splits yet; run `nlibuild split` "
            f"(or import released splits with `import --split`) first, or {instead}"
        )
    raise ConfigError(
        f"{option} {','.join(unknown)}: the store's splits are {', '.join(sorted(present))}"
    )


def _labelled(
    store: Store, scope: ArtifactScope, premises: bool = False
) -> tuple[list[ArtifactPair], int, int]:
    """The pairs in scope with an NLI gold label; the count left out without one and the
    count left out for want of a translation."""
    _check_splits(store, "--split", scope.splits, "leave --split out to read every pair")
    pairs, untranslated = store.artifact_pairs(scope.splits, scope.lang, premises)
    labelled = [p for p in pairs if p.label in NLI_LABELS]
    if scope.lang and not pairs:
        raise ConfigError(
            f"--lang {scope.lang}: no pair has a human translation into {scope.lang}; "
            "import one with `nlibuild translate import`"
        )
    if not labelled:
        raise ConfigError(
            "no pair in scope has a gold label; import a corpus, elicit pairs or run "
            "`nlibuild aggregate-labels`"
        )
    return labelled, len(pairs) - len(labelled), untranslated


def _scope_settings(scope: ArtifactScope) -> dict[str, object]:
    return {"split": scope.splits, "lang": scope.lang}


def pmi_table(store: Store, cfg: PmiConfig) -> PmiResult:
    """OCNLI Table 8: per group (and for all pairs first), the top (word, label) pairs."""
    with store.atomic():
        pairs, without_gold, untranslated = _labelled(store, cfg.scope)
        lang = pairs[0].lang
        units = cfg.units or default_units(lang)
        signature = make_signature(
            "stats-pmi",
            {"by": cfg.by.value if cfg.by else None, "top": cfg.top,
             "smoothing": cfg.smoothing, "min_count": cfg.min_count, "units": units.value,
             "per_label": cfg.per_label or None,
             **_scope_settings(cfg.scope)},
            VERSION,
        )  # fmt: skip
        run_id = store.start_run("stats-pmi", cfg.model_dump(mode="json"), signature, VERSION)
        rows: list[PmiRow] = []
        languages = sorted({p.lang for p in pairs})
        # Each language is cut into units by its own rules, once for every grouping.
        by_language = {lang: [p for p in pairs if p.lang == lang] for lang in languages}
        words = {
            lang: word_lists([p.hypothesis for p in mine], lang, units)
            for lang, mine in by_language.items()
        }
        for by in (None, cfg.by) if cfg.by else (None,):
            group = _group_of(by)
            found = []
            for language, mine in by_language.items():
                suffix = f" ({language})" if len(languages) > 1 else ""
                cues = pmi_cues(
                    words[language], [p.label or "" for p in mine], [group(p) for p in mine],
                    cfg.smoothing, cfg.min_count, cfg.top, cfg.per_label,
                )  # fmt: skip
                found += [(cue, suffix) for cue in cues]
            ranks: Counter[tuple[str, str]] = Counter()
            order = {label: i for i, label in enumerate(NLI_LABELS)}
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
        store.finish_run(
            run_id, {"pairs": len(pairs), "without_gold": without_gold, "rows": len(rows)}
        )
    return PmiResult(
        run_id=run_id, signature=signature, units=units_label(lang, units), pairs=len(pairs),
        without_gold=without_gold, untranslated=untranslated, rows=rows,
    )  # fmt: skip


def cue_table(store: Store, cfg: CuesConfig) -> CuesResult:
    """Per group and gold label: the share of hypotheses with a negator (the elicitation
    lexicons), their overlap with the premise (mean, histogram, share over the limit) and
    their mean length in the language's unit."""
    signature = make_signature(
        "stats-cues",
        {"by": cfg.by.value, "max_overlap": cfg.max_overlap,
         "negators": [p.name for p in cfg.negator_files], **_scope_settings(cfg.scope)},
        VERSION,
    )  # fmt: skip
    with store.atomic():
        pairs, without_gold, untranslated = _labelled(store, cfg.scope, premises=True)
        run_id = store.start_run("stats-cues", cfg.model_dump(mode="json"), signature, VERSION)
        lexicons = {
            lang: negator_lexicon(lang, cfg.negator_files) for lang in {p.lang for p in pairs}
        }
        edges = np.asarray(OVERLAP_BINS[1:-1])
        # Keyed (is it a group of --by, group, label, language): a writer or genre that is
        # called "all" stays apart from the row of every pair.
        tally: dict[tuple[bool, str, str, str], list[list[float]]] = defaultdict(
            lambda: [[], [], []]
        )
        by_group = _group_of(cfg.by)
        for pair in pairs:
            overlap = overlap_ratio(pair.hypothesis, pair.premise or "", pair.lang)
            negated = float(lexicons[pair.lang].negated(pair.hypothesis))
            length = float(text_length(pair.hypothesis, pair.lang))
            for grouped, group in ((False, ALL), (True, by_group(pair))):
                cell = tally[(grouped, group, pair.label or "", pair.lang)]
                cell[0].append(overlap)
                cell[1].append(negated)
                cell[2].append(length)
        rows = []
        several = len(lexicons) > 1
        order = {label: i for i, label in enumerate(NLI_LABELS)}
        keys = sorted(tally, key=lambda k: (k[0], k[1], k[3], order[k[2]]))
        for grouped, group, label, lang in keys:
            overlaps, negations, lengths = (
                np.asarray(v) for v in tally[(grouped, group, label, lang)]
            )
            n = len(overlaps)
            bins = np.bincount(np.searchsorted(edges, overlaps, side="right"),
                               minlength=len(OVERLAP_BINS) - 1)  # fmt: skip
            rows.append(
                CueRow(
                    group_by=cfg.by.value if grouped else ALL,
                    group=group + (f" ({lang})" if several else ""), label=label, pairs=n,
                    negated=float(negations.mean()) if not lexicons[lang].empty else None,
                    mean_overlap=float(overlaps.mean()),
                    overlap_bins=[float(b) / n for b in bins],
                    over_limit=float((overlaps > cfg.max_overlap).mean()),
                    mean_length=float(lengths.mean()), unit=length_unit(lang),
                )
            )  # fmt: skip
        store.finish_run(run_id, {"pairs": len(pairs), "rows": len(rows)})
    return CuesResult(
        run_id=run_id, signature=signature, pairs=len(pairs), without_gold=without_gold,
        untranslated=untranslated,
        unchecked_langs=sorted(lang for lang, lexicon in lexicons.items() if lexicon.empty),
        rows=rows,
    )  # fmt: skip


# --- the hypothesis-only baseline -----------------------------------------------------------


def _side(pair: ArtifactPair, premise_only: bool) -> str:
    return (pair.premise or "") if premise_only else pair.hypothesis


def hypothesis_only(store: Store, cfg: HypothesisOnlyConfig) -> HypothesisOnlyResult:
    """Train on one sentence of each pair and report accuracy per evaluation split and
    group beside the majority class of the training data (OCNLI Table 7). With
    `cross_validate`, K folds over every labelled pair instead, all pairs of a premise in
    one fold (so a premise's other hypotheses never train the model that is scored on it)."""
    side = "premise" if cfg.premise_only else "hypothesis"
    signature = make_signature(
        "bias-hypothesis-only",
        {"side": side, "train": None if cfg.cross_validate else cfg.train,
         "eval": () if cfg.cross_validate else cfg.eval, "cv": cfg.cross_validate,
         "by": [b.value for b in cfg.by], "lang": cfg.lang, "seed": cfg.seed},
        VERSION,
    )  # fmt: skip
    scope = ArtifactScope(
        splits=() if cfg.cross_validate else (cfg.train, *cfg.eval), lang=cfg.lang
    )
    with store.atomic():
        if not cfg.cross_validate:
            instead = "score folds with --cross-validate K"
            _check_splits(store, "--train", (cfg.train,), instead)
            _check_splits(store, "--eval", cfg.eval, instead)
        pairs, _, _ = _labelled(store, scope, cfg.premise_only)
        run_id = store.start_run(
            "bias-hypothesis-only", cfg.model_dump(mode="json"), signature, VERSION
        )
        lang = pairs[0].lang
        texts = model_texts([_side(p, cfg.premise_only) for p in pairs], lang)
        labels = np.asarray([p.label for p in pairs])
        if cfg.cross_validate:
            predicted, baseline, features, trained = _cross_validated(
                pairs, texts, labels, lang, cfg
            )
            evaluated = {"cv": np.arange(len(pairs))}
            # Each fold's baseline is its own training majority; they usually agree.
            fold_majorities = sorted(set(baseline.tolist()))
            majority = fold_majorities[0] if len(fold_majorities) == 1 else "per fold"
        else:
            split = np.asarray([p.split for p in pairs])
            train = np.flatnonzero(split == cfg.train)
            if not len(train):
                raise ConfigError(f"--train {cfg.train}: no labelled pair in that split")
            model = single_sentence_model(lang, cfg.seed)
            model.fit([texts[i] for i in train], labels[train])
            trained = len(train)
            features = _feature_count(model)
            majority = _majority(labels[train])
            predicted = np.asarray(model.predict(texts))
            baseline = np.full(len(pairs), majority)
            evaluated = {name: np.flatnonzero(split == name) for name in cfg.eval}
            empty = [name for name, at in evaluated.items() if not len(at)]
            if empty:
                raise ConfigError(f"--eval {','.join(empty)}: no labelled pair in that split")
        rows = []
        for name, at in evaluated.items():
            for by in (None, *cfg.by):
                group = _group_of(by)
                members: dict[str, list[int]] = defaultdict(list)
                for i in at.tolist():
                    members[group(pairs[i])].append(i)
                for value in sorted(members):
                    chosen = np.asarray(members[value])
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
        store.finish_run(run_id, {"train_pairs": trained, "rows": len(rows)})
    return HypothesisOnlyResult(
        run_id=run_id, signature=signature, side=side, train_pairs=trained, features=features,
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
    pairs: Sequence[ArtifactPair],
    texts: list[str],
    labels: np.ndarray,
    lang: str,
    cfg: HypothesisOnlyConfig,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Out-of-fold predictions and majority baselines (each fold's training majority)."""
    from sklearn.model_selection import StratifiedGroupKFold

    k = cfg.cross_validate or 2
    premises = np.asarray([p.premise_pk for p in pairs])
    if len(set(premises.tolist())) < k:
        raise ConfigError(
            f"--cross-validate {k}: only {counted(len(set(premises.tolist())), 'premise')}; "
            "give fewer folds"
        )
    folds = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=cfg.seed)
    predicted = np.empty(len(pairs), dtype=object)
    baseline = np.empty(len(pairs), dtype=object)
    features = trained = 0
    for train, test in folds.split(texts, labels, premises):
        model = single_sentence_model(lang, cfg.seed)
        model.fit([texts[i] for i in train], labels[train])
        predicted[test] = model.predict([texts[i] for i in test])
        baseline[test] = _majority(labels[train])
        features = max(features, _feature_count(model))
        trained = max(trained, len(train))
    return predicted.astype(str), baseline.astype(str), features, trained
