"""The workbench's words in the annotators' languages: gettext-style message catalogs.

Every sentence a workbench page or its feedback shows is written in the code and the
templates in English, as the message ID (`Text("Premise {number} of {total}", ...)`, or
`{{ _("Sign out") }}` in a template), and looked up in the page language's catalog:
`resources/messages/<lang>.po`, a gettext PO file kept as it is reviewed and read at load
(no compile step: a fresh clone runs). English is the IDs themselves. Values go in as
named `str.format` fields (`{number}`), which a translation must keep, every one and no
other (tests/test_messages.py checks this and that every ID in use has an entry in every
catalog); a count that changes the English wording is a plural entry (`msgid_plural`,
`msgstr[n]`; Chinese and Korean have one form).

A message an entry lacks is shown in English and logged, never a failed page: the test
keeps that from shipping.
"""

from __future__ import annotations

import ast
import logging
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from nlibuild.errors import ConfigError
from nlibuild.text.lang import primary_language

SOURCE_LANGUAGE = "en"
"""The language the message IDs are written in: its catalog is the IDs themselves."""
LANGUAGE_NAMES = {"en": "English", "zh": "中文", "ko": "한국어"}
"""The workbench's languages, each by its own name (how the language switch lists them)."""
CATALOGS = "resources/messages"
LOG = logging.getLogger("nlibuild.web")


@dataclass(frozen=True)
class Entry:
    """One message of a catalog: its ID (and plural ID) and its translated forms."""

    msgid: str
    msgid_plural: str | None
    forms: tuple[str, ...]
    line: int


def placeholders(text: str) -> set[str]:
    """The `str.format` fields of `text`, with their conversions and format specs:
    {"count", "share:.0%", "label!r"}."""
    fields = set()
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            shown = f"{name}!{conversion}" if conversion else name
            fields.add(f"{shown}:{spec}" if spec else shown)
    return fields


class Catalog:
    """The messages of one language; `text` and `plural` give them with their values."""

    def __init__(self, lang: str, entries: Mapping[str, Entry]) -> None:
        self.lang = lang
        self.entries = dict(entries)

    def text(self, msgid: str, /, **values: object) -> str:
        """The message `msgid` in this language, its fields filled from `values`."""
        entry = self._entry(msgid)
        return (entry.forms[0] if entry else msgid).format(**values)

    def plural(self, singular: str, plural: str, count: int, /, **values: object) -> str:
        """The form of a counted message for `count` (given to it as `{count}`)."""
        entry = self._entry(singular)
        if entry is None:
            chosen = singular if count == 1 else plural
        else:
            chosen = entry.forms[min(self._form_index(count), len(entry.forms) - 1)]
        return chosen.format(count=count, **values)

    def _form_index(self, count: int) -> int:
        # Plural-Forms: English nplurals=2 (n != 1); Chinese and Korean nplurals=1.
        return 0 if self.lang != SOURCE_LANGUAGE or count == 1 else 1

    def _entry(self, msgid: str) -> Entry | None:
        if self.lang == SOURCE_LANGUAGE:
            return None
        entry = self.entries.get(msgid)
        if entry is None:
            LOG.warning("no %s message for %r: shown in English", self.lang, msgid)
        return entry


def gettext_noop(msgid: str) -> str:
    """`msgid`, marked as a message of the catalogs (gettext's name for it): a table's
    words, looked up where they are shown."""
    return msgid


class Text(str):
    """A message not yet in a page's language (an error raised before the page knows it):
    as a `str`, the English text; `in_language` gives it in a catalog's language."""

    msgid: str
    values: dict[str, object]

    def __new__(cls, msgid: str, /, **values: object) -> Text:
        made = super().__new__(cls, msgid.format(**values))
        made.msgid = msgid
        made.values = values
        return made

    def in_language(self, catalog: Catalog) -> str:
        return catalog.text(self.msgid, **self.values)


def localised(message: str, catalog: Catalog) -> str:
    """`message` in the catalog's language when it is a `Text`; any other text as it is."""
    return message.in_language(catalog) if isinstance(message, Text) else message


def page_languages() -> tuple[str, ...]:
    """The languages a page can be shown in: English and those with a catalog."""
    return tuple(LANGUAGE_NAMES)


def known_language(lang: str | None) -> str | None:
    """`lang`'s primary language (`zh` for `zh-Hans`) when pages can be shown in it."""
    if not lang:
        return None
    primary = primary_language(lang)
    return primary if primary in LANGUAGE_NAMES else None


@cache
def catalog(lang: str) -> Catalog:
    """The catalog of `lang` (one of `page_languages()`), read once."""
    if lang == SOURCE_LANGUAGE:
        return Catalog(lang, {})
    if lang not in LANGUAGE_NAMES:
        raise ConfigError(f"no workbench messages in {lang!r}; choose one of {page_languages()}")
    resource = resources.files("nlibuild").joinpath(f"{CATALOGS}/{lang}.po")
    path = f"nlibuild/{CATALOGS}/{lang}.po"
    return Catalog(lang, parse_po(resource.read_text(encoding="utf-8"), path))


def parse_po(text: str, path: str) -> dict[str, Entry]:
    """The entries of a PO file's text: msgid, msgid_plural, msgstr and msgstr[n], their
    strings continued on the following lines; the header (msgid "") and comments skipped.
    A fuzzy entry, an empty translation or an ID given twice is a `ConfigError` naming the
    line: a catalog is reviewed, not guessed."""
    entries: dict[str, Entry] = {}
    for start, fuzzy, keys in _blocks(text, path):
        msgid = keys.get("msgid")
        if msgid is None:
            raise ConfigError(f"{path}:{start}: an entry without msgid")
        if msgid == "":
            continue
        forms = tuple(keys[k] for k in sorted(k for k in keys if k.startswith("msgstr")))
        where = f"{path}:{start}: {msgid!r}"
        if fuzzy or not forms or not all(forms):
            raise ConfigError(f"{where} is not translated (fuzzy or empty); translate it")
        if msgid in entries:
            raise ConfigError(f"{where} is given twice (first at line {entries[msgid].line})")
        entries[msgid] = Entry(msgid, keys.get("msgid_plural"), forms, start)
    return entries


_KEYWORDS = ("msgid_plural", "msgid", "msgstr")


def _blocks(text: str, path: str) -> Iterator[tuple[int, bool, dict[str, str]]]:
    """(first line, fuzzy, keyword -> string) of each entry; entries are parted by blank
    lines."""
    keys: dict[str, str] = {}
    start, fuzzy, last = 0, False, ""
    for number, raw in enumerate([*text.splitlines(), ""], 1):
        line = raw.strip()
        if not line:
            if keys:
                yield start, fuzzy, keys
            keys, fuzzy, last = {}, False, ""
            continue
        start = start if keys or fuzzy else number
        if line.startswith("#"):
            fuzzy = fuzzy or (line.startswith("#,") and "fuzzy" in line)
            continue
        if line.startswith('"'):
            if not last:
                raise ConfigError(f"{path}:{number}: a string continues no keyword")
            keys[last] += _po_string(line, path, number)
            continue
        keyword, _, rest = line.partition(" ")
        if not keyword.startswith(_KEYWORDS) or keyword in keys:
            raise ConfigError(f"{path}:{number}: {keyword!r} is not expected here")
        keys[keyword] = _po_string(rest.strip(), path, number)
        last = keyword


def _po_string(quoted: str, path: str, number: int) -> str:
    """A PO string literal (C escapes, as Python reads them in a plain string)."""
    if len(quoted) < 2 or not (quoted.startswith('"') and quoted.endswith('"')):
        raise ConfigError(f"{path}:{number}: a quoted string was expected, not {quoted!r}")
    try:
        value = ast.literal_eval(quoted)
    except (SyntaxError, ValueError):
        raise ConfigError(f"{path}:{number}: {quoted!r} is not a PO string") from None
    if not isinstance(value, str):
        raise ConfigError(f"{path}:{number}: {quoted!r} is not a PO string")
    return value
