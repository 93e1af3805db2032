"""The layering the code keeps: stages do not import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import nlibuild

PACKAGE = Path(nlibuild.__file__).parent
STAGES = PACKAGE / "stages"

STAGE_IMPORTS_PENDING = {
    ("aggregate", "stats"),  # read_votes, moving to nlibuild/queries/votes.py
    ("stats", "sample"),  # keys_of_premises, now nlibuild/queries/premises.py
}
"""Stage imports that the stats-registry work removes (stats.py and read_votes are theirs)."""


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, absolute (`from . import x` resolved in its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = "nlibuild." + ".".join(path.relative_to(PACKAGE).parent.parts)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_no_stage_imports_another_stage() -> None:
    stage_names = {p.stem for p in STAGES.glob("*.py") if p.stem != "__init__"}
    offending = []
    for path in sorted(STAGES.glob("*.py")):
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[:2] != ["nlibuild", "stages"]:
                continue
            target = parts[2] if len(parts) > 2 else "__init__"
            if target == path.stem or (path.stem, target) in STAGE_IMPORTS_PENDING:
                continue
            if target in stage_names or target == "__init__":
                offending.append(f"{path.name} imports {module}")
    assert offending == []


def test_pending_stage_imports_are_still_there() -> None:
    """An exception that is no longer needed is taken off the list."""
    for stage, target in sorted(STAGE_IMPORTS_PENDING):
        modules = imported_modules(STAGES / f"{stage}.py")
        assert any(m.startswith(f"nlibuild.stages.{target}") for m in modules), (stage, target)
