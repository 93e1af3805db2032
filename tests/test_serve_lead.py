"""The lead page's buttons (issue 19: "buttons for what the CLI does"): each makes what the
CLI command would make on the same store, as a run with the same settings signature, and
says so in the CLI's own closing line (issue 25: one summary for every front end); a value
the stage refuses comes back on the page as the CLI's `Error:` line, with nothing written;
only the lead may use them.

Each test runs the button on the workbench store and the CLI command on a copy of it, and
compares the two stores.
"""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
from conftest import CliArg, copy_store, ok, ok_result, query
from serve_stores import signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.models import Role

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

LAST_RUN = "SELECT stage, status, signature FROM runs ORDER BY id DESC LIMIT 1"
BATCHES = (
    "SELECT b.id, b.kind, a.id, s.item_id, s.position FROM batches b JOIN annotators a "
    "ON a.pk = b.annotator_pk JOIN assignments s ON s.batch_pk = b.pk ORDER BY b.pk, s.position"
)
GOLD = "SELECT pair_pk, method, label FROM gold ORDER BY pair_pk, method"


@pytest.fixture
def lead(workbench_db: Path) -> TestClient:
    return signed_in(workbench_db, "lead01", Role.LEAD)


def csrf_of(client: TestClient) -> str:
    page = client.get("/lead").text
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def press(client: TestClient, action: str, **fields: str) -> str:
    """Send a button's form; the page it answers with (which must be a 200)."""
    response = client.post(f"/lead/{action}", data={"csrf_token": csrf_of(client), **fields})
    assert response.status_code == 200, response.text
    return response.text


def same_as_cli(db: Path, tmp_path: Path, *command: CliArg) -> tuple[Path, str]:
    """A copy of `db` as it was, with the CLI's `command` run on it; the line the command
    closed with (its summary: same run number and signature as the button's run)."""
    copy = copy_store(db, tmp_path / "cli" / "corpus.db")
    said = ok("--db", copy, *command).splitlines()[-1]
    return copy, said


def done_line(page: str) -> str:
    """What the page says the last button did."""
    return unescape(page).split('role="status">', 1)[1].split("</p>", 1)[0].strip()


def test_create_elicitation_batches_makes_what_elicit_create_makes(
    workbench_db: Path, lead: TestClient, tmp_path: Path
) -> None:
    cli, said = same_as_cli(workbench_db, tmp_path, "elicit", "create", "--protocol", "SINGLE",
                            "--annotators", "w03,w04", "--batch-size", 5)  # fmt: skip
    page = press(lead, "elicit-batches", protocol="SINGLE", writers="w03, w04", batch_size="5")

    assert said.startswith("Created 10 batches of SINGLE for 2 writers: 50 premises (run ")
    assert done_line(page) == said
    assert query(workbench_db, LAST_RUN) == query(cli, LAST_RUN)
    assert query(workbench_db, LAST_RUN)[0][:2] == ("elicit-create", "ok")
    assert query(workbench_db, BATCHES) == query(cli, BATCHES)
    assert "w03" in lead.get("/lead").text  # the progress table shows the new batches


def test_create_relabelling_batches_makes_what_relabel_create_makes(
    workbench_db: Path, lead: TestClient, tmp_path: Path
) -> None:
    validators = "v01,v02,v03,v04,v05"
    cli, said = same_as_cli(workbench_db, tmp_path, "relabel", "create", "--fraction", 1,
                            "--annotators", validators, "--validators", 3)  # fmt: skip
    page = press(lead, "relabel-batches", annotators=validators, fraction="1", validators="3")

    assert said.startswith("Created ") and "of relabelling for 5 annotators" in said
    assert done_line(page) == said
    assert query(workbench_db, LAST_RUN) == query(cli, LAST_RUN)
    assert query(workbench_db, BATCHES) == query(cli, BATCHES)


def test_aggregate_makes_what_aggregate_labels_makes(
    workbench_db: Path, lead: TestClient, tmp_path: Path
) -> None:
    cli, said = same_as_cli(workbench_db, tmp_path, "aggregate-labels", "--method", "dawid-skene")
    page = press(lead, "aggregate", method="dawid-skene", min_agree="")

    assert said.startswith("Aggregated ")
    assert done_line(page) == said
    assert query(workbench_db, LAST_RUN) == query(cli, LAST_RUN)
    assert query(workbench_db, LAST_RUN)[0][:2] == ("aggregate-labels", "ok")
    assert query(workbench_db, GOLD) == query(cli, GOLD)


def stats_note(db: Path) -> str:
    """The `Note:` line `stats --table agreement` prints on stderr (the majority rule)."""
    (note,) = ok_result("--db", db, "stats", "--table", "agreement").stderr.splitlines()
    assert note.startswith("Note: "), note
    return note


def test_the_agreement_so_far_names_the_majority_rule_as_stats_does(
    workbench_db: Path, lead: TestClient
) -> None:
    before = stats_note(workbench_db)
    assert "of the store's preset ocnli" in before
    assert before in unescape(lead.get("/lead").text)
    press(lead, "aggregate", method="majority", min_agree="0.6")
    after = stats_note(workbench_db)
    assert "--min-agree 0.6, of aggregate-labels run" in after
    page = unescape(lead.get("/lead").text)
    assert after in page and before not in page


def test_a_button_answers_with_a_redirect_so_a_reload_runs_nothing_again(
    workbench_db: Path, lead: TestClient
) -> None:
    runs = "SELECT count(*) FROM runs"
    before = query(workbench_db, runs)[0][0]
    fields = {"csrf_token": csrf_of(lead), "protocol": "SINGLE", "writers": "w03"}
    response = lead.post("/lead/elicit-batches", data=fields, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/lead"
    made = query(workbench_db, BATCHES)

    first = lead.get("/lead").text
    assert "Created" in first  # the outcome, carried to the page the redirect names
    reloaded = lead.get("/lead").text
    assert "Created" not in reloaded  # shown once
    assert query(workbench_db, BATCHES) == made
    assert query(workbench_db, runs) == [(before + 1,)]


@pytest.mark.parametrize(
    ("action", "fields", "error"),
    [
        ("elicit-batches", {"protocol": "SINGLE", "writers": ""},
         "Error: name the writers: their IDs, comma-separated"),
        ("relabel-batches", {"annotators": " , "}, "Error: name the validators"),
        ("elicit-batches", {"protocol": "SINGLE", "writers": "w03", "batch_size": "five"},
         "Error: batch size &#39;five&#39; is not a number"),
        ("elicit-batches", {"protocol": "SINGLE", "writers": "w03", "batch_size": "0"},
         "Error: option batch_size"),
        ("elicit-batches", {"protocol": "OTHER", "writers": "w03"},
         "Error: --protocol &#39;OTHER&#39; is not one of: SINGLE, MULTI"),
        ("relabel-batches", {"annotators": "v01", "validators": "4"}, "Error: "),
        ("aggregate", {"min_agree": "most"}, "Error: --min-agree"),
    ],
)  # fmt: skip
def test_a_refused_value_shows_the_stages_error_and_writes_nothing(
    workbench_db: Path, lead: TestClient, action: str, fields: dict[str, str], error: str
) -> None:
    before = query(workbench_db, "SELECT count(*) FROM runs")
    response = lead.post(f"/lead/{action}", data={"csrf_token": csrf_of(lead), **fields})
    assert response.status_code == 400
    line = response.text.split('role="alert">', 1)[1].split("</p>", 1)[0]
    assert line.startswith(error), line
    assert "Traceback" not in response.text
    assert query(workbench_db, "SELECT count(*) FROM runs") == before


@pytest.mark.parametrize("action", ["elicit-batches", "relabel-batches", "aggregate"])
def test_only_the_lead_may_press_a_button(workbench_db: Path, action: str) -> None:
    before = query(workbench_db, "SELECT count(*) FROM runs")
    writer = signed_in(workbench_db, "w01", Role.WRITER)
    token = writer.get("/").text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    fields = {"csrf_token": token, "protocol": "SINGLE", "writers": "w03", "annotators": "v01"}
    assert writer.post(f"/lead/{action}", data=fields).status_code == 403
    assert writer.get("/lead").status_code == 403
    assert query(workbench_db, "SELECT count(*) FROM runs") == before


def test_a_button_without_the_csrf_token_is_403(workbench_db: Path, lead: TestClient) -> None:
    before = query(workbench_db, "SELECT count(*) FROM runs")
    fields = {"protocol": "SINGLE", "writers": "w03"}
    assert lead.post("/lead/elicit-batches", data=fields).status_code == 403
    assert query(workbench_db, "SELECT count(*) FROM runs") == before


def test_every_field_of_the_forms_has_a_label(lead: TestClient) -> None:
    page = lead.get("/lead").text
    fields = page.count("<input id=") + page.count("<select id=")
    assert fields == 10
    assert page.count('<label for="') == fields
