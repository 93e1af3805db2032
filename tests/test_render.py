"""Tables people paste: Markdown that a `|` in a sacrebleu signature cannot break, LaTeX that
escapes every special character with booktabs rules and says which engine its script needs,
terminal tables folded into column groups when wider than the window, human headers and
booleans as yes/no; `translate qa --format csv` one table a file."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from conftest import ok, ok_result, read_jsonl, run_cli, write_jsonl
from rich.console import Console

from nlibuild.models import TableFormat
from nlibuild.render import Cell, human_header, render_table, table_text

SIGNATURE = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.0"


def rendered(
    columns: list[str], rows: list[tuple[Cell, ...]], fmt: TableFormat, width: int = 80
) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False)
    render_table(console, "Scores", columns, rows, fmt, decimals=2)
    output = console.file
    assert isinstance(output, io.StringIO)
    return output.getvalue()


def markdown_cells(line: str) -> list[str]:
    """A pipe-table row split as CommonMark/GFM splits it: at pipes no backslash escapes."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_a_pipe_in_a_signature_survives_markdown() -> None:
    text = rendered(["metric", "score", "signature"], [("BLEU", 31.5, SIGNATURE)], TableFormat.MD)
    lines = text.splitlines()
    assert [len(markdown_cells(line)) for line in lines] == [3, 3, 3]
    assert markdown_cells(lines[2]) == ["BLEU", "31.50", SIGNATURE.replace("|", "\\|")]
    assert re.fullmatch(r"\|:-+\|-+:\|:-+\|", lines[1])  # numbers right-aligned


def test_a_line_break_in_a_cell_stays_in_its_markdown_row() -> None:
    text = rendered(["unit", "text"], [("p:1", "first line\nsecond line")], TableFormat.MD)
    assert len(text.splitlines()) == 3
    assert markdown_cells(text.splitlines()[2]) == ["p:1", "first line<br>second line"]


def test_latex_escapes_every_special_character_with_booktabs_rules() -> None:
    text = rendered(["rule"], [("a > b & 50%",), ("<~^\\$#_{}>",)], TableFormat.LATEX)
    lines = [" ".join(line.split()) for line in text.splitlines()]  # tabulate pads cells
    assert lines[0] == "% needs \\usepackage{booktabs} (\\toprule, \\midrule, \\bottomrule)"
    assert lines[1:4] == ["\\begin{tabular}{l}", "\\toprule", "rule \\\\"]
    assert lines[4] == "\\midrule"
    assert lines[5] == "a \\ensuremath{>} b \\& 50\\% \\\\"
    assert lines[6] == (
        "\\ensuremath{<}\\textasciitilde{}\\^{}\\textbackslash{}\\$\\#\\_\\{\\}\\ensuremath{>} \\\\"
    )
    assert lines[7:] == ["\\bottomrule", "\\end{tabular}"]
    assert "¿" not in text and "¡" not in text


def test_latex_of_chinese_says_to_compile_with_xelatex_and_xecjk() -> None:
    text = rendered(["lang", "premise"], [("zh", "他们在公园里散步。")], TableFormat.LATEX)
    assert "% holds CJK text: compile with xelatex and \\usepackage{xeCJK}" in text.splitlines()
    assert "non-Latin" not in text  # Chinese needs xeCJK, not just a font


def test_latex_of_other_scripts_names_a_unicode_engine_and_latin_none() -> None:
    russian = rendered(["premise"], [("Они гуляли в парке.",)], TableFormat.LATEX)
    assert "% holds non-Latin text: compile with xelatex (or lualatex)" in russian
    assert "xeCJK" not in russian
    english = rendered(["premise"], [("They walked in the park, café included.",)],
                       TableFormat.LATEX)  # fmt: skip
    assert "xelatex" not in english and "booktabs" in english


def test_human_headers_and_yes_no_on_the_terminal_and_in_markdown() -> None:
    columns = ["annotator", "agree_with_gold", "mean_length", "flagged"]
    rows: list[tuple[Cell, ...]] = [("w1", 0.5, 12.0, True), ("w2", None, 9.5, False)]
    for fmt in (TableFormat.TABLE, TableFormat.MD):
        text = rendered(columns, rows, fmt, width=120)
        assert "agreement with gold" in text and "mean length" in text, text
        assert "_" not in text and "True" not in text and "False" not in text
        assert re.search(r"w1\s*[|│]\s*0\.50\s*[|│]\s*12\.00\s*[|│]\s*yes", text)
        assert re.search(r"w2\s*[|│]\s*[|│]\s*9\.50\s*[|│]\s*no", text)


def test_csv_keeps_field_names_for_scripts_and_says_yes_no() -> None:
    text = table_text(["annotator", "flagged"], [("w1", True), ("w2", False)], TableFormat.CSV)
    assert text == "annotator,flagged\nw1,yes\nw2,no\n"
    assert human_header("mean_length") == "mean length"


def wide_table() -> tuple[list[str], list[tuple[Cell, ...]]]:
    """12 measures of 3 annotators: about 230 columns of terminal at their natural width."""
    columns = ["annotator"] + [f"measure_{n}" for n in range(12)]
    rows: list[tuple[Cell, ...]] = [
        (f"worker-{r}", *(f"contradiction{n}" for n in range(12))) for r in range(3)
    ]
    return columns, rows


def test_a_wide_terminal_table_folds_into_column_groups_that_fit() -> None:
    columns, rows = wide_table()
    text = rendered(columns, rows, TableFormat.TABLE, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    # Every word whole on one line: nothing squeezed into 2-letter pieces.
    for n in range(12):
        assert sum(f"contradiction{n} " in line for line in lines) == 3
        assert sum(f"measure {n} " in line for line in lines) == 1
    parts = [line for line in lines if line.startswith("Scores (part ")]
    assert len(parts) >= 3 and parts[0].startswith("Scores (part 1 of ")
    # The key column is repeated in each group, so each row can still be read.
    assert sum("worker-2" in line for line in lines) == len(parts)


def test_a_table_with_a_key_too_wide_to_repeat_becomes_records() -> None:
    columns, rows = wide_table()
    key = "x" * 60
    text = rendered(["id", *columns], [(key, *rows[0])], TableFormat.TABLE, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "column" in lines[2] and "value" in lines[2]
    assert sum(f"contradiction{n} " in line for line in lines for n in range(12)) == 12
    assert key in text


def test_a_table_that_fits_is_printed_whole() -> None:
    columns, rows = wide_table()
    text = rendered(columns[:3], rows, TableFormat.TABLE, width=80)
    assert "part" not in text and text.splitlines()[0].startswith("Scores")


def _qa_store(sample_db: Path, tmp_path: Path) -> Path:
    units = tmp_path / "units.jsonl"
    ok("--db", sample_db, "translate", "export", "--lang", "de", "--out", units)
    rows = read_jsonl(units)
    for kind, suffix in (("human", " ."), ("mt", " !")):
        filled = write_jsonl(tmp_path / f"{kind}.jsonl",
                             [r | {"text": r["source"] + suffix} for r in rows])  # fmt: skip
        ok("--db", sample_db, "translate", "import", filled, "--lang", "de", "--kind", kind,
           "--force")  # fmt: skip
    return sample_db


def test_translate_qa_csv_on_stdout_is_one_table_and_stderr_says_what_was_left_out(
    sample_db: Path, tmp_path: Path
) -> None:
    db = _qa_store(sample_db, tmp_path)
    result = ok_result("--db", db, "translate", "qa", "--lang", "de", "--format", "csv")
    table = list(csv.reader(io.StringIO(result.stdout)))
    assert table[0] == ["lang", "hyp", "ref", "segments", "metric", "score", "sacrebleu_signature"]
    assert [row[4] for row in table[1:]] == ["BLEU", "chrF"]  # TER only with --metrics
    assert all(len(row) == 7 for row in table)  # no prose, no second table
    assert "Left out of this csv: qa-units (10 rows); give --out DIR" in result.stderr


def test_translate_qa_out_writes_one_csv_a_table(sample_db: Path, tmp_path: Path) -> None:
    db = _qa_store(sample_db, tmp_path)
    folder = tmp_path / "qa"
    text = ok("--db", db, "translate", "qa", "--lang", "de", "--format", "csv", "--worst", "4",
              "--out", folder)  # fmt: skip
    assert sorted(p.name for p in folder.iterdir()) == ["qa-corpus.csv", "qa-units.csv"]
    units = list(csv.DictReader((folder / "qa-units.csv").open(encoding="utf-8")))
    assert len(units) == 4 and list(units[0]) == [
        "lang", "hyp", "ref", "unit", "chrf", "hypothesis", "reference"
    ]  # fmt: skip
    corpus = list(csv.DictReader((folder / "qa-corpus.csv").open(encoding="utf-8")))
    assert [row["metric"] for row in corpus] == ["BLEU", "chrF"]
    assert "wrote" in text and "qa-units.csv" in text


def test_translate_qa_out_with_a_terminal_table_is_refused_before_the_run(
    sample_db: Path, tmp_path: Path
) -> None:
    db = _qa_store(sample_db, tmp_path)
    runs_before = ok("--db", db, "runs", "--format", "csv")
    result = run_cli("--db", db, "translate", "qa", "--lang", "de", "--out", tmp_path / "qa")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: --out DIR writes files: give --format csv")
    assert ok("--db", db, "runs", "--format", "csv") == runs_before
