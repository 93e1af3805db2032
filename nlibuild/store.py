"""The corpus store: its writes, and the read paths not yet moved to nlibuild/queries/.

One SQLite file holds one corpus with its provenance. The connection, the migrations and
the transactions are nlibuild/core/database.py; every stage runs as one recorded run
(`Store.recorded_run`, nlibuild/core/runs.py), so a stage that fails (or is killed) leaves
the corpus exactly as it was.

Public IDs (premise `gov_0001`, pair `gov_0001-c2`, annotator `w017`) are text and stable;
inside the store rows are joined on integer keys (`pk`) so that millions of votes stay small
and fast to write.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from pydantic import BaseModel

from nlibuild.core.database import (
    SCHEMA_VERSION,
    Transactions,
    check_intact,
    connect,
    damaged,
    is_damage,
    lock_holder,
    migrate,
    no_room,
    orphaned_rows,
    out_of_space_cause,
    schema_version,
    unreadable,
    use_wal,
)
from nlibuild.core.outputs import refuse_outputs_onto_store
from nlibuild.core.runs import (
    RecordedRun,
    died_reason,
    recorded_run,
    shown_status,
)
from nlibuild.core.sql_params import json_array
from nlibuild.core.stage import StageName
from nlibuild.errors import NlibuildError, StoreError
from nlibuild.labelling.labels import MAJORITY, RELEASED
from nlibuild.models import RunRecord
from nlibuild.queries.gold_sql import majority_gold_case

if TYPE_CHECKING:  # numpy is imported where columns are read: not on every start-up
    import numpy as np
    from numpy.typing import NDArray

_ROWS_PER_STATEMENT = 100

LAST_VOTE_RUN = "last_vote_run"
"""The meta key naming the newest run that wrote votes (aggregate-labels tells from it
whether its gold is up to date without scanning every vote)."""

PAIR_LABEL_COUNTS = (
    "pair_pk, count(*), sum(label = 'entailment'), sum(label = 'neutral'), "
    "sum(label = 'contradiction'), max(CASE WHEN position = 0 THEN label END)"
)
"""A pair's row of `pair_labels` computed from its votes (grouped by pair_pk)."""

BULK_COLUMNS: dict[str, str] = {
    "annotators": "pk, id, anonymous, note",
    "premises": "pk, id, genre, lang, text, length, extra_json",
    "pairs": "pk, id, premise_pk, hypothesis, lang, protocol, level, author_pk, author_label, "
    "extra_json",
    "votes": "pair_pk, annotator_pk, position, label",
    "gold_rows": "pair_pk, method, label, n_votes, n_top",
    "pair_labels": "pair_pk, n_votes, n_entailment, n_neutral, n_contradiction, author_label",
    "translations": "unit_id, lang, kind, text, translator_pk, source_lang",
    "sentences": "source_id, genre, lang, text, key, chars, tokens, length",
    "posteriors": "pair_pk, method, entailment, neutral, contradiction",
}
"""The tables `Store.insert` fills, with the column order of their rows."""

RUN_STAMPED = frozenset(
    {"premises", "pairs", "votes", "gold_rows", "translations", "sentences", "posteriors"}
)
"""Tables whose rows also record the run that wrote them (`run_id`), given once per insert."""

_KIND_WITH_SOURCE = "kind || CASE source_lang WHEN '' THEN '' ELSE ' from ' || source_lang END"
"""A translation's kind as tables show it: `mt`, or `mt from de` for the machine
translation of the German translation (translate-test's; schema 16)."""

_COUNTABLE_TABLES = RUN_STAMPED | {"runs", "annotators", "batches", "assignments", "violations"}

LENGTH_COLUMNS = {"auto": "length", "chars": "chars", "tokens": "tokens"}
"""The sentence column that holds lengths in each unit (`auto`: the language's own)."""

SentenceRow = tuple[int, str, str, str, int, int, int, int]
"""source_id, genre, lang, text, key, chars, tokens, length"""


class PoolLengthCount(NamedTuple):
    genre: str
    lang: str
    length: int
    sentences: int
    taken: int


class PremiseRow(NamedTuple):
    pk: int
    id: str
    genre: str | None
    lang: str
    text: str
    length: int
    extra_json: str | None


# Bulk rows are plain tuples (the importer builds millions of them) in column order; the
# run that wrote them is given to `Store.insert` once.
PairRow = tuple[int, str, int, str, str, str | None, str | None, int | None, str | None, str | None]
"""pk, id, premise_pk, hypothesis, lang, protocol, level, author_pk, author_label,
extra_json"""

VoteRow = tuple[int, int, int, str]
"""pair_pk, annotator_pk, position (0 = the author), label"""

GoldRow = tuple[int, str, str, int, int]
"""pair_pk, method, label, n_votes, n_top"""


class TranslationRow(NamedTuple):
    unit_id: str
    lang: str
    kind: str
    text: str
    translator_pk: int | None
    source_lang: str = ""
    """What was translated: '' the pair's own text, else the unit's human translation into
    this language (a machine translation of it, for translate-test; schema 16)."""


class ExportRow(NamedTuple):
    """One pair with everything an exporter writes."""

    pk: int
    id: str
    premise_id: str
    premise: str
    premise_extra_json: str | None
    genre: str | None
    hypothesis: str
    lang: str
    protocol: str | None
    level: str | None
    extra_json: str | None
    gold: str | None
    labels: tuple[str, ...]
    annotators: tuple[str, ...]


class ScoreJobRow(NamedTuple):
    """A row of `score_jobs` as a stage gives it (the run is given apart)."""

    name: str
    model: str
    mode: str
    seed: int
    train_langs: tuple[str, ...]
    eval_langs: tuple[str, ...]
    spec: str
    folder: str


ScoreCheckpointRow = tuple[int, int, float, int, float | None, float]
"""idx, step, epoch, examples_seen, train_loss, seconds"""

ScoreAccuracyRow = tuple[str, str, str, str, int, int]
"""lang, split, slice, value ('' for all), correct, total"""

DynamicsRow = tuple[int, float, float, float | None, int]
"""pair_pk, confidence, variability, correctness (None: the job did not record the argmax),
epochs (how many reached the pair)"""

ElicitedPairRow = tuple[int, str, int, str, str, str, str | None, int, str, int]
"""pk, id, premise_pk, hypothesis, lang, protocol, level, author_pk, author_label, batch_pk"""

ViolationRow = tuple[int | None, int | None, str, str | None, str, str, str, bool]
"""batch_pk, annotator_pk, item_id, pair_id, rule, severity, detail, kept"""


class VoteArrays(NamedTuple):
    """Every vote, as parallel integer arrays in (pair, annotator) order."""

    pair_pks: NDArray[np.int64]
    annotator_pks: NDArray[np.int64]
    positions: NDArray[np.int64]
    codes: NDArray[np.int64]


class SubsetPair(NamedTuple):
    """What `stats --table subsets` reads of a pair."""

    protocol: str | None
    level: str | None
    lang: str
    label: str | None
    hypothesis: str
    premise: str


def _table_names(conn: sqlite3.Connection) -> list[str]:
    import sqlite_utils  # imported here: it costs a tenth of a second of start-up

    names: list[str] = sqlite_utils.Database(conn).table_names()
    return names


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


CORPUS_LANG_TABLES = ("sources", "sentences", "premises", "pairs", "batches")
"""The tables whose rows hold the corpus language (`lang`) when written in it."""


class Store:
    """A corpus store on disk. Open it with `Store.create` or `Store.open`."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn
        self.tx = Transactions(conn, lambda: lock_holder(conn, path))
        self._meta_vote_run: int | None = None  # the run LAST_VOTE_RUN was last set to
        self._found_intact = False  # by `check_intact`, on this connection

    # --- opening, schema, migrations -------------------------------------------------

    @classmethod
    def create(cls, path: Path, meta: dict[str, str]) -> Store:
        """Create a new store at `path` with the given corpus metadata."""
        if path.exists() and path.stat().st_size > 0:
            raise StoreError(
                f"{path}: a store already exists here; use it, or pass --db NEW_PATH for a new one"
            )
        store = cls(path, connect(path))
        try:
            use_wal(store.conn, path)
            migrate(store.conn, path)
            with store.atomic():
                store.conn.executemany(
                    "INSERT INTO meta(key, value) VALUES (?, ?)", sorted(meta.items())
                )
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open an existing store, migrating it to the current schema."""
        if not path.exists():
            raise StoreError(f"{path}: no store here; create one with `nlibuild --db {path} init`")
        store = cls(path, connect(path))
        try:
            version = store._refuse_unless_sound()
        except BaseException:
            store.close()
            raise
        use_wal(store.conn, path)
        if version < SCHEMA_VERSION:
            try:
                migrate(store.conn, path)
            except sqlite3.OperationalError as exc:
                locked = lock_holder(store.conn, path) if "locked" in str(exc) else None
                store.close()
                if locked is not None:
                    raise locked from None
                if out_of_space_cause(exc) is not None:  # one transaction: rolled back
                    raise no_room(path, exc, "the store is unchanged") from None
                raise
        return store

    def _refuse_unless_sound(self) -> int:
        """The schema version of a file found to be a store that can be opened, by reads
        alone: WAL mode and migrations change the file, and a `--db` that names some other
        database, a newer store or a damaged one must be left as it was. The switch to WAL
        (a store of an older release) or a migration is the one write on opening: only
        then are all pages checked (`check_intact`), so an intact store's open stays a
        few reads, whatever its size."""
        path = self.path
        try:
            version = self.schema_version
            is_store = version > 0 or "meta" in _table_names(self.conn)
            (journal,) = self.conn.execute("PRAGMA journal_mode").fetchone()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise lock_holder(self.conn, path) from None
            raise unreadable(path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise unreadable(path, exc) from None
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: store has schema version {version}, but this nlibuild knows only up to "
                f"{SCHEMA_VERSION}; upgrade nlibuild to open it"
            )
        if not is_store:
            raise StoreError(f"{path}: not an nlibuild store; create one with `nlibuild init`")
        if journal != "wal" or version < SCHEMA_VERSION:
            self.check_intact()
        return version

    @property
    def schema_version(self) -> int:
        return schema_version(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, _type: type[BaseException] | None, exc: BaseException | None, _tb: object
    ) -> None:
        """Close; SQLite's word that the file is damaged, or that a write found no room (a
        reader's too: the `-shm` index beside a store in WAL mode), met by any read or
        write inside the block, becomes the one line that names the store and what to do.
        A recorded run has said what it kept already (an `NlibuildError`). Any other
        error is asked whether rows the store refers to are gone (`orphaned_rows`): a
        store edited by hand is damaged, not the code wrong."""
        if exc is None or isinstance(exc, NlibuildError | KeyboardInterrupt):
            self.close()
            return
        orphans = None if is_damage(exc) else orphaned_rows(self.conn, self.path)
        self.close()
        if is_damage(exc):
            raise damaged(self.path, str(exc)) from None
        cause = out_of_space_cause(exc)
        if isinstance(cause, sqlite3.Error):
            raise no_room(self.path, cause, "the store is unchanged") from None
        if orphans is not None:
            raise orphans from exc

    def atomic(self) -> AbstractContextManager[None]:
        """One transaction (a savepoint when nested): all of it commits, or none of it."""
        return self.tx.atomic()

    def recorded_run(
        self,
        stage: StageName,
        settings: BaseModel,
        *,
        resume: bool = False,
        foreign_keys_checked_at_end: Sequence[str] = (),
    ) -> AbstractContextManager[RecordedRun]:
        """A stage's work as one recorded run (nlibuild/core/runs.py), refused before it
        starts when one of its outputs is this store (nlibuild/core/outputs.py) or when the
        store cannot be written."""
        self._meta_vote_run = None  # a refused run's meta write was rolled back with it
        refuse_outputs_onto_store(self.path, settings)
        # Every stage writes at least its run's row, even one that only reads the corpus
        # (export); a read-only file would fail there as an internal error. Reading
        # commands (info, stats, runs) record nothing and still work on it.
        if not os.access(self.path, os.W_OK):
            raise StoreError(
                f"{self.path}: the store is read-only, and `{stage.name}` records its run in it; "
                "make it writable (chmod u+w) or work on a copy"
            )
        self.check_intact_once()
        return recorded_run(
            self.tx,
            stage,
            settings,
            resume=resume,
            foreign_keys_checked_at_end=foreign_keys_checked_at_end,
        )

    def check_intact(self) -> None:
        """Refuse the store if any of its pages is damaged (`PRAGMA quick_check`)."""
        check_intact(self.conn, self.path)
        self._found_intact = True

    def check_intact_once(self) -> None:
        """Before the first run recorded through this connection: a damaged page that the
        run never reads would otherwise go unnoticed while the run's writes reach the file.
        Once a connection (a command's, a server thread's), as it reads every page: about
        0.25 s per 90 MiB (a 200,000-pair store) from the page cache. What a later read
        meets is still refused (`Store.__exit__`)."""
        if not self._found_intact:
            self.check_intact()

    @contextmanager
    def deferred_indexes(self, names: Sequence[str]) -> Iterator[None]:
        """Inside a transaction: drop the named indexes, and build them again on exit.

        Building an index once over sorted keys is far cheaper than updating it row by row
        in random key order (a million-pair import saved a fifth of its write time). Only for
        writers that do not look rows up by those indexes meanwhile (another connection
        still reads the committed ones). The drop is part of the transaction, so an error or
        an interrupt rolls it back with everything else. A unique index that cannot be
        built again means duplicate IDs got in: that is reported, and rolled back.
        """
        if not self.tx.active:
            raise RuntimeError("Store.deferred_indexes() outside Store.atomic()")
        indexes = self.conn.execute(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' "
            "AND sql IS NOT NULL AND name IN (SELECT value FROM json_each(?)) ORDER BY name",
            (json_array(names),),
        ).fetchall()
        if len(indexes) != len(set(names)):
            raise ValueError(f"no such index among {sorted(names)}")
        for name, _, _ in indexes:
            self.conn.execute(f'DROP INDEX "{name}"')
        yield
        for _, table, sql in indexes:
            try:
                self.conn.execute(sql)
            except sqlite3.IntegrityError as exc:
                raise StoreError(
                    f"{self.path}: two rows of {table} share an ID ({exc}); nothing was written. "
                    "This is a bug in nlibuild: please report it with the input file"
                ) from exc

    # --- meta and runs ---------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def runs(self) -> list[RunRecord]:
        rows = self.conn.execute(
            "SELECT id, stage, config_json, signature, started_at, finished_at, status, "
            "counts_json, version, command, host, pid, error, steps_json FROM runs ORDER BY id"
        ).fetchall()
        records = []
        for row in rows:
            status = shown_status(row[6], row[10], row[11])
            # A dead run not yet swept (no writer came since) is shown as the sweep records it.
            error = died_reason(row[11], row[10]) if status != row[6] else row[12]
            records.append(
                RunRecord(
                    id=row[0],
                    stage=row[1],
                    config=orjson.loads(row[2]),
                    signature=row[3],
                    started_at=row[4],
                    finished_at=row[5],
                    status=status,
                    counts=orjson.loads(row[7]),
                    version=row[8],
                    command=row[9],
                    host=row[10],
                    pid=row[11],
                    error=error,
                    steps=orjson.loads(row[13]),
                )
            )
        return records

    def add_source(
        self, kind: str, path: str, sha256: str, genre: str | None, lang: str | None, run_id: int
    ) -> None:
        self.conn.execute(
            "INSERT INTO sources(kind, genre, lang, path, sha256, run_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (kind, genre, lang, path, sha256, run_id),
        )

    # --- writes ----------------------------------------------------------------------

    def next_pk(self, table: str) -> int:
        """The next free integer key of `premises`, `pairs` or `annotators`.

        Valid for the whole of a write transaction (BEGIN IMMEDIATE holds the write lock),
        so bulk inserts can assign keys themselves instead of reading them back.
        """
        if table not in {"premises", "pairs", "annotators"}:
            raise ValueError(table)
        row = self.conn.execute(f"SELECT coalesce(max(pk), 0) + 1 FROM {table}").fetchone()
        return int(row[0])

    def insert(
        self, table: str, rows: Sequence[tuple[Any, ...]], run_id: int | None = None
    ) -> None:
        """Bulk insert of rows (columns as in `BULK_COLUMNS`) into one of its tables.

        Tables in `RUN_STAMPED` need the `run_id` of the stage run that writes them.
        """
        if rows:
            self.insert_flat(table, list(chain.from_iterable(rows)), len(rows[0]), run_id)

    def insert_flat(
        self, table: str, values: list[Any], width: int, run_id: int | None = None
    ) -> None:
        """Bulk insert of rows given one after another in a flat list of `width`-wide rows.

        `INSERT ... VALUES (..), (..), ...` with 100 rows a statement measured 40% faster
        than `executemany` for the importer's millions of votes: the per-statement cost
        of the sqlite3 module is paid once per 100 rows. The run ID is parameter ?1 of
        every row, bound once a statement instead of once a row.
        """
        if (table in RUN_STAMPED) != (run_id is not None):
            raise ValueError(f"{table}: run_id must be given exactly for {sorted(RUN_STAMPED)}")
        head = [run_id] if run_id is not None else []
        step = _ROWS_PER_STATEMENT * width
        full = len(values) // step * step
        if full:
            many = self._insert_statement(table, width, _ROWS_PER_STATEMENT)
            for start in range(0, full, step):
                self.conn.execute(many, head + values[start : start + step])
        if full < len(values):
            rest = (len(values) - full) // width
            self.conn.execute(self._insert_statement(table, width, rest), head + values[full:])
        if table == "votes" and values and run_id != self._meta_vote_run:
            # Once a run, not once a chunk: an import writes its votes in thousands of chunks.
            self.set_meta(LAST_VOTE_RUN, str(run_id))
            self._meta_vote_run = run_id

    @staticmethod
    @functools.cache
    def _insert_statement(table: str, width: int, rows: int) -> str:
        """`INSERT INTO table(...) VALUES (?2, ?3, .., ?1), ...` for `rows` rows."""
        columns = BULK_COLUMNS[table]
        first = 1
        stamp = ""
        if table in RUN_STAMPED:
            columns += ", run_id"
            first = 2
            stamp = ", ?1"
        marks = []
        for row in range(rows):
            start = first + row * width
            params = ", ".join(f"?{n}" for n in range(start, start + width))
            marks.append(f"({params}{stamp})")
        return f"INSERT INTO {table}({columns}) VALUES " + ", ".join(marks)

    # --- typed reads -----------------------------------------------------------------

    def annotator_pks(self, ids: Iterable[str]) -> dict[str, int]:
        """Keys of the annotators among `ids` that the store knows."""
        return dict(
            self.conn.execute(
                "SELECT id, pk FROM annotators WHERE id IN (SELECT value FROM json_each(?))",
                (json_array(ids),),
            ).fetchall()
        )

    def translated_units(self, kind: str = "human") -> Iterator[tuple[str, str, str]]:
        """(unit_id, lang, text) of every translation of `kind` of the pairs' own texts
        (not the machine translations of other translations, which translate-test reads)."""
        yield from self.conn.execute(
            "SELECT unit_id, lang, text FROM translations WHERE kind = ? AND source_lang = '' "
            "ORDER BY lang, unit_id",
            (kind,),
        )

    # --- splits --------------------------------------------------------------------------

    def write_splits(self, rows: Sequence[tuple[int, str]], run_id: int) -> None:
        """Replace every split: (pair key, split)."""
        self.conn.execute("DELETE FROM splits")
        self.conn.executemany(
            "INSERT INTO splits(pair_pk, split, run_id) VALUES (?, ?, ?)",
            [(pk, split, run_id) for pk, split in rows],
        )

    def assign_split_to_run(self, run_id: int, split: str) -> int:
        """Put the pairs `run_id` added into `split`; returns how many."""
        return self.conn.execute(
            "INSERT OR REPLACE INTO splits(pair_pk, split, run_id) "
            "SELECT pk, ?, ? FROM pairs WHERE run_id = ?",
            (split, run_id, run_id),
        ).rowcount

    # --- annotation artifacts -----------------------------------------------------------

    # --- translation units --------------------------------------------------------------

    def source_units(self) -> list[tuple[str, str, str]]:
        """(unit ID, source language, source text) of every premise (`p:<id>`, once) and
        every pair's hypothesis (`h:<id>`), premises first, each in store order."""
        premises = self.conn.execute(
            "SELECT 'p:' || id, lang, text FROM premises "
            "WHERE pk IN (SELECT premise_pk FROM pairs) ORDER BY pk"
        ).fetchall()
        hypotheses = self.conn.execute(
            "SELECT 'h:' || id, lang, hypothesis FROM pairs ORDER BY pk"
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in premises + hypotheses]

    def add_translation_checks(
        self, rows: Sequence[tuple[str, str, str, str, str]], run_id: int, source_lang: str = ""
    ) -> None:
        """(unit ID, lang, kind, check, detail) of the translations from `source_lang` (''
        the pairs' own texts); a check already stored is replaced."""
        self.conn.executemany(
            'INSERT OR REPLACE INTO translation_checks(unit_id, lang, kind, "check", detail, '
            "run_id, source_lang) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*row, run_id, source_lang) for row in rows],
        )

    def clear_translation_checks(
        self,
        lang: str,
        kind: str,
        unit_ids: Iterable[str],
        checks: Sequence[str],
        source_lang: str = "",
    ) -> None:
        """Forget the findings on these units, and the findings `checks` on any unit (they
        are computed again), of the translations from `source_lang`."""
        self.conn.execute(
            "DELETE FROM translation_checks WHERE lang = ?1 AND kind = ?2 AND source_lang = ?5 "
            'AND ("check" IN (SELECT value FROM json_each(?3)) '
            "OR unit_id IN (SELECT value FROM json_each(?4)))",
            (lang, kind, json_array(checks), json_array(unit_ids), source_lang),
        )

    def translation_check_counts(self) -> list[tuple[str, str, str, int]]:
        """(lang, kind, check, units) for every check found; the kind of a machine
        translation of another translation says its source (`mt from de`)."""
        return self.conn.execute(
            f'SELECT lang, {_KIND_WITH_SOURCE}, "check", count(*) FROM translation_checks '
            'GROUP BY lang, kind, source_lang, "check" ORDER BY 1, 2, 3'
        ).fetchall()

    def translation_counts(self) -> list[tuple[str, str, int]]:
        """(lang, kind, units translated), the kind as `translation_check_counts` says it."""
        return self.conn.execute(
            f"SELECT lang, {_KIND_WITH_SOURCE}, count(*) FROM translations "
            "GROUP BY lang, kind, source_lang ORDER BY 1, 2"
        ).fetchall()

    # --- annotators, batches and assignments ----------------------------------------

    def ensure_annotators(self, ids: Iterable[str]) -> dict[str, int]:
        """Keys of these annotators, adding the ones the store does not know yet."""
        ids = list(dict.fromkeys(ids))
        known = self.annotator_pks(ids)
        missing = [i for i in ids if i not in known]
        if missing:
            self.conn.executemany(
                "INSERT INTO annotators(id, anonymous) VALUES (?, 0)", [(i,) for i in missing]
            )
            known = self.annotator_pks(ids)
        return known

    def add_aliases(self, platform: str, mapping: dict[str, int]) -> None:
        """Record platform ID -> annotator key (the caller checked for conflicts)."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO annotator_aliases(platform, platform_id, annotator_pk) "
            "VALUES (?, ?, ?)",
            [(platform, platform_id, pk) for platform_id, pk in sorted(mapping.items())],
        )

    def add_batch(
        self,
        batch_id: str,
        kind: str,
        protocol: str | None,
        lang: str,
        annotator_pk: int,
        items: Sequence[str],
        run_id: int,
        round_number: int | None = None,
    ) -> int:
        """A new batch with its items in order (of an adversarial round, or of none);
        returns its key."""
        cursor = self.conn.execute(
            "INSERT INTO batches(id, kind, protocol, lang, annotator_pk, run_id, round) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (batch_id, kind, protocol, lang, annotator_pk, run_id, round_number),
        )
        assert cursor.lastrowid is not None
        self.conn.executemany(
            "INSERT INTO assignments(batch_pk, item_id, position) VALUES (?, ?, ?)",
            [(cursor.lastrowid, item, position) for position, item in enumerate(items, 1)],
        )
        return cursor.lastrowid

    def mark_answered(self, rows: Sequence[tuple[str, str, int, int, str]]) -> None:
        """(status, answer_key, run_id, batch_pk, item_id) for each answered item."""
        self.conn.executemany(
            "UPDATE assignments SET status = ?, answer_key = ?, answered_run_id = ? "
            "WHERE batch_pk = ? AND item_id = ?",
            rows,
        )

    # --- the workbench (issue 19): drafts, times per item, undoing a vote --------------

    def save_draft(self, batch_pk: int, item_id: str, fields_json: str) -> str:
        """Keep a writer's draft of one item (replacing the one before); returns its time."""
        saved = _now()
        with self.atomic():
            self.conn.execute(
                "INSERT INTO drafts(batch_pk, item_id, fields_json, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT(batch_pk, item_id) DO UPDATE SET "
                "fields_json = excluded.fields_json, updated_at = excluded.updated_at",
                (batch_pk, item_id, fields_json, saved),
            )
        return saved

    def delete_draft(self, batch_pk: int, item_id: str) -> None:
        """Drop a draft once its item is answered: the answer is then the stored record."""
        with self.atomic():
            self.conn.execute(
                "DELETE FROM drafts WHERE batch_pk = ? AND item_id = ?", (batch_pk, item_id)
            )

    # --- a model in the writers' loop (issue 29) ------------------------------------------

    def add_model_tries(self, rows: Sequence[tuple[int, str, str, str, str, str, bool]]) -> None:
        """Model checks of writers' hypotheses before submitting (table `model_tries`):
        (batch_pk, item_id, slot, hypothesis, model, model's label, fooled), stamped now."""
        tried_at = _now()
        with self.atomic():
            self.conn.executemany(
                "INSERT INTO model_tries(batch_pk, item_id, slot, hypothesis, model, label, "
                "fooled, tried_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(*row, tried_at) for row in rows],
            )

    def add_model_predictions(self, rows: Sequence[tuple[int, str, str, str, int]]) -> None:
        """What the served model said of submitted pairs (table `model_predictions`):
        (pair_pk, model, label, probabilities as JSON, tries)."""
        with self.atomic():
            self.conn.executemany(
                "INSERT INTO model_predictions(pair_pk, model, label, probabilities, tries) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def add_vote_times(self, rows: Sequence[tuple[int, int, float]], run_id: int) -> None:
        """(pair_pk, annotator_pk, seconds) spent before each vote a run added."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO vote_times(pair_pk, annotator_pk, seconds, run_id) "
            "VALUES (?, ?, ?, ?)",
            [(*row, run_id) for row in rows],
        )

    def remove_vote(self, pair_pk: int, annotator_pk: int, batch_pk: int, run_id: int) -> int:
        """Take back a validator's vote (never an author's, position 0) on a pair, with its
        time, reopen its assignment, and recount the pair; returns the votes removed. The
        run is the newest that changed votes, so `aggregate-labels` sees its gold is stale."""
        removed = self.conn.execute(
            "DELETE FROM votes WHERE pair_pk = ? AND annotator_pk = ? AND position >= 1",
            (pair_pk, annotator_pk),
        ).rowcount
        if not removed:
            return 0
        self.conn.execute(
            "DELETE FROM vote_times WHERE pair_pk = ? AND annotator_pk = ?",
            (pair_pk, annotator_pk),
        )
        self.conn.execute(
            "UPDATE assignments SET status = 'open', answer_key = NULL, answered_run_id = NULL "
            "WHERE batch_pk = ? AND item_id = (SELECT id FROM pairs WHERE pk = ?)",
            (batch_pk, pair_pk),
        )
        left = self.conn.execute("SELECT count(*) FROM votes WHERE pair_pk = ?", (pair_pk,))
        if left.fetchone()[0]:
            self.refresh_pair_labels([pair_pk])  # its gold stays until aggregate-labels
        else:
            self.remove_pair_labels([pair_pk])
        self.set_meta(LAST_VOTE_RUN, str(run_id))
        self._meta_vote_run = run_id
        return removed

    def set_aside_answer(self, batch_pk: int, item_id: str, run_id: int) -> tuple[int, int]:
        """Reopen an answered premise of an elicitation batch (`elicit-reopen`): the pairs
        the answer added, with their votes, counts and model predictions, and the violations
        the checks found in it leave their tables for one row of `reopened_answers` that
        keeps them as they were, beside the assignment's answer; the assignment is open
        again (its model tries stay: they were made). The caller has
        checked that no later work rests on the pairs. Returns (pairs, violations) moved."""
        conn = self.conn
        where = (batch_pk, item_id)
        answer = conn.execute(
            "SELECT status, answer_key, answered_run_id FROM assignments "
            "WHERE batch_pk = ? AND item_id = ?",
            where,
        ).fetchone()
        pairs, pks = self._answer_pairs(batch_pk, item_id)
        violations = self._answer_violations(batch_pk, item_id)
        conn.execute(
            "INSERT INTO reopened_answers(batch_pk, item_id, status, answer_key, "
            "answered_run_id, pairs_json, violations_json, run_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (*where, *answer, orjson.dumps(pairs).decode(), orjson.dumps(violations).decode(),
             run_id),
        )  # fmt: skip
        for table in ("votes", "vote_times", "pair_labels", "model_predictions"):
            conn.execute(
                f"DELETE FROM {table} WHERE pair_pk IN (SELECT value FROM json_each(?))", (pks,)
            )
        conn.execute("DELETE FROM pairs WHERE pk IN (SELECT value FROM json_each(?))", (pks,))
        conn.execute("DELETE FROM violations WHERE batch_pk = ? AND item_id = ?", where)
        conn.execute(
            "UPDATE assignments SET status = 'open', answer_key = NULL, answered_run_id = NULL "
            "WHERE batch_pk = ? AND item_id = ?",
            where,
        )
        return len(pairs), len(violations)

    def _answer_pairs(self, batch_pk: int, item_id: str) -> tuple[list[dict[str, Any]], str]:
        """The pairs an answer of premise `item_id` in this batch added, each as its row
        (by public IDs) with its votes and the served model's prediction where one was
        recorded (issue 29), and their keys as a JSON array."""
        columns = ("pk", "id", "hypothesis", "lang", "protocol", "level", "author",
                   "author_label", "extra_json", "run_id")  # fmt: skip
        pairs = [
            dict(zip(columns, row, strict=True))
            for row in self.conn.execute(
                "SELECT p.pk, p.id, p.hypothesis, p.lang, p.protocol, p.level, a.id, "
                "p.author_label, p.extra_json, p.run_id FROM pairs p "
                "JOIN premises pr ON pr.pk = p.premise_pk "
                "LEFT JOIN annotators a ON a.pk = p.author_pk "
                "WHERE p.batch_pk = ? AND pr.id = ? ORDER BY p.pk",
                (batch_pk, item_id),
            )
        ]
        votes: dict[int, list[dict[str, Any]]] = {pair["pk"]: [] for pair in pairs}
        pks = json_array(list(votes))
        for pair_pk, annotator, position, label, vote_run in self.conn.execute(
            "SELECT v.pair_pk, a.id, v.position, v.label, v.run_id FROM votes v "
            "JOIN annotators a ON a.pk = v.annotator_pk "
            "WHERE v.pair_pk IN (SELECT value FROM json_each(?)) ORDER BY v.position",
            (pks,),
        ):
            votes[pair_pk].append(
                {"annotator": annotator, "position": position, "label": label, "run_id": vote_run}
            )
        predicted = {
            pair_pk: {"model": model, "label": label, "probabilities": orjson.loads(shares),
                      "tries": tries}
            for pair_pk, model, label, shares, tries in self.conn.execute(
                "SELECT pair_pk, model, label, probabilities, tries FROM model_predictions "
                "WHERE pair_pk IN (SELECT value FROM json_each(?))",
                (pks,),
            )
        }  # fmt: skip
        for pair in pairs:
            pk = pair.pop("pk")
            pair["votes"] = votes[pk]
            if pk in predicted:  # the served model's word on it (issue 29), kept with it
                pair["model_prediction"] = predicted[pk]
        return pairs, pks

    def _answer_violations(self, batch_pk: int, item_id: str) -> list[dict[str, Any]]:
        """What the checks found in an answer of premise `item_id` in this batch, each as
        its row (by public IDs)."""
        columns = ("annotator", "pair_id", "rule", "severity", "detail", "kept", "run_id")
        return [
            dict(zip(columns, row, strict=True))
            for row in self.conn.execute(
                "SELECT a.id, v.pair_id, v.rule, v.severity, v.detail, v.kept, v.run_id "
                "FROM violations v LEFT JOIN annotators a ON a.pk = v.annotator_pk "
                "WHERE v.batch_pk = ? AND v.item_id = ? ORDER BY v.pk",
                (batch_pk, item_id),
            )
        ]

    def add_elicited_pairs(self, rows: Sequence[ElicitedPairRow], run_id: int) -> None:
        """Pairs written by writers (see `ElicitedPairRow`)."""
        self.conn.executemany(
            "INSERT INTO pairs(pk, id, premise_pk, hypothesis, lang, protocol, level, "
            "author_pk, author_label, batch_pk, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, run_id) for row in rows],
        )

    def add_violations(self, rows: Sequence[ViolationRow], run_id: int) -> int:
        """Store findings of the checks; one already stored is not stored again.

        Returns how many were new."""
        before = self.conn.total_changes
        self.conn.executemany(
            "INSERT OR IGNORE INTO violations(batch_pk, annotator_pk, item_id, pair_id, rule, "
            "severity, detail, kept, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, run_id) for row in rows],
        )
        return self.conn.total_changes - before

    def subset_pairs(self) -> Iterator[SubsetPair]:
        """Every pair with its protocol, level, language, intended label and texts.

        The label is the author's, else the released gold (a corpus imported without
        individual labels)."""
        for row in self.conn.execute(
            "SELECT p.protocol, p.level, p.lang, coalesce(p.author_label, g.label), "
            "p.hypothesis, pr.text FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
            "LEFT JOIN gold g ON g.pair_pk = p.pk AND g.method = ?",
            (RELEASED,),
        ):
            yield SubsetPair(*row)

    # --- the sentence pool -----------------------------------------------------------

    def source_id(
        self, kind: str, path: str, sha256: str, genre: str | None, lang: str | None, run_id: int
    ) -> int:
        """The source row of this file's content read this way, added on first sight."""
        row = self.conn.execute(
            "SELECT id FROM sources WHERE kind = ? AND sha256 = ? AND genre IS ? AND lang IS ?",
            (kind, sha256, genre, lang),
        ).fetchone()
        if row is not None:
            return int(row[0])
        cursor = self.conn.execute(
            "INSERT INTO sources(kind, genre, lang, path, sha256, run_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (kind, genre, lang, path, sha256, run_id),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_sentences(self, rows: Sequence[SentenceRow], run_id: int) -> None:
        """Insert pool sentences; the caller has removed any (genre, key) already there."""
        self.insert("sentences", rows, run_id)

    def set_taken_keys(self, keys: Iterable[int]) -> None:
        """Fill the temporary table of sentence keys sampling must not take (premises
        already in the store, sentences of --exclude files, this run's picks)."""
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS taken_keys (key INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM temp.taken_keys")
        self.add_taken_keys(keys)

    def add_taken_keys(self, keys: Iterable[int]) -> None:
        self.conn.executemany(
            "INSERT OR IGNORE INTO temp.taken_keys(key) VALUES (?)", ((k,) for k in keys)
        )

    def add_sampled_premises(
        self, rows: Sequence[tuple[int, str, str, str, str, int, int]], run_id: int
    ) -> None:
        """Premises drawn from the pool: (pk, id, genre, lang, text, length, sentence_pk)."""
        self.conn.executemany(
            "INSERT INTO premises(pk, id, genre, lang, text, length, sentence_pk, run_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, run_id) for row in rows],
        )

    def pool_length_counts(self, unit: str) -> list[PoolLengthCount]:
        """Sentences per genre, language and length, with how many of them are taken."""
        column = LENGTH_COLUMNS[unit]
        rows = self.conn.execute(
            f"SELECT genre, lang, {column}, count(*), "
            "sum(key IN (SELECT key FROM temp.taken_keys)) "
            f"FROM sentences GROUP BY genre, lang, {column} ORDER BY genre, lang, {column}"
        ).fetchall()
        return [PoolLengthCount(*row) for row in rows]

    def sampled_lengths(self, unit: str) -> list[tuple[str, str, int, float]]:
        """(genre, lang, premises, mean length) of premises sampled from the pool."""
        column = LENGTH_COLUMNS[unit]
        rows = self.conn.execute(
            f"SELECT s.genre, s.lang, count(*), avg(s.{column}) FROM premises p "
            "JOIN sentences s ON s.pk = p.sentence_pk GROUP BY s.genre, s.lang"
        ).fetchall()
        return [(row[0], row[1], row[2], row[3]) for row in rows]

    # --- relabelling ------------------------------------------------------------------

    # --- aggregation and agreement -------------------------------------------------------

    def write_majority_gold(self, method: str, min_agree: int | float, run_id: int) -> None:
        """Write the majority rule's gold for every pair with votes, from its label counts.

        Gold is the NLI label with at least `min_agree` votes (a count, or a float share of
        the pair's votes) and more than any other NLI
        label, else `-`; extra labels count towards `n_votes` but are never gold. A pair with
        its author's vote alone keeps that label (MNLI's training-set convention). One column
        update over `pair_labels` (schema 9), so it does not depend on the order votes came in.
        """
        if method != MAJORITY:
            raise ValueError(f"only the majority gold is computed in SQL, not {method!r}")
        self.conn.execute(
            f"UPDATE pair_labels SET gold_run_id = :run, gold = {majority_gold_case()}",
            {"min_agree": min_agree, "run": run_id},
        )

    def add_votes(self, rows: Sequence[tuple[int, int, int, str]], run_id: int) -> None:
        """Add votes (pair_pk, annotator_pk, position, label) and recount their pairs."""
        self.insert("votes", rows, run_id)
        self.refresh_pair_labels(row[0] for row in rows)

    def rewrite_corpus_lang(self, old: str, new: str) -> None:
        """The corpus language `old` written as `new` wherever the store keeps it: its meta
        and the corpus rows in that language (not translations, whose language is the
        target's, nor computed tables)."""
        self.set_meta("lang", new)
        for table in CORPUS_LANG_TABLES:
            self.conn.execute(f"UPDATE {table} SET lang = ? WHERE lang = ?", (new, old))

    def refresh_pair_labels(self, pair_pks: Iterable[int]) -> None:
        """Recount the label counts and author label of these pairs from their votes (after
        a stage added votes to them); their gold stays until `aggregate-labels` runs."""
        self.conn.execute(
            "INSERT INTO pair_labels(pair_pk, n_votes, n_entailment, n_neutral, "
            "n_contradiction, author_label) "
            f"SELECT {PAIR_LABEL_COUNTS} FROM votes "
            "WHERE pair_pk IN (SELECT value FROM json_each(?)) GROUP BY pair_pk "
            "ON CONFLICT(pair_pk) DO UPDATE SET n_votes = excluded.n_votes, "
            "n_entailment = excluded.n_entailment, n_neutral = excluded.n_neutral, "
            "n_contradiction = excluded.n_contradiction, author_label = excluded.author_label",
            (json_array(sorted(set(pair_pks))),),
        )

    def remove_pair_labels(self, pair_pks: Iterable[int]) -> None:
        """Delete the `pair_labels` rows of these pairs (`check --repair`: pairs without votes,
        which no stage writes a row for)."""
        self.conn.execute(
            "DELETE FROM pair_labels WHERE pair_pk IN (SELECT value FROM json_each(?))",
            (json_array(sorted(set(pair_pks))),),
        )

    def int_columns(self, sql: str, params: Sequence[Any] = ()) -> list[NDArray[np.int64]]:
        """Integer columns of a query whose one row holds a `group_concat` per column.

        SQLite builds each column as one text in C and numpy parses it in C: a million
        rows arrive in a tenth of the time a fetch of Python tuples takes. The aggregates
        of one SELECT see the rows in the same order, so the columns stay aligned.
        """
        import numpy as np

        row = self.conn.execute(sql, tuple(params)).fetchone()
        return [np.fromstring(text or "", dtype=np.int64, sep=",") for text in row]

    @staticmethod
    def _label_code(labels: Sequence[str], column: str = "label") -> str:
        """SQL for the index of `column` among `labels` (parameters ?1..?n), else -1."""
        cases = " ".join(f"WHEN ?{i} THEN {i - 1}" for i in range(1, len(labels) + 1))
        return f"CASE {column} {cases} ELSE -1 END"

    def vote_arrays(self, labels: Sequence[str], annotators: bool = True) -> VoteArrays:
        """Every vote as parallel arrays in (pair, annotator) order: pair key, annotator
        key, position, and the label's index among `labels` (-1 for another value).
        Without `annotators`, only whether a vote is the author's (position 0 or not) is
        read, and annotator keys are left empty: half the text to move for statistics."""
        code = self._label_code(labels)
        if annotators:
            pair_pks, annotator_pks, positions, codes = self.int_columns(
                "SELECT group_concat(pair_pk), group_concat(annotator_pk), "
                f"group_concat(position), group_concat({code}) FROM votes",
                labels,
            )
            return VoteArrays(pair_pks, annotator_pks, positions, codes)
        # One column holds the label index and whether the vote is not the author's.
        pair_pks, packed = self.int_columns(
            f"SELECT group_concat(pair_pk), group_concat(({code}) * 2 + (position > 0)) FROM votes",
            labels,
        )
        codes = packed // 2
        return VoteArrays(pair_pks, packed[:0], packed - 2 * codes, codes)

    def vote_labels(self) -> list[str]:
        """Every label value given in a vote, sorted."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT label FROM votes ORDER BY 1")]

    def gold_arrays(
        self, method: str, labels: Sequence[str]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(pair keys in order, the gold label's index among `labels`, -1 for `-`)."""
        pair_pks, codes = self.int_columns(
            f"SELECT group_concat(pair_pk), group_concat({self._label_code(labels)}) "
            f"FROM (SELECT pair_pk, label FROM gold WHERE method = ?{len(labels) + 1} "
            "ORDER BY pair_pk)",
            [*labels, method],
        )
        return pair_pks, codes

    def annotator_ids(self) -> dict[int, str]:
        return dict(self.conn.execute("SELECT pk, id FROM annotators"))

    def violations_per_annotator(self) -> dict[str, int]:
        return dict(
            self.conn.execute(
                "SELECT a.id, count(*) FROM violations v "
                "JOIN annotators a ON a.pk = v.annotator_pk GROUP BY a.id"
            )
        )

    def write_posteriors(
        self, method: str, rows: Sequence[tuple[int, float, float, float]], run_id: int
    ) -> None:
        """Replace the posteriors of `method`: (pair_pk, p(e), p(n), p(c)) per pair."""
        self.conn.execute("DELETE FROM posteriors WHERE method = ?", (method,))
        self.insert("posteriors", [(pk, method, e, n, c) for pk, e, n, c in rows], run_id)

    def write_gold(self, method: str, rows: Sequence[GoldRow], run_id: int) -> None:
        """Replace the gold rows of `method` (a model's; the majority is on pair_labels)."""
        self.conn.execute("DELETE FROM gold_rows WHERE method = ?", (method,))
        self.insert("gold_rows", rows, run_id)

    def write_annotator_quality(
        self, method: str, rows: Sequence[tuple[int, str, float]], run_id: int
    ) -> None:
        """(annotator_pk, confusion matrix as JSON, reliability) per annotator."""
        self.conn.execute("DELETE FROM annotator_quality WHERE method = ?", (method,))
        self.conn.executemany(
            "INSERT INTO annotator_quality(annotator_pk, method, confusion_json, reliability, "
            "run_id) VALUES (?, ?, ?, ?, ?)",
            [(pk, method, confusion, reliability, run_id) for pk, confusion, reliability in rows],
        )

    def reliabilities(self, method: str) -> dict[str, float]:
        return dict(
            self.conn.execute(
                "SELECT a.id, q.reliability FROM annotator_quality q "
                "JOIN annotators a ON a.pk = q.annotator_pk WHERE q.method = ?",
                (method,),
            )
        )

    # --- counts for `info` -----------------------------------------------------------

    def count(self, table: str) -> int:
        if table not in _COUNTABLE_TABLES:
            raise ValueError(table)
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    # --- scores (issue 17) ------------------------------------------------------------

    def add_score_job(self, row: ScoreJobRow, run_id: int) -> int:
        """A job's row of `score_jobs`; returns its key."""
        cursor = self.conn.execute(
            "INSERT INTO score_jobs(run_id, name, model, mode, seed, train_langs, eval_langs, "
            "spec, folder) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, row.name, row.model, row.mode, row.seed, json_array(row.train_langs),
             json_array(row.eval_langs), row.spec, row.folder),
        )  # fmt: skip
        assert cursor.lastrowid is not None
        return int(cursor.lastrowid)

    def add_score_checkpoint(
        self, job_pk: int, checkpoint: ScoreCheckpointRow, accuracy: Sequence[ScoreAccuracyRow]
    ) -> None:
        """One checkpoint of a job and its accuracy rows (lang, split, slice, value,
        correct, total)."""
        self.conn.execute(
            "INSERT INTO score_checkpoints(job_pk, idx, step, epoch, examples_seen, train_loss, "
            "seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (job_pk, *checkpoint),
        )
        self.conn.executemany(
            "INSERT INTO score_accuracy(job_pk, idx, lang, split, slice, value, correct, total) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(job_pk, checkpoint[0], *row) for row in accuracy],
        )

    def finish_score_job(self, job_pk: int, dynamics: Sequence[DynamicsRow]) -> None:
        """Mark a job finished with its training dynamics, which replace any it had."""
        self.conn.execute("DELETE FROM score_dynamics WHERE job_pk = ?", (job_pk,))
        self.conn.executemany(
            "INSERT INTO score_dynamics(job_pk, pair_pk, confidence, variability, correctness, "
            "epochs) VALUES (?, ?, ?, ?, ?, ?)",
            [(job_pk, *row) for row in dynamics],
        )
        self.conn.execute("UPDATE score_jobs SET finished = 1 WHERE pk = ?", (job_pk,))
