"""IDs derived from content, for corpora that ship premises or pairs without IDs.

An ID numbered in input order makes the same corpus, its lines shuffled or its file read in
other chunks, give a different store. An ID taken from a hash of what the item is gives the
same ID whatever the order, so identical inputs give identical stores (issue 16).

- A premise: `<prefix>_<12 hex>`, the SHA-256 of its genre and exact text (`xnli_3f2a9c1b0d4e`).
  Twelve hex digits (48 bits) make a clash within one prefix unlikely even for a million
  premises (about 1 in 500); a clash takes the next longer prefix of the digest.
- A pair: `<premise>-<label initial>.<6 hex>`, the SHA-256 of its hypothesis
  (`xnli_3f2a9c1b0d4e-e.7c41a2`): the label stays readable, as in `<premise>-e1`, the dot
  keeps a digest of digits from reading as a count, and only the few pairs of one premise
  and label can clash.

Only a clash depends on what came first (the item seen first keeps the shorter ID).

`is_derived_premise_id` tells such a premise from one the corpus named: a file whose lines
name their premise but one (an MNLI line without `promptID`) gives that line a premise of
its own, which importing the file again must find, not the named one with the same text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container

import orjson

from nlibuild.errors import ConflictError

PREMISE_DIGITS = 12
"""Hex digits of a premise's digest in its ID: 48 bits, for corpora of a million premises."""

PAIR_DIGITS = 6
"""Hex digits of a hypothesis's digest in a pair ID: a premise has a handful of pairs a label."""

_LONGER_BY = 4
"""Hex digits added to the digest's share of an ID each time it clashes."""


def _is_taken(candidate: str, taken: tuple[Container[str], ...]) -> bool:
    # A loop, not any() (ruff's SIM110): this runs once a pair of a million-pair import,
    # and the generator costs more than the hash.
    for ids in taken:  # noqa: SIM110
        if candidate in ids:
            return True
    return False


def _first_free(stem: str, digest: str, digits: int, taken: tuple[Container[str], ...]) -> str:
    """`stem + digest[:n]` for the smallest n from `digits` (in steps) in none of `taken`."""
    while digits < len(digest):
        candidate = stem + digest[:digits]
        if not _is_taken(candidate, taken):
            return candidate
        digits += _LONGER_BY
    candidate = stem + digest
    if _is_taken(candidate, taken):
        raise ConflictError(
            f"ID {candidate} is already taken by another item; give the corpus's items IDs"
        )
    return candidate


def _premise_digest(genre: str | None, text: str) -> str:
    # orjson's array keeps genre and text apart unambiguously (a genre of None is not "").
    return hashlib.sha256(orjson.dumps((genre, text))).hexdigest()


def premise_id(prefix: str, genre: str | None, text: str, *taken: Container[str]) -> str:
    """The ID of a premise without one: `<prefix>_<digest of genre and text>`.

    `taken`: the IDs of other premises (stored, or earlier in the same import).
    """
    return _first_free(f"{prefix}_", _premise_digest(genre, text), PREMISE_DIGITS, taken)


def is_derived_premise_id(premise: str, genre: str | None, text: str) -> bool:
    """Whether `premise` is an ID `premise_id` gives the premise of this genre and text
    (whatever its prefix, which names the corpus file it came from)."""
    _, underscore, digits = premise.rpartition("_")
    return (
        bool(underscore)
        and len(digits) >= PREMISE_DIGITS
        and _premise_digest(genre, text).startswith(digits)
    )


def pair_id(premise: str, initial: str, hypothesis: str, *taken: Container[str]) -> str:
    """The ID of a pair without one: `<premise>-<label initial>.<digest of hypothesis>`.

    `taken`: the IDs of other pairs (stored, or earlier in the same import).
    """
    digest = hashlib.sha256(hypothesis.encode()).hexdigest()
    return _first_free(f"{premise}-{initial}.", digest, PAIR_DIGITS, taken)
