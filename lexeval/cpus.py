"""How many processors lexeval may use, and how many it will.

The processors a process may use are fewer than the machine's under
``taskset``, Slurm, Docker's ``--cpus`` and Kubernetes' limits: its
affinity (``os.process_cpu_count`` where Python has it, else
``os.sched_getaffinity``) and its cgroup's quota (v2 ``cpu.max``, v1
``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``, the least along its
cgroup's path), rounded up. ``--jobs N`` (``LEXEVAL_JOBS``, ``jobs=``)
caps every thread and process lexeval starts: reading, measures, pairs,
tests and output; 1 is strictly serial. Imports nothing heavy.
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from .errors import UsageError

_LIMIT: int | None = None            # --jobs / jobs=, for the call under way (see limited)
CGROUP_ROOT = Path("/sys/fs/cgroup")


def affinity() -> int:
    """Processors this process may run on."""
    counted = getattr(os, "process_cpu_count", None)
    if counted is not None:
        return max(counted() or 1, 1)
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):        # macOS, Windows: no affinity to read
        return max(os.cpu_count() or 1, 1)


def cgroup_quota(root: Path = CGROUP_ROOT, membership: str | None = None) -> int | None:
    """Processors the cgroup quota grants this process, rounded up; None
    without a quota. ``membership``: /proc/self/cgroup's text (read if None)."""
    if membership is None:
        try:
            membership = Path("/proc/self/cgroup").read_text()
        except OSError:
            return None
    least = None
    for line in membership.splitlines():
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if number == "0" and controllers == "":                     # cgroup v2: cpu.max, "max 100000" or "q p"
            found = _along(root, path, lambda folder: _v2(folder / "cpu.max"))
        elif "cpu" in controllers.split(","):                       # cgroup v1: cfs quota over period
            found = _along(root / controllers, path, _v1)
        else:
            continue
        if found is not None:
            least = found if least is None else min(least, found)
    return least


def _along(root: Path, path: str, read) -> int | None:
    """The least quota of the cgroup at ``path`` and its parents."""
    least = None
    folder = root / path.strip("/") if path.strip("/") else root
    while True:
        found = read(folder)
        if found is not None:
            least = found if least is None else min(least, found)
        if folder == root or root not in folder.parents:
            return least
        folder = folder.parent


def _v2(file: Path) -> int | None:
    try:
        quota, period = file.read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return None if quota == "max" else max(math.ceil(int(quota) / int(period)), 1)


def _v1(folder: Path) -> int | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else max(math.ceil(quota / period), 1)


@lru_cache(maxsize=1)
def available() -> int:
    """Processors this process may use: its affinity, within its cgroup's
    quota (read once: the files are read, not the processors counted, each call)."""
    quota = cgroup_quota()
    return min(affinity(), quota) if quota is not None else affinity()


def jobs() -> int:
    """Threads and processes lexeval uses at most: the processors it may
    use, capped by --jobs (``jobs=``) or else ``LEXEVAL_JOBS``."""
    limit = _LIMIT if _LIMIT is not None else from_environment()
    return min(available(), limit) if limit is not None else available()


def from_environment() -> int | None:
    """``LEXEVAL_JOBS`` as a number of jobs (None where unset)."""
    text = os.environ.get("LEXEVAL_JOBS", "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"LEXEVAL_JOBS must be a whole number of 1 or more, got {text!r}")
    return int(text)


@contextmanager
def limited(count: int | None):
    """Every thread and process of the call within ``count`` (None: as
    LEXEVAL_JOBS or the processors say)."""
    global _LIMIT
    before = _LIMIT
    if count is not None:
        _LIMIT = count
    try:
        yield
    finally:
        _LIMIT = before


M_ARENA_MAX = -8            # glibc's mallopt parameter


def one_heap() -> bool:
    """Make every thread allocate from one malloc heap (glibc's arenas: one,
    not one per thread), before any thread starts; True where it was done.
    Arrays a worker thread frees stay in its own arena otherwise, which the
    other threads do not reuse: a thousand runs' call held 62 MB more on two
    threads than on one. Only the command does this (it owns its process);
    the library leaves its host's allocator alone."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    import ctypes
    try:
        return bool(ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1))      # the process's own C library
    except (OSError, AttributeError):        # not glibc (musl has no mallopt): its own allocator
        return False
