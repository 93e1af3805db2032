"""`nlibuild import`: load a released NLI corpus into the store.

Premises are grouped by the corpus's own premise ID (promptID, captionID, prem_id) or, when
it has none, by identical text within a genre. Premises and pairs without an ID get one
derived from their content (`content_ids`), so a file gives the same store whatever the order
of its lines; content already stored keeps its ID. Every individual label becomes a vote: the
first is the author's (SNLI/MNLI convention: `annotator_labels[0]` is the writer's label),
the others are validators'; a reader whose file has no author's label (a table read with
`--columns author=-`, ChaosNLI's crowd labels; one of one vote a row, `vote=COLUMN`,
LiveNLI's) gives None first, and every vote is then a validator's. Anonymous annotators
get stable per-corpus IDs (`<corpus>:author`, `<corpus>:v1`..), so re-importing a file
finds the same people. The
released gold label is kept as gold method `released`, for comparison with nlibuild's own
aggregation.

The whole import is one transaction. Importing the same file twice adds nothing; an item
whose ID is already in the store with different content is an error naming both. A big
import (a bulk load, see `BULK_BYTES_PER_STORED_PAIR`) has its foreign keys checked once
before it commits rather than row by row.
"""

from __future__ import annotations

import gc
import os
import queue
import re
import subprocess
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import chain
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple, cast

import orjson

from nlibuild.core.gc_pause import paused_gc
from nlibuild.core.progress import reading
from nlibuild.core.registry import IMPORT
from nlibuild.core.signature import file_sha256
from nlibuild.core.stage import Stage, StoreFacts
from nlibuild.errors import ConflictError, InputError, NlibuildError
from nlibuild.formats import content_ids
from nlibuild.formats.column_mapping import unmapped_label_hint
from nlibuild.formats.corpora import corpus_format_for
from nlibuild.formats.corpora.base import ReadSettings
from nlibuild.formats.corpora.table import unmapped_columns
from nlibuild.formats.input_files import NUL_IN_TEXT, require_regular_file
from nlibuild.formats.tabular import (
    ProgressCallback,
    SourcePair,
    SourceTranslation,
    chunks,
)
from nlibuild.labelling.labels import (
    RELEASED,
    LabelNormaliser,
    UnknownLabel,
    check_label_targets,
    unknown_label_hint,
)
from nlibuild.models import (
    NLI_LABELS,
    NO_GOLD,
    ImportConfig,
    ImportFormat,
    ImportResult,
)
from nlibuild.options import named_table
from nlibuild.queries.pairs import (
    StoredPair,
    pair_keys_of_premises,
    premise_ids_of_pairs,
    stored_pairs,
)
from nlibuild.queries.premises import all_premises, premises_by_id
from nlibuild.queries.translations import human_translations_of
from nlibuild.render import counted, run_note
from nlibuild.store import RUN_STAMPED, PremiseRow, Store, TranslationRow
from nlibuild.text.lang import text_length

CHUNK_SIZE = 2000
"""Lines resolved (and rows sent to the writer) together: enough to amortise the per-chunk
lookups, few enough that a chunk's records are still in the CPU caches when its rows are
built (chunks of 20,000 made the reader about 15% slower on a million pairs)."""

Sink = Callable[[str, list[Any], int], None]
"""Where resolved rows go, as one flat list of `width`-wide rows (`Store.insert_flat`'s
arguments): straight into the store, or down the pipe to the writing process. Flat, because
the importer's millions of vote rows then never exist as tuples."""


class _Labels(NamedTuple):
    """A pair's canonical votes (author first), released gold, and the gold's vote count,
    with what the rows of every pair that has these labels take from them."""

    votes: tuple[str, ...]
    gold: str | None
    top: int
    author: bool  # False: the author's label is missing, every vote is a validator's
    author_label: str | None
    positions: tuple[int, ...]  # of the votes: 0 is the author's, validators from 1
    counts: tuple[int, int, int, int, str | None] | None  # a pair_labels row after pair_pk
    gold_row: tuple[str, str, int, int] | None  # a gold_rows row after pair_pk


def _labels(votes: tuple[str, ...], gold: str | None, top: int, author: bool) -> _Labels:
    """`_Labels` with the row parts worked out once (a corpus has few label combinations)."""
    author_label = votes[0] if votes and author else None
    n_votes = len(votes)
    start = 0 if author else 1
    counts = None
    if votes:  # pair_labels (schema 9) is known here without reading the votes back
        entailment, neutral, contradiction = (votes.count(label) for label in NLI_LABELS)
        counts = (n_votes, entailment, neutral, contradiction, author_label)
    gold_row = (RELEASED, gold, n_votes, top) if gold is not None else None
    return _Labels(
        votes, gold, top, author, author_label, tuple(range(start, start + n_votes)), counts,
        gold_row,
    )  # fmt: skip


class _Content(NamedTuple):
    """What makes two versions of a pair the same pair (compared on re-import)."""

    premise_id: str
    hypothesis: str
    lang: str
    protocol: str | None
    level: str | None
    author_label: str | None
    extra_json: str | None
    released_gold: str | None
    labels: tuple[str, ...]
    annotators: tuple[str, ...]


def corpus_name(path: Path) -> str:
    """A corpus name for anonymous annotator IDs: the file stem, in safe characters."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", path.stem) or "corpus"


def _extra_json(extra: dict[str, Any] | None) -> str | None:
    return orjson.dumps(extra).decode() if extra else None


def _reader(
    cfg: ImportConfig,
    lang: str | None,
    progress: ProgressCallback | None,
    warn: Callable[[str], None] | None = None,
) -> Iterator[SourcePair | SourceTranslation]:
    settings = ReadSettings(lang, progress, cfg.columns, cfg.label_values, warn)
    return corpus_format_for(cfg.format).read(cfg.path, settings)


def _holds_nul(path: Path, record: SourcePair) -> InputError:
    text = "premise" if "\x00" in record.premise else "hypothesis"
    return InputError(path, f"the {text} {NUL_IN_TEXT}", record.line)


_UNKEEPABLE_IN_ID = re.compile("[\x00\ud800-\udfff]").search
"""Finds what no ID may hold: a NUL, which SQLite's JSON functions (the importer's look-ups
of stored IDs) stop at, so that an ID holding one is stored whole but never found again and
importing its file again fails on the UNIQUE index; and a lone surrogate, which UTF-8 (the
store's text) cannot encode."""


def _unkeepable_id(path: Path, what: str, value: str, line: int | None) -> InputError:
    char = "a NUL character (U+0000)" if "\x00" in value else "a lone surrogate"
    return InputError(
        path,
        f"{what} {value!a} holds {char}, which no ID may hold; remove it from the ID",
        line,
    )


def _bad_key(path: Path, record: SourcePair) -> InputError:
    premise_key = record.premise_key
    if premise_key is not None and _UNKEEPABLE_IN_ID(premise_key):
        return _unkeepable_id(path, "premise ID", premise_key, record.line)
    return _unkeepable_id(path, "pair ID", cast(str, record.pair_key), record.line)


class _Importer:
    """Resolves IDs and conflicts for one import, chunk by chunk, inside its transaction."""

    def __init__(
        self, store: Store, sink: Sink, cfg: ImportConfig, run_id: int, store_lang: str
    ) -> None:
        # Reads go to `store` and see it as it was before this import: everything this
        # import writes is also kept (or hashed) in memory here. Writes go to `sink`.
        self.store = store
        self.sink = sink
        self.cfg = cfg
        self.path = cfg.path
        self.run_id = run_id
        self.default_lang = cfg.lang or store_lang
        extra_labels = [e for e in store.meta().get("extra_labels", "").split(",") if e]
        self.labels = LabelNormaliser([*extra_labels, *cfg.extra_labels], cfg.label_order)
        self.corpus = cfg.corpus or corpus_name(cfg.path)
        self.unknown_labels: dict[str, int] = {}
        # premise key (corpus ID, or (genre, text) when the corpus has none) -> stored premise
        self.premises: dict[Any, PremiseRow] = {}
        self.premise_first_line: dict[str, int] = {}
        # Everything this import adds is also kept here, so a store that held no premises
        # (hence no pairs) when the import began has nothing to look up.
        self.store_was_empty = store.count("premises") == 0
        self.text_index_loaded = self.store_was_empty
        # IDs of the store's premises, loaded with the text index: a derived ID must not
        # take one of them (see content_ids). This import's own are in premise_first_line.
        self.stored_premise_ids: set[str] = set()
        # pair ID -> line of its first occurrence, for pairs of this file
        self.pair_lines: dict[str, int] = {}
        # (pair ID, line of its first occurrence, line of the repeat)
        self.repeats: list[tuple[str, int, int]] = []
        # pair ID -> premise ID of this file's pairs, for multilingual files' translation rows
        self.premise_of_pair: dict[str, str] | None = (
            {} if corpus_format_for(cfg.format).multilingual else None
        )
        self._label_cache: dict[tuple[Any, ...], _Labels] = {}
        self._anonymous_ids: dict[tuple[int, int], list[str]] = {}
        # (premise pk, label initial, hypothesis) -> pair ID, for pairs without an ID
        self.content_ids: dict[tuple[int, str, str], str] = {}
        self.pair_ids_taken: set[str] = set()  # the values of content_ids
        self.loaded_premises: set[int] = set()
        self.annotators: dict[str, int] = {}
        self.next_pair_pk = store.next_pk("pairs")
        self.next_premise_pk = store.next_pk("premises")
        self.next_annotator_pk = store.next_pk("annotators")
        self.pending_translations: list[SourceTranslation] = []
        self.translations: dict[tuple[str, str], tuple[str, int]] = {}
        self.lines = 0
        self.counts: Counter[str] = Counter()
        self.warnings: list[str] = []  # the reader's, printed as `Warning:` lines

    # --- labels ---------------------------------------------------------------------

    def _normalise(self, record: SourcePair) -> _Labels | None:
        """Canonical votes, released gold and its vote count; None after unknown values.

        Cached by the raw values: a corpus uses few distinct label combinations.
        """
        key = (tuple(record.labels), record.gold)
        cached = self._label_cache.get(key)
        if cached is not None:
            return cached
        votes: list[str] = []
        unknown = False
        author = True
        for index, raw in enumerate(record.labels):
            try:
                label = self.labels.vote(raw)
            except UnknownLabel as exc:
                self.unknown_labels.setdefault(exc.value, record.line)
                unknown = True
                continue
            if label is not None:
                votes.append(label)
            elif index == 0:
                author = False
        try:
            gold = self.labels.gold(record.gold)
        except UnknownLabel as exc:
            self.unknown_labels.setdefault(exc.value, record.line)
            return None
        if unknown:
            return None
        if gold is None or gold == NO_GOLD:
            top = max((votes.count(label) for label in NLI_LABELS), default=0)
        else:
            top = votes.count(gold)
        result = _labels(tuple(votes), gold, top, author or not votes)
        self._label_cache[key] = result
        return result

    def _label_of_wrong_type(self, pairs: list[SourcePair]) -> InputError | None:
        """The error for the first label of `pairs` that is neither a string nor an integer
        (nor absent), or None when there is none."""
        for record in pairs:
            places = [("a vote", raw) for raw in record.labels] + [("the gold label", record.gold)]
            for place, raw in places:
                if raw is not None and not isinstance(raw, (str, int)):
                    return InputError(
                        self.path,
                        f"a label must be a string or an integer, found {raw!r} as {place}; "
                        "write each label as a name (entailment), an initial (e) or a number",
                        record.line,
                    )
        return None

    def _write_rows(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """Send rows given as tuples (the tables with few rows) to the sink, flattened."""
        if rows:
            self.sink(table, list(chain.from_iterable(rows)), len(rows[0]))

    # --- annotators -----------------------------------------------------------------

    def _annotator_pks(self, ids: list[str], anonymous: bool) -> list[int]:
        """Keys of the annotators `ids`, adding those neither the store nor this import knows."""
        self._require_text_ids(ids)
        known = self.annotators
        missing = [i for i in dict.fromkeys(ids) if i not in known]
        known.update(self.store.annotator_pks(missing))
        rows = []
        for annotator_id in missing:
            if annotator_id in known:
                continue
            known[annotator_id] = self.next_annotator_pk
            note = f"anonymous annotator of {self.corpus}" if anonymous else None
            rows.append((self.next_annotator_pk, annotator_id, anonymous, note))
            self.next_annotator_pk += 1
        self._write_rows("annotators", rows)
        self.counts["annotators_added"] += len(rows)
        return [known[i] for i in ids]

    def _require_text_ids(self, ids: list[Any], line: int | None = None) -> None:
        bad = next((i for i in ids if type(i) is not str or not i.strip()), None)
        if bad is not None:
            raise InputError(self.path, f"annotator ID {bad!r} must be non-empty text", line)
        unkeepable = next((i for i in ids if _UNKEEPABLE_IN_ID(i)), None)
        if unkeepable is not None:
            raise _unkeepable_id(self.path, "annotator ID", unkeepable, line)

    def _vote_annotators(self, record: SourcePair, n_votes: int, author: bool = True) -> list[str]:
        if record.annotators is not None:
            ids = record.annotators
            self._require_text_ids(ids, record.line)
            if len(ids) != n_votes:  # drop the annotators of empty labels
                ids = [a for a, raw in zip(ids, record.labels, strict=True) if raw]
            if len(set(ids)) != len(ids):
                repeated = next(a for a in ids if ids.count(a) > 1)
                raise InputError(
                    self.path,
                    f"annotator {repeated} labels pair {record.pair_key or ''} twice; "
                    "each annotator gives one label per pair",
                    record.line,
                )
            return ids
        # Without the author's label the votes are the validators' v1, v2, ...
        offset = 0 if author else 1
        anonymous = self._anonymous_ids.get((n_votes, offset))
        if anonymous is None:
            slots = [
                f"{self.corpus}:author",
                *(f"{self.corpus}:v{i}" for i in range(1, n_votes + 1)),
            ]
            anonymous = self._anonymous_ids[(n_votes, offset)] = slots[offset : offset + n_votes]
        return anonymous

    # --- premises -------------------------------------------------------------------

    def _load_text_index(self) -> None:
        """ID-less corpora match premises by (genre, text): index the store's once.

        Of premises sharing a genre and text, the one whose ID was derived from them is
        found: a line without its premise's ID, in a file whose other lines name that
        premise, got a premise of its own (`_resolve_premises` keys the two apart), and
        importing the file again must find that one, or it adds the line's pair again
        (OCNLI) or finds it under another premise (MNLI, SNLI). Otherwise the first stored.
        """
        by_text: dict[tuple[str | None, str], PremiseRow] = {}
        for row in all_premises(self.store):
            key = (row.genre, row.text)
            held = by_text.get(key)
            if held is None or (
                content_ids.is_derived_premise_id(row.id, row.genre, row.text)
                and not content_ids.is_derived_premise_id(held.id, held.genre, held.text)
            ):
                by_text[key] = row
            self.stored_premise_ids.add(row.id)
        for key, row in by_text.items():
            self.premises.setdefault(key, row)
        self.text_index_loaded = True

    def _derived_premise_id(self, genre: str | None, text: str) -> str:
        """The ID of a premise the corpus gives none, from its genre and text: the same
        whatever the order of the file's lines (a premise already stored under other
        content was found by the text index before this is asked)."""
        return content_ids.premise_id(
            genre or self.corpus, genre, text, self.stored_premise_ids, self.premise_first_line
        )

    def _resolve_premises(self, records: list[SourcePair]) -> list[PremiseRow]:
        premises = self.premises
        if not self.store_was_empty:
            keyed = {r.premise_key for r in records if r.premise_key is not None}
            unseen = [k for k in keyed if k not in premises]
            if unseen:
                premises.update(premises_by_id(self.store, unseen))
            if not self.text_index_loaded and any(r.premise_key is None for r in records):
                self._load_text_index()
        default_genre = self.cfg.genre
        new_rows: list[PremiseRow] = []
        resolved: list[PremiseRow] = []
        for record in records:
            genre = record.genre or default_genre
            key: Any = record.premise_key
            if key is None:
                key = (genre, record.premise)
            row = premises.get(key)
            if row is None:
                row = premises[key] = self._new_premise(record, genre)
                new_rows.append(row)
            elif row.text != record.premise or row.genre != genre:
                self._premise_conflict(record, row, genre)
            resolved.append(row)
        if new_rows:
            self._write_rows("premises", new_rows)
            self.counts["premises_added"] += len(new_rows)
        return resolved

    def _new_premise(self, record: SourcePair, genre: str | None) -> PremiseRow:
        lang = record.lang or self.default_lang
        premise_id = record.premise_key or self._derived_premise_id(genre, record.premise)
        first = self.premise_first_line.get(premise_id)
        if first is not None:
            # A premise ID of the file that equals one derived for an ID-less line before it.
            raise ConflictError(
                f"{self.path}, line {record.line}: premise {premise_id} is already the ID of "
                f"the premise on line {first}; give every premise of the file an ID, or none"
            )
        row = PremiseRow(
            self.next_premise_pk,
            premise_id,
            genre,
            lang,
            record.premise,
            text_length(record.premise, lang),
            _extra_json(record.premise_extra),
        )
        self.next_premise_pk += 1
        self.premise_first_line[premise_id] = record.line
        return row

    def _premise_conflict(self, record: SourcePair, row: PremiseRow, genre: str | None) -> None:
        if row.text != record.premise:
            first = self.premise_first_line.get(row.id)
            where = f"line {first}" if first else "the store"
            raise ConflictError(
                f"{self.path}, line {record.line}: premise {row.id} has a different text "
                f"than on {where}; premises sharing an ID must have the same sentence1"
            )
        raise ConflictError(
            f"{self.path}, line {record.line}: premise {row.id} has genre {row.genre!r} "
            f"but this pair says {genre!r}; give pairs of one premise one genre"
        )

    # --- pairs ----------------------------------------------------------------------

    def _content_pair_ids(self, records: list[SourcePair], premises: list[PremiseRow],
                          id_labels: list[str | None]) -> list[str]:  # fmt: skip
        """IDs `<premise>-<label initial>.<digest>` for pairs of corpora without pair IDs.

        A pair is the same pair when premise, hypothesis and label initial are the same:
        such a pair already stored keeps its ID, whatever form an earlier version gave it
        (`<premise>-e1`), so re-importing finds it; a new one gets an ID derived from its
        hypothesis (`content_ids.pair_id`), the same whatever the order of the lines.
        """
        unseen = {p.pk for p in premises} - self.loaded_premises
        if unseen and not self.store_was_empty:
            self.loaded_premises |= unseen
            for premise_pk, pair_id, hypothesis in pair_keys_of_premises(self.store, unseen):
                initial = pair_id.rsplit("-", 1)[-1][:1]
                self.content_ids[(premise_pk, initial, hypothesis)] = pair_id
                self.pair_ids_taken.add(pair_id)
        ids = []
        for record, premise, id_label in zip(records, premises, id_labels, strict=True):
            initial = (id_label or "u")[0]
            key = (premise.pk, initial, record.hypothesis)
            known = self.content_ids.get(key)
            if known is None:
                known = content_ids.pair_id(
                    premise.id, initial, record.hypothesis, self.pair_ids_taken
                )
                self.content_ids[key] = known
                self.pair_ids_taken.add(known)
            ids.append(known)
        return ids

    def _content(
        self, record: SourcePair, premise_id: str, labels: _Labels, annotators: list[str]
    ) -> _Content:
        return _Content(
            premise_id, record.hypothesis, record.lang or self.default_lang, record.protocol,
            record.level, labels.votes[0] if labels.votes and labels.author else None,
            _extra_json(record.extra),
            labels.gold, labels.votes, tuple(annotators),
        )  # fmt: skip

    def add(self, records: list[SourcePair | SourceTranslation]) -> None:
        """Resolve and write one chunk of records (pairs, and translations kept for later)."""
        pairs: list[SourcePair] = []
        for record in records:
            if isinstance(record, SourceTranslation):
                self.pending_translations.append(record)
            else:
                # Every format's texts meet here. SQLite's text functions stop at a NUL, so
                # a text starting with one fails the store's non-empty CHECK as an internal
                # error, and one holding it elsewhere would be stored cut short to them.
                if "\x00" in record.premise or "\x00" in record.hypothesis:
                    raise _holds_nul(self.path, record)
                premise_key = record.premise_key
                pair_key = record.pair_key
                if (premise_key is not None and _UNKEEPABLE_IN_ID(premise_key)) or (
                    pair_key is not None and _UNKEEPABLE_IN_ID(pair_key)
                ):
                    raise _bad_key(self.path, record)
                pairs.append(record)
        self.lines += len(records)
        cache = self._label_cache  # looked up here: a method call a pair costs more
        try:
            normalised = [
                cache.get((tuple(record.labels), record.gold)) or self._normalise(record)
                for record in pairs
            ]
        except TypeError:
            # A label that is a list or an object cannot be a cache key. Looking for it
            # only once the lookup fails keeps the check off the path of a good file.
            bad = self._label_of_wrong_type(pairs)
            if bad is None:
                raise
            raise bad from None
        if self.unknown_labels or not pairs:
            return  # after an unknown label, keep scanning for others; nothing is written
        labels_of = cast(list[_Labels], normalised)
        # Votes read, stored or already stored: a table read to no vote at all is said
        # (`_unread_label_warnings`), a re-import of one with votes is not.
        self.counts["votes_read"] += sum(len(labels.votes) for labels in labels_of)
        premises = self._resolve_premises(pairs)
        keyed = [r.pair_key for r in pairs]
        if any(k is None for k in keyed):
            # The ID names the author's label; a corpus that ships only gold labels (XNLI,
            # myXNLI) gets the gold label's initial instead.
            id_labels = [labels.votes[0] if labels.votes else labels.gold for labels in labels_of]
            content_ids = self._content_pair_ids(pairs, premises, id_labels)
            pair_ids = [k if k is not None else c for k, c in zip(keyed, content_ids, strict=True)]
        else:
            pair_ids = cast(list[str], keyed)
        # pairs of earlier imports
        stored = {} if self.store_was_empty else stored_pairs(self.store, pair_ids)

        self._write_pairs(pairs, premises, pair_ids, labels_of, stored)

    def _write_pairs(
        self,
        pairs: list[SourcePair],
        premises: list[PremiseRow],
        pair_ids: list[str],
        labels_of: list[_Labels],
        stored: dict[str, StoredPair],
    ) -> None:
        """Write the rows of a chunk's new pairs: pairs, votes, pair_labels, released gold.

        The hot loop of an import: rows go into flat lists (votes into one list a column,
        interleaved at the end by slice assignment) so that no per-vote tuple is made.
        """
        default_lang = self.default_lang
        pair_lines = self.pair_lines
        known = self.annotators
        pair_pk = self.next_pair_pk
        pair_values: list[Any] = []
        vote_pair_pks: list[int] = []
        vote_annotator_pks: list[int] = []
        vote_positions: list[int] = []
        vote_labels: list[str] = []
        count_values: list[Any] = []
        gold_values: list[Any] = []
        for record, premise, pair_id, labels in zip(
            pairs, premises, pair_ids, labels_of, strict=True
        ):
            votes = labels.votes
            n_votes = len(votes)
            annotator_ids = record.annotators
            try:
                named_one_each = (
                    annotator_ids is not None
                    and len(annotator_ids) == n_votes
                    and len(set(annotator_ids)) == n_votes
                )
            except TypeError:  # an ID that is not text: _vote_annotators says so
                named_one_each = False
            if annotator_ids is None or not named_one_each:
                # anonymous, with empty labels dropped, or wrong: sorted out there
                annotator_ids = self._vote_annotators(record, n_votes, labels.author)
            first_line = pair_lines.get(pair_id)
            if first_line is not None:
                # Compared once the whole file is read (see _check_repeats): most files
                # have no repeats, and this way no pair pays for building its content.
                self.repeats.append((pair_id, first_line, record.line))
                continue
            if pair_id in stored:
                content = self._content(record, premise.id, labels, annotator_ids)
                self._compare_stored(record, pair_id, content, stored[pair_id])
                continue
            pair_lines[pair_id] = record.line
            if self.premise_of_pair is not None:
                self.premise_of_pair[pair_id] = premise.id
            if record.translations:
                self._collect_translations(record, premise.id, pair_id)
            try:
                annotator_pks = [known[a] for a in annotator_ids]
            except (KeyError, TypeError):  # someone new (or an ID that is not text)
                self._require_text_ids(annotator_ids, record.line)  # the error names the line
                annotator_pks = self._annotator_pks(annotator_ids, record.annotators is None)
            author_label = labels.author_label
            pair_values += (
                pair_pk, pair_id, premise.pk, record.hypothesis, record.lang or default_lang,
                record.protocol, record.level,
                annotator_pks[0] if author_label is not None else None, author_label,
                _extra_json(record.extra),
            )  # fmt: skip
            if votes:
                vote_pair_pks += [pair_pk] * n_votes
                vote_annotator_pks += annotator_pks
                vote_positions += labels.positions
                vote_labels += votes
                count_values.append(pair_pk)
                count_values += labels.counts  # type: ignore[arg-type]  # set when votes are
            if labels.gold_row is not None:
                gold_values.append(pair_pk)
                gold_values += labels.gold_row
            pair_pk += 1
        added = pair_pk - self.next_pair_pk
        self.next_pair_pk = pair_pk
        vote_values: list[Any] = [None] * (4 * len(vote_labels))
        vote_values[0::4] = vote_pair_pks
        vote_values[1::4] = vote_annotator_pks
        vote_values[2::4] = vote_positions
        vote_values[3::4] = vote_labels
        for table, values, width in (
            ("pairs", pair_values, 10),
            ("votes", vote_values, 4),
            ("pair_labels", count_values, 6),
            ("gold_rows", gold_values, 5),
        ):
            if values:
                self.sink(table, values, width)
        self.counts["pairs_added"] += added
        self.counts["votes_added"] += len(vote_labels)

    def _compare_stored(
        self, record: SourcePair, pair_id: str, content: _Content, stored: StoredPair
    ) -> None:
        """A pair ID an earlier import stored: identical content is a no-op, else an error."""
        before = _Content._make(stored[1:])
        if before == content:
            self.counts["pairs_unchanged"] += 1
            return
        if before._replace(annotators=content.annotators) == content and all(
            ":" in a for a in before.annotators
        ):
            # Same labels under other anonymous IDs: the file was renamed since.
            stored_corpus = before.annotators[0].rsplit(":", 1)[0]
            what_next = f"it was imported as corpus {stored_corpus}: pass --corpus {stored_corpus}"
        else:
            what_next = "import into a new store (--db) or give the pair a new ID"
        raise ConflictError(
            f"{self.path}, line {record.line}: pair {pair_id} is already in the store with "
            f"different {_difference(before, content)}; {what_next}"
        )

    def _check_repeats(self) -> None:
        """Pair IDs given twice in the file: identical content is a no-op, else an error.

        One more pass over the file resolves just the lines involved, in file order, so the
        first conflicting repeat is the one reported.
        """
        if not self.repeats:
            return
        # A repeat always names the pair's first line, which is never itself a repeat.
        first_of = {line: (first, pair_id) for pair_id, first, line in self.repeats}
        wanted = set(first_of) | {first for first, _ in first_of.values()}
        firsts: dict[int, _Content] = {}
        for record in _reader(self.cfg, self.cfg.lang, None):
            if record.line not in wanted or not isinstance(record, SourcePair):
                continue
            content = self._resolved_content(record)
            if record.line not in first_of:
                firsts[record.line] = content
                continue
            first, pair_id = first_of[record.line]
            before = firsts[first]
            if before != content:
                raise ConflictError(
                    f"{self.path}, line {record.line}: pair {pair_id} is already in this file "
                    f"on line {first} with different {_difference(before, content)}; "
                    f"{self._repeat_advice()}"
                )
        self.counts["pairs_unchanged"] += len(self.repeats)

    def _repeat_advice(self) -> str:
        """What to do about a pair ID the file repeats with other content: in a table, the
        repeats are most often one vote a row (LiveNLI), which `vote=COLUMN` reads."""
        if self.cfg.format == ImportFormat.TABLE and "vote" not in self.cfg.columns:
            return (
                "if the file holds one vote a row, name the vote's column: "
                "--columns vote=COLUMN (and annotator=COLUMN)"
            )
        return "give each pair one ID and remove the duplicate"

    def _resolved_content(self, record: SourcePair) -> _Content:
        """The content of a pair of this file, read again (its premise is resolved)."""
        labels = self._normalise(record)
        assert labels is not None
        genre = record.genre or self.cfg.genre
        key = record.premise_key if record.premise_key is not None else (genre, record.premise)
        premise = self.premises[key]
        annotators = self._vote_annotators(record, len(labels.votes), labels.author)
        return self._content(record, premise.id, labels, annotators)

    # --- translations ---------------------------------------------------------------

    def _collect_translations(self, record: SourcePair, premise_id: str, pair_id: str) -> None:
        for lang, (premise, hypothesis) in (record.translations or {}).items():
            self._add_translation(f"p:{premise_id}", lang, premise, record.line)
            self._add_translation(f"h:{pair_id}", lang, hypothesis, record.line)

    def _add_translation(self, unit_id: str, lang: str, text: str, line: int) -> None:
        if not text.strip():
            raise InputError(
                self.path, f"empty {lang} translation of {unit_id}; give it text", line
            )
        first = self.translations.setdefault((unit_id, lang), (text, line))
        if first[0] != text:
            # XNLI translated each premise once; two texts for it is a fault in the file.
            raise ConflictError(
                f"{self.path}, line {line}: {lang} translation of {unit_id} differs from the one "
                f"on line {first[1]}; keep one translation per unit"
            )

    def finish(self) -> None:
        """Raise for unknown labels; write translations (resolved after all pairs)."""
        if self.unknown_labels:
            found = ", ".join(
                f"{value!r} (first on line {line})" for value, line in self.unknown_labels.items()
            )
            hint = unknown_label_hint(self.unknown_labels, self.labels.label_order is not None)
            if self.cfg.label_values:  # `--labels` given: it is where a value gets its label
                hint = f"add them to --labels (VALUE=LABEL, VALUE=- for none); or {hint}"
            raise InputError(self.path, f"unknown label value(s) {found}; {hint}")
        self._check_repeats()
        if self.pending_translations:
            premise_of = dict(self.premise_of_pair or {})
            earlier = {t.pair_key for t in self.pending_translations} - set(premise_of)
            premise_of.update(premise_ids_of_pairs(self.store, earlier))
            for translation in self.pending_translations:
                premise_id = premise_of.get(translation.pair_key)
                if premise_id is None:
                    raise InputError(
                        self.path,
                        f"this {translation.lang} row translates pairID {translation.pair_key}, "
                        "which has no row in the pair language; add it or remove this row",
                        translation.line,
                    )
                self._add_translation(
                    f"p:{premise_id}", translation.lang, translation.premise, translation.line
                )
                self._add_translation(
                    f"h:{translation.pair_key}",
                    translation.lang,
                    translation.hypothesis,
                    translation.line,
                )
        if not self.translations:
            return
        stored = human_translations_of(self.store, self.translations)
        rows = []
        for (unit_id, lang), (text, line) in self.translations.items():
            before = stored.get((unit_id, lang))
            if before is None:
                rows.append(TranslationRow(unit_id, lang, "human", text, None))
            elif before != text:
                raise ConflictError(
                    f"{self.path}, line {line}: the store already has a different {lang} "
                    f"translation of {unit_id}; import into a new store (--db) to keep both"
                )
        self._write_rows("translations", rows)
        self.counts["translations_added"] += len(rows)


def _difference(before: _Content, after: _Content) -> str:
    names = [name for name, a, b in zip(_Content._fields, before, after, strict=True) if a != b]
    return ", ".join(names)


_COUNTS = ("premises_added", "pairs_added", "pairs_unchanged", "votes_added", "translations_added")

PARALLEL_MIN_BYTES = 16 << 20
"""Files at least this big are parsed in a second process while this one writes."""

BULK_BYTES_PER_STORED_PAIR = 512
"""An import is a bulk load when its file has at least this many bytes per pair already
stored: then the pairs it brings (a pair line takes 400 to 1,200 bytes) outnumber about half
of those stored. A bulk load checks foreign keys once at the end, over whole tables, instead
of row by row; a parallel one also builds the pair indexes again at the end instead of
updating them row by row. Both pay for themselves only when the new rows are that many."""

_WRITTEN_TABLES = (
    "annotators", "premises", "pairs", "votes", "pair_labels", "gold_rows", "translations",
    "sources", "splits",
)  # fmt: skip
"""Every table an import writes rows to: those whose foreign keys a bulk load checks."""

_DEFERRED_INDEXES = ("premises_id", "pairs_id", "pairs_premise")
"""The indexes whose keys a corpus file brings in random order (premise and pair IDs, and premises
whose pairs are shuffled). The others grow at their end (their keys lead with a few
values and end in an increasing row key) and are cheaper kept up to date as rows come."""


def run(store: Store, cfg: ImportConfig, *, parallel: bool | None = None) -> ImportResult:
    """Import `cfg.path` into `store` in one transaction; nothing is written on error. A
    bar counts the bytes read on a terminal (`nlibuild.core.progress.reading`).

    With `parallel` (default: for files of `PARALLEL_MIN_BYTES` or more) a worker process
    reads and resolves the file while this process writes the rows it sends, so parsing and
    SQLite use both cores of a small machine. Both ways produce the same store.
    """
    require_regular_file(cfg.path)
    with reading([cfg.path], f"import {cfg.path.name}") as progress:
        return _import(store, cfg, progress, parallel)


def _import(
    store: Store, cfg: ImportConfig, progress: ProgressCallback | None, parallel: bool | None
) -> ImportResult:
    sha256 = file_sha256(cfg.path)  # cached: the run's signature takes it from there
    meta = store.meta()
    declared = [e for e in meta.get("extra_labels", "").split(",") if e]
    if cfg.label_values:  # a typo in a target is refused before the file is read
        check_label_targets(
            cfg.label_values, LabelNormaliser([*declared, *cfg.extra_labels], cfg.label_order)
        )
    size = cfg.path.stat().st_size
    if parallel is None:
        # The worker is handed its pipe by file descriptor (`_run_in_worker`): POSIX only.
        parallel = size >= PARALLEL_MIN_BYTES and os.name == "posix"
    bulk = size >= BULK_BYTES_PER_STORED_PAIR * store.count("pairs")
    checked_at_end = _WRITTEN_TABLES if bulk else ()
    with (
        paused_gc(),
        store.recorded_run(IMPORT, cfg, foreign_keys_checked_at_end=checked_at_end) as run,
    ):
        run_id = run.id
        lang = meta.get("lang", "en")
        if parallel:
            # The writer never looks rows up (the worker reads through its own
            # connection), so it can do without the indexes until the end.
            with store.deferred_indexes(_DEFERRED_INDEXES if bulk else ()):
                outcome = _run_in_worker(store, cfg, run_id, lang, progress)
        else:
            outcome = _resolve_and_write(
                store, _store_writer(store, run_id), cfg, run_id, lang, progress
            )
        if outcome.lines == 0:
            raise InputError(cfg.path, "the file holds no pairs; check the path and --format")
        added = [e for e in outcome.extra_labels if e not in declared]
        if added:
            store.set_meta("extra_labels", ",".join([*declared, *added]))
        store.add_source("corpus", str(cfg.path), sha256, cfg.genre, cfg.lang, run_id)
        counts = {"lines": outcome.lines} | {key: outcome.counts.get(key, 0) for key in _COUNTS}
        if cfg.split:
            # A released split (SNLI's dev file): the pairs this run added go there;
            # pairs already stored keep theirs (the output says how many were new).
            counts["split_assigned"] = store.assign_split_to_run(run_id, cfg.split.value)
        run.finish(counts)
    warnings = outcome.warnings + _unread_label_warnings(cfg, outcome.counts.get("votes_read", 0))
    return ImportResult(run_id=run_id, signature=run.signature, warnings=warnings, **counts)


def _unread_label_warnings(cfg: ImportConfig, votes_read: int) -> tuple[str, ...]:
    """A table import that read no vote while columns that look like labels went unread
    says so (issue 28: KLUE-NLI, its `author` and `label2`..`label5` unmapped, imported 0
    votes without a word, and `aggregate-labels` then found none)."""
    if votes_read or cfg.format is not ImportFormat.TABLE:
        return ()
    settings = ReadSettings(cfg.lang, None, cfg.columns, cfg.label_values)
    hint = unmapped_label_hint(unmapped_columns(cfg.path, settings))
    return (f"{cfg.path}: {hint}",) if hint else ()


class _Outcome(NamedTuple):
    lines: int
    counts: dict[str, int]
    extra_labels: tuple[str, ...]
    warnings: tuple[str, ...]


def _store_writer(store: Store, run_id: int) -> Sink:
    """A sink that writes rows straight into `store`, stamped with the run where due."""

    def write(table: str, values: list[Any], width: int) -> None:
        store.insert_flat(table, values, width, run_id if table in RUN_STAMPED else None)

    return write


def _resolve_and_write(
    store: Store,
    sink: Sink,
    cfg: ImportConfig,
    run_id: int,
    store_lang: str,
    progress: ProgressCallback | None,
) -> _Outcome:
    """Read the file chunk by chunk, resolve IDs and conflicts, and hand rows to `sink`."""
    importer = _Importer(store, sink, cfg, run_id, store_lang)
    for chunk in chunks(_reader(cfg, cfg.lang, progress, importer.warnings.append), CHUNK_SIZE):
        importer.add(chunk)
    importer.finish()
    return _Outcome(
        importer.lines,
        dict(importer.counts),
        importer.labels.extra_labels,
        tuple(importer.warnings),
    )


def _run_in_worker(
    store: Store,
    cfg: ImportConfig,
    run_id: int,
    store_lang: str,
    progress: ProgressCallback | None,
) -> _Outcome:
    """Write, in this process's transaction, the rows a worker process resolves.

    The worker reads the store through its own connection, so it sees the store as it was
    before this import; what the import itself adds it keeps in memory. The pipe between
    the two is bounded, so a fast reader waits for the writer instead of filling memory.

    The worker is a plain `python -c` child rather than a multiprocessing one: its first
    lines, before any import, tie its life to this process (`_WORKER_BOOT`), where
    multiprocessing's spawn would first unpickle and import the whole package with nothing
    to stop it outliving a parent killed meanwhile; and a bare pipe needs no semaphore, so
    no resource tracker process is started that could outlive the import either.
    """
    read_end, write_end = os.pipe()
    try:
        worker = subprocess.Popen(
            [sys.executable, "-c", _WORKER_BOOT, str(os.getpid()), str(write_end),
             orjson.dumps(sys.path).decode(), str(store.path), cfg.model_dump_json(),
             str(run_id), store_lang],
            pass_fds=(write_end,),
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)  # the worker's copy is the only writer: its death is our EOF
    messages = Connection(read_end, writable=False)
    try:
        while True:
            if not messages.poll(1.0):
                if worker.poll() is not None:
                    raise RuntimeError(f"the import worker stopped (exit code {worker.returncode})")
                continue
            try:
                message = messages.recv()
            except EOFError:
                raise RuntimeError(
                    f"the import worker stopped (exit code {worker.wait()})"
                ) from None
            kind = message[0]
            if kind == "rows":
                table = message[1]
                stamp = run_id if table in RUN_STAMPED else None
                store.insert_flat(table, message[2], message[3], stamp)
            elif kind == "progress":
                if progress is not None:
                    progress(message[1])
            elif kind == "error":
                raise message[1]
            elif kind == "crash":
                raise RuntimeError(f"the import worker failed:\n{message[1]}")
            else:
                return _Outcome(*message[1:])
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.wait()
        messages.close()


_WORKER_BOOT = """
import os, signal, sys
# An interrupt is the parent's to handle: it rolls back and stops this process.
signal.signal(signal.SIGINT, signal.SIG_IGN)
parent = int(sys.argv[1])
if sys.platform.startswith("linux"):
    import ctypes
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # a broken pipe or the getppid() check in the worker's sends still stops it
# A parent that died before the line above left this process to init: nothing will kill it.
if os.getppid() != parent:
    os._exit(1)
import json
sys.path[:] = json.loads(sys.argv[3])
from nlibuild.stages.import_corpus import worker_main
worker_main(parent, int(sys.argv[2]), sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7])
"""
"""The worker's `python -c` program: before anything slow (importing nlibuild takes a
good part of a second) it asks the kernel to kill it with its parent, then checks that the
parent is still the one that started it, which closes the window between its start and
that request. argv: parent pid, pipe fd, the parent's sys.path (JSON), then
`worker_main`'s arguments."""

_MESSAGES_AHEAD = 32
"""Messages the worker may have resolved ahead of the writer. A message is one table's
rows of a chunk (under 1 MB): 32 of them let the two processes run unevenly on a busy
machine without one waiting for the other, and keep a fast reader from filling memory."""


def worker_main(
    parent: int, pipe_fd: int, store_path: str, cfg_json: str, run_id: int, store_lang: str
) -> None:
    """Entry point of the worker process of a parallel import (see `_WORKER_BOOT`)."""
    gc.disable()
    pipe = Connection(pipe_fd, readable=False)
    # A sender thread, so that rows go down the pipe while the next chunk is resolved.
    outbox: queue.Queue[tuple[Any, ...] | None] = queue.Queue(maxsize=_MESSAGES_AHEAD)

    def send_all() -> None:
        while (message := outbox.get()) is not None:
            try:
                pipe.send(message)
            except OSError:  # the writer is gone (a broken pipe): nobody will read this
                os._exit(1)
            except Exception:  # a message that cannot be pickled: say so rather than hang
                pipe.send(("crash", traceback.format_exc()))

    sender = threading.Thread(target=send_all, name="nlibuild-import-sender", daemon=True)
    sender.start()

    def put(message: tuple[Any, ...]) -> None:
        while True:
            try:
                outbox.put(message, timeout=1.0)
                return
            except queue.Full:
                if os.getppid() != parent:  # the writer was killed: nobody will read this
                    os._exit(1)

    try:
        cfg = ImportConfig.model_validate_json(cfg_json)
        with Store.open(Path(store_path)) as store:

            def sink(table: str, values: list[Any], width: int) -> None:
                put(("rows", table, values, width))

            def progress(done: int) -> None:
                put(("progress", done))

            outcome = _resolve_and_write(store, sink, cfg, run_id, store_lang, progress)
        put(("done", *outcome))
    except NlibuildError as exc:
        put(("error", exc))
    except BaseException:
        put(("crash", traceback.format_exc()))
    finally:
        outbox.put(None)
        sender.join()
        pipe.close()


def summary(cfg: ImportConfig, result: ImportResult) -> str:
    into_split = (
        f"; {counted(result.split_assigned, 'new pair')} put in {cfg.split.value}"
        if cfg.split
        else ""
    )
    return (
        f"Imported {cfg.path}: {counted(result.pairs_added, 'pair')}, "
        f"{counted(result.premises_added, 'premise')}, {counted(result.votes_added, 'vote')}, "
        f"{counted(result.translations_added, 'translation')} added; "
        f"{counted(result.pairs_unchanged, 'pair')} already present{into_split} "
        f"{run_note(result)}"
    )


def named_mapping(store: StoreFacts, fields: Mapping[str, Any]) -> dict[str, Any]:
    """`columns="@NAME"` (as `--columns @NAME`): the mapping of the store's preset's
    `[import.tables.NAME]`, with its label values unless `label_values` are given."""
    columns = fields.get("columns")
    if not (isinstance(columns, str) and columns.startswith("@")):
        return dict(fields)
    table = named_table(store.preset, store.origin, columns[1:])
    labels = fields.get("label_values") or table.labels
    return dict(fields) | {"columns": dict(table.columns), "label_values": labels}


STAGE = Stage(
    IMPORT,
    settings=ImportConfig,
    run=run,
    summary=summary,
    warnings=lambda result: result.warnings,
    defaults=named_mapping,
)
