"""Shared reading and writing machinery of the formats.

Readers turn a file into `SourcePair`s (and, for multilingual files, `SourceTranslation`s)
without touching the store; the import stage resolves IDs, labels and conflicts. Lines are
read as bytes and decoded one by one, so a bad byte is reported with its line number and
memory stays bounded whatever the file size.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import re
import secrets
import shutil
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path, PurePath
from typing import IO, Any, TypeVar

import orjson

from nlibuild.core.runs import process_alive
from nlibuild.errors import OUT_OF_SPACE_ADVICE, OUT_OF_SPACE_ERRNOS, InputError, OutputError
from nlibuild.formats.input_files import bad_utf8, read_utf8_text, require_regular_file
from nlibuild.models import lang_code_problem

T = TypeVar("T")

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes read so far."""


@dataclass(slots=True)
class SourcePair:
    """One pair as a reader found it: raw labels, the corpus's own keys, extra fields.

    `premise_key`/`pair_key` are the corpus's IDs (promptID, prem_id, pairID) or None,
    in which case the premise is identified by its text and the pair by its content.
    """

    line: int
    premise: str
    hypothesis: str
    premise_key: str | None = None
    pair_key: str | None = None
    genre: str | None = None
    lang: str | None = None
    level: str | None = None
    protocol: str | None = None
    labels: list[Any] = field(default_factory=list)
    annotators: list[str] | None = None
    gold: Any = None
    premise_extra: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None
    translations: dict[str, tuple[str, str]] | None = None


@dataclass(slots=True)
class SourceTranslation:
    """A row of a multilingual file that translates the pair `pair_key` into `lang`."""

    line: int
    lang: str
    pair_key: str
    premise: str
    hypothesis: str


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of `size` items (the last may be shorter), so that per-batch work is amortised."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def iter_lines(path: Path, progress: ProgressCallback | None = None) -> Iterator[tuple[int, str]]:
    """(1-based line number, decoded line without its newline) for every non-blank line."""
    for number, raw in _raw_lines(path, progress):
        text = _decode_line(path, number, raw).rstrip("\r\n")
        if text.strip():
            yield number, text


def _raw_lines(path: Path, progress: ProgressCallback | None) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, undecoded line) for every line, reporting bytes read."""
    done = 0
    with open(require_regular_file(path), "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            done += len(raw)
            if progress is not None and number % 8192 == 0:
                progress(done)
            yield number, raw
    if progress is not None:
        progress(done)


def _decode_line(path: Path, number: int, raw: bytes) -> str:
    """A line's text, with a byte-order mark dropped from the first; bad UTF-8 is an error."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_utf8(path, number, exc.start + 1, raw[exc.start]) from None
    return text.removeprefix("\ufeff") if number == 1 else text


def guess_format(first_line: str) -> str:
    """A hint naming the import format a line looks like, for wrong-format errors."""
    stripped = first_line.lstrip()
    if not stripped.startswith("{"):
        if "\t" in first_line:
            return "it looks tab-separated: try --format xnli"
        return "it does not look like JSON lines or a tab-separated file with a header"
    try:
        keys = set(orjson.loads(stripped))
    except (orjson.JSONDecodeError, TypeError):
        return "check the file's format"
    if {"gold_label", "pairID"} <= keys:
        return "it looks like MNLI/SNLI jsonl: try --format mnli"
    if "prem_id" in keys or "label0" in keys:
        return "it looks like OCNLI json: try --format ocnli"
    if {"premise", "hypothesis"} <= keys:
        return "it looks like nlibuild jsonl: try --format jsonl"
    return "check the file's format"


def iter_json_objects(
    path: Path, format_name: str, progress: ProgressCallback | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON-lines file.

    The hot path hands the raw bytes to orjson, which checks the UTF-8 itself; only a line
    it refuses goes through `iter_lines`' decoding, so that the error says what is wrong.
    """
    for number, raw in _raw_lines(path, progress):
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            text = _explain_bad_json_line(path, format_name, number, raw)
            if text is None:
                continue  # a blank line, or a BOM before the first object
            record = orjson.loads(text)
        if type(record) is not dict:
            raise InputError(
                path,
                f"expected a JSON object, found {type(record).__name__}; fix the line",
                number,
            )
        yield number, record


def _explain_bad_json_line(path: Path, format_name: str, number: int, raw: bytes) -> str | None:
    """For a line orjson refused: None when blank, its text when only a BOM was in the way;
    otherwise raise the InputError that says what is wrong with it."""
    text = _decode_line(path, number, raw)
    if not text.strip():
        return None
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        hint = guess_format(text) if number == 1 else "fix or remove the line"
        raise InputError(
            path,
            f"not a valid JSON line for --format {format_name} ({exc.msg} at column "
            f"{exc.colno}); {hint}",
            number,
        ) from None
    return text


def require_text(path: Path, line: int, record: dict[str, Any], key: str, fmt: str) -> str:
    """The non-empty string field `key`, or an InputError that says what is wrong."""
    if key not in record:
        hint = guess_format(orjson.dumps(record).decode()) if line == 1 else "add it"
        raise InputError(path, f"missing required field {key!r} for --format {fmt}; {hint}", line)
    value = record[key]
    if not isinstance(value, str):
        raise InputError(path, f"field {key!r} must be a string, found {value!r}", line)
    if not value.strip():
        raise InputError(path, f"field {key!r} is empty; give it text or remove the line", line)
    return value


def optional_text(path: Path, line: int, record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, f"field {key!r} must be a string, found {value!r}", line)
    return str(value)


def row_language(path: Path, line: int, value: str, where: str) -> str:
    """A row's language (`where` names the column or field that gave it), refused with the
    file, line and what is wrong unless it is a language code (`models.lang_code_problem`):
    a language names folders of an export (`data/<lang>/`), so `../x` must not reach the
    store."""
    problem = lang_code_problem(value)
    if problem is not None:
        raise InputError(path, f"{where}: {problem}", line)
    return value


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() == ".tsv" or ("\t" in header and "," not in header):
        return "\t"
    return ","


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet (Excel, LibreOffice, Sheets) read a cell as a
formula, or, for tab and carriage return, let one hide behind them (OWASP's CSV injection
list)."""

FORMULA_GUARD = "'"
"""Prefixed to such a cell in a file meant for a spreadsheet: the spreadsheet shows the
rest as text, and saves it back either as it was shown or with the quote kept."""

_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


SPREADSHEET_LINE_END = "\r\n"
"""Rows of a csv for a spreadsheet end as RFC 4180 and spreadsheets have them. It matters:
Python's csv writer quotes a cell holding a carriage return only when the line end holds
one, and an unquoted one starts a new row in a spreadsheet, whose first cell (`x\r=1+1`)
would be a formula no guard quote was put before."""


def runs_as_formula(cell: str) -> bool:
    """Whether a spreadsheet would read the text `cell` as a formula. A plain number
    (`-0.5`, `+3`) is not one: a spreadsheet reads it as the number it is, and runs
    nothing; nor is a lone `-`, the tables' mark for "none" (shown as text)."""
    return cell.startswith(FORMULA_STARTS) and cell != "-" and not _PLAIN_NUMBER.fullmatch(cell)


def guard_formula(cell: str) -> str:
    """`cell` as a spreadsheet must see it: with `FORMULA_GUARD` in front when it would
    run as a formula, or when it starts with quotes `unguard_formula` would take one of
    (`'=x` as written), so that every cell reads back as it was (`unguard_formula`)."""
    if runs_as_formula(cell) or unguard_formula(cell) != cell:
        return FORMULA_GUARD + cell
    return cell


def unguard_formula(cell: str) -> str:
    """The cell `guard_formula` was given: one guard quote dropped where it stands before a
    formula's first character (a spreadsheet may have kept it on saving), or before a cell
    so guarded itself."""
    rest = cell[1:]
    if cell.startswith(FORMULA_GUARD) and (
        rest.startswith(FORMULA_STARTS) or unguard_formula(rest) != rest
    ):
        return rest
    return cell


@dataclass(slots=True)
class ShortRows:
    """Rows of a csv or tsv file that end before its header does, read all the same when the
    cells they lack are in columns nobody reads: LiveNLI's header has a stray 15th cell over
    rows of 14. The caller says which columns those are (`unread`) once it has matched its
    mapping against the header, before the rows are read; a row lacking any other cell is
    still an error."""

    unread: frozenset[str] = frozenset()
    count: int = 0
    fewest_cells: int | None = None

    def warning(self, header: Sequence[str]) -> str | None:
        """The one line that says how many rows were read short, naming the header cells
        they lack; None when every row was whole."""
        if not self.count or self.fewest_cells is None:
            return None
        rows = "1 row ends" if self.count == 1 else f"{self.count:,} rows end"
        return (
            f"{rows} before the header's {header_cells(header, self.fewest_cells)}; read as empty"
        )


def header_cells(header: Sequence[str], start: int) -> str:
    """The header's cells from index `start` on, as a message names them: by position, and
    by name when they have one (a stray cell is often empty)."""
    return ", ".join(
        f"cell {index + 1} " + (repr(name) if name else "(empty)")
        for index, name in enumerate(header)
        if index >= start
    )


def csv_rows(
    path: Path,
    delimiter: str | None = None,
    *,
    from_spreadsheet: bool = False,
    short_rows: ShortRows | None = None,
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header and (line number, row) of a UTF-8 csv/tsv file; the delimiter is the
    one given, else guessed from the suffix and the header. With `from_spreadsheet` (a
    sheet nlibuild wrote with `write_spreadsheet_csv`, filled in and sent back) the guard
    quotes are taken off again, so IDs and texts read back as they were sent. With
    `short_rows`, a row missing trailing cells of `short_rows.unread` only is read without
    them (its dict lacks those keys) and counted there."""
    text = read_utf8_text(path)
    delimiter = delimiter or _delimiter(path, text.split("\n", 1)[0])
    # Tab-separated NLI files (XNLI, XNLIvar) do not quote fields: a `"` is text there.
    source = io.StringIO(text, newline="")
    if delimiter == "\t":
        reader = csv.reader(source, delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(source)
    try:
        header = [name.strip() for name in next(csv_records(path, reader))]
    except StopIteration:
        raise InputError(path, "the file is empty; export the answers again") from None

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        ended = reader.line_num
        for values in csv_records(path, reader):
            began, ended = ended + 1, reader.line_num
            if not "".join(values).strip():  # a blank row
                continue
            if len(values) != len(header) and not _read_short(header, values, short_rows):
                record = "\n".join(text.split("\n")[began - 1 : ended])  # only on the way out
                raise InputError(
                    path, _ragged_row(header, values, delimiter, record, short_rows), ended
                )
            if from_spreadsheet:
                values = [unguard_formula(value) for value in values]
            yield ended, dict(zip(header, values, strict=False))

    return header, rows()


def _read_short(header: list[str], values: list[str], short_rows: ShortRows | None) -> bool:
    """Whether a row of the wrong length is read: one ending early, in unread columns only."""
    if short_rows is None or len(values) > len(header):
        return False
    if not all(name in short_rows.unread for name in header[len(values) :]):
        return False
    short_rows.count += 1
    short_rows.fewest_cells = min(short_rows.fewest_cells or len(values), len(values))
    return True


def _ragged_row(
    header: list[str], values: list[str], delimiter: str, record: str,
    short_rows: ShortRows | None,
) -> str:  # fmt: skip
    """Why a row (`record`, its text in the file) has more or fewer cells than the header,
    and what to do. Quoting is named only where it is the likely cause: a csv row longer
    than the header (a text's comma taken for a separator), or one whose quotes do not pair
    up or that runs over several lines (a quote left open joins cells and lines); a row
    that simply ends early is told which of the header's cells it lacks."""
    counts = f"{len(values)} columns where the header has {len(header)}"
    if delimiter == "\t":  # unquoted: a quote is text, a tab the one way to split a cell
        if len(values) > len(header):
            return f"{counts}; a tab inside a text splits its cell: remove it"
    elif len(values) > len(header):
        return f"{counts}; check the quoting of this row: a text holding a comma must be quoted"
    elif "\n" in record.strip("\r\n") or record.count('"') % 2:
        return f"{counts}; check the quoting of this row: a quote left open joins cells"
    missing = header_cells(header, len(values))
    if short_rows is None:
        return f"{counts}: the row has no {missing}; fill them in, or remove a stray header cell"
    read = [name for name in header[len(values) :] if name not in short_rows.unread]
    return f"{counts}: the row has no {missing}, and column {read[0]!r} is read; fill the row in"


def csv_records(path: Path, reader: Any) -> Iterator[list[str]]:
    """The records of a csv reader, its errors (a field over `csv.field_size_limit()`,
    mostly an opening quote never closed, which swallows the rest of the file; a NUL)
    turned into an `InputError` at the line where the reader stopped."""
    while True:
        try:
            values: list[str] = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(
                path,
                f"cannot be read as {'tab' if reader.dialect.delimiter == chr(9) else 'comma'}"
                f"-separated values ({exc}); check for a quote that is never closed, or "
                "shorten the field",
                reader.line_num,
            ) from None
        yield values


def write_json_lines(path: Path, records: Iterator[dict[str, Any]]) -> int:
    """Write one JSON object per line, UTF-8 unescaped, atomically; returns the row count."""

    def write(handle: IO[bytes]) -> int:
        rows = 0
        for record in records:
            handle.write(orjson.dumps(record))
            handle.write(b"\n")
            rows += 1
        return rows

    return write_atomically(path, write)


def write_atomically(path: Path, write: Callable[[IO[bytes]], int]) -> int:
    """Write through a partial file renamed into place, so a failed export leaves no half file.

    The partial file lies beside `path` under `partial_path`'s name; one a killed process
    left for the same target is removed first (`remove_stale_partials`)."""
    temporary = partial_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_partials(path)
        with open(temporary, "wb") as handle:
            result = write(handle)
        os.replace(temporary, path)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    finally:
        # Any failure, an exception of the writer included, removes the half file. When the
        # folder itself could not be made there is nothing to remove, and the unlink's own
        # error (ENOTDIR) must not replace the one that says why.
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
    return result


PARTIAL_SUFFIX = ".partial"

_PARTIAL_OWNER = re.compile(r"(?P<pid>\d+)-(?P<host>[0-9a-f]{8})-[0-9a-f]{12}")
"""What `partial_path` puts between `.NAME.` and `.partial`: the writing process's ID, its
host's tag and a random token (two threads of one process writing one target)."""


def _host_tag() -> str:
    """This host as 8 hex digits: a fixed length whatever the host name, so that a long
    one does not take the room of the target's name (255 bytes in all)."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def partial_path(target: Path) -> Path:
    """Where a file or folder bound for `target` is written before it is renamed into place:
    beside it (the same file system, so the rename is atomic), hidden, and named for the
    target and the process writing it, `.out.jsonl.4242-1a2b3c4d-9f8e7d6c5b4a.partial`
    (process ID, host tag, random token). A process killed outright (kill -9) cannot
    remove it; the name lets the next write to the same target tell that its writer is gone
    and remove it (`remove_stale_partials`)."""
    owner = f"{os.getpid()}-{_host_tag()}-{secrets.token_hex(6)}"
    return target.with_name(f".{target.name}.{owner}{PARTIAL_SUFFIX}")


def remove_stale_partials(target: Path) -> list[Path]:
    """Remove the partial files and folders (`partial_path`) left beside `target` by
    writers of this host whose process has ended; returns what was removed. A partial of a
    live process, or of another host (a shared file system: its processes cannot be seen
    from here), is left alone, as is any other file."""
    prefix = f".{target.name}."
    host = _host_tag()
    try:
        entries = [entry for entry in target.parent.iterdir() if entry.name.startswith(prefix)]
    except OSError:
        return []  # no folder yet: nothing can be left in it
    removed = []
    for entry in entries:
        owner = _PARTIAL_OWNER.fullmatch(entry.name[len(prefix) :].removesuffix(PARTIAL_SUFFIX))
        if not entry.name.endswith(PARTIAL_SUFFIX) or owner is None or owner["host"] != host:
            continue
        if process_alive(int(owner["pid"])):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
    return removed


def _cannot_write(path: Path, exc: OSError) -> OutputError:
    if exc.errno in OUT_OF_SPACE_ERRNOS:
        return OutputError(
            f"{path}: cannot write it ({exc.strerror or exc}): {OUT_OF_SPACE_ADVICE} and run "
            "the command again, or choose another --out; nothing was written there"
        )
    return OutputError(f"{path}: cannot write it ({exc.strerror or exc}); choose another --out")


def inside_folder(folder: Path, relative: str, why: str) -> Path:
    """`folder / relative`, refused unless it lies inside `folder` (resolved: no `..`, no
    absolute path, no link out of it): a name made from the data (a language's folder of
    an hf dataset) must not write anywhere `--out` did not name. `why` says what made the
    name, for the refusal."""
    target = folder / relative
    if PurePath(relative).is_absolute() or ".." in PurePath(relative).parts:
        escapes = True
    else:
        escapes = not target.resolve().is_relative_to(folder.resolve())
    if escapes:
        raise OutputError(
            f"{folder}: {why} would write {relative!r} outside this folder; nothing was written"
        )
    return target


def write_package(out: Path, write: Callable[[Path], list[Path]]) -> list[Path]:
    """Write a folder of files (a work package) all or nothing; returns the files at `out`.

    `write` is called with a hidden staging folder beside `out` (`partial_path`: the same
    file system, so the moves below are renames; one a killed process left is removed
    first) and returns the files it wrote there. Only once it has returned does anything
    reach `out`: a missing `out` becomes the staging folder in one rename; into an existing
    folder each file the package writes replaces its namesake whole and every other file
    is left alone (a user's notes, another package's batches). On any error, an exception
    of `write` included, the staging folder is removed and `out` is as it was."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists() and not out.is_dir():
            raise OutputError(f"{out}: is a file, not a folder; choose another --out")
        remove_stale_partials(out)
        # Named here and made with mkdir rather than by tempfile.mkdtemp: mkdtemp's mode
        # is 0700, and a missing `out` *becomes* this folder, which should get the
        # umask's mode as a folder made by hand would.
        staging = partial_path(out)
        staging.mkdir()
    except OSError as exc:
        raise _cannot_write(out, exc) from None
    try:
        try:
            written = [path.relative_to(staging) for path in write(staging)]
        except OutputError as exc:
            # A file that could not be written is named where the user asked for it: the
            # hidden staging folder means nothing to them and is gone once this returns.
            raise OutputError(str(exc).replace(str(staging), str(out))) from None
        try:
            if out.is_dir():
                for path in sorted(p for p in staging.rglob("*") if not p.is_dir()):
                    target = out / path.relative_to(staging)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(path, target)
            else:
                os.rename(staging, out)
        except OSError as exc:
            raise _cannot_write(out, exc) from None
    finally:
        # After a whole-folder rename there is nothing left here to remove.
        shutil.rmtree(staging, ignore_errors=True)
    return [out / name for name in written]


def write_spreadsheet_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
    """A UTF-8 csv of `header` and `rows` for people to open in a spreadsheet, written
    atomically; returns the row count. Text cells that would run as formulas get the guard
    quote (`guard_formula`): not for data files the tool reads back byte for byte."""

    def write(handle: IO[bytes]) -> int:
        text = io.StringIO(newline="")
        writer = csv.writer(text, lineterminator=SPREADSHEET_LINE_END)
        writer.writerow([guard_formula(name) for name in header])
        writer.writerows(
            [guard_formula(cell) if isinstance(cell, str) else cell for cell in row] for row in rows
        )
        handle.write(text.getvalue().encode("utf-8"))
        return len(rows)

    return write_atomically(path, write)


def write_text(path: Path, text: str) -> None:
    """A UTF-8 text file, written atomically."""
    write_atomically(path, lambda handle: handle.write(text.encode("utf-8")))
