"""The workbench in its annotators' languages (issue 26: "for a Chinese batch everything but
the label names and the instructions is English"): a page about a batch speaks the batch's
language, Chinese or Korean, buttons, progress, feedback and errors alike; a person's own
choice overrides it; the instructions name the fields the form shows; the lead page stays
English.

The Chinese store is the README walkthrough's (tests/serve_stores.py: OCNLI preset,
MULTI_CONSTRAINT batches); the Korean one has two premises relabelled by v01."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from message_ids import TEMPLATES, template_uses
from serve_stores import (
    batches_of,
    korean_relabel_store,
    signed_in,
    workbench_db,
    workbench_template,
)
from starlette.testclient import TestClient

from nlibuild.models import Role
from nlibuild.web.context import STATIC
from nlibuild.web.language import LANGUAGE_COOKIE

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name


def csrf_of(page: str) -> str:
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def english_sentences(*templates: str) -> set[str]:
    """The templates' messages of several words and no value: what an untranslated page
    would show word for word."""
    return {
        use.msgid
        for name in templates
        for use in template_uses(TEMPLATES / name)
        if " " in use.msgid and "{" not in use.msgid and use.msgid[0].isupper()
    }


def instructions_of(page: str) -> str:
    return page.split('<details class="instructions">', 1)[1].split("</details>", 1)[0]


@pytest.fixture
def chinese_writer(workbench_db: Path) -> Iterator[TestClient]:
    """w01 of the Chinese store, who has chosen no language."""
    with signed_in(workbench_db, "w01", Role.WRITER, lang=None) as client:
        yield client


@pytest.fixture
def own_batch(workbench_db: Path) -> str:
    return batches_of(workbench_db, "w01", "elicit")[0]


def test_a_chinese_writers_page_speaks_chinese_unasked(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    assert '<html lang="zh">' in page
    assert "提交并继续" in page and "检查并保存草稿" in page and "退出登录" in page
    assert "第 1 个前提句，共 4 个" in page and "任务说明（MULTI_CONSTRAINT）" in page
    assert "此前提句无法使用" in page
    shown_in_english = sorted(s for s in english_sentences("write.html", "base.html") if s in page)
    assert shown_in_english == []


def test_the_feedback_of_a_chinese_draft_is_chinese(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    premise = re.search(r'<blockquote class="premise" id="premise-text" lang="zh">(.*?)<', page)
    assert premise is not None
    premise_id = re.search(r'action="/write/[^/]+/([^"]+)" id="write-form"', page)
    assert premise_id is not None
    view = chinese_writer.post(
        f"/write/{own_batch}/{premise_id[1]}/feedback",
        json={"fields": {"entailment_1": premise[1], "contradiction_1": "他没有去。"}},
        headers={"X-CSRF-Token": csrf_of(page)},
    ).json()
    copied = view["fields"]["entailment_1"]
    assert copied["overlap_text"].startswith("重合 100%")
    assert [note["text"] for note in copied["notes"]] == [
        "错误（阻止提交）：照抄前提句：假设句与前提句相同"
    ]
    negated = view["fields"]["contradiction_1"]["notes"]
    assert [note["text"] for note in negated] == ["已标出否定词：没有"]
    assert view["blocked_reason"].startswith("请先修正以下问题才能提交：蕴含 1（简单）：照抄前提句")
    every_text = [note["text"] for field in view["fields"].values() for note in field["notes"]]
    every_text += [view["blocked_reason"], *(n["text"] for n in view["answer_notes"])]
    assert [text for text in every_text if re.search("[a-z]{3,}", text)] == []


def test_an_untouched_chinese_premise_shows_a_hint_not_errors(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    assert "错误" not in page.split('id="write-form"', 1)[1]
    premise_id = re.search(r'action="/write/[^/]+/([^"]+)" id="write-form"', page)
    assert premise_id is not None
    view = chinese_writer.post(
        f"/write/{own_batch}/{premise_id[1]}/feedback",
        json={"fields": {}},
        headers={"X-CSRF-Token": csrf_of(page)},
    ).json()
    assert [note["text"] for note in view["answer_notes"]] == [
        "提示：还没有写任何内容：请写出假设句，或将前提句标为无法使用。"
    ]
    assert view["blocked_reason"] == "暂不能提交：请写出假设句，或将前提句标为无法使用。"


def test_the_instructions_name_the_fields_the_form_shows(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    instructions = instructions_of(page)
    assert re.search(r"(entailment|neutral|contradiction)_\d|unusable", instructions) is None
    named = set(re.findall(r"<strong>((?:蕴含|中立|矛盾) \d)</strong>", instructions))
    form_label = r'<label for="f-[a-z_0-9]+"><span lang="zh">(\S+)</span> (\d)'
    shown = {f"{name} {k}" for name, k in re.findall(form_label, page)}
    assert shown == {f"{name} {k}" for name in ("蕴含", "中立", "矛盾") for k in (1, 2, 3)}
    # "from 蕴含 1 to 蕴含 3", and the worked example's 蕴含 1, 中立 1, 矛盾 1
    assert named <= shown and {"蕴含 1", "蕴含 3", "矛盾 1", "矛盾 3"} <= named
    assert "只勾选各栏下方的“此前提句无法使用”" in instructions
    # The source's line breaks inside Chinese sentences show as nothing, not as spaces.
    assert "同一类的句子按你想到的先后顺序填写" in instructions
    assert '<label for="f-unusable">此前提句无法使用' in page


def test_english_instructions_name_the_fields_as_the_form_shows_them_too(
    workbench_db: Path, own_batch: str
) -> None:
    with signed_in(workbench_db, "w01", Role.WRITER, lang="en") as writer:
        instructions = instructions_of(writer.get(f"/write/{own_batch}").text)
    assert "Tick the" in instructions and "<strong>蕴含 1</strong> to <strong>蕴含 3</strong>" in (
        instructions
    )
    assert re.search(r"(entailment|neutral|contradiction)_\d|`", instructions) is None


def test_a_persons_choice_overrides_the_batch_language_and_goes_back_to_the_page(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    back = f"/write/{own_batch}?premise=x1"
    chosen = chinese_writer.post(
        "/language",
        data={"csrf_token": csrf_of(page), "lang": "en", "back": back},
        follow_redirects=False,
    )
    assert chosen.status_code == 303 and chosen.headers["location"] == back
    assert chosen.cookies[LANGUAGE_COOKIE] == "en"
    page = chinese_writer.get(f"/write/{own_batch}").text
    assert '<html lang="en">' in page and "Submit and go on" in page and "Premise 1 of 4" in page
    chinese_writer.post("/language", data={"csrf_token": csrf_of(page), "lang": "ko"})
    page = chinese_writer.get(f"/write/{own_batch}").text
    assert '<html lang="ko">' in page and "제출하고 계속" in page
    assert 'lang="zh">蕴含</span> 1' in page  # the batch's label names stay the batch's


@pytest.mark.parametrize("lang", ["fr", "", "zh-CN", "<script>"])
def test_the_switch_takes_only_a_language_the_workbench_has(
    chinese_writer: TestClient, own_batch: str, lang: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    refused = chinese_writer.post(
        "/language", data={"csrf_token": csrf_of(page), "lang": lang, "back": "/"}
    )
    assert refused.status_code == 400 and LANGUAGE_COOKIE not in refused.cookies
    assert '<html lang="zh">' in chinese_writer.get(f"/write/{own_batch}").text


@pytest.mark.parametrize(
    "back", ["//evil.example/x", "https://evil.example/", "/\\evil.example", "write", "/a\nb"]
)
def test_the_switch_never_sends_anyone_off_this_server(
    chinese_writer: TestClient, back: str
) -> None:
    page = chinese_writer.get("/").text
    chosen = chinese_writer.post(
        "/language",
        data={"csrf_token": csrf_of(page), "lang": "en", "back": back},
        follow_redirects=False,
    )
    assert chosen.status_code == 303 and chosen.headers["location"] == "/"


def test_a_forged_language_cookie_is_ignored(workbench_db: Path, own_batch: str) -> None:
    with signed_in(workbench_db, "w01", Role.WRITER, lang="xx") as writer:
        page = writer.get(f"/write/{own_batch}").text
    assert '<html lang="zh">' in page and "xx" not in re.findall(r'lang="([^"]*)"', page)


def test_the_switch_without_the_pages_token_is_refused(chinese_writer: TestClient) -> None:
    refused = chinese_writer.post("/language", data={"lang": "en", "back": "/"})
    assert refused.status_code == 403 and LANGUAGE_COOKIE not in refused.cookies


def test_an_error_about_a_batch_speaks_the_batch_language(
    chinese_writer: TestClient, own_batch: str
) -> None:
    missing = chinese_writer.get(f"/write/{own_batch}?premise=nope")
    assert missing.status_code == 404
    assert '<html lang="zh">' in missing.text and "<h1>找不到</h1>" in missing.text
    assert f"批次 {own_batch} 中没有前提句 nope。" in missing.text


def test_an_error_elsewhere_speaks_the_persons_choice(workbench_db: Path) -> None:
    with signed_in(workbench_db, "w01", Role.WRITER, lang="ko") as writer:
        missing = writer.get("/write/b9999")
    assert missing.status_code == 404 and "내 배치 중에 b9999 배치는 없습니다." in missing.text


def test_the_home_page_speaks_the_language_of_the_persons_batches(
    chinese_writer: TestClient,
) -> None:
    page = chinese_writer.get("/").text
    assert '<html lang="zh">' in page and "<h1>我的任务</h1>" in page and "未完成的批次" in page


def test_the_lead_page_stays_english_whatever_the_choice(workbench_db: Path) -> None:
    with signed_in(workbench_db, "lead01", Role.LEAD, lang="zh") as lead:
        page = lead.get("/lead").text
    assert '<html lang="en">' in page and "Sign out" in page


@pytest.fixture
def korean_validator(tmp_path: Path) -> Iterator[TestClient]:
    db = korean_relabel_store(tmp_path)
    with signed_in(db, "v01", Role.VALIDATOR, lang=None) as client:
        yield client


def test_a_korean_validators_page_speaks_korean(korean_validator: TestClient) -> None:
    page = korean_validator.get("/label/r0001").text
    assert '<html lang="ko">' in page and "<h1>배치 r0001</h1>" in page
    assert "6개 중 1번째 항목" in page and '<h2 class="part">전제</h2>' in page
    buttons = re.findall(r"<kbd>\d</kbd> ([^<]+)</button>", page)
    assert buttons == ["함의", "중립", "모순"]
    assert "키: 1–3 레이블 선택" in page
    voted = korean_validator.post(
        "/label/r0001/vote", data={"csrf_token": csrf_of(page), "item": "1", "label": "neutral"}
    )
    assert "1번 항목의 레이블 취소" in voted.text and "6개 중 2번째 항목" in voted.text
    shown_in_english = sorted(s for s in english_sentences("label.html", "base.html") if s in page)
    assert shown_in_english == []


def css_rules() -> list[tuple[list[str], str]]:
    """(selectors, declarations) of the workbench's stylesheet, comments left out."""
    css = re.sub(r"/\*.*?\*/", "", (STATIC / "workbench.css").read_text("utf-8"), flags=re.S)
    rules = re.findall(r"([^{}]+)\{([^{}]*)\}", css)
    return [([s.strip() for s in selectors.split(",")], body) for selectors, body in rules]


def test_the_stylesheet_never_slants_cjk_text_and_sets_it_in_cjk_fonts() -> None:
    """Checked in Chromium by tests/test_serve_localised_browser.py where it is installed;
    here, in the stylesheet itself: every italic rule has an upright twin for Chinese,
    Japanese and Korean (and so has <em>, which the instructions' examples use)."""
    rules = css_rules()
    italic = {s for selectors, body in rules if "italic" in body for s in selectors}
    upright = {s for selectors, body in rules if "font-style: normal" in body for s in selectors}
    assert italic == {".hypothesis"}
    for selector in [*italic, "em"]:
        assert {f"{selector}:lang({lang})" for lang in ("zh", "ja", "ko")} <= upright
    fonts = {s: body for selectors, body in rules for s in selectors if "font-family" in body}
    assert '"Noto Sans CJK SC"' in fonts[":where(:lang(zh))"]
    assert '"Noto Sans CJK KR"' in fonts[":where(:lang(ko))"]


def test_the_switch_on_a_page_a_form_answered_goes_back_to_that_page_not_the_form(
    chinese_writer: TestClient, own_batch: str
) -> None:
    page = chinese_writer.get(f"/write/{own_batch}").text
    premise_id = re.search(r'action="/write/[^/]+/([^"]+)" id="write-form"', page)
    assert premise_id is not None
    form = {"csrf_token": csrf_of(page), "action": "check", "neutral_1": "天气很好。"}
    checked = chinese_writer.post(f"/write/{own_batch}/{premise_id[1]}", data=form).text
    assert f'name="back" value="/write/{own_batch}?premise={premise_id[1]}"' in checked
    refused = chinese_writer.post("/logout", data={"csrf_token": csrf_of(page), "x": "1"})
    assert refused.status_code == 400 and 'name="back" value="/"' in refused.text
