"""`nlibuild translate qa`: machine translations scored against human ones with sacrebleu.

XTREME checked its machine-translated test sets with BLEU and chrF. Every score carries
sacrebleu's own signature (its settings), as sacrebleu prints them. BLEU's tokenizer is
chosen per language: `zh` for Chinese (sacrebleu's Chinese segmentation), `char` where words
are not delimited by spaces and no offline segmenter is at hand (Japanese and Korean
without MeCab, Thai, Burmese), else `13a`, sacrebleu's default. chrF works on characters
and needs no tokenizer, which is why it is the score to read for Burmese; TER gets
`asian_support` for those languages.
"""

from __future__ import annotations

from nlibuild.errors import ConfigError
from nlibuild.lang import primary_language
from nlibuild.models import TranslateQaConfig, TranslateQaResult, WorstSegment
from nlibuild.queries.translations import translations_in
from nlibuild.store import Store

CHARACTER_TOKENIZED = frozenset({"ja", "ko", "th", "my"})


def bleu_tokenizer(lang: str) -> tuple[str, str]:
    """(sacrebleu tokenizer name, why) for BLEU on `lang`."""
    code = primary_language(lang)
    if code == "zh":
        return "zh", "sacrebleu's Chinese tokenizer"
    if code in CHARACTER_TOKENIZED:
        return "char", f"characters: {code} has no spaces between words (no offline segmenter)"
    return "13a", "sacrebleu's default (mteval-v13a)"


def run(store: Store, cfg: TranslateQaConfig) -> TranslateQaResult:
    from sacrebleu.metrics.bleu import BLEU  # imported here: slow to load
    from sacrebleu.metrics.chrf import CHRF
    from sacrebleu.metrics.ter import TER

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
    asian = primary_language(cfg.lang) in CHARACTER_TOKENIZED | {"zh"}
    hypotheses = [hyps[u] for u in units]
    references = [[refs[u] for u in units]]
    bleu, chrf, ter = BLEU(tokenize=tokenizer), CHRF(), TER(asian_support=asian)
    bleu_score = bleu.corpus_score(hypotheses, references)
    chrf_score = chrf.corpus_score(hypotheses, references)
    ter_score = ter.corpus_score(hypotheses, references)
    per_segment = sorted((chrf.sentence_score(hyps[u], [refs[u]]).score, u) for u in units)[
        : cfg.worst
    ]
    with store.recorded_run("translate-qa", cfg) as run:
        run_id = run.id
        run.finish({"segments": len(units)})
    return TranslateQaResult(
        run_id=run_id,
        signature=run.signature,
        segments=len(units),
        tokenizer=f"{tokenizer} ({why})",
        bleu=bleu_score.score,
        bleu_signature=str(bleu.get_signature()),
        chrf=chrf_score.score,
        chrf_signature=str(chrf.get_signature()),
        ter=ter_score.score,
        ter_signature=str(ter.get_signature()),
        worst=[
            WorstSegment(unit_id=u, chrf=score, hypothesis=hyps[u], reference=refs[u])
            for score, u in per_segment
        ],
    )
