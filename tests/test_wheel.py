"""The built wheel works on its own: it carries every preset, instruction and lexicon,
and an installed `nlibuild` runs the preset pipeline from a folder far from the sources.

The wheel is built from a copy of the package (so no stale build/ folder of the checkout
can hide a missing file) and installed into a fresh virtual environment. Its
dependencies are borrowed from the environment running the tests through a .pth line, so
nothing is downloaded; nlibuild itself can only come from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import DATA, PROJECT


def _check(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=_clean_env()
    )
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result


def _clean_env() -> dict[str, str]:
    # Nothing may point the child at the source tree.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["OMP_NUM_THREADS"] = "1"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    shutil.copy(PROJECT / "pyproject.toml", source)
    shutil.copy(PROJECT / "README.md", source)  # the project's long description
    shutil.copytree(
        PROJECT / "nlibuild", source / "nlibuild", ignore=shutil.ignore_patterns("__pycache__")
    )
    dist = tmp_path_factory.mktemp("dist")
    # Without build isolation the running environment's setuptools (a dev dependency)
    # builds it, so the test needs no index.
    _check(
        sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--no-build-isolation",
        "--quiet", "--wheel-dir", dist,
    )  # fmt: skip
    (built,) = dist.glob("nlibuild-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    env = tmp_path_factory.mktemp("venv")
    _check(sys.executable, "-m", "venv", "--without-pip", env)
    _check(
        sys.executable, "-m", "pip", "--python", env / "bin" / "python", "install",
        "--no-deps", "--no-index", "--quiet", wheel,
    )  # fmt: skip
    site = _check(
        env / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    ).stdout.strip()
    # A plain path line in a .pth is appended to sys.path, after the venv's own
    # site-packages, and .pth files inside it are not run: the checkout's editable install
    # (a .pth hook there) stays off, and the wheel's nlibuild is the one found.
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "borrowed-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return env


def test_the_wheel_carries_every_resource_of_the_package(wheel: Path) -> None:
    resources = PROJECT / "nlibuild" / "resources"
    expected = {
        p.relative_to(PROJECT).as_posix()
        for p in resources.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert {"nlibuild/resources/presets/ocnli.toml"} <= expected
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    assert expected <= shipped, sorted(expected - shipped)
    assert not any(name.startswith("pipelines/") for name in shipped)


def test_nlibuild_is_imported_from_the_wheel_not_the_checkout(venv: Path, tmp_path: Path) -> None:
    code = (
        "import nlibuild, nlibuild.text.lang as lang, nlibuild.text.negators as n; "
        "import nlibuild.presets as p; "
        "print(nlibuild.__file__); "
        "print(p.preset_names(), p.instruction_languages(), p.relabel_instruction_languages()); "
        "print(n.negator_lexicon('zh').negated('南非没有雪'), 'dr' in lang.abbreviations('en'))"
    )
    lines = _check(venv / "bin" / "python", "-c", code, cwd=tmp_path).stdout.splitlines()
    assert Path(lines[0]).is_relative_to(venv), lines[0]
    assert lines[1:] == ["['mnli', 'ocnli', 'xnli'] ['en', 'zh'] ['en', 'zh']", "True True"]


def test_the_installed_command_runs_the_ocnli_preset_outside_the_sources(
    venv: Path, tmp_path: Path
) -> None:
    nlibuild = venv / "bin" / "nlibuild"

    def run(*args: str | Path) -> str:
        return _check(nlibuild, "--db", "c.db", *args, cwd=tmp_path).stdout

    created = run("init", "--preset", "ocnli")
    assert "lang zh, preset ocnli, extra labels unrelated,unknown" in created
    info = json.loads(run("info", "--format", "json"))
    assert (info["lang"], info["preset"]) == ("zh", "ocnli")
    # The preset's [ingest.genres.phone] table: Callhome markup stripped, a turn a line.
    ingested = run("ingest", DATA / "sources" / "zh" / "phone.txt", "--genre", "phone")
    assert "paragraph:line|clean:callhome" in ingested
    run("sample", "--per-genre", "3")
    # No --protocol: the preset's MULTI_CONSTRAINT, whose instructions ship in the wheel.
    assert "of MULTI_CONSTRAINT" in run("elicit", "create", "--annotators", "w01")
    run("elicit", "export", "--all", "--format", "jsonl", "--out", "package")
    instructions = tmp_path / "package" / "instructions.MULTI_CONSTRAINT.zh.md"
    assert instructions.read_text(encoding="utf-8").startswith(
        "# nlibuild elicitation: MULTI_CONSTRAINT (zh)"
    )
