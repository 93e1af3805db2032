"""The message IDs the workbench uses, found where they are written: `_("...")` and
`_n("...", "...", n)` in the templates (read with Jinja's own parser), and in the code the
first text given to `Text(...)`, `gettext_noop(...)`, a catalog's `.text(...)` and the two of
`.plural(...)` (read with Python's `ast`). tests/test_messages.py checks every catalog
against them."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import jinja2
from jinja2 import nodes

import nlibuild

PACKAGE = Path(nlibuild.__file__).parent
TEMPLATES = PACKAGE / "web" / "templates"
CODE = [*sorted((PACKAGE / "web").glob("*.py")), *sorted((PACKAGE / "workbench").glob("*.py"))]
ENGLISH_ONLY_TEMPLATES = {"lead.html"}
"""The lead page stays English (nlibuild/web/language.py)."""


@dataclass(frozen=True)
class MessageUse:
    msgid: str
    plural: str | None
    where: str


def template_uses(path: Path) -> list[MessageUse]:
    tree = jinja2.Environment().parse(path.read_text(encoding="utf-8"))
    found = []
    for call in tree.find_all(nodes.Call):
        if not isinstance(call.node, nodes.Name) or call.node.name not in ("_", "_n"):
            continue
        texts = [arg.value for arg in call.args if isinstance(arg, nodes.Const)]
        assert texts and all(isinstance(t, str) for t in texts[:2]), f"{path.name}:{call.lineno}"
        plural = texts[1] if call.node.name == "_n" else None
        found.append(MessageUse(texts[0], plural, f"{path.name}:{call.lineno}"))
    return found


def _called(call: ast.Call) -> str:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else ""


def code_uses(path: Path) -> list[MessageUse]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not call.args:
            continue
        name = _called(call)
        first = call.args[0]
        if name not in ("Text", "gettext_noop", "text", "plural"):
            continue
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue  # a message looked up from a table of gettext_noop texts
        plural = None
        if name == "plural":
            second = call.args[1]
            assert isinstance(second, ast.Constant) and isinstance(second.value, str)
            plural = second.value
        where = f"{path.relative_to(PACKAGE)}:{call.lineno}"
        found.append(MessageUse(first.value, plural, where))
    return found


def message_uses() -> list[MessageUse]:
    """Every use of a message ID in the templates (but the English-only ones) and the code."""
    uses = [
        use
        for path in sorted(TEMPLATES.glob("*.html"))
        if path.name not in ENGLISH_ONLY_TEMPLATES
        for use in template_uses(path)
    ]
    return uses + [use for path in CODE for use in code_uses(path)]
