"""The relabel page (issue 19): a validator's pairs one at a time, the labels as buttons with
their keys, progress, undo; a vote lands as a `relabel import` vote would, with the seconds
spent (capped); blind on every item (no author, intended label, pair ID or other votes);
the author's own pairs never appear; CSRF and escaping as on every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ok, query, table_counts, write_jsonl
from elicitation_data import premise_corpus
from serve_stores import batches_of, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.models import Role
from nlibuild.workbench.relabelling import capped_seconds

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

NAMES = {"entailment": "蕴含", "neutral": "中立", "contradiction": "矛盾", "unrelated": "无关",
         "unknown": "无法判断"}  # fmt: skip
"""The ocnli preset's labels, its extra labels last, by its [labels.names]."""
CHOICES = re.compile(
    r'<form method="post" action="/label/[^"]+/vote" class="choices".*?</form>', re.S
)


def csrf_of(page: str) -> str:
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def items_of(db: Path, batch: str, validator: str) -> list[tuple[str, str, str, str, str]]:
    """(pair ID, premise, hypothesis, author, intended label) of the pairs the validator
    may label, in the batch's order."""
    return [
        (row[0], row[1], row[2], row[3], row[4])
        for row in query(
            db,
            "SELECT p.id, pr.text, p.hypothesis, a.id, p.author_label FROM assignments s "
            "JOIN batches b ON b.pk = s.batch_pk JOIN pairs p ON p.id = s.item_id "
            "JOIN premises pr ON pr.pk = p.premise_pk JOIN annotators a ON a.pk = p.author_pk "
            "WHERE b.id = ? AND a.id != ? ORDER BY s.position",
            batch,
            validator,
        )
    ]


def own_votes(db: Path, validator: str) -> list[tuple[str, str]]:
    return query(
        db,
        "SELECT p.id, v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk JOIN annotators a "
        "ON a.pk = v.annotator_pk WHERE a.id = ? AND v.position >= 1 ORDER BY p.id",
        validator,
    )


def vote(client: TestClient, batch: str, item: int, label: str, page: str) -> int:
    """A vote as the page's form sends it; the response's status."""
    response = client.post(
        f"/label/{batch}/vote",
        data={"csrf_token": csrf_of(page), "item": str(item), "label": label},
        follow_redirects=False,
    )
    return response.status_code


@pytest.fixture
def v01_batch(workbench_db: Path) -> str:
    return batches_of(workbench_db, "v01", "relabel")[0]


@pytest.fixture
def validator(workbench_db: Path) -> TestClient:
    return signed_in(workbench_db, "v01", Role.VALIDATOR)


def test_the_page_shows_the_first_pair_its_label_keys_progress_and_the_key_help(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    items = items_of(workbench_db, v01_batch, "v01")
    page = validator.get(f"/label/{v01_batch}").text
    _, premise, hypothesis, _, _ = items[0]
    assert f'<p class="premise" lang="zh">{premise}</p>' in page
    assert f'<p class="hypothesis" lang="zh">{hypothesis}</p>' in page
    assert items[1][2] not in page  # one pair at a time
    assert f"Item 1 of {len(items)}" in page
    for key, (label, name) in enumerate(NAMES.items(), 1):
        button = f'value="{label}" data-key="{key}"'
        assert button in page and f"<kbd>{key}</kbd> {name}</button>" in page
    # The item has the focus, not a label button (where a stray Enter would vote).
    assert '<section class="pair" aria-labelledby="progress-text" tabindex="-1" autofocus>' in page
    assert len(re.findall(r"\bautofocus\b", page)) == 1
    assert "Keys: 1–5 choose a label, u or Backspace takes back the last one" in page
    assert '<script src="/static/label.js" defer></script>' in page
    assert "Undo" not in page  # nothing to take back yet


def test_a_vote_lands_as_a_relabel_import_vote_would(
    workbench_db: Path, validator: TestClient, v01_batch: str, tmp_path: Path
) -> None:
    pair_id = items_of(workbench_db, v01_batch, "v01")[0][0]
    imported = tmp_path / "imported.db"
    imported.write_bytes(workbench_db.read_bytes())
    votes = write_jsonl(
        tmp_path / "votes.jsonl",
        [{"batch": v01_batch, "annotator": "v01", "pair_id": pair_id, "label": "neutral"}],
    )
    ok("--db", imported, "relabel", "import", votes)

    page = validator.get(f"/label/{v01_batch}").text
    assert vote(validator, v01_batch, 1, "neutral", page) == 303
    same_rows = {
        "votes": "SELECT p.id, a.id, v.label, v.position FROM votes v JOIN pairs p ON "
        "p.pk = v.pair_pk JOIN annotators a ON a.pk = v.annotator_pk ORDER BY p.id, v.position",
        "pair_labels": "SELECT * FROM pair_labels ORDER BY pair_pk",
        "assignments": "SELECT * FROM assignments ORDER BY batch_pk, position",
    }
    for table, sql in same_rows.items():
        page_rows = query(workbench_db, sql)
        if table == "pair_labels":  # the run that wrote them differs, nothing else
            page_rows = [row[:-1] for row in page_rows]
            assert page_rows == [row[:-1] for row in query(imported, sql)], table
        else:
            assert page_rows == query(imported, sql), table
    assert own_votes(workbench_db, "v01") == [(pair_id, "neutral")]
    stage, settings = query(workbench_db, "SELECT stage, config_json FROM runs ORDER BY id DESC")[0]
    assert stage == "relabel-import" and '"source":"workbench"' in settings
    assert "Item 2 of" in validator.get(f"/label/{v01_batch}").text


def test_label_js_sends_the_seconds_spent_and_the_server_caps_absurd_ones(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    token = csrf_of(validator.get(f"/label/{v01_batch}").text)
    headers = {"X-CSRF-Token": token}
    for item, seconds in ((1, 7.5), (2, 86_400.0), (3, -4.0)):
        answer = {"item": item, "label": "contradiction", "seconds": seconds}
        response = validator.post(f"/label/{v01_batch}/vote", json=answer, headers=headers)
        assert response.status_code == 200
        assert response.json() == {"label": "contradiction", "next": f"/label/{v01_batch}"}
    times = query(workbench_db, "SELECT seconds FROM vote_times ORDER BY seconds")
    assert times == [(7.5,), (600.0,)]  # ServeConfig.max_seconds_per_item; a negative: none
    assert len(own_votes(workbench_db, "v01")) == 3


def test_label_js_is_told_which_label_an_undo_took_back_and_finds_its_words_on_the_page(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    """label.js says "recorded: 中立" and "taken back: 中立" without a reload: the sentences
    come from the page's status line, the name from the label's button, and an undo's JSON
    names the label it took back (null, with nothing taken back, for an open item)."""
    page = validator.get(f"/label/{v01_batch}").text
    status = '<p class="label-status" role="status" aria-live="polite"'
    assert 'data-recorded="recorded: {label}" data-undone="taken back: {label}"' in page
    assert status in page
    assert 'value="neutral" data-key="2" data-name="中立"><kbd>2</kbd> 中立</button>' in page
    headers = {"X-CSRF-Token": csrf_of(page)}
    vote_url, undo_url = f"/label/{v01_batch}/vote", f"/label/{v01_batch}/undo"
    answer = {"item": 1, "label": "neutral", "seconds": 2.0}
    assert validator.post(vote_url, json=answer, headers=headers).status_code == 200
    response = validator.post(undo_url, json={"item": 1}, headers=headers)
    assert response.json() == {"undone": True, "label": "neutral", "next": f"/label/{v01_batch}"}
    assert own_votes(workbench_db, "v01") == []
    again = validator.post(undo_url, json={"item": 1}, headers=headers).json()
    assert again == {"undone": False, "label": None, "next": f"/label/{v01_batch}"}


def test_the_end_of_a_batch_has_the_focus_not_the_undo_button(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    walk_batch(validator, v01_batch, len(items_of(workbench_db, v01_batch, "v01")))
    page = validator.get(f"/label/{v01_batch}").text
    assert '<p class="done" tabindex="-1" autofocus>' in page
    assert len(re.findall(r"\bautofocus\b", page)) == 1 and "Undo the label of item" in page


def test_resubmitting_the_same_label_adds_nothing(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    page = validator.get(f"/label/{v01_batch}").text
    assert vote(validator, v01_batch, 1, "entailment", page) == 303
    before = table_counts(workbench_db)
    runs = query(workbench_db, "SELECT count(*) FROM runs")
    assert vote(validator, v01_batch, 1, "entailment", page) == 303  # the same form again
    assert table_counts(workbench_db) == before
    assert query(workbench_db, "SELECT count(*) FROM runs") == runs


def test_another_label_for_a_labelled_item_is_409_until_it_is_undone(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    page = validator.get(f"/label/{v01_batch}").text
    assert vote(validator, v01_batch, 1, "entailment", page) == 303
    response = validator.post(
        f"/label/{v01_batch}/vote",
        data={"csrf_token": csrf_of(page), "item": "1", "label": "neutral"},
    )
    assert response.status_code == 409 and "undo" in response.text
    assert [label for _, label in own_votes(workbench_db, "v01")] == ["entailment"]


def test_undo_takes_back_the_last_vote_and_shows_that_pair_again(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    items = items_of(workbench_db, v01_batch, "v01")
    page = validator.get(f"/label/{v01_batch}").text
    assert vote(validator, v01_batch, 1, "entailment", page) == 303
    assert vote(validator, v01_batch, 2, "neutral", page) == 303
    page = validator.get(f"/label/{v01_batch}").text
    assert "Undo the label of item 2" in page and items[2][2] in page
    before = table_counts(workbench_db)
    response = validator.post(
        f"/label/{v01_batch}/undo", data={"csrf_token": csrf_of(page), "item": "2"}
    )
    assert response.status_code == 200  # followed the 303 back to the page
    assert items[1][2] in response.text and "Item 2 of" in response.text
    assert own_votes(workbench_db, "v01") == [(items[0][0], "entailment")]
    assert table_counts(workbench_db)["votes"] == before["votes"] - 1
    # Undoing again walks back one more; a label after the undo is a new vote.
    assert "Undo the label of item 1" in response.text
    assert vote(validator, v01_batch, 2, "contradiction", page) == 303
    assert dict(own_votes(workbench_db, "v01"))[items[1][0]] == "contradiction"
    stages = [stage for (stage,) in query(workbench_db, "SELECT stage FROM runs ORDER BY id")]
    assert stages[-2:] == ["relabel-undo", "relabel-import"]


def test_another_validators_batch_is_404_for_the_page_a_vote_and_an_undo(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    token = csrf_of(validator.get(f"/label/{v01_batch}").text)
    before = table_counts(workbench_db)
    for batch in [*batches_of(workbench_db, "v02", "relabel"), "r9999"]:
        assert validator.get(f"/label/{batch}").status_code == 404
        form = {"csrf_token": token, "item": "1", "label": "neutral"}
        assert validator.post(f"/label/{batch}/vote", data=form).status_code == 404
        undo = {"csrf_token": token, "item": "1"}  # the undo form has no label
        assert validator.post(f"/label/{batch}/undo", data=undo).status_code == 404
    beyond = form | {"item": "999"}
    assert validator.post(f"/label/{v01_batch}/vote", data=beyond).status_code == 404
    assert table_counts(workbench_db) == before


def test_a_vote_without_the_csrf_token_is_403_and_changes_nothing(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    before = table_counts(workbench_db)
    form = {"item": "1", "label": "neutral"}
    assert validator.post(f"/label/{v01_batch}/vote", data=form).status_code == 403
    assert validator.post(f"/label/{v01_batch}/vote", json=form | {"seconds": 3}).status_code == 403
    assert validator.post(f"/label/{v01_batch}/undo", data={"item": "1"}).status_code == 403
    assert table_counts(workbench_db) == before


def test_a_label_not_of_the_store_or_a_vote_without_an_item_is_refused(
    workbench_db: Path, validator: TestClient, v01_batch: str
) -> None:
    token = csrf_of(validator.get(f"/label/{v01_batch}").text)
    before = table_counts(workbench_db)
    url = f"/label/{v01_batch}/vote"
    response = validator.post(
        url, json={"item": 1, "label": "maybe"}, headers={"X-CSRF-Token": token}
    )
    assert response.status_code == 400 and "not one of" in response.json()["error"]
    assert validator.post(url, data={"csrf_token": token, "label": "neutral"}).status_code == 400
    assert table_counts(workbench_db) == before


def test_a_writer_posting_a_vote_is_403(workbench_db: Path, v01_batch: str) -> None:
    with signed_in(workbench_db, "w01", Role.WRITER) as writer:
        token = csrf_of(writer.get("/").text)
        form = {"csrf_token": token, "item": "1", "label": "neutral"}
        assert writer.post(f"/label/{v01_batch}/vote", data=form).status_code == 403


def walk_batch(client: TestClient, batch: str, items: int) -> list[str]:
    """Label every item of the batch in turn ("neutral"), keeping each item's page."""
    pages = []
    for number in range(1, items + 1):
        page = client.get(f"/label/{batch}").text
        assert f"Item {number} of {items}" in page
        pages.append(page[page.index("<main") :])
        assert vote(client, batch, number, "neutral", page) == 303
    assert "every item of this batch is labelled" in client.get(f"/label/{batch}").text
    return pages


def test_every_item_is_blind(workbench_db: Path, validator: TestClient, v01_batch: str) -> None:
    """Each item's page holds its two sentences and the same choices, and nothing else of
    the pair: not its author, its intended label (by label or name), its ID or other votes."""
    items = items_of(workbench_db, v01_batch, "v01")
    hidden = [*NAMES, *NAMES.values(), "w02", "author", "intended", "vote"]
    choices_seen: set[str] = set()
    pages = walk_batch(validator, v01_batch, len(items))
    for number, (page, item) in enumerate(zip(pages, items, strict=True), 1):
        pair_id, premise, hypothesis, author, _ = item
        assert premise in page and hypothesis in page
        assert pair_id not in page and author not in page
        choices = CHOICES.findall(page)
        assert len(choices) == 1
        rest = page.replace(choices[0], "")
        assert [word for word in hidden if word in rest] == [], number
        numbered = (f'data-item="{number}"', f'name="item" value="{number}"')
        assert all(text in choices[0] for text in numbered)
        choices_seen.add(choices[0].replace(numbered[0], "").replace(numbered[1], ""))
    assert len(choices_seen) == 1  # the same choices, whatever the pair's intended label


def test_the_validators_own_pairs_never_appear(workbench_db: Path) -> None:
    """Two pairs of w01's relabelling batch made w01's own (as if they had written them):
    the page never shows them, and the items are numbered without them."""
    batch = batches_of(workbench_db, "w01", "relabel")[0]
    rows = query(workbench_db, "SELECT s.item_id FROM assignments s JOIN batches b ON "
                 "b.pk = s.batch_pk WHERE b.id = ? ORDER BY s.position", batch)  # fmt: skip
    assigned = [pair for (pair,) in rows]
    own = [assigned[0], assigned[2]]
    query(workbench_db, "UPDATE pairs SET author_pk = (SELECT pk FROM annotators WHERE id = "
          "'w01') WHERE id IN (?, ?)", *own)  # fmt: skip
    own_texts = [h for (h,) in query(workbench_db, "SELECT hypothesis FROM pairs WHERE id IN "
                                     "(?, ?)", *own)]  # fmt: skip
    with signed_in(workbench_db, "w01", Role.VALIDATOR) as client:
        pages = walk_batch(client, batch, len(assigned) - 2)
        token = csrf_of(client.get(f"/label/{batch}").text)
        form = {"csrf_token": token, "item": str(len(assigned) - 1), "label": "neutral"}
        assert client.post(f"/label/{batch}/vote", data=form).status_code == 404
    assert not [text for text in own_texts for page in pages if text in page]
    voted = {pair for pair, _ in own_votes(workbench_db, "w01")}
    assert voted == set(assigned) - set(own)


def test_a_premise_and_hypothesis_holding_a_script_show_as_text(tmp_path: Path) -> None:
    script = "<script>alert(1)</script>"
    db = premise_corpus(
        tmp_path / "corpus.db", {"news": [f"The page showed {script} in the story."]}, lang="en"
    ).path
    ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--writers", "w01")
    premise_id = query(db, "SELECT id FROM premises")[0][0]
    batch = batches_of(db, "w01", "elicit")[0]
    answers = [{"batch": batch, "writer": "w01", "premise_id": premise_id,
                "entailment": [f"A page showed {script}."], "neutral": ["The story was long."],
                "contradiction": ["Nothing was shown."]}]  # fmt: skip
    ok("--db", db, "elicit", "import", write_jsonl(tmp_path / "answers.jsonl", answers))
    ok("--db", db, "relabel", "create", "--annotators", "v01", "--fraction", 1, "--validators", 1)
    with signed_in(db, "v01", Role.VALIDATOR) as client:
        page = client.get(f"/label/{batches_of(db, 'v01', 'relabel')[0]}").text
    assert script not in page
    assert "The page showed &lt;script&gt;alert(1)&lt;/script&gt; in the story." in page
    assert re.findall(r"<script\b[^>]*>", page) == [
        '<script src="/static/workbench.js" defer>',
        '<script src="/static/label.js" defer>',
    ]


def test_the_seconds_are_capped_and_anything_not_a_time_is_none() -> None:
    assert capped_seconds(12.25, 600) == 12.25
    assert capped_seconds(3, 600) == 3.0
    assert capped_seconds(5_000, 600) == 600.0
    for given in (-1, float("nan"), float("inf"), "12", None, True):
        assert capped_seconds(given, 600) is None
