"""Readers of source texts (the raw material premises are sampled from).

Each reader streams its file in blocks and yields `SourceText`s: a text with the genre its
record names (if any) and whether it is already one pool entry. Memory stays bounded
by the block size whatever the file size; a bad byte is reported with its line number.

- txt: paragraphs (blank-line separated, or one per line for transcripts), to be split;
- jsonl: one text per record, from a named field, kept whole (a released premise of two
  sentences is one pool entry, so a corpus's premises enter the pool as they are);
- tsv: one text per row, from a named column of the header row, kept whole;
- conllu: the `# text = ...` line of every sentence, with its `# sent_id` and the latest
  `# newdoc id`, against which a genre regex can be matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from nlibuild.errors import InputError
from nlibuild.formats.input_files import NUL_IN_TEXT, bad_utf8, require_regular_file
from nlibuild.formats.tabular import ProgressCallback, iter_json_objects

BLOCK_BYTES = 1 << 22
"""How much of a txt file is decoded at once (4 MiB): big enough to amortise Python's
per-call costs, small enough that memory does not grow with the file."""

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True, slots=True)
class SourceText:
    """A text as a reader found it. `ids` are the record's own identifiers (for a genre
    regex); `sentence` says the text is one pool entry already (CoNLL-U sentences, jsonl
    and tsv records) and is not split; `line` is where it is (unknown for txt)."""

    text: str
    genre: str | None = None
    ids: tuple[str, ...] = ()
    sentence: bool = False
    line: int | None = None


def read_txt(
    path: Path, paragraph: str, progress: ProgressCallback | None = None
) -> Iterator[SourceText]:
    """Paragraphs of a plain-text file: separated by blank lines, or one per line."""
    for paragraphs in read_txt_paragraphs(path, paragraph, progress):
        yield from map(SourceText, paragraphs)


def read_txt_paragraphs(
    path: Path, paragraph: str, progress: ProgressCallback | None = None
) -> Iterator[list[str]]:
    """`read_txt` a block at a time, as bare texts: what ingest needs of a txt file."""
    by_line = paragraph == "line"
    carry = ""
    for text, final in _decoded_blocks(path, progress):
        text = carry + text
        pieces = text.split("\n") if by_line else _PARAGRAPH_BREAK.split(text)
        # The last piece may continue in the next block.
        carry = "" if final else pieces.pop()
        paragraphs = [p for p in pieces if p and not p.isspace()]
        if paragraphs:
            yield paragraphs


def read_jsonl(
    path: Path,
    field: str,
    genre_field: str | None,
    progress: ProgressCallback | None = None,
) -> Iterator[SourceText]:
    """One text per JSON-lines record, from `field` (and its genre from `genre_field`)."""
    for line, record in iter_json_objects(path, "jsonl", progress):
        text = _field_text(path, line, record, field)
        genre = _field_text(path, line, record, genre_field) if genre_field else None
        yield SourceText(text, genre, sentence=True, line=line)


def read_tsv(
    path: Path,
    field: str,
    genre_field: str | None,
    progress: ProgressCallback | None = None,
) -> Iterator[SourceText]:
    """One text per row of a tab-separated file with a header row, from column `field`."""
    lines = _text_lines(path, progress)
    header_line = next(lines, None)
    if header_line is None:
        return
    header = header_line[1].split("\t")
    columns = {name.strip(): index for index, name in enumerate(header)}
    wanted = [field] + ([genre_field] if genre_field else [])
    for name in wanted:
        if name not in columns:
            raise InputError(
                path,
                f"no column {name!r} in the header (columns: {', '.join(columns)}); "
                "name one with --field / --genre-field",
                1,
            )
    text_at = columns[field]
    genre_at = columns[genre_field] if genre_field else None
    for number, line in lines:
        cells = line.split("\t")  # no quoting, as in XNLI's files
        if len(cells) != len(header):
            raise InputError(
                path,
                f"{len(cells)} columns where the header has {len(header)}; "
                "fix the row (tabs inside a field are not allowed)",
                number,
            )
        text = cells[text_at].strip()
        if not text:
            raise InputError(
                path, f"column {field!r} is empty; give it text or drop the row", number
            )
        genre = cells[genre_at].strip() if genre_at is not None else None
        yield SourceText(text, genre, sentence=True, line=number)


def read_conllu(path: Path, progress: ProgressCallback | None = None) -> Iterator[SourceText]:
    """The `# text =` line of each sentence, with its sent_id and newdoc id."""
    document = ""
    sent_id = ""
    for number, line in _text_lines(path, progress):
        if not line.startswith("#"):
            continue
        key, _, value = line[1:].partition("=")
        key = key.strip()
        if key == "newdoc id":
            document = value.strip()
        elif key == "sent_id":
            sent_id = value.strip()
        elif key == "text":
            text = value.strip()
            if not text:
                raise InputError(path, "an empty '# text =' line; fix the sentence", number)
            yield SourceText(text, None, (sent_id, document), sentence=True, line=number)


def _field_text(path: Path, line: int, record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if value is None:
        found = ", ".join(sorted(record)) or "none"
        raise InputError(
            path,
            f"no field {key!r} in this record (fields: {found}); name the text with --field",
            line,
        )
    if not isinstance(value, str) or not value.strip():
        shown = orjson.dumps(value).decode()[:40]
        raise InputError(path, f"field {key!r} must be non-empty text, found {shown}", line)
    if "\x00" in value:
        raise InputError(path, f"field {key!r} {NUL_IN_TEXT}", line)
    return value


def _decoded_blocks(path: Path, progress: ProgressCallback | None) -> Iterator[tuple[str, bool]]:
    """(text, is_last) for blocks of whole lines; bad UTF-8 names its line."""
    done = 0
    lines_before = 0
    rest = b""
    with open(require_regular_file(path), "rb") as handle:
        while True:
            chunk = handle.read(BLOCK_BYTES)
            final = not chunk
            data = rest + chunk
            cut = len(data) if final else data.rfind(b"\n") + 1
            block, rest = data[:cut], data[cut:]
            if not block and not final:
                continue  # a line longer than a block: read on
            try:
                text = block.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = lines_before + block.count(b"\n", 0, exc.start) + 1
                column = exc.start - (block.rfind(b"\n", 0, exc.start) + 1) + 1
                raise bad_utf8(path, line, column, block[exc.start]) from None
            nul = block.find(b"\x00")  # one memchr a block: the store cannot hold it
            if nul >= 0:
                line = lines_before + block.count(b"\n", 0, nul) + 1
                raise InputError(path, f"this line {NUL_IN_TEXT}", line)
            if lines_before == 0:
                text = text.removeprefix("\ufeff")
            lines_before += block.count(b"\n")
            done += len(block)
            if progress is not None:
                progress(done)
            yield text.replace("\r\n", "\n"), final
            if final:
                return


def _text_lines(path: Path, progress: ProgressCallback | None) -> Iterator[tuple[int, str]]:
    """(line number, line) for every non-blank line, decoded block by block."""
    number = 0
    carry = ""
    for text, final in _decoded_blocks(path, progress):
        lines = (carry + text).split("\n")
        carry = "" if final else lines.pop()
        for line in lines:
            number += 1
            if line.strip():
                yield number, line


EXCLUDE_FIELDS = ("sentence1", "sentence2", "premise", "hypothesis", "text")
"""Fields (jsonl) and column-name prefixes (tsv) whose texts an `--exclude` file excludes."""


def read_texts_to_exclude(path: Path) -> Iterator[str]:
    """Every text of a released corpus or list that sampling must stay disjoint from.

    By suffix: jsonl/json (MNLI, SNLI, OCNLI lines: the premise and hypothesis fields),
    tsv with a header (XNLI-style: columns named sentence1*, sentence2*, premise*,
    hypothesis*), conllu (`# text =`), anything else one text per line.
    """
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        for _, record in iter_json_objects(path, "jsonl"):
            for key in EXCLUDE_FIELDS:
                value = record.get(key)
                if isinstance(value, str) and value.strip():
                    yield value
    elif suffix == ".tsv":
        lines = _text_lines(path, None)
        header = next(lines, None)
        if header is None:
            return
        names = header[1].split("\t")
        wanted = [i for i, name in enumerate(names) if name.strip().startswith(EXCLUDE_FIELDS)]
        if not wanted:
            raise InputError(
                path,
                f"no column named {', '.join(EXCLUDE_FIELDS)} (or starting so) in the header; "
                "give a tsv with such a header, or a text file with one sentence per line",
                1,
            )
        for _, line in lines:
            cells = line.split("\t")
            for index in wanted:
                if index < len(cells) and cells[index].strip():
                    yield cells[index]
    elif suffix == ".conllu":
        yield from (item.text for item in read_conllu(path))
    else:
        for _, line in _text_lines(path, None):
            yield line
