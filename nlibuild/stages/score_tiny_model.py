"""`score tiny-model`: a random BERT-like classifier whose tokenizer is trained on the
store's texts, saved to a folder `score train --model` can load.

Its weights are random and it is tiny (2 layers, hidden size 32 unless `--hidden`), so it
is a smoke test of the pipeline (`make score-demo`, a GPU node's set-up), not a baseline:
the baselines are `score baselines`. It needs the `score` extra, and nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

from nlibuild.errors import ConfigError
from nlibuild.models import ScoreTinyModelConfig
from nlibuild.queries.scores import corpus_texts
from nlibuild.scores.score_jobs import require_torch
from nlibuild.store import Store


def run(store: Store, cfg: ScoreTinyModelConfig) -> Path:
    """Build the model into `cfg.out` (which must not hold files yet); returns the folder."""
    out = Path(cfg.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out}: already exists and is not an empty folder; name a new one")
    require_torch("score tiny-model")
    texts = list(corpus_texts(store))
    if not texts:
        raise ConfigError(f"{store.path}: the store holds no texts to train a tokenizer on")
    from nlibuild.scoring.tiny import build_tiny_model

    # One attention head per 16 hidden units, as BERT-base's 768 has 12 of 64: 32 gives 2.
    return build_tiny_model(out, texts, seed=cfg.seed, hidden=cfg.hidden, heads=cfg.hidden // 16)
