"""`score import` of a finished job's folder damaged in generated ways (issue 26): it works,
or it prints one `Error:` line naming the damaged file, leaves the store as it was, and
ends promptly (a FIFO in place of a file is never opened).

test_score_tamper.py holds one case of each kind of damage; here the damage is drawn: any
result or job file cut at any offset, bytes flipped anywhere, a FIFO in its place; an .npy
file whose header claims any shape and type; predicted classes and gold-label
probabilities set to any value at any row; job.json's labels in any order; a JSON or JSON
lines file with its records mutated (`fuzz_inputs.broken_file`).

`make test` runs a bounded, fixed set of examples; `make fuzz` many, random.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import copy_store, table_counts
from fuzz_checks import assert_one_error_line, examples, invoked
from fuzz_inputs import FileKind, broken_file
from hypothesis import given
from hypothesis import strategies as st
from test_score_tamper import (
    FILES,
    JOB,
    SECONDS,
    finishes_within,
    npy_with_header,
    plan_of_one_finished_job,
    score_rows,
)

from nlibuild.models import NLI_LABELS
from nlibuild.scoring.job_files import (
    CHECKPOINTS_FILE,
    DONE_FILE,
    DYNAMICS_FILE,
    JOB_FILE,
    PAIRS_FILE,
    predictions_path,
)

EXAMPLES = 10
"""Examples per kind of damage under `make test` (about 0.3 s each)."""

PREDICTION_FILES = tuple(f"results/predictions/0000{index}.npy" for index in range(4))
ALL_FILES = tuple(dict.fromkeys((*FILES, *PREDICTION_FILES)))
NPY_FILES = (*PREDICTION_FILES, DYNAMICS_FILE)
TEXT_KINDS: dict[str, FileKind] = {
    CHECKPOINTS_FILE: "jsonl",
    PAIRS_FILE: "jsonl",
    DONE_FILE: "json",
    JOB_FILE: "json",
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return plan_of_one_finished_job(tmp_path_factory.mktemp("template"))


Damage = Callable[[Path], None]


def imports_or_names_the_file(finished: tuple[Path, Path], root: Path, name: str) -> Path:
    """A fresh copy of the store and plan under `root`; returns the file `name` of its job
    for the example to damage (then `check`)."""
    shutil.rmtree(root, ignore_errors=True)
    db, plan = finished
    copy_store(db, root / "corpus.db")
    shutil.copytree(plan, root / "plan")
    return root / "plan" / JOB / name


def check(root: Path, name: str) -> None:
    """The promise: imported, or one line naming `name`, the store as it was, promptly."""
    db = root / "corpus.db"
    scores, counts = score_rows(db), table_counts(db)
    with finishes_within(SECONDS):
        result = invoked("--db", str(db), "score", "import", str(root / "plan"))
    if result.exit_code == 0:
        return
    line = assert_one_error_line(result)
    assert str(Path(JOB) / name) in line, f"the line names not {name}: {line}"
    assert (score_rows(db), table_counts(db)) == (scores, counts), line


def damaged_example(finished: tuple[Path, Path], root: Path, name: str, damage: Damage) -> None:
    damage(imports_or_names_the_file(finished, root, name))
    check(root, name)


def test_a_file_cut_at_any_offset(finished: tuple[Path, Path], tmp_path: Path) -> None:
    @examples(EXAMPLES)
    @given(name=st.sampled_from(ALL_FILES), share=st.floats(0, 1, exclude_max=True))
    def property_holds(name: str, share: float) -> None:
        def cut(path: Path) -> None:
            data = path.read_bytes()
            path.write_bytes(data[: int(len(data) * share)])

        damaged_example(finished, tmp_path / "example", name, cut)

    property_holds()


def test_a_file_with_bytes_flipped_or_a_fifo_in_its_place(
    finished: tuple[Path, Path], tmp_path: Path
) -> None:
    @examples(EXAMPLES)
    @given(
        name=st.sampled_from(ALL_FILES),
        flips=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), max_size=4),
    )
    def property_holds(name: str, flips: list[tuple[int, int]]) -> None:
        def flip(path: Path) -> None:
            if not flips:  # a FIFO: opening it would wait for a writer that never comes
                path.unlink()
                os.mkfifo(path)
                return
            data = bytearray(path.read_bytes())
            for offset, mask in flips:
                data[offset % len(data)] ^= mask
            path.write_bytes(bytes(data))

        damaged_example(finished, tmp_path / "example", name, flip)

    property_holds()


NPY_TYPES = ["|i1", "<i8", ">i4", "|u1", "<f4", "<f8", ">f4", "|b1", "|O", "<U10", "|V8", "<c8"]


def test_an_npy_header_of_any_shape_and_type(finished: tuple[Path, Path], tmp_path: Path) -> None:
    """A header claiming a huge array (10**12 rows), one of no rows, of the wrong type or
    order: refused from the header alone, before any data is read or allocated."""

    @examples(EXAMPLES)
    @given(
        name=st.sampled_from(NPY_FILES),
        descr=st.sampled_from(NPY_TYPES),
        shape=st.lists(st.integers(0, 10**12) | st.integers(0, 40), max_size=3),
        fortran=st.booleans(),
    )
    def property_holds(name: str, descr: str, shape: list[int], fortran: bool) -> None:
        dims = "".join(f"{n}, " for n in shape)
        header = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': ({dims}), }}"
        damaged_example(
            finished, tmp_path / "example", name, lambda path: npy_with_header(path, header)
        )

    property_holds()


def set_values(values: list[tuple[int, float]], dtype: str) -> Damage:
    """An .npy file with the values at some rows (indexes into its flat data) replaced."""

    def rewrite(path: Path) -> None:
        array = np.load(path)
        flat = array.reshape(-1).astype(dtype)
        for at, value in values:
            flat[at % flat.size] = value
        with path.open("wb") as handle:
            np.save(handle, flat.reshape(array.shape).astype(array.dtype))

    return rewrite


def test_any_predicted_class(finished: tuple[Path, Path], tmp_path: Path) -> None:
    @examples(EXAMPLES)
    @given(
        name=st.sampled_from(PREDICTION_FILES),
        values=st.lists(st.tuples(st.integers(0, 10**6), st.integers(-128, 127)), min_size=1),
    )
    def property_holds(name: str, values: list[tuple[int, float]]) -> None:
        damaged_example(finished, tmp_path / "example", name, set_values(values, "int8"))

    property_holds()


def test_any_gold_label_probability(finished: tuple[Path, Path], tmp_path: Path) -> None:
    """NaN is taken (a row a partial last epoch did not reach); anything outside 0..1 is
    not."""

    @examples(EXAMPLES)
    @given(
        values=st.lists(st.tuples(st.integers(0, 10**6), st.floats(width=32)), min_size=1),
    )
    def property_holds(values: list[tuple[int, float]]) -> None:
        damage = set_values(values, "float32")
        damaged_example(finished, tmp_path / "example", DYNAMICS_FILE, damage)

    property_holds()


def test_job_labels_in_any_order(finished: tuple[Path, Path], tmp_path: Path) -> None:
    @examples(EXAMPLES)
    @given(
        labels=st.one_of(
            st.permutations(NLI_LABELS),
            st.lists(st.sampled_from([*NLI_LABELS, "other", ""]), max_size=4),
        )
    )
    def property_holds(labels: list[str]) -> None:
        def relabel(path: Path) -> None:
            spec = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({**spec, "labels": labels}), encoding="utf-8")

        damaged_example(finished, tmp_path / "example", JOB_FILE, relabel)

    property_holds()


def test_records_of_a_json_file_mutated(finished: tuple[Path, Path], tmp_path: Path) -> None:
    valid = {name: (finished[1] / JOB / name).read_text(encoding="utf-8") for name in TEXT_KINDS}

    @examples(EXAMPLES * 2)
    @given(name=st.sampled_from(sorted(TEXT_KINDS)), data=st.data())
    def property_holds(name: str, data: st.DataObject) -> None:
        broken: bytes = data.draw(broken_file(TEXT_KINDS[name], valid[name]))

        def replaced(path: Path) -> None:
            path.write_bytes(broken)

        damaged_example(finished, tmp_path / "example", name, replaced)

    property_holds()


def test_the_predictions_folder_names_its_files(finished: tuple[Path, Path]) -> None:
    """The files damaged above are the job's own (a name that missed would damage nothing)."""
    job = finished[1] / JOB
    assert [predictions_path(job, index) for index in range(4)] == [
        job / name for name in PREDICTION_FILES
    ]
