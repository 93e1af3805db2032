"""`nlibuild translate qa`: machine translations scored against human ones with sacrebleu.

XTREME checked its machine-translated test sets with BLEU and chrF. Every score carries
sacrebleu's own signature (its settings), as sacrebleu prints them. BLEU's tokenizer is
chosen per language: `zh` for Chinese (sacrebleu's Chinese segmentation), `char` where words
are not delimited by spaces and no offline segmenter is at hand (Japanese and Korean
without MeCab, Thai, Burmese), else `13a`, sacrebleu's default. chrF works on characters
and needs no tokenizer, which is why it is the score to read for Burmese; TER gets
`asian_support` for those languages. Only the scores in `--metrics` are computed (BLEU and
chrF by default, XTREME's two): TER took 14 of the 17 seconds on myXNLI's Swahili test set.
The lowest segments are ranked by sentence chrF whichever scores are asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nlibuild.core.progress import Advance, progress
from nlibuild.core.registry import TRANSLATE_QA
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.models import QaMetric, TranslateQaConfig, TranslateQaResult, WorstSegment
from nlibuild.queries.translations import translations_in
from nlibuild.render import Cell, NamedTable, counted, run_note
from nlibuild.store import Store
from nlibuild.text.lang import primary_language

CHARACTER_TOKENIZED = frozenset({"ja", "ko", "th", "my"})


def bleu_tokenizer(lang: str) -> tuple[str, str]:
    """(sacrebleu tokenizer name, why) for BLEU on `lang`."""
    code = primary_language(lang)
    if code == "zh":
        return "zh", "sacrebleu's Chinese tokenizer"
    if code in CHARACTER_TOKENIZED:
        return "char", f"characters: {code} has no spaces between words (no offline segmenter)"
    return "13a", "sacrebleu's default (mteval-v13a)"


def _corpus_scores(
    cfg: TranslateQaConfig,
    tokenizer: str,
    hypotheses: list[str],
    references: list[list[str]],
    advance: Advance,
) -> dict[QaMetric, tuple[float, str]]:
    """(score, sacrebleu signature) of each metric of `cfg.metrics`; `advance(1)` after each."""
    from sacrebleu.metrics.bleu import BLEU  # imported here: slow to load
    from sacrebleu.metrics.chrf import CHRF
    from sacrebleu.metrics.ter import TER

    asian = primary_language(cfg.lang) in CHARACTER_TOKENIZED | {"zh"}
    makers: dict[QaMetric, Callable[[], Any]] = {
        QaMetric.BLEU: lambda: BLEU(tokenize=tokenizer),
        QaMetric.CHRF: CHRF,
        QaMetric.TER: lambda: TER(asian_support=asian),
    }
    scores = {}
    for metric in cfg.metrics:
        scorer = makers[metric]()
        score = scorer.corpus_score(hypotheses, references).score
        scores[metric] = (float(score), str(scorer.get_signature()))
        advance(1)
    return scores


def run(store: Store, cfg: TranslateQaConfig) -> TranslateQaResult:
    from sacrebleu.metrics.chrf import CHRF

    if cfg.hyp is cfg.ref:
        raise ConfigError("--hyp and --ref must be different kinds (mt and human)")
    hyps = translations_in(store, cfg.lang, cfg.hyp.value)
    refs = translations_in(store, cfg.lang, cfg.ref.value)
    units = sorted(set(hyps) & set(refs))
    if not units:
        raise ConfigError(
            f"no unit of {cfg.lang} has both a {cfg.hyp.value} and a {cfg.ref.value} translation;"
            f" import them with `nlibuild translate import FILE --lang {cfg.lang} --kind ...`"
        )
    tokenizer, why = bleu_tokenizer(cfg.lang)
    # Each corpus score, then the sentence chrF of every segment: one step each.
    with progress(f"translate qa {cfg.lang}", len(cfg.metrics) + 1, "scores") as advance:
        hypotheses, references = [hyps[u] for u in units], [[refs[u] for u in units]]
        scores = _corpus_scores(cfg, tokenizer, hypotheses, references, advance)
        chrf = CHRF()
        per_segment = sorted((chrf.sentence_score(hyps[u], [refs[u]]).score, u) for u in units)
        advance(1)
    per_segment = per_segment[: cfg.worst]
    with store.recorded_run(TRANSLATE_QA, cfg) as run:
        run_id = run.id
        run.finish({"segments": len(units)})
    empty = (None, None)
    return TranslateQaResult(
        run_id=run_id,
        signature=run.signature,
        segments=len(units),
        tokenizer=f"{tokenizer} ({why})",
        bleu=scores.get(QaMetric.BLEU, empty)[0],
        bleu_signature=scores.get(QaMetric.BLEU, empty)[1],
        chrf=scores.get(QaMetric.CHRF, empty)[0],
        chrf_signature=scores.get(QaMetric.CHRF, empty)[1],
        ter=scores.get(QaMetric.TER, empty)[0],
        ter_signature=scores.get(QaMetric.TER, empty)[1],
        worst=[
            WorstSegment(unit_id=u, chrf=score, hypothesis=hyps[u], reference=refs[u])
            for score, u in per_segment
        ],
    )


def summary(cfg: TranslateQaConfig, result: TranslateQaResult) -> str:
    return (
        f"Scored {counted(result.segments, 'segment')}; BLEU tokenizer {result.tokenizer} "
        f"{run_note(result)}"
    )


def tables(cfg: TranslateQaConfig, result: TranslateQaResult) -> list[NamedTable]:
    """The corpus scores, then the segments of lowest chrF: two tables with different
    columns, which a tidy file keeps apart (`translate qa --out DIR`)."""
    title = f"{cfg.hyp.value} against {cfg.ref.value}, {cfg.lang}: {result.segments} segments"
    scores = [("BLEU", result.bleu, result.bleu_signature),
              ("chrF", result.chrf, result.chrf_signature),
              ("TER", result.ter, result.ter_signature)]  # fmt: skip
    corpus = [score for score in scores if score[1] is not None]  # metrics not asked for
    units = [(w.unit_id, w.chrf, w.hypothesis, w.reference) for w in result.worst]
    compared: list[tuple[str, Cell]] = [
        ("lang", cfg.lang), ("hyp", cfg.hyp.value), ("ref", cfg.ref.value)
    ]  # fmt: skip
    return [
        NamedTable("qa-corpus", title, ["metric", "score", "sacrebleu_signature"], corpus, 2,
                   facts=[*compared, ("segments", result.segments)]),
        NamedTable("qa-units", f"Lowest sentence chrF, {cfg.lang}",
                   ["unit", "chrf", "hypothesis", "reference"], units, 1, facts=compared),
    ]  # fmt: skip


STAGE = Stage(TRANSLATE_QA, settings=TranslateQaConfig, run=run, summary=summary, tables=tables)
