"""The layering the code keeps: stages do not import each other, and only the store and
its read paths (nlibuild/queries) run SQL."""

from __future__ import annotations

import ast
from pathlib import Path

import nlibuild

PACKAGE = Path(nlibuild.__file__).parent
STAGES = PACKAGE / "stages"


def imported_modules(path: Path, root: Path = PACKAGE) -> set[str]:
    """Every module `path` imports, absolute (`from . import x` resolved in its package,
    `root` being the directory of package `nlibuild`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ".".join(("nlibuild", *path.relative_to(root).parent.parts))
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
            if target == path.stem:
                continue
            if target in stage_names or target == "__init__":
                offending.append(f"{path.name} imports {module}")
    assert offending == []


def test_read_paths_and_the_kernel_import_no_stage() -> None:
    """queries/ and core/ sit under the stages: a stage may use them, never the reverse."""
    offending = [
        f"{path.relative_to(PACKAGE)} imports {module}"
        for folder in ("queries", "core")
        for path in sorted((PACKAGE / folder).glob("*.py"))
        for module in imported_modules(path)
        if module.startswith("nlibuild.stages") or module.startswith("nlibuild.cli")
    ]
    assert offending == []


SQL_HOMES = ("store.py", "queries/", "core/")
"""Where SQL text may run: the store's core (connection, schema, writes) and the read paths."""

_SQL_CALLS = {"execute", "executemany", "executescript"}


def sql_uses(path: Path, root: Path = PACKAGE) -> list[str]:
    """Lines of `path` that run SQL: a call of `execute*`, the store's connection
    (`.conn`), or the sqlite3 module imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.relative_to(root).as_posix()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (node.attr in _SQL_CALLS or node.attr == "conn"):
            found.append(f"{where}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            if "sqlite3" in names:
                found.append(f"{where}:{node.lineno} imports sqlite3")
    return found


def test_only_the_store_and_the_queries_run_sql() -> None:
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == SQL_HOMES[0] or relative.startswith(SQL_HOMES[1:]):
            continue
        offending += sql_uses(path)
    assert offending == []


def test_the_sql_check_sees_a_module_that_runs_sql(tmp_path: Path) -> None:
    module = tmp_path / "stage.py"
    module.write_text(
        "import sqlite3\n\n\ndef run(store):\n    return store.conn.execute('SELECT 1')\n"
    )
    assert sql_uses(module, tmp_path) == [
        "stage.py:1 imports sqlite3",
        "stage.py:5 .execute",
        "stage.py:5 .conn",
    ]


def test_the_stage_import_check_sees_a_stage_import(tmp_path: Path) -> None:
    module = tmp_path / "stages" / "stage.py"
    module.parent.mkdir()
    module.write_text("from nlibuild.stages.export import run\nfrom . import sample\n")
    found = imported_modules(module, tmp_path)
    assert {"nlibuild.stages.export", "nlibuild.stages.sample"} <= found


TORCH_STACK = ("torch", "transformers", "accelerate", "safetensors")
"""Imported only by nlibuild/scoring/: the core install never needs the score extra."""

SCORING = "scoring/"


def torch_imports(path: Path, root: Path = PACKAGE) -> list[str]:
    """Lines of `path` that import the torch stack anywhere, and, outside the scoring
    package, lines that import `nlibuild.scoring` at module level other than its
    `job_files` (the contract, standard library and numpy only): a stage imports the job
    runner lazily, inside the function that runs it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.relative_to(root).as_posix()
    found = []
    module_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            base = node.module or ""
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name.split(".")[0] in TORCH_STACK:
                found.append(f"{where}:{node.lineno} imports {name}")
            elif (
                id(node) in module_level
                and name.startswith("nlibuild.scoring")
                and not name.startswith("nlibuild.scoring.job_files")
                and name != "nlibuild.scoring"
            ):
                found.append(f"{where}:{node.lineno} imports {name} at module level")
    return sorted(set(found))


def test_only_the_scoring_package_imports_torch() -> None:
    offending = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE).as_posix().startswith(SCORING)
        for line in torch_imports(path)
    ]
    assert offending == []


def test_the_torch_check_sees_a_module_that_imports_torch(tmp_path: Path) -> None:
    module = tmp_path / "stage.py"
    module.write_text(
        "import numpy\nfrom transformers import AutoModel\n"
        "from nlibuild.scoring.job_files import JobSpec\nfrom nlibuild.scoring.job import run_job\n"
        "\n\ndef run():\n    import torch.nn\n    from nlibuild.scoring.job import run_job\n"
    )
    assert torch_imports(module, tmp_path) == [
        "stage.py:2 imports transformers",
        "stage.py:2 imports transformers.AutoModel",
        "stage.py:4 imports nlibuild.scoring.job at module level",
        "stage.py:4 imports nlibuild.scoring.job.run_job at module level",
        "stage.py:8 imports torch.nn",
    ]
