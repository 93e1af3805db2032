"""Annotation artifacts (issue 7): `stats --table pmi` (OCNLI Table 8), `stats --table cues`
and `bias hypothesis-only` (OCNLI Table 7), on small corpora written here.

PMI between a hypothesis word and the gold label is add-k smoothed as in Gururangan et al.
(2018); a word counts once per hypothesis; the gold label is the majority, else the released
label, else the author's, and pairs with `-` are left out.

The stages and tables run through the Python API (`corpus.stats`, the stages' results); the
CLI's own tests keep its tables in each format, the lines under them and its option errors.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    assert_user_error,
    compact_table,
    copy_store,
    csv_rows,
    json_rows,
    ok,
    refused,
    run_cli,
    write_jsonl,
)

import nlibuild
from nlibuild.invoke import invoke
from nlibuild.labelling.artifacts import default_units, pmi_cues, units_label, word_lists
from nlibuild.models import HypothesisOnlyResult, ImportResult, WordUnits
from nlibuild.queries.splits import pairs_per_split
from nlibuild.stages.artifacts import PMI_STAGE
from nlibuild.store import Store

E, N, C = "entailment", "neutral", "contradiction"
WORDS, CHARS = WordUnits.WORDS, WordUnits.CHARS


# --- helpers ------------------------------------------------------------------------------


def import_records(
    db: Path, records: list[dict[str, Any]], name: str, split: str | None = None
) -> ImportResult:
    """`import NAME.jsonl --format jsonl [--split SPLIT]` of `records`, written beside `db`."""
    path = write_jsonl(db.parent / f"{name}.jsonl", records)
    return nlibuild.open(db).import_corpus(path=path, format="jsonl", split=split)


def new_corpus(db: Path, **init: str) -> Path:
    """A new store at `db` (`nlibuild.create(db, **init)`)."""
    return nlibuild.create(db, **init).path


def table(db: Path, name: str, **options: Any) -> list[dict[str, Any]]:
    """The rows of `stats --table NAME` with `options`, as `--format json` prints them."""
    return nlibuild.open(db).stats(name, **options).to_dicts()


def pair(
    pair_id: str,
    premise_id: str,
    hypothesis: str,
    label: str,
    *,
    protocol: str | None = None,
    level: str | None = None,
    author: str = "w1",
    premise: str | None = None,
    validators: tuple[tuple[str, str], ...] = (),
    gold: str | None = None,
) -> dict[str, Any]:
    """An nlibuild jsonl record: the author's label first, then validators' votes."""
    record: dict[str, Any] = {
        "pair_id": pair_id,
        "premise_id": premise_id,
        "premise": premise or f"Premise {premise_id} about a man, a dog and a park.",
        "hypothesis": hypothesis,
        "labels": [label, *(v[1] for v in validators)],
        "annotators": [author, *(v[0] for v in validators)],
    }
    if protocol:
        record["protocol"] = protocol
    if level:
        record["level"] = level
    if gold:
        record["gold_label"] = gold
    return record


def hand_pmi(
    hypotheses: list[str], labels: list[str], k: float
) -> dict[tuple[str, str], tuple[float, int, int]]:
    """PMI by the docstring's formula, with plain sets and math.log:
    ln[(n(w,c)+k)(T+CVk) / ((n(w)+Ck)(N_c+Vk))]; each word once per hypothesis."""
    docs = [set(re.findall(r"[a-z']+", h.lower())) for h in hypotheses]
    n = Counter((w, c) for words, c in zip(docs, labels, strict=True) for w in words)
    n_word = Counter(w for words in docs for w in words)
    n_label: Counter[str] = Counter()
    for (_, c), count in n.items():
        n_label[c] += count
    total, vocabulary, labels_count = sum(n.values()), len(n_word), 3
    return {
        (w, c): (
            math.log(
                (count + k)
                * (total + labels_count * vocabulary * k)
                / ((n_word[w] + labels_count * k) * (n_label[c] + vocabulary * k))
            ),
            count,
            n_word[w],
        )
        for (w, c), count in n.items()
    }


# --- pmi_cues: the formula on a tiny table ------------------------------------------------

# Words per pair (each once): {not,a,cat} c, {not,here} c, {a,cat} e, {a,dog} n, {the,cat} e.
# n(w,c): not/c 2, a/c 1, cat/c 1, here/c 1, a/e 1, cat/e 2, the/e 1, a/n 1, dog/n 1.
# T = 11, V = 6 (not, a, cat, here, dog, the), C = 3; N_c = 5, N_e = 4, N_n = 2;
# n(w): not 2, a 3, cat 3, here 1, dog 1, the 1.
TINY_HYPOTHESES = ["Not a cat.", "Not, not here!", "A cat.", "A dog.", "The cat."]
TINY_LABELS = [C, C, E, N, E]


def tiny_cues(k: float, min_count: int = 1, top: int = 20, **kw: Any) -> list[Any]:
    words = word_lists(TINY_HYPOTHESES, "en", WORDS)
    return pmi_cues(words, TINY_LABELS, ["g"] * 5, k, min_count, top, **kw)


def test_pmi_without_smoothing_is_ln_of_n_wc_t_over_n_w_n_c() -> None:
    found = {(c.word, c.label): (c.pmi, c.count, c.word_count) for c in tiny_cues(0)}
    expected = {
        ("not", C): (math.log(2 * 11 / (2 * 5)), 2, 2),
        ("a", C): (math.log(1 * 11 / (3 * 5)), 1, 3),
        ("cat", C): (math.log(1 * 11 / (3 * 5)), 1, 3),
        ("here", C): (math.log(1 * 11 / (1 * 5)), 1, 1),
        ("a", E): (math.log(1 * 11 / (3 * 4)), 1, 3),
        ("cat", E): (math.log(2 * 11 / (3 * 4)), 2, 3),
        ("the", E): (math.log(1 * 11 / (1 * 4)), 1, 1),
        ("a", N): (math.log(1 * 11 / (3 * 2)), 1, 3),
        ("dog", N): (math.log(1 * 11 / (1 * 2)), 1, 1),
    }
    assert found.keys() == expected.keys()  # only (word, label) pairs that occur are ranked
    for key, (pmi, count, word_count) in expected.items():
        assert found[key][0] == pytest.approx(pmi, rel=1e-12), key
        assert found[key][1:] == (count, word_count), key
    hand = hand_pmi(TINY_HYPOTHESES, TINY_LABELS, 0)
    assert {k: v[0] for k, v in found.items()} == pytest.approx({k: v[0] for k, v in hand.items()})
    assert {c.pairs for c in tiny_cues(0)} == {5}


def test_pmi_with_add_one_smoothing_smooths_every_cell_of_the_table() -> None:
    # k = 1: (n + 1)(11 + 3*6*1) / ((n(w) + 3)(N_c + 6)).
    found = {(c.word, c.label): c.pmi for c in tiny_cues(1)}
    assert found[("not", C)] == pytest.approx(math.log(3 * 29 / ((2 + 3) * (5 + 6))))
    assert found[("dog", N)] == pytest.approx(math.log(2 * 29 / ((1 + 3) * (2 + 6))))
    assert found[("a", E)] == pytest.approx(math.log(2 * 29 / ((3 + 3) * (4 + 6))))
    assert found == pytest.approx(
        {k: v[0] for k, v in hand_pmi(TINY_HYPOTHESES, TINY_LABELS, 1).items()}
    )
    # Smoothing favours the frequent word: `not` (2/2) now beats `the` (1/1), which it
    # trails without smoothing.
    order = [(c.word, c.label) for c in tiny_cues(1, top=3)]
    assert order[:2] == [("dog", N), ("not", C)]
    unsmoothed = [(c.word, c.label) for c in tiny_cues(0, top=2)]
    assert unsmoothed == [("dog", N), ("the", E)]


def test_a_word_counts_once_per_hypothesis() -> None:
    words = word_lists(["no no no", "no", "yes"], "en", WORDS)
    cues = pmi_cues(words, [C, C, E], ["g"] * 3, 0, 1, 10)
    no = next(c for c in cues if c.word == "no")
    assert (no.count, no.word_count) == (2, 2)
    # T = 3 (no/c twice, yes/e once), N_c = 2: ln(2 * 3 / (2 * 2)).
    assert no.pmi == pytest.approx(math.log(1.5))


def test_min_count_keeps_only_words_in_that_many_pairs_and_top_cuts_each_group() -> None:
    kept = tiny_cues(0, min_count=2)
    assert {c.word for c in kept} == {"not", "a", "cat"}
    assert all(c.word_count >= 2 for c in kept)
    # The filter does not change the table: T, V and N_c still count every word.
    assert next(c.pmi for c in kept if c.word == "not") == pytest.approx(math.log(2.2))
    # Highest first; ties on PMI and count go by word (a before cat, both ln(11/15), 1/3).
    assert [(c.word, c.label) for c in kept] == [
        ("not", C), ("cat", E), ("a", N), ("a", E), ("a", C), ("cat", C),
    ]  # fmt: skip
    assert len(tiny_cues(0, min_count=2, top=2)) == 2
    assert tiny_cues(0, min_count=4) == []
    # Groups are tables of their own, each with its own top.
    words = word_lists(TINY_HYPOTHESES * 2, "en", WORDS)
    groups = ["x"] * 5 + ["y"] * 5
    cues = pmi_cues(words, TINY_LABELS * 2, groups, 0, 1, 2)
    assert [(c.group, c.word) for c in cues] == [
        ("x", "dog"),
        ("x", "the"),
        ("y", "dog"),
        ("y", "the"),
    ]
    assert {c.pairs for c in cues} == {5}


def test_per_label_gives_the_top_words_of_each_label() -> None:
    cues = tiny_cues(0, top=1, per_label=True, min_count=2)
    assert [(c.word, c.label) for c in cues] == [("not", C), ("cat", E), ("a", N)]
    two = tiny_cues(0, top=2, per_label=True, min_count=2)
    assert Counter(c.label for c in two) == {C: 2, E: 2, N: 1}  # neutral has only `a`
    assert [(c.word, c.label) for c in two if c.label == E] == [("cat", E), ("a", E)]
    assert [(c.word, c.label) for c in two if c.label == C] == [("not", C), ("a", C)]


def test_equal_pmi_is_broken_by_count_then_word() -> None:
    # Without smoothing, (not, contradiction) 2/2 and (here, contradiction) 1/1 both have
    # PMI ln(2 * 11 / (2 * 5)) = ln(11 / 5) = ln 2.2, computed as log(22) - log(10) and
    # log(11) - log(5), which differ in the last bit: the tie is still a tie, and the
    # larger count ranks first.
    order = [(c.word, c.count) for c in tiny_cues(0) if c.label == C]
    assert order[:2] == [("not", 2), ("here", 1)]


def test_full_ties_are_ordered_the_same_every_run() -> None:
    # A word with the same counts under two labels (`sings`: 1/2 contradiction, 1/2
    # entailment, N_c = N_e) ties on PMI, count and word; the label order decides, the
    # same on every run (polars' group_by alone would not).
    words = word_lists(["Nobody sings.", "Someone sings.", "A man sleeps for fun."], "en", WORDS)
    found = {
        tuple((c.word, c.label) for c in pmi_cues(words, [C, E, N], ["g"] * 3, 100, 2, 1))
        for _ in range(30)
    }
    assert len(found) == 1, found


# --- word_lists: what a word is -------------------------------------------------------------


def test_words_are_case_folded_keep_inner_apostrophes_and_drop_punctuation() -> None:
    texts = [
        "Nobody's HERE, don’t go!",
        "It's 3 cats... \"quoted\" -- well-known; dogs' toys ''",
        "Straße GROẞE Ça",
    ]
    assert word_lists(texts, "en", WORDS).to_list() == [
        ["nobody's", "here", "don't", "go"],
        ["it's", "3", "cats", "quoted", "well", "known", "dogs", "toys"],
        ["strasse", "grosse", "ça"],
    ]


def test_underscores_are_punctuation_not_words() -> None:
    # The underscore is connector punctuation, not a letter: a blank "___" in a hypothesis
    # is no word (as on the Chinese path, which keeps tokens with letters or digits).
    assert word_lists(["a ___ b"], "en", WORDS).to_list() == [["a", "b"]]


def test_char_units_are_letters_and_digits_one_by_one() -> None:
    found = word_lists(["Ab c, 1!", "他们没有去。"], "en", CHARS).to_list()
    assert found == [["a", "b", "c", "1"], ["他", "们", "没", "有", "去"]]
    assert units_label("zh", CHARS) == "characters"


def test_chinese_is_segmented_by_jieba_and_its_punctuation_dropped() -> None:
    found = word_lists(["他们没有去任何地方。", "“我”不知道，真的！"], "zh", WORDS).to_list()
    assert "没有" in found[0] and "任何" in found[0]
    assert "".join(found[0]) == "他们没有去任何地方"
    assert found[1] == ["我", "不", "知道", "真的"]
    assert units_label("zh", WORDS) == "words (jieba)" and units_label("en", WORDS) == "words"
    assert default_units("zh") is WORDS and default_units("en") is WORDS
    assert default_units("ja") is CHARS and default_units("th") is CHARS


# --- stats --table pmi ----------------------------------------------------------------------

PMI_CORPUS = [
    pair("a1", "P1", "Nobody is sleeping.", C, protocol="SINGLE", level="easy", author="w1"),
    pair("a2", "P1", "Nobody is outside.", C, protocol="SINGLE", level="hard", author="w1"),
    pair("a3", "P2", "Nobody sings.", C, protocol="MULTI", level="easy", author="w2"),
    pair("a4", "P2", "Someone is outside.", E, protocol="SINGLE", level="easy", author="w2"),
    pair("a5", "P3", "Someone sings.", E, protocol="MULTI", level="hard", author="w1"),
    pair("a6", "P3", "A man sleeps for fun.", N, protocol="MULTI", level="easy", author="w2"),
    # No gold label: the author said contradiction, a validator neutral, released '-'.
    pair("a7", "P3", "Nobody cares.", C, protocol="MULTI", level="hard", author="w1",
         validators=(("w3", N),), gold="-"),
]  # fmt: skip
LABELLED = [r for r in PMI_CORPUS if r.get("gold_label") != "-"]


@pytest.fixture
def pmi_db(tmp_path: Path) -> Path:
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, PMI_CORPUS, "pmi")
    return db


def test_pmi_table_all_pairs_by_hand_and_gold_dash_left_out(pmi_db: Path) -> None:
    # min-count 2, k = 0: T = 18, N_c = 8, N_e = 5; someone/e ln(2*18/(2*5)),
    # nobody/c ln(3*18/(3*8)). `nobody` in the '-' pair a7 must not count (3/3, not 3/4).
    rows = table(pmi_db, "pmi", min_count=2, smoothing=0, top=2)
    found = [(r["group"], r["rank"], r["word"], r["label"], r["count"], r["word_count"])
             for r in rows]  # fmt: skip
    assert found == [("all", 1, "someone", E, 2, 2), ("all", 2, "nobody", C, 3, 3)]
    assert rows[0]["pmi"] == pytest.approx(math.log(3.6))
    assert rows[1]["pmi"] == pytest.approx(math.log(2.25))
    assert {r["pairs"] for r in rows} == {6}
    args = ("--db", pmi_db, "stats", "--table", "pmi", "--min-count", "2", "--smoothing", "0",
            "--top", "2")  # fmt: skip
    printed = ok(*args)
    assert "6 pairs; 1 pair without a gold label left out" in printed
    assert "stage:stats-pmi|" in printed and "smoothing:0.0" in printed
    md = compact_table(ok(*args, "--format", "md"))
    assert "| all | 6 | someone | entailment | 1.28 | 2/2 |" in md
    assert "|  |  | nobody | contradiction | 0.81 | 3/3 |" in md
    # --per-label: the best word of each label (neutral has no word in 2 pairs), in label order.
    per_label = table(pmi_db, "pmi", min_count=2, smoothing=0, top=1, per_label=True)
    assert [(r["word"], r["label"], r["rank"]) for r in per_label] == [
        ("someone", E, 1), ("nobody", C, 1),
    ]  # fmt: skip


@pytest.mark.parametrize("by", ["protocol", "level", "author"])
def test_pmi_groups_follow_all_with_each_groups_own_table(pmi_db: Path, by: str) -> None:
    rows = table(pmi_db, "pmi", by=by, min_count=1, smoothing=1, top=3)
    members: dict[str, list[dict[str, Any]]] = {"all": LABELLED}
    field = "annotators" if by == "author" else by
    for record in LABELLED:
        value = record[field][0] if by == "author" else record[field]
        members.setdefault(value, []).append(record)
    groups = [r["group"] for r in rows]
    assert list(dict.fromkeys(groups)) == ["all", *sorted(set(members) - {"all"})]
    assert {r["group_by"] for r in rows if r["group"] != "all"} == {by}
    assert all(r["group_by"] == "all" for r in rows if r["group"] == "all")
    for group, records in members.items():
        mine = [r for r in rows if r["group"] == group]
        assert [r["rank"] for r in mine] == [1, 2, 3]
        assert {r["pairs"] for r in mine} == {len(records)}
        expected = hand_pmi(
            [r["hypothesis"] for r in records], [r["labels"][0] for r in records], 1
        )
        for row in mine:
            pmi, count, word_count = expected[(row["word"], row["label"])]
            assert row["pmi"] == pytest.approx(pmi)
            assert (row["count"], row["word_count"]) == (count, word_count)
        # The best of the group's table, highest first.
        best = sorted(v[0] for v in expected.values())[::-1][:3]
        assert [r["pmi"] for r in mine] == pytest.approx(best)


def test_pmi_table_in_every_format(pmi_db: Path) -> None:
    # --top 50 keeps every (word, label) pair, so each format shows the same rows (the order
    # of full ties may differ between runs: see test_full_ties_are_ordered_the_same_every_run).
    args = ("--db", pmi_db, "stats", "--table", "pmi", "--by", "protocol", "--min-count", "1",
            "--top", "50")  # fmt: skip
    rows = json_rows(*args)
    assert rows[0]["group"] == "all"
    assert {r["group"] for r in rows} == {"all", "MULTI", "SINGLE"}

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return (r["group_by"], r["group"], r["word"], r["label"], int(r["count"]),
                int(r["word_count"]), round(float(r["pmi"]), 4))  # fmt: skip

    parsed = csv_rows(*args)
    assert list(parsed[0]) == ["units", "smoothing", "min_count", "group_by", "group", "pairs",
                               "rank", "word", "label", "pmi", "count", "word_count"]  # fmt: skip
    assert sorted(map(key, parsed)) == sorted(map(key, rows))
    md = compact_table(ok(*args, "--format", "md")).splitlines()
    assert md[0] == "| group | pairs | word | label | PMI | counts |"
    body = [[c.strip() for c in line.split("|")[1:-1]] for line in md[2:] if line.startswith("|")]
    assert sorted((cells[-4], cells[-3], cells[-1]) for cells in body) == sorted(
        (r["word"], r["label"], f"{r['count']}/{r['word_count']}") for r in rows
    )
    assert [cells[0] for cells in body if cells[0]] == ["all", "MULTI", "SINGLE"]
    latex = compact_table(ok(*args, "--format", "latex"))
    assert "\\begin{tabular}" in latex and "\\end{tabular}" in latex
    assert "\\toprule" in latex and "% needs \\usepackage{booktabs}" in latex
    assert "group & pairs & word & label & PMI & counts \\\\" in latex
    assert latex.count("\\\\") == 1 + len(rows)


def test_pmi_split_restricts_to_that_split(tmp_path: Path) -> None:
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, [pair(f"t{i}", f"T{i}", "Nobody sleeps.", C) for i in range(3)],
                   "train", split="train")  # fmt: skip
    import_records(db, [pair(f"d{i}", f"D{i}", "Someone sleeps.", E) for i in range(2)],
                   "dev", split="dev")  # fmt: skip

    def pmi(split: str) -> list[dict[str, Any]]:
        return table(db, "pmi", min_count=1, top=5, split=split)

    train = pmi("train")
    assert {r["pairs"] for r in train} == {3}
    assert {(r["word"], r["label"]) for r in train} == {("nobody", C), ("sleeps", C)}
    dev = pmi("dev")
    assert {(r["word"], r["label"], r["count"]) for r in dev} == {
        ("someone", E, 2),
        ("sleeps", E, 2),
    }
    both = pmi("train,dev")
    assert {r["pairs"] for r in both} == {5}
    refused(db, lambda corpus: corpus.stats("pmi", split="test"), "--split test", "dev, train")


def test_pmi_split_on_a_store_without_splits_is_an_error(pmi_db: Path) -> None:
    refused(pmi_db, lambda corpus: corpus.stats("pmi", split="train"),
            "--split train", "no splits yet", "nlibuild split")  # fmt: skip


def test_pmi_of_human_translations_counts_the_untranslated(pmi_db: Path, tmp_path: Path) -> None:
    chinese = {"p:P1": "一个男人在公园里。", "h:a1": "没有人在睡觉。", "h:a2": "没有人在外面。",
               "h:a3": "没有人唱歌。", "h:a4": "有人在外面。"}  # fmt: skip
    units = write_jsonl(
        tmp_path / "zh.jsonl",
        [{"unit_id": u, "lang": "zh", "text": t} for u, t in chinese.items()],
    )
    nlibuild.open(pmi_db).translate_import(path=units, lang="zh", partial=True)
    rows = table(pmi_db, "pmi", lang="zh", min_count=1, smoothing=0, top=20)
    # Jieba's words of the four translated hypotheses (a5, a6 and the '-' a7 are not).
    assert {r["pairs"] for r in rows} == {4}
    words = {r["word"] for r in rows}
    assert {"没有", "有人", "外面"} <= words and not words & {"nobody", "someone", "。"}
    nobody = next(r for r in rows if r["word"] == "没有")
    assert (nobody["label"], nobody["count"], nobody["word_count"]) == (C, 3, 3)
    printed = ok("--db", pmi_db, "stats", "--table", "pmi", "--lang", "zh", "--min-count", "1",
                 "--smoothing", "0", "--top", "20")  # fmt: skip
    assert "words (jieba)" in printed
    assert "4 pairs; 0 pairs without a gold label left out; 3 pairs without a zh translation " \
        "left out" in printed  # fmt: skip
    refused(pmi_db, lambda corpus: corpus.stats("pmi", lang="sw"),
            "--lang sw", "no pair has a human translation")  # fmt: skip


def test_pmi_run_is_recorded_with_its_signature(pmi_db: Path) -> None:
    out = ok("--db", pmi_db, "stats", "--table", "pmi", "--by", "protocol", "--min-count", "1")
    signature = re.search(r"\(run (\d+), (stage:stats-pmi\|[^)]*)\)", out)
    assert signature, out
    run = next(r for r in nlibuild.open(pmi_db).runs() if r.id == int(signature[1]))
    assert (run.stage, run.status, run.signature) == ("stats-pmi", "ok", signature[2])
    assert "by:protocol" in run.signature and "min-count:1" in run.signature
    assert run.counts == {"pairs": 6, "without_gold": 1, "rows": 9}
    assert run.config["by"] == ["protocol"]  # --by is a list: one grouping here
    other = ok("--db", pmi_db, "stats", "--table", "pmi", "--min-count", "1", "--top", "2")
    assert signature[2] not in other


def test_pmi_run_by_a_recipe_says_the_line_under_the_stats_table(
    pmi_db: Path, tmp_path: Path
) -> None:
    """A recipe's step or the Python API runs stats-pmi through `invoke`: its summary is
    the line `stats --table pmi` closes its table with, run and signature included."""
    twin = copy_store(pmi_db, tmp_path / "twin.db")
    table = ok("--db", pmi_db, "stats", "--table", "pmi", "--by", "protocol", "--min-count", 1)
    with Store.open(twin) as store:
        outcome = invoke(PMI_STAGE, store, by=("protocol",), min_count=1)
    assert outcome.summary.startswith("6 pairs; 1 pair without a gold label left out (run ")
    assert table.splitlines()[-1] == outcome.summary


# --- stats --table cues ---------------------------------------------------------------------

CUES_PREMISE = "A man walks a dog in the park."
CUES_CORPUS = [
    # overlap 3/4, negator nobody, 4 tokens
    pair("c1", "Q1", "Nobody walks a dog.", C, author="w1", premise=CUES_PREMISE),
    # overlap 2/4 (the, man), negator n't, 4 tokens
    pair("c2", "Q1", "The man doesn't walk.", C, author="w1", premise=CUES_PREMISE),
    # overlap 3/3
    pair("c3", "Q1", "A man walks.", E, author="w1", premise=CUES_PREMISE),
    # overlap 1/5 (a), negator not, 5 tokens
    pair("c4", "Q1", "A cat is not here.", C, author="w2", premise=CUES_PREMISE),
    # overlap 1/3, no negator, 3 tokens
    pair("c5", "Q1", "A woman sings.", C, author="w2", premise=CUES_PREMISE),
    # overlap 4/7 (the, man, walks, dog), 7 tokens
    pair("c6", "Q1", "The man walks his dog to work.", N, author="w2", premise=CUES_PREMISE),
    # gold '-': left out
    pair("c7", "Q1", "Nobody is here.", C, author="w2", premise=CUES_PREMISE,
         validators=(("w3", N),), gold="-"),
]  # fmt: skip


def test_cues_per_author_negators_overlap_and_length(tmp_path: Path) -> None:
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, CUES_CORPUS, "cues")
    rows = table(db, "cues", by="author", max_overlap=0.5)
    key = [(r["group_by"], r["group"], r["label"]) for r in rows]
    assert key == [
        ("all", "all", E), ("all", "all", N), ("all", "all", C),
        ("author", "w1", E), ("author", "w1", C), ("author", "w2", N), ("author", "w2", C),
    ]  # fmt: skip
    got = {(r["group"], r["label"]): r for r in rows}
    for row in rows:
        assert sum(row["overlap_bins"]) == pytest.approx(1.0)
        assert row["unit"] == "tokens"
    every_c = got[("all", C)]
    assert every_c["pairs"] == 4
    assert every_c["negated"] == pytest.approx(3 / 4)
    assert every_c["mean_overlap"] == pytest.approx((3 / 4 + 2 / 4 + 1 / 5 + 1 / 3) / 4)
    # Bins [0, .2) [.2, .4) [.4, .6) [.6, .8) [.8, 1]: 0.2 and 1/3; 0.5; 0.75.
    assert every_c["overlap_bins"] == pytest.approx([0, 0.5, 0.25, 0.25, 0])
    assert every_c["over_limit"] == pytest.approx(1 / 4)  # only 0.75 > 0.5 (0.5 is not over)
    assert every_c["mean_length"] == pytest.approx((4 + 4 + 5 + 3) / 4)
    entail = got[("all", E)]
    assert (entail["negated"], entail["mean_overlap"], entail["over_limit"]) == (0.0, 1.0, 1.0)
    assert entail["overlap_bins"] == [0, 0, 0, 0, 1.0] and entail["mean_length"] == 3
    assert got[("all", N)]["mean_overlap"] == pytest.approx(4 / 7)
    assert got[("all", N)]["mean_length"] == 7
    # Per writer: w1 negates every contradiction, w2 half of them.
    w1, w2 = got[("w1", C)], got[("w2", C)]
    assert (w1["pairs"], w1["negated"], w1["over_limit"]) == (2, 1.0, 0.5)
    assert w1["overlap_bins"] == pytest.approx([0, 0, 0.5, 0.5, 0])
    assert (w2["pairs"], w2["negated"], w2["over_limit"]) == (2, 0.5, 0.0)
    assert w2["mean_overlap"] == pytest.approx((1 / 5 + 1 / 3) / 2)
    # The default limit is 0.70: then 0.75 and 1.0 are over, 4/7 is not.
    default = {(r["group"], r["label"]): r for r in table(db, "cues", by="author")}
    assert default[("all", C)]["over_limit"] == pytest.approx(1 / 4)
    assert default[("all", N)]["over_limit"] == 0.0
    args = ("--db", db, "stats", "--table", "cues", "--by", "author", "--max-overlap", "0.5")
    printed = ok(*args)
    assert "6 pairs; 1 pair without a gold label left out" in printed
    assert "stage:stats-cues|by:author|max-overlap:0.5" in printed
    parsed = csv_rows(*args)
    assert [(r["group"], r["label"], int(r["pairs"])) for r in parsed] == [
        (r["group"], r["label"], r["pairs"]) for r in rows
    ]
    assert float(parsed[2]["negated"]) == pytest.approx(0.75)


def test_cues_in_a_language_without_lexicon_are_unchecked(tmp_path: Path) -> None:
    db = new_corpus(tmp_path / "corpus.db", lang="sw")
    import_records(db, [pair("s1", "S1", "Hakuna mtu analala.", C),
                        pair("s2", "S1", "Mtu analala.", E)], "sw")  # fmt: skip
    rows = table(db, "cues")
    assert rows and all(r["negated"] is None for r in rows)
    assert {r["group_by"] for r in rows} == {"all", "protocol"}  # protocol is the default
    assert all(r["mean_overlap"] is not None for r in rows)
    assert "No negator lexicon for sw" in ok("--db", db, "stats", "--table", "cues")
    assert "n.a." in ok("--db", db, "stats", "--table", "cues", "--format", "md")


def test_a_group_named_all_is_not_merged_into_every_pair(tmp_path: Path) -> None:
    # A writer (or protocol, genre) whose value is "all" gets a row of its own and is not
    # counted twice in the row of every pair.
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, [pair("x1", "X1", "Nobody walks.", C, author="all"),
                        pair("x2", "X1", "A man walks.", E, author="w1")], "x")  # fmt: skip
    rows = table(db, "cues", by="author")
    every = {r["label"]: r["pairs"] for r in rows if r["group_by"] == "all"}
    assert every == {E: 1, C: 1}
    assert any(r["group_by"] == "author" and r["group"] == "all" for r in rows)


# --- bias hypothesis-only -------------------------------------------------------------------

CUE = {E: "somebody", N: "tomorrow", C: "nobody"}
FILLER = [
    "the", "man", "woman", "dog", "park", "street", "is", "was", "walking", "sitting", "near",
    "red", "car", "child", "house", "outside", "music", "table", "phone", "book",
]  # fmt: skip


def cue_records(
    prefix: str, premises: int, labels: tuple[str, ...], seed: int
) -> list[dict[str, Any]]:
    """Each premise with one pair per label in `labels`; a hypothesis is its label's cue word
    and three random filler words, so the hypothesis alone gives the label away."""
    rng = random.Random(seed)
    records = []
    for i in range(premises):
        premise_id = f"{prefix}{i:03d}"
        premise = " ".join(rng.choice(FILLER) for _ in range(6)) + f" {prefix} {i}."
        for j, label in enumerate(labels):
            hypothesis = " ".join([CUE[label], *rng.sample(FILLER, 3)])
            records.append(pair(f"{premise_id}-{j}", premise_id, hypothesis, label,
                                protocol=("SINGLE", "MULTI")[i % 2], premise=premise))  # fmt: skip
    return records


@pytest.fixture(scope="module")
def bias_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """train: 40 premises x (e, n, c, c): majority contradiction (80 of 160).
    dev: 10 premises x (e, n, c). test: 8 premises x (e, e, n, c): 25% contradiction."""
    db = new_corpus(tmp_path_factory.mktemp("bias") / "corpus.db")
    import_records(db, cue_records("tr", 40, (E, N, C, C), 1), "train", split="train")
    import_records(db, cue_records("dv", 10, (E, N, C), 2), "dev", split="dev")
    import_records(db, cue_records("te", 8, (E, E, N, C), 3), "test", split="test")
    return db


def bias(db: Path, **settings: Any) -> HypothesisOnlyResult:
    """`bias hypothesis-only --resamples 200` with `settings`."""
    return nlibuild.open(db).bias_hypothesis_only(resamples=200, **settings)


def bias_rows(db: Path, **settings: Any) -> list[dict[str, Any]]:
    """The rows of `bias`, as `--format json` prints them."""
    return [row.model_dump() for row in bias(db, **settings).rows]


def test_hypothesis_only_is_far_above_the_training_majority(bias_db: Path) -> None:
    rows = bias_rows(bias_db, by=("protocol",))
    overall = {r["eval"]: r for r in rows if r["group_by"] == "all"}
    assert list(overall) == ["dev", "test"]
    dev, test = overall["dev"], overall["test"]
    assert dev["pairs"] == 30 and test["pairs"] == 32
    for row in (dev, test):
        assert row["majority_label"] == C  # the training data's majority, not the split's
        assert row["accuracy"] >= 0.9
        assert row["accuracy"] > row["majority_accuracy"] + 0.5
        assert row["low"] <= row["accuracy"] <= row["high"]
    # The baseline is the share of the training majority label in the evaluated split:
    # dev 10 of 30, test 8 of 32 (test's own majority, entailment, would score 16 of 32).
    assert dev["majority_accuracy"] == pytest.approx(1 / 3)
    assert test["majority_accuracy"] == pytest.approx(0.25)
    groups = [(r["eval"], r["group"], r["pairs"]) for r in rows if r["group_by"] == "protocol"]
    assert groups == [("dev", "MULTI", 15), ("dev", "SINGLE", 15),
                      ("test", "MULTI", 16), ("test", "SINGLE", 16)]  # fmt: skip
    table = ok("--db", bias_db, "bias", "hypothesis-only", "--resamples", "200")
    assert "Hypothesis-only accuracy" in table and "Trained on 160 pairs" in table
    assert "stage:bias-hypothesis-only|train:train|eval:dev,test|premise-only:no" in table


def test_premise_only_on_premises_shared_by_every_label_is_chance(bias_db: Path) -> None:
    # Each dev premise has one pair of each label: one prediction per premise is right for
    # exactly a third of its pairs, whatever the model learnt.
    result = bias(bias_db, premise_only=True, eval=("dev",))
    assert len(result.rows) == 1
    assert result.rows[0].accuracy == pytest.approx(1 / 3)
    assert result.side == "premise" and "premise-only:yes" in result.signature


def test_the_same_seed_gives_the_same_results(bias_db: Path) -> None:
    first = bias(bias_db, seed=7, eval=("dev",))
    assert bias_rows(bias_db, seed=7, eval=("dev",)) == [r.model_dump() for r in first.rows]
    folds = bias_rows(bias_db, seed=7, premise_only=True, cross_validate=3)
    assert bias_rows(bias_db, seed=7, premise_only=True, cross_validate=3) == folds
    assert "|seed:7|" in first.signature


def test_cross_validation_needs_no_split_and_keeps_a_premise_in_one_fold(tmp_path: Path) -> None:
    # 60 premises of random made-up words, each seen only with its own 3 pairs, all of one
    # label. If a premise's pairs were spread over folds, a premise-only model would
    # recognise it (about 95%); with the premise in one fold it cannot beat chance.
    rng = random.Random(7)
    records = []
    for i in range(60):
        label = (E, N, C)[i % 3]
        premise = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))
                           for _ in range(4))  # fmt: skip
        for j in range(3):
            hypothesis = " ".join([CUE[label], *rng.sample(FILLER, 3)])
            records.append(pair(f"q{i:02d}-{j}", f"q{i:02d}", hypothesis, label, premise=premise))
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, records, "cv")
    with Store.open(db) as store:
        assert pairs_per_split(store) == {}
    premise_only = bias(db, premise_only=True, cross_validate=3).rows
    assert [(r.eval, r.pairs) for r in premise_only] == [("cv", 180)]
    assert premise_only[0].accuracy < 0.6
    hypothesis_only = bias(db, cross_validate=3).rows
    assert hypothesis_only[0].accuracy >= 0.9
    assert hypothesis_only[0].majority_accuracy < 0.5
    result = run_cli("--db", db, "bias", "hypothesis-only", "--cross-validate", "1")
    assert_user_error(result, "--cross-validate 1")


@pytest.fixture
def no_gold_test_db(tmp_path: Path) -> Path:
    """train: labelled cue pairs; test: only pairs with gold '-'."""
    db = new_corpus(tmp_path / "corpus.db")
    import_records(db, cue_records("tr", 6, (E, N, C), 4), "train", split="train")
    unlabelled = [pair(f"u{i}", f"U{i}", "Nobody knows.", C, validators=(("w9", E),), gold="-")
                  for i in range(3)]  # fmt: skip
    import_records(db, unlabelled, "test", split="test")
    return db


def test_evaluating_a_split_without_labelled_pairs_is_an_error(no_gold_test_db: Path) -> None:
    refused(no_gold_test_db, lambda corpus: corpus.bias_hypothesis_only(eval=("test",)),
            "--eval test", "no labelled pair")  # fmt: skip
    refused(no_gold_test_db,
            lambda corpus: corpus.bias_hypothesis_only(train="test", eval=("train",)),
            "--train test", "no labelled pair")  # fmt: skip


def test_an_unknown_training_split_is_an_error(no_gold_test_db: Path) -> None:
    refused(no_gold_test_db,
            lambda corpus: corpus.bias_hypothesis_only(train="nope", eval=("test",)),
            "nope", "test, train")  # fmt: skip
    # Without --eval the default dev,test names a split this store lacks.
    refused(no_gold_test_db, lambda corpus: corpus.bias_hypothesis_only(), "dev", "test, train")


def test_an_unknown_split_error_names_the_option_given(no_gold_test_db: Path) -> None:
    # The error names the option the user gave (the command has no --split).
    result = run_cli("--db", no_gold_test_db, "bias", "hypothesis-only", "--train", "nope")
    assert_user_error(result, "--train nope")


# --- import --split -------------------------------------------------------------------------


def test_import_split_puts_only_the_files_new_pairs_in_that_split(tmp_path: Path) -> None:
    db = new_corpus(tmp_path / "corpus.db")
    train = [pair(f"t{i}", f"T{i}", "Nobody sleeps.", C) for i in range(3)]
    dev = [pair(f"d{i}", f"D{i}", "Someone sleeps.", E) for i in range(2)]
    printed = ok("--db", db, "import", write_jsonl(tmp_path / "train.jsonl", train),
                 "--format", "jsonl", "--split", "train")  # fmt: skip
    assert "3 new pairs put in train" in printed
    assert import_records(db, dev, "dev", split="dev").split_assigned == 2
    with Store.open(db) as store:
        assert pairs_per_split(store) == {"train": 3, "dev": 2}
    # Importing the dev file again adds nothing and moves nothing.
    again = import_records(db, dev, "dev", split="dev")
    assert (again.pairs_added, again.pairs_unchanged, again.split_assigned) == (0, 2, 0)
    # The train file under --split dev: its pairs are stored and keep their split.
    assert import_records(db, train, "train", split="dev").split_assigned == 0
    with Store.open(db) as store:
        assert pairs_per_split(store) == {"train": 3, "dev": 2}
        assert store.count("pairs") == 5
    # A file with a stored pair and a new one: only the new one goes to dev.
    mixed = [dev[0], pair("d9", "D9", "Someone sings.", E)]
    assert import_records(db, mixed, "mixed", split="dev").split_assigned == 1
    with Store.open(db) as store:
        assert pairs_per_split(store) == {"train": 3, "dev": 3}
    rows = table(db, "pmi", split="dev", min_count=1)
    assert {r["pairs"] for r in rows} == {3}
    result = run_cli("--db", db, "import", tmp_path / "dev.jsonl", "--format", "jsonl",
                     "--split", "validation")  # fmt: skip
    assert_user_error(result, "--split 'validation'", "train, dev, test")
