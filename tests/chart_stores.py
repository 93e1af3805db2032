"""Small stores in Chinese, Korean and English whose charts have text in their script: the
PMI chart's cue words, the agreement chart's genres (tests/test_chart_fonts.py and its
browser test). The sentences are the tests' own."""

from __future__ import annotations

from pathlib import Path

from conftest import write_jsonl

import nlibuild

SENTENCES: dict[str, tuple[str, dict[str, str], tuple[str, str]]] = {
    "zh": (
        "第{n}天，公园里有很多人在散步。",
        {"entailment": "有人在户外。", "neutral": "他们都很开心。",
         "contradiction": "公园里没有人。"},
        ("新闻", "小说"),
    ),
    "ko": (
        "{n}일째 공원에서 많은 사람들이 산책하고 있다.",
        {"entailment": "사람들이 밖에 있다.", "neutral": "사람들이 모두 행복하다.",
         "contradiction": "공원에 아무도 없다."},
        ("뉴스", "소설"),
    ),
    "en": (
        "On day {n} many people were walking in the park.",
        {"entailment": "People are outdoors.", "neutral": "Everyone there is happy.",
         "contradiction": "Nobody is in the park."},
        ("news", "fiction"),
    ),
}  # fmt: skip
"""Per language: the premise (numbered), a hypothesis per label, two genres."""


def chart_store(folder: Path, lang: str, premises: int = 8) -> Path:
    """A store of `lang` at folder/LANG.db: `premises` premises of two genres, three pairs
    each with a gold label and five votes (four for the gold label)."""
    premise, hypotheses, genres = SENTENCES[lang]
    records = [
        {"pairID": f"{n}{label[0]}", "promptID": str(n), "genre": genres[n % 2],
         "sentence1": premise.format(n=n), "sentence2": hypothesis, "gold_label": label,
         "annotator_labels": [label] * 4 + ["neutral" if label != "neutral" else "entailment"]}
        for n in range(premises)
        for label, hypothesis in hypotheses.items()
    ]  # fmt: skip
    db = folder / f"{lang}.db"
    nlibuild.create(db, lang=lang).import_corpus(
        path=write_jsonl(folder / f"{lang}.jsonl", records), format="mnli"
    )
    return db
