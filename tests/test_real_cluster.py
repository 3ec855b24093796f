"""--cluster on a real Dask cluster: ``dask scheduler`` and ``dask worker``
processes bound to 127.0.0.1. A worker killed mid-call changes nothing in
the output; workers whose Python lacks lexeval get the client's code; a
worker that cannot run it stops the call at once with what it lacks; and
stderr carries lexeval's lines only."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES, GENERATOR

pytest.importorskip("distributed")

DASK = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
pytestmark = pytest.mark.skipif(DASK is None, reason="needs Dask's command line (dask scheduler, dask worker)")

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[:4]

#: A worker "without lexeval": the editable install's finder and any path holding the package are removed.
HIDE_LEXEVAL = '''
import os
import sys

sys.meta_path[:] = [finder for finder in sys.meta_path
                    if "lexeval" not in type(finder).__module__ and "editable" not in type(finder).__name__.lower()]
sys.path[:] = [path for path in sys.path if not os.path.exists(os.path.join(path, "lexeval", "__init__.py"))]
'''

#: ... and, for one test, without scipy either (a dependency lexeval needs).
HIDE_SCIPY = '''

class _NoScipy:
    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None


sys.meta_path.insert(0, _NoScipy())
'''


class Cluster:
    """A scheduler and worker processes on 127.0.0.1, stopped on close."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen] = []
        self.scheduler = self._start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(self.file)])
        deadline = time.monotonic() + 60
        while not self.file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.address = json.loads(self.file.read_text())["address"]
        assert self.address.startswith("tcp://127.0.0.1:")

    def _start(self, command: list, env: dict | None = None) -> subprocess.Popen:
        process = subprocess.Popen(command, cwd=self.folder, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        self.processes.append(process)
        return process

    def worker(self, hide: str | None = None) -> subprocess.Popen:
        """A worker process of its own (no nanny: killing it ends it); ``hide``
        is a sitecustomize module's text for its Python."""
        env = dict(os.environ)
        if hide is not None:
            site = self.folder / f"site{len(self.processes)}"
            site.mkdir()
            (site / "sitecustomize.py").write_text(hide)
            env["PYTHONPATH"] = str(site)
        return self._start([DASK, "worker", "--scheduler-file", str(self.file), "--host", "127.0.0.1",
                            "--nthreads", "1", "--no-nanny", "--no-dashboard"], env)

    def wait_for(self, count: int) -> None:
        from distributed import Client
        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(count, timeout=60)

    def close(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 5
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture
def real_cluster(tmp_path):
    cluster = Cluster(tmp_path)
    yield cluster
    cluster.close()


def lexeval(*args, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lexeval", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_a_worker_killed_mid_call_changes_nothing(real_cluster, tmp_path):
    generator = GENERATOR
    data = tmp_path / "data"
    subprocess.run([sys.executable, str(generator), "--out", str(data), "--queries", "4000", "--runs", "4",
                    "--depth", "100", "--seed", "7"], check=True, capture_output=True)
    qrels, runs = data / "qrels.txt", sorted((data / "runs").iterdir())
    workers = [real_cluster.worker() for _ in range(3)]
    real_cluster.wait_for(3)
    alone = lexeval("-q", qrels, *runs)
    from distributed import Client
    victim, killed = workers[1], False
    with Client(real_cluster.address, timeout="30s") as watcher:
        address = next(address for address, pid in watcher.run(os.getpid).items() if pid == victim.pid)
        for _ in range(3):                          # a call can end before the victim gets a task: call again
            call = subprocess.Popen([sys.executable, "-m", "lexeval", "--cluster", real_cluster.address, "-q",
                                     qrels, *runs], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 120
            while call.poll() is None and time.monotonic() < deadline and not killed:
                if watcher.processing().get(address):       # the victim is running a task: kill it now
                    os.kill(victim.pid, signal.SIGKILL)
                    killed = True
                time.sleep(0.01)
            out, err = call.communicate(timeout=300)
            assert call.returncode == alone.returncode == 0, err
            assert out == alone.stdout
            assert err == alone.stderr                          # lexeval's notes only: no Dask line
            if killed:
                break
    assert killed, "no call lasted until a worker could be killed"


def test_workers_without_lexeval_get_the_clients_code(real_cluster):
    for _ in range(2):
        real_cluster.worker(hide=HIDE_LEXEVAL)
    real_cluster.wait_for(2)
    args = ["-q", "-m", "official", "-m", "nDCG@10", "-m", "LP", QRELS, *RUNS]
    alone = lexeval(*args)
    sharded = lexeval("--cluster", real_cluster.address, *args)
    assert sharded.returncode == alone.returncode == 0, sharded.stderr
    assert sharded.stdout == alone.stdout and sharded.stderr == alone.stderr
    bad = lexeval("--cluster", real_cluster.address, QRELS, EXAMPLES / "toy" / "qrels.txt")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("lexeval: error: ") and "Traceback" not in bad.stderr


def test_a_worker_that_cannot_run_lexeval_stops_the_call_at_once(real_cluster):
    real_cluster.worker(hide=HIDE_LEXEVAL + HIDE_SCIPY)
    real_cluster.wait_for(1)
    started = time.monotonic()
    done = lexeval("--cluster", real_cluster.address, "-m", "map", QRELS, RUNS[0], timeout=120)
    assert time.monotonic() - started < 60
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot run lexeval (ModuleNotFoundError: No module named 'scipy')" in done.stderr
    assert "a worker needs Dask and lexeval's dependencies" in done.stderr
    assert done.stderr.count("\n") == 1                      # one line: no Dask log line, no traceback


def test_a_scheduler_without_workers_is_an_error_not_a_wait(real_cluster):
    started = time.monotonic()
    done = lexeval("--cluster", real_cluster.address, "-m", "map", QRELS, RUNS[0], timeout=120)
    assert time.monotonic() - started < 60
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "lexeval: error: --cluster: the scheduler has no worker\n"


def test_cluster_local_as_typed_leaves_port_8787_alone():
    """``--cluster local`` starts its own workers on this machine: the same
    output as one process, nothing from Dask on stderr, and the scheduler's
    web server does not take (or complain about) 8787, a port a user's own
    Dask dashboard may hold. Held here while the call runs, where free."""
    import socket
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:                                   # already held: the case to test anyway
        holder.close()
        holder = None
    try:
        args = ["-m", "official", "-m", "LP", QRELS, *RUNS[:2]]
        alone = lexeval(*args)
        sharded = lexeval("--cluster", "local", *args)
    finally:
        if holder is not None:
            holder.close()
    assert sharded.returncode == alone.returncode == 0, sharded.stderr
    assert sharded.stdout == alone.stdout
    assert sharded.stderr == alone.stderr


def test_cluster_local_serves_on_a_free_local_port():
    """The scheduler ``--cluster local`` starts serves its web pages on a
    port of 127.0.0.1 the system picks, never on 8787 (Dask's default)."""
    from lexeval.cluster.client import connect
    client = connect("local")
    try:
        port = client.scheduler_info()["services"]["dashboard"]
        assert port != 8787
        server = client.cluster.scheduler.http_server
        hosts = {sock.getsockname()[0] for sock in server._sockets.values()}
        assert hosts == {"127.0.0.1"}
    finally:
        client.close()
        client.cluster.close()
