"""A synthetic NLI corpus whose labels follow a rule planted in its words, and copies of it
in other languages that follow the rule less faithfully.

A tiny random model (`nlibuild.scoring.tiny`) learns the rule in a few hundred steps on a
CPU, which the training loop's tests and `make score-demo` both need: a model that learns,
so that its checkpoints differ. The rule: contradiction when the hypothesis says `not`, else
entailment when the premise says `sure`, else neutral. Every other word is a filler `w0` ...
`w39` that says nothing about the label.

Hedged pairs (`hedged_share`) add what a real corpus has and a rule lacks: items on which
annotators split (Pavlick and Kwiatkowski 2019). Their premise says `sure` and their
hypothesis `perhaps`, and their gold label is entailment or neutral at random, so no model
can do better than chance on them. A trained model sits near the boundary between the two
labels there, and its argmax flips from checkpoint to checkpoint: the movement of dev and
test accuracy after the rule is learnt that checkpoint selection is about (Keung et al.
2020), and the "ambiguous" region of Dataset Cartography (Swayamdipta et al. 2020).

A copy in another language (`Divergence`) keeps the fillers, as a translation keeps names
and numbers, and the cue words, the anchors a multilingual model shares across languages,
except in a share of their occurrences, different per cue and per language, where a cue is
translated into the language's own word, which a model trained on English never saw; each
unit also gains one or two of the language's function words. An English-trained model so
transfers, but scores lower than in English, and its target-language accuracy moves
differently from its English accuracy between checkpoints.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

FILLER = tuple(f"w{n}" for n in range(40))
"""Words that carry no label: the rule never looks at them."""

ENTAILMENT_CUE = "sure"
"""In the premise: entailment, unless the hypothesis has the contradiction cue."""

CONTRADICTION_CUE = "not"
"""In the hypothesis: contradiction."""

HEDGE_CUE = "perhaps"
"""In the hypothesis of a hedged pair: entailment or neutral, annotators split."""

LABELS = ("entailment", "neutral", "contradiction")
"""What `planted_pair`'s label index means (nlibuild's NLI label order)."""


def planted_pair(rng: random.Random, hedged_share: float = 0.0) -> tuple[str, str, int]:
    """Random words, and a label a rule over both sides decides: contradiction when the
    hypothesis says `not`, else entailment when the premise says `sure`, else neutral.
    With `hedged_share`, that share of the pairs are hedged instead (see the module
    docstring). Returns (premise, hypothesis, label index into LABELS).

    Without `hedged_share` it draws from `rng` exactly as it always did, so that tests
    seeded before hedged pairs existed see the same pairs."""
    premise = [rng.choice(FILLER) for _ in range(rng.randint(4, 14))]
    hypothesis = [rng.choice(FILLER) for _ in range(rng.randint(2, 8))]
    if hedged_share and rng.random() < hedged_share:
        premise.insert(rng.randint(0, len(premise)), ENTAILMENT_CUE)
        hypothesis.insert(rng.randint(0, len(hypothesis)), HEDGE_CUE)
        return " ".join(premise), " ".join(hypothesis), rng.randrange(2)
    label = rng.randrange(3)
    if label == 0 or (label == 2 and rng.random() < 0.5):
        premise.insert(rng.randint(0, len(premise)), ENTAILMENT_CUE)
    if label == 2:
        hypothesis.insert(rng.randint(0, len(hypothesis)), CONTRADICTION_CUE)
    return " ".join(premise), " ".join(hypothesis), label


def is_hedged(hypothesis: str) -> bool:
    """Whether a hypothesis of `planted_pair` is a hedged pair's."""
    return HEDGE_CUE in hypothesis.split()


@dataclass(frozen=True)
class Divergence:
    """How a language's copy departs from the English: `cues` maps each cue word to the
    language's own word and `translated_shares` gives the share of its occurrences
    translated so; 1 to `most_function_words` of `function_words` go into every unit."""

    lang: str
    cues: Mapping[str, str]
    translated_shares: Mapping[str, float]
    function_words: tuple[str, ...]
    most_function_words: int = 2

    def translate(self, text: str, rng: random.Random) -> str:
        """The unit `text` (a premise or a hypothesis) in this language."""
        words = [
            self.cues[word] if word in self.cues and rng.random() < self.translated_shares[word]
            else word
            for word in text.split()
        ]  # fmt: skip
        for _ in range(rng.randint(1, self.most_function_words)):
            words.insert(rng.randint(0, len(words)), rng.choice(self.function_words))
        return " ".join(words)


GERMAN = Divergence(
    "de",
    cues={ENTAILMENT_CUE: "sicher", CONTRADICTION_CUE: "nicht", HEDGE_CUE: "vielleicht"},
    translated_shares={ENTAILMENT_CUE: 0.1, CONTRADICTION_CUE: 0.15, HEDGE_CUE: 0.3},
    function_words=("der", "die", "das", "und", "ist", "ein", "mit", "auf"),
)
FRENCH = Divergence(
    "fr",
    cues={ENTAILMENT_CUE: "certain", CONTRADICTION_CUE: "pas", HEDGE_CUE: "probablement"},
    translated_shares={ENTAILMENT_CUE: 0.2, CONTRADICTION_CUE: 0.25, HEDGE_CUE: 0.5},
    function_words=("le", "la", "les", "et", "est", "une", "avec", "sur"),
)
DIVERGENCES = (GERMAN, FRENCH)
"""The demo's target languages: French departs from the English more than German does."""
