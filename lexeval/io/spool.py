"""Parsed runs handed from the reading processes to the command's through
files in shared memory (``/dev/shm``) instead of the pipe: a run's arrays
(half a megabyte on the Robust04 shape, four times that with --bounds'
unjudged docnos, their lengths a byte each) cost the pipe four copies and a
wake-up per 64 kB, with the docnos a fifth of the reading time at a hundred
runs; a file in
memory costs one copy each way. Where there is no
such directory, or a file would take more than a quarter of the room left
there (a container's /dev/shm is often 64 MB, and other programs use it
too), or cannot be written, the run goes through the pipe as before. Each
file is removed as soon as it is read, the directory when the reading
ends; one left by a process that was killed is removed by a later
reading an hour on (its name holds the process's number). A file that is
gone when its run is due (removed by someone else) has its run read again
in the command's process."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from dataclasses import replace
from typing import cast

import numpy as np

from .inputs import ParsedRun
from .strings import ByteStrings, ShortStrings

#: Runs whose arrays are smaller than this go through the pipe (a file costs a few system calls).
SPOOLED_FROM = 256 << 10
_ALIGN = 64                                 # each array's place in a file: a whole cache line, any dtype aligned
_numbers = itertools.count()
ROOT = "/dev/shm"


def spool_directory() -> str | None:
    """A fresh directory in shared memory for one reading's files (the caller removes it: :func:`remove`), or None."""
    if not (os.path.isdir(ROOT) and os.access(ROOT, os.W_OK | os.X_OK)):
        return None
    _remove_orphans()
    try:
        return tempfile.mkdtemp(prefix=f"lexeval-{os.getpid()}-", dir=ROOT)
    except OSError:
        return None


ORPHANED_AFTER = 3600      # seconds a directory of a process not seen has been left alone before it is removed


def _remove_orphans() -> None:
    """The directories of this user's readings whose process is gone
    (killed before it could remove them) and that nothing has touched for
    an hour: a process of another PID namespace sharing /dev/shm (a
    container with the host's IPC) is not seen, but its files come and go."""
    import time
    try:
        names = [entry for entry in os.scandir(ROOT) if entry.name.startswith("lexeval-") and entry.is_dir()
                 and entry.stat().st_uid == os.getuid()
                 and time.time() - entry.stat().st_mtime > ORPHANED_AFTER]
    except OSError:
        return
    for entry in names:
        owner = entry.name.split("-")[1]
        if not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            remove(entry.path)
        except OSError:
            pass


def remove(directory: str | None) -> None:
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


def _arrays(run: ParsedRun) -> dict[str, np.ndarray]:
    """The run's large arrays by name (the docnos' bytes as ``hole_data``, and their lengths, a byte each,
    as ``hole_lengths``, or where one is longer, their offsets as ``hole_offsets``)."""
    named = {"codes": run.codes, "qrels_rows": run.qrels_rows, "tie_groups": run.tie_groups}
    holes = run.hole_docnos
    short = ShortStrings.of(holes) if isinstance(holes, ByteStrings) else holes
    if short is not None:
        named.update(hole_data=short.data, hole_lengths=short.lengths)
    elif holes is not None:
        named.update(hole_data=holes.data, hole_offsets=cast(ByteStrings, holes).offsets)
    return {name: np.ascontiguousarray(array) for name, array in named.items() if array is not None}


def spooled(run: ParsedRun, directory: str | None) -> tuple[ParsedRun, tuple | None]:
    """In a reading process: (the run without its large arrays, where they
    are: a file's path and each array's name, dtype, shape and offset), or
    (the run, None) where it is small or the file cannot be written."""
    arrays = _arrays(run)
    size = sum(array.nbytes for array in arrays.values())
    if directory is None or size < SPOOLED_FROM or size > _room(directory) // 4:
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


def _room(directory: str) -> int:
    try:
        status = os.statvfs(directory)
    except OSError:
        return 0
    return status.f_bavail * status.f_frsize


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
    holes = ShortStrings(arrays["hole_data"], arrays["hole_lengths"]) if "hole_lengths" in arrays else \
        ByteStrings(arrays["hole_data"], arrays["hole_offsets"]) if "hole_offsets" in arrays else None
    return replace(run, codes=arrays["codes"], qrels_rows=arrays.get("qrels_rows"),
                   tie_groups=arrays.get("tie_groups"), hole_docnos=holes)
