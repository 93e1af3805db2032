"""The lead page's buttons (issue 19: "buttons for what the CLI does"): each makes what the
CLI command would make on the same store, as a run with the same settings signature, and
says so in the CLI's own closing line (issue 25: one summary for every front end); a value
the stage refuses comes back on the page as the CLI's `Error:` line, with nothing written;
only the lead may use them. Issue 26: a field left as the page shows it means the preset's
value (the aggregation method included); a run records which lead pressed the button; a
refused form keeps what was typed and says why beside it; the invites are listed and
revoked there.

Each test runs the button on the workbench store and the CLI command on a copy of it, and
compares the two stores.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from conftest import CliArg, copy_store, csv_rows, json_rows, ok, ok_result, query
from serve_stores import client_of, invite, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.core.runs import this_command
from nlibuild.models import Role
from nlibuild.store import Store
from nlibuild.workbench.access import SELECTOR_LENGTH

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
    assert fields == 12
    assert page.count('<label for="') == fields


# --- issue 26 ------------------------------------------------------------------------------


def as_a_browser_sends_it(page: str, name: str) -> str:
    """The value a browser sends for the <select> `name` left as the page shows it: the
    option marked selected, else the first."""
    select = page.split(f'name="{name}">', 1)[1].split("</select>", 1)[0]
    options = re.findall(r'<option value="([^"]*)"( selected)?>', select)
    return str(next((value for value, selected in options if selected), options[0][0]))


def with_preset_method(db: Path, method: str) -> None:
    """The store's preset, with `[aggregate] method = METHOD` added."""
    with Store.open(db) as store:
        preset = store.meta()["preset_toml"]
        assert "\nmethod" not in preset  # ocnli's sets none: the model's default
        chosen = preset.replace("[aggregate]\n", f'[aggregate]\nmethod = "{method}"\n', 1)
        with store.conn:
            store.set_meta("preset_toml", chosen)


@pytest.mark.parametrize("preset_method", ["dawid-skene", None])
def test_the_method_left_as_the_page_shows_it_is_the_presets(
    workbench_db: Path, tmp_path: Path, preset_method: str | None
) -> None:
    """One click replaced Dawid-Skene gold by majority gold: the form sent `majority`
    whatever the preset said. Left alone, it now means what `aggregate-labels` without
    `--method` means: the preset's method, else the settings model's default."""
    if preset_method is not None:
        with_preset_method(workbench_db, preset_method)
    expected = preset_method or "majority"
    cli, said = same_as_cli(workbench_db, tmp_path, "aggregate-labels")
    lead = signed_in(workbench_db, "lead01", Role.LEAD)
    shown = lead.get("/lead").text
    assert f"the preset's: {expected}</option>" in unescape(shown)  # says which is chosen

    method = as_a_browser_sends_it(shown, "method")
    assert method == ""  # empty: the preset's
    page = press(lead, "aggregate", method=method, min_agree="")
    assert done_line(page) == said
    assert query(workbench_db, LAST_RUN) == query(cli, LAST_RUN)
    assert query(workbench_db, GOLD) == query(cli, GOLD)
    assert {m for (m,) in query(workbench_db, "SELECT DISTINCT method FROM gold")} >= {expected}


def test_a_buttons_run_records_which_lead_pressed_it(
    workbench_db: Path, lead: TestClient, tmp_path: Path
) -> None:
    cli, _ = same_as_cli(workbench_db, tmp_path, "aggregate-labels", "--method", "dawid-skene")
    press(lead, "aggregate", method="dawid-skene")
    other = signed_in(workbench_db, "boss", Role.LEAD)
    press(other, "relabel-batches", annotators="v01,v02,v03,v04", fraction="1")

    last_two = "SELECT stage, command FROM runs ORDER BY id DESC LIMIT 2"
    assert query(workbench_db, last_two) == [
        ("relabel-create", "serve: lead boss"),
        ("aggregate-labels", "serve: lead lead01"),
    ]
    # Who acted is not a setting: the button's run is signed as the CLI's is.
    signature = "SELECT signature FROM runs ORDER BY id DESC LIMIT 1"
    assert query(workbench_db, signature.replace("LIMIT 1", "LIMIT 1 OFFSET 1")) == query(
        cli, signature
    )
    shown = [(r["stage"], r["command"]) for r in csv_rows("--db", workbench_db, "runs")]
    assert shown[-2:] == [
        ("aggregate-labels", "serve: lead lead01"),
        ("relabel-create", "serve: lead boss"),
    ]
    # A run started outside a button still records its process's command line.
    # (Read from the store: csv guards a cell that starts with '-', as a test process's
    # command line may, against spreadsheet formulas.)
    ok("--db", workbench_db, "aggregate-labels")
    last = "SELECT command FROM runs ORDER BY id DESC LIMIT 1"
    assert query(workbench_db, last) == [(this_command(),)]


def form_of(page: str, action: str) -> str:
    """The <form> of a lead's button, as the page shows it."""
    return page.split(f'action="/lead/{action}"', 1)[1].split("</form>", 1)[0]


@pytest.mark.parametrize(
    ("action", "fields", "kept"),
    [
        ("elicit-batches",
         {"protocol": "MULTI", "writers": "w03, w04", "batch_size": "five", "max_per_writer": "3"},
         ['value="w03, w04"', 'value="five"', 'value="3"', '<option value="MULTI" selected>']),
        ("relabel-batches",
         {"annotators": "v01", "fraction": "0.3", "validators": "4", "batch_size": "7"},
         ['value="v01"', 'value="0.3"', 'value="4"', 'value="7"']),
        ("aggregate", {"method": "dawid-skene", "min_agree": "most"},
         ['<option value="dawid-skene" selected>', 'value="most"']),
    ],
)  # fmt: skip
def test_a_refused_form_keeps_what_was_typed_and_says_why_beside_it(
    lead: TestClient, action: str, fields: dict[str, str], kept: list[str]
) -> None:
    response = lead.post(f"/lead/{action}", data={"csrf_token": csrf_of(lead), **fields})
    assert response.status_code == 400
    page = response.text
    assert page.count('role="alert"') == 1
    sent = form_of(page, action)
    assert 'role="alert">Error: ' in sent
    for value in kept:
        assert value in sent, value
    for other in {"elicit-batches", "relabel-batches", "aggregate"} - {action}:
        assert re.search(r'<input id="[^>]*value=', form_of(page, other)) is None  # empty


def test_what_was_typed_is_kept_escaped(lead: TestClient) -> None:
    typed = '"><script>alert(1)</script>'
    fields = {"csrf_token": csrf_of(lead), "protocol": "SINGLE", "writers": typed}
    page = lead.post("/lead/elicit-batches", data=fields).text
    assert "<script>alert(1)" not in page
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in form_of(
        page, "elicit-batches"
    )


def invites_table(page: str) -> str:
    return page.split('<h2 id="invites">', 1)[1].split("</table>", 1)[0]


def test_the_invites_are_listed_by_the_first_characters_of_their_tokens(
    workbench_db: Path, lead: TestClient
) -> None:
    token = invite(workbench_db, "w02", Role.WRITER)
    table = invites_table(lead.get("/lead").text)
    assert f"<code>{token[:SELECTOR_LENGTH]}</code>" in table
    assert token not in lead.get("/lead").text
    # (json, not csv: csv guards a prefix that starts with '-' against spreadsheet formulas.)
    listed = json_rows("--db", workbench_db, "serve", "invites")
    assert all(f"<code>{row['prefix']}</code>" in table for row in listed)


def test_revoking_an_invite_on_the_lead_page_ends_its_link_and_session(
    workbench_db: Path, lead: TestClient
) -> None:
    writer = signed_in(workbench_db, "w02", Role.WRITER)
    (prefix,) = [r["prefix"] for r in json_rows("--db", workbench_db, "serve", "invites")
                 if r["person"] == "w02"]  # fmt: skip
    assert f'name="token_prefix" value="{prefix}"' in lead.get("/lead").text

    page = press(lead, "revoke", token_prefix=prefix)
    assert done_line(page) == "Revoked 1 live invite."
    listed = json_rows("--db", workbench_db, "serve", "invites")
    statuses = {r["prefix"]: r["status"] for r in listed}
    assert statuses[prefix] == "revoked"
    assert writer.get("/", follow_redirects=False).status_code != 200  # the session ended
    shown = invites_table(lead.get("/lead").text)
    assert f'name="token_prefix" value="{prefix}"' not in shown  # nothing left to revoke


def test_revoking_needs_the_csrf_token_and_the_lead(workbench_db: Path, lead: TestClient) -> None:
    token = invite(workbench_db, "w02", Role.WRITER)
    prefix = token[:SELECTOR_LENGTH]
    assert lead.post("/lead/revoke", data={"token_prefix": prefix}).status_code == 403
    writer = signed_in(workbench_db, "w01", Role.WRITER)
    csrf = writer.get("/").text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    fields = {"csrf_token": csrf, "token_prefix": prefix}
    assert writer.post("/lead/revoke", data=fields).status_code == 403
    assert client_of(workbench_db).get(f"/t/{token}").status_code == 200  # still live


def test_revoking_an_unknown_prefix_says_so_beside_the_invites(lead: TestClient) -> None:
    fields = {"csrf_token": csrf_of(lead), "token_prefix": "zzzzzzzz"}
    response = lead.post("/lead/revoke", data=fields)
    assert response.status_code == 400
    beside = response.text.split('id="revoke-form">', 1)[1].split("</div>", 1)[0]
    assert "Error: --token-prefix zzzzzzzz: no invite matches" in unescape(beside)


def test_on_a_wide_screen_the_page_has_two_columns(lead: TestClient) -> None:
    """What stands (progress, agreement, invites) beside the forms, not one long column; a
    narrow screen keeps one (the grid only inside a min-width media query)."""
    page = lead.get("/lead").text
    columns = page.split('<div class="lead-columns">', 1)[1]
    assert columns.index('class="lead-state"') < columns.index('class="lead-work"')
    css = lead.get("/static/workbench.css").text
    wide = css.split("@media (min-width: 75rem)", 1)[1].split("\n}\n", 1)[0]
    assert "grid-template-columns" in wide and ".lead-columns" in wide
    outside = css.replace(wide, "")
    assert ".lead-columns { display: grid" not in outside
