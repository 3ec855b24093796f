"""Output byte for byte as it was before the package moved into layers
(io, measures, stats, output, reports, cli): the Cranfield runs and the real
TREC runs, through every format, tests, reports and tables. The stored
outputs were written by lexeval 0.2.0 before the move; regenerate them only
on purpose (``python tests/test_golden.py``), never to make a test pass."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest
from conftest import DL19, DLHARD, EXAMPLES, run_cli

GOLDEN = Path(__file__).parent / "golden"
CRAN_QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
CRAN = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))


def dl19_runs(count: int) -> list[Path]:
    return sorted((DL19 / "runs").glob("*.gz"))[:count]


def dlhard_runs(count: int) -> list[Path]:
    return sorted((DLHARD / "runs").glob("*.gz"))[:count]


CALLS = {
    "cranfield-default": lambda: [CRAN_QRELS, *CRAN],
    "cranfield-per-query": lambda: ["-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "lexicographic", "-m", "seeds",
                                    "--hsd", "--ci", "--correction", "holm", "--resamples", "200",
                                    CRAN_QRELS, *CRAN[:3]],
    "cranfield-all-trec": lambda: ["-q", "-m", "all_trec", CRAN_QRELS, CRAN[0]],
    "cranfield-json": lambda: ["--format", "json", "-m", "nDCG@10", "-m", "RR@10", "-m", "P(rel=2)@10",
                               "-m", "Judged@10", "-m", "rrLR", "--baseline", CRAN[1].name[:-3],
                               CRAN_QRELS, *CRAN[:4]],
    "cranfield-markdown": lambda: ["--format", "markdown", "-m", "map", "-m", "P.10", "-m", "LP", "--ci",
                                   "--baseline", CRAN[0].name[:-3], "--correction", "holm",
                                   CRAN_QRELS, *CRAN[:5]],
    "cranfield-latex": lambda: ["--format", "latex", "-m", "map", "-m", "ndcg_cut.10", "-m", "LP",
                                CRAN_QRELS, *CRAN[:4]],
    "cranfield-reports": lambda: ["--report", "ties", "--report", "agreement", "--report", "discrimination",
                                  "--report", "stability", "--trials", "50", "-m", "recip_rank", "-m", "LP",
                                  "-m", "rrLP", CRAN_QRELS, *CRAN],
    "dl19-csv": lambda: ["--format", "csv", "-l", "2", "-m", "official", "-m", "nDCG@10", "-m", "RR@10",
                         "-m", "LP", "-m", "LR", "--test", "randomization", "--permutations", "200",
                         "--correction", "bh", DL19 / "qrels.txt", *dl19_runs(6)],
    "dl19-complete": lambda: ["-c", "-q", "-m", "P.10", "-m", "recip_rank", "-m", "lexicographic",
                              DL19 / "qrels.txt", *dl19_runs(3)],
    "dlhard-judged": lambda: ["-M", "100", "-J", "-m", "official", "-m", "ndcg_cut.10", "-m", "bpref",
                              "--hsd", DLHARD / "qrels.txt", *dlhard_runs(4)],
    "dlhard-degradation": lambda: ["--report", "degradation", "--samples", "3", "--fractions", "1,0.5",
                                   "-m", "recip_rank", "-m", "LP", DLHARD / "qrels.txt", *dlhard_runs(3)],
}


def produce(name: str) -> str:
    result = run_cli([str(arg) for arg in CALLS[name]()])
    assert result.code == 0, result.err
    return result.out


@pytest.mark.parametrize("name", sorted(CALLS))
def test_output_is_what_it_was(name):
    stored = gzip.decompress((GOLDEN / f"{name}.txt.gz").read_bytes()).decode("utf-8", "surrogateescape")
    assert produce(name) == stored


if __name__ == "__main__":          # regenerate on purpose: python tests/test_golden.py
    sys.path.insert(0, str(Path(__file__).parent))
    for call in CALLS:
        (GOLDEN / f"{call}.txt.gz").write_bytes(gzip.compress(produce(call).encode("utf-8", "surrogateescape"),
                                                              mtime=0))
        print(call)
