"""`nlibuild split` (OCNLI 3.4): dev and test from relabelled pairs with a gold label,
balanced across levels when asked, the rest train; all pairs of a premise in one split."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_user_error, ok, query, read_jsonl, refused, run_cli, write_jsonl

import nlibuild

LEVELS = ("easy", "medium", "hard")
E, N, C = "entailment", "neutral", "contradiction"


def corpus_store(db: Path, tmp_path: Path, premises: int = 20) -> Path:
    """Premises with 3 MULTI pairs (one per level); premises of even number validated
    (5 votes, a gold label), odd ones author-only; premise 0 has a 2-2-1 tie (no gold)."""
    records = []
    for i in range(premises):
        for k, level in enumerate(LEVELS):
            label = (E, N, C)[k]
            votes = [label] if i % 2 else [label, label, label, N if label != N else E, C]
            if i == 0 and k == 0:
                votes = [E, E, N, N, C]
            records.append({
                "pair_id": f"p{i:02d}-{k}", "premise_id": f"p{i:02d}",
                "premise": f"Premise number {i} says something.", "hypothesis": f"Hyp {i} {k}.",
                "protocol": "MULTI", "level": level, "labels": votes,
            })  # fmt: skip
    path = tmp_path / "corpus.jsonl"
    write_jsonl(path, records)
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=path, format="jsonl")
    corpus.aggregate_labels()
    return db


def splits(db: Path) -> dict[str, str]:
    return dict(query(db, "SELECT p.id, s.split FROM splits s JOIN pairs p ON p.pk = s.pair_pk"))


def test_dev_and_test_hold_validated_pairs_and_premises_never_cross(
    db: Path, tmp_path: Path
) -> None:
    corpus_store(db, tmp_path)
    result = nlibuild.open(db).split(dev=6, test=6, balance_level=True)
    assert result.shared_premises == []  # no premise is shared across splits
    found = splits(db)
    premise_split: dict[str, set[str]] = {}
    for pair, split in found.items():
        premise_split.setdefault(pair.split("-")[0], set()).add(split)
    assert all(len(s) == 1 for s in premise_split.values())
    evaluated = [p for p, s in found.items() if s in ("dev", "test")]
    # Only validated premises (even numbers) with a gold label; p00-0 (a tie) never.
    assert all(int(p[1:3]) % 2 == 0 for p in evaluated) and "p00-0" not in evaluated
    for split in ("dev", "test"):
        levels = sorted(p.split("-")[1] for p, s in found.items() if s == split)
        assert levels == ["0", "0", "1", "1", "2", "2"]  # balanced: 2 easy, 2 medium, 2 hard
    # Author-only premises are train; a pair missing from every split is an unusable pair
    # (here the tie p00-0) of a dev/test premise, held out rather than leaked into train.
    assert all(found[f"p{i:02d}-{k}"] == "train" for i in range(1, 20, 2) for k in range(3))
    every = {f"p{i:02d}-{k}" for i in range(20) for k in range(3)}
    assert all(premise_split[p.split("-")[0]] <= {"dev", "test"} for p in every - set(found))


def test_the_same_seed_gives_the_same_split_and_another_seed_another_with_replace(
    db: Path, tmp_path: Path
) -> None:
    """Splitting again replaces the splits only with --replace (a spec change: a second
    split without it is refused, see tests/test_trust_split.py)."""
    corpus = nlibuild.open(corpus_store(db, tmp_path))
    corpus.split(dev=6, test=6, seed=1)
    first = splits(db)
    corpus.split(dev=6, test=6, seed=1, replace=True)
    assert splits(db) == first
    corpus.split(dev=6, test=6, seed=2, replace=True)
    assert splits(db) != first


def test_asking_for_more_than_the_validated_pairs_is_an_error(db: Path, tmp_path: Path) -> None:
    corpus_store(db, tmp_path)
    refused(db, lambda corpus: corpus.split(dev=20, test=20),
            "need 40 validated pairs with a gold label", "has 29")  # fmt: skip


def test_only_the_chosen_protocols_go_to_dev_and_test(db: Path, tmp_path: Path) -> None:
    corpus_store(db, tmp_path)  # every pair is MULTI
    refused(db, lambda corpus: corpus.split(dev=3, test=3, protocols=("SINGLE",)), "of SINGLE")


def test_export_writes_one_split(db: Path, tmp_path: Path) -> None:
    corpus = nlibuild.open(corpus_store(db, tmp_path))
    corpus.split(dev=6, test=6, balance_level=True)
    out = tmp_path / "dev.jsonl"
    corpus.export(format="jsonl", split="dev", out=out)
    exported = {r["pair_id"] for r in read_jsonl(out)}
    assert exported == {pair for pair, split in splits(db).items() if split == "dev"}


def test_from_labelled_draws_dev_and_test_from_author_only_pairs_too(
    db: Path, tmp_path: Path
) -> None:
    corpus_store(db, tmp_path, premises=4)  # 2 validated premises (5 usable pairs), 2 not
    refused(db, lambda corpus: corpus.split(dev=6, test=6),
            "need 12 validated pairs", "--from labelled")  # fmt: skip
    result = nlibuild.open(db).split(dev=6, test=5, draw_from="labelled")
    assert result.shared_premises == [] and "from:labelled" in result.signature
    assert (result.counts["dev"], result.counts["test"]) == (6, 5)
    found = splits(db)
    assert sorted(found.values()).count("dev") == 6 and sorted(found.values()).count("test") == 5
    # The author-only premises p01 and p03 are now drawn as well; the tie p00-0 never is.
    assert {found[f"p{i:02d}-0"] for i in (1, 3)} <= {"dev", "test"}
    assert "p00-0" not in found or found["p00-0"] == "train"


def test_group_by_pair_lets_premises_cross_and_the_check_says_so(db: Path, tmp_path: Path) -> None:
    """The command's closing line is the check a user reads (the CLI's own test of split)."""
    corpus_store(db, tmp_path)
    out = ok("--db", db, "split", "--dev", "5", "--test", "5", "--group-by", "pair")
    found = splits(db)
    assert list(found.values()).count("dev") == 5 and list(found.values()).count("test") == 5
    by_premise: dict[str, set[str]] = {}
    for pair, split in found.items():
        by_premise.setdefault(pair.split("-")[0], set()).add(split)
    crossing = sorted(p for p, s in by_premise.items() if len(s) > 1)
    assert crossing  # pairs are drawn one by one, so premises cross splits...
    assert f"{len(crossing)} premises in several splits" in out  # ...and the check says so
    result = run_cli("--db", db, "split", "--dev", "5", "--test", "5", "--group-by", "genre")
    assert_user_error(result, "--group-by")
