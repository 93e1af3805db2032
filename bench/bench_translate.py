"""Time `nlibuild translate import` for 15 languages and `translate qa` beside sacrebleu.

    python bench/bench_translate.py [--pairs N] [--langs ar,bg,...] [--qa-segments 5000]
                                    [--profile-lang LANG] [--append-results]

Setup, not timed: a synthetic MNLI-style file of N pairs (default 400,000, the size of
XNLI-MT's training set; made by bench/gen_mnli.py when missing, as bench_import.py does) is
imported into a fresh store (`nlibuild init --preset mnli`, `nlibuild import`); `nlibuild
translate export --format tsv` writes its units once, and from them one filled tsv per
language is generated here: the text is a deterministic pseudo-translation of the source
(each source word mapped to a made-up word of about the same length in the language's
script; for zh one or two CJK characters a word, and no spaces for zh, th and my), so that
the script and length checks see realistic text.

Timed, each as a whole process with the peak memory of its process tree (bench_import.py's
`measure`):

1. `nlibuild translate import FILE --lang XX` for every language in turn, into the same
   store; per language wall, units/s and peak memory, and the total against the aim (the
   whole import under 2 minutes and 2 GB);
2. `nlibuild translate qa --lang de --format json` on a second store holding exactly
   `--qa-segments` units with a human (the pseudo-translation) and an mt translation (a
   perturbed copy), and beside it the peer: a process that reads the same hypotheses and
   references from plain text files and runs sacrebleu's BLEU, chrF and TER corpus scores
   (and the per-segment chrF that qa uses to list the worst segments). The scores must be
   equal; the aim is qa under 5 s and no slower than the peer plus reading the store.

Then one language's import is run again under `python -m cProfile -s cumtime` on a copy of
the store made before the timed imports, and the top of the profile is reported.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from bench_import import (
    DEFAULT_FILE,
    StepFailed,
    _version,
    _warm_cache,
    append_results,
    corpus_file,
    machine_facts,
    measure,
)

LANGS = ("ar", "bg", "de", "el", "es", "fr", "hi", "ru", "sw", "th", "tr", "ur", "vi", "zh", "my")
"""XNLI's 14 target languages plus Burmese (myXNLI): 15."""

QA_LANG = "de"
TARGET_IMPORT_S = 120.0
TARGET_IMPORT_BYTES = 2 * 10**9
TARGET_QA_S = 5.0
PROFILE_TOP = 25

# Letters of each language's script, for the made-up words.
_LATIN = "abcdefghijklmnoprstuvwyz"
_SCRIPTS: dict[str, str] = {
    "ar": "".join(chr(c) for c in range(0x0627, 0x064B)),
    "ur": "".join(chr(c) for c in range(0x0627, 0x064B)) + "\u0679\u0688\u0691\u06ba\u06be",
    "bg": "абвгдежзиклмнопрстуфхцчшщъюя",
    "ru": "абвгдежзиклмнопрстуфхцчшщыьэюя",
    "el": "αβγδεζηθικλμνξοπρστυφχψω",
    "hi": "".join(chr(c) for c in range(0x0915, 0x093A)) + "\u093e\u093f\u0940\u0941\u0947",
    "th": "".join(chr(c) for c in range(0x0E01, 0x0E2F)) + "\u0e30\u0e32\u0e34\u0e35\u0e38",
    "my": "".join(chr(c) for c in range(0x1000, 0x1022)) + "\u102c\u102d\u102f\u1031",
    "de": _LATIN + "äöüß",
    "es": _LATIN + "áéíñó",
    "fr": _LATIN + "àéèêç",
    "tr": _LATIN + "çğışöü",
    "sw": _LATIN,
    "vi": _LATIN + "ăâđêôơưạảấầ",
}
_NO_SPACES = frozenset({"zh", "th", "my"})

# Run in the child (the peer): sacrebleu on the plain files; prints scores and phase times.
PEER = """\
import json, sys, time
t0 = time.perf_counter()
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER
t1 = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    hyps = f.read().split("\\n")[:-1]
with open(sys.argv[2], encoding="utf-8") as f:
    refs = f.read().split("\\n")[:-1]
t2 = time.perf_counter()
bleu, chrf, ter = BLEU(tokenize=sys.argv[3]), CHRF(), TER(asian_support=sys.argv[4] == "1")
scores = {"bleu": bleu.corpus_score(hyps, [refs]).score}
t3 = time.perf_counter()
scores["chrf"] = chrf.corpus_score(hyps, [refs]).score
t4 = time.perf_counter()
scores["ter"] = ter.corpus_score(hyps, [refs]).score
t5 = time.perf_counter()
worst = sorted(chrf.sentence_score(h, [r]).score for h, r in zip(hyps, refs))[:10]
t6 = time.perf_counter()
print(json.dumps({"scores": scores, "segments": len(hyps), "phases": {
    "import sacrebleu.metrics": t1 - t0, "read the two files": t2 - t1,
    "BLEU corpus": t3 - t2, "chrF corpus": t4 - t3, "TER corpus": t5 - t4,
    "chrF per segment (qa's worst list)": t6 - t5}}))
"""


class PseudoTranslator:
    """Maps each source word to a made-up word of the language, the same every time."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.letters = _SCRIPTS.get(lang, _LATIN)
        self.joiner = "" if lang in _NO_SPACES else " "
        self.words: dict[str, str] = {}

    def _word(self, word: str) -> str:
        core = word.rstrip(".,;:!?")
        tail = word[len(core) :]
        rng = random.Random(zlib.crc32(f"{self.lang}\t{core.casefold()}".encode()))
        if self.lang == "zh":
            made = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(1 + len(core) // 5))
            tail = "。" if tail else ""
        else:
            length = max(1, len(core) + rng.randint(-1, 2))
            made = "".join(rng.choice(self.letters) for _ in range(length))
            if core[:1].isupper():
                made = made.capitalize()
        return made + tail

    def __call__(self, source: str) -> str:
        words = self.words
        out = []
        for word in source.split():
            made = words.get(word)
            if made is None:
                made = words[word] = self._word(word)
            out.append(made)
        return self.joiner.join(out)


def perturb(text: str, seed: int) -> str:
    """A machine translation made from the human one: words dropped, swapped or repeated."""
    rng = random.Random(seed)
    words = text.split() if " " in text else list(text)
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < 0.08:
            continue
        if roll < 0.16 and out:
            out[-1], word = word, out[-1]
        out.append(word)
        if roll > 0.95:
            out.append(word)
    return (" " if " " in text else "").join(out or words)


def _read_units(path: Path) -> list[tuple[str, str, str]]:
    """(unit_id, source_lang, source) from an exported tsv."""
    units = []
    with open(path, encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            unit_id, source_lang, source, _lang, _text = line.rstrip("\n").split("\t")
            units.append((unit_id, source_lang, source))
    return units


def write_translations(units: list[tuple[str, str, str]], lang: str, out: Path) -> None:
    translate = PseudoTranslator(lang)
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("unit_id\tsource_lang\tsource\tlang\ttext\n")
        handle.writelines(
            f"{unit_id}\t{source_lang}\t{source}\t{lang}\t{translate(source)}\n"
            for unit_id, source_lang, source in units
        )


def _copy_store(db: Path, copy: Path) -> None:
    src, dst = sqlite3.connect(db), sqlite3.connect(copy)
    with dst:
        src.backup(dst)
    src.close()
    dst.close()


def _profile(nlibuild_args: list[str], out: Path) -> str:
    """Run `python -m cProfile -s cumtime -m nlibuild ...`; return the top of the table."""
    argv = [sys.executable, "-m", "cProfile", "-s", "cumtime", "-m", "nlibuild", *nlibuild_args]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise StepFailed(f"profiled import failed ({done.returncode}):\n{done.stderr[-3000:]}")
    out.write_text(done.stdout, encoding="utf-8")
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    summary = next((line.strip() for line in lines if "function calls" in line), "")
    return "\n".join([summary, "", *lines[start : start + PROFILE_TOP + 1]])


def run_bench(path: Path, langs: list[str], qa_segments: int, profile_lang: str) -> str:
    _warm_cache(path)
    nlibuild = [sys.executable, "-m", "nlibuild"]
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-", dir=path.parent) as tmp_name:
        tmp = Path(tmp_name)
        db = tmp / "bench.db"
        with_db = [*nlibuild, "--db", str(db)]
        print(f"setup: init + import {path.name}, export, {len(langs)} files ...", file=sys.stderr)
        measure("nlibuild init", [*with_db, "init", "--preset", "mnli"])
        setup_import = measure("nlibuild import", [*with_db, "import", str(path)])
        units_tsv = tmp / "units.tsv"
        measure(
            "translate export",
            [
                *with_db,
                "translate",
                "export",
                "--lang",
                langs[0],
                "--format",
                "tsv",
                "--out",
                str(units_tsv),
            ],
        )
        units = _read_units(units_tsv)
        started = time.perf_counter()
        files = {}
        for lang in langs:
            files[lang] = tmp / f"translations.{lang}.tsv"
            write_translations(units, lang, files[lang])
        generate_s = time.perf_counter() - started
        file_mib = sum(f.stat().st_size for f in files.values()) / 2**20
        profile_db = tmp / "profile.db"
        _copy_store(db, profile_db)
        for file in [db, *files.values()]:
            _warm_cache(file)

        rows = []
        for lang in langs:
            print(f"nlibuild translate import --lang {lang} ...", file=sys.stderr)
            m = measure(
                f"translate import {lang}",
                [*with_db, "translate", "import", str(files[lang]), "--lang", lang],
            )
            said = m.stdout.strip().splitlines()[-1] if m.stdout.strip() else ""
            rows.append((lang, m, said))
            print(
                f"  {m.wall_s:.2f} s, {len(units) / m.wall_s:,.0f} units/s, "
                f"{m.tree_peak_mib:,.0f} MiB",
                file=sys.stderr,
            )
        store_mib = sum(f.stat().st_size for f in tmp.glob("bench.db*")) / 2**20

        print(f"profile: translate import --lang {profile_lang} (cProfile) ...", file=sys.stderr)
        profile = _profile(
            [
                "--db",
                str(profile_db),
                "translate",
                "import",
                str(files[profile_lang]),
                "--lang",
                profile_lang,
            ],
            tmp / "profile.txt",
        )

        # qa: a store whose qa_segments units have a human and an mt translation.
        print(f"setup: qa store with {qa_segments:,} segments ...", file=sys.stderr)
        qa_db = tmp / "qa.db"
        qa = [*nlibuild, "--db", str(qa_db)]
        qa_jsonl = tmp / "qa.jsonl"
        with open(path, encoding="utf-8") as src, open(qa_jsonl, "w", encoding="utf-8") as dst:
            for i, line in enumerate(src):  # enough pairs for qa_segments units
                if i >= qa_segments:
                    break
                dst.write(line)
        measure("qa init", [*qa, "init", "--preset", "mnli"])
        measure("qa import", [*qa, "import", str(qa_jsonl)])
        qa_units_tsv = tmp / "qa_units.tsv"
        measure(
            "qa export",
            [
                *qa,
                "translate",
                "export",
                "--lang",
                QA_LANG,
                "--format",
                "tsv",
                "--out",
                str(qa_units_tsv),
            ],
        )
        qa_units = sorted(_read_units(qa_units_tsv))[:qa_segments]
        translate = PseudoTranslator(QA_LANG)
        human = {u: translate(source) for u, _, source in qa_units}
        mt = {u: perturb(text, zlib.crc32(u.encode())) for u, text in human.items()}
        for kind, texts in (("human", human), ("mt", mt)):
            kind_tsv = tmp / f"qa_{kind}.tsv"
            with open(kind_tsv, "w", encoding="utf-8") as handle:
                handle.write("unit_id\tsource_lang\tsource\tlang\ttext\n")
                handle.writelines(
                    f"{u}\t{sl}\t{s}\t{QA_LANG}\t{texts[u]}\n" for u, sl, s in qa_units
                )
            measure(
                f"qa translate import {kind}",
                [
                    *qa,
                    "translate",
                    "import",
                    str(kind_tsv),
                    "--lang",
                    QA_LANG,
                    "--kind",
                    kind,
                    "--partial",
                ],
            )
        # The peer reads the same strings, in the order qa scores them (sorted unit IDs).
        hyp_txt, ref_txt = tmp / "hyp.txt", tmp / "ref.txt"
        hyp_txt.write_text("".join(f"{mt[u]}\n" for u in sorted(mt)), encoding="utf-8")
        ref_txt.write_text("".join(f"{human[u]}\n" for u in sorted(human)), encoding="utf-8")
        for file in (qa_db, hyp_txt, ref_txt):
            _warm_cache(file)
        print("nlibuild translate qa ...", file=sys.stderr)
        qa_run = measure(
            "translate qa", [*qa, "translate", "qa", "--lang", QA_LANG, "--format", "json"]
        )
        print("peer: sacrebleu on the plain files ...", file=sys.stderr)
        peer = measure("peer", [sys.executable, "-c", PEER, str(hyp_txt), str(ref_txt), "13a", "0"])

    return _report(
        path,
        langs,
        units,
        rows,
        setup_import.wall_s,
        generate_s,
        file_mib,
        store_mib,
        qa_run,
        peer,
        qa_segments,
        profile_lang,
        profile,
    )


def _qa_scores(stdout: str) -> dict[str, float]:
    data = json.loads(stdout)
    if isinstance(data, list):
        data = data[0]
    return {k: float(data[k]) for k in ("bleu", "chrf", "ter")}


def _report(
    path,
    langs,
    units,
    rows,
    setup_s,
    generate_s,
    file_mib,
    store_mib,
    qa_run,
    peer,
    qa_segments,
    profile_lang,
    profile,
) -> str:  # type: ignore[no-untyped-def]
    n = len(units)
    premises = sum(1 for u in units if u[0].startswith("p:"))
    table = [
        "| language | wall s | units/s | peak MiB, all processes | peak MiB, largest process "
        "| nlibuild said |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for lang, m, said in rows:
        checks = said[said.find("checks") :].split(" (run ")[0] if "checks" in said else ""
        table.append(
            f"| {lang} | {m.wall_s:.2f} | {n / m.wall_s:,.0f} | {m.tree_peak_mib:,.0f} "
            f"| {m.peak_mib:,.0f} | {checks[:120]} |"
        )
    total = sum(m.wall_s for _, m, _ in rows)
    peak = max(m.tree_peak_mib for _, m, _ in rows)
    table.append(
        f"| **all {len(rows)}** | **{total:.1f}** | **{n * len(rows) / total:,.0f}** "
        f"| **{peak:,.0f}** (largest) | {max(m.peak_mib for _, m, _ in rows):,.0f} | |"
    )

    ours = _qa_scores(qa_run.stdout)
    peer_out = json.loads(peer.stdout)
    theirs = peer_out["scores"]
    equal = all(abs(ours[k] - theirs[k]) < 1e-9 for k in ours)
    corpus_only = peer.wall_s - peer_out["phases"]["chrF per segment (qa's worst list)"]
    qa_table = [
        "| step | wall s | peak MiB, all processes | ratio to peer wall |",
        "|---|---:|---:|---:|",
        f"| `nlibuild translate qa --lang {QA_LANG} --format json` | {qa_run.wall_s:.2f} "
        f"| {qa_run.tree_peak_mib:,.0f} | {qa_run.wall_s / peer.wall_s:.2f}x |",
        f"| peer: sacrebleu BLEU + chrF + TER (+ per-segment chrF) on plain files "
        f"| {peer.wall_s:.2f} | {peer.tree_peak_mib:,.0f} | 1.00x |",
    ]
    scores = [
        "| score | nlibuild | sacrebleu | diff |",
        "|---|---:|---:|---:|",
        *(
            f"| {k} | {ours[k]:.6f} | {theirs[k]:.6f} | {abs(ours[k] - theirs[k]):.1e} |"
            for k in ("bleu", "chrf", "ter")
        ),
    ]

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    limit_mib = TARGET_IMPORT_BYTES / 2**20
    targets = [
        f"- all {len(rows)} imports within {TARGET_IMPORT_S:.0f} s: {total:.1f} s, "
        f"{met(total <= TARGET_IMPORT_S)}",
        f"- peak memory within 2 GB ({limit_mib:,.0f} MiB): {peak:,.0f} MiB, "
        f"{met(peak <= limit_mib)}",
        f"- translate qa on {qa_segments:,} segments under {TARGET_QA_S:.0f} s: "
        f"{qa_run.wall_s:.2f} s, {met(qa_run.wall_s < TARGET_QA_S)}",
        f"- translate qa no slower than the peer: {qa_run.wall_s:.2f} s against "
        f"{peer.wall_s:.2f} s ({qa_run.wall_s - peer.wall_s:+.2f} s), "
        f"{met(qa_run.wall_s <= peer.wall_s * 1.10)} (within 10%)",
        f"- scores equal to sacrebleu's: {met(equal)}",
    ]
    now = dt.datetime.now().astimezone()
    facts = [
        ("Date", now.strftime("%Y-%m-%d %H:%M %Z")),
        ("File", f"{path}"),
        ("Units per language", f"{n:,} ({premises:,} premises, {n - premises:,} hypotheses)"),
        ("Languages", ", ".join(langs)),
        (
            "Setup, not timed",
            f"store import {setup_s:.1f} s; {len(langs)} tsv files "
            f"({file_mib:,.0f} MiB) generated in {generate_s:.1f} s; "
            f"store after the imports {store_mib:,.0f} MiB",
        ),
        *machine_facts(),
        ("sacrebleu", _version("sacrebleu")),
    ]
    phases = "; ".join(f"{k} {v:.2f} s" for k, v in peer_out["phases"].items())
    notes = [
        "Wall times are whole processes (interpreter start-up and imports included). Each "
        "language's import runs the unit checks and redoes the corpus checks (same as "
        "premise, duplicates) over that language's translations.",
        f"Peer phases: {phases}. Its corpus scores alone (no per-segment chrF) take "
        f"{corpus_only:.2f} s of wall.",
        "Pseudo-translations: each source word mapped to a made-up word of the language's "
        "script; the mt side is the human side with about 8% of words dropped, 8% swapped "
        "with the previous one and 5% repeated.",
    ]
    return "\n".join(
        [
            *(f"- {k}: {v}" for k, v in facts),
            "",
            "`nlibuild translate import FILE --lang XX`, one process a language, in this order:",
            "",
            *table,
            "",
            f"`translate qa` on {qa_segments:,} segments ({QA_LANG}, mt against human):",
            "",
            *qa_table,
            "",
            *scores,
            "",
            "Targets:",
            "",
            *targets,
            "",
            *notes,
            "",
            f"Profile of one import (`python -m cProfile -s cumtime -m nlibuild ... translate "
            f"import ... --lang {profile_lang}`, on a copy of the store before the timed imports), "
            f"top {PROFILE_TOP} by cumulative time:",
            "",
            "```",
            profile,
            "```",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time nlibuild translate import (15 languages) and translate qa "
        "against sacrebleu."
    )
    parser.add_argument(
        "--file",
        type=Path,
        help="MNLI-format jsonl (default: mnli_N.jsonl beside "
        f"{DEFAULT_FILE}, generated when missing).",
    )
    parser.add_argument(
        "--pairs", type=int, default=400_000, help="Pairs (default 400000, XNLI-MT size)."
    )
    parser.add_argument(
        "--langs", default=",".join(LANGS), help="Comma-separated target languages (default: 15)."
    )
    parser.add_argument("--qa-segments", type=int, default=5000)
    parser.add_argument(
        "--profile-lang", default="zh", help="The language whose import is profiled (default zh)."
    )
    parser.add_argument(
        "--append-results", action="store_true", help="Also append the report to bench/RESULTS.md."
    )
    args = parser.parse_args(argv)
    langs = [x.strip() for x in args.langs.split(",") if x.strip()]
    if args.profile_lang not in langs:
        parser.error(f"--profile-lang {args.profile_lang} is not among --langs")
    try:
        path = corpus_file(args.file, args.pairs)
        report = run_bench(path, langs, args.qa_segments, args.profile_lang)
    except StepFailed as exc:
        print(f"bench_translate: {exc}", file=sys.stderr)
        return 1
    print(report)
    if args.append_results:
        append_results(
            report,
            f"translations, {len(langs)} languages x {args.pairs:,} pairs, and translate qa",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
