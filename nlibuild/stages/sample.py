"""`nlibuild sample`: draw premises from the sentence pool, per genre, by length, seeded.

MNLI and XNLI sampled 250 sentences from each genre, never reusing a sentence of an
earlier release (XNLI section 3.1); OCNLI kept sentences of 8 to 50 characters (OCNLI
section 3.1). Here a sentence is never sampled twice (across genres and runs, and not if
it is already a premise), never if an `--exclude` file holds it, and the choice depends
only on the pool's content and the seed, not on the order sources were ingested in: each
genre's order is a seeded random map of the sentences' text hashes (see SeededOrder).
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple, NoReturn

from nlibuild.core.registry import SAMPLE
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.formats.input_files import require_regular_file
from nlibuild.formats.sources import read_texts_to_exclude
from nlibuild.models import SampleConfig, SampledGenre, SampleResult
from nlibuild.queries.pool import PoolSentence, count_available, genres_in_pool, sample_sentences
from nlibuild.queries.premises import keys_of_premises, premise_ids_with_prefix
from nlibuild.render import counted, run_note
from nlibuild.store import Store
from nlibuild.text.lang import text_keys

ORDER_PRIME = 2_147_483_647
"""2^31 - 1: sentences are ordered by (a * (key mod p) + b) mod p, then by key. The maps
x -> a*x + b mod p form a pairwise independent family, so two seeds give two unrelated
random orders; with p < 2^31 the product stays inside SQLite's 64-bit integers."""


class SeededOrder(NamedTuple):
    multiplier: int
    offset: int

    def rank(self, key: int) -> tuple[int, int]:
        """The sort key of a sentence, as queries.pool.sample_sentences computes it in SQL."""
        return ((key % ORDER_PRIME) * self.multiplier + self.offset) % ORDER_PRIME, key


ID_DIGITS = 4
"""Premise IDs are `<genre>_<number>`, numbered from 1 with at least 4 digits (`gov_0001`)."""


def seeded_order(seed: int, genre: str) -> SeededOrder:
    """The random affine map mod a prime that orders a genre's sentences for this seed."""
    digest = hashlib.blake2b(f"{seed}\x00{genre}".encode(), digest_size=16).digest()
    multiplier = 1 + int.from_bytes(digest[:8], "big") % (ORDER_PRIME - 1)
    offset = int.from_bytes(digest[8:], "big") % ORDER_PRIME
    return SeededOrder(multiplier, offset)


def length_bins(low: int, high: int, bins: int) -> list[tuple[int, int]]:
    """`bins` contiguous integer ranges covering [low, high], as equal as integers allow."""
    span = high - low + 1
    if bins > span:
        raise ConfigError(
            f"--balance-lengths {bins}: the range {low}-{high} has only {span} lengths"
        )
    edges = [low + span * i // bins for i in range(bins + 1)]
    return [(edges[i], edges[i + 1] - 1) for i in range(bins)]


def bin_quotas(n: int, available: list[int]) -> list[int]:
    """Split `n` as evenly as possible over bins, giving a short bin's shortfall to the
    others in order (the caller has checked that the bins hold `n` in all)."""
    quotas = [0] * len(available)
    remaining = n
    open_bins = [i for i, a in enumerate(available) if a > 0]
    while remaining and open_bins:
        share, extra = divmod(remaining, len(open_bins))
        for position, index in enumerate(open_bins):
            want = share + (1 if position < extra else 0)
            take = min(want, available[index] - quotas[index])
            quotas[index] += take
            remaining -= take
        open_bins = [i for i in open_bins if quotas[i] < available[i]]
    return quotas


def run(store: Store, cfg: SampleConfig) -> SampleResult:
    """Sample premises into `store` in one transaction; nothing is written on error."""
    if cfg.min_len > cfg.max_len:
        raise ConfigError(
            f"--min-len {cfg.min_len} is above --max-len {cfg.max_len}; swap or fix them"
        )
    pool_genres = genres_in_pool(store, cfg.lang)
    if not pool_genres:
        where = f" in language {cfg.lang}" if cfg.lang else ""
        raise ConfigError(f"the sentence pool is empty{where}; run `nlibuild ingest` first")
    genres = sorted(set(pool_genres if cfg.all_genres else cfg.genres))
    if not genres:
        raise ConfigError("name the genres with --genre G (repeatable) or use --per-genre N")
    unknown = [g for g in genres if g not in pool_genres]
    if unknown:
        raise ConfigError(
            f"no sentences of genre {', '.join(unknown)} in the pool "
            f"(genres: {', '.join(pool_genres)}); ingest them or fix --genre"
        )
    for path in cfg.exclude:
        require_regular_file(path, "--exclude file")
    bins = length_bins(cfg.min_len, cfg.max_len, cfg.balance_bins) if cfg.balance_bins else None
    text_lang = cfg.lang or store.meta().get("lang", "en")

    with store.recorded_run(SAMPLE, cfg) as run:
        run_id = run.id
        taken = keys_of_premises(store, text_lang)
        excluded_texts = 0
        for path in cfg.exclude:
            for text in read_texts_to_exclude(path):
                taken |= text_keys(text, text_lang)
                excluded_texts += 1
        store.set_taken_keys(taken)

        next_pk = store.next_pk("premises")
        results: list[SampledGenre] = []
        for genre in genres:
            chosen, qualifying = _choose(store, cfg, genre, bins)
            number = _last_number(store, genre)
            rows = []
            for sentence in chosen:
                number += 1
                premise_id = f"{genre}_{number:0{ID_DIGITS}d}"
                rows.append(
                    (next_pk, premise_id, genre, sentence.lang, sentence.text, sentence.length,
                     sentence.pk)
                )  # fmt: skip
                next_pk += 1
            store.add_sampled_premises(rows, run_id)
            # Later genres of this run must not take these sentences again.
            store.add_taken_keys(s.key for s in chosen)
            results.append(
                SampledGenre(
                    genre=genre,
                    sampled=len(rows),
                    qualifying=qualifying,
                    first_id=rows[0][1] if rows else None,
                    last_id=rows[-1][1] if rows else None,
                )
            )
        counts = {"premises_added": sum(r.sampled for r in results), "genres": len(results)}
        run.finish(counts)
    return SampleResult(
        run_id=run_id, signature=run.signature, genres=results, excluded_texts=excluded_texts
    )


def _choose(
    store: Store, cfg: SampleConfig, genre: str, bins: list[tuple[int, int]] | None
) -> tuple[list[PoolSentence], int | None]:
    """The sentences to sample for `genre`, in seeded order, and how many qualified
    (counted only when length bins need it)."""
    unit = cfg.unit.value
    order = seeded_order(cfg.seed, genre)
    if bins is None:
        # One scan of the genre in the common case; counting takes a second scan, so it
        # is done only to explain a shortfall.
        chosen = sample_sentences(
            store, genre, cfg.lang, unit, cfg.min_len, cfg.max_len, order, cfg.n
        )
        if len(chosen) < cfg.n:
            _shortfall(cfg, genre, len(chosen))
        return chosen, None
    available = [count_available(store, genre, cfg.lang, unit, lo, hi) for lo, hi in bins]
    if sum(available) < cfg.n:
        _shortfall(cfg, genre, sum(available))
    chosen = []
    for (low, high), quota in zip(bins, bin_quotas(cfg.n, available), strict=True):
        if quota:
            chosen += sample_sentences(store, genre, cfg.lang, unit, low, high, order, quota)
    chosen.sort(key=lambda s: order.rank(s.key))
    return chosen, sum(available)


def _shortfall(cfg: SampleConfig, genre: str, qualifying: int) -> NoReturn:
    raise ConfigError(
        f"genre {genre}: only {qualifying} sentences qualify (length "
        f"{cfg.min_len}-{cfg.max_len} {_unit_name(cfg)}, not yet a premise, not excluded); "
        f"asked for {cfg.n}. Lower --n, widen the lengths, or ingest more text"
    )


def _unit_name(cfg: SampleConfig) -> str:
    return "in each language's unit" if cfg.unit.value == "auto" else cfg.unit.value


def _last_number(store: Store, genre: str) -> int:
    """The highest number among the store's `<genre>_<number>` premise IDs (0 if none)."""
    pattern = re.compile(rf"{re.escape(genre)}_(\d+)")
    numbers = [
        int(found.group(1))
        for premise_id in premise_ids_with_prefix(store, genre)
        if (found := pattern.fullmatch(premise_id))
    ]
    return max(numbers, default=0)


def summary(_cfg: SampleConfig, result: SampleResult) -> str:
    parts = [
        f"{g.genre} {g.sampled} ({g.first_id}..{g.last_id}"
        + (f" of {g.qualifying} qualifying)" if g.qualifying is not None else ")")
        for g in result.genres
    ]
    total = sum(g.sampled for g in result.genres)
    return f"Sampled {counted(total, 'premise')}: {'; '.join(parts)} {run_note(result)}"


STAGE = Stage(SAMPLE, settings=SampleConfig, run=run, summary=summary)
