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
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from nlibuild.cleaning import Cleaner
from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.sources import SourceText, read_conllu, read_jsonl, read_tsv, read_txt
from nlibuild.formats.tabular import ProgressCallback, chunks, file_sha256
from nlibuild.keyset import KeySet
from nlibuild.lang import (
    SCRIPTIO_CONTINUA_LANGS,
    close_gaps,
    length_unit,
    normalise_text,
    primary_language,
    split_sentences,
    text_key,
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


class _Pipeline:
    """Turns source texts into pool rows, counting what it drops."""

    def __init__(self, cfg: IngestConfig, store: Store) -> None:
        self.cfg = cfg
        self.store = store
        self.seen = KeySet()
        # A genre's salt XOR a sentence's key: one set of keys serves all genres.
        self.genre_salts: dict[str, int] = {}
        self.cleaner = Cleaner.build(cfg.clean, cfg.strip)
        self.lang = cfg.lang
        self.char_unit = length_unit(cfg.lang) == "chars"
        # Lines of a paragraph are one text: joined without a space where words have none.
        self.line_joiner = "" if primary_language(cfg.lang) in SCRIPTIO_CONTINUA_LANGS else " "
        self.genre_regex = _compile_genre_regex(cfg.genre_from)
        self.genre_map = dict(cfg.genre_map)
        self.known_genres = set(cfg.known_genres)
        self.counts: Counter[str] = Counter()
        self.by_genre: Counter[str] = Counter()
        self.warnings: list[str] = []
        self._checked_genres: set[str] = set()

    def rows(self, path: Path, source_id: int, batch: list[SourceText]) -> list[SentenceRow]:
        rows: list[SentenceRow] = []
        lang = self.lang
        char_unit = self.char_unit
        clean = self.cleaner.clean if self.cleaner.rules else None
        joiner = self.line_joiner
        continua = joiner == ""
        empty = 0
        for item in batch:
            genre = self._genre(path, item)
            text = clean(item.text) if clean is not None else item.text
            if item.sentence:
                pieces = [text]
            else:
                if "\n" in text:
                    text = joiner.join(text.split("\n"))
                pieces = split_sentences(text, lang)
                if not pieces:
                    empty += 1
            for piece in pieces:
                sentence = normalise_text(piece)
                if continua:
                    sentence = close_gaps(sentence)
                if not _HAS_WORD.search(sentence):
                    empty += 1
                    continue
                # char_length, for a normalised sentence (single spaces): cheaper this way.
                chars = len(sentence) - sentence.count(" ")
                tokens = token_length(sentence)
                rows.append(
                    (source_id, genre, lang, sentence, text_key(sentence), chars, tokens,
                     chars if char_unit else tokens)
                )  # fmt: skip
        self.counts["texts"] += len(batch)
        self.counts["empty_after_cleaning"] += empty
        self.counts["sentences"] += len(rows)
        self.by_genre.update(row[1] for row in rows)
        return self._new_only(rows)

    def _new_only(self, rows: list[SentenceRow]) -> list[SentenceRow]:
        """The rows whose (genre, text) is neither in the pool nor earlier in this run."""
        if not rows:
            return rows
        salts = self.genre_salts
        salted = np.fromiter(
            (row[4] ^ salts[row[1]] for row in rows), dtype=np.int64, count=len(rows)
        )
        fresh = self.seen.add(salted)
        if fresh.all():
            return rows
        return [row for row, keep in zip(rows, fresh.tolist(), strict=True) if keep]

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
