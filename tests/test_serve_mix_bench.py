"""The serve mix bench (bench/bench_serve_mix.py, `make bench-serve`) in small: its simulated
people read the real pages (the form a writer submits, the item a validator votes on) and
send what the pages' scripts send, so a change of the pages that left the bench behind
shows here, not in the integrator's timed run. `--smoke`: 2 writers and 5 validators, no
pauses, every batch done; the bench itself checks that no request failed and that every
vote kept and every premise submitted is in the store (exit 1 otherwise). No timing is
asserted: a test machine's load varies."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_serve_mix.py"
ROW = re.compile(r"^\| ([a-z -]+) \| ([\d,]+) \|", re.MULTILINE)


def test_the_mix_bench_drives_every_kind_of_request_without_an_error() -> None:
    ran = subprocess.run(
        [sys.executable, str(BENCH), "--smoke"], capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Errors (any answer but the expected 200, or none): 0" in ran.stdout
    assert "nothing lost" in ran.stdout
    counts = {kind: int(count.replace(",", "")) for kind, count in ROW.findall(ran.stdout)}
    # 7 people sign in; 2 writers submit their premise; 5 validators vote on 9 pairs each
    # (undoing some, then voting again).
    assert counts["link"] == counts["home"] == counts["first page"] == 7
    assert counts["submit"] == 2 and counts["feedback"] > 2 * 9
    assert counts["vote"] == 5 * 9 + counts["undo"] and counts["undo"] > 0
    assert "45 votes of the 45 kept" in ran.stdout
