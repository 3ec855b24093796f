#!/usr/bin/env python3
"""Benchmarks of the calls users type (run by hand, not in CI).

    python benchmarks/bench.py                 # every shape (generates data once, ~20 min)
    python benchmarks/bench.py robust04 startup --repeat 5

Each figure is the median of ``--repeat`` runs of the whole ``lexeval``
process (wall seconds, peak resident memory of the process), beside a
reference measured in the same run:

- startup: ``lexeval --version``, ``--help``, and two Cranfield runs, beside
  ``python -c pass`` (the interpreter alone);
- robust04 (249 queries x 110 runs x 1,000): the default call (and its
  phases as ``--timings`` reports them: reading in MB/s measured inside the
  default call), ``-q``, three reports, and the reading alone
  (``-m num_q``, with and without the compiled kernel), beside pyarrow's
  CSV reader parsing the three columns lexeval keeps of the same files
  (the parser's own speed) and trec_eval 9.0.8, built from source
  (``--trec-eval-source``: a git URL or a local clone), called once per run;
- html: robust04's call with --format html, the page's size, and its
  rendering by headless Chromium (when installed);
- blank: 1 GB of blank lines after one run line (gzipped), and a run with a
  comment line before every line, beside the same run without;
- many300 (300 runs x 50 queries x 100), many1000 (1,000 runs: memory),
  msmarco (6,980 queries x 20 runs x 100, about one relevant per query),
  recsys (100,000 users x 10 runs x 100): the default call;
- cluster20k, cluster, cluster20kgz: the default call with --cluster local
  (Dask workers on this machine's cores) on 20,000 users x 10 runs x 100, on
  recsys, and on the 20,000 users gzipped, taken in turns with the
  one-process call: wall time, and the workers' processor seconds and peak
  memory per million lines beside one process's;
- q5000 (one 211 MB run of 5,000 queries x 1,000 with a 153 MB qrels) and
  deep (one 2.2 GB run: 5,000 queries x 10,000): the default call, peak
  memory beside the largest run file;
- growth: the default call as runs, queries and depth double;
- library: ``lexeval.evaluate`` on the 12 Cranfield runs from ranx's objects
  beside the same from files (each in a fresh process);
- thousand (1,000 runs x 50 x 100: the default call, ``--format table``,
  ``-m map``, the page), baseline10k (``--baseline`` on 10,000 runs), each
  taken in turns with the trec_eval loop; scale: the default call at three
  sizes per axis, each axis's exponent, and what they say of 10,000 runs
  with every pair (issue 36); judges: ``--report judges`` beside the default
  call with the same measures at 20,000 and 100,000 queries (issue 51);
  cores: the default call at the Robust04 shape and on 1,000 runs, pinned
  to 1, 2 and all processors (taskset), beside trec_eval one process per
  core and its loop, with each phase's parallel efficiency (issue 52). Not
  in the default set: they take a while.

Bytecode is compiled first, as an installed package has it. Data sets are
made with benchmarks/gen_trec.py into benchmarks/data/ (ignored by git).
"""

from __future__ import annotations

import argparse
import glob
import gzip
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
GENERATOR = ROOT / "benchmarks" / "gen_trec.py"
LEXEVAL = [sys.executable, "-m", "lexeval"]

SHAPES = {   # name: gen_trec.py arguments
    "robust04": ["--queries", "249", "--runs", "110", "--depth", "1000"],
    "many300": ["--queries", "50", "--runs", "300", "--depth", "100"],
    "many1000": ["--queries", "50", "--runs", "1000", "--depth", "100"],
    "msmarco": ["--queries", "6980", "--runs", "20", "--depth", "100", "--rel-mean", "1.1", "--judged-mean", "1.1"],
    "recsys20k": ["--queries", "20000", "--runs", "10", "--depth", "100", "--rel-mean", "8", "--judged-mean", "8"],
    "recsys": ["--queries", "100000", "--runs", "10", "--depth", "100", "--rel-mean", "8", "--judged-mean", "8"],
    "q5000": ["--queries", "5000", "--runs", "1", "--depth", "1000"],
    "deep": ["--queries", "5000", "--runs", "1", "--depth", "10000"],
    "many10000": ["--queries", "50", "--runs", "10000", "--depth", "100"],
    # the scale model: three sizes per axis around 250 runs x 50 queries x 100
    "scale-r250": ["--queries", "50", "--runs", "250", "--depth", "100"],
    "scale-r500": ["--queries", "50", "--runs", "500", "--depth", "100"],
    "scale-q100": ["--queries", "100", "--runs", "250", "--depth", "100"],
    "scale-q200": ["--queries", "200", "--runs", "250", "--depth", "100"],
    "scale-d200": ["--queries", "50", "--runs", "250", "--depth", "200"],
    "scale-d400": ["--queries", "50", "--runs", "250", "--depth", "400"],
    "growth-base": ["--queries", "250", "--runs", "20", "--depth", "1000"],
    "growth-runs": ["--queries", "250", "--runs", "40", "--depth", "1000"],
    "growth-queries": ["--queries", "500", "--runs", "20", "--depth", "1000"],
    "growth-depth": ["--queries", "250", "--runs", "20", "--depth", "2000"],
}


def dataset(name: str) -> tuple[str, list[str]]:
    """(qrels, runs) of a shape, generated on first use; ``NAME-gz``: the
    shape's files gzipped (level 1)."""
    if name.endswith("-gz"):
        qrels, runs = dataset(name[:-3])
        out = DATA / name
        zipped = []
        for path in [qrels, *runs]:
            target = out / Path(path).relative_to(DATA / name[:-3]).with_suffix(".txt.gz")
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "rb") as source, gzip.open(f"{target}.partial", "wb", compresslevel=1) as sink:
                    shutil.copyfileobj(source, sink, 1 << 24)
                os.replace(f"{target}.partial", target)
            zipped.append(str(target))
        return zipped[0], zipped[1:]
    out = DATA / name
    runs = sorted(glob.glob(str(out / "runs" / "*")))
    if not (out / "qrels.txt").exists() or not runs:
        print(f"generating {name} in {out} ...", file=sys.stderr)
        subprocess.run([sys.executable, str(GENERATOR), "--out", str(out), *SHAPES[name]], check=True)
        runs = sorted(glob.glob(str(out / "runs" / "*")))
    return str(out / "qrels.txt"), runs


def measure(command: list[str], repeat: int) -> tuple[float, float]:
    """Median wall seconds and median peak resident memory (MB) of a command
    run ``repeat`` times as its own process (output discarded); a command
    that fails stops the benchmark (lexeval's exit 1, a failed gate, is a
    result)."""
    walls, peaks = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
        if os.waitstatus_to_exitcode(status) not in ((0, 1) if command[:len(LEXEVAL)] == LEXEVAL else (0,)):
            raise SystemExit(f"failed ({status}): {' '.join(command[:8])} ...")
    return statistics.median(walls), statistics.median(peaks)


def measure_side_by_side(first: list[str], second: list[str], repeat: int) -> tuple[tuple[float, float], float]:
    """:func:`measure` of two commands taken in turns, each round's order
    the last one's reversed (first, second; second, first; ...), so that a
    slower minute of a shared machine falls on both, and so does whatever
    one command leaves behind for the next (a virtual machine's memory
    freed by a larger process): ((first's seconds, its peak MB), second's
    seconds), medians."""
    ones, twos = [], []
    for turn in range(repeat):
        if turn % 2:
            twos.append(measure(second, 1)[0])
            ones.append(measure(first, 1))
        else:
            ones.append(measure(first, 1))
            twos.append(measure(second, 1)[0])
    return (statistics.median(w for w, _ in ones), statistics.median(p for _, p in ones)), statistics.median(twos)


def phases(command: list[str], repeat: int = 1) -> str:
    """The ``--timings`` line of ``command``: where the time of the default
    call goes (reading with MB/s, measures, pairs, output); with ``repeat``,
    each figure the median of that many calls."""
    lines = []
    for _ in range(repeat):
        done = subprocess.run(command + ["--timings"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines += [line.split("timings: ", 1)[1] for line in done.stderr.splitlines() if "timings:" in line][-1:]
    if not lines:
        return "(no timings line)"
    figures = [[float(number) for number in re.findall(r"\d+\.\d+", line)] for line in lines]
    medians = iter(statistics.median(column) for column in zip(*figures))
    return re.sub(r"\d+\.\d+", lambda found: f"{next(medians):.2f}" if "." in found.group() else found.group(),
                  lines[0])


def megabytes(paths: list[str]) -> float:
    return sum(os.path.getsize(path) for path in paths) / 1e6


PARSE_ONLY = """
import sys
import pyarrow as pa, pyarrow.csv as csv
rows = 0
for path in sys.argv[1:]:      # one process, pyarrow's threads: the three columns lexeval keeps
    table = csv.read_csv(path, read_options=csv.ReadOptions(autogenerate_column_names=True, block_size=1 << 22),
                         parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
                         convert_options=csv.ConvertOptions(include_columns=["f0", "f2", "f4"],
                                                            column_types={"f0": pa.binary(), "f2": pa.binary(),
                                                                          "f4": pa.float64()}))
    rows += table.num_rows
print(rows)
"""

def row(what: str, figure: str, reference: str = "") -> None:
    print(f"| {what} | {figure} | {reference} |", flush=True)


def startup(repeat: int) -> None:
    cranfield = ROOT / "examples" / "cranfield"
    python, _ = measure([sys.executable, "-c", "pass"], repeat)
    for label, args in (("`lexeval --version`", ["--version"]), ("`lexeval --help`", ["--help"]),
                        ("two Cranfield runs, default call",
                         [str(cranfield / "qrels.txt.gz"), str(cranfield / "runs" / "bm25okapi.gz"),
                          str(cranfield / "runs" / "lsi200.gz")])):
        wall, peak = measure(LEXEVAL + args, repeat)
        row(label, f"{wall:.2f} s", f"Python interpreter alone: {python:.2f} s")


LIBRARY_CALL = """
import glob, gzip, os, sys, tempfile, time
import lexeval, ranx
cranfield = sys.argv[1]
folder = tempfile.mkdtemp()
qrels = os.path.join(folder, "qrels.txt")
open(qrels, "wb").write(gzip.decompress(open(os.path.join(cranfield, "qrels.txt.gz"), "rb").read()))
runs = []
for path in sorted(glob.glob(os.path.join(cranfield, "runs", "*.gz"))):
    runs.append(os.path.join(folder, os.path.basename(path)[:-3] + ".trec"))
    open(runs[-1], "wb").write(gzip.decompress(open(path, "rb").read()))
inputs = {"files": (qrels, runs),
          "ranx": (ranx.Qrels.from_file(qrels, kind="trec"), [ranx.Run.from_file(r, kind="trec") for r in runs])}
start = time.perf_counter()
lexeval.evaluate(*inputs[sys.argv[2]], ["map", "ndcg_cut.10", "P.10", "recip_rank", "LP"])
print(time.perf_counter() - start)
"""


def library(repeat: int) -> None:
    """lexeval.evaluate on the 12 Cranfield runs from files and from ranx's
    objects (the call only: building the ranx objects is not timed), each in
    a fresh process; the first ranx call of a machine compiles the reader."""
    cranfield = str(ROOT / "examples" / "cranfield")
    seconds = {}
    for kind in ("files", "ranx"):
        seconds[kind] = statistics.median(float(subprocess.run(
            [sys.executable, "-c", LIBRARY_CALL, cranfield, kind], capture_output=True, text=True,
            check=True).stdout) for _ in range(repeat))
    row("`lexeval.evaluate` on 12 Cranfield runs from ranx's Qrels and Runs (5 measures, 66 pairs)",
        f"{seconds['ranx']:.3f} s", f"the same from files: {seconds['files']:.3f} s")


def trec_eval_908(source: str) -> str | None:
    """trec_eval 9.0.8 built from source (a git URL or a local clone) into
    benchmarks/data/, or None when it cannot be had."""
    folder = DATA / "trec_eval-9.0.8"
    binary = folder / "trec_eval"
    if binary.exists():
        return str(binary)
    folder.mkdir(parents=True, exist_ok=True)
    if Path(source).exists():             # a local clone (bare or not)
        archive = subprocess.run(["git", f"--git-dir={source}", "archive", "v9.0.8"], capture_output=True)
        if archive.returncode:
            archive = subprocess.run(["git", "-C", source, "archive", "v9.0.8"], capture_output=True)
        fetched = archive.returncode == 0 and subprocess.run(["tar", "x", "-C", str(folder)],
                                                            input=archive.stdout).returncode == 0
    else:
        shutil.rmtree(folder)
        fetched = subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "v9.0.8", source, str(folder)],
                                 capture_output=True).returncode == 0
    if not fetched or subprocess.run(["make", "-s", "-C", str(folder)], capture_output=True).returncode:
        print(f"trec_eval 9.0.8 could not be built from {source}", file=sys.stderr)
        return None
    return str(binary)


def robust04(repeat: int, trec_eval_source: str) -> None:
    qrels, runs = dataset("robust04")
    size = megabytes(runs)
    (wall, peak), parse = measure_side_by_side(LEXEVAL + ["-m", "num_q", qrels, *runs],
                                               [sys.executable, "-c", PARSE_ONLY, *runs], repeat)
    reference = f"pyarrow's CSV reader, the 3 kept columns, one process, taken in turns: {parse:.2f} s " \
                f"({size / parse:.0f} MB/s)"
    row(f"reading the 110 runs ({size:.0f} MB): `lexeval -m num_q`", f"{wall:.2f} s = {size / wall:.0f} MB/s, "
        f"{peak:.0f} MB", reference)
    wall, _ = measure(["env", "LEXEVAL_KERNEL=off"] + LEXEVAL + ["-m", "num_q", qrels, *runs], repeat)
    row("the same without the compiled kernel (`LEXEVAL_KERNEL=off`: pyarrow and numpy)",
        f"{wall:.1f} s = {size / wall:.0f} MB/s", reference)
    trec_eval = trec_eval_908(trec_eval_source)
    trec = "(trec_eval 9.0.8 could not be built)"
    if trec_eval:
        (default, peak), loop = measure_side_by_side(
            LEXEVAL + [qrels, *runs],
            ["sh", "-c", 'q="$1"; shift; for r in "$@"; do "$0" "$q" "$r" > /dev/null; done', trec_eval, qrels, *runs],
            repeat)
        trec = f"trec_eval 9.0.8 (built from source) once per run, taken in turns: {loop:.2f} s; " \
               f"ratio {default / loop:.3f}"
    else:
        default, peak = measure(LEXEVAL + [qrels, *runs], repeat)
    row("default call (official measures, LP/rrLP/LR, paired tests for 5,995 pairs)",
        f"{default:.2f} s, {peak:.0f} MB", trec)
    line = phases(LEXEVAL + [qrels, *runs], repeat)
    reading = float(line.split("reading ", 1)[1].split(" s", 1)[0])
    row(f"the default call's phases (`--timings`, median of {repeat})", line,
        f"pyarrow's parse of the runs alone: {parse:.2f} s; reading is at {parse / reading:.0%} of its speed")
    (wall, peak), again = measure_side_by_side(LEXEVAL + ["-q", qrels, *runs], LEXEVAL + [qrels, *runs], repeat)
    row("`-q` (5.4 M lines)", f"{wall:.2f} s, {peak:.0f} MB",
        f"default call, taken in turns: {again:.2f} s ({wall / again:.2f}x)")
    wall, peak = measure(LEXEVAL + ["--report", "ties", "--report", "agreement", "--report", "discrimination",
                                    qrels, *runs], repeat)
    row("`--report ties --report agreement --report discrimination`", f"{wall:.1f} s, {peak:.0f} MB",
        f"default call: {default:.1f} s")


def html(repeat: int) -> None:
    """--format html on the Robust04 shape: the call, the page's size, and
    how long headless Chromium takes to render it (start-up included), beside
    the default call and Chromium on an empty page."""
    import shutil
    import tempfile
    qrels, runs = dataset("robust04")
    default, _ = measure(LEXEVAL + [qrels, *runs], repeat)
    wall, peak = measure(LEXEVAL + ["--format", "html", qrels, *runs], repeat)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        with open(page, "w") as out:
            subprocess.run(LEXEVAL + ["--format", "html", qrels, *runs], stdout=out, stderr=subprocess.DEVNULL,
                           check=True)
        size = os.path.getsize(page) / 1e6
        row("`--format html` (110 runs x 249 queries)", f"{wall:.1f} s, {peak:.0f} MB; page {size:.1f} MB",
            f"default call: {default:.1f} s")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if chromium:
            empty = Path(folder) / "empty.html"
            empty.write_text("<!DOCTYPE html><title>empty</title>")
            flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"]
            render, _ = measure(flags + [page.as_uri()], repeat)
            blank, _ = measure(flags + [empty.as_uri()], repeat)
            row("the page rendered by headless Chromium (`--dump-dom`, start-up included)", f"{render:.1f} s",
                f"Chromium on an empty page: {blank:.1f} s")


def blank_lines(repeat: int) -> None:
    """Valid files that are mostly not data: 1 GB of blank lines after one
    run line (gzipped), and a run whose every other line is a comment,
    beside a run of the same lines without them."""
    import gzip
    folder = DATA / "blank"
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels"
    qrels.write_text("1 0 d1 1\n")
    blank = folder / "blank.gz"
    if not blank.exists():
        with gzip.open(blank, "wb", compresslevel=1) as out:
            out.write(b"1 Q0 d1 1 1.0 t\n")
            for _ in range(1024):
                out.write(b"\n" * (1 << 20))
    plain_qrels, runs = dataset("robust04")
    commented = folder / "commented"
    if not commented.exists():
        with open(runs[0], "rb") as source, open(commented, "wb") as out:
            for line in source:
                out.write(b"# a comment line of about the length of a run line\n" + line)
    wall, peak = measure(LEXEVAL + [str(qrels), str(blank)], repeat)
    row("1 GB of blank lines after one run line (gzipped to "
        f"{os.path.getsize(blank) / 1e6:.0f} MB)", f"{wall:.1f} s = {1074 / wall:.0f} MB/s, {peak:.0f} MB",
        "reading gzip alone: see the next row")
    unzip, _ = measure(["sh", "-c", f"gzip -dc {blank} > /dev/null"], repeat)
    row("`gzip -dc` of the same file", f"{unzip:.1f} s", "")
    with_comments, _ = measure(LEXEVAL + [plain_qrels, str(commented)], repeat)
    plain, _ = measure(LEXEVAL + [plain_qrels, runs[0]], repeat)
    row(f"a run with a comment before every line ({os.path.getsize(commented) / 1e6:.0f} MB)",
        f"{with_comments:.2f} s", f"the run without them ({os.path.getsize(runs[0]) / 1e6:.0f} MB): {plain:.2f} s")


def default_call(name: str, label: str, repeat: int) -> None:
    qrels, runs = dataset(name)
    wall, peak = measure(LEXEVAL + [qrels, *runs], repeat)
    reading, _ = measure(LEXEVAL + ["-m", "num_q", qrels, *runs], repeat)
    row(label, f"{wall:.1f} s, {peak:.0f} MB", f"reading alone (`-m num_q`): {reading:.1f} s "
        f"({megabytes(runs + [qrels]):.0f} MB of text)")


TREC_EVAL_LOOP = 'q="$1"; shift; for r in "$@"; do "$0" "$q" "$r" > /dev/null; done'


def thousand(repeat: int, trec_eval_source: str) -> None:
    """A thousand runs (issue 36): the default call, --format table, -m map,
    --format html, each taken in turns with trec_eval 9.0.8 once per run;
    wall, peak memory, the --timings phases and microseconds per pair and
    tested measure of the pairs phase; the page's size and how long headless
    Chromium takes to draw it (from its own record of what each part cost)."""
    qrels, runs = dataset("many1000")
    pairs = len(runs) * (len(runs) - 1) // 2
    trec_eval = trec_eval_908(trec_eval_source)
    loop = ["sh", "-c", TREC_EVAL_LOOP, trec_eval, qrels, *runs] if trec_eval else ["true"]
    # the default call's tested measures: each metric's _p line and each preference's in one pair's summary
    summary = subprocess.run(LEXEVAL + [qrels, runs[0], runs[1]], capture_output=True, text=True).stdout
    tested = sum(1 for line in summary.splitlines() if ":" in line.split("\t")[0] and
                 line.split("\t")[1].strip().endswith("_p"))
    for label, extra in (("default call", []), ("`--format table`", ["--format", "table"]),
                         ("`-m map`", ["-m", "map"]), ("`--format html -m map -m ndcg_cut.10 -m LP`",
                                                       ["--format", "html", "-m", "map", "-m", "ndcg_cut.10",
                                                        "-m", "LP"])):
        (wall, peak), reference = measure_side_by_side(LEXEVAL + extra + [qrels, *runs], loop, repeat)
        timing = phases(LEXEVAL + extra + [qrels, *runs])
        pair_seconds = re.search(r"pairs (\d+\.\d+) s", timing)
        measures = tested if not extra or extra[0] == "--format" and extra[1] == "table" else \
            1 if extra == ["-m", "map"] else 3
        per = f"; pairs {float(pair_seconds.group(1)) * 1e6 / (pairs * measures):.2f} us per pair and measure " \
              f"({measures} tested)" if pair_seconds else ""
        ratio = f"; ratio {wall / reference:.2f}" if trec_eval else ""
        row(f"1,000 runs x 50 queries x 100 ({pairs:,} pairs): {label}", f"{wall:.1f} s, {peak:.0f} MB ({timing}"
            f"{per})", f"trec_eval 9.0.8 once per run, taken in turns: {reference:.1f} s{ratio}")
    page = DATA / "many1000-page.html"
    with open(page, "w") as out:
        subprocess.run(LEXEVAL + ["--format", "html", qrels, *runs], stdout=out, check=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    drawn = "(no Chromium here)"
    if chromium:
        start = time.perf_counter()
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                             capture_output=True, text=True).stdout
        wall = time.perf_counter() - start
        costs = re.search(r'data-timings="([^"]*)"', dom)
        drawn = f"Chromium --dump-dom {wall:.1f} s (start-up included); the script's parts (ms): " \
                f"{costs.group(1).replace('&quot;', '') if costs else '?'}"
    row("1,000 runs: the default call's page", f"{page.stat().st_size / 1e6:.1f} MB", drawn)


def baseline10k(repeat: int, trec_eval_source: str) -> None:
    """``--baseline`` on 10,000 runs x 50 queries (issue 36): each run
    against the first, taken in turns with trec_eval 9.0.8 once per run."""
    qrels, runs = dataset("many10000")
    trec_eval = trec_eval_908(trec_eval_source)
    loop = ["sh", "-c", TREC_EVAL_LOOP, trec_eval, qrels, *runs] if trec_eval else ["true"]
    baseline = Path(runs[0]).name
    command = LEXEVAL + ["--baseline", baseline, qrels, *runs]
    (wall, peak), reference = measure_side_by_side(command, loop, repeat)
    ratio = f"; ratio {wall / reference:.2f}" if trec_eval else ""
    row(f"10,000 runs x 50 queries x 100: `--baseline {baseline}` (9,999 pairs)",
        f"{wall:.1f} s, {peak:.0f} MB ({phases(command)})",
        f"trec_eval 9.0.8 once per run, taken in turns: {reference:.1f} s{ratio}")


def _exponent(sizes: list[float], values: list[float]) -> float:
    """The least-squares slope of log(value) on log(size): value ~ size**slope."""
    xs, ys = [math.log(v) for v in sizes], [math.log(v) for v in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def scale(repeat: int) -> None:
    """The scale model (issue 36): the default call's wall time and peak
    memory at three sizes per axis (runs, queries, depth) around 250 runs x
    50 queries x 100, each axis's exponent fitted (time ~ size**k), and what
    the fit says of 10,000 runs x 50 queries with every pair."""
    axes = {"runs": [("scale-r250", 250), ("scale-r500", 500), ("many1000", 1000)],
            "queries": [("scale-r250", 50), ("scale-q100", 100), ("scale-q200", 200)],
            "depth": [("scale-r250", 100), ("scale-d200", 200), ("scale-d400", 400)]}
    seen: dict[str, tuple[float, float]] = {}
    fitted = {}
    for axis, points in axes.items():
        walls, peaks = [], []
        for name, _ in points:
            if name not in seen:
                qrels, runs = dataset(name)
                seen[name] = measure(LEXEVAL + [qrels, *runs], repeat)
            walls.append(seen[name][0])
            peaks.append(seen[name][1])
        sizes = [size for _, size in points]
        fitted[axis] = (_exponent(sizes, walls), _exponent(sizes, peaks))
        row(f"scale: {axis} {', '.join(f'{size:,}' for size in sizes)}",
            ", ".join(f"{w:.1f} s / {p:.0f} MB" for w, p in zip(walls, peaks)),
            f"time ~ {axis}^{fitted[axis][0]:.2f}, peak memory ~ {axis}^{fitted[axis][1]:.2f}")
    # runs: a cost per run and one per pair (time and memory = a + b R + c R (R - 1) / 2, through the three
    # points), which is what the exponent between 250 and 1,000 runs hides
    import numpy as np
    sizes = np.array([size for _, size in axes["runs"]], dtype=np.float64)
    design = np.stack([np.ones(3), sizes, sizes * (sizes - 1) / 2], axis=1)
    per_pair = {}
    for column, what in ((0, "time"), (1, "memory")):
        per_pair[what] = np.linalg.solve(design, np.array([seen[name][column] for name, _ in axes["runs"]]))
    time_fit, memory_fit = per_pair["time"], per_pair["memory"]
    runs = 10_000
    point = np.array([1.0, runs, runs * (runs - 1) / 2])
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    row("scale: the runs axis as a + b R + c P (P = R (R - 1) / 2 pairs)",
        f"time {time_fit[0]:.2f} s + {time_fit[1] * 1e3:.2f} ms per run + {time_fit[2] * 1e6:.1f} us per pair; "
        f"memory {memory_fit[0]:.0f} MB + {memory_fit[1] * 1e3:.0f} kB per run + {memory_fit[2] * 1e3:.2f} kB per pair",
        "fitted through the three sizes")
    needed = float(point @ memory_fit) / 1000
    row("scale: 10,000 runs x 50 x 100, every pair (49,995,000), from that fit",
        f"about {float(point @ time_fit) / 60:.0f} min and {needed:.0f} GB on one machine",
        f"this machine: {memory:.0f} GB of memory: " + ("the cluster's (or `--baseline`'s) size" if needed > memory
                                                         else "one machine's size"))


def cluster(name: str, label: str, repeat: int) -> None:
    """The default call with --cluster local (this machine's cores as Dask
    workers) and in one process, taken in turns: wall time; the workers'
    processor seconds and peak memory (from --timings) per million input
    lines beside one process's (its own and its reading processes')."""
    qrels, runs = dataset(name)
    lines = sum(_line_count(path) for path in [qrels, *runs]) / 1e6
    ones, walls, timings = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        process = subprocess.Popen(LEXEVAL + [qrels, *runs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        ones.append((time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024))
        start = time.perf_counter()
        done = subprocess.run(LEXEVAL + ["--cluster", "local", "--timings", qrels, *runs],
                              capture_output=True, text=True, check=True)
        walls.append(time.perf_counter() - start)
        timings.append(done.stderr.strip().splitlines()[-1])
    wall, alone = statistics.median(walls), statistics.median(one[0] for one in ones)
    cpu, peak = statistics.median(one[1] for one in ones), statistics.median(one[2] for one in ones)
    found = [re.search(r"(\d+) partitions on (\d+) workers, ([\d.]+) worker-s, peak ([\d/]+) MB", line)
             for line in timings]
    workers, partitions = int(found[0][2]), found[0][1]
    worker_seconds = statistics.median(float(info[3]) for info in found)
    worker_peak = statistics.median(max(map(float, info[4].split("/"))) for info in found)
    row(f"{label}, `--cluster local`",
        f"{wall:.2f} s ({wall / alone:.2f}x): {workers} workers, {partitions} partitions; "
        f"{worker_seconds / lines:.3f} worker-s and {worker_peak / (lines / workers):.1f} MB (peak, a worker's) "
        f"per million lines",
        f"one process, in turns: {alone:.2f} s, {cpu / lines:.3f} processor-s and {peak / lines:.1f} MB per "
        f"million lines ({lines:.1f} M lines)")


def _line_count(path: str) -> int:
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as handle:
        return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 24), b""))


def big_file(name: str, label: str, repeat: int) -> None:
    qrels, runs = dataset(name)
    largest = max(os.path.getsize(path) for path in runs) / 1e6
    wall, peak = measure(LEXEVAL + [qrels, *runs], repeat)
    row(label, f"{wall:.1f} s, {peak:.0f} MB peak",
        f"run {largest:.0f} MB, qrels {os.path.getsize(qrels) / 1e6:.0f} MB; memory target "
        f"2 x run + 300 MB = {2 * largest + 300:.0f} MB")


def huge_docno(repeat: int) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        figures = []
        for docno in ("x" * 10_000_000, "xx"):
            (folder / "qrels").write_text("".join(f"{q} 0 d{q} 1\n" for q in range(1, 31)) + f"1 0 {docno} 1\n")
            lines = [f"{q} Q0 d{k} {k} {100 - k} t" for q in range(1, 31) for k in range(10)]
            lines[0] = f"1 Q0 {docno} 0 1000 t"
            (folder / "run").write_text("\n".join(lines) + "\n")
            figures.append(measure(LEXEVAL + [str(folder / "qrels"), str(folder / "run")], repeat))
        row("a 10 MB docno in a 300-line run and its qrels", f"{figures[0][0]:.2f} s, {figures[0][1]:.0f} MB",
            f"the same files with a 2-byte docno: {figures[1][0]:.2f} s, {figures[1][1]:.0f} MB")
    finally:
        shutil.rmtree(folder)


def growth(repeat: int) -> None:
    base = None
    for name, label in (("growth-base", "20 runs x 250 queries x 1,000"), ("growth-runs", "runs x 2"),
                        ("growth-queries", "queries x 2"), ("growth-depth", "depth x 2")):
        qrels, runs = dataset(name)
        wall, peak = measure(LEXEVAL + [qrels, *runs], repeat)
        base = base or wall
        row(f"growth: {label}", f"{wall:.2f} s ({wall / base:.2f}x), {peak:.0f} MB",
            f"{megabytes(runs):.0f} MB of runs")


TREC_EVAL_PER_CORE = 'q="$1"; n="$2"; shift 2; printf "%s\\n" "$@" | xargs -P "$n" -n 1 "$0" "$q" > /dev/null'


def cores(repeat: int, trec_eval_source: str) -> None:
    """The default call on 1, 2 and all the processors this process may use
    (``taskset -c``), at the Robust04 shape and at 1,000 runs x 50 x 100
    (issue 52), each taken in turns with trec_eval 9.0.8 on the same
    processors one process per core (``xargs -P``, what users with big
    machines do), the trec_eval loop once, and each phase's parallel
    efficiency, T(1) / (k T(k))."""
    allowed = sorted(os.sched_getaffinity(0))
    counts = sorted({count for count in (1, 2, len(allowed)) if count <= len(allowed)})
    trec_eval = trec_eval_908(trec_eval_source)
    for shape, label in (("robust04", "Robust04 shape (249 queries x 110 runs x 1,000)"),
                         ("many1000", "1,000 runs x 50 queries x 100")):
        qrels, runs = dataset(shape)
        if trec_eval:
            loop, _ = measure(["sh", "-c", TREC_EVAL_LOOP, trec_eval, qrels, *runs], 1)
            row(f"{label}: trec_eval 9.0.8 once per run, one after another", f"{loop:.2f} s", "")
        first: dict[str, float] = {}
        for count in counts:
            pinned = ["taskset", "-c", ",".join(map(str, allowed[:count]))]
            call = pinned + LEXEVAL + [qrels, *runs]
            if trec_eval:
                (wall, peak), reference = measure_side_by_side(
                    call, pinned + ["sh", "-c", TREC_EVAL_PER_CORE, trec_eval, qrels, str(count), *runs], repeat)
                beside = f"trec_eval one process per core (xargs -P {count}), taken in turns: {reference:.2f} s; " \
                         f"ratio {wall / reference:.2f}"
            else:
                (wall, peak), beside = measure(call, repeat), "(trec_eval 9.0.8 could not be built)"
            timing = phases(call, repeat)
            seconds = {name: float(value) for name, value in re.findall(r"(reading|measures|pairs|output|total) "
                                                                          r"(\d+\.\d+) s", timing)}
            first = first or seconds
            efficiency = ", ".join(f"{name} {first[name] / (count * seconds[name]):.0%}" for name in seconds
                                   if seconds[name] > 0 and name in first)
            row(f"{label}: the default call on {count} of {len(allowed)} processors",
                f"{wall:.2f} s, {peak:.0f} MB ({timing}; parallel efficiency: {efficiency})", beside)


def judges(repeat: int) -> None:
    """--report judges (a perturbed second qrels, 20% of grades redrawn, 10%
    dropped, by examples/perturb_qrels.py) beside the default call with the
    same measures, at 20,000 and 100,000 queries x 10 runs (issue 51:
    within 3x, linear in queries)."""
    for shape, label in (("recsys20k", "20,000 queries x 10 runs x 100"), ("recsys", "100,000 queries x 10 runs")):
        qrels, runs = dataset(shape)
        other = DATA / shape / "qrels-perturbed.txt"
        if not other.exists():
            made = subprocess.run([sys.executable, str(ROOT / "examples" / "perturb_qrels.py"), qrels, "--seed", "1",
                                   "--flip", "0.2", "--drop", "0.1"], check=True, capture_output=True).stdout
            other.write_bytes(made)
        measures = ["-m", "map", "-m", "LP"]
        plain = [*LEXEVAL, *measures, qrels, *runs]
        report = [*LEXEVAL, "--report", "judges", "--compare-qrels", str(other), *measures, qrels, *runs]
        (seconds, peak), reference = measure_side_by_side(report, plain, repeat)
        row(f"--report judges -m map -m LP, {label}", f"{seconds:.2f} s, {peak:.0f} MB",
            f"the same call without the report {reference:.2f} s: {seconds / reference:.2f}x")


def bounds(repeat: int) -> None:
    """``--bounds`` (every measure's and every pair's exact bounds) beside
    the default call on the Robust04 shape, taken in turns (issue 50: within
    2x), with --bounds' phases."""
    qrels, runs = dataset("robust04")
    plain = [*LEXEVAL, qrels, *runs]
    (seconds, peak), reference = measure_side_by_side([*LEXEVAL, "--bounds", qrels, *runs], plain, repeat)
    row("--bounds, Robust04 shape (110 runs x 249 queries x 1,000)",
        f"{seconds:.2f} s, {peak:.0f} MB ({phases([*LEXEVAL, '--bounds', qrels, *runs], repeat)})",
        f"the default call {reference:.2f} s: {seconds / reference:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shapes", nargs="*", help="startup robust04 html blank many300 many1000 msmarco recsys "
                                                  "cluster20k cluster cluster20kgz q5000 deep docno growth library "
                                                  "thousand baseline10k scale judges cores bounds (default: all but "
                                                  "the last six)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trec-eval-source", default="https://github.com/usnistgov/trec_eval",
                        help="where to get trec_eval 9.0.8's source: a git URL or a local clone")
    options = parser.parse_args()
    chosen = options.shapes or ["startup", "robust04", "html", "blank", "many300", "many1000", "msmarco", "recsys",
                                "cluster20k", "cluster", "cluster20kgz", "q5000", "deep", "docno", "growth", "library"]
    print(f"| what (machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}) | lexeval | "
          "reference, same run |")
    print("|---|---|---|")
    repeat = options.repeat
    # an installed package has its bytecode compiled (pip does it); a checkout under PYTHONDONTWRITEBYTECODE
    # would compile every module on every call
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "lexeval")], check=True)
    runners = {
        "startup": lambda: startup(repeat),
        "robust04": lambda: robust04(repeat, options.trec_eval_source),
        "html": lambda: html(repeat),
        "blank": lambda: blank_lines(repeat),
        "many300": lambda: default_call("many300", "300 runs x 50 queries x 100 (44,850 pairs)", repeat),
        "many1000": lambda: default_call("many1000", "1,000 runs x 50 queries x 100 (499,500 pairs)", repeat),
        "msmarco": lambda: default_call("msmarco", "MS MARCO dev-sized: 6,980 queries x 20 runs x 100", repeat),
        "recsys": lambda: default_call("recsys", "recommender-sized: 100,000 users x 10 runs x 100", repeat),
        "cluster20k": lambda: cluster("recsys20k", "recommender-sized: 20,000 users x 10 runs x 100", repeat),
        "cluster": lambda: cluster("recsys", "recommender-sized: 100,000 users x 10 runs x 100", repeat),
        "cluster20kgz": lambda: cluster("recsys20k-gz", "the 20,000 users, gzipped (level 1)", repeat),
        "q5000": lambda: big_file("q5000", "one 211 MB run (5,000 queries x 1,000), 153 MB qrels", repeat),
        "deep": lambda: big_file("deep", "one 2.2 GB run (5,000 queries x 10,000)", repeat),
        "docno": lambda: huge_docno(repeat),
        "growth": lambda: growth(repeat),
        "library": lambda: library(repeat),
        "thousand": lambda: thousand(repeat, options.trec_eval_source),
        "baseline10k": lambda: baseline10k(repeat, options.trec_eval_source),
        "scale": lambda: scale(repeat),
        "judges": lambda: judges(repeat),
        "cores": lambda: cores(repeat, options.trec_eval_source),
        "bounds": lambda: bounds(repeat),
    }
    for shape in chosen:
        if shape not in runners:
            parser.error(f"unknown shape {shape}")
        runners[shape]()


if __name__ == "__main__":
    main()
