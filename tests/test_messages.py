"""The workbench's message catalogs (issue 26: pages a Chinese or Korean writer can use):
every message the templates and the code use has a Chinese and a Korean entry, none falls
back to English unseen, and every translation keeps its message's placeholders."""

from __future__ import annotations

import pytest
from message_ids import message_uses

from nlibuild.errors import ConfigError
from nlibuild.workbench.messages import (
    LANGUAGE_NAMES,
    SOURCE_LANGUAGE,
    Text,
    catalog,
    localised,
    parse_po,
    placeholders,
)

TRANSLATED = sorted(set(LANGUAGE_NAMES) - {SOURCE_LANGUAGE})


def test_the_workbench_speaks_english_chinese_and_korean() -> None:
    assert TRANSLATED == ["ko", "zh"]


def test_the_ids_are_found_in_the_templates_and_the_code() -> None:
    ids = {use.msgid for use in message_uses()}
    # One of each kind of use: a template's _(), a template's _n(), Text(), gettext_noop()
    # and a catalog's .text() in the code.
    assert {"Submit and go on", "{count} item", "There is no batch {batch} of yours."} <= ids
    assert {"label missing", "Submitting is off until you fix: {reasons}"} <= ids
    assert len(ids) > 120


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_in_use_has_an_entry(lang: str) -> None:
    entries = catalog(lang).entries
    missing = [f"{use.where}: {use.msgid!r}" for use in message_uses() if use.msgid not in entries]
    assert missing == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_entry_is_left_over_from_a_message_no_longer_used(lang: str) -> None:
    used = {use.msgid for use in message_uses()}
    assert sorted(set(catalog(lang).entries) - used) == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_placeholders_of_its_message(lang: str) -> None:
    wrong = [
        (entry.line, entry.msgid, form)
        for entry in catalog(lang).entries.values()
        for form in entry.forms
        if placeholders(form) != placeholders(entry.msgid_plural or entry.msgid)
        and placeholders(form) != placeholders(entry.msgid)
    ]
    assert wrong == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_counted_messages_are_plural_entries_with_the_same_plural(lang: str) -> None:
    entries = catalog(lang).entries
    for use in message_uses():
        if use.msgid in entries:
            assert entries[use.msgid].msgid_plural == use.plural, use.where


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_translation_is_the_english_text_unless_it_has_no_words(lang: str) -> None:
    """A message copied over untranslated is caught: only texts without letters (a pattern
    like "{label} {number}", "HTTP {status}") may read the same in every language."""
    copied = [
        entry.msgid
        for entry in catalog(lang).entries.values()
        if entry.forms[0] == entry.msgid and any(c.isalpha() for c in _words_of(entry.msgid))
    ]
    assert copied == []


def _words_of(text: str) -> str:
    """`text` without its placeholders and the names every language keeps (HTTP, KiB)."""
    for field in placeholders(text):
        text = text.replace("{" + field + "}", "")
    for kept in ("HTTP", "KiB"):
        text = text.replace(kept, "")
    return text


def test_a_message_is_given_in_the_catalogs_language_with_its_values() -> None:
    assert catalog("zh").text("Premise {number} of {total}", number=2, total=4) == (
        "第 2 个前提句，共 4 个"
    )
    assert catalog("ko").text("Submit and go on") == "제출하고 계속"
    assert catalog("en").text("Premise {number} of {total}", number=2, total=4) == (
        "Premise 2 of 4"
    )


def test_english_counts_choose_the_singular_or_plural_and_chinese_has_one_form() -> None:
    english = catalog("en")
    assert english.plural("{count} item", "{count} items", 1) == "1 item"
    assert english.plural("{count} item", "{count} items", 3) == "3 items"
    assert catalog("zh").plural("{count} item", "{count} items", 3) == "3 项"


def test_a_text_raised_before_the_page_knows_its_language_is_worded_in_it() -> None:
    message = Text("There is no batch {batch} of yours.", batch="b7")
    assert message == "There is no batch b7 of yours."
    assert localised(message, catalog("ko")) == "내 배치 중에 b7 배치는 없습니다."
    assert localised("plain text", catalog("zh")) == "plain text"


def test_a_message_a_catalog_lacks_is_shown_in_english_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert catalog("zh").text("A message {n} nobody wrote", n=1) == "A message 1 nobody wrote"
    assert "no zh message for 'A message {n} nobody wrote'" in caplog.text


def test_placeholders_keep_their_format_specs_and_conversions() -> None:
    assert placeholders("{share:.0%} of {label!r}, {count}") == {"share:.0%", "label!r", "count"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('msgid "Sign out"\nmsgstr ""\n', "is not translated"),
        ('#, fuzzy\nmsgid "Sign out"\nmsgstr "退出"\n', "is not translated"),
        ('msgid "Sign out"\nmsgstr "退出"\n\nmsgid "Sign out"\nmsgstr "登出"\n', "given twice"),
        ('msgid "Sign out"\nmsgstr 退出\n', "a quoted string was expected"),
        ('"stray"\n', "continues no keyword"),
        ('msgid "a"\nmsgctxt "b"\nmsgstr "c"\n', "'msgctxt' is not expected here"),
    ],
)
def test_a_catalog_that_is_not_reviewed_po_is_refused_naming_the_line(
    text: str, problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem) as refused:
        parse_po(text, "zh.po")
    assert str(refused.value).startswith("zh.po:")


def test_a_po_entry_continues_over_lines_and_keeps_its_escapes() -> None:
    text = 'msgid ""\n"Line one\\n"\n"said \\"two\\""\nmsgstr "一\\n"\n"二"\n'
    entry = parse_po(text, "zh.po")['Line one\nsaid "two"']
    assert entry.forms == ("一\n二",)
