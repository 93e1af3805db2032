"""`nlibuild translate export|import`: translation units out, translations back, checked.

XNLI (section 3.2) had premises and hypotheses translated separately, so that no context
leaks into a hypothesis, and copied the labels from the source. Units are therefore a
premise `p:<premise id>` (each once) or a hypothesis `h:<pair id>`; labels never travel.
Translated corpora have lost IDs and rows on the way (KorNLI, AmericasNLI), so an import
checks coverage: units of the store left without a translation and rows for units the
store does not hold are listed, and are an error unless `--partial`.
"""

from __future__ import annotations

from collections import Counter

from nlibuild._version import VERSION
from nlibuild.errors import ConfigError, ConflictError, InputError
from nlibuild.formats.tabular import file_sha256
from nlibuild.formats.units import read_units, write_units
from nlibuild.lang import primary_language
from nlibuild.models import (
    TranslateExportConfig,
    TranslateExportResult,
    TranslateImportConfig,
    TranslateImportResult,
    TranslationUnit,
)
from nlibuild.render import counted
from nlibuild.signature import make_signature
from nlibuild.store import Store, TranslationRow
from nlibuild.translation_checks import CORPUS_CHECKS, Check, corpus_checks, unit_checks

_LISTED = 5
"""How many missing or extra units an error names."""


def export(store: Store, cfg: TranslateExportConfig) -> TranslateExportResult:
    signature = make_signature(
        "translate-export",
        {"lang": cfg.lang, "kind": cfg.kind.value, "format": cfg.format.value,
         "missing-only": cfg.missing_only or None},
        VERSION,
    )  # fmt: skip
    with store.atomic():
        run_id = store.start_run("translate-export", cfg.model_dump(mode="json"), signature,
                                 VERSION)  # fmt: skip
        done = store.translations_in(cfg.lang, cfg.kind.value) if cfg.missing_only else {}
        units = [
            TranslationUnit(unit_id=unit_id, source_lang=lang, source=text, lang=cfg.lang)
            for unit_id, lang, text in store.source_units()
            if unit_id not in done and primary_language(lang) != primary_language(cfg.lang)
        ]
        if not units:
            raise ConfigError(
                f"nothing to translate into {cfg.lang}: the store has no pairs in another "
                "language" + (" without a translation" if cfg.missing_only else "")
            )
        write_units(cfg.out, cfg.format, units)
        premises = sum(1 for u in units if u.unit_id.startswith("p:"))
        store.finish_run(run_id, {"premises": premises, "hypotheses": len(units) - premises})
    return TranslateExportResult(
        run_id=run_id, signature=signature, premises=premises,
        hypotheses=len(units) - premises, out=cfg.out,
    )  # fmt: skip


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")


def import_(store: Store, cfg: TranslateImportConfig) -> TranslateImportResult:
    rows: dict[str, tuple[int, str]] = {}
    for line, unit_id, text, lang in read_units(cfg.path, cfg.format):
        if lang is not None and primary_language(lang) != primary_language(cfg.lang):
            raise InputError(
                cfg.path, f"{unit_id} is marked lang {lang}, not {cfg.lang}; check --lang", line
            )
        if unit_id in rows:
            raise InputError(
                cfg.path,
                f"{unit_id} again (first at line {rows[unit_id][0]}); keep one of the rows",
                line,
            )
        rows[unit_id] = (line, text)
    signature = make_signature(
        "translate-import",
        {"lang": cfg.lang, "kind": cfg.kind.value, "file": file_sha256(cfg.path)[:12],
         "translator": cfg.translator, "partial": cfg.partial or None},
        VERSION,
    )  # fmt: skip
    with store.atomic():
        run_id = store.start_run("translate-import", cfg.model_dump(mode="json"), signature,
                                 VERSION)  # fmt: skip
        target = primary_language(cfg.lang)
        sources = {
            u: (lang, text)
            for u, lang, text in store.source_units()
            if primary_language(lang) != target
        }
        stored = store.translations_in(cfg.lang, cfg.kind.value)
        extra = [u for u in rows if u not in sources]
        missing = [u for u in sources if u not in rows and u not in stored]
        if (extra or missing) and not cfg.partial:
            problems = []
            if missing:
                problems.append(
                    f"{counted(len(missing), 'unit')} without a translation ({_listed(missing)})"
                )
            if extra:
                problems.append(
                    f"{counted(len(extra), 'row')} for units the store does not hold "
                    f"({_listed(extra)})"
                )
            raise InputError(
                cfg.path, "; ".join(problems) + "; fix the file, or pass --partial to import "
                "what matches"
            )  # fmt: skip
        translator_pk = store.ensure_annotators([cfg.translator])[cfg.translator] if (
            cfg.translator) else None  # fmt: skip
        new: list[TranslationRow] = []
        checks: list[Check] = []
        unchanged = empty = 0
        for unit_id, (line, text) in rows.items():
            if unit_id not in sources:
                continue
            text = " ".join(text.split())
            source_lang, source = sources[unit_id]
            found = unit_checks(unit_id, source, source_lang, text, cfg.lang)
            if unit_id in stored:
                if stored[unit_id] == text:
                    unchanged += 1
                    continue
                raise ConflictError(
                    f"{cfg.path}, line {line}: {unit_id} already has another {cfg.kind.value} "
                    f"translation into {cfg.lang} ({stored[unit_id][:60]!r}); nlibuild keeps the "
                    "first: remove the row, or import it as another --kind"
                )
            checks += found
            if not text:
                empty += 1
                continue
            new.append(TranslationRow(unit_id, cfg.lang, cfg.kind.value, text, translator_pk))
        store.insert("translations", new, run_id)
        everything = stored | {row.unit_id: row.text for row in new}
        checks += corpus_checks(
            everything, {u: text for u, (_, text) in sources.items()}, store.hypothesis_premises()
        )
        # A unit translated now sheds what was found on it before (an empty row); the
        # checks across units are computed again over all translations.
        store.clear_translation_checks(
            cfg.lang, cfg.kind.value, [row.unit_id for row in new], CORPUS_CHECKS
        )
        store.add_translation_checks(
            [(c.unit_id, cfg.lang, cfg.kind.value, c.check, c.detail) for c in checks], run_id
        )
        counts = Counter(c.check for c in checks)
        left = [u for u in sources if u not in everything]
        result = TranslateImportResult(
            run_id=run_id, signature=signature, rows=len(rows), added=len(new),
            unchanged=unchanged, empty=empty, missing=len(left), extra=len(extra),
            checks=dict(sorted(counts.items())),
        )  # fmt: skip
        store.finish_run(run_id, {"rows": len(rows), "added": len(new), "unchanged": unchanged,
                                  "missing": len(left), "extra": len(extra)})  # fmt: skip
    return result
