"""Progress on long calls: bars on standard error for a person at a
terminal (reading, measures, pairs, tests, output), nothing where standard
error is a file or a pipe; the library's ``phases`` callback follows the
same steps."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import DL19, ROOT

RUNS = sorted((DL19 / "runs").iterdir())[:20]


def _stderr_on_a_terminal(args: list) -> bytes:
    import pty
    master, slave = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "lexeval", *map(str, args)], cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=slave, timeout=300)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert done.returncode == 0
    return out


def test_a_terminal_sees_each_phase():
    shown = _stderr_on_a_terminal([DL19 / "qrels.txt", *RUNS])
    for phase in (b"reading runs", b"measures", b"pairs", b"tests"):
        assert phase in shown, phase


def test_a_pipe_sees_no_bar():
    done = subprocess.run([sys.executable, "-m", "lexeval", DL19 / "qrels.txt", *RUNS], cwd=ROOT,
                          capture_output=True, timeout=300)
    assert done.returncode == 0
    assert b"pairs" not in done.stderr and b"\x1b[" not in done.stderr


def test_the_library_follows_the_phases():
    from lexeval.evaluation import evaluate
    from lexeval.options import Hooks
    seen: dict[str, list] = {}
    evaluate(str(DL19 / "qrels.txt"), [str(r) for r in RUNS[:5]], ["map", "P.10", "LP"],
             hooks=Hooks(warn=lambda _: None,
                         phases=lambda label, done, total: seen.setdefault(label, []).append((done, total))))
    assert set(seen) == {"measures", "pairs", "tests"}
    for label, calls in seen.items():
        assert all(0 <= done <= total for done, total in calls)
        assert calls[-1][0] == calls[-1][1] or label == "measures"
