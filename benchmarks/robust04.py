#!/usr/bin/env python3
"""Benchmark lexeval on a Robust04-sized collection (run by hand, not in CI).

    python benchmarks/robust04.py            # generates the data once (~1.1 GB)

Builds 249 queries x 110 runs x 1000 documents with ../shared/bench/gen_trec.py
into benchmarks/data/robust04 (ignored by git), then measures:

1. one `lexeval` call over all 110 runs with trec_eval's default measures:
   wall time and peak memory (the target: under half of trec_eval's ~53 s for
   110 separate calls on this 2-core machine, under 2 GB);
2. in-process phases: parsing throughput (MB/s of run text), building the
   arrays, the default measures, and all four preferences for 5,995 pairs.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATOR = HERE.parent.parent / "shared" / "bench" / "gen_trec.py"


def generate(out: Path) -> None:
    if (out / "qrels.txt").exists() and len(glob.glob(str(out / "runs" / "*"))) == 110:
        return
    print(f"generating the collection in {out} (a few minutes, once)...", file=sys.stderr)
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out), "--queries", "249",
                    "--runs", "110", "--depth", "1000"], check=True)


def cli_run(qrels: str, runs: list[str], *options: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB, largest call so far) of one lexeval call."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lexeval", *options, qrels, *runs],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak


def phases(qrels_path: str, runs: list[str]) -> dict[str, float]:
    from lexeval.evaluation import evaluate_rankings, read_runs, select_measures
    from lexeval.inputs import read_qrels
    from lexeval.preferences import PREFERENCE_NAMES, compute_preferences
    from lexeval.rankings import build_rankings

    clock = time.perf_counter
    t0 = clock()
    qrels = read_qrels(qrels_path)
    t1 = clock()
    parsed = read_runs(runs, qrels)
    t2 = clock()
    rankings = build_rankings(qrels, parsed)
    t3 = clock()
    evaluate_rankings(rankings, select_measures(["official"]).metrics)
    t4 = clock()
    compute_preferences(rankings, PREFERENCE_NAMES)
    t5 = clock()
    from lexeval import significance
    from lexeval.evaluation import selected_pairs
    ev = evaluate_rankings(rankings, select_measures(["map"]).metrics)
    values = ev.column("map").values
    pairs = selected_pairs(rankings.run_names, None)
    t6 = clock()
    significance.randomization(values[pairs[:, 0]] - values[pairs[:, 1]], 10_000, 0)
    t7 = clock()
    significance.tukey_hsd(values, pairs)
    t8 = clock()
    size = sum(os.path.getsize(path) for path in runs) / 1e6
    return {"qrels": t1 - t0, "runs": t2 - t1, "MB": size, "MB/s": size / (t2 - t1),
            "build": t3 - t2, "measures": t4 - t3, "preferences": t5 - t4,
            "randomization": t7 - t6, "hsd": t8 - t7}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(HERE / "data" / "robust04"))
    options = parser.parse_args()
    data = Path(options.data)
    generate(data)
    qrels = str(data / "qrels.txt")
    runs = sorted(glob.glob(str(data / "runs" / "*")))
    wall, peak = cli_run(qrels, runs, "-m", "official")
    report_wall, _ = cli_run(qrels, runs, "--report", "ties", "--report", "agreement", "--report", "discrimination")
    p = phases(qrels, runs)
    print(f"| machine | {os.cpu_count()} cores, Python {sys.version.split()[0]} |")
    print("|---|---|")
    print(f"| `lexeval -m official` on 110 runs (one call) | {wall:.1f} s wall, {peak:.0f} MB peak |")
    print(f"| `--report ties --report agreement --report discrimination` (default measures) | {report_wall:.1f} s wall |")
    print(f"| reading runs ({p['MB']:.0f} MB) | {p['runs']:.1f} s = {p['MB/s']:.0f} MB/s (qrels {p['qrels']:.1f} s) |")
    print(f"| building arrays | {p['build']:.2f} s |")
    print(f"| official measures, 110 runs x 249 queries | {p['measures']:.2f} s |")
    print(f"| LP, rrLP, LR, rrLR for 5,995 pairs x 249 queries | {p['preferences']:.2f} s |")
    print(f"| randomization test, map, 5,995 pairs x 249 queries x 10,000 permutations | {p['randomization']:.1f} s |")
    print(f"| Tukey HSD, map, 5,995 pairs | {p['hsd']:.1f} s |")


if __name__ == "__main__":
    main()
