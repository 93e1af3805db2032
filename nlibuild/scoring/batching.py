"""Token IDs of a job's rows, computed once and cached beside the job, and the batches the
loop feeds the model.

Training batches are length-grouped (the rows of an epoch are shuffled by the seed, sorted
by length within mega-batches of `MEGA_BATCH` batches, cut into batches, and the batches
shuffled) and padded only to their own longest row, so that little of a batch is padding
while the order still changes every epoch. Evaluation rows are sorted by length, longest
first, and cut by a token budget and wherever the length changes: no batch has padding (so
none needs a mask, and SDPA can take its fastest kernel), and the largest comes first, so a
batch that does not fit in memory fails at once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MEGA_BATCH = 50
CACHE_PREFIX = "data/tokens-"


@dataclass(frozen=True)
class TokenizedRows:
    """Rows of token IDs stored flat: row i is `ids[starts[i]:starts[i + 1]]`."""

    ids: np.ndarray  # int32
    segments: np.ndarray  # int8, the token type IDs (0 for the premise, 1 for the hypothesis)
    starts: np.ndarray  # int64, one more than there are rows

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    def __len__(self) -> int:
        return len(self.starts) - 1


def tokenize(
    tokenizer: Any,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    *,
    max_length: int,
    hypothesis_only: bool,
    chunk: int = 4096,
) -> TokenizedRows:
    """Token IDs of every pair, truncated to `max_length` (the longer side first, as
    XNLI's and XTREME's scripts do); the hypothesis alone when `hypothesis_only`."""
    ids: list[np.ndarray] = []
    segments: list[np.ndarray] = []
    lengths: list[int] = []
    for begin in range(0, len(hypotheses), chunk):
        end = begin + chunk
        if hypothesis_only:
            encoded = tokenizer(list(hypotheses[begin:end]), truncation=True, max_length=max_length)
        else:
            encoded = tokenizer(
                list(premises[begin:end]),
                list(hypotheses[begin:end]),
                truncation="longest_first",
                max_length=max_length,
            )
        types = encoded.get("token_type_ids")
        for index, row in enumerate(encoded["input_ids"]):
            ids.append(np.asarray(row, dtype=np.int32))
            kinds = types[index] if types is not None else [0] * len(row)
            segments.append(np.asarray(kinds, dtype=np.int8))
            lengths.append(len(row))
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    return TokenizedRows(_concat(ids, np.int32), _concat(segments, np.int8), starts)


def _concat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def cache_path(job_folder: Path, tokenizer: Any, max_length: int, hypothesis_only: bool) -> Path:
    """Where the token IDs of this job's pairs under this tokenizer and length live: the
    name holds a hash of the pairs file, the tokenizer's definition and the settings, so a
    changed input never reads a stale cache."""
    digest = hashlib.sha256()
    with (job_folder / "data/pairs.jsonl").open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    digest.update(_tokenizer_definition(tokenizer).encode("utf-8"))
    digest.update(f"|{max_length}|{hypothesis_only}".encode())
    return job_folder / f"{CACHE_PREFIX}{digest.hexdigest()[:16]}.npz"


def _tokenizer_definition(tokenizer: Any) -> str:
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        return str(backend.to_str())
    return f"{type(tokenizer).__name__}|{sorted(tokenizer.get_vocab().items())}"


def load_or_tokenize(
    path: Path,
    tokenizer: Any,
    premises: Sequence[str],
    hypotheses: Sequence[str],
    *,
    max_length: int,
    hypothesis_only: bool,
) -> TokenizedRows:
    if path.exists():
        with np.load(path) as cached:
            return TokenizedRows(cached["ids"], cached["segments"], cached["starts"])
    rows = tokenize(
        tokenizer, premises, hypotheses, max_length=max_length, hypothesis_only=hypothesis_only
    )
    partial = path.with_name(path.name + ".partial.npz")
    np.savez(partial, ids=rows.ids, segments=rows.segments, starts=rows.starts)
    os.replace(partial, path)
    return rows


def training_batches(
    lengths: np.ndarray, batch_size: int, *, seed: int, epoch: int
) -> list[np.ndarray]:
    """The row indexes of every batch of one epoch, in the order they are trained on; the
    same seed and epoch give the same batches (what makes a resumed run the same run)."""
    generator = np.random.default_rng([seed, epoch])
    order = generator.permutation(len(lengths))
    batches: list[np.ndarray] = []
    span = batch_size * MEGA_BATCH
    for begin in range(0, len(order), span):
        mega = order[begin : begin + span]
        mega = mega[np.argsort(-lengths[mega], kind="stable")]
        batches.extend(mega[i : i + batch_size] for i in range(0, len(mega), batch_size))
    shuffled = generator.permutation(len(batches))
    return [batches[i] for i in shuffled]


def evaluation_batches(lengths: np.ndarray, max_tokens: int) -> list[np.ndarray]:
    """All rows sorted by length, longest first (ties in row order), cut so that every
    batch's rows have one length and no batch holds more than `max_tokens` tokens (at least
    one row a batch). XNLI's 112,500 evaluation rows have about 120 lengths, so this adds
    about 120 batches to the ~80 the budget alone gives, and takes every padding token out."""
    order = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[order]
    changes = np.flatnonzero(np.diff(sorted_lengths)) + 1
    batches: list[np.ndarray] = []
    for run in np.split(np.arange(len(order)), changes):
        if len(run) == 0:
            continue
        size = max(max_tokens // max(int(sorted_lengths[run[0]]), 1), 1)
        batches.extend(order[run[begin : begin + size]] for begin in range(0, len(run), size))
    return batches


def padded(rows: TokenizedRows, batch: np.ndarray, pad_id: int) -> dict[str, np.ndarray]:
    """input_ids, token_type_ids and attention_mask of `batch`, padded on the right to the
    batch's longest row."""
    lengths = rows.lengths[batch]
    width = int(lengths.max()) if len(batch) else 0
    input_ids = np.full((len(batch), width), pad_id, dtype=np.int64)
    token_types = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.arange(width)[None, :] < lengths[:, None]
    for slot, row in enumerate(batch):
        begin, end = rows.starts[row], rows.starts[row + 1]
        input_ids[slot, : end - begin] = rows.ids[begin:end]
        token_types[slot, : end - begin] = rows.segments[begin:end]
    return {
        "input_ids": input_ids,
        "token_type_ids": token_types,
        "attention_mask": mask.astype(np.int64),
    }
