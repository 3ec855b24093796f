"""Seconds per phase of one evaluation (``--timings``)."""

from __future__ import annotations

import time
from contextlib import contextmanager, nullcontext


class Timings:
    """Wall-clock seconds per phase of one evaluation (``--timings``).

    Phases are timed where the work happens; ``bytes_read`` is the input
    files' total size (0 unless all are plain files), for reading's MB/s.
    Per-query preferences are made while they are written: with ``-q``
    their time is part of "output"."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.bytes_read = 0
        self.workers: dict[str, float] = {}      # --cluster: each worker's peak memory, MB
        self.worker_seconds = 0.0                # --cluster: the workers' processor seconds during the call
        self.partitions = 0
        self._start = time.perf_counter()

    @contextmanager
    def phase(self, name: str):
        """Add the time spent inside the ``with`` block to ``name``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def line(self) -> str:
        """One line for standard error: each phase, then the total."""
        parts = []
        for name, seconds in self.seconds.items():
            text = f"{name} {seconds:.2f} s"
            if name == "reading" and self.bytes_read:
                megabytes = self.bytes_read / 1e6
                text += f" ({megabytes:.1f} MB, {megabytes / max(seconds, 1e-9):.0f} MB/s)"
            parts.append(text)
        if self.workers:
            peaks = "/".join(f"{peak:.0f}" for peak in self.workers.values())
            parts.append(f"{self.partitions} partitions on {len(self.workers)} workers, "
                         f"{self.worker_seconds:.2f} worker-s, peak {peaks} MB")
        parts.append(f"total {time.perf_counter() - self._start:.2f} s")
        return "timings: " + ", ".join(parts)


def timed(timings: Timings | None, name: str):
    """``timings.phase(name)``, or nothing when not timing."""
    return nullcontext() if timings is None else timings.phase(name)
