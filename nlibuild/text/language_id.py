"""Which language a file of translations is in, from a sample of its units, offline.

A translation file imported under the wrong `--lang` (an Urdu file as Hindi, a Swahili file
as Burmese) passes every check of one unit against its source, and then poisons each table
and export of the language. `translate import` therefore identifies the language of a
sample of the units it reads and refuses the file when a clear majority is another
language. The identifier is py3langid (a maintained fork of langid.py, Lui and Baldwin
2012): its naive Bayes model over byte n-grams ships inside the wheel (4.5 MB), loads in
about half a second and needs no network. It knows 140 languages, among them all 15 of
XNLI, Burmese, Indonesian, Basque, Quechua and Guaraní; of AmericasNLI it does not know
Aymara, Bribri, Asháninka, Wixarika, Nahuatl, Otomí, Shipibo-Konibo or Rarámuri, and files
in those languages are not identified (the import says so).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Protocol

from nlibuild.protocol.ranking import seeded_rank
from nlibuild.text.lang import primary_language
from nlibuild.text.writing_systems import scripted_chars

if TYPE_CHECKING:
    from collections.abc import Iterable

IDENTIFIER = "py3langid"

SAMPLE_SIZE = 200
"""Units identified per import: enough for a clear majority to show, cheap at any size."""

SAMPLE_SEED = 16
"""The seed of the sample's order (by a hash of each unit ID: file order does not matter)."""

MIN_LETTERS = 10
"""Shorter units (in characters of a script) are not identified: too little to go on."""

MIN_IDENTIFIED = 5
"""Fewer identified units give no verdict: one odd row would decide a tiny file."""

CLEAR_MAJORITY = 0.6
"""A file is refused when at least this share of its identified sample is one other
language. On myXNLI's dev units py3langid names the right language for all of 400 Swahili,
400 Burmese and 400 English ones, so a wrong --lang shows as nearly 100%."""

IDENTIFIER_CODES: dict[str, str] = {"quy": "qu", "gn": "gug"}
"""Codes of nlibuild's languages that py3langid spells differently: AmericasNLI's Ayacucho
Quechua is its Quechua, and its Guaraní is py3langid's Paraguayan Guaraní."""

SAME_TO_THE_IDENTIFIER: dict[str, frozenset[str]] = {
    "id": frozenset({"ms"}), "ms": frozenset({"id"}),
    "ar": frozenset({"arz", "ary"}), "zh": frozenset({"yue", "wuu"}),
    "no": frozenset({"nn", "da"}), "nb": frozenset({"nn", "da"}),
    "hr": frozenset({"bs", "sr"}), "bs": frozenset({"hr", "sr"}), "sr": frozenset({"hr", "bs"}),
}  # fmt: skip
"""Languages the identifier cannot keep apart reliably (Indonesian and Malay, Arabic and its
Egyptian and Moroccan varieties, Chinese varieties, Norwegian and Danish, Bosnian, Croatian
and Serbian): naming one of them for a file of the other is no mismatch."""


class _Classifier(Protocol):
    labels: list[str]

    def classify(self, text: str) -> tuple[str, float]: ...


@cache
def _identifier() -> _Classifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier: _Classifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return identifier


def identifier_code(lang: str) -> str | None:
    """The identifier's code for `lang`, or None when it does not know the language."""
    primary = primary_language(lang)
    code = IDENTIFIER_CODES.get(primary, primary)
    return code if code in _identifier().labels else None


@dataclass(frozen=True)
class LanguageVerdict:
    """What the identifier made of a sample of a file's units declared to be `lang`."""

    lang: str
    sampled: int = 0
    identified: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    skipped: str | None = None

    @property
    def other(self) -> tuple[str, float] | None:
        """(language, share of the sample) when a clear majority is another language."""
        if self.skipped or self.sampled < MIN_IDENTIFIED:
            return None
        code = identifier_code(self.lang)
        accepted = {code} | SAME_TO_THE_IDENTIFIER.get(primary_language(self.lang), frozenset())
        label, n = self.identified.most_common(1)[0]
        share = n / self.sampled
        return (label, share) if label not in accepted and share >= CLEAR_MAJORITY else None

    def refusal(self) -> str | None:
        """Why the file is not `lang`, naming the language, its share and example units;
        None when it is not a clear mismatch."""
        if (other := self.other) is None:
            return None
        label, share = other
        examples = ", ".join(self.examples[label][:3])
        return (
            f"{share:.0%} of {self.sampled} sampled units are identified as {label}, not "
            f"{self.lang} (e.g. {examples}); check --lang, or pass --force to import anyway"
        )

    def note(self) -> str:
        """One line for the import's report."""
        if self.skipped:
            return f"language not identified: {self.skipped}"
        if self.sampled < MIN_IDENTIFIED:
            return (
                f"language not identified: {self.sampled} of the units have {MIN_LETTERS} or "
                f"more letters, too few to tell"
            )
        shares = ", ".join(
            f"{label} {n / self.sampled:.0%}" for label, n in self.identified.most_common(3)
        )
        return f"language identified ({IDENTIFIER}) in {self.sampled} sampled units: {shares}"


def sample_units(units: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Up to SAMPLE_SIZE (unit ID, text) pairs with MIN_LETTERS or more letters, chosen by a
    seeded hash of the unit ID: the same units whatever order the file lists them in."""
    eligible = [(u, t) for u, t in units if scripted_chars(t) >= MIN_LETTERS]
    eligible.sort(key=lambda pair: seeded_rank(SAMPLE_SEED, pair[0]))
    return eligible[:SAMPLE_SIZE]


def identify_language(units: Iterable[tuple[str, str]], lang: str) -> LanguageVerdict:
    """Identify the language of a sample of `units` (unit ID, text) declared to be `lang`.
    For a language the identifier does not know, nothing is identified and the verdict
    says why."""
    if identifier_code(lang) is None:
        return LanguageVerdict(lang, skipped=f"{IDENTIFIER} does not know {lang}")
    sample = sample_units(units)
    identified: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for unit_id, text in sorted(sample):
        label, _ = _identifier().classify(text)
        identified[label] += 1
        examples.setdefault(label, []).append(unit_id)
    return LanguageVerdict(lang, len(sample), identified, examples)
