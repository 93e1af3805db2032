"""`nlibuild ingest`: read source texts into the sentence pool premises are sampled from.

Per text: strip markup (a cleaning preset and `--strip` regexes), split into sentences
(lang.py), drop what is empty after cleaning, measure in characters and tokens, and store
under the text's genre. Keys and lengths are taken over each sentence's normalised form
(`lang.canonical_text`: NFC, one space for any run of white space, none between two
characters of a script written without spaces). The text stored is that form where a
cleaning rule ran, and the source's own sentence (stripped at its ends) where none did:
`--clean none` keeps what the source wrote. A sentence already in the genre's pool (same
key) is counted as a duplicate and not stored again, so re-running an ingest adds nothing.
Duplicates are found in memory (nlibuild/core/keyset.py), 8 bytes a sentence, against the
genre's pool keys loaded when the genre first appears.

The work goes a batch at a time (a read block of a txt file, 4096 records otherwise), not
a sentence at a time: `SentenceSplitter` marks the sentence ends of all its paragraphs
with polars' regex engine (Python's rule where a non-ASCII word meets a period, or where
a language's rule has no bulk form), then cuts, normalises and measures in polars and
hashes the keys in one pass; the same rules text by text stay as the reference the bulk
path is tested against. Inputs of a megabyte or more are read, split and hashed in a
second thread while this one deduplicates and writes: SQLite and polars let go of Python's
lock while they work, so the two overlap on a second core. (A worker process did the same
with more work: starting an interpreter and pickling every sentence across cost about a
CPU second per 100 MB, which made it slower on a shared, loaded machine.)
"""

from __future__ import annotations

import queue
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Generator, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from itertools import compress, groupby
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from nlibuild.core.gc_pause import paused_gc
from nlibuild.core.keyset import KeySet
from nlibuild.core.progress import reading
from nlibuild.core.registry import INGEST
from nlibuild.core.signature import file_sha256
from nlibuild.core.stage import Stage, StoreFacts
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.input_files import require_regular_file
from nlibuild.formats.sources import (
    SourceText,
    read_conllu,
    read_jsonl,
    read_tsv,
    read_txt_paragraphs,
)
from nlibuild.formats.tabular import ProgressCallback, chunks
from nlibuild.models import GENRE_PATTERN, IngestConfig, IngestResult, SourceFormat
from nlibuild.presets import stage_defaults
from nlibuild.queries.pool import pool_keys
from nlibuild.render import counted, run_note
from nlibuild.store import Store
from nlibuild.text.cleaning import Cleaner
from nlibuild.text.lang import (
    SCRIPTIO_CONTINUA_LANGS,
    SENTENCE_BREAK,
    WHITE_SPACE,
    bulk_sentence_ends,
    canonical_text,
    close_gaps,
    length_unit,
    mark_sentence_ends,
    primary_language,
    split_sentences,
    text_key,
    text_key_array,
    token_length,
)

_HAS_WORD = re.compile(r"[^\W_]")
_GENRE = re.compile(GENRE_PATTERN)
_ROWS_PER_WRITE = 20_000
# A pool row: source_id, genre, lang, text, key, chars, tokens, length (store.SentenceRow).
_SENTENCE_FIELDS = 8
PARALLEL_MIN_BYTES = 1 << 20
"""Inputs at least this big (all files together) are read in a second thread while this
one writes: below it there is too little to overlap."""
_TEXTS_PER_BATCH = 4096

SUFFIX_FORMATS = {
    ".txt": SourceFormat.TXT,
    ".text": SourceFormat.TXT,
    ".jsonl": SourceFormat.JSONL,
    ".tsv": SourceFormat.TSV,
    ".conllu": SourceFormat.CONLLU,
}


def format_of(path: Path) -> SourceFormat:
    """The source format a file's suffix names; an error that asks for --format otherwise."""
    found = SUFFIX_FORMATS.get(path.suffix.lower())
    if found is None:
        raise ConfigError(
            f"{path}: cannot tell the format from the name; give --format txt|jsonl|tsv|conllu"
        )
    return found


PARAGRAPH_BREAK = "\x01"
"""Joins a batch's texts into one string, so that one regex call marks all their sentence
ends; like SENTENCE_BREAK, no sentence-end rule matches or looks at it."""

# Runs of Python's white space other than a lone space, in the syntax of polars' regex
# engine: texts that need no change (most) then cost a scan and no copy.
_WHITE_SPACE = "".join(f"\\x{{{ord(c):x}}}" for c in WHITE_SPACE)
_OTHER_WHITE_SPACE = "".join(f"\\x{{{ord(c):x}}}" for c in WHITE_SPACE if c != " ")
_WHITE_SPACE_TO_NORMALISE = f"(?:[{_OTHER_WHITE_SPACE}]| [{_WHITE_SPACE}])[{_WHITE_SPACE}]*"
_ASCII_WORD = "[0-9A-Za-z]"


@dataclass(frozen=True, slots=True)
class SentenceColumns:
    """The sentences of a batch of texts, in order, column by column: the text to store,
    key, length in characters and in tokens, and the index of the text each came from.
    Keys and lengths are those of the sentence's `canonical_text`; the text stored is that
    too after cleaning, and the source's own (stripped) without any cleaning rule. `empty`
    counts what cleaning left without a word (texts, or sentences of split texts)."""

    texts: list[str]
    keys: npt.NDArray[np.int64]
    chars: list[int]
    tokens: list[int]
    items: npt.NDArray[np.int64]
    empty: int


@dataclass(frozen=True)
class SentenceSplitter:
    """Cleans texts, splits them into sentences, normalises, measures and hashes these.

    Without a cleaning rule (`--clean none`, no `--strip`) each sentence is stored as the
    source has it, stripped of the white space at its ends: nothing was cut out, so there
    is no gap to close and no white space to tidy, and a corpus built from the pool must
    quote its sources exactly. Only its key and lengths are taken over the normalised form.
    With rules, the normalised form is stored: they replace markup with spaces, and the
    gaps they leave are theirs to close.

    A batch goes through Python's regexes in one call each (the cleaning and sentence-end
    rules are written for that engine, with look-behinds polars' lacks), which mark
    sentence ends in place; polars then cuts, normalises and measures all sentences at
    once; keys are hashed in one pass. A batch that holds a break character itself, and
    what polars cannot decide the way Python does (whether a non-ASCII sentence has a
    word; closing the gaps of scripts without spaces), goes text by text as
    `split_sentences` and `canonical_text` would.
    """

    lang: str
    cleaner: Cleaner

    @property
    def continua(self) -> bool:
        return primary_language(self.lang) in SCRIPTIO_CONTINUA_LANGS

    @property
    def verbatim(self) -> bool:
        """Whether sentences are stored as the source has them (no cleaning rule)."""
        return not self.cleaner.rules

    def columns(self, texts: list[str], split: bool) -> SentenceColumns:
        """The sentences of `texts`: each split at its sentence ends, or each one whole."""
        if self.cleaner.rules:
            texts = [self.cleaner.clean(text) for text in texts]
        joined = PARAGRAPH_BREAK.join(texts)
        holds_breaks = SENTENCE_BREAK in joined or joined.count(PARAGRAPH_BREAK) >= len(texts)
        if not texts or holds_breaks:
            return self.columns_text_by_text(texts, split)
        empty = 0
        if split:
            # A text split to nothing: blank after cleaning.
            empty = texts.count("") + sum(map(str.isspace, texts))
            # Lines of a paragraph are one text: joined without a space where words have none.
            joined = self._marked(joined.replace("\n", "" if self.continua else " "))
        as_given = joined if self.verbatim else None
        if not joined.isascii():
            # The break characters never compose, so this is NFC of each sentence.
            joined = unicodedata.normalize("NFC", joined)
        frame = self._normalised(joined, split, as_given)
        sentences = frame["text"].to_list()
        keep = frame["ascii_word"].to_numpy()
        unsure = np.flatnonzero(~keep).tolist()
        if unsure:
            for index in unsure:
                keep[index] = _HAS_WORD.search(sentences[index]) is not None
            empty += len(keep) - int(keep.sum())
            frame = frame.filter(pl.Series(keep))
            sentences = list(compress(sentences, keep))
        stored = self._as_given(frame, sentences) if self.verbatim else None
        chars = frame["chars"].to_list()
        if self.continua:
            sentences = [close_gaps(sentence) for sentence in sentences]
            tokens = [sentence.count(" ") + 1 for sentence in sentences]
        else:
            tokens = frame["tokens"].to_list()
        items = frame["item"].to_numpy().astype(np.int64)
        keys = text_key_array(sentences)
        texts = sentences if stored is None else stored
        return SentenceColumns(texts, keys, chars, tokens, items, empty)

    @staticmethod
    def _as_given(frame: pl.DataFrame, normalised: list[str]) -> list[str]:
        """The sentences to store verbatim: `normalised` where the source wrote them so
        (most), the `stored` column's text elsewhere. Only the differing texts are turned
        into Python strings: a second full column of them was most of what storing
        verbatim cost."""
        as_given = list(normalised)
        differs = frame["stored"].is_not_null()
        changed = differs.arg_true().to_list()
        if changed:
            for index, text in zip(changed, frame["stored"].filter(differs).to_list(), strict=True):
                as_given[index] = text
        return as_given

    def _marked(self, joined: str) -> str:
        """`mark_sentence_ends` of each text of `joined`: by polars where the language's rule
        has a bulk form, by Python's regex in paragraphs that need it (and all others)."""
        ends = bulk_sentence_ends(self.lang)
        if ends is None:
            return mark_sentence_ends(joined, self.lang)
        candidates = pl.col("text").str.replace_all(
            ends.candidate, "${1}" + SENTENCE_BREAK + "${2}"
        )
        marked = candidates
        if ends.lower is not None:
            marked = marked.str.replace_all(ends.lower, "${1}")
        if ends.abbreviation is not None:
            marked = marked.str.replace_all(ends.abbreviation, "${1}.${2}")
        deferred = pl.lit(False)
        if ends.defer is not None:
            deferred = candidates.str.contains(ends.defer)
        # One query: polars computes the candidates once for both columns.
        frame = (
            pl.LazyFrame({"text": pl.Series([joined]).str.split(PARAGRAPH_BREAK)})
            .explode("text")
            .select(marked.alias("text"), deferred.alias("deferred"))
            .collect()
        )
        texts = frame["text"]
        redo = frame["deferred"].arg_true().to_list()
        if redo:
            paragraphs = joined.split(PARAGRAPH_BREAK)
            texts = texts.scatter(
                redo, [mark_sentence_ends(paragraphs[i], self.lang) for i in redo]
            )
        return str(texts.str.join(PARAGRAPH_BREAK).item())

    @staticmethod
    def _normalised(joined: str, split: bool, as_given: str | None) -> pl.DataFrame:
        """The texts of `joined` (cut at the breaks; blank sentences of split texts left
        out) with white space normalised, their lengths, and whether they hold an ASCII
        letter or digit (and so surely a word). With `as_given` (`joined` before NFC, with
        the same breaks), also column `stored`: its pieces, stripped at their ends only,
        where they differ from the normalised text (null where they do not)."""
        text = pl.col("text")
        lists = {"text": pl.Series([joined]).str.split(PARAGRAPH_BREAK)}
        # Text already in NFC (ASCII is skipped; normalize returns NFC text itself) is one
        # object with `as_given`: then the pieces to store are cut from the same column.
        cut_apart = as_given is not None and as_given is not joined
        if cut_apart:
            lists["stored"] = pl.Series([as_given]).str.split(PARAGRAPH_BREAK)
        # NFC leaves the break characters where they are, so both columns cut alike.
        frame = pl.LazyFrame(lists).explode(list(lists)).with_row_index("item")
        if split:
            frame = frame.with_columns(pl.col(list(lists)).str.split(SENTENCE_BREAK))
            frame = frame.explode(list(lists))
        if as_given is not None:
            stored = pl.col("stored" if cut_apart else "text")
            frame = frame.with_columns(stored=stored.str.strip_chars(WHITE_SPACE))
        frame = frame.with_columns(
            text.str.replace_all(_WHITE_SPACE_TO_NORMALISE, " ").str.strip_chars(" ")
        )
        if as_given is not None:
            stored = pl.col("stored")
            frame = frame.with_columns(stored=pl.when(stored != text).then(stored))
        if split:
            frame = frame.filter(text != "")
        spaces = pl.col("spaces")
        return (
            frame.with_columns(spaces=text.str.count_matches(" ", literal=True))
            .select(
                "item",
                "text",
                *(["stored"] if as_given is not None else []),
                chars=text.str.len_chars() - spaces,
                tokens=spaces + 1,
                ascii_word=text.str.contains(_ASCII_WORD),
            )
            .collect()
        )

    def columns_text_by_text(self, texts: list[str], split: bool) -> SentenceColumns:
        """`columns` for already cleaned texts, one text and one sentence at a time."""
        sentences: list[str] = []  # canonical forms: what keys and lengths are taken over
        stored: list[str] = []
        items: list[int] = []
        empty = 0
        joiner = "" if self.continua else " "
        for item, text in enumerate(texts):
            if split:
                pieces = split_sentences(joiner.join(text.split("\n")), self.lang)
                empty += not pieces
            else:
                pieces = [text]
            for piece in pieces:
                sentence = canonical_text(piece, self.lang)
                if not _HAS_WORD.search(sentence):
                    empty += 1
                    continue
                sentences.append(sentence)
                stored.append(piece.strip() if self.verbatim else sentence)
                items.append(item)
        # char_length, for a normalised sentence (single spaces): cheaper this way.
        chars = [len(sentence) - sentence.count(" ") for sentence in sentences]
        tokens = [token_length(sentence) for sentence in sentences]
        keys = np.fromiter(map(text_key, sentences), dtype=np.int64, count=len(sentences))
        return SentenceColumns(stored, keys, chars, tokens, np.array(items, np.int64), empty)


@dataclass(frozen=True, slots=True)
class _FileStart:
    """The texts of file `cfg.paths[index]` come next."""

    index: int


@dataclass(frozen=True, slots=True)
class _Batch:
    """A batch of texts read, split and hashed: the genre of each text (up to the first
    without one, which `missing` reports), and the sentences of each run of texts of one
    kind (to split, or whole) with the run's length."""

    texts: int
    genres: list[str]
    missing: InputError | None
    runs: list[tuple[int, SentenceColumns]]


Steps = Generator[_FileStart | _Batch, None, None]


class _Reader:
    """Reads the files of an ingest into batches of sentences: all the work that needs no
    store, so that it can run in a thread beside the writer."""

    def __init__(self, cfg: IngestConfig) -> None:
        self.cfg = cfg
        self.splitter = SentenceSplitter(cfg.lang, Cleaner.build(cfg.clean, cfg.strip))
        self.genre_regex = _compile_genre_regex(cfg.genre_from)
        self.genre_map = dict(cfg.genre_map)

    def steps(self, progress: ProgressCallback | None) -> Steps:
        """Each file's start, then its batches; `progress` gets the bytes read of all files."""
        done_before = 0
        for index, path in enumerate(self.cfg.paths):
            yield _FileStart(index)
            file_progress = None
            if progress is not None:

                def file_progress(done: int, offset: int = done_before) -> None:
                    progress(offset + done)

            if self.cfg.format is SourceFormat.TXT:
                for paragraphs in read_txt_paragraphs(
                    path, self.cfg.paragraph.value, file_progress
                ):
                    yield self._paragraph_batch(paragraphs)
            else:
                for batch in chunks(_texts(self.cfg, path, file_progress), _TEXTS_PER_BATCH):
                    yield self._batch(path, batch)
            done_before += path.stat().st_size

    def _paragraph_batch(self, paragraphs: list[str]) -> _Batch:
        """A block of a txt file, all of the genre --genre names (run() requires it)."""
        genre = str(self.cfg.genre)
        columns = self.splitter.columns(paragraphs, split=True)
        return _Batch(
            len(paragraphs), [genre] * len(paragraphs), None, [(len(paragraphs), columns)]
        )

    def _batch(self, path: Path, batch: list[SourceText]) -> _Batch:
        genres: list[str] = []
        for item in batch:
            genre = self._genre(item)
            if genre is None:
                where = f" (ids: {', '.join(i for i in item.ids if i)})" if item.ids else ""
                missing = InputError(
                    path,
                    f"a text has no genre{where}; give --genre, or --genre-field / "
                    "--genre-from that matches every record",
                )
                return _Batch(len(batch), genres, missing, [])
            if not _GENRE.match(genre):
                # Named here, where the text's file and line are known; `check_genre` would
                # name the genre alone (it also checks --genre, which has no line).
                unusable = InputError(path, _unusable_genre(genre), item.line)
                return _Batch(len(batch), genres, unusable, [])
            genres.append(genre)
        # Readers yield texts to split (txt) or whole sentences, never both; runs of each
        # go to the splitter apart all the same.
        runs = []
        for whole, run in groupby(batch, key=lambda item: item.sentence):
            texts = [item.text for item in run]
            runs.append((len(texts), self.splitter.columns(texts, split=not whole)))
        return _Batch(len(batch), genres, None, runs)

    def _genre(self, item: SourceText) -> str | None:
        genre = item.genre
        if genre is None and self.genre_regex is not None:
            genre = _match_genre(self.genre_regex, item.ids)
        return self.genre_map.get(genre, genre) if genre is not None else self.cfg.genre


class _Pipeline:
    """Turns batches of sentences into pool rows, counting what it drops."""

    def __init__(self, cfg: IngestConfig, store: Store) -> None:
        self.cfg = cfg
        self.store = store
        self.seen = KeySet()
        # A genre's salt XOR a sentence's key: one set of keys serves all genres.
        self.genre_salts: dict[str, int] = {}
        self.lang = cfg.lang
        self.char_unit = length_unit(cfg.lang) == "chars"
        self.known_genres = set(cfg.known_genres)
        self.counts: Counter[str] = Counter()
        self.by_genre: Counter[str] = Counter()
        self.warnings: list[str] = []
        self._checked_genres: set[str] = set()

    def new_rows(self, source_id: int, batch: _Batch) -> list[Any]:
        """The rows of the batch's sentences that are neither in the pool nor earlier in
        this run, one after another in one flat list (`Store.insert_flat`'s form)."""
        # Genres are checked in the order their texts come, as text by text.
        for genre in dict.fromkeys(batch.genres):
            if genre not in self._checked_genres:
                self.check_genre(genre)
        if batch.missing is not None:
            raise batch.missing
        values: list[Any] = []
        start = 0
        for size, columns in batch.runs:
            genres = batch.genres[start : start + size]
            values += self._flat_rows(source_id, genres, columns)
            self.counts["empty_after_cleaning"] += columns.empty
            self.counts["sentences"] += len(columns.texts)
            start += size
        self.counts["texts"] += batch.texts
        return values

    def _flat_rows(self, source_id: int, genres: list[str], columns: SentenceColumns) -> list[Any]:
        """The new sentences of one run as flat rows, built column by column: slice
        assignment fills every row's field in one call instead of a tuple a row."""
        genre_of = self._genre_column(genres, columns)
        salts = np.array([self.genre_salts[genre] for genre in genres], dtype=np.int64)
        fresh = self.seen.add(columns.keys ^ salts[columns.items])
        texts, chars, tokens = columns.texts, columns.chars, columns.tokens
        keys = columns.keys
        if not fresh.all():
            keep = fresh.tolist()
            genre_of, texts = list(compress(genre_of, keep)), list(compress(texts, keep))
            chars, tokens = list(compress(chars, keep)), list(compress(tokens, keep))
            keys = keys[fresh]
        count = len(texts)
        values: list[Any] = [None] * (_SENTENCE_FIELDS * count)
        for field, column in enumerate(
            ([source_id] * count, genre_of, [self.lang] * count, texts, keys.tolist(),
             chars, tokens, chars if self.char_unit else tokens)
        ):  # fmt: skip
            values[field::_SENTENCE_FIELDS] = column
        return values

    def _genre_column(self, genres: list[str], columns: SentenceColumns) -> list[str]:
        """The genre of each sentence (from the text it came from), counted by genre."""
        count = len(columns.texts)
        if len(set(genres)) == 1:
            self.by_genre[genres[0]] += count
            return [genres[0]] * count
        genre_of = [genres[item] for item in columns.items.tolist()]
        self.by_genre.update(genre_of)
        return genre_of

    def check_genre(self, genre: str) -> None:
        """Refuse a genre that cannot be part of an ID; warn of (or refuse) an unknown one;
        load its pool's keys for deduplication."""
        self._checked_genres.add(genre)
        salt = text_key(f"genre\x00{genre}")
        self.genre_salts[genre] = salt
        self.seen.add(np.fromiter((k ^ salt for k in pool_keys(self.store, genre)), np.int64))
        if not _GENRE.match(genre):
            raise ConfigError(_unusable_genre(genre))
        if self.known_genres and genre not in self.known_genres:
            message = (
                f"genre {genre!r} is not among the preset's genres "
                f"({', '.join(sorted(self.known_genres))})"
            )
            if self.cfg.strict:
                raise ConfigError(f"{message}; fix the genre or drop --strict")
            self.warnings.append(message)


def _unusable_genre(genre: str) -> str:
    return (
        f"genre {genre!r} cannot be part of premise IDs; use letters, digits, '_', '.' and "
        "'-' (map it with --genre-map)"
    )


def _compile_genre_regex(pattern: str | None) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"--genre-from: {pattern!r} is not a valid regex ({exc})") from None
    if regex.groups < 1:
        raise ConfigError(f"--genre-from: {pattern!r} needs a group that captures the genre")
    return regex


def _match_genre(regex: re.Pattern[str], ids: tuple[str, ...]) -> str | None:
    for identifier in ids:
        if identifier:
            found = regex.search(identifier)
            if found is not None and found.group(1):
                return found.group(1)
    return None


def _texts(
    cfg: IngestConfig, path: Path, progress: ProgressCallback | None
) -> Iterator[SourceText]:
    """The records of a jsonl, tsv or conllu file (txt files are read a block at a time)."""
    if cfg.format is SourceFormat.JSONL:
        return read_jsonl(path, cfg.field, cfg.genre_field, progress)
    if cfg.format is SourceFormat.TSV:
        return read_tsv(path, cfg.field, cfg.genre_field, progress)
    return read_conllu(path, progress)


def run(store: Store, cfg: IngestConfig, *, parallel: bool | None = None) -> IngestResult:
    """Ingest every file of `cfg.paths` in one transaction; nothing is written on error. A
    bar counts the bytes read over all files on a terminal (`nlibuild.core.progress.reading`).

    With `parallel` (default: for inputs of `PARALLEL_MIN_BYTES` or more) a second thread
    reads, splits and hashes while this process deduplicates and writes; both ways give the
    same store.
    """
    _refuse_missing_inputs(cfg)
    reader = _Reader(cfg)  # built before the store is touched: bad options fail early
    with reading(cfg.paths, "ingest") as progress:
        return _ingest(store, cfg, reader, progress, parallel)


def _ingest(
    store: Store,
    cfg: IngestConfig,
    reader: _Reader,
    progress: ProgressCallback | None,
    parallel: bool | None,
) -> IngestResult:
    if parallel is None:
        parallel = sum(path.stat().st_size for path in cfg.paths) >= PARALLEL_MIN_BYTES
    # Reading starts first, so that it overlaps the hashing of the files.
    reading = (
        _reading_in_thread(reader, progress) if parallel else nullcontext(reader.steps(progress))
    )
    with paused_gc(), reading as steps:
        digests = [file_sha256(path) for path in cfg.paths]  # cached for the signature
        pipeline = _Pipeline(cfg, store)
        with store.recorded_run(INGEST, cfg) as run:
            run_id = run.id
            if cfg.genre is not None:
                pipeline.check_genre(cfg.genre)
            added = _write(store, cfg, pipeline, steps, digests, run_id)
            counts = {
                "files": len(cfg.paths),
                "texts": pipeline.counts["texts"],
                "sentences": pipeline.counts["sentences"],
                "empty_after_cleaning": pipeline.counts["empty_after_cleaning"],
                "duplicates": pipeline.counts["sentences"] - added,
                "added": added,
            }
            if counts["sentences"] == 0:
                raise InputError(
                    ", ".join(str(p) for p in cfg.paths),
                    "no sentence found (every text was empty after cleaning); check the "
                    "files, --format and --field",
                )
            run.finish(counts)
    return IngestResult(
        run_id=run_id,
        signature=run.signature,
        by_genre=dict(sorted(pipeline.by_genre.items())),
        warnings=pipeline.warnings,
        **counts,
    )


def _refuse_missing_inputs(cfg: IngestConfig) -> None:
    """Refuse files that are not there, and a format whose texts would lack a genre."""
    for path in cfg.paths:
        require_regular_file(path)
    if cfg.format is SourceFormat.CONLLU and cfg.genre is None and cfg.genre_from is None:
        raise ConfigError("give --genre, or --genre-from REGEX over the sent_id / newdoc id")
    if cfg.format in (SourceFormat.JSONL, SourceFormat.TSV) and not (cfg.genre or cfg.genre_field):
        raise ConfigError("give --genre, or --genre-field naming each record's genre")
    if cfg.format is SourceFormat.TXT and cfg.genre is None:
        raise ConfigError("give the genre of these texts with --genre")


def _write(
    store: Store,
    cfg: IngestConfig,
    pipeline: _Pipeline,
    steps: Steps,
    digests: list[str],
    run_id: int,
) -> int:
    """Write the new sentences of `steps`, file by file; the number written."""
    added = 0
    pending: list[Any] = []  # rows one after another, as new_rows gives them
    source_id = 0
    for step in steps:
        if isinstance(step, _FileStart):
            store.insert_flat("sentences", pending, _SENTENCE_FIELDS, run_id)
            added += len(pending) // _SENTENCE_FIELDS
            pending = []
            path = cfg.paths[step.index]
            digest = digests[step.index]
            source_id = store.source_id("text", str(path), digest, cfg.genre, cfg.lang, run_id)
            continue
        pending += pipeline.new_rows(source_id, step)
        if len(pending) >= _ROWS_PER_WRITE * _SENTENCE_FIELDS:
            store.insert_flat("sentences", pending, _SENTENCE_FIELDS, run_id)
            added += len(pending) // _SENTENCE_FIELDS
            pending = []
    store.insert_flat("sentences", pending, _SENTENCE_FIELDS, run_id)
    return added + len(pending) // _SENTENCE_FIELDS


@contextmanager
def _reading_in_thread(reader: _Reader, progress: ProgressCallback | None) -> Iterator[Steps]:
    """`reader.steps` from a second thread, which starts at once and is stopped on leaving.
    The queue between the two is bounded, so a fast reader waits for the writer instead
    of filling memory; progress is reported from this thread, as the caller expects."""
    messages: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=4)
    stop = threading.Event()

    def put(message: tuple[str, Any]) -> None:
        while not stop.is_set():
            try:
                messages.put(message, timeout=0.1)
                return
            except queue.Full:
                continue

    def read() -> None:
        try:
            for step in reader.steps(lambda done: put(("progress", done))):
                put(("step", step))
                if stop.is_set():
                    return
            put(("done", None))
        except BaseException as exc:  # every failure, to be raised in the writing thread
            put(("error", exc))

    thread = threading.Thread(target=read, name="nlibuild-ingest-reader", daemon=True)
    thread.start()
    try:
        yield _thread_steps(messages, progress)
    finally:
        stop.set()
        thread.join()


def _thread_steps(
    messages: queue.Queue[tuple[str, Any]], progress: ProgressCallback | None
) -> Steps:
    while True:
        kind, value = messages.get()
        if kind == "step":
            yield value
        elif kind == "progress":
            if progress is not None:
                progress(value)
        elif kind == "error":
            raise value
        else:
            return


def store_defaults(store: StoreFacts, fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` (None: not given) with what the store says where they are silent: the
    format the first file's suffix names, the store's language, the paragraph mode and
    cleaning of the preset's `[ingest.genres.GENRE]` (which lies over `[ingest]`, the
    section `invoke` reads), and the preset's `[corpus]` genres as the known ones."""
    preset = store.preset
    genre = fields.get("genre")
    per_genre = stage_defaults(preset, "ingest").get("genres", {}).get(genre, {}) if genre else {}
    given = {key: value for key, value in fields.items() if value is not None}
    paths = given.get("paths") or ()
    known = tuple(stage_defaults(preset, "corpus").get("genres", ()))
    return dict(fields) | {
        "format": given.get("format") or (format_of(Path(paths[0])) if paths else None),
        "lang": given.get("lang") or store.lang,
        "paragraph": given.get("paragraph") or per_genre.get("paragraph"),
        "clean": given.get("clean") or per_genre.get("clean"),
        "known_genres": given.get("known_genres", known),
    }


def summary(_cfg: IngestConfig, result: IngestResult) -> str:
    genres = ", ".join(f"{g} {n}" for g, n in result.by_genre.items())
    return (
        f"Ingested {counted(result.files, 'file')}: {counted(result.texts, 'text')}, "
        f"{counted(result.sentences, 'sentence')} ({genres}); "
        f"{result.empty_after_cleaning} empty after cleaning, "
        f"{counted(result.duplicates, 'duplicate')}; {result.added} added to the pool "
        f"{run_note(result)}"
    )


STAGE = Stage(
    INGEST,
    settings=IngestConfig,
    run=run,
    summary=summary,
    warnings=lambda result: result.warnings,
    defaults=store_defaults,
)
