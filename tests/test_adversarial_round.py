"""One adversarial round end to end (issue 29; ANLI, Nie et al. 2020), on the CPU with the
tiny random model, through the real server: a base corpus split and trained on, the job's
best dev checkpoint exported, round 1's batch for a writer, `nlibuild serve --model` with
`[workbench] model_loop = "adversarial"`; the writer checks hypotheses against the model
and submits; the pairs that fooled it go to validators, who vote through the JSON route;
gold is aggregated, and `stats --table model-loop` counts what the test sent. The model's
labels are whatever the route answered: the expected counts are computed from them."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import ok, query
from elicitation_data import NEWS, sample_every_sentence
from test_served_model import planted_corpus

import nlibuild
from nlibuild.models import Role, ScoreTraining
from nlibuild.store import Store
from nlibuild.web.drive import WorkbenchClient, running_server
from nlibuild.workbench.access import create_invite

PRESET = '[workbench]\nblocking_rules = []\nmodel_loop = "adversarial"\n'
JOB = "tiny-zero-shot-s1"
VALIDATORS = ("v01", "v02", "v03")
OTHER = {"entailment": "neutral", "neutral": "contradiction", "contradiction": "entailment"}
# The writer's first tries per premise, then one changed hypothesis on the first premise (a
# second try of that field; the unchanged two are not tried again).
FIRST_TRIES = (
    {"entailment_1": "The council met on Monday.", "neutral_1": "The parks are very popular.",
     "contradiction_1": "The council rejected every budget."},
    {"entailment_1": "Streets in the old town got wet.",
     "neutral_1": "The rain began before midnight.",
     "contradiction_1": "No street was flooded overnight."},
)  # fmt: skip
CHANGED = {"entailment_1": "A budget for parks was approved by the council."}


def base_store(folder: Path) -> Path:
    """The planted corpus split, a tiny job trained on it (one epoch), its best dev
    checkpoint exported, and round 1's batch of two news premises for writer w01."""
    torch = pytest.importorskip("torch", reason="the round's model needs the `score` extra")
    torch.set_num_threads(1)
    db = folder / "rounds.db"
    (folder / "round.toml").write_text(PRESET, encoding="utf-8")
    ok("--db", db, "init", "--lang", "en", "--preset", folder / "round.toml")
    ok("--db", db, "import", planted_corpus(folder / "base.jsonl", 160), "--format", "mnli")
    nlibuild.open(db).split(dev=20, test=20, draw_from="labelled")
    ok("--db", db, "score", "tiny-model", "--out", folder / "tiny")
    training = ScoreTraining(seeds=(1,), epochs=1.0, eval_every=0.5, batch_size=16, lr=5e-3)
    nlibuild.open(db).score_train(model=folder / "tiny", training=training)
    ok("--db", db, "score", "export-model", JOB, "--select", "en-dev", "--out", folder / "model")
    sample_every_sentence(nlibuild.open(db), {"news": NEWS[:2]})
    ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01",
       "--batch-size", 2, "--round", 1)  # fmt: skip
    return db


def link(db: Path, base: str, person: str, role: Role) -> str:
    with Store.open(db) as store:
        return f"{base}/t/{create_invite(store, person, role, timedelta(hours=1)).token}"


def write_round(db: Path, base: str) -> tuple[dict[str, str], int]:
    """The writer's session: every hypothesis checked against the model before it is
    submitted. Returns each submitted hypothesis's model label, and the tries sent."""
    [(batch,)] = query(db, "SELECT id FROM batches WHERE round = 1")
    premises = query(db, "SELECT s.item_id FROM assignments s JOIN batches b "
                     "ON b.pk = s.batch_pk WHERE b.id = ? ORDER BY s.position", batch)  # fmt: skip
    said: dict[str, str] = {}
    tried: set[tuple[str, str, str]] = set()  # a try: a field's text the model had not seen
    with WorkbenchClient(link(db, base, "w01", Role.WRITER)) as writer:
        writer.sign_in()
        for (premise,), fields in zip(premises, FIRST_TRIES, strict=True):
            final = fields | (CHANGED if premise == premises[0][0] else {})
            path = f"/write/{batch}/{premise}/feedback/model"
            for sent in (fields, final) if final != fields else (fields,):
                answer = writer.post_json(path, {"fields": sent})
                assert answer.status_code == 200, answer.text
                shown = answer.json()["model"]
                for field, text in sent.items():
                    tried.add((premise, field, text))
                    label = shown[field]["label"]
                    assert shown[field]["fooled"] is (label != field.removesuffix("_1"))
                    said[text] = label
            hypotheses = {f.removesuffix("_1"): [text] for f, text in final.items()}
            submitted = writer.submit(batch, premise, hypotheses)
            assert submitted.status_code == 200, submitted.text
    return said, len(tried)


def validate(db: Path, base: str, fooled: list[str], unverified: set[str]) -> None:
    """Each validator votes the writer's label on the fooling pairs, but another label
    on those of `unverified` (all three alike: gold is then not the writer's)."""
    author = dict(query(db, "SELECT id, author_label FROM pairs"))
    for validator in VALIDATORS:
        items = query(db, "SELECT b.id, s.position, s.item_id FROM assignments s JOIN batches b "
                      "ON b.pk = s.batch_pk JOIN annotators a ON a.pk = b.annotator_pk "
                      "WHERE b.kind = 'relabel' AND a.id = ?", validator)  # fmt: skip
        assert sorted(item for _, _, item in items) == sorted(fooled)
        with WorkbenchClient(link(db, base, validator, Role.VALIDATOR)) as client:
            client.sign_in()
            for batch, position, pair in items:
                label = OTHER[author[pair]] if pair in unverified else author[pair]
                voted = client.vote(batch, position, label)
                assert voted.status_code == 200, voted.text


def test_one_round_counts_what_the_writer_and_the_validators_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the server's torch, on a shared machine
    db = base_store(tmp_path)
    with running_server(db, extra_args=("--model", str(tmp_path / "model"))) as base:
        said, tries = write_round(db, base)
        pairs = query(db, "SELECT p.id, p.hypothesis, p.author_label FROM pairs p "
                      "JOIN batches b ON b.pk = p.batch_pk WHERE b.round = 1")  # fmt: skip
        fooled = sorted(pair for pair, text, label in pairs if said[text] != label)
        assert len(pairs) == 6 and tries == 7 and fooled  # a random model: some fool it
        fooled_file = tmp_path / "fooled.txt"
        ok("--db", db, "stats", "--table", "model-loop", "--round", 1, "--out", fooled_file)
        listed = fooled_file.read_text(encoding="utf-8").splitlines()
        assert [line for line in listed if not line.startswith("#")] == fooled
        ok("--db", db, "relabel", "create", "--pairs", fooled_file, "--annotators",
           ",".join(VALIDATORS), "--validators", len(VALIDATORS))  # fmt: skip
        unverified = set(fooled[:1]) if len(fooled) > 1 else set()
        validate(db, base, fooled, unverified)
    ok("--db", db, "aggregate-labels")
    shown = json.loads(ok("--db", db, "stats", "--table", "model-loop", "--round", 1,
                          "--format", "json"))  # fmt: skip
    verified = len(fooled) - len(unverified)
    for row in shown:  # the round's row and its writer's: the same counts
        assert (row["round"], row["pairs"], row["fooled"], row["verified"], row["tries"]) == (
            1, 6, len(fooled), verified, tries)  # fmt: skip
        assert row["tries_per_verified"] == pytest.approx(tries / verified)
    assert [(row["protocol"], row["writer"]) for row in shown] == [
        ("all", "all"),
        ("SINGLE", "w01"),
    ]
    assert shown[0]["model"].startswith(f"{JOB}@")  # the served model's identity, recorded
