"""Shared helpers: paths to the shared fixtures and an in-process CLI runner."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"
CRANFIELD = SHARED / "data" / "cranfield"
EXAMPLES = ROOT / "examples"


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


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(params=["pyarrow", "numpy"])
def reader(request, monkeypatch):
    """Each file-reading path: pyarrow's (the default), and numpy's, which
    lexeval uses when pyarrow is not installed."""
    monkeypatch.setattr("lexeval.io.strings._ARROW", [request.param == "pyarrow"])
    return request.param


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
