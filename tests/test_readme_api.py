"""The README's "Python API" example runs as written: its code block, taken from README.md,
is run by a fresh Python in a temporary folder holding the bundled sample, as a notebook
run from the project's root would run it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT, SAMPLE_MNLI, read_jsonl

README = PROJECT / "README.md"


def api_example() -> str:
    """The first python code block of the README's "## Python API" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```python\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert found, 'README.md: no ```python block under "## Python API"'
    return found.group(1)


def test_the_example_shows_each_step_the_section_promises() -> None:
    code = api_example()
    compile(code, "README.md", "exec")
    for step in (
        'nlibuild.create("sample.db", preset="mnli")',
        'import_corpus(path="data/sample_mnli.jsonl"',
        ".aggregate_labels()",
        '.stats("agreement"',
        ".filter(pl.col(",
        ".export(format=",
    ):
        assert step in code, step


def test_the_readme_example_runs(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(SAMPLE_MNLI, tmp_path / "data" / SAMPLE_MNLI.name)
    # The worktree's nlibuild, whatever the interpreter has installed.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", api_example()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("48 pairs, 192 votes\n"), done.stdout
    assert "\npairs without stored gold get the majority rule: at least 3 votes" in done.stdout
    assert "Error: option min_agree: Value error, a count of votes is at least 1" in done.stdout
    assert "['init', 'import', 'aggregate-labels', 'export']" in done.stdout
    assert len(read_jsonl(tmp_path / "sample.mnli.jsonl")) == 48
