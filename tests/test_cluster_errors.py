"""Bad input says the same on a Dask cluster as on one machine: every kind,
from a local file and from standard input (file, line, message, status)."""

from __future__ import annotations

import os

import pytest
from conftest import EXAMPLES, run_cli

distributed = pytest.importorskip("distributed")


def _bad_inputs(folder):
    """Ten kinds of bad (or odd) run input, as a user makes them: name -> path."""
    import gzip as gz
    run = (EXAMPLES / "toy" / "runA").read_bytes()
    kinds = {
        "truncated gzip": gz.compress(run)[:60],
        "gzip without suffix": gz.compress(run),
        "NUL byte": b"q1 Q0 a\x00 1 1 t\n" + run,
        "binary": bytes(range(256)) * 4,
        "wrong column count": run + b"q1 Q0 b 2\n",
        "bad score": b"q1 Q0 a 1 x t\n",
        "duplicate document": b"q1 Q0 a 1 1 t\nq1 Q0 a 2 0.5 t\n",
        "empty run": b"",
        "only blank lines": b"\n\n",
        "CRLF and a bad line": run.replace(b"\n", b"\r\n") + b"q1 Q0 z\r\n",
    }
    paths = {}
    for index, (kind, data) in enumerate(kinds.items()):
        paths[kind] = folder / f"run{index}"
        paths[kind].write_bytes(data)
    paths["missing file"] = folder / "no-such-run"
    paths["directory"] = folder
    if os.geteuid() != 0:                   # root reads any file
        paths["permission"] = folder / "unreadable"
        paths["permission"].write_bytes(run)
        paths["permission"].chmod(0)
    return paths


def test_bad_input_says_the_same_on_a_cluster(cluster, tmp_path):
    """Every kind of bad input prints the same stderr (file, line, message)
    and exit status with --cluster as on one machine, from a local file and
    from standard input."""
    qrels = EXAMPLES / "toy" / "qrels.txt"
    good = EXAMPLES / "toy" / "runB"
    kinds = _bad_inputs(tmp_path)
    assert len(kinds) >= 12
    for kind, path in kinds.items():
        for as_stdin in (False, True):
            if as_stdin and (not path.is_file() or kind == "permission"):
                continue
            args = [qrels, "-" if as_stdin else path, good]
            stdin = path.read_bytes() if as_stdin else None
            alone = run_cli(args, stdin=stdin)
            sharded = run_cli(["--cluster", cluster.scheduler_address, *args], stdin=stdin)
            where = f"{kind} ({'stdin' if as_stdin else 'file'})"
            assert (sharded.code, sharded.err, sharded.out) == (alone.code, alone.err, alone.out), where
            if kind != "gzip without suffix":
                assert alone.code == 2 and alone.err.startswith("lexeval: error: "), where
