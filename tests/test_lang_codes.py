"""Language codes are checked wherever they enter (issue 26, path traversal).

A language names folders of what nlibuild writes (`export --format hf`'s `data/<lang>/`,
the instructions' `common.<lang>.md`), so `../../../escaped` in a file's language column
once wrote `train.jsonl` outside `--out`. A language code is BCP-47-like: letters, digits
and '-', starting with a language of 2-3 letters (`models.lang_code_problem`). Every option
and preset key that holds a language, and every language a reader takes from a row, is
refused otherwise with one `Error:` line naming the option or the file, line and column,
the store unchanged; and the hf writer refuses to write outside the folder it was given.
"""

from __future__ import annotations

import contextlib
import csv
import sqlite3
from pathlib import Path, PurePath

import pytest
from conftest import (
    SAMPLE_MNLI,
    assert_user_error,
    fails,
    new_store,
    ok,
    query,
    read_tsv,
    refused,
    run_cli,
    table_counts,
    write_jsonl,
)
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import Result

import nlibuild
from nlibuild.errors import NlibuildError, OutputError
from nlibuild.formats.tabular import inside_folder
from nlibuild.models import lang_code_problem

ESCAPING = "../../../escaped"
NOT_A_CODE = f"{ESCAPING!r} is not a language code: it holds '.'"


# --- the rule -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code", ["en", "zh", "EN", "yue", "zh-Hant", "pt-BR", "es-419", "sr-Latn-RS", "de-CH-1901"]
)
def test_a_language_code_is_a_bcp47_like_tag(code: str) -> None:
    assert lang_code_problem(code) is None


@pytest.mark.parametrize(
    ("code", "what_is_wrong"),
    [
        (ESCAPING, "it holds '.'"),
        ("/etc", "it holds '/'"),
        ("en US", "it holds ' '"),
        ("en\nconfigs:", "it holds '\\n'"),
        ("中文", "it holds '中'"),
        ("zh_CN", "write 'zh-CN'"),
        ("", "empty"),
        ("e", "starts with 'e', not a language of 2-3 letters"),
        ("english", "starts with 'english', not a language of 2-3 letters"),
        ("1en", "starts with '1en'"),
        ("en--US", "empty part"),
        ("en-", "empty part"),
        ("en-abcdefghi", "'abcdefghi' is longer than 8 characters"),
        ("en" + "-abcdefgh" * 5, "longer than 35 characters"),
    ],
)
def test_anything_else_is_refused_saying_what_is_wrong(code: str, what_is_wrong: str) -> None:
    problem = lang_code_problem(code)
    assert problem is not None
    assert what_is_wrong in problem


@given(st.text(max_size=40) | st.from_regex(r"[A-Za-z]{2,3}(-[A-Za-z0-9./_ ]{1,9}){0,3}"))
def test_whatever_is_taken_for_a_code_names_one_folder_inside_data(code: str) -> None:
    if lang_code_problem(code) is None:  # taken: one plain folder name, no way out of data/
        assert PurePath("data", code).parts == ("data", code)
        assert code.isascii() and code.replace("-", "").isalnum()


# --- the traversal ----------------------------------------------------------------------------


def write_language_table(path: Path, languages: list[str]) -> Path:
    """A csv of pairs, one a language of `languages`, in the column `language`."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["premise", "hypothesis", "label", "language"])
        for number, lang in enumerate(languages):
            writer.writerow([f"Premise {number}.", f"Hypothesis {number}.", "entailment", lang])
    return path


def test_a_language_column_cannot_send_an_export_outside_out(db: Path, tmp_path: Path) -> None:
    path = write_language_table(tmp_path / "pairs.csv", ["en", ESCAPING])
    fails(db, "import", path, "--format", "table", "--lang-column", "language",
          says=(f"{path}, line 3: column 'language'", NOT_A_CODE))  # fmt: skip
    out = tmp_path / "a" / "b" / "c" / "out"
    # The store holds no pair: refused (issue 28), and nothing written anywhere.
    fails(db, "export", "--format", "hf", "--out", out, says=("has no pairs",))
    assert not list(tmp_path.rglob("escaped"))


def test_the_hf_writer_refuses_a_stored_language_that_is_no_code(
    sample_db: Path, tmp_path: Path
) -> None:
    # A store written before languages were checked, or edited by hand.
    query(sample_db, "UPDATE pairs SET lang = ? WHERE rowid <= 5", ESCAPING)
    out = tmp_path / "a" / "b" / "c" / "out"
    fails(sample_db, "export", "--format", "hf", "--out", out,
          says=(str(out), NOT_A_CODE, "nothing was written", "--lang"))  # fmt: skip
    assert not list(tmp_path.rglob("escaped"))
    assert not list(tmp_path.rglob("*.jsonl"))
    assert not (tmp_path / "a" / "b" / "c").exists() or not list(out.parent.iterdir())
    ok("--db", sample_db, "export", "--format", "hf", "--out", out, "--lang", "en")
    assert (out / "data" / "train.jsonl").is_file()


@pytest.mark.parametrize("relative", ["../x.jsonl", "en/../../x.jsonl", "/tmp/x.jsonl"])
def test_a_written_path_stays_inside_the_folder_it_was_given(tmp_path: Path, relative: str) -> None:
    folder = tmp_path / "out" / "data"
    folder.mkdir(parents=True)
    with pytest.raises(OutputError, match="outside this folder; nothing was written"):
        inside_folder(folder, relative, "language 'x'")
    assert inside_folder(folder, "en/train.jsonl", "language 'en'") == folder / "en/train.jsonl"


def test_a_link_out_of_the_folder_is_outside_it(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "en").symlink_to(tmp_path)
    with pytest.raises(OutputError, match=r"'en/train\.jsonl' outside this folder"):
        inside_folder(folder, "en/train.jsonl", "language 'en'")


# --- every option and preset key that holds a language ---------------------------------------


def test_init_refuses_a_lang_that_is_no_code(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    assert_user_error(run_cli("--db", db, "init", "--lang", ESCAPING), "option lang", NOT_A_CODE)
    assert not db.exists()
    with pytest.raises(NlibuildError, match="is not a language code"):
        nlibuild.create(db, lang="zh_CN")
    assert not db.exists()


def test_a_presets_corpus_lang_is_a_language_code(tmp_path: Path) -> None:
    preset = tmp_path / "team.toml"
    preset.write_text(f'[corpus]\nlang = "{ESCAPING}"\n', encoding="utf-8")
    db = tmp_path / "corpus.db"
    assert_user_error(
        run_cli("--db", db, "init", "--preset", preset), f"{preset}: [corpus] lang", NOT_A_CODE
    )
    assert not db.exists()


OPTION_COMMANDS = (
    "import", "ingest", "export", "sample", "elicit create", "translate export",
    "translate import", "translate qa", "stats", "score train-lang", "score eval-langs",
)  # fmt: skip


def option_cases(tmp_path: Path) -> dict[str, tuple[str | Path, ...]]:
    """Each of OPTION_COMMANDS, which takes a language by option, with all else it needs."""
    text = tmp_path / "sentences.txt"
    text.write_text("A sentence of the pool.\n", encoding="utf-8")
    units = tmp_path / "units.tsv"
    units.write_text("unit_id\ttext\np:1\tEin Satz.\n", encoding="utf-8")
    return {
        "import": ("import", SAMPLE_MNLI, "--format", "mnli", "--lang", ESCAPING),
        "ingest": ("ingest", text, "--lang", ESCAPING),
        "export": ("export", "--format", "hf", "--out", tmp_path / "hf", "--lang", ESCAPING),
        "sample": ("sample", "--lang", ESCAPING),
        "elicit create": ("elicit", "create", "--protocol", "SINGLE", "--lang", ESCAPING),
        "translate export": ("translate", "export", "--lang", ESCAPING, "--out", units),
        "translate import": ("translate", "import", units, "--lang", ESCAPING),
        "translate qa": ("translate", "qa", "--lang", ESCAPING),
        "stats": ("stats", "--table", "pmi", "--lang", ESCAPING),
        "score train-lang": ("score", "baselines", "--train-lang", ESCAPING),
        "score eval-langs": ("score", "plan", "--eval-langs", f"en,{ESCAPING}",
                             "--models", "m", "--out", tmp_path / "jobs"),
    }  # fmt: skip


@pytest.mark.parametrize("command", OPTION_COMMANDS)
def test_every_option_that_holds_a_language_refuses_one_that_is_no_code(
    sample_db: Path, tmp_path: Path, command: str
) -> None:
    fails(sample_db, *option_cases(tmp_path)[command], says=("option ", NOT_A_CODE))
    assert not list(tmp_path.rglob("escaped"))


# --- every language a reader takes from a row -------------------------------------------------


def test_import_tables_lang_column_named_by_columns(db: Path, tmp_path: Path) -> None:
    path = write_language_table(tmp_path / "pairs.csv", ["en", "de", "en_GB"])
    message = refused(db, lambda corpus: corpus.import_corpus(
        path=path, format="table", columns={"lang": ("language",)}
    ), f"{path}, line 4: column 'language'", "write 'en-GB'")  # fmt: skip
    assert message.count("\n") == 0


def test_import_jsonl_lang_field(db: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        {"premise": "A man sleeps.", "hypothesis": "A man rests.", "lang": "en"},
        {"premise": "A dog runs.", "hypothesis": "A cat sleeps.", "lang": ESCAPING},
    ])  # fmt: skip
    fails(db, "import", path, "--format", "jsonl",
          says=(f"{path}, line 2: field 'lang'", NOT_A_CODE))  # fmt: skip


def test_import_xnli_language_column(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "xnli.tsv"
    path.write_text(
        "language\tgold_label\tsentence1\tsentence2\tpairID\n"
        "en\tentailment\tA man sleeps.\tA man rests.\t1\n"
        f"{ESCAPING}\tentailment\tEin Mann schläft.\tEin Mann ruht.\t1\n",
        encoding="utf-8",
    )
    fails(db, "import", path, "--format", "xnli",
          says=(f"{path}, line 3: column 'language'", NOT_A_CODE))  # fmt: skip


@pytest.fixture
def units_file(sample_db: Path, tmp_path: Path) -> Path:
    """`translate export --lang de` of the sample store, as tsv, its texts filled."""
    path = tmp_path / "units.tsv"
    ok("--db", sample_db, "translate", "export", "--lang", "de", "--out", path)
    rows = read_tsv(path)
    for row in rows:
        row["text"] = "Ein Satz."
    rows[3]["lang"] = ESCAPING  # line 5
    columns = list(rows[0])
    lines = ["\t".join(columns), *("\t".join(row[c] for c in columns) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_translate_import_units_lang_column(sample_db: Path, units_file: Path) -> None:
    fails(sample_db, "translate", "import", units_file, "--lang", "de",
          says=(f"{units_file}, line 5: column 'lang'", NOT_A_CODE))  # fmt: skip
    as_jsonl = write_jsonl(units_file.with_suffix(".jsonl"), read_tsv(units_file))
    fails(sample_db, "translate", "import", as_jsonl, "--lang", "de", "--format", "jsonl",
          says=(f"{as_jsonl}, line 4: column 'lang'", NOT_A_CODE))  # fmt: skip


def test_translate_import_lang_column_of_rows(db: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.tsv"
    source.write_text(
        "sentence1\tsentence2\tgold_label\n"
        "A man sleeps.\tA man rests.\tentailment\n"
        "A dog runs.\tA cat sleeps.\tcontradiction\n",
        encoding="utf-8",
    )
    nlibuild.open(db).import_corpus(path=source, format="xnli", lang="en")
    path = tmp_path / "americasnli.tsv"
    path.write_text(
        "language\tpremise\thypothesis\tlabel\n"
        "de\tEin Mann schläft.\tEin Mann ruht.\tentailment\n"
        f"{ESCAPING}\tEin Hund rennt.\tEine Katze schläft.\tcontradiction\n",
        encoding="utf-8",
    )
    before = table_counts(db)
    fails(db, "translate", "import", path, "--lang", "de", "--align", "rows",
          "--reference", source, "--lang-column", "language",
          says=(f"{path}, line 3: column 'language'", NOT_A_CODE))  # fmt: skip
    assert table_counts(db) == before


def test_a_new_store_keeps_its_code(tmp_path: Path) -> None:
    db = new_store(tmp_path / "corpus.db", "--lang", "zh-Hant")
    assert nlibuild.open(db).info().lang == "zh-Hant"


# --- a store whose language an older release wrote as a locale ------------------------------


def store_of_an_older_release(db: Path, lang: str) -> Path:
    """A Chinese store with sentences ingested, whose language (its meta and its rows) an
    older nlibuild wrote as `lang`, before codes were checked."""
    nlibuild.create(db, lang="zh").ingest(paths=(texts_of(db.parent),), genre="news")
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'lang'", (lang,))
        for table in ("sources", "sentences"):
            conn.execute(f"UPDATE {table} SET lang = ?", (lang,))
    return db


def texts_of(folder: Path) -> Path:
    path = folder / "news.txt"
    path.write_text("今天下了一整天的雨。\n\n他在商店门口等了很久。\n", encoding="utf-8")
    return path


def test_a_stage_taking_the_stores_language_names_the_repair_when_it_is_no_code(
    tmp_path: Path,
) -> None:
    # Issue 26: `ingest` into a store an older release made with `--lang zh_CN` was refused
    # with "option lang: 'zh_CN' is not a language code", an option nobody typed, and no
    # command could change the store's language.
    db = store_of_an_older_release(tmp_path / "corpus.db", "zh_CN")
    says = (
        f"{db}: the store's language 'zh_CN' is not a language code",
        f"run `nlibuild --db {db} check --repair`, which rewrites it as 'zh-CN'",
    )
    fails(db, "ingest", texts_of(tmp_path), "--genre", "news", says=says)
    ok("--db", db, "ingest", texts_of(tmp_path), "--genre", "news", "--lang", "zh")  # typed: taken


def test_check_reports_the_stores_language_and_repair_rewrites_it(tmp_path: Path) -> None:
    db = store_of_an_older_release(tmp_path / "corpus.db", "zh_CN")
    result = run_cli("--db", db, "check")
    assert "store language 'zh_CN': not a language code" in result.stdout
    assert "check --repair`, which rewrites it as 'zh-CN'" in check_error(result)
    repaired = ok("--db", db, "check", "--repair")
    assert "rewrote the store's language as 'zh-CN'" in repaired
    assert query(db, "SELECT value FROM meta WHERE key = 'lang'") == [("zh-CN",)]
    assert query(db, "SELECT DISTINCT lang FROM sentences") == [("zh-CN",)]
    assert "Checked 0 pairs: every check agrees" in ok("--db", db, "check")
    assert "lang:zh-CN" in ok("--db", db, "ingest", texts_of(tmp_path), "--genre", "news")


def test_a_stored_language_no_code_can_be_read_from_says_what_to_do(tmp_path: Path) -> None:
    db = store_of_an_older_release(tmp_path / "corpus.db", "chinese simplified")
    line = check_error(run_cli("--db", db, "check", "--repair"))
    assert "none can be read from it" in line and "nlibuild init --lang CODE" in line
    assert query(db, "SELECT value FROM meta WHERE key = 'lang'") == [("chinese simplified",)]


def check_error(result: Result) -> str:
    """`check`'s verdict on a store it finds wanting: its report on stdout, then exit 1
    and one `Error:` line saying what to do."""
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ")
    return line
