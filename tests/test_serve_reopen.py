"""A lead reopens an answered premise (issue 26, "a lead can reopen an answered premise
(recorded)"): from the lead page, as a run of its own (`elicit-reopen`) whose command names
the lead; the answer's pairs and violations leave the corpus for `reopened_answers`, kept
as they were, so `check` and `export` see the premise as never answered and its writer
answers it again under the same pair IDs. An answer later work rests on (its pairs
relabelled), a premise not answered and an unknown batch are refused with the stage's
`Error:` line and nothing written; only a lead may reopen."""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from pathlib import Path

import orjson
import pytest
from conftest import ok, query, table_counts
from elicitation_data import MULTI
from serve_stores import signed_in
from test_serve_writing import form_of
from workbench_data import BLOCK_NOTHING, batches_of, premises_of, writing_store

from nlibuild.models import Role

ANSWER = "SELECT status, answer_key IS NOT NULL FROM assignments WHERE item_id = ?"
RUNS = "SELECT count(*) FROM runs"


class Team:
    """A store whose preset blocks nothing; writer w01 (their first batch) and lead01,
    signed in."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.writer = signed_in(db, "w01", Role.WRITER)
        self.lead = signed_in(db, "lead01", Role.LEAD)
        self.batch = batches_of(db)["w01"][0]
        self.premises = premises_of(db, self.batch)

    def write(self, premise: str, fields: dict[str, str]) -> str:
        page = self.writer.get(f"/write/{self.batch}?premise={premise}").text
        token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        form = {"csrf_token": token, "action": "submit", **fields}
        response = self.writer.post(f"/write/{self.batch}/{premise}", data=form)
        assert response.status_code == 200, response.text
        return response.text

    def reopen(self, premise: str, batch: str | None = None) -> tuple[int, str]:
        """The lead's reopen form sent: (status, what the page says the form did)."""
        page = self.lead.get("/lead").text
        token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        form = {"csrf_token": token, "batch": batch or self.batch, "premise": premise}
        response = self.lead.post("/lead/reopen", data=form)
        said = 'role="status">' if response.status_code == 200 else 'role="alert">'
        line = unescape(response.text).split(said, 1)[1].split("</p>", 1)[0].strip()
        return response.status_code, line


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    with_team = Team(writing_store(tmp_path / "corpus.db", preset=BLOCK_NOTHING))
    with with_team.writer, with_team.lead:
        yield with_team


def hypotheses_of(db: Path, premise: str) -> list[tuple[str, str]]:
    return query(
        db,
        "SELECT p.id, p.hypothesis FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "WHERE pr.id = ? ORDER BY p.id",
        premise,
    )


def test_a_reopened_answer_leaves_the_corpus_kept_and_the_writer_answers_again(
    team: Team, tmp_path: Path
) -> None:
    premise, text = team.premises[0]
    copied = text.rstrip(".") + " indeed."
    first = MULTI | {"entailment": [copied, *MULTI["entailment"][1:]]}
    assert "9 pairs recorded" in team.write(premise, form_of(first))
    [(answered_run,)] = query(team.db, "SELECT max(id) FROM runs WHERE stage = 'elicit-import'")
    before = dict(hypotheses_of(team.db, premise))
    assert len(before) == 9 and query(team.db, ANSWER, premise) == [("answered", 1)]

    status, said = team.reopen(premise)
    assert status == 200
    assert said.startswith(
        f"Reopened premise {premise} of batch {team.batch} for w01: their answer (9 pairs, "
        "1 violation) is kept in reopened_answers, out of the corpus (run "
    )
    # Recorded: the run names the lead who reopened it; when is its start.
    last = "SELECT id, stage, status, command, started_at FROM runs ORDER BY id DESC LIMIT 1"
    [(run_id, stage, run_status, command, started)] = query(team.db, last)
    assert (stage, run_status, command) == ("elicit-reopen", "ok", "serve: lead lead01")
    assert started and f"(run {run_id}, " in said
    # Out of the corpus, open again, and the answer kept as it was.
    assert hypotheses_of(team.db, premise) == []
    assert query(team.db, ANSWER, premise) == [("open", 0)]
    assert query(team.db, "SELECT count(*) FROM violations") == [(0,)]
    [kept] = query(team.db, "SELECT batch_pk, item_id, status, answered_run_id, pairs_json, "
                   "violations_json, run_id FROM reopened_answers")  # fmt: skip
    assert kept[1:4] == (premise, "answered", answered_run) and kept[6] == run_id
    pairs = orjson.loads(kept[4])
    assert {pair["id"]: pair["hypothesis"] for pair in pairs} == before
    assert all(pair["author"] == "w01" and pair["votes"][0]["position"] == 0 for pair in pairs)
    assert [v["pair_id"] for v in orjson.loads(kept[5])] == [f"{premise}-e1"]

    # The writer sees the premise open and answers it again, under the same pair IDs.
    page = team.writer.get(f"/write/{team.batch}?premise={premise}").text
    assert "<textarea" in page and "You have submitted this premise" not in page
    assert "9 pairs recorded" in team.write(premise, form_of(MULTI))
    again = dict(hypotheses_of(team.db, premise))
    assert set(again) == set(before) and copied not in again.values()
    # `check` finds the store consistent and the export holds the new answer alone.
    ok("--db", team.db, "check")
    out = tmp_path / "export.jsonl"
    ok("--db", team.db, "export", "--format", "mnli-jsonl", "--out", out)
    exported = out.read_text(encoding="utf-8")
    assert copied not in exported and MULTI["entailment"][0] in exported


def test_a_premise_marked_unusable_is_reopened_too(team: Team) -> None:
    premise = team.premises[1][0]
    team.write(premise, {"unusable": "yes"})
    assert query(team.db, ANSWER, premise) == [("unusable", 1)]
    status, said = team.reopen(premise)
    assert status == 200 and "their 'unusable' mark (0 pairs, 0 violations)" in said
    assert query(team.db, ANSWER, premise) == [("open", 0)]
    assert query(team.db, "SELECT status, pairs_json FROM reopened_answers") == [("unusable", "[]")]


def test_an_answer_whose_pairs_are_relabelled_an_open_premise_or_an_unknown_batch_is_refused(
    team: Team,
) -> None:
    answered, still_open = team.premises[0][0], team.premises[2][0]
    team.write(answered, form_of(MULTI))
    ok("--db", team.db, "relabel", "create", "--annotators", "v01", "--fraction", 1,
       "--validators", 1)  # fmt: skip
    before, runs = table_counts(team.db), query(team.db, RUNS)
    refusals = {
        answered: (None, f"Error: pair {answered}-"),
        still_open: (None, f"Error: premise {still_open} of batch {team.batch} is not answered"),
        "nowhere": ("e9999", "Error: there is no elicitation batch 'e9999' in this store"),
    }
    for premise, (batch, error) in refusals.items():
        status, line = team.reopen(premise, batch)
        assert status == 400 and line.startswith(error), line
    assert "is in a relabelling batch: work rests on the answer" in team.reopen(answered)[1]
    assert table_counts(team.db) == before and query(team.db, RUNS) == runs
    assert query(team.db, "SELECT count(*) FROM reopened_answers") == [(0,)]


def test_only_a_lead_may_reopen_and_only_with_the_csrf_token(team: Team) -> None:
    premise = team.premises[0][0]
    team.write(premise, form_of(MULTI))
    runs = query(team.db, RUNS)
    page = team.writer.get("/").text
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    form = {"batch": team.batch, "premise": premise}
    assert team.writer.post("/lead/reopen", data=form | {"csrf_token": token}).status_code == 403
    assert team.lead.post("/lead/reopen", data=form).status_code == 403
    assert query(team.db, RUNS) == runs and query(team.db, ANSWER, premise) == [("answered", 1)]


def test_the_reopen_form_is_on_the_lead_page_and_keeps_what_was_typed(
    team: Team, tmp_path: Path
) -> None:
    page = team.lead.get("/lead").text
    form = page.split('action="/lead/reopen"', 1)[1].split("</form>", 1)[0]
    assert '<label for="reopen-batch">' in form and '<label for="reopen-premise">' in form
    status, _ = team.reopen(team.premises[2][0])
    assert status == 400
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    response = team.lead.post(
        "/lead/reopen", data={"csrf_token": token, "batch": "e0404", "premise": "p<1>"}
    )
    kept = response.text.split('action="/lead/reopen"', 1)[1].split("</form>", 1)[0]
    assert 'value="e0404"' in kept and 'value="p&lt;1&gt;"' in kept


def test_the_lead_page_shows_on_a_store_without_a_vote(tmp_path: Path) -> None:
    """Before any answer, or once every answer is reopened, the store has no vote: the page
    said so with a 500 (the agreement table's "no votes" error), not "No validated pairs"."""
    with signed_in(writing_store(tmp_path / "corpus.db"), "lead01", Role.LEAD) as lead:
        response = lead.get("/lead")
    assert response.status_code == 200 and "No validated pairs yet." in response.text
