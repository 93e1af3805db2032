"""A model in the writers' loop (issue 29): ANLI's and Dynabench's rounds, where writers try
to write pairs a model gets wrong, on top of the workbench's protocol checks.

`nlibuild serve --model DIR` serves a model (nlibuild/scoring/served.py, the torch side);
this module needs only what it answers, the `Predictor` protocol, so that the workbench
imports no torch. The preset's `[workbench] model_loop` says what a writer sees
(`ModelLoop`): nothing (`off`), the model's label and probabilities for each filled
hypothesis as they type (`show`), or that and whether it fooled the model (`adversarial`).

- A hypothesis fools the model when the model's label differs from the label the writer
  meant it for, the field's (`fooled`; Nie et al. 2020, ANLI). It is verified later, when
  the gold of the validators' votes agrees with the writer: that is `stats`' business.
- Each model check of a changed hypothesis of an open premise is a try (table
  `model_tries`: the field, the text, the model and its label, fooled or not, when); a
  text checked again unchanged is not another. The live checks of the page are tries, and
  so is the submission's own check of a text never checked before.
- On submission every pair stores the model's label, probabilities and identity, and the
  tries of its field (table `model_predictions`), as ANLI counts tries per example.

The model's forward pass runs outside the process's write lock (`model_check`, reads only);
the bookkeeping (`record_tries`, `submit_with_model`) is what runs under it.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

import orjson
from pydantic import BaseModel, ConfigDict

from nlibuild.errors import NlibuildError
from nlibuild.models import Label, ModelLoop, SubmissionResult
from nlibuild.models import Protocol as WritingProtocol
from nlibuild.protocol.elicitation import slot_name
from nlibuild.queries.batches import assignments_of_items
from nlibuild.queries.model_loop import last_tries, pair_keys, tries_per_field
from nlibuild.store import Store
from nlibuild.text.lang import normalise_text
from nlibuild.workbench.feedback import (
    batch_premise,
    protocol_settings,
    slots_of_pairs,
    writers_batch,
)
from nlibuild.workbench.writing import form_slots, submit_answer

LOG = logging.getLogger("nlibuild.web")


class Predictor(Protocol):
    """A served NLI model, as the workbench uses it (nlibuild/scoring/served.py's
    `ServedModel` is one; the tests inject a fake)."""

    @property
    def identity(self) -> str:
        """What model this is, stored with every prediction: `<job>@<step> sha256:<hex>`."""
        ...

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels it predicts, in the order of its outputs."""
        ...

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """The probabilities per label of each (premise, hypothesis), in one batched pass."""
        ...


class ModelUnavailable(NlibuildError):
    """The served model failed to answer, or answered something that is not a prediction:
    the page says so and goes on without it; a submission is recorded without it."""


class Prediction(BaseModel):
    """The model's word on one hypothesis: the most probable label and every label's
    probability."""

    model_config = ConfigDict(frozen=True)

    label: str
    probabilities: dict[str, float]


class FieldCheck(BaseModel):
    """One field's model check: the text checked, the label the writer meant (the field's),
    the prediction, whether it fooled the model, and the field's tries so far."""

    model_config = ConfigDict(frozen=True)

    slot: str
    text: str
    intended: str
    prediction: Prediction
    fooled: bool
    tries: int = 0


class ModelCheck(BaseModel):
    """The model checks of one premise's filled fields, by one model."""

    model_config = ConfigDict(frozen=True)

    model: str
    fields: dict[str, FieldCheck]


def fooled(model_label: str, intended: str) -> bool:
    """Whether a hypothesis fooled the model: the model's label is not the one the writer
    meant (ANLI's "model error"; verified only when the gold agrees with the writer)."""
    return model_label != intended


def model_loop(store: Store) -> ModelLoop:
    """The store's `[workbench] model_loop`."""
    return protocol_settings(store).workbench.model_loop


def prediction_of(probabilities: object, labels: Sequence[str]) -> Prediction:
    """A predictor's answer for one pair as a `Prediction`: a probability (a finite number
    in [0, 1]) for each of `labels`; the label is the most probable, the first of `labels`
    on a tie. `ModelUnavailable` for anything else."""
    if not isinstance(probabilities, dict) or set(probabilities) != set(labels):
        raise ModelUnavailable(f"the model answered {probabilities!r}, not a probability for "
                               f"each of {', '.join(labels)}")  # fmt: skip
    shares = {label: probabilities[label] for label in labels}
    for label, share in shares.items():
        if isinstance(share, bool) or not isinstance(share, int | float):
            raise ModelUnavailable(f"the model's probability of {label} is {share!r}")
        if not math.isfinite(share) or not 0.0 <= share <= 1.0:
            raise ModelUnavailable(f"the model's probability of {label} is {share!r}")
    best = max(labels, key=lambda label: (shares[label], -labels.index(label)))
    return Prediction(label=best, probabilities={k: float(v) for k, v in shares.items()})


def predict(predictor: Predictor, premise: str, hypotheses: Sequence[str]) -> list[Prediction]:
    """The model's predictions of (premise, hypothesis) pairs, in one batched call. Any
    failure of the model is `ModelUnavailable` (logged with its traceback): a model that
    breaks while serving must not break the page."""
    if not hypotheses:
        return []
    labels = tuple(predictor.labels)
    try:
        answered = predictor.predict([(premise, text) for text in hypotheses])
    except Exception as exc:  # the model's own code: whatever it raises, the page goes on
        LOG.exception("the served model %s failed", predictor.identity)
        raise ModelUnavailable(f"the served model failed: {type(exc).__name__}") from exc
    if not isinstance(answered, list) or len(answered) != len(hypotheses):
        raise ModelUnavailable(
            f"the model answered {len(hypotheses)} pairs with {type(answered).__name__} "
            f"of {len(answered) if isinstance(answered, list) else 'no'} items"
        )
    return [prediction_of(shares, labels) for shares in answered]


def model_check(
    store: Store,
    predictor: Predictor,
    writer: str,
    batch_id: str,
    premise_id: str,
    fields: dict[str, str],
) -> ModelCheck:
    """The model's prediction of each filled field of the writer's premise (one batched
    call); NotFound unless the batch is the writer's and holds the premise. Reads only: it
    runs outside the write lock, and records nothing (`record_tries` does)."""
    batch = writers_batch(store, writer, batch_id)
    premise = batch_premise(store, batch, premise_id)
    slots = form_slots(WritingProtocol(batch.protocol or WritingProtocol.SINGLE), {})
    filled = [(slot, normalise_text(fields.get(slot.name, ""))) for slot in slots]
    filled = [(slot, text) for slot, text in filled if text]
    predictions = predict(predictor, premise.text, [text for _, text in filled])
    checks = {
        slot.name: FieldCheck(
            slot=slot.name,
            text=text,
            intended=slot.label.value,
            prediction=prediction,
            fooled=fooled(prediction.label, slot.label.value),
        )
        for (slot, text), prediction in zip(filled, predictions, strict=True)
    }
    return ModelCheck(model=predictor.identity, fields=checks)


ModelTryRow = tuple[int, str, str, str, str, str, bool]
"""A row of `model_tries` as `Store.add_model_tries` takes it: (batch_pk, item_id, slot,
hypothesis, model, the model's label, fooled)."""


def new_tries(
    store: Store, writer: str, batch_id: str, premise_id: str, check: ModelCheck
) -> tuple[list[ModelTryRow], dict[str, int]]:
    """The tries `check` adds (each field whose text, or model, differs from the field's
    last try, while the premise is open) and each field's tries so far; reads only."""
    batch = writers_batch(store, writer, batch_id)
    premise = batch_premise(store, batch, premise_id)
    assignment = next(
        a for a in assignments_of_items(store, "elicit", [premise.id]) if a.batch_pk == batch.pk
    )
    new: list[ModelTryRow] = []
    if assignment.status == "open":
        last = last_tries(store, batch.pk, premise.id)
        new = [
            (batch.pk, premise.id, slot, field.text, check.model, field.prediction.label,
             field.fooled)
            for slot, field in check.fields.items()
            if slot not in last or last[slot] != (field.text, check.model)
        ]  # fmt: skip
    return new, tries_per_field(store, batch.pk, premise.id)


def counted_tries(check: ModelCheck, tries: dict[str, int]) -> ModelCheck:
    """`check` with each field's tries."""
    fields = {
        slot: field.model_copy(update={"tries": tries.get(slot, 0)})
        for slot, field in check.fields.items()
    }
    return check.model_copy(update={"fields": fields})


def record_tries(
    store: Store, writer: str, batch_id: str, premise_id: str, check: ModelCheck
) -> ModelCheck:
    """Record the tries `check` adds (`new_tries`); `check` with each field's tries. The
    page calls it, under the write lock, only when a read found something new."""
    new, tries = new_tries(store, writer, batch_id, premise_id, check)
    if new:
        store.add_model_tries(new)
        tries = Counter(tries) + Counter(row[2] for row in new)
    return counted_tries(check, tries)


def fields_of(hypotheses: dict[Label, list[str]]) -> dict[str, str]:
    """An answer per label (as `submit_answer` takes it) as the form's fields."""
    return {
        slot_name(label, k): text
        for label, texts in hypotheses.items()
        for k, text in enumerate(texts, 1)
    }


PAIR_OF_FIELD = re.compile(r"-([a-z])([0-9]+)$")
"""The end of a pair ID, `-c2`: its label's initial and its number among the label's filled
fields (`protocol.elicitation.pair_id`)."""


def field_of_pair(pair_id: str, slot_of_pair: dict[tuple[Label, int], str]) -> str:
    """The form's field a pair of the answer was typed in ("" if its ID has no label and
    number at its end)."""
    found = PAIR_OF_FIELD.search(pair_id)
    label = next((label for label in Label if found and label.initial == found[1]), None)
    if found is None or label is None:
        return ""
    return slot_of_pair.get((label, int(found[2])), "")


def submit_with_model(
    store: Store,
    writer: str,
    batch_id: str,
    premise_id: str,
    unusable: bool,
    hypotheses: dict[Label, list[str]],
    check: ModelCheck | None,
) -> SubmissionResult:
    """`writing.submit_answer`, with the model's check of the submitted texts (`check`,
    made before the write lock; None: no model in the loop) recorded: the texts not checked
    before are tries, and each pair added stores its prediction and its field's tries."""
    if check is not None:
        check = record_tries(store, writer, batch_id, premise_id, check)
    result = submit_answer(store, writer, batch_id, premise_id, unusable, hypotheses)
    if check is None or result.run_id is None or not result.pairs_added:
        return result
    slot_of_pair = slots_of_pairs(hypotheses)
    keys = pair_keys(store, result.pairs_added)
    rows = []
    for pair_id in result.pairs_added:
        field = check.fields.get(field_of_pair(pair_id, slot_of_pair))
        if field is None or pair_id not in keys:
            continue
        shares = orjson.dumps(field.prediction.probabilities).decode()
        rows.append((keys[pair_id], check.model, field.prediction.label, shares, field.tries))
    store.add_model_predictions(rows)
    return result


def submission_check(
    store: Store,
    predictor: Predictor | None,
    writer: str,
    batch_id: str,
    premise_id: str,
    unusable: bool,
    fields: dict[str, str],
) -> ModelCheck | None:
    """The model's check of an answer about to be submitted, made before the write lock;
    None where no model is in the loop (none served, `model_loop = "off"`), for a premise
    marked unusable (its hypotheses are ignored), or when the model fails: the answer is
    recorded all the same, without predictions, and the failure is logged."""
    if predictor is None or unusable or model_loop(store) is ModelLoop.OFF:
        return None
    try:
        return model_check(store, predictor, writer, batch_id, premise_id, fields)
    except ModelUnavailable as exc:
        LOG.warning("%s: %s, premise %s submitted without the model's predictions",
                    writer, exc, premise_id)  # fmt: skip
        return None
