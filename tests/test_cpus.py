"""The processors lexeval uses: its affinity and cgroup quota, --jobs
(LEXEVAL_JOBS, jobs=) capping every thread and process, --jobs 1 strictly
serial, and the same output at any number of jobs."""

import concurrent.futures
import os
import random
import subprocess
import sys

import pytest
from conftest import run_cli

from lexeval import compiled, cpus, evaluate
from lexeval.errors import UsageError

AFFINITY = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2


def _in_child(code: str, env: dict | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not AFFINITY, reason="needs sched_setaffinity and two processors")
@pytest.mark.parametrize("processors", [{0}, {0, 1}])
def test_threads_and_processes_follow_the_affinity(processors):
    shown = _in_child(f"import os; os.sched_setaffinity(0, {processors!r}); from lexeval import compiled, cpus; "
                      "print(cpus.jobs(), compiled.cores())", {"LEXEVAL_JOBS": ""})
    assert shown == f"{len(processors)} {len(processors)}"


@pytest.mark.skipif(not AFFINITY, reason="needs sched_setaffinity and two processors")
def test_a_call_given_one_processor_starts_no_pool():
    code = ("import os, concurrent.futures as f; os.sched_setaffinity(0, {0}); from lexeval.io import runs; "
            "print(runs.__name__ and __import__('lexeval').cpus.jobs())")
    assert _in_child(code, {"LEXEVAL_JOBS": ""}) == "1"


def test_the_environment_and_jobs_cap_the_count(monkeypatch):
    cpus.available.cache_clear()
    monkeypatch.setenv("LEXEVAL_JOBS", "1")
    assert cpus.jobs() == 1 and compiled.cores() == 1
    monkeypatch.setenv("LEXEVAL_JOBS", "1000")
    assert cpus.jobs() == cpus.available()
    with cpus.limited(1):
        assert cpus.jobs() == 1
    monkeypatch.setenv("LEXEVAL_JOBS", "two")
    with pytest.raises(UsageError, match="LEXEVAL_JOBS"):
        cpus.jobs()


def test_a_bad_environment_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setenv("LEXEVAL_JOBS", "0")
    qrels, runs = _collection(tmp_path, 2, 3)
    done = run_cli([qrels, *runs])
    assert done.code == 2 and done.err.startswith("lexeval: error: LEXEVAL_JOBS")


@pytest.mark.parametrize("version,files,membership,expected", [
    (2, {"cpu.max": "150000 100000"}, "0::/\n", 2),
    (2, {"cpu.max": "max 100000"}, "0::/\n", None),
    (2, {"cpu.max": "400000 100000", "job/cpu.max": "100000 100000"}, "0::/job\n", 1),
    (2, {"job/cpu.max": "250000 100000"}, "0::/job\n", 3),
    (1, {"cpu,cpuacct/slot/cpu.cfs_quota_us": "50000", "cpu,cpuacct/slot/cpu.cfs_period_us": "100000"},
     "4:cpu,cpuacct:/slot\n2:memory:/x\n", 1),
    (1, {"cpu,cpuacct/cpu.cfs_quota_us": "-1", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, "4:cpu,cpuacct:/\n",
     None),
])
def test_the_cgroup_quota_is_read_along_the_path(tmp_path, version, files, membership, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text + "\n")
    assert cpus.cgroup_quota(tmp_path, membership) == expected


def _collection(tmp_path, runs: int, queries: int, depth: int = 12):
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(40)]
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 {d} {rng.choice([0, 0, 1, 2])}\n" for q in range(queries)
                             for d in rng.sample(docs, 15)))
    paths = []
    for r in range(runs):
        path = tmp_path / f"run{r}"
        path.write_text("".join(f"q{q} Q0 {d} {i + 1} {rng.randint(1, 6)} r{r}\n" for q in range(queries)
                                for i, d in enumerate(rng.sample(docs, depth))))
        paths.append(str(path))
    return str(qrels), paths


@pytest.fixture
def split_everything(monkeypatch):
    """Every threshold below which work stays on one thread set to its least: a small collection is split."""
    from lexeval.measures import requests
    from lexeval.output import records
    from lexeval.stats import conclusions, totals
    monkeypatch.setattr(requests, "THREADED_SEGMENTS", 1)       # the measures computed on threads
    monkeypatch.setattr(conclusions, "THREADED_CELLS", 1)
    monkeypatch.setattr(totals, "THREADED_CELLS", 1)
    monkeypatch.setattr(records, "_SUMMARY_PAIRS", 3)           # many blocks of pairs, laid out on threads
    monkeypatch.setattr(records, "BYTES_LINES", 1)              # each by the compiled layout
    original = compiled.in_parts
    monkeypatch.setattr(compiled, "in_parts", lambda work, count, parts, least=None: original(work, count, parts, 1))


@pytest.mark.parametrize("jobs", [1, 2])
def test_work_in_the_background_gives_its_result_or_its_error_when_asked(monkeypatch, jobs):
    """in_background (--bounds' pairs beside the measures): the function's
    value, or its exception raised where the result is asked for, not
    before; with one job allowed it runs at once, in no thread."""
    import threading
    monkeypatch.setenv("LEXEVAL_JOBS", str(jobs))
    where = []

    def work(x):
        where.append(threading.current_thread() is threading.main_thread())
        if x < 0:
            raise ValueError("negative")
        return 2 * x

    assert compiled.in_background(work, 21).result() == 42
    failed = compiled.in_background(work, -1)
    with pytest.raises(ValueError, match="negative"):
        failed.result()
    assert where == [jobs == 1] * 2


def test_jobs_one_is_strictly_serial(tmp_path, monkeypatch, split_everything):
    from lexeval.io import runs as reading
    from lexeval.io import source
    started = []

    class Refused:
        def __init__(self, *args, **kwargs):
            started.append(type(self).__name__)
            raise AssertionError("a pool was started")
    for module, name in ((concurrent.futures, "ThreadPoolExecutor"), (source, "ThreadPoolExecutor"),
                         (reading, "ProcessPoolExecutor")):
        monkeypatch.setattr(module, name, Refused)
    qrels, runs = _collection(tmp_path, 6, 20)
    evaluate(qrels, runs, ["map", "P.5", "LP", "LR"], jobs=1, bounds=True)
    assert started == []
    if cpus.available() >= 2:
        with pytest.raises(AssertionError, match="pool"):
            evaluate(qrels, runs, ["map", "P.5", "LP", "LR"], jobs=2)


def test_the_output_is_the_same_at_any_number_of_jobs(tmp_path, split_everything):
    qrels, runs = _collection(tmp_path, 8, 30)
    shown = [run_cli(["--jobs", str(jobs), "-q", "--bounds", "-m", "official", "-m", "lexicographic", "-m", "P.5",
                      "--ci", "--hsd", qrels, *runs]) for jobs in (1, 2, 3)]
    assert all(done.code == 0 for done in shown)
    assert shown[0].out == shown[1].out == shown[2].out
    for form in ("text", "json", "csv"):
        shown = [run_cli(["--jobs", str(jobs), "--format", form, "-m", "official", "-m", "lexicographic", qrels, *runs])
                 for jobs in (1, 2, 3)]
        assert all(done.code == 0 for done in shown) and shown[0].out == shown[1].out == shown[2].out, form


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_the_command_keeps_one_heap_for_every_thread():
    """The command asks glibc for one malloc arena before its threads start
    (arrays freed in a worker's own arena are not reused by the others),
    unless MALLOC_ARENA_MAX says otherwise."""
    code = "from lexeval.cpus import one_heap; print(one_heap())"
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    libc = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else ""
    assert done.stdout.strip() == ("True" if libc.startswith("glibc") else "False")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "MALLOC_ARENA_MAX": "4"}, check=True)
    assert done.stdout.strip() == "False"
