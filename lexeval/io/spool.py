"""Parsed runs handed from the reading processes to the command's through
files in shared memory (``/dev/shm``) instead of the pipe: a run's arrays
(a few megabytes, ten times that with --bounds' unjudged docnos) cost the
pipe four copies and a wake-up per 64 kB, a fifth of the reading time at a
hundred runs; a file in memory costs one copy each way. Where there is no
such directory, or a file cannot be written there (a container's /dev/shm
is often 64 MB), the run goes through the pipe as before."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from dataclasses import replace

import numpy as np

from .inputs import ParsedRun
from .strings import ByteStrings

#: Runs whose arrays are smaller than this go through the pipe (a file costs a few system calls).
SPOOLED_FROM = 256 << 10
_ALIGN = 64                                 # each array's place in a file: a whole cache line, any dtype aligned
_numbers = itertools.count()


def spool_directory() -> str | None:
    """A fresh directory in shared memory for one reading's files (the caller removes it: :func:`remove`), or None."""
    root = "/dev/shm"
    if not (os.path.isdir(root) and os.access(root, os.W_OK | os.X_OK)):
        return None
    try:
        return tempfile.mkdtemp(prefix="lexeval-", dir=root)
    except OSError:
        return None


def remove(directory: str | None) -> None:
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


def _arrays(run: ParsedRun) -> dict[str, np.ndarray]:
    """The run's large arrays by name (the docnos' bytes and offsets as ``hole_data``, ``hole_offsets``)."""
    named = {"codes": run.codes, "qrels_rows": run.qrels_rows, "tie_groups": run.tie_groups}
    if run.hole_docnos is not None:
        named.update(hole_data=run.hole_docnos.data, hole_offsets=run.hole_docnos.offsets)
    return {name: np.ascontiguousarray(array) for name, array in named.items() if array is not None}


def spooled(run: ParsedRun, directory: str | None) -> tuple[ParsedRun, tuple | None]:
    """In a reading process: (the run without its large arrays, where they
    are: a file's path and each array's name, dtype, shape and offset), or
    (the run, None) where it is small or the file cannot be written."""
    arrays = _arrays(run)
    if directory is None or sum(array.nbytes for array in arrays.values()) < SPOOLED_FROM:
        return run, None
    path = os.path.join(directory, f"{os.getpid()}-{next(_numbers)}")
    placed, offset = [], 0
    try:
        with open(path, "wb") as out:
            for name, array in arrays.items():
                out.write(bytes(-offset % _ALIGN))
                offset += -offset % _ALIGN
                out.write(array.data.cast("B"))
                placed.append((name, array.dtype.str, array.shape, offset))
                offset += array.nbytes
    except OSError:                     # no room: the pipe
        try:
            os.unlink(path)
        except OSError:
            pass
        return run, None
    bare = replace(run, codes=np.zeros(0, dtype=run.codes.dtype), qrels_rows=None, tie_groups=None, hole_docnos=None)
    return bare, (path, placed)


def unspooled(run: ParsedRun, where: tuple | None) -> ParsedRun:
    """In the command's process: the run with its arrays read back from their file, which is removed."""
    if where is None:
        return run
    path, placed = where
    try:
        data = np.fromfile(path, dtype=np.uint8)
    finally:
        os.unlink(path)
    arrays = {name: data[offset:offset + int(np.dtype(dtype).itemsize * np.prod(shape, dtype=np.int64))]
              .view(dtype).reshape(shape) for name, dtype, shape, offset in placed}
    holes = ByteStrings(arrays["hole_data"], arrays["hole_offsets"]) if "hole_data" in arrays else None
    return replace(run, codes=arrays["codes"], qrels_rows=arrays.get("qrels_rows"),
                   tie_groups=arrays.get("tie_groups"), hole_docnos=holes)
