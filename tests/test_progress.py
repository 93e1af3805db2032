"""Progress on long steps: a bar on stderr when it is a terminal, nothing with --quiet or
in a pipe, and never a byte more on stdout (issue 18)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import DATA, FIXTURES, SAMPLE_MNLI, ok, ok_result, requires_fixtures

from nlibuild.core.progress import PROGRESS_VARIABLE, set_quiet
from nlibuild.core.registry import stage
from nlibuild.invoke import invoke
from nlibuild.store import Store

SNLI_DEV = FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl"
"""1,289 real SNLI pairs (the last line has no line break)."""

_TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def shown(stderr: str) -> str:
    """What a terminal showed at some moment: the frames of the bar, codes removed."""
    return _TERMINAL_CODES.sub("", stderr.replace("\r", "\n"))


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stderr counts as a terminal, as it does for a person at one, and no earlier
    command's `--quiet` holds (a library call does not pass through the CLI's callback)."""
    monkeypatch.setenv(PROGRESS_VARIABLE, "1")
    set_quiet(False)


@pytest.fixture
def snli_db(db: Path) -> Path:
    ok("--db", db, "import", SNLI_DEV, "--format", "snli")
    return db


@requires_fixtures
def test_export_counts_the_pairs_it_has_read_on_stderr(
    snli_db: Path, tmp_path: Path, terminal: None
) -> None:
    out = tmp_path / "snli.jsonl"
    result = ok_result("--db", snli_db, "export", "--format", "mnli-jsonl", "--out", out)
    assert "export snli.jsonl" in shown(result.stderr)
    assert "1,289 pairs read" in shown(result.stderr)
    assert result.stdout.startswith("Exported 1289 pairs to ")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1289


@requires_fixtures
def test_quiet_and_a_stderr_that_is_no_terminal_show_no_progress(
    snli_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "snli.jsonl"
    piped = ok_result("--db", snli_db, "export", "--format", "jsonl", "--out", out)
    assert piped.stderr == ""
    monkeypatch.setenv(PROGRESS_VARIABLE, "1")
    quiet = ok_result("--quiet", "--db", snli_db, "export", "--format", "jsonl", "--out", out)
    assert quiet.stderr == ""
    # --quiet holds for its own command only.
    loud = ok_result("--db", snli_db, "export", "--format", "jsonl", "--out", out)
    assert "pairs read" in shown(loud.stderr)


def test_bootstrap_progress_leaves_the_json_on_stdout_as_it_was(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = ("--db", sample_db, "stats", "--table", "agreement", "--ci", "0.95")
    piped = ok_result(*command, "--format", "json")
    monkeypatch.setenv(PROGRESS_VARIABLE, "1")
    drawn = ok_result(*command, "--format", "json")
    assert "bootstrap over 48 pairs" in shown(drawn.stderr)
    assert "1,000/1,000 resamples" in shown(drawn.stderr)
    assert drawn.stdout == piped.stdout
    json.loads(drawn.stdout)


def test_dawid_skene_shows_its_iterations(sample_db: Path, terminal: None) -> None:
    result = ok_result("--db", sample_db, "aggregate-labels", "--method", "dawid-skene")
    assert "EM iterations (at most)" in shown(result.stderr)
    assert "Dawid-Skene" in result.stdout


def test_import_progress_is_off_with_quiet(db: Path, terminal: None) -> None:
    result = ok_result("-q", "--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    assert result.stderr == ""


def test_import_and_ingest_draw_their_byte_bars_for_every_front_end(
    db: Path, terminal: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stage opens its bar itself: a Python caller sees it as the CLI's user does."""
    source = DATA / "sources" / "en" / "fiction.txt"
    with Store.open(db) as store:
        invoke(stage("import"), store, path=SAMPLE_MNLI, format="mnli")
        invoke(stage("ingest"), store, paths=(source,), format="txt", lang="en", genre="fiction")
    drawn = shown(capsys.readouterr().err)
    assert "import sample_mnli.jsonl" in drawn and "ingest" in drawn, drawn


def test_translate_qa_counts_the_scores_it_has_computed(
    sample_db: Path, tmp_path: Path, terminal: None
) -> None:
    units = tmp_path / "units.tsv"
    ok("--db", sample_db, "translate", "export", "--lang", "de", "--out", units)
    rows = units.read_text(encoding="utf-8").splitlines()
    header, body = rows[0].split("\t"), [row.split("\t") for row in rows[1:]]
    text = header.index("text")
    for kind, name in (("human", "h.tsv"), ("mt", "m.tsv")):
        filled = [header] + [
            [*cells[:text], cells[header.index("source")] + (" ." if kind == "mt" else ""),
             *cells[text + 1 :]]
            for cells in body
        ]  # fmt: skip
        (tmp_path / name).write_text("\n".join("\t".join(r) for r in filled) + "\n")
        # The "translations" are the English sources: --force past the language check.
        ok("--db", sample_db, "translate", "import", tmp_path / name, "--lang", "de", "--kind",
           kind, "--force")  # fmt: skip
    result = ok_result("--db", sample_db, "translate", "qa", "--lang", "de")
    # BLEU, chrF and the sentence chrF of every segment: three steps.
    assert "3/3 scores" in shown(result.stderr)
    assert "translate qa de" in shown(result.stderr)


STEPS = {
    "split": (("split", "--dev", "10", "--test", "10", "--from", "labelled", "--group-by",
               "pair", "--replace"), "split", "1/1 splits drawn"),
    "pmi": (("stats", "--table", "pmi"), "stats --table pmi", "1/1 table computed"),
    "cues": (("stats", "--table", "cues"), "stats --table cues", "1/1 table computed"),
    "subsets": (("stats", "--table", "subsets"), "stats --table subsets", "1/1 table computed"),
    "lengths": (("stats", "--table", "lengths"), "stats --table lengths", "1/1 table computed"),
    "hypothesis-only": (("bias", "hypothesis-only", "--cross-validate", "2", "--resamples", "50"),
                        "bias hypothesis-only", "1/1 models trained and scored"),
    "translate export": (("translate", "export", "--lang", "de", "--out", "{tmp}/u.de.tsv"),
                         "translate export u.de.tsv", "1/1 file written"),
    "report": (("report", "--out", "{tmp}/report.html"), "report corpus.db", "sections written"),
}  # fmt: skip
"""Steps that run over a second on a 100k-pair corpus (bench numbers in the commit), each
with the label its bar draws and the count it says."""


@pytest.mark.parametrize("step", STEPS.values(), ids=list(STEPS))
def test_each_slow_step_draws_its_bar_and_quiet_draws_none(
    sample_db: Path, tmp_path: Path, terminal: None, step: tuple[tuple[str, ...], str, str]
) -> None:
    command, label, count = step
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in command]
    drawn = shown(ok_result("--db", sample_db, *args).stderr)
    assert label in drawn and count in drawn, drawn
    assert ok_result("--quiet", "--db", sample_db, *args).stderr == ""


def test_translate_import_draws_its_bar(sample_db: Path, tmp_path: Path, terminal: None) -> None:
    units = tmp_path / "units.jsonl"
    ok("--db", sample_db, "translate", "export", "--lang", "de", "--out", units)
    filled = tmp_path / "filled.jsonl"
    filled.write_text("".join(
        json.dumps(row | {"text": row["source"] + " ."}) + "\n"
        for row in map(json.loads, units.read_text(encoding="utf-8").splitlines())
    ), encoding="utf-8")  # fmt: skip
    drawn = shown(
        ok_result(
            "--db", sample_db, "translate", "import", filled, "--lang", "de", "--force"
        ).stderr
    )
    assert "translate import filled.jsonl" in drawn and "file read, checked and stored" in drawn
