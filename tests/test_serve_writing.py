"""The writing page over HTTP (issue 19): a writer's batch one premise at a time, live
feedback from `elicit import`'s rule code as JSON, drafts that come back, and submissions
recorded as an import records them, once; another writer's batch is 404, a POST without
the CSRF token 403, and every text escaped."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from statistics import median, quantiles
from typing import Any

import pytest
from conftest import json_rows, query, table_counts
from elicitation_data import MULTI, premise_corpus
from serve_stores import signed_in
from starlette.testclient import TestClient
from workbench_data import BLOCK_NOTHING, batches_of, premises_of, writing_store

from nlibuild.formats.platforms.mturk import instructions_html
from nlibuild.models import Role
from nlibuild.web.writing_pages import instructions_markup

SCRIPT = "<script>alert(1)</script>"


def csrf_of(client: TestClient) -> str:
    page = client.get("/").text
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def form_of(answer: dict[str, list[str]]) -> dict[str, str]:
    """An answer as the form's fields name it (`neutral_2`)."""
    return {f"{label}_{k}": text for label, texts in answer.items()
            for k, text in enumerate(texts, 1)}  # fmt: skip


class Writing:
    """A signed-in writer's client with their first batch and its premises."""

    def __init__(self, db: Path, writer: str = "w01") -> None:
        self.db = db
        self.client = signed_in(db, writer, Role.WRITER)
        self.batch = batches_of(db)[writer][0]
        self.premises = premises_of(db, self.batch)
        self.token = csrf_of(self.client)

    def feedback(self, premise: str, fields: dict[str, str], **extra: Any) -> Any:
        return self.client.post(
            f"/write/{self.batch}/{premise}/feedback",
            json={"fields": fields, **extra},
            headers={"X-CSRF-Token": self.token},
        )

    def send(self, premise: str, fields: dict[str, str], action: str = "submit") -> Any:
        form = {"csrf_token": self.token, "action": action, **fields}
        return self.client.post(f"/write/{self.batch}/{premise}", data=form)


@pytest.fixture
def writing(tmp_path: Path) -> Iterator[Writing]:
    """The default preset: errors (overlap, negator, copy, ...) block a submission."""
    session = Writing(writing_store(tmp_path / "corpus.db"))
    with session.client:
        yield session


@pytest.fixture
def lenient(tmp_path: Path) -> Iterator[Writing]:
    """A preset whose rules block nothing, so findings reach the store as violations."""
    session = Writing(writing_store(tmp_path / "corpus.db", preset=BLOCK_NOTHING))
    with session.client:
        yield session


def test_the_page_shows_the_instructions_progress_and_one_field_per_hypothesis(
    writing: Writing,
) -> None:
    page = writing.client.get(f"/write/{writing.batch}")
    assert page.status_code == 200
    first_text = writing.premises[0][1]
    assert "Premise 1 of 3" in page.text and first_text in page.text
    assert "MULTI_CONSTRAINT" in page.text  # the protocol's instructions
    for label in ("entailment", "neutral", "contradiction"):
        for k in (1, 2, 3):
            assert f'name="{label}_{k}"' in page.text
    assert "1 · easy" in page.text and "3 · hard" in page.text
    assert 'name="unusable"' in page.text
    assert 'src="/static/write.js"' in page.text and "<script>" not in page.text
    other = writing.client.get(f"/write/{writing.batch}?premise={writing.premises[2][0]}")
    assert "Premise 3 of 3" in other.text
    assert writing.client.get(f"/write/{writing.batch}?premise=nope").status_code == 404


def test_feedback_on_a_copying_hypothesis_shows_the_overlap_against_the_limit(
    writing: Writing,
) -> None:
    premise, text = writing.premises[0]
    response = writing.feedback(premise, {"entailment_1": text.rstrip(".") + " indeed."})
    assert response.status_code == 200
    view = response.json()
    field = view["fields"]["entailment_1"]
    assert field["over_limit"] and field["overlap"] > 0.7
    assert field["overlap_text"].startswith("overlap ")
    assert field["overlap_text"].endswith("of the hypothesis, limit 70%: over the limit")
    [note] = [n for n in field["notes"] if "too much of the premise" in n["text"]]
    assert note["severity"] == "error" and note["text"].startswith("Error (blocks submitting)")
    assert [f["rule"] for f in view["feedback"]["fields"][0]["findings"]] == ["overlap"]
    assert view["blocked"]
    assert "entailment 1 (easy): too much of the premise" in view["blocked_reason"]
    assert view["saved_at"] is None  # not asked to save


def test_a_negator_is_cut_out_of_the_text_to_be_marked(writing: Writing) -> None:
    premise = writing.premises[0][0]
    fields = {"contradiction_1": "Nothing moved.", "contradiction_2": "It did not rain."}
    view = writing.feedback(premise, fields).json()
    second = view["fields"]["contradiction_2"]
    assert second["segments"] == [
        {"text": "It did ", "marked": False},
        {"text": "not", "marked": True},
        {"text": " rain.", "marked": False},
    ]
    assert any(n["text"].startswith("Error (blocks submitting): negator") for n in second["notes"])
    third = view["fields"]["contradiction_3"]
    assert third["segments"] == [] and "MULTI_CONSTRAINT allows one" in third["notes"][0]["text"]


def test_a_saved_draft_comes_back_on_reload(writing: Writing) -> None:
    premise = writing.premises[0][0]
    before = table_counts(writing.db)
    saved = writing.feedback(premise, {"neutral_1": "The mayor was on holiday."}, save=True)
    assert saved.json()["saved_at"]
    page = writing.client.get(f"/write/{writing.batch}").text
    assert ">The mayor was on holiday.</textarea>" in page and "Draft saved" in page
    assert table_counts(writing.db) == before  # a draft is no run
    # Without JavaScript, the check button saves and shows the feedback.
    checked = writing.send(premise, {"entailment_1": writing.premises[0][1]}, action="check")
    assert checked.status_code == 200 and "copy of the premise" in checked.text
    assert "Submitting is off until you fix" in checked.text


def test_a_submission_records_pairs_and_violations_as_an_import_does(lenient: Writing) -> None:
    premise, text = lenient.premises[0]
    answer = MULTI | {"entailment": [text.rstrip(".") + " indeed.", *MULTI["entailment"][1:]]}
    response = lenient.send(premise, form_of(answer))
    assert response.status_code == 200
    assert f"Premise {premise} submitted: 9 pairs recorded" in response.text
    assert "Premise 2 of 3" in response.text  # on to the next premise
    assert query(lenient.db, "SELECT pair_id, rule FROM violations") == [
        (f"{premise}-e1", "overlap")
    ]
    [run] = query(lenient.db, "SELECT stage, status FROM runs WHERE stage = 'elicit-import'")
    assert run == ("elicit-import", "ok")
    [subset] = json_rows("--db", lenient.db, "stats", "--table", "subsets")
    assert subset["protocol"] == "MULTI_CONSTRAINT" and subset["pairs"] == 9
    before = table_counts(lenient.db)
    again = lenient.send(premise, form_of(answer))
    assert again.status_code == 200 and "already submitted with this answer" in again.text
    assert table_counts(lenient.db) == before
    other = lenient.send(premise, form_of(MULTI))
    assert other.status_code == 409 and "keeps the first answer" in other.text
    assert table_counts(lenient.db) == before


def test_a_submitted_premise_drops_its_draft_and_shows_its_stored_hypotheses(
    lenient: Writing,
) -> None:
    premise, text = lenient.premises[0]
    copied = text.rstrip(".") + " indeed."
    answer = MULTI | {"entailment": [copied, *MULTI["entailment"][1:]]}
    lenient.feedback(premise, form_of(answer), save=True)
    assert query(lenient.db, "SELECT item_id FROM drafts") == [(premise,)]
    assert lenient.send(premise, form_of(answer)).status_code == 200

    assert query(lenient.db, "SELECT count(*) FROM drafts") == [(0,)]
    page = lenient.client.get(f"/write/{lenient.batch}?premise={premise}").text
    assert "You have submitted this premise" in page and "<textarea" not in page
    table = page.split('class="submitted-answer"', 1)[1].split("</section>", 1)[0]
    for hypothesis in [copied, *MULTI["entailment"][1:], *MULTI["neutral"]]:
        assert f">{hypothesis}</td>" in table
    row = table.split(f"<td>{premise}-e1</td>", 1)[1].split("</tr>", 1)[0]
    assert "entailment" in row and "easy" in row and "Error: too much of the premise:" in row
    assert table.count("<tr><td>") == 9


def test_the_draft_status_shows_a_clock_time_not_an_iso_stamp(writing: Writing) -> None:
    premise = writing.premises[0][0]
    saved = writing.feedback(premise, {"neutral_1": "The mayor was on holiday."}, save=True)
    assert re.fullmatch(r"saved \d\d:\d\d:\d\d", saved.json()["saved_text"])
    page = writing.client.get(f"/write/{writing.batch}").text
    status = page.split('id="draft-status" role="status">', 1)[1].split("</span>", 1)[0]
    assert re.fullmatch(r"Draft saved \d\d:\d\d:\d\d", status), status


def test_a_blocking_finding_is_refused_with_the_findings_and_the_draft_kept(
    writing: Writing,
) -> None:
    premise, text = writing.premises[0]
    before = table_counts(writing.db)
    response = writing.send(premise, form_of(MULTI | {"neutral": [text]}))
    assert response.status_code == 422
    assert "Not submitted" in response.text and "copy of the premise" in response.text
    assert table_counts(writing.db) == before
    page = writing.client.get(f"/write/{writing.batch}").text
    assert f">{text}</textarea>" in page  # kept as the draft


def test_another_writers_batch_is_404_on_every_route(writing: Writing, tmp_path: Path) -> None:
    theirs = batches_of(writing.db)["w02"][0]
    premise = premises_of(writing.db, theirs)[0][0]
    before = table_counts(writing.db)
    assert writing.client.get(f"/write/{theirs}").status_code == 404
    feedback = writing.client.post(f"/write/{theirs}/{premise}/feedback", json={"fields": {}},
                                   headers={"X-CSRF-Token": writing.token})  # fmt: skip
    assert feedback.status_code == 404
    form = {"csrf_token": writing.token, "action": "submit", **form_of(MULTI)}
    assert writing.client.post(f"/write/{theirs}/{premise}", data=form).status_code == 404
    # A premise of another batch under one's own batch is 404 too.
    assert writing.feedback(premise, {}).status_code == 404
    assert table_counts(writing.db) == before
    with signed_in(writing.db, "w01", Role.VALIDATOR) as validator:
        assert validator.get(f"/write/{writing.batch}").status_code == 403


def test_a_post_without_the_csrf_token_is_403_and_records_nothing(writing: Writing) -> None:
    premise = writing.premises[0][0]
    before = table_counts(writing.db)
    url = f"/write/{writing.batch}/{premise}"
    assert writing.client.post(f"{url}/feedback", json={"fields": {}, "save": True}).status_code \
        == 403  # fmt: skip
    assert writing.client.post(url, data={"action": "submit", **form_of(MULTI)}).status_code == 403
    assert table_counts(writing.db) == before
    assert query(writing.db, "SELECT count(*) FROM drafts") == [(0,)]


def test_a_malformed_feedback_request_is_400(writing: Writing) -> None:
    premise = writing.premises[0][0]
    url = f"/write/{writing.batch}/{premise}/feedback"
    headers = {"X-CSRF-Token": writing.token}
    for body in (b"not json", b'{"fields": {"entailment_1": 3}}', b'{"other": 1}'):
        assert writing.client.post(url, content=body, headers=headers).status_code == 400


def test_a_script_in_a_premise_or_a_draft_shows_as_text(tmp_path: Path) -> None:
    sentences = [f"The page showed {SCRIPT} in the middle of the story."]
    db = premise_corpus(tmp_path / "corpus.db", {"news": sentences}, lang="en").path
    from conftest import ok

    ok("--db", db, "elicit", "create", "--protocol", "MULTI_CONSTRAINT", "--writers", "w01")
    session = Writing(db)
    with session.client:
        premise = session.premises[0][0]
        session.feedback(premise, {"contradiction_1": f"No {SCRIPT} here."}, save=True)
        page = session.client.get(f"/write/{session.batch}").text
    assert SCRIPT not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # premise, field, marked copy


def test_the_feedback_route_answers_200_calls_quickly(writing: Writing) -> None:
    premise = writing.premises[0][0]
    fields = form_of(MULTI)
    writing.feedback(premise, fields)  # settings and lexicon cached
    took = []
    for _ in range(200):
        started = time.perf_counter()
        assert writing.feedback(premise, fields).status_code == 200
        took.append(time.perf_counter() - started)
    p95 = quantiles(took, n=20)[-1]
    print(f"feedback route, in-process: median {median(took) * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms over 200 calls")  # fmt: skip
    assert p95 < 0.1


def test_an_untouched_premise_shows_a_hint_not_errors(writing: Writing) -> None:
    premise = writing.premises[0][0]
    blank = form_of({label: ["", "", ""] for label in ("entailment", "neutral", "contradiction")})
    view = writing.feedback(premise, blank).json()
    assert [note["severity"] for note in view["answer_notes"]] == ["info"]
    assert "Nothing written yet" in view["answer_notes"][0]["text"]
    assert all(field["notes"] == [] for field in view["fields"].values())
    assert view["blocked"]  # nothing to submit, though nothing is wrong
    assert view["blocked_reason"] == (
        "Submitting is off: write the hypotheses, or mark the premise unusable."
    )
    assert "Error" not in view["blocked_reason"]


def test_the_reason_submitting_is_off_names_each_problem_once(writing: Writing) -> None:
    premise = writing.premises[0][0]
    view = writing.feedback(premise, {"entailment_1": "The council met on a Monday."}).json()
    reason = view["blocked_reason"]
    assert reason.count("the answer: label missing") == 1, reason  # neutral and contradiction
    assert len([n for n in view["answer_notes"] if "label missing" in n["text"]]) == 2


def test_the_units_shared_with_the_premise_are_highlighted_in_the_hypothesis(
    writing: Writing,
) -> None:
    premise, text = writing.premises[0]
    first, second = text.split()[:2]
    typed = f"{first} {second} <b>zyzzyva</b>"
    view = writing.feedback(premise, {"neutral_1": typed}).json()
    field = view["fields"]["neutral_1"]
    assert field["shared_segments"] == [
        {"text": first, "marked": True},
        {"text": " ", "marked": False},
        {"text": second, "marked": True},
        {"text": " <b>zyzzyva</b>", "marked": False},
    ]
    assert "".join(part["text"] for part in field["shared_segments"]) == typed
    assert field["shared_text"].startswith("Shared with the premise (")
    page = writing.send(premise, {"neutral_1": typed}, action="check").text
    shown = page.split('id="fb-neutral_1"', 1)[1].split('class="marked"', 1)[0]
    marks = [f'<mark class="shared-unit">{word}</mark>' for word in (first, second)]
    assert " ".join(marks) in shown
    assert "&lt;b&gt;zyzzyva&lt;/b&gt;" in shown and "<b>" not in shown


def test_the_instructions_markdown_is_rendered_once_not_on_every_page(
    writing: Writing, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rendering it was most of the page's time, and every submit renders the next page.
    rendered: list[str] = []

    def counted(markdown: str) -> str:
        rendered.append(markdown)
        return instructions_html(markdown)

    monkeypatch.setattr("nlibuild.web.writing_pages.instructions_html", counted)
    instructions_markup.cache_clear()
    pages = [writing.client.get(f"/write/{writing.batch}") for _ in range(3)]
    assert [page.status_code for page in pages] == [200, 200, 200]
    assert len({page.text for page in pages}) == 1 and "<li>" in pages[0].text
    assert len(rendered) == 1
