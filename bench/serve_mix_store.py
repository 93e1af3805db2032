"""The store of the serve mix bench (bench/bench_serve_mix.py), made as the workbench's tests
make theirs (tests/serve_stores.py: the `ocnli` preset, the bundled Chinese source texts of
five genres ingested and sampled, MULTI_CONSTRAINT batches), at a team's size:

- `SETUP_WRITERS` writers whose premises are answered here, through the library call the
  workbench's submit makes (`submit_answer`), so that there are pairs to relabel;
- the bench's writers `w001`, `w002`, ..., one elicitation batch each, still open;
- the validators `v001`, `v002`, ..., one relabel batch each, of those pairs;
- one invite (a personal link's token) per writer and validator.

Answers are natural Chinese hypotheses (the ones of data/elicit/zh_e0001.labelstudio.json),
nine drawn in turn from that pool and kept only when the store's own feedback finds nothing
that blocks submitting, so every simulated submit is one the server records.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import orjson

import nlibuild
from nlibuild.models import Protocol, Role
from nlibuild.protocol.elicitation import LABEL_ORDER, hypotheses_per_label, slot_name
from nlibuild.store import Store
from nlibuild.workbench.access import create_invite
from nlibuild.workbench.feedback import draft_feedback, hypotheses_of
from nlibuild.workbench.writing import submit_answer, writing_task

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "data" / "sources" / "zh"
ANSWERS = ROOT / "data" / "elicit" / "zh_e0001.labelstudio.json"
GENRES = ("gov", "news", "lit", "tv", "phone")
PER_GENRE = 45
"""Premises sampled per genre: the telephone transcripts have 45 of 8-50 characters."""
PROTOCOL = Protocol.MULTI_CONSTRAINT
SETUP_WRITERS = 5
VALIDATORS_PER_PAIR = 5

Fields = dict[str, str]


@dataclass(frozen=True)
class Person:
    """One simulated person: who, their role, their personal link's path, their batch, and
    (writers) the answer to give for each premise of it."""

    who: str
    role: Role
    link_path: str
    batch: str
    answers: dict[str, Fields]


@dataclass(frozen=True)
class Team:
    """What `build_team_store` made: the store and the people who work on it."""

    db: Path
    writers: list[Person]
    validators: list[Person]

    @property
    def people(self) -> list[Person]:
        return self.writers + self.validators


def hypothesis_pool() -> list[str]:
    """The bundled writers' Chinese hypotheses, in the file's order."""
    pool: list[str] = []
    for task in orjson.loads(ANSWERS.read_bytes()):
        for annotation in task["annotations"]:
            for part in annotation["result"]:
                pool += part["value"].get("text", [])  # the unusable box has none
    return list(dict.fromkeys(pool))


def slot_names() -> list[str]:
    per_label = hypotheses_per_label(PROTOCOL)
    return [slot_name(label, k) for label in LABEL_ORDER for k in range(1, per_label + 1)]


def valid_answer(store: Store, writer: str, batch: str, premise: str, pool: list[str]) -> Fields:
    """Nine pool texts in turn that nothing blocks here, from a start the premise's ID
    picks (so that premises get different answers)."""
    slots = slot_names()
    first = zlib.crc32(premise.encode())
    for start in range(first, first + len(pool)):
        fields = {slot: pool[(start + k) % len(pool)] for k, slot in enumerate(slots)}
        if not draft_feedback(store, writer, batch, premise, fields).blocked:
            return fields
    raise SystemExit(f"no answer from the pool passes the rules for premise {premise}")


def premise_order(store: Store, writer: str, batch: str) -> list[str]:
    return [premise.id for premise in writing_task(store, writer, batch).premises]


def batches_by_person(store: Store, kind: str) -> dict[str, str]:
    rows = store.conn.execute(
        "SELECT a.id, b.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.kind = ? ORDER BY b.pk",
        (kind,),
    ).fetchall()
    return {who: batch for who, batch in rows}


def make_pool_and_pairs(db: Path, answered: int) -> None:
    """The sampled premises, and `answered` of them answered by the setup writers."""
    corpus = nlibuild.create(db, preset="ocnli")
    for genre in GENRES:
        corpus.ingest(paths=(SOURCES / f"{genre}.txt",), genre=genre)
    corpus.sample(n=PER_GENRE, all_genres=True, seed=13)
    share = -(-answered // SETUP_WRITERS)
    setup_writers = tuple(f"s{k:02d}" for k in range(1, min(SETUP_WRITERS, answered) + 1))
    corpus.elicit_create(
        protocol=PROTOCOL.value, annotators=setup_writers, batch_size=share, max_per_writer=share
    )
    pool = hypothesis_pool()
    with Store.open(db) as store:
        for writer, batch in batches_by_person(store, "elicit").items():
            for premise in premise_order(store, writer, batch):
                fields = valid_answer(store, writer, batch, premise, pool)
                texts = hypotheses_of(fields, PROTOCOL)
                submit_answer(store, writer, batch, premise, False, texts)


def build_team_store(
    db: Path, writers: int, validators: int, answered: int, per_writer: int
) -> Team:
    """The store of the module's docstring; `answered` premises give the validators' pairs,
    each to `VALIDATORS_PER_PAIR` of them; each bench writer gets `per_writer` premises."""
    make_pool_and_pairs(db, answered)
    corpus = nlibuild.open(db)
    validator_ids = tuple(f"v{k:03d}" for k in range(1, validators + 1))
    corpus.relabel_create(
        fraction=1.0, annotators=validator_ids, validators=VALIDATORS_PER_PAIR, batch_size=10_000
    )
    writer_ids = tuple(f"w{k:03d}" for k in range(1, writers + 1))
    corpus.elicit_create(
        protocol=PROTOCOL.value,
        annotators=writer_ids,
        batch_size=per_writer,
        max_per_writer=per_writer,
    )
    pool = hypothesis_pool()
    with Store.open(db) as store:
        elicit = batches_by_person(store, "elicit")
        relabel = batches_by_person(store, "relabel")
        team = Team(
            db=db,
            writers=[person(store, who, Role.WRITER, elicit[who], pool) for who in writer_ids],
            validators=[
                person(store, who, Role.VALIDATOR, relabel[who], []) for who in validator_ids
            ],
        )
    return team


def person(store: Store, who: str, role: Role, batch: str, pool: list[str]) -> Person:
    """One person's invite and, for a writer, the answer to each premise of their batch."""
    token = create_invite(store, who, role, timedelta(days=1)).token
    answers = {}
    if role is Role.WRITER:
        answers = {
            premise: valid_answer(store, who, batch, premise, pool)
            for premise in premise_order(store, who, batch)
        }
    return Person(who=who, role=role, link_path=f"/t/{token}", batch=batch, answers=answers)
