"""A model in the writers' loop (issue 29, items 2, 3 and 6), over HTTP with a fake served
model: the writing page's feedback has a model part (`/feedback/model`: per filled field
the model's label and probabilities, one batched call), fetched beside the findings, which
never call the model; in adversarial mode it says whether each hypothesis fooled the model
and counts the writer's tries (`model_tries`); a submission stores each pair's prediction,
model and tries (`model_predictions`). A writer gets predictions for their own batches only,
a validator never sees the model's word, and the model's output is escaped."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from conftest import query
from model_loop_data import BrokenModel, FakeModel, loop_store
from serve_stores import signed_in
from workbench_data import batches_of, premises_of

import nlibuild
from nlibuild.models import Role
from nlibuild.workbench.model_loop import (
    ModelUnavailable,
    Prediction,
    fooled,
    predict,
    prediction_of,
)

SCRIPT = "<script>alert(1)</script>"
TRIES = "SELECT slot, hypothesis, model, label, fooled FROM model_tries ORDER BY pk"
PREDICTIONS = (
    "SELECT p.id, p.author_label, m.model, m.label, m.probabilities, m.tries "
    "FROM model_predictions m JOIN pairs p ON p.pk = m.pair_pk ORDER BY p.id"
)
# A careful writer's answer: the model reads the contradiction right, and the entailment
# (it holds "never") as a contradiction: fooled.
ANSWER = {
    "entailment_1": "The plan was never a secret.",
    "neutral_1": "Maybe the mayor was pleased.",
    "contradiction_1": "Nobody approved anything.",
}


class Loop:
    """A writer signed in to a workbench serving `model`, on their first batch."""

    def __init__(self, db: Path, model: FakeModel | None, writer: str = "w01") -> None:
        self.db = db
        self.model = model
        self.client = signed_in(db, writer, Role.WRITER, predictor=model)
        self.batch = batches_of(db)[writer][0]
        self.premises = premises_of(db, self.batch)
        page = self.client.get("/").text
        self.token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.client.post(path, json=body, headers={"X-CSRF-Token": self.token})

    def model_part(self, fields: dict[str, str], premise: int = 0) -> Any:
        premise_id = self.premises[premise][0]
        return self.post(f"/write/{self.batch}/{premise_id}/feedback/model", {"fields": fields})

    def findings(self, fields: dict[str, str], premise: int = 0) -> Any:
        premise_id = self.premises[premise][0]
        return self.post(f"/write/{self.batch}/{premise_id}/feedback", {"fields": fields})

    def form(self, fields: dict[str, str], action: str = "submit", premise: int = 0) -> Any:
        premise_id = self.premises[premise][0]
        form = {"csrf_token": self.token, "action": action, **fields}
        return self.client.post(f"/write/{self.batch}/{premise_id}", data=form)


def loop_of(tmp_path: Path, mode: str = "adversarial", model: FakeModel | None = None) -> Loop:
    return Loop(loop_store(tmp_path / "corpus.db", mode), model or FakeModel())


@pytest.fixture
def adversarial(tmp_path: Path) -> Iterator[Loop]:
    loop = loop_of(tmp_path)
    with loop.client:
        yield loop


# --- the rule and the prediction record -----------------------------------------------------


def test_a_hypothesis_fools_the_model_when_its_label_is_not_the_writers() -> None:
    assert fooled("contradiction", "entailment")
    assert not fooled("neutral", "neutral")


def test_the_predicted_label_is_the_most_probable_and_the_first_on_a_tie() -> None:
    labels = ("entailment", "neutral", "contradiction")
    shares = {"contradiction": 0.5, "entailment": 0.2, "neutral": 0.3}
    assert prediction_of(shares, labels) == Prediction(label="contradiction", probabilities={
        "entailment": 0.2, "neutral": 0.3, "contradiction": 0.5})  # fmt: skip
    tie = {"entailment": 0.4, "neutral": 0.4, "contradiction": 0.2}
    assert prediction_of(tie, labels).label == "entailment"


@pytest.mark.parametrize(
    "answer",
    [
        {"entailment": 0.5, "neutral": 0.5},  # a label missing
        {"entailment": 0.5, "neutral": 0.3, "contradiction": float("nan")},
        {"entailment": 1.5, "neutral": 0.3, "contradiction": 0.2},
        {"entailment": "0.5", "neutral": 0.3, "contradiction": 0.2},
        [0.5, 0.3, 0.2],
    ],
)
def test_an_answer_that_is_not_a_probability_per_label_is_refused(answer: object) -> None:
    with pytest.raises(ModelUnavailable):
        prediction_of(answer, ("entailment", "neutral", "contradiction"))


class ShortModel(FakeModel):
    """A served model that answers one pair fewer than it was sent."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        return super().predict(pairs)[1:]


def test_a_model_that_answers_another_number_of_pairs_is_unavailable() -> None:
    model = ShortModel()
    assert predict(model, "A premise.", []) == [] and model.calls == []  # nothing to ask
    with pytest.raises(ModelUnavailable, match="answered 2 pairs with list of 1 items"):
        predict(model, "A premise.", ["One.", "Two."])


# --- the writer sees the model -------------------------------------------------------------


def test_the_model_part_gives_each_filled_field_its_label_and_probabilities_in_one_call(
    adversarial: Loop,
) -> None:
    premise_text = adversarial.premises[0][1]
    fields = {"entailment_1": "The plan was never a secret.", "neutral_1": "",
              "contradiction_1": "Nobody approved anything."}  # fmt: skip
    response = adversarial.model_part(fields)
    assert response.status_code == 200
    shown = response.json()
    assert shown["mode"] == "adversarial"
    assert set(shown["model"]) == {"entailment_1", "contradiction_1"}  # the empty one left out
    entailment = shown["model"]["entailment_1"]
    assert entailment["label"] == "contradiction"
    assert entailment["probabilities"] == {
        "entailment": 0.15, "neutral": 0.15, "contradiction": 0.7}  # fmt: skip
    assert entailment["label_text"] == "Model: contradiction (70%)"
    assert entailment["shares_text"] == "entailment 15% · neutral 15% · contradiction 70%"
    assert adversarial.model is not None
    assert adversarial.model.calls == [
        [(premise_text, fields["entailment_1"]), (premise_text, fields["contradiction_1"])]
    ]


def test_adversarial_mode_says_whether_each_hypothesis_fooled_the_model(
    adversarial: Loop,
) -> None:
    shown = adversarial.model_part(ANSWER).json()["model"]
    assert shown["entailment_1"]["fooled"] is True
    assert shown["entailment_1"]["verdict"] == (
        "Fooled the model: it says contradiction, you meant entailment"
    )
    assert shown["contradiction_1"]["fooled"] is False
    assert shown["contradiction_1"]["verdict"] == "Not fooled: the model also says contradiction"
    assert shown["neutral_1"]["fooled"] is False
    assert shown["neutral_1"]["tries_text"] == "1 try"


def test_each_check_of_a_changed_hypothesis_is_a_try_and_an_unchanged_one_is_not(
    adversarial: Loop,
) -> None:
    first = {"contradiction_1": "The parks were closed."}
    adversarial.model_part(first)
    adversarial.model_part(first | {"entailment_1": ""})  # the same text again
    adversarial.model_part({"contradiction_1": "  The parks were  closed. "})  # spacing only
    shown = adversarial.model_part({"contradiction_1": "Nobody approved the parks."}).json()
    assert shown["model"]["contradiction_1"]["tries"] == 2
    assert shown["model"]["contradiction_1"]["tries_text"] == "2 tries"
    fake = FakeModel.identity
    assert query(adversarial.db, TRIES) == [
        ("contradiction_1", "The parks were closed.", fake, "entailment", 1),
        ("contradiction_1", "Nobody approved the parks.", fake, "contradiction", 0),
    ]
    [(batch_pk, item)] = query(adversarial.db, "SELECT DISTINCT batch_pk, item_id FROM model_tries")
    assert item == adversarial.premises[0][0]
    assert query(adversarial.db, "SELECT id FROM batches WHERE pk = ?", batch_pk) == [
        (adversarial.batch,)
    ]


def test_show_mode_gives_the_label_and_probabilities_without_a_verdict(tmp_path: Path) -> None:
    loop = loop_of(tmp_path, "show")
    with loop.client:
        shown = loop.model_part(ANSWER).json()
        page = loop.client.get(f"/write/{loop.batch}").text
    assert shown["mode"] == "show"
    entailment = shown["model"]["entailment_1"]
    assert entailment["label"] == "contradiction" and entailment["fooled"] is None
    assert entailment["verdict"] == "" and entailment["tries_text"] == ""
    assert 'id="model-entailment_1"' in page and "its label and probabilities show" in page


def test_the_findings_never_call_the_model(adversarial: Loop) -> None:
    response = adversarial.findings(ANSWER)
    assert response.status_code == 200 and "model" not in response.json()
    assert adversarial.model is not None and adversarial.model.calls == []


def test_the_page_asks_for_the_model_part_only_with_a_model_in_the_loop(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    served = loop_of(tmp_path / "a")
    unserved = Loop(loop_store(tmp_path / "b" / "corpus.db"), None)  # no `serve --model`
    with served.client, unserved.client:
        page = served.client.get(f"/write/{served.batch}").text
        assert f'data-model-url="/write/{served.batch}/' in page
        assert "try to write hypotheses it gets wrong" in page
        bare = unserved.client.get(f"/write/{unserved.batch}").text
        assert "data-model-url" not in bare and 'class="model' not in bare
        assert unserved.model_part(ANSWER).status_code == 404


def test_model_loop_off_serves_no_model_part_and_stores_no_prediction(tmp_path: Path) -> None:
    loop = loop_of(tmp_path, "off")
    with loop.client:
        assert "data-model-url" not in loop.client.get(f"/write/{loop.batch}").text
        assert loop.model_part(ANSWER).status_code == 404
        assert loop.form(ANSWER).status_code == 200
    assert loop.model is not None and loop.model.calls == []
    assert query(loop.db, "SELECT count(*) FROM pairs WHERE author_label IS NOT NULL") == [(3,)]
    assert query(loop.db, "SELECT count(*) FROM model_predictions") == [(0,)]


def test_a_failing_model_is_503_and_the_findings_and_the_submission_go_on(
    tmp_path: Path,
) -> None:
    loop = loop_of(tmp_path, model=BrokenModel())
    with loop.client:
        broken = loop.model_part(ANSWER)
        assert broken.status_code == 503 and "did not answer" in broken.json()["error"]
        assert loop.findings(ANSWER).status_code == 200
        submitted = loop.form(ANSWER)
    assert submitted.status_code == 200 and "3 pairs recorded" in unescape(submitted.text)
    assert query(loop.db, "SELECT count(*) FROM model_predictions") == [(0,)]


# --- recorded with the pair ----------------------------------------------------------------


def test_a_submission_stores_each_pairs_prediction_model_and_tries(adversarial: Loop) -> None:
    # Two tries of the contradiction, none of the others before submitting: the submission's
    # own check of a text never checked is a try.
    adversarial.model_part({"contradiction_1": "The parks were closed."})
    adversarial.model_part({"contradiction_1": ANSWER["contradiction_1"]})
    response = adversarial.form(ANSWER)
    assert response.status_code == 200
    assert "The model was fooled by 1 of your 3 hypotheses." in unescape(response.text)
    premise = adversarial.premises[0][0]
    rows = query(adversarial.db, PREDICTIONS)
    fake = FakeModel.identity
    stored = [(pair, intended, model, label, tries) for pair, intended, model, label, _, tries
              in rows]  # fmt: skip
    assert stored == [
        (f"{premise}-c1", "contradiction", fake, "contradiction", 2),
        (f"{premise}-e1", "entailment", fake, "contradiction", 1),
        (f"{premise}-n1", "neutral", fake, "neutral", 1),
    ]
    assert json.loads(rows[1][4]) == {"entailment": 0.15, "neutral": 0.15, "contradiction": 0.7}
    assert query(adversarial.db, "SELECT count(*) FROM model_tries") == [(4,)]
    # After the submission a check of the premise is no longer a try.
    adversarial.model_part({"contradiction_1": "Something else entirely."})
    assert query(adversarial.db, "SELECT count(*) FROM model_tries") == [(4,)]


def test_a_submission_through_the_api_stores_the_predictions_too(adversarial: Loop) -> None:
    premise = adversarial.premises[1][0]
    body = {"premise": premise, "hypotheses": {
        "entailment": [ANSWER["entailment_1"]], "neutral": [ANSWER["neutral_1"]],
        "contradiction": [ANSWER["contradiction_1"]]}}  # fmt: skip
    response = adversarial.post(f"/api/write/{adversarial.batch}", body)
    assert response.status_code == 200, response.text
    stored = {row[0]: (row[3], row[5]) for row in query(adversarial.db, PREDICTIONS)}
    assert stored == {
        f"{premise}-e1": ("contradiction", 1),
        f"{premise}-n1": ("neutral", 1),
        f"{premise}-c1": ("contradiction", 1),
    }


def test_the_page_without_script_checks_with_the_model_too(adversarial: Loop) -> None:
    page = unescape(adversarial.form(ANSWER, action="check").text)
    assert "Fooled the model: it says contradiction, you meant entailment" in page
    assert "Not fooled: the model also says contradiction" in page
    assert query(adversarial.db, "SELECT count(*) FROM model_tries") == [(3,)]


def test_a_reopened_answer_keeps_its_predictions_with_its_pairs(adversarial: Loop) -> None:
    adversarial.form(ANSWER)
    premise = adversarial.premises[0][0]
    lead = signed_in(adversarial.db, "lead01", Role.LEAD)
    with lead:
        page = lead.get("/lead").text
        token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        form = {"csrf_token": token, "batch": adversarial.batch, "premise": premise}
        assert lead.post("/lead/reopen", data=form).status_code == 200
    assert query(adversarial.db, "SELECT count(*) FROM model_predictions") == [(0,)]
    [(kept,)] = query(adversarial.db, "SELECT pairs_json FROM reopened_answers")
    predicted = {pair["id"]: pair["model_prediction"] for pair in json.loads(kept)}
    assert predicted[f"{premise}-e1"]["label"] == "contradiction"
    assert predicted[f"{premise}-e1"]["model"] == FakeModel.identity


# --- safety --------------------------------------------------------------------------------


def test_another_writers_batch_gets_no_prediction(adversarial: Loop, tmp_path: Path) -> None:
    other = Loop(adversarial.db, adversarial.model, writer="w02")
    with other.client:
        premise = adversarial.premises[0][0]
        response = other.post(f"/write/{adversarial.batch}/{premise}/feedback/model",
                              {"fields": ANSWER})  # fmt: skip
        assert response.status_code == 404 and "model" not in response.json()
    assert adversarial.model is not None and adversarial.model.calls == []
    assert query(adversarial.db, "SELECT count(*) FROM model_tries") == [(0,)]


def test_the_models_output_is_escaped_on_the_page(tmp_path: Path) -> None:
    labels = (SCRIPT, "neutral", "contradiction")
    loop = loop_of(tmp_path, model=FakeModel(labels))
    fields = ANSWER | {"neutral_1": "The parks exist."}  # read as the first label
    with loop.client:
        shown = loop.model_part(fields).json()["model"]
        page = loop.form(fields, action="check").text
    assert shown["neutral_1"]["label"] == SCRIPT  # JSON: write.js sets it as textContent
    assert SCRIPT not in page
    assert "Model: &lt;script&gt;alert(1)&lt;/script&gt; (70%)" in page


def test_a_validator_never_sees_the_models_word(adversarial: Loop) -> None:
    adversarial.form(ANSWER)
    nlibuild.open(adversarial.db).relabel_create(fraction=1.0, annotators=("v01",), validators=1)
    [batch] = [b for (b,) in query(adversarial.db,
               "SELECT b.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
               "WHERE a.id = 'v01' AND b.kind = 'relabel'")]  # fmt: skip
    validator = signed_in(adversarial.db, "v01", Role.VALIDATOR)
    with validator:
        shown = [validator.get(f"/label/{batch}").text]
        page = validator.get("/").text
        token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        vote = validator.post(f"/label/{batch}/vote", json={"item": 1, "label": "neutral"},
                              headers={"X-CSRF-Token": token})  # fmt: skip
        assert vote.status_code == 200
        shown += [vote.text, validator.get(f"/label/{batch}").text]
    assert query(adversarial.db, "SELECT count(*) FROM model_predictions") == [(3,)]
    for text in shown:
        assert FakeModel.identity not in text and "sha256" not in text
        assert "model" not in text.lower().replace("data-model", ""), text[:400]
        assert "0.7" not in text and "70%" not in text
