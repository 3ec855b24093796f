#!/usr/bin/env python3
"""Make a second judgement set from a qrels file by a seeded, documented
perturbation: a stand-in for another assessor (or a language model) to try
``lexeval --report judges --compare-qrels`` on.

Each judgement, in file order, draws two uniform numbers from one
numpy.random.Generator(seed): with probability --drop it is left out (that
assessor never saw the document); otherwise, with probability --flip, its
grade is redrawn uniformly among the grades the file uses. With --lenient P
(a language model's leniency: TREC 2024's human assessors were stricter than
UMBRELA), a judgement kept and not redrawn then draws a third number and,
with probability P, is raised one grade (up to the file's highest);
without --lenient no third number is drawn, so earlier outputs stay as they
were. Everything else is copied as it is. The same file and options give the
same output, byte for byte.

    python examples/perturb_qrels.py examples/cranfield/qrels.txt.gz --seed 1 \\
        --flip 0.2 --drop 0.1 | gzip -n > examples/cranfield/qrels-perturbed.txt.gz
    python examples/perturb_qrels.py examples/cranfield/qrels.txt.gz --seed 2 \\
        --flip 0.1 --drop 0.05 --lenient 0.3 | gzip -n > examples/cranfield/qrels-llm.txt.gz

Only numpy is needed; .gz input is read as such.
"""

from __future__ import annotations

import argparse
import gzip
import sys

import numpy as np


def perturbed(lines: list[str], seed: int, flip: float, drop: float, lenient: float = 0.0) -> list[str]:
    """The judgement lines (qid iter docno grade) after the perturbation."""
    judgements = [line.split() for line in lines if line.strip()]
    grades = sorted({int(fields[3]) for fields in judgements})
    rng = np.random.default_rng(seed)
    out = []
    for qid, iteration, docno, grade in judgements:
        dropped, flipped = rng.random(2)
        new_grade = int(rng.choice(grades))
        if dropped < drop:
            continue
        kept = new_grade if flipped < flip else int(grade)
        if lenient and flipped >= flip and rng.random() < lenient:
            kept = min(kept + 1, grades[-1])
        out.append(f"{qid} {iteration} {docno} {kept if kept != int(grade) else grade}\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels", help="a qrels file (qid iter docno grade), .gz or plain")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    parser.add_argument("--flip", type=float, default=0.2, help="chance a grade is redrawn (default 0.2)")
    parser.add_argument("--drop", type=float, default=0.1, help="chance a judgement is left out (default 0.1)")
    parser.add_argument("--lenient", type=float, default=0.0,
                        help="chance a kept, not redrawn grade is raised by one (default 0: none)")
    options = parser.parse_args(argv)
    if not all(0 <= chance <= 1 for chance in (options.flip, options.drop, options.lenient)):
        parser.error("--flip, --drop and --lenient are probabilities, in [0, 1]")
    opener = gzip.open if options.qrels.endswith(".gz") else open
    with opener(options.qrels, "rt", encoding="utf-8") as source:
        lines = source.readlines()
    sys.stdout.writelines(perturbed(lines, options.seed, options.flip, options.drop, options.lenient))
    return 0


if __name__ == "__main__":
    sys.exit(main())
