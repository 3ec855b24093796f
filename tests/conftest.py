"""Shared helpers: paths to the fixtures under tests/data and examples/, and an in-process CLI runner.

Every fixture lives in the repository (tests/data/README.md names each one's
source and licence): the suite needs nothing beside the checkout."""

from __future__ import annotations

import io
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
CONFORMANCE = DATA / "trec_eval"
DL19 = DATA / "real" / "dl19-passage-top20"
DLHARD = DATA / "real" / "dlhard-doc"
EXAMPLES = ROOT / "examples"
CRANFIELD = EXAMPLES / "cranfield"
GENERATOR = ROOT / "benchmarks" / "gen_trec.py"


class Result:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def lines(self) -> list[str]:
        return self.out.splitlines()


def run_cli(args: list[str], stdin: bytes | None = None) -> Result:
    """Run ``lexeval ARGS`` in this process; returns exit code, stdout, stderr."""
    from lexeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr = out, err
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        sys.stdout, sys.stderr, sys.stdin = old
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def cluster():
    """A Dask cluster of two worker processes, one thread each (partitions
    really travel), once per test file that asks for it."""
    distributed = pytest.importorskip("distributed")
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                                     silence_logs=40)
    yield local
    local.close()


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(params=["kernel", "pyarrow", "numpy"])
def reader(request, monkeypatch):
    """Each file-reading path: the compiled kernel (the default when it is
    built), pyarrow's CSV reader with numpy matching (without the kernel),
    and numpy alone (without the kernel and without pyarrow)."""
    from lexeval.io import kernel
    if request.param == "kernel" and kernel._kernel is None:
        pytest.skip("the compiled kernel is not built (test_kernel checks it is, where a compiler is)")
    monkeypatch.setenv("LEXEVAL_KERNEL", "on" if request.param == "kernel" else "off")
    monkeypatch.setattr("lexeval.io.strings._ARROW", [request.param != "numpy"])
    return request.param


@contextmanager
def colliding_hashes():
    """Every docno and qid hash 0, in the Python reader and in the kernel:
    every look-up is a clash, so only the bytes can decide."""
    from lexeval.io import kernel
    from lexeval.io.strings import ByteStrings
    real_hash = ByteStrings.hash64
    ByteStrings.hash64 = lambda self: np.zeros(len(self), dtype=np.uint64)
    if kernel._kernel is not None:
        kernel._kernel.set_hash_mask(0)
    try:
        yield
    finally:
        ByteStrings.hash64 = real_hash
        if kernel._kernel is not None:
            kernel._kernel.set_hash_mask(2 ** 64 - 1)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run_lines(qid_docs: dict[str, list[str]], tag: str = "t") -> str:
    """A run file's text: documents listed best first per query."""
    lines = []
    for qid, docs in qid_docs.items():
        for rank, doc in enumerate(docs, start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {1000 - rank} {tag}")
    return "\n".join(lines) + "\n"


def write_trec(tmp, name: str, qrels: dict, runs: list) -> tuple[str, dict]:
    """Write ``qrels`` ({qid: {docno: grade}}) and ``runs`` (each {qid:
    [docno, ...]} in rank order, or [(docno, score), ...]) as TREC files
    under ``tmp``; returns (qrels path, {run name: path}). A run with no
    line gets one for a query the qrels lack (an empty file is bad input)."""
    qrels_path = tmp / f"{name}.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()))
    paths = {}
    for index, run in enumerate(runs):
        path = tmp / f"{name}.run{index}"
        lines = []
        for q, docs in run.items():
            for rank, doc in enumerate(docs):
                docno, score = doc if isinstance(doc, tuple) else (doc, 100 - rank)
                lines.append(f"{q} Q0 {docno} {rank + 1} {score:g} tag\n")
        path.write_text("".join(lines) or "zz Q0 none 1 1 tag\n")
        paths[f"run{index}"] = str(path)
    return str(qrels_path), paths
