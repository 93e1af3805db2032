"""`nlibuild ingest`: read source texts into the sentence pool premises are sampled from.

Per text: strip markup (a cleaning preset and `--strip` regexes), split into sentences
(lang.py), normalise (NFC, one space for any run of white space), drop what is empty
after cleaning, measure in characters and tokens, and store under the text's genre.
A sentence already in the genre's pool (same normalised, case-folded text) is counted as
a duplicate and not stored again, so re-running an ingest adds nothing. Duplicates are
found in memory (nlibuild/keyset.py), 8 bytes a sentence, against the genre's pool keys
loaded when the genre first appears.
"""

from __future__ import annotations

import gc
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import compress, groupby, repeat
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from nlibuild.cleaning import Cleaner
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.sources import SourceText, read_conllu, read_jsonl, read_tsv, read_txt
from nlibuild.formats.tabular import ProgressCallback, chunks, file_sha256
from nlibuild.keyset import KeySet
from nlibuild.lang import (
    SCRIPTIO_CONTINUA_LANGS,
    SENTENCE_BREAK,
    WHITE_SPACE,
    bulk_sentence_ends,
    close_gaps,
    length_unit,
    mark_sentence_ends,
    normalise_text,
    primary_language,
    split_sentences,
    text_key,
    text_key_array,
    token_length,
)
from nlibuild.models import GENRE_PATTERN, IngestConfig, IngestResult, SourceFormat
from nlibuild.queries.pool import pool_keys
from nlibuild.store import SentenceRow, Store

_HAS_WORD = re.compile(r"[^\W_]")
_GENRE = re.compile(GENRE_PATTERN)
_ROWS_PER_WRITE = 20_000
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
    """The sentences of a batch of texts, in order, column by column: normalised text, key,
    length in characters and in tokens, and the index of the text each came from. `empty`
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

    A batch goes through Python's regexes in one call each (the cleaning and sentence-end
    rules are written for that engine, with look-behinds polars' lacks), which mark
    sentence ends in place; polars then cuts, normalises and measures all sentences at
    once; keys are hashed in one pass. A batch that holds a break character itself, and
    what polars cannot decide the way Python does (whether a non-ASCII sentence has a
    word; closing the gaps of scripts without spaces), goes text by text as
    `split_sentences`, `normalise_text` and `close_gaps` would.
    """

    lang: str
    cleaner: Cleaner

    @property
    def continua(self) -> bool:
        return primary_language(self.lang) in SCRIPTIO_CONTINUA_LANGS

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
        if not joined.isascii():
            # The break characters never compose, so this is NFC of each sentence.
            joined = unicodedata.normalize("NFC", joined)
        frame = self._normalised(joined, split)
        sentences = frame["text"].to_list()
        keep = frame["ascii_word"].to_numpy()
        unsure = np.flatnonzero(~keep).tolist()
        if unsure:
            for index in unsure:
                keep[index] = _HAS_WORD.search(sentences[index]) is not None
            empty += len(keep) - int(keep.sum())
            frame = frame.filter(pl.Series(keep))
            sentences = list(compress(sentences, keep))
        chars = frame["chars"].to_list()
        if self.continua:
            sentences = [close_gaps(sentence) for sentence in sentences]
            tokens = [sentence.count(" ") + 1 for sentence in sentences]
        else:
            tokens = frame["tokens"].to_list()
        items = frame["item"].to_numpy().astype(np.int64)
        return SentenceColumns(sentences, text_key_array(sentences), chars, tokens, items, empty)

    def _marked(self, joined: str) -> str:
        """`mark_sentence_ends` of each text of `joined`: by polars where the language's rule
        has a bulk form, by Python's regex in paragraphs that need it (and all others)."""
        ends = bulk_sentence_ends(self.lang)
        if ends is None:
            return mark_sentence_ends(joined, self.lang)
        text = pl.col("text")
        frame = pl.DataFrame({"text": pl.Series([joined]).str.split(PARAGRAPH_BREAK)})
        frame = frame.explode("text").with_columns(
            text.str.replace_all(ends.candidate, "${1}" + SENTENCE_BREAK)
        )
        deferred: list[int] = []
        if ends.defer is not None:
            deferred = frame.select(text.str.contains(ends.defer).arg_true())["text"].to_list()
        if ends.lower is not None:
            frame = frame.with_columns(text.str.replace_all(ends.lower, " ${1}"))
        if ends.abbreviation is not None:
            frame = frame.with_columns(text.str.replace_all(ends.abbreviation, "${1}.${2} "))
        marked = frame["text"]
        if deferred:
            paragraphs = joined.split(PARAGRAPH_BREAK)
            redone = [mark_sentence_ends(paragraphs[index], self.lang) for index in deferred]
            marked = marked.scatter(deferred, redone)
        return str(marked.str.join(PARAGRAPH_BREAK).item())

    @staticmethod
    def _normalised(joined: str, split: bool) -> pl.DataFrame:
        """The texts of `joined` (cut at the breaks; blank sentences of split texts left
        out) with white space normalised, their lengths, and whether they hold an ASCII
        letter or digit (and so surely a word)."""
        text = pl.col("text")
        frame = pl.DataFrame({"text": pl.Series([joined]).str.split(PARAGRAPH_BREAK)})
        frame = frame.explode("text").with_row_index("item")
        if split:
            frame = frame.with_columns(text.str.split(SENTENCE_BREAK)).explode("text")
        frame = frame.with_columns(
            text.str.replace_all(_WHITE_SPACE_TO_NORMALISE, " ").str.strip_chars(" ")
        )
        if split:
            frame = frame.filter(text != "")
        # Counted once: polars does not share the count between the two columns that use it.
        spaces = frame["text"].str.count_matches(" ", literal=True)
        return frame.with_columns(
            chars=text.str.len_chars() - spaces,
            tokens=spaces + 1,
            ascii_word=text.str.contains(_ASCII_WORD),
        )

    def columns_text_by_text(self, texts: list[str], split: bool) -> SentenceColumns:
        """`columns` for already cleaned texts, one text and one sentence at a time."""
        sentences: list[str] = []
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
                sentence = normalise_text(piece)
                if self.continua:
                    sentence = close_gaps(sentence)
                if not _HAS_WORD.search(sentence):
                    empty += 1
                    continue
                sentences.append(sentence)
                items.append(item)
        # char_length, for a normalised sentence (single spaces): cheaper this way.
        chars = [len(sentence) - sentence.count(" ") for sentence in sentences]
        tokens = [token_length(sentence) for sentence in sentences]
        keys = np.fromiter(map(text_key, sentences), dtype=np.int64, count=len(sentences))
        return SentenceColumns(sentences, keys, chars, tokens, np.array(items, np.int64), empty)


class _Pipeline:
    """Turns source texts into pool rows, counting what it drops."""

    def __init__(self, cfg: IngestConfig, store: Store) -> None:
        self.cfg = cfg
        self.store = store
        self.seen = KeySet()
        # A genre's salt XOR a sentence's key: one set of keys serves all genres.
        self.genre_salts: dict[str, int] = {}
        self.splitter = SentenceSplitter(cfg.lang, Cleaner.build(cfg.clean, cfg.strip))
        self.lang = cfg.lang
        self.char_unit = length_unit(cfg.lang) == "chars"
        self.genre_regex = _compile_genre_regex(cfg.genre_from)
        self.genre_map = dict(cfg.genre_map)
        self.known_genres = set(cfg.known_genres)
        self.counts: Counter[str] = Counter()
        self.by_genre: Counter[str] = Counter()
        self.warnings: list[str] = []
        self._checked_genres: set[str] = set()

    def rows(self, path: Path, source_id: int, batch: list[SourceText]) -> list[SentenceRow]:
        genres = [self._genre(path, item) for item in batch]
        # Readers yield texts to split (txt) or whole sentences, never both; runs of each
        # go to the splitter apart all the same.
        rows: list[SentenceRow] = []
        salted: list[npt.NDArray[np.int64]] = []
        start = 0
        for whole, run in groupby(batch, key=lambda item: item.sentence):
            texts = [item.text for item in run]
            columns = self.splitter.columns(texts, split=not whole)
            run_genres = genres[start : start + len(texts)]
            rows += self._column_rows(source_id, run_genres, columns)
            salted.append(self._salted_keys(run_genres, columns))
            self.counts["empty_after_cleaning"] += columns.empty
            start += len(texts)
        self.counts["texts"] += len(batch)
        self.counts["sentences"] += len(rows)
        return self._new_only(rows, np.concatenate(salted))

    def _column_rows(
        self, source_id: int, genres: list[str], columns: SentenceColumns
    ) -> list[SentenceRow]:
        count = len(columns.texts)
        if len(set(genres)) == 1:
            genre_of: Iterable[str] = repeat(genres[0], count)
            self.by_genre[genres[0]] += count
        else:
            genre_of = [genres[item] for item in columns.items.tolist()]
            self.by_genre.update(genre_of)
        lengths = columns.chars if self.char_unit else columns.tokens
        return list(
            zip(repeat(source_id, count), genre_of, repeat(self.lang, count), columns.texts,
                columns.keys.tolist(), columns.chars, columns.tokens, lengths, strict=True)
        )  # fmt: skip

    def _salted_keys(self, genres: list[str], columns: SentenceColumns) -> npt.NDArray[np.int64]:
        """Each sentence's key XOR its genre's salt: one set of keys serves all genres."""
        salts = np.array([self.genre_salts[genre] for genre in genres], dtype=np.int64)
        return columns.keys ^ salts[columns.items]

    def _new_only(
        self, rows: list[SentenceRow], salted: npt.NDArray[np.int64]
    ) -> list[SentenceRow]:
        """The rows whose (genre, text) is neither in the pool nor earlier in this run."""
        if not rows:
            return rows
        fresh = self.seen.add(salted)
        if fresh.all():
            return rows
        return list(compress(rows, fresh.tolist()))

    def _genre(self, path: Path, item: SourceText) -> str:
        genre = item.genre
        if genre is None and self.genre_regex is not None:
            genre = _match_genre(self.genre_regex, item.ids)
        genre = self.genre_map.get(genre, genre) if genre is not None else self.cfg.genre
        if genre is None:
            where = f" (ids: {', '.join(i for i in item.ids if i)})" if item.ids else ""
            raise InputError(
                path,
                f"a text has no genre{where}; give --genre, or --genre-field / --genre-from "
                "that matches every record",
            )
        if genre not in self._checked_genres:
            self.check_genre(genre)
        return genre

    def check_genre(self, genre: str) -> None:
        """Refuse a genre that cannot be part of an ID; warn of (or refuse) an unknown one;
        load its pool's keys for deduplication."""
        self._checked_genres.add(genre)
        salt = text_key(f"genre\x00{genre}")
        self.genre_salts[genre] = salt
        self.seen.add(np.fromiter((k ^ salt for k in pool_keys(self.store, genre)), np.int64))
        if not _GENRE.match(genre):
            raise ConfigError(
                f"genre {genre!r} cannot be part of premise IDs; use letters, digits, "
                "'_', '.' and '-' (map it with --genre-map)"
            )
        if self.known_genres and genre not in self.known_genres:
            message = (
                f"genre {genre!r} is not among the preset's genres "
                f"({', '.join(sorted(self.known_genres))})"
            )
            if self.cfg.strict:
                raise ConfigError(f"{message}; fix the genre or drop --strict")
            self.warnings.append(message)


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
    if cfg.format is SourceFormat.TXT:
        return read_txt(path, cfg.paragraph.value, progress)
    if cfg.format is SourceFormat.JSONL:
        return read_jsonl(path, cfg.field, cfg.genre_field, progress)
    if cfg.format is SourceFormat.TSV:
        return read_tsv(path, cfg.field, cfg.genre_field, progress)
    return read_conllu(path, progress)


def run(
    store: Store,
    cfg: IngestConfig,
    progress: ProgressCallback | None = None,
) -> IngestResult:
    """Ingest every file of `cfg.paths` in one transaction; nothing is written on error.

    `progress` is called with the bytes read so far over all files.
    """
    for path in cfg.paths:
        if not path.is_file():
            raise InputError(path, "no such file; check the path")
    if cfg.format is SourceFormat.CONLLU and cfg.genre is None and cfg.genre_from is None:
        raise ConfigError("give --genre, or --genre-from REGEX over the sent_id / newdoc id")
    if cfg.format in (SourceFormat.JSONL, SourceFormat.TSV) and not (cfg.genre or cfg.genre_field):
        raise ConfigError("give --genre, or --genre-field naming each record's genre")
    if cfg.format is SourceFormat.TXT and cfg.genre is None:
        raise ConfigError("give the genre of these texts with --genre")
    digests = [file_sha256(path) for path in cfg.paths]
    pipeline = _Pipeline(cfg, store)
    added = 0
    done_before = 0
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of short-lived tuples and no cycles (see import_corpus)
    try:
        with store.recorded_run("ingest", cfg) as run:
            run_id = run.id
            if cfg.genre is not None:
                pipeline.check_genre(cfg.genre)
            for path, digest in zip(cfg.paths, digests, strict=True):
                source_id = store.source_id("text", str(path), digest, cfg.genre, cfg.lang, run_id)
                file_progress = None
                if progress is not None:
                    offset = done_before

                    def file_progress(done: int, offset: int = offset) -> None:
                        progress(offset + done)

                pending: list[SentenceRow] = []
                for batch in chunks(_texts(cfg, path, file_progress), _TEXTS_PER_BATCH):
                    pending += pipeline.rows(path, source_id, batch)
                    if len(pending) >= _ROWS_PER_WRITE:
                        store.add_sentences(pending, run_id)
                        added += len(pending)
                        pending = []
                store.add_sentences(pending, run_id)
                added += len(pending)
                done_before += path.stat().st_size
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
    finally:
        if gc_was_enabled:
            gc.enable()
    return IngestResult(
        run_id=run_id,
        signature=run.signature,
        by_genre=dict(sorted(pipeline.by_genre.items())),
        warnings=pipeline.warnings,
        **counts,
    )
