"""Whether the rows of a row-aligned translation line up with its reference's.

A translation without IDs (myXNLI, KorNLI) is matched to its source by position alone, so
a file in another order would put every translation under another pair, and its export
under another pair's label. XNLI's translations "simply copy the labels from the English
source text" (section 3.2), its tsv files carry the pair and prompt IDs and the genre, and
myXNLI keeps the English beside the Burmese. Each of these a row carries is evidence of
which source row it is, and none of it is a translator's judgement, so it must agree:

- `label`: the row's label, against its reference row's (labels are copied, not re-made);
- `pairID`, `promptID`, `genre`: where both files have the column;
- `source text`: a copy of the source texts in the translation (myXNLI's `sentence1_en`,
  `sentence2_en`), against the reference row's, after Unicode (NFC) and white-space
  normalisation. Such a column is evidence only when most of its rows hold texts of the
  reference, in whatever order: myXNLI's `*.trans` files put a back-translation into
  English there, which is no copy;
- `premise repetition`: XNLI gave each premise three hypotheses on consecutive rows and
  translated premises apart from hypotheses (section 3.2), so where the source premise
  repeats, its translation repeats too. Not the other way round: a source may write one
  premise two ways (XNLIvar's Basque has `lur-hartzea` and `lurhartzea` in one group of
  three) that translate alike. A row moved among the rows of another premise (in groups
  of two or more) breaks a repetition of the source, so this direction alone shows it.

On the myXNLI files (Swahili and Burmese, dev and test: 15,000 rows) and XNLIvar's Basque
with its English (621 rows) no row disagrees on any of them; a shuffled file, one shifted
by a row and one with two rows swapped all do. The rule is therefore strict: one
disagreeing row refuses the import (`--force` takes the rows as they stand).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from nlibuild.formats.units import SentencePairRow

LABEL, SOURCE_TEXT, REPETITION = "label", "source text", "premise repetition"


@dataclass(frozen=True)
class RowDisagreement:
    """What a translation's row says against its reference row."""

    line: int
    reference_line: int
    pair_id: str
    found: list[str] = field(default_factory=list)
    """Each disagreement in words, e.g. label 'neutral' where the source has 'entailment'."""
    kinds: list[str] = field(default_factory=list)


def plain(text: str) -> str:
    """NFC, and white-space runs as one space, none at the ends."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _plain_pair(texts: tuple[str, str]) -> tuple[str, str]:
    return plain(texts[0]), plain(texts[1])


def _copy_is_evidence(translated: Sequence[SentencePairRow], reference: Sequence[SentencePairRow]
                      ) -> bool:  # fmt: skip
    """Whether the translation's copy column holds the reference's texts (in any order)."""
    copies = [_plain_pair(r.copy) for r in translated if r.copy is not None]
    if not copies:
        return False
    texts = {(plain(r.premise), plain(r.hypothesis)) for r in reference}
    return 2 * sum(copy in texts for copy in copies) > len(translated)


def _repeats(rows: Sequence[SentencePairRow], index: int) -> bool | None:
    """Whether row `index` has the premise of the row before it; None for the first row,
    or when either premise is empty (an untranslated row says nothing of its place)."""
    if index == 0:
        return None
    premise, before = plain(rows[index].premise), plain(rows[index - 1].premise)
    return premise == before if premise and before else None


def _row_findings(
    row: SentencePairRow,
    source: SentencePairRow,
    label_of: Callable[[str], str],
    copy_counts: bool,
) -> list[tuple[str, str]]:
    """(kind, words) of what one row says against its reference row, but repetition."""
    found: list[tuple[str, str]] = []
    labels = (row.label, source.label)
    if (
        labels[0] is not None
        and labels[1] is not None
        and label_of(labels[0]) != label_of(labels[1])
    ):
        found.append((LABEL, f"label {labels[0]!r} where the source has {labels[1]!r}"))
    for column, value in row.ids.items():
        expected = source.ids.get(column)
        if expected is not None and value != expected:
            found.append((column, f"{column} {value!r} where the source has {expected!r}"))
    source_texts = (plain(source.premise), plain(source.hypothesis))
    if copy_counts and row.copy is not None and _plain_pair(row.copy) != source_texts:
        found.append((SOURCE_TEXT, f"its {row.copy_columns} is not the source's text"))
    return found


def disagreements(
    translated: Sequence[SentencePairRow],
    reference: Sequence[SentencePairRow],
    pair_ids: Sequence[str],
    label_of: Callable[[str], str],
) -> list[RowDisagreement]:
    """The rows of `translated` whose evidence disagrees with the reference row at the same
    position (the two are of one length; `pair_ids` names each reference row's pair)."""
    copy_counts = _copy_is_evidence(translated, reference)
    found: list[RowDisagreement] = []
    for index, (row, source) in enumerate(zip(translated, reference, strict=True)):
        findings = _row_findings(row, source, label_of, copy_counts)
        if _repeats(reference, index) and _repeats(translated, index) is False:
            before = translated[index - 1].line
            findings.append(
                (REPETITION, f"its premise is not line {before}'s where the source's repeats")
            )
        if findings:
            found.append(
                RowDisagreement(
                    line=row.line, reference_line=source.line, pair_id=pair_ids[index],
                    found=[words for _, words in findings],
                    kinds=[kind for kind, _ in findings],
                )
            )  # fmt: skip
    return found


def disagreement_counts(found: Sequence[RowDisagreement]) -> dict[str, int]:
    """How many rows disagree on each kind of evidence, most first."""
    counts = Counter(kind for row in found for kind in row.kinds)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
