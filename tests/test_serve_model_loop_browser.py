"""The model in the writers' loop in a real headless Chromium (issue 29): a writer on an
adversarial round's batch types hypotheses and sees, under each, the served model's label
and probabilities and whether it was fooled, changes a hypothesis until it fools the model,
and submits; the store then holds each pair's prediction and tries, and every try. The
served model is a fake (tests/model_loop_data.py), the server uvicorn in a thread.
Skipped, with the reason, where Chromium or playwright is absent."""

from __future__ import annotations

import json
from pathlib import Path

from browser import chromium_tab, pytestmark, sync_api, workbench_in_thread
from conftest import query
from model_loop_data import FakeModel, loop_store
from serve_stores import invite
from workbench_data import batches_of, premises_of

from nlibuild.models import Role

__all__ = ["pytestmark"]


def test_a_writer_sees_the_models_label_and_whether_they_fooled_it(tmp_path: Path) -> None:
    db = loop_store(tmp_path / "corpus.db", "adversarial")
    token = invite(db, "w01", Role.WRITER)
    batch = batches_of(db)["w01"][0]
    premise_id = premises_of(db, batch)[0][0]
    model = FakeModel()
    with workbench_in_thread(db, model) as server, chromium_tab(server, 1100, 1400) as watched:
        tab, expect = watched.tab, sync_api.expect
        tab.goto(f"{server}/t/{token}")
        tab.wait_for_url(f"{server}/")
        tab.get_by_role("link", name=batch).click()
        expect(tab.locator(".model-hint")).to_contain_text("try to write hypotheses it gets wrong")

        # An entailment the model reads as an entailment: not fooled; the writer tries again.
        tab.locator("#f-entailment_1").fill("The plan was public.")  # one input: one try
        box = tab.locator("#model-entailment_1")
        expect(box.locator(".model-verdict")).to_have_text(
            "Not fooled: the model also says entailment"
        )
        expect(box.locator(".model-label")).to_have_text("Model: entailment (70%)")
        expect(box.locator(".model-shares")).to_have_text(
            "entailment 70% · neutral 15% · contradiction 15%"
        )
        tab.locator("#f-entailment_1").fill("The plan was never a secret.")
        expect(box.locator(".model-verdict")).to_have_text(
            "Fooled the model: it says contradiction, you meant entailment"
        )
        expect(box.locator(".model-tries")).to_have_text("2 tries")
        expect(box).to_have_class("model fooled")

        # Typed key by key: a pause in typing may check a half-written text, a try too.
        tab.locator("#f-neutral_1").press_sequentially("Maybe the mayor was pleased.")
        tab.locator("#f-contradiction_1").press_sequentially("Nobody approved anything.")
        expect(tab.locator("#model-contradiction_1 .model-verdict")).to_have_text(
            "Not fooled: the model also says contradiction"
        )
        expect(tab.locator("#model-neutral_1 .model-verdict")).to_contain_text("Not fooled")
        tab.locator("#submit-answer").click()
        expect(tab.locator(".submitted")).to_contain_text(
            "The model was fooled by 1 of your 3 hypotheses."
        )
    assert watched.problems == [] and watched.foreign == []

    stored = query(
        db,
        "SELECT p.id, m.model, m.label, m.probabilities, m.tries FROM model_predictions m "
        "JOIN pairs p ON p.pk = m.pair_pk ORDER BY p.id",
    )
    assert [(pair, label) for pair, _, label, _, _ in stored] == [
        (f"{premise_id}-c1", "contradiction"),
        (f"{premise_id}-e1", "contradiction"),
        (f"{premise_id}-n1", "neutral"),
    ]
    assert {row[1] for row in stored} == {FakeModel.identity}
    assert json.loads(stored[1][3]) == model.shares("The plan was never a secret.")
    # Each pair's tries are the checks of its field; the last is the text submitted.
    tries = query(db, "SELECT slot, hypothesis, fooled FROM model_tries ORDER BY pk")
    per_field = {slot: [t for t in tries if t[0] == slot] for slot, _, _ in tries}
    assert {pair[-2:]: count for pair, _, _, _, count in stored} == {
        slot[0] + slot[-1]: len(made) for slot, made in per_field.items()
    }
    assert per_field["entailment_1"][-1] == ("entailment_1", "The plan was never a secret.", 1)
    assert ("entailment_1", "The plan was public.", 0) in per_field["entailment_1"]
    assert per_field["contradiction_1"][-1][1:] == ("Nobody approved anything.", 0)
