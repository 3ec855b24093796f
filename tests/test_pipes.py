"""A reader that stops early (``| head -1``) is a success: exit 0, nothing on
stderr, for every format, any number of runs, -q and --report; exit 1 stays
the status of a failed gate, even when the pipe closes."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import EXAMPLES

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))
LEXEVAL = f"{sys.executable} -m lexeval"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("head") is None,
                                reason="needs bash and head")


def _piped(options: str, runs: int) -> subprocess.CompletedProcess:
    """``lexeval OPTIONS QRELS RUN... | head -1`` under pipefail: the
    pipeline's status is lexeval's."""
    files = " ".join(str(path) for path in RUNS[:runs])
    script = f"set -o pipefail; {LEXEVAL} {options} {QRELS} {files} | head -1"
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("options,runs", [
    ("-q", 1), ("-q", 4), ("--format csv -q", 1), ("--format json -q", 3), ("--format csv -q", 12),
    ("--format table", 12), ("--format markdown", 12), ("--format latex", 12), ("-m all_trec -q -c", 2),
    ("--report ties --report agreement", 3),
])
def test_head_closes_the_pipe_and_lexeval_exits_0(options, runs):
    done = _piped(options, runs)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert len(done.stdout.splitlines()) == 1


def test_a_failed_gate_is_still_exit_1_when_the_pipe_closes():
    # tfidf_title is far worse than bm25okapi on map on Cranfield (0.2064 against 0.2842): the gate fails
    options = "-q --baseline bm25okapi --gate map"
    files = [path for path in RUNS if path.name in ("bm25okapi.gz", "tfidf_title.gz")]
    script = f"set -o pipefail; {LEXEVAL} {options} {QRELS} {' '.join(map(str, files))} | head -1"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "gate failed: tfidf_title is worse than bm25okapi on map" in done.stderr
    assert "Traceback" not in done.stderr
