"""Hypothesis strategies for bad input files: a valid file of a format with its structure
broken in the ways real files break (README.md, "Safety"; issue 16).

A file is mutated at the level its format has: JSON values inside the records of a JSON or
JSON lines file, cells, rows and header of a csv or tsv table, lines of a text file; then,
sometimes, at the level of its bytes (a BOM, CR or CRLF line ends, a cut, invalid UTF-8, a
NUL). `raw_bytes` is the unstructured rest.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlencode

from hypothesis import strategies as st

FileKind = Literal["json", "jsonl", "csv", "tsv", "lines"]
Draw = Callable[[st.SearchStrategy[Any]], Any]

HUGE = "h" * (128 * 1024 + 7)
"""A field over the csv module's 128 KiB limit (and over any sane sentence)."""

ODD_TEXTS = [
    "",
    " ",
    "\t",
    "\x00",
    "a\x00b",
    "\x1b[31mred",
    "\u200b",
    "\ufeff",
    "line\nbreak",
    "cr\rhere",
    '"quoted',
    "a,b",
    "a\tb",
    "\ud800",  # a lone surrogate: JSON can escape it, UTF-8 cannot hold it
    "-",
    "entailment",
    "maybe",
    "0",
    "e,n,c",
    "=1+1",
    "../../etc/passwd",
    HUGE,
]
"""Strings that are legal somewhere and wrong somewhere else."""

odd_text = st.one_of(st.sampled_from(ODD_TEXTS), st.text(max_size=12))

DEEP_LIST: Any = []
for _ in range(20_000):
    DEEP_LIST = [DEEP_LIST]
"""Nesting deeper than any recursive reader's stack."""

odd_json: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),  # NaN and the infinities too: json.dumps writes them, strict readers refuse
    odd_text,
    st.just(DEEP_LIST),
    st.recursive(
        st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(ODD_TEXTS[:8]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3),
        max_leaves=6,
    ),
)
"""A JSON value of any type where a reader expects one type."""


# --- JSON ---------------------------------------------------------------------------------


@st.composite
def mutated_json(draw: Draw, value: Any) -> Any:
    """`value` with one thing changed somewhere inside it: a value replaced by one of
    another type, a key removed or added, a list element dropped or repeated."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        return {**value, key: draw(mutated_json(value[key]))}
    if isinstance(value, list) and value and draw(st.booleans()):
        index = draw(st.integers(0, len(value) - 1))
        return [*value[:index], draw(mutated_json(value[index])), *value[index + 1 :]]
    choices = ["replace"]
    if isinstance(value, dict):
        choices += ["drop key", "add key"] if value else ["add key"]
    if isinstance(value, list) and value:
        choices += ["drop item", "repeat item"]
    action = draw(st.sampled_from(choices))
    if action == "drop key":
        key = draw(st.sampled_from(sorted(value)))
        return {k: v for k, v in value.items() if k != key}
    if action == "add key":
        return {**value, draw(odd_text): draw(odd_json)}
    if action == "drop item":
        index = draw(st.integers(0, len(value) - 1))
        return value[:index] + value[index + 1 :]
    if action == "repeat item":
        return [*value, draw(st.sampled_from(value))]
    return draw(odd_json)


@st.composite
def mutated_records(draw: Draw, records: list[Any]) -> list[Any]:
    """The records of a JSON lines file (or a JSON array) with one to three of them changed,
    and perhaps one repeated (a duplicate ID) or the order reversed."""
    changed = list(records)
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(changed) - 1))
        changed[index] = draw(mutated_json(changed[index]))
    if draw(st.booleans()):
        changed.append(draw(st.sampled_from(changed)))
    return changed


def dump_json(value: Any, ascii_only: bool) -> str:
    """`json.dumps`, tolerating what strategies produce (lone surrogates, NaN)."""
    try:
        return json.dumps(value, ensure_ascii=ascii_only)
    except RecursionError:
        return "[" * 20_000 + "]" * 20_000


@st.composite
def json_lines_text(draw: Draw, records: list[Any]) -> str:
    ascii_only = draw(st.booleans())
    return "".join(dump_json(r, ascii_only) + "\n" for r in draw(mutated_records(records)))


@st.composite
def json_text(draw: Draw, document: Any) -> str:
    if isinstance(document, list) and document and draw(st.booleans()):
        document = draw(mutated_records(document))
    else:
        document = draw(mutated_json(document))
    return dump_json(document, draw(st.booleans()))


# --- tables -------------------------------------------------------------------------------


def table_rows(text: str, delimiter: str) -> list[list[str]]:
    source = io.StringIO(text, newline="")
    if delimiter == "\t":  # NLI tsv files are unquoted: a `"` is text
        return list(csv.reader(source, delimiter="\t", quoting=csv.QUOTE_NONE))
    return list(csv.reader(source))


TABLE_CHANGES = [
    "cell", "cell", "cell", "drop column name", "rename column", "repeat column", "short row",
    "long row", "repeat row", "drop row", "no header",
]  # fmt: skip


@st.composite
def mutated_table(draw: Draw, rows: list[list[str]]) -> list[list[str]]:
    """A table (header first) with one to three changes: a cell's text, a header name
    removed, renamed or repeated, a row cut short or made longer, a row repeated or
    dropped, no header at all."""
    table = [list(row) for row in rows]
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(TABLE_CHANGES))
        row = draw(st.integers(0, len(table) - 1)) if table else 0
        if not table:
            table = [[draw(odd_text)]]
        elif action == "cell" and table[row]:
            column = draw(st.integers(0, len(table[row]) - 1))
            table[row][column] = draw(odd_text)
        elif action == "drop column name" and table[0]:
            del table[0][draw(st.integers(0, len(table[0]) - 1))]
        elif action == "rename column" and table[0]:
            table[0][draw(st.integers(0, len(table[0]) - 1))] = draw(odd_text)
        elif action == "repeat column" and table[0]:
            table[0].append(draw(st.sampled_from(table[0])))
        elif action == "short row" and table[row]:
            table[row] = table[row][: draw(st.integers(0, len(table[row]) - 1))]
        elif action == "long row":
            table[row].append(draw(odd_text))
        elif action == "repeat row":
            table.append(list(table[row]))
        elif action == "drop row":
            del table[row]
        elif action == "no header":
            table = table[1:]
    return table


def table_text(rows: list[list[str]], delimiter: str) -> str:
    if delimiter == "\t":  # NLI tsv files are unquoted: a tab or line end inside a cell splits it
        return "".join("\t".join(row) + "\n" for row in rows)
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


# --- lines --------------------------------------------------------------------------------

TOML_VALUES = [
    "1", "-1", "0", "1e400", "nan", "inf", "true", '""', '"\\u0000"', "[]", '[1, "a"]', "{}",
    '{ a = 1 }', '"e,n,c"', '"e,e,e"', '"zz"', '"SINGLE"', '"NOPE"', '["entailment"]',
    "2024-01-01", f'"{HUGE}"',
]  # fmt: skip
"""TOML values of every type, for `key = value` lines of a preset."""


@st.composite
def mutated_lines(draw: Draw, lines: list[str]) -> list[str]:
    """Lines with one to three changes: a line replaced, dropped, repeated or added, or the
    value of a `key = value` line replaced by a TOML value of another type."""
    changed = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, max(len(changed) - 1, 0)))
        action = draw(st.sampled_from(["replace", "drop", "repeat", "add", "value"]))
        if not changed or action == "add":
            changed.insert(index, draw(odd_text))
        elif action == "replace":
            changed[index] = draw(odd_text)
        elif action == "drop":
            del changed[index]
        elif action == "repeat":
            changed.insert(index, changed[index])
        elif " = " in changed[index]:
            key = changed[index].split(" = ", 1)[0]
            changed[index] = f"{key} = {draw(st.sampled_from(TOML_VALUES))}"
    return changed


# --- bytes --------------------------------------------------------------------------------


@st.composite
def byte_damage(draw: Draw, data: bytes) -> bytes:
    """`data` as it is (most often), or with its bytes damaged the way files get damaged."""
    action = draw(
        st.sampled_from(
            ["none", "none", "none", "bom", "crlf", "cr", "cut", "invalid utf-8", "nul", "empty"]
        )
    )
    if action == "bom":
        return b"\xef\xbb\xbf" + data
    if action == "crlf":
        return data.replace(b"\n", b"\r\n")
    if action == "cr":
        return data.replace(b"\n", b"\r")
    if action == "cut":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if action in ("invalid utf-8", "nul"):
        at = draw(st.integers(0, len(data)))
        inserted = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80abc"]))
        return data[:at] + (b"\x00" if action == "nul" else inserted) + data[at:]
    if action == "empty":
        return b""
    return data


def encode(text: str) -> bytes:
    """UTF-8, except that a lone surrogate becomes the (invalid) bytes it would have been."""
    return text.encode("utf-8", errors="surrogatepass")


@st.composite
def broken_file(draw: Draw, kind: FileKind, valid: str) -> bytes:
    """The bytes of a bad version of the valid file text `valid` of kind `kind`."""
    if kind == "jsonl":
        records = [json.loads(line) for line in valid.splitlines() if line.strip()]
        text = draw(json_lines_text(records))
    elif kind == "json":
        text = draw(json_text(json.loads(valid)))
    elif kind in ("csv", "tsv"):
        delimiter = "\t" if kind == "tsv" else ","
        text = table_text(draw(mutated_table(table_rows(valid, delimiter))), delimiter)
    else:
        text = "".join(line + "\n" for line in draw(mutated_lines(valid.splitlines())))
    damaged: bytes = draw(byte_damage(encode(text)))
    return damaged


raw_bytes = st.binary(max_size=512)
"""Bytes with no structure at all."""


# --- web request bodies -------------------------------------------------------------------

FormFields = list[tuple[str, str]]

FORM_CHANGES = ["value", "value", "drop field", "add field", "repeat field", "rename field"]


@st.composite
def mutated_form(draw: Draw, fields: dict[str, str]) -> FormFields:
    """A page's form (its fields in order) with one or two changes: a value replaced by an
    odd text, a field dropped, added, sent twice or renamed."""
    form = list(fields.items())
    for _ in range(draw(st.integers(1, 2))):
        action = draw(st.sampled_from(FORM_CHANGES if form else ["add field"]))
        index = draw(st.integers(0, len(form) - 1)) if form else 0
        if action == "value":
            form[index] = (form[index][0], draw(odd_text))
        elif action == "drop field":
            del form[index]
        elif action == "add field":
            form.append((draw(odd_text), draw(odd_text)))
        elif action == "repeat field":
            form.append((form[index][0], draw(odd_text)))
        else:
            form[index] = (draw(odd_text), form[index][1])
    return form


def form_bytes(form: FormFields) -> bytes:
    """An urlencoded form body; a lone surrogate goes out as the invalid UTF-8 it makes."""
    return urlencode(form, encoding="utf-8", errors="surrogatepass").encode("ascii")


@st.composite
def json_body_bytes(draw: Draw, valid: dict[str, Any]) -> bytes:
    """A route's valid JSON body with one change inside (`mutated_json`), or not an object
    at all, as the bytes a client sends."""
    body = draw(st.one_of(mutated_json(valid), odd_json))
    return encode(dump_json(body, draw(st.booleans())))


# --- language codes and output paths -------------------------------------------------------

LANG_LIKE = [
    "en", "zh-Hant", "pt-BR", "sr-Latn-RS", "EN", "en_GB", "en-", "-en", "e", "english",
    "en--GB", "zh-Hant-" + "x" * 40, "../../../escaped", "..", ".", "en/..", "C:\\x", "中文",
    "en\n", " en", "en.", "ｅｎ", "ἐν",
]  # fmt: skip
"""Codes, near-codes and path pieces: what a language option or column may be given."""

lang_codes = st.one_of(
    st.sampled_from(LANG_LIKE),
    st.from_regex(r"[A-Za-z]{1,4}(-[A-Za-z0-9._/ ]{0,9}){0,3}", fullmatch=True),
    odd_text,
)

STORE_SPELLINGS = [
    "corpus.db", "./corpus.db", "sub/../corpus.db", "corpus.db/", "corpus.db-wal",
    "corpus.db-shm", "corpus.db-journal", "link-to-the-store.db", "CORPUS.DB", ".//corpus.db",
]  # fmt: skip
"""The store of the output tests' folder, and its own files, under other spellings."""
OUTPUT_PLACES = [
    "out", "out/", "a/b/c/out", "existing", "existing/", "notes.txt", "notes.txt/x",
    "outside-link", "outside-link/inner", ".", "", "..", "/", "-", "--out", "x" * 300,
    "a\nb", "a\x00b", "sp ace", "é", "\ud800", ".hidden", "out.png", "out.csv",
]  # fmt: skip
"""Odd names, existing folders and files, a link out of the folder, names a system refuses."""


def stays_near(path: str) -> bool:
    """Whether `path`, relative, climbs at most one folder: a generated output must land in
    the test's own folders (an absolute one once made folders at the file system's root)."""
    return (
        bool(path)
        and not path.startswith(("/", "\\"))
        and not (os.path.normpath(path).startswith(os.path.join("..", "..")))
    )


output_paths = st.one_of(
    st.sampled_from(STORE_SPELLINGS),
    st.sampled_from(OUTPUT_PLACES),
    odd_text.filter(lambda text: "\x00" in text or stays_near(text)),
)
