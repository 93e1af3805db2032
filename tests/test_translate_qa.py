"""`translate qa`: machine translation against human translation with sacrebleu: corpus
BLEU (tokenizer per language) and chrF, and TER when `--metrics` asks for it, each with
sacrebleu's signature, and the segments of lowest sentence chrF (XTREME checked its
translated test sets this way).

The stage runs through the Python API and its scores are read from `TranslateQaResult`; the
CLI keeps its printed report, the tables `--format json --out` writes, and `--metrics`'s
parsing (any case; an unknown name)."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    FIXTURES,
    assert_user_error,
    csv_rows,
    json_rows,
    ok,
    read_jsonl,
    refused,
    requires_fixtures,
    run_cli,
    write_jsonl,
)
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER

import nlibuild
from nlibuild.models import TranslateQaResult
from nlibuild.stages.translate_qa import bleu_tokenizer


def qa_scores(db: Path, lang: str, *metrics: str) -> TranslateQaResult:
    """`translate qa --lang LANG [--metrics METRICS]` through the Python API."""
    return nlibuild.open(db).translate_qa(lang=lang, **({"metrics": metrics} if metrics else {}))


def printed_tables(*args: str | Path, out: Path) -> dict[str, list[dict[str, Any]]]:
    """`translate qa ARGS... --format json --out OUT`: the tables it writes (qa-corpus,
    qa-units), by name, and the line it prints checked to name them."""
    line = ok(*args, "--format", "json", "--out", out)
    assert f"wrote {out / 'qa-corpus.json'}, {out / 'qa-units.json'}" in line, line
    return {
        name: json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("qa-corpus", "qa-units")
    }


def fill(units: Path, out: Path, text_of: dict[str, str]) -> Path:
    """The unit file `units` with the texts of `text_of`'s units filled in, the rest left out."""
    rows = read_jsonl(units)
    return write_jsonl(
        out, [r | {"text": text_of[r["unit_id"]]} for r in rows if r["unit_id"] in text_of]
    )


def mt_by_source(bleu_tsv: Path) -> dict[str, str]:
    """myXNLI's `*.bleu.test.tsv` as English source text -> MT output. Despite its header,
    columns 2-3 are the MT output and 4-5 the English source (fixtures README); the first of
    each source text counts."""
    with bleu_tsv.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    by_source: dict[str, str] = {}
    for row in rows:
        by_source.setdefault(" ".join(row[3].split()), row[1])
        by_source.setdefault(" ".join(row[4].split()), row[2])
    return by_source


@pytest.mark.parametrize(
    ("lang", "tokenizer"), [("zh", "zh"), ("zh-Hant", "zh"), ("my", "char"), ("ja", "char"),
                            ("de", "13a"), ("sw", "13a")],
)  # fmt: skip
def test_bleu_tokenizer_per_language(lang: str, tokenizer: str) -> None:
    assert bleu_tokenizer(lang)[0] == tokenizer


def test_scores_equal_sacrebleu_on_the_same_segments(sample_db: Path, tmp_path: Path) -> None:
    db = sample_db
    corpus = nlibuild.open(db)
    units = corpus.translate_export(lang="de", out=tmp_path / "units.jsonl").out
    sources = {r["unit_id"]: r["source"] for r in read_jsonl(units)}
    human = {u: f"{s} ." for u, s in sources.items()}
    mt = {u: " ".join(s.split()[::-1]) if i % 3 == 0 else s for i, (u, s) in
          enumerate(sorted(sources.items()))}  # fmt: skip
    # The "translations" are the English sources, altered: force past the language check.
    corpus.translate_import(path=fill(units, tmp_path / "h.jsonl", human), lang="de", force=True)
    corpus.translate_import(path=fill(units, tmp_path / "m.jsonl", mt), lang="de", kind="mt",
                            force=True)  # fmt: skip
    result = qa_scores(db, "de", "bleu", "chrf", "ter")
    order = sorted(sources)
    hyps, refs = [mt[u] for u in order], [[human[u] for u in order]]
    bleu, chrf, ter = BLEU(tokenize="13a"), CHRF(), TER()
    assert result.segments == len(order)
    assert result.bleu == pytest.approx(bleu.corpus_score(hyps, refs).score, abs=1e-9)
    assert result.chrf == pytest.approx(chrf.corpus_score(hyps, refs).score, abs=1e-9)
    assert result.ter == pytest.approx(ter.corpus_score(hyps, refs).score, abs=1e-9)
    assert result.bleu_signature == str(bleu.get_signature())
    assert "tok:13a" in result.bleu_signature and "chrF" not in result.bleu_signature
    worst = [w.chrf for w in result.worst]
    assert len(worst) == 10 and worst == sorted(worst)
    text = ok("--db", db, "translate", "qa", "--lang", "de", "--worst", "3")
    assert "Lowest sentence chrF" in text and "Scored 64 segments; BLEU tokenizer 13a" in text
    # By default BLEU and chrF only, XTREME's scores: TER is computed when asked for.
    default = qa_scores(db, "de")
    assert (default.bleu, default.chrf) == (result.bleu, result.chrf)
    assert default.ter is None and default.ter_signature is None
    assert "TER" not in text and "chrF" in text
    # --metrics in any case; the tables written hold only the scores asked for.
    only_ter = printed_tables("--db", db, "translate", "qa", "--lang", "de", "--metrics", "TER",
                              out=tmp_path / "qa")  # fmt: skip
    assert [(row["metric"], row["score"]) for row in only_ter["qa-corpus"]] == [("TER", result.ter)]
    # ranked by sentence chrF all the same
    assert [row.pop("lang") for row in only_ter["qa-units"]] == ["de"] * len(result.worst)
    assert [tuple(row.values()) for row in only_ter["qa-units"]] == [
        ("mt", "human", w.unit_id, w.chrf, w.hypothesis, w.reference) for w in result.worst
    ]


SAMPLE_DE = DATA / "translations" / "sample_mnli.de.tsv"


def test_json_and_csv_carry_the_language_and_segment_count_the_title_shows(
    sample_db: Path,
) -> None:
    """Issue 28: `--format json` printed metric and score alone; the language, what was
    compared and the number of segments stood only in the terminal table's title."""
    ok("--db", sample_db, "translate", "import", SAMPLE_DE, "--lang", "de", "--translator", "de01")
    ok("--db", sample_db, "translate", "import", SAMPLE_DE, "--lang", "de", "--kind", "mt")
    qa = ("--db", sample_db, "translate", "qa", "--lang", "de")
    title = ok(*qa).splitlines()[0]
    assert title.startswith("mt against human, de: 64 segments")
    carried = {"lang": "de", "hyp": "mt", "ref": "human"}
    for rows in (json_rows(*qa), csv_rows(*qa)):
        assert [row["metric"] for row in rows] == ["BLEU", "chrF"]
        for row in rows:
            assert {key: row[key] for key in carried} == carried
            assert int(row["segments"]) == 64


def test_an_unknown_metric_is_one_error_line(sample_db: Path) -> None:
    result = run_cli(
        "--db", sample_db, "translate", "qa", "--lang", "de", "--metrics", "bleu,meteor"
    )
    assert_user_error(result, "--metrics 'meteor' is not one of: bleu, chrf, ter")


def test_qa_without_both_kinds_is_an_error(sample_db: Path) -> None:
    refused(sample_db, lambda corpus: corpus.translate_qa(lang="de"),
            "no unit of de has both a mt and a human translation")  # fmt: skip


@requires_fixtures
def test_myxnli_burmese_mt_against_the_human_translation(db: Path, tmp_path: Path) -> None:
    folder = FIXTURES / "myxnli"
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=folder / "my.genre.test.tsv", format="xnli", lang="en",
                         label_order="e,n,c")  # fmt: skip
    units = corpus.translate_export(lang="my", kind="mt", out=tmp_path / "units.jsonl").out
    # my.bleu.test.tsv's rows follow the test set, so English text finds the unit.
    by_source = mt_by_source(folder / "my.bleu.test.tsv")
    records = read_jsonl(units)
    mt = {r["unit_id"]: by_source[r["source"]] for r in records if r["source"] in by_source}
    assert len(mt) > 0.95 * len(records)
    corpus.translate_import(path=fill(units, tmp_path / "mt.jsonl", mt), lang="my", kind="mt",
                            partial=True)  # fmt: skip
    result = qa_scores(db, "my", "chrf", "bleu", "ter")
    assert result.chrf is not None and result.bleu is not None and result.ter is not None
    print(
        f"myXNLI test, Burmese MT against human: {result.segments} segments, "
        f"chrF {result.chrf:.1f}, BLEU {result.bleu:.1f} ({result.tokenizer}), "
        f"TER {result.ter:.1f}; {result.chrf_signature}"
    )
    assert result.tokenizer.startswith("char")
    assert 10 < result.chrf < 90


@requires_fixtures
def test_myxnli_swahili_mt_against_the_human_translation(db: Path, tmp_path: Path) -> None:
    folder = FIXTURES / "myxnli"
    reference = folder / "my.genre.test.tsv"
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=reference, format="xnli", lang="en", label_order="e,n,c")
    human = corpus.translate_import(path=folder / "sw.genre.test.tsv", lang="sw", align="rows",
                                    reference=reference)  # fmt: skip
    assert human.label_mismatches == 0  # no label column disagrees with its source row
    units = corpus.translate_export(lang="sw", kind="mt", out=tmp_path / "units.jsonl").out
    by_source = mt_by_source(folder / "sw.bleu.test.tsv")
    records = read_jsonl(units)
    mt = {r["unit_id"]: by_source[r["source"]] for r in records if r["source"] in by_source}
    corpus.translate_import(path=fill(units, tmp_path / "mt.jsonl", mt), lang="sw", kind="mt",
                            partial=True)  # fmt: skip
    started = time.perf_counter()
    result = qa_scores(db, "sw", "bleu", "chrf", "ter")
    with_ter = time.perf_counter() - started
    started = time.perf_counter()
    default = qa_scores(db, "sw")
    without_ter = time.perf_counter() - started
    assert result.chrf is not None and result.bleu is not None and result.ter is not None
    print(
        f"myXNLI test, Swahili MT against human: {result.segments} segments, "
        f"BLEU {result.bleu:.1f} ({result.tokenizer}), chrF {result.chrf:.1f}, "
        f"TER {result.ter:.1f}; {result.bleu_signature}; "
        f"{with_ter:.1f} s with TER, {without_ter:.1f} s without"
    )
    assert default.ter is None and default.bleu == result.bleu
    assert result.tokenizer.startswith("13a")
    assert 5 < result.bleu < 90 and 20 < result.chrf < 95
