"""A tiny random BERT-like classifier with a tokenizer built from the caller's texts.

For the tests, `make score-demo` and a user's smoke test of a GPU node: it needs no model hub
and no download, only torch, transformers and tokenizers. Its weights are random, so what it
learns in a few hundred steps is what the data teaches it, which is what a test of the
training loop wants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def build_tiny_model(
    folder: Path | str,
    texts: Iterable[str],
    *,
    num_labels: int = 3,
    seed: int = 0,
    vocab_size: int = 2000,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    max_position: int = 256,
    dropout: float = 0.1,
) -> Path:
    """Build a WordPiece tokenizer from `texts`, make a random BERT-like sequence classifier
    with `num_labels` outputs, save both into `folder` (safetensors) and return `folder`.
    `dropout` 0 makes training the same function of the data however a batch is split
    (the DDP test compares one process with two)."""
    import torch
    from transformers import AutoModelForSequenceClassification, BertConfig
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(texts, vocab_size, max_position)
    tokenizer.save_pretrained(str(folder))
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=hidden * 4,
        max_position_embeddings=max_position,
        num_labels=num_labels,
        pad_token_id=tokenizer.pad_token_id,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_config(config)
    model.save_pretrained(str(folder), safe_serialization=True)
    return folder


def _train_tokenizer(texts: Iterable[str], vocab_size: int, max_position: int) -> Any:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    normalizer = normalizers.BertNormalizer(lowercase=True)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    vocabulary = _vocabulary(texts, normalizer, pre_tokenizer, vocab_size)
    wordpiece = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]"))
    wordpiece.normalizer = normalizer
    wordpiece.pre_tokenizer = pre_tokenizer
    wordpiece.decoder = decoders.WordPiece()
    # BERT's pair layout: [CLS] premise [SEP] hypothesis [SEP], segment 0 then 1.
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=wordpiece,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=max_position,
        # Segment IDs tell BERT which side of the pair a token is on.
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],
    )


def _vocabulary(
    texts: Iterable[str], normalizer: Any, pre_tokenizer: Any, vocab_size: int
) -> dict[str, int]:
    """The WordPiece vocabulary, token -> ID: the special tokens, every character of the
    texts alone and as a continuation (`##c`), so that any word of them can be spelt, then
    whole words, the most frequent first (ties alphabetically), while fewer than
    `vocab_size` tokens are taken. Built here, not by tokenizers' WordPieceTrainer, whose
    ties fall in hash order: the same texts gave other merges and IDs from one run to the
    next, and so another model, where a test or `make score-demo` needs the same one."""
    counts: Counter[str] = Counter()
    for text in texts:
        normalized = normalizer.normalize_str(text)
        counts.update(word for word, _ in pre_tokenizer.pre_tokenize_str(normalized))
    characters = sorted({character for word in counts for character in word})
    tokens = [*SPECIAL_TOKENS, *characters, *(f"##{c}" for c in characters)]
    ranked = sorted((word for word in counts if len(word) > 1), key=lambda w: (-counts[w], w))
    tokens += ranked[: max(vocab_size - len(tokens), 0)]
    return {token: index for index, token in enumerate(tokens)}
