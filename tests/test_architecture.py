"""The layering the code keeps: stages do not import each other, and only the store and
its read paths (nlibuild/queries) run SQL."""

from __future__ import annotations

import ast
from pathlib import Path

import nlibuild

PACKAGE = Path(nlibuild.__file__).parent
STAGES = PACKAGE / "stages"


def imported_modules(path: Path, root: Path = PACKAGE, runtime_only: bool = False) -> set[str]:
    """Every module `path` imports, absolute (`from . import x` resolved in its package,
    `root` being the directory of package `nlibuild`); with `runtime_only`, not those under
    `if TYPE_CHECKING:`, which never run."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ".".join(("nlibuild", *path.relative_to(root).parent.parts))
    found: set[str] = set()
    checking_only = {
        id(inner)
        for node in ast.walk(tree)
        if runtime_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in checking_only:
            continue
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


# --- layers and cycles (issue 25) ------------------------------------------------------------


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = ("nlibuild", *path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports when it runs,
    at its top or inside a function (a lazy import is still an edge)."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    return {
        name: {
            m for m in imported_modules(path, root, runtime_only=True) if m in paths and m != name
        }
        for name, path in paths.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group: list[str] = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back_through_others_lazily_or_not() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_check_sees_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from nlibuild.b import x\n")
    (tmp_path / "b.py").write_text("def f():\n    from nlibuild.a import y\n")
    (tmp_path / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from nlibuild.a import y\n"
    )
    assert cycles(import_graph(tmp_path)) == [["nlibuild.a", "nlibuild.b"]]


LOWER_LAYER = ("nlibuild.core", "nlibuild.queries", "nlibuild.store")
"""The kernel, the store's writes and its read paths: under every stage and library module."""

RULES = (
    "nlibuild.errors",
    "nlibuild._version",
    "nlibuild.models",
    "nlibuild.text",
    "nlibuild.labelling.labels",
    "nlibuild.labelling.label_names",
    "nlibuild.labelling.agreement",
    "nlibuild.protocol.ranking",
    "nlibuild.formats.input_files",
)
"""Pure rules, types and file reading, which open no store: the lower layer may use them."""


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(f"{p}.") for p in prefixes)


def test_the_lower_layer_imports_only_itself_and_the_pure_rules() -> None:
    offending = [
        f"{name} imports {module}"
        for name, imported in import_graph().items()
        if within(name, LOWER_LAYER)
        for module in sorted(imported)
        if not within(module, (*LOWER_LAYER, *RULES, "nlibuild"))
    ]
    assert offending == []


KERNEL_TYPES = ("nlibuild.core.stage", "nlibuild.core.signature", "nlibuild.core.progress")
"""What of the kernel the pure rules may use: types and signs of life, never the store."""


def test_the_pure_rules_open_no_store() -> None:
    offending = [
        f"{name} imports {module}"
        for name, imported in import_graph().items()
        if within(name, RULES[2:])
        for module in sorted(imported)
        if not within(module, (*RULES, *KERNEL_TYPES)) and module != "nlibuild"
    ]
    assert offending == []


def test_at_most_twelve_modules_lie_directly_in_the_package() -> None:
    """The rest is grouped into packages named by what they hold (ARCHITECTURE.md)."""
    assert len(list(PACKAGE.glob("*.py"))) <= 12
