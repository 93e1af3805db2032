""".ci/run: the README's test command, `make test`, after installing Debian's chromium for
the browser tests when it is missing and the user can (root, with apt-get); without it the
run goes on and those tests skip with their reason.

The script runs here on a copy of itself, with a PATH of stand-ins that record what they
were asked (`make`, `apt-get`, `id`, and `chromium` when a case has it), so nothing is
installed or removed on this machine.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import PROJECT

STAND_IN = '#!/bin/sh\necho "{name} $*" >> "$CI_LOG"\n{body}\n'


def stand_in(folder: Path, name: str, body: str = "exit 0") -> None:
    path = folder / name
    path.write_text(STAND_IN.format(name=name, body=body), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def run_ci(
    tmp_path: Path, uid: int, apt_get: str | None, chromium: bool
) -> tuple[int, list[str], str]:
    """.ci/run with these stand-ins; (exit code, the commands it ran, its stderr)."""
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    shutil.copy(PROJECT / ".ci" / "run", clone / ".ci" / "run")
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname", "env"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    stand_in(tools, "id", f"echo {uid}")
    stand_in(tools, "make", 'echo "in $(pwd)" >> "$CI_LOG"')
    if apt_get is not None:
        stand_in(tools, "apt-get", apt_get)
    if chromium:
        stand_in(tools, "chromium")
    log = tmp_path / "ci.log"
    log.touch()
    done = subprocess.run(
        [str(tools / "bash"), str(clone / ".ci" / "run")],
        env={"PATH": str(tools), "CI_LOG": str(log), "HOME": os.environ.get("HOME", "/")},
        capture_output=True,
        text=True,
    )
    return done.returncode, log.read_text(encoding="utf-8").splitlines(), done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
def test_root_with_apt_get_installs_chromium_then_runs_make_test(tmp_path: Path) -> None:
    code, ran, _ = run_ci(tmp_path, uid=0, apt_get="exit 0", chromium=False)
    assert code == 0
    assert "apt-get install -y -qq --no-install-recommends chromium" in ran
    assert ran.index("apt-get update -qq") < ran.index(
        "apt-get install -y -qq --no-install-recommends chromium"
    )
    assert ran[-2:] == ["make test", f"in {tmp_path / 'clone'}"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
def test_chromium_already_there_installs_nothing(tmp_path: Path) -> None:
    code, ran, _ = run_ci(tmp_path, uid=0, apt_get="exit 0", chromium=True)
    assert code == 0
    assert not [line for line in ran if line.startswith("apt-get")]
    assert "make test" in ran


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
@pytest.mark.parametrize(("uid", "apt_get"), [(1000, "exit 0"), (0, None)])
def test_without_root_or_apt_get_it_goes_on_and_says_so(
    tmp_path: Path, uid: int, apt_get: str | None
) -> None:
    code, ran, stderr = run_ci(tmp_path, uid=uid, apt_get=apt_get, chromium=False)
    assert code == 0
    assert not [line for line in ran if line.startswith("apt-get")]
    assert "make test" in ran
    assert "browser tests will skip" in stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
def test_a_failed_install_still_runs_make_test(tmp_path: Path) -> None:
    code, ran, stderr = run_ci(tmp_path, uid=0, apt_get="exit 100", chromium=False)
    assert code == 0
    assert "make test" in ran
    assert "could not install chromium" in stderr
