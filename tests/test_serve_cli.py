"""`nlibuild serve` and its invites (issue 19): a link whose token works and is not kept in
clear, an Error line for an unknown annotator, revoking, the `[serve]` preset section, the
warning for a host other than loopback, and the real server answering on a free port."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import uvicorn
from conftest import assert_user_error, ok, ok_result, query, run_cli, table_counts
from serve_stores import batches_of, client_of, workbench_db, workbench_template
from workbench_data import writing_store

from nlibuild.cli.serve import exposure_warning
from nlibuild.models import ServeConfig
from nlibuild.web.app import create_app

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name


def store_bytes(db: Path) -> bytes:
    """The store's file and its write-ahead log, as they lie on disk."""
    return b"".join(p.read_bytes() for p in db.parent.glob(f"{db.name}*") if p.is_file())


def test_invite_prints_a_link_whose_token_works_and_is_not_stored_in_clear(
    workbench_db: Path,
) -> None:
    link = ok("--db", workbench_db, "serve", "invite", "--annotator", "w01").strip()
    assert link.startswith("http://127.0.0.1:8765/t/")
    token = link.rsplit("/", 1)[1]
    assert len(token) >= 43  # secrets.token_urlsafe(32)
    assert token.encode() not in store_bytes(workbench_db)
    client = client_of(workbench_db)
    assert client.get(f"/t/{token}").status_code == 200
    assert "w01 (撰写者)" in client.get("/").text  # the roles in the batches' language


def test_invite_for_an_unknown_annotator_is_an_error_line_and_changes_nothing(
    workbench_db: Path,
) -> None:
    before = table_counts(workbench_db)
    result = run_cli("--db", workbench_db, "serve", "invite", "--annotator", "w99")
    assert_user_error(result, "--annotator w99", "no annotator")
    assert table_counts(workbench_db) == before
    assert query(workbench_db, "SELECT count(*) FROM workbench_tokens") == [(0,)]


def test_a_lead_need_not_be_an_annotator(workbench_db: Path) -> None:
    link = ok("--db", workbench_db, "serve", "invite", "--annotator", "lead01", "--role", "lead")
    client = client_of(workbench_db)
    assert client.get(link.strip().replace("http://127.0.0.1:8765", "")).status_code == 200
    assert client.get("/lead").status_code == 200


def test_one_link_may_carry_the_writer_and_validator_roles(workbench_db: Path) -> None:
    """w01 writes and validates: one link opens both kinds of batch; the lead page and
    another person's batches stay closed."""
    link = ok("--db", workbench_db, "serve", "invite", "--annotator", "w01",
              "--role", "writer,validator")  # fmt: skip
    client = client_of(workbench_db)
    assert client.get(link.strip().replace("http://127.0.0.1:8765", "")).status_code == 200
    home = client.get("/").text
    assert "w01 (撰写者、验证者)" in home  # the roles in the batches' language
    writing = batches_of(workbench_db, "w01", "elicit")
    labelling = batches_of(workbench_db, "w01", "relabel")
    assert writing and labelling
    for batch in writing:
        assert f'href="/write/{batch}"' in home
        assert client.get(f"/write/{batch}").status_code == 200
    for batch in labelling:
        assert f'href="/label/{batch}"' in home
        assert client.get(f"/label/{batch}").status_code == 200
    assert client.get("/lead").status_code == 403
    for batch in batches_of(workbench_db, "w02", "elicit"):
        assert client.get(f"/write/{batch}").status_code == 404
    listed = ok("--db", workbench_db, "serve", "invites", "--format", "csv")
    assert ",w01,writer,validator," in listed.replace('"', "")


def test_a_lead_link_takes_no_other_role(workbench_db: Path) -> None:
    result = run_cli("--db", workbench_db, "serve", "invite", "--annotator", "w01",
                     "--role", "lead,writer")  # fmt: skip
    assert_user_error(result, "--role", "a lead's link is a lead's alone")
    assert query(workbench_db, "SELECT count(*) FROM workbench_tokens") == [(0,)]


def test_a_bad_role_or_lifetime_is_an_error_line(workbench_db: Path) -> None:
    bad_role = ("--role", "admin")
    assert_user_error(
        run_cli("--db", workbench_db, "serve", "invite", "--annotator", "w01", *bad_role),
        "--role", "writer, validator, lead",
    )  # fmt: skip
    bad_expiry = ("--expires", "soon")
    assert_user_error(
        run_cli("--db", workbench_db, "serve", "invite", "--annotator", "w01", *bad_expiry),
        "--expires", "14d",
    )  # fmt: skip


def test_invites_lists_prefixes_and_revoke_by_prefix_ends_the_link(workbench_db: Path) -> None:
    link = ok("--db", workbench_db, "serve", "invite", "--annotator", "w01", "--expires", "2h")
    token = link.strip().rsplit("/", 1)[1]
    listed = ok("--db", workbench_db, "serve", "invites", "--format", "csv")
    assert token[:8] in listed and token not in listed and "active" in listed
    assert "Revoked 1 live invite" in ok(
        "--db", workbench_db, "serve", "revoke", "--token-prefix", token[:8]
    )
    assert "revoked" in ok("--db", workbench_db, "serve", "invites", "--format", "csv")
    assert client_of(workbench_db).get(f"/t/{token}").status_code == 403


def test_revoking_someone_never_invited_is_an_error_line(workbench_db: Path) -> None:
    result = run_cli("--db", workbench_db, "serve", "revoke", "--annotator", "w02")
    assert_user_error(result, "--annotator w02", "no invite")


def test_the_serve_preset_section_sets_the_link_and_a_misspelt_key_is_an_error(
    tmp_path: Path,
) -> None:
    preset = tmp_path / "team.toml"
    preset.write_text('[corpus]\nlang = "en"\n\n[serve]\nport = 9000\n', encoding="utf-8")
    db = tmp_path / "corpus.db"
    ok("--db", db, "init", "--preset", preset)
    link = ok("--db", db, "serve", "invite", "--annotator", "boss", "--role", "lead")
    assert link.startswith("http://127.0.0.1:9000/t/")
    preset.write_text("[serve]\nprot = 9000\n", encoding="utf-8")
    result = run_cli("--db", tmp_path / "other.db", "init", "--preset", preset)
    assert_user_error(result, "[serve]", "prot")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "nli.example.org"])
def test_a_host_other_than_loopback_warns_that_tls_belongs_to_a_proxy(host: str) -> None:
    warning = exposure_warning(host)
    assert warning is not None and "reverse proxy" in warning and "TLS" in warning


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_does_not_warn(host: str) -> None:
    assert exposure_warning(host) is None


def test_serve_with_host_0_0_0_0_warns_then_serves(
    workbench_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[Path, ServeConfig]] = []
    monkeypatch.setattr(
        "nlibuild.cli.serve.run_server", lambda db, cfg, *_: served.append((db, cfg))
    )
    result = ok_result("--db", workbench_db, "serve", "--host", "0.0.0.0", "--port", "8800")
    assert "Warning: --host 0.0.0.0" in result.stderr
    assert [(db, cfg.host, cfg.port) for db, cfg in served] == [(workbench_db, "0.0.0.0", 8800)]


def test_serve_on_a_missing_store_is_an_error_line(tmp_path: Path) -> None:
    result = run_cli("--db", tmp_path / "none.db", "serve")
    assert_user_error(result, "none.db", "no store here")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_real_server_answers_on_a_free_port(workbench_db: Path) -> None:
    port = free_port()
    config = ServeConfig(port=port)
    server = uvicorn.Server(
        uvicorn.Config(create_app(workbench_db, config), host="127.0.0.1", port=port,
                       log_level="warning")
    )  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        assert get(f"http://127.0.0.1:{port}/healthz") == (200, "ok")
        status, page = get(f"http://127.0.0.1:{port}/")
        assert status == 401 and "personal link" in page
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_the_cli_loads_no_web_library_until_serve_runs() -> None:
    # `nlibuild --help` stays fast: starlette, uvicorn and jinja2 load inside serve's bodies.
    code = "import sys, nlibuild.cli; print(sorted({m.split('.')[0] for m in sys.modules}))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for library in ("starlette", "uvicorn", "jinja2", "multipart"):
        assert f"'{library}'" not in loaded


LISTENS_WITH_JIEBA = """
import sys, uvicorn, jieba
uvicorn.run = lambda *args, **kwargs: print("jieba loaded when listening:", jieba.dt.initialized)
from nlibuild.cli import main
sys.argv = ["nlibuild", "--db", sys.argv[1], "serve"]
main()
"""
"""`nlibuild serve` up to the moment uvicorn would listen, saying whether jieba's dictionary
is loaded then (a process of its own: jieba's dictionary is loaded once per process)."""


def jieba_loaded_when_listening(db: Path) -> bool:
    said = subprocess.run(
        [sys.executable, "-c", LISTENS_WITH_JIEBA, str(db)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return "jieba loaded when listening: True" in said


def test_serve_loads_the_chinese_segmenter_before_it_listens(workbench_db: Path) -> None:
    # The first Chinese feedback built jieba's dictionary (about a second) while every
    # writer who had just opened a page waited (bench/bench_serve_mix.py: p95 1.8 s).
    assert jieba_loaded_when_listening(workbench_db)


def test_serve_on_english_writing_batches_does_not_load_jieba(tmp_path: Path) -> None:
    assert not jieba_loaded_when_listening(writing_store(tmp_path / "en.db"))
