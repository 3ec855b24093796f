"""Runs read in processes come back through files in shared memory
(lexeval/io/spool.py): every array as the reading made it, the pipe where
no file can be written, and no file left behind."""

import os
import random

import numpy as np
import pytest
from conftest import run_cli

from lexeval.io import runs as reading
from lexeval.io import spool
from lexeval.io.inputs import ReadOptions, read_qrels
from lexeval.io.source import Source
from lexeval.io.strings import ShortStrings

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm: every run goes through the pipe")


def _collection(tmp_path, runs: int = 5, queries: int = 7):
    """Docnos of every length and shape (1 to 40 bytes, UTF-8, punctuation), tied scores, unjudged documents."""
    rng = random.Random(11)
    shapes = ["d", "FBIS3-10082", "LA010189-0001", "clueweb12-0000tw-05-12114", "é€文書", "a.b/c:d", "x" * 40]
    docs = [f"{rng.choice(shapes)}{i}" for i in range(60)]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 {d} {rng.choice([0, 1, 2])}\n" for q in range(queries)
                             for d in rng.sample(docs, 12)), encoding="utf-8")
    paths = []
    for r in range(runs):
        path = tmp_path / f"run{r}"
        path.write_text("".join(f"q{q} Q0 {d} {i + 1} {rng.randint(1, 4)} r{r}\n" for q in range(queries)
                                for i, d in enumerate(rng.sample(docs, 30))), encoding="utf-8")
        paths.append(str(path))
    return str(qrels), paths


def _arrays(run):
    """The run's arrays; its unjudged docnos as ByteStrings' (they come back from a reading process as
    ShortStrings, by their lengths, where every one is under 256 bytes), the offsets as int64."""
    holes = run.hole_docnos
    if isinstance(holes, ShortStrings):
        holes = holes.strings()
    return [run.codes, run.qrels_rows, run.tie_groups, run.counts, run.present,
            None if holes is None else holes.data, None if holes is None else holes.offsets.astype(np.int64)]


def _same(first, second):
    for a, b in zip(_arrays(first), _arrays(second)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@pytest.fixture
def in_processes(monkeypatch):
    """Every reading of several runs in processes, every run spooled."""
    monkeypatch.setattr(reading, "PROCESSES_FROM", -1)
    monkeypatch.setattr(spool, "SPOOLED_FROM", 0)


def _left_behind():
    return {name for name in os.listdir("/dev/shm") if name.startswith("lexeval-")}


@pytest.mark.parametrize("options", [ReadOptions(keep_holes=True), ReadOptions(keep_rows=True, keep_ties=True),
                                     ReadOptions(keep_holes=True, depth=7, judged_only=False), ReadOptions()])
def test_runs_read_in_processes_equal_runs_read_here(tmp_path, in_processes, options):
    qrels_path, paths = _collection(tmp_path)
    qrels = read_qrels(Source(qrels_path, kind="qrels"))
    before = _left_behind()
    here = reading.read_runs([Source(p) for p in paths], qrels, options, jobs=1)
    away = reading.read_runs([Source(p) for p in paths], qrels, options, jobs=2)
    assert len(here) == len(away) == len(paths)
    for first, second in zip(here, away):
        assert first.name == second.name and first.num_lines == second.num_lines
        _same(first, second)
    assert _left_behind() == before


def test_a_run_spooled_comes_back_whole_and_its_file_goes(tmp_path):
    qrels_path, paths = _collection(tmp_path, runs=1)
    qrels = read_qrels(Source(qrels_path, kind="qrels"))
    run = reading.read_run(Source(paths[0]), qrels, ReadOptions(keep_holes=True, keep_rows=True, keep_ties=True))
    directory = tmp_path / "spool"
    directory.mkdir()
    bare, where = _spooled_anyway(run, str(directory))
    assert where is not None and bare.hole_docnos is None and len(bare.codes) == 0
    assert len(os.listdir(directory)) == 1
    _same(spool.unspooled(bare, where), run)
    assert os.listdir(directory) == []


def _spooled_anyway(run, directory):
    saved, spool.SPOOLED_FROM = spool.SPOOLED_FROM, 0
    try:
        return spool.spooled(run, directory)
    finally:
        spool.SPOOLED_FROM = saved


def test_without_a_file_the_run_goes_through_the_pipe(tmp_path):
    qrels_path, paths = _collection(tmp_path, runs=1)
    qrels = read_qrels(Source(qrels_path, kind="qrels"))
    run = reading.read_run(Source(paths[0]), qrels, ReadOptions(keep_holes=True))
    for directory in (None, str(tmp_path / "gone")):        # none, or one a file cannot be written in
        bare, where = _spooled_anyway(run, directory)
        assert where is None and bare is run
    assert spool.unspooled(run, None) is run


def test_bounds_are_the_same_read_in_processes_or_here(tmp_path, in_processes):
    qrels, runs = _collection(tmp_path, runs=6, queries=9)
    shown = [run_cli(["--jobs", str(jobs), "-q", "--bounds", "-m", "official", "-m", "lexicographic", qrels, *runs])
             for jobs in (1, 2)]
    assert all(done.code == 0 for done in shown) and shown[0].out == shown[1].out
    assert "P_5_low" in shown[0].out and "LP_high" in shown[0].out


@pytest.mark.parametrize("longest", [255, 256, 1000])
def test_unjudged_docnos_come_back_by_their_lengths_or_offsets(tmp_path, in_processes, longest):
    """A run's unjudged docnos come back by their lengths (a byte each) where all are under 256 bytes, else by
    their offsets; either way the same docnos, and the same bounds as read here (the numbering reads both)."""
    qrels, runs = _collection(tmp_path, runs=4, queries=5)
    with open(runs[1], "a", encoding="utf-8") as extra:      # an unjudged document of ``longest`` bytes
        extra.write(f"q0 Q0 {'L' * longest} 31 0 r1\n")
    judgements = read_qrels(Source(qrels, kind="qrels"))
    run = reading.read_run(Source(runs[1]), judgements, ReadOptions(keep_holes=True))
    bare, where = _spooled_anyway(run, str(tmp_path))
    back = spool.unspooled(bare, where)
    assert isinstance(back.hole_docnos, ShortStrings) == (longest < 256)
    _same(back, run)
    shown = [run_cli(["--jobs", str(jobs), "-q", "--bounds", "-m", "official", "-m", "lexicographic", qrels, *runs])
             for jobs in (1, 2)]
    assert all(done.code == 0 for done in shown) and shown[0].out == shown[1].out


def test_a_file_too_big_for_the_room_left_goes_through_the_pipe(tmp_path, monkeypatch):
    qrels_path, paths = _collection(tmp_path, runs=1)
    qrels = read_qrels(Source(qrels_path, kind="qrels"))
    run = reading.read_run(Source(paths[0]), qrels, ReadOptions(keep_holes=True))
    directory = tmp_path / "spool"
    directory.mkdir()
    size = sum(array.nbytes for array in spool._arrays(run).values())
    monkeypatch.setattr(spool, "_room", lambda _: 4 * size - 1)          # a quarter of it is too little
    assert _spooled_anyway(run, str(directory)) == (run, None)
    monkeypatch.setattr(spool, "_room", lambda _: 4 * size)
    assert _spooled_anyway(run, str(directory))[1] is not None


def test_a_directory_left_by_a_killed_reading_is_removed_an_hour_on():
    """Removed: a dead process's, untouched for two hours. Kept: a live
    process's, and a dead (or unseen: another PID namespace) one's touched
    a minute ago."""
    import subprocess
    import sys
    import time
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)
    left, recent = (os.path.join("/dev/shm", f"lexeval-{dead}-{name}") for name in ("test", "recent"))
    alive = os.path.join("/dev/shm", f"lexeval-{os.getpid()}-test")
    for path, age in ((left, 7200), (recent, 60), (alive, 7200)):
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "1-0"), "wb") as out:
            out.write(b"x" * 100)
        os.utime(path, (time.time() - age, time.time() - age))
    try:
        fresh = spool.spool_directory()
        assert fresh is not None and os.path.basename(fresh).startswith(f"lexeval-{os.getpid()}-")
        assert not os.path.exists(left) and os.path.exists(recent) and os.path.exists(alive)
        spool.remove(fresh)
    finally:
        for path in (left, recent, alive):
            spool.remove(path)


def test_a_run_whose_file_is_gone_is_read_again_here(tmp_path, in_processes, monkeypatch):
    qrels_path, paths = _collection(tmp_path)
    qrels = read_qrels(Source(qrels_path, kind="qrels"))
    options = ReadOptions(keep_holes=True)
    here = reading.read_runs([Source(p) for p in paths], qrels, options, jobs=1)
    original, lost = spool.unspooled, []

    def file_removed(run, where):          # someone removes every other run's file before it is read
        if where is not None and len(lost) % 2 == 0:
            os.unlink(where[0])
        lost.append(where is not None)
        return original(run, where)
    monkeypatch.setattr(spool, "unspooled", file_removed)
    away = reading.read_runs([Source(p) for p in paths], qrels, options, jobs=2)
    assert sum(lost) == len(paths)
    for first, second in zip(here, away):
        _same(first, second)
