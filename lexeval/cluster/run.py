"""The call: pieces, ranges, buckets and partitions submitted, their
results gathered, and trec_eval's means folded in range order."""

from __future__ import annotations

import os
import time
from typing import Any, cast

import numpy as np

from ..errors import InputError, UsageError
from ..interface import Inputs
from .combine import combine
from .partition import PartitionJob, evaluate_partition
from .pieces import BLOCK_BYTES, PARTITION_BYTES, Piece, partition_bounds, pieces_of, split_piece
from .ship import ship


def evaluate_on_cluster(client, qrels, runs, asked=None, *, cluster=None, for_reports=None, hooks=None,
                        partitions: int | None = None):
    """:func:`lexeval.evaluation.evaluate` on a cluster: the same
    evaluation ``asked`` (a :class:`~lexeval.options.Evaluating`) of paths
    or fsspec URLs only, the same summaries and tests, as a
    :class:`Combined`; ``cluster`` (a :class:`~lexeval.options.Cluster`):
    ``per_query`` also brings back -q's values (``for_reports``, the
    reports' options: and what the reports read), or ``output_dir`` (a
    folder every worker can write, or an fsspec URL) has each partition
    write them as a part file in ``output_format``; ``hooks.progress(done,
    total)`` follows the partitions, ``hooks.warn`` the notes and
    ``hooks.timings`` the cluster's seconds."""
    from dataclasses import replace

    from ..options import Cluster, Evaluating, Hooks
    asked, cluster, hooks = asked or Evaluating(), cluster or Cluster(per_query=False), hooks or Hooks()
    per_query, timings, progress = bool(cluster.per_query), hooks.timings, hooks.progress
    from ..io.irds import is_irds
    from ..io.runs import check_name, check_sources, sources_of
    from ..io.source import Source
    if is_irds(qrels):
        raise UsageError(f"{qrels}: qrels by ir_datasets id are read on one machine; with --cluster give a file "
                         "or URL the workers can read (ir_datasets keeps it under IR_DATASETS_HOME)")
    sources = sources_of(runs)
    if not all(source.is_file for source in sources) or not isinstance(qrels, (str, os.PathLike)):
        raise UsageError("--cluster reads files or URLs (not tables in memory)")
    check_sources(Source(qrels, kind="qrels"), sources)         # one machine's checks: each file once, each name once
    standard_input = None              # read here, handed to the workers in pieces
    if "-" in (os.fspath(qrels), *(source.path for source in sources)):
        standard_input = _read_standard_input()
    named: dict[str, str] = {}
    for source in sources:          # one machine's names: standard input by its tag, each name once
        name = (_last_tag(standard_input) or "stdin") if source.path == "-" and source.named_by_tag else source.name
        check_name(named, name, source.path)
    reading = asked.options.reading
    if reading.zscores is not None:
        reading = replace(reading, zscores=os.path.abspath(reading.zscores))
    # the workers read with one process each, and what was read stays on them
    asked = replace(asked, options=replace(asked.options, reading=replace(reading, jobs=None)))
    ship(client)                   # every worker runs the client's lexeval, or the call stops here
    started = time.perf_counter()
    cpu_before = client.run(_processor_seconds) if timings is not None else {}
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    names = list(named)
    files = [os.fspath(qrels), *[named[name] for name in names]]
    pieces = [_stdin_pieces(cast(bytes, standard_input), "qrels" if index == 0 else "run") if path == "-" else
              pieces_of(path, None, "qrels" if index == 0 else "run") for index, path in enumerate(files)]
    if partitions is None:
        size = _input_bytes([path for path in files if path != "-"]) + len(standard_input or b"")
        partitions = max(2 * workers, -(-size // PARTITION_BYTES))
    # 1-2: the judged qids cut into ranges (in trec_eval's query order); every piece splits its lines
    # into one bucket per range, on the workers, and tells the client where each bucket's lines lie
    # (segments: a few rows per bucket). A local file's piece sends nothing else: each partition reads
    # its ranges of the file itself. Another piece's text stays on its worker, a task per bucket that has
    # lines, fetched by that bucket's partition. A partition gets only the buckets that have lines.
    bounds = partition_bounds(client, pieces[0], partitions)
    partitions = len(bounds) + 1
    split = [[client.submit(split_piece, piece, bounds, pure=False) for piece in file_pieces]
             for file_pieces in pieces]
    outlines = [[client.submit(outline, future, pure=False) for future in file_split] for file_split in split]
    for _ in _completed(client, [future for file_outlines in outlines for future in file_outlines]):
        pass                          # (a cluster that lost every worker is an error, not a wait)
    outlines = client.gather(outlines)
    lines = [[count for _, _, count in file_outlines] for file_outlines in outlines]
    buckets = [[[part[k] if isinstance(part, tuple) else client.submit(bucket, future, k, pure=False)
                 for future, (part, filled, _) in zip(file_split, file_outlines) if filled[k]]
                for file_split, file_outlines in zip(split, outlines)] for k in range(partitions)]
    del split, outlines                  # the buckets hold their bytes: the pieces' results can go
    # 3: every partition gathers its bucket of every piece and is evaluated; its totals come to the
    # client, the values its summaries add stay on its worker
    writing = (cluster.output_dir, cluster.output_format or "text") if cluster.output_dir else None
    job = PartitionJob(files, names, asked, per_query, for_reports, writing)
    evaluated = [client.submit(evaluate_partition, k, buckets[k], job, pure=False) for k in range(partitions)]
    futures = [client.submit(_item, future, 0, pure=False) for future in evaluated]
    summed = [client.submit(_item, future, 1, pure=False) for future in evaluated]
    # 4: trec_eval's means add left to right in qid order: the running sums (runs x columns) pass from
    # each range's partition to the next as the partitions finish; nothing else travels
    folds: list[Any] = [None]
    for future in summed:
        folds.append(client.submit(_fold, folds[-1], future, pure=False))
    results: list = [None] * partitions
    index_of = {future.key: k for k, future in enumerate(futures)}
    try:
        for done, future in enumerate(_completed(client, futures), 1):
            results[index_of[future.key]] = future.result()
            if progress is not None:
                progress(done, partitions)
        in_order = folds[-1].result()
    except InputError as exc:
        raise _located(exc, lines, pieces, files) from None
    except BaseException:
        client.cancel(evaluated + futures + summed + folds[1:])      # stop the work left (a gate or ^C)
        raise
    del evaluated, futures, summed, buckets, folds            # released: the workers let go of the buckets
    combined = combine([r for r in results if r is not None], job, in_order, hooks.warn)
    if timings is not None:
        timings.seconds["cluster"] = timings.seconds.get("cluster", 0.0) + time.perf_counter() - started
        timings.workers = dict(sorted(client.run(_peak_megabytes).items()))
        timings.worker_seconds = sum(seconds - cpu_before.get(worker, 0.0)
                                     for worker, seconds in client.run(_processor_seconds).items())
        timings.partitions = partitions
    combined.inputs = Inputs(qrels, tuple(sources), asked.options.reading)
    return combined


def _read_standard_input() -> bytes:
    """Standard input, whole and decompressed (the client reads it; the
    workers get it in pieces)."""
    import sys

    from ..io.blocks import decompressed
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UsageError("--cluster: standard input is closed")
    return decompressed(stream.read(), "-")


def _stdin_pieces(data: bytes, kind: str) -> list[Piece]:
    """Standard input's text in pieces of about BLOCK_BYTES, each ending at a line break."""
    pieces: list[Piece] = []
    start = 0
    while True:
        stop = len(data) if start + BLOCK_BYTES >= len(data) else data.find(b"\n", start + BLOCK_BYTES) + 1 or len(data)
        pieces.append(Piece("-", len(pieces), kind, source="-", block=data[start:stop]))
        start = stop
        if start >= len(data):
            return pieces


def _last_tag(data: bytes | None) -> str:
    """The tag column of the last data line (trec_eval's runid), or ''."""
    from ..io.strings import decode
    for line in reversed((data or b"").splitlines()):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return decode(fields[5]) if len(fields) >= 6 else ""
    return ""


#: Seconds without any worker before a call gives up (a lost worker's tasks wait for another).
NO_WORKER_SECONDS = 60


def _completed(client, futures):
    """The futures as they finish; a UsageError when the cluster has had no
    worker for NO_WORKER_SECONDS (every worker lost: the tasks would wait
    for ever)."""
    import asyncio
    import concurrent.futures

    from dask.distributed import wait
    # before Python 3.11 asyncio's and concurrent.futures' time-outs (Dask raises one of them) are not the
    # builtin TimeoutError
    timed_out = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)
    pending, alone_since = set(futures), None
    while pending:
        try:
            done, pending = wait(pending, timeout=2, return_when="FIRST_COMPLETED")
        except timed_out:                         # nothing finished in 2 s: are there workers at all?
            done = set()
        yield from done
        if done:
            continue
        if client.scheduler_info().get("workers"):
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since > NO_WORKER_SECONDS:
            raise UsageError(f"--cluster: no worker for {NO_WORKER_SECONDS} s (every worker was lost); "
                             "start workers, or run on one machine")


def _item(pair, index: int):
    return pair[index]


def _fold(state, summed):
    """The running left-to-right sums, continued over one partition's values."""
    from ..stats.totals import fold_in_order
    return state if summed is None else fold_in_order(state, summed)


def _processor_seconds() -> float:
    """This process's user and system processor seconds so far."""
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_megabytes() -> float:
    """This process's peak resident memory, MB (Linux reports kB)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _input_bytes(files: list[str]) -> int:
    """The inputs' size, a compressed file counted five times."""
    import fsspec
    total = 0
    for path in files:
        fs, inner = fsspec.core.url_to_fs(path)
        try:
            size = fs.du(inner) if fs.isdir(inner) else fs.size(inner)
        except (OSError, ValueError):
            size = 0
        total += (size or 0) * (5 if fsspec.utils.infer_compression(path) else 1)
    return total


def _located(exc: InputError, lines: list[list[int]], pieces, files: list[str]) -> InputError:
    """A worker's error as one machine words it: the lines it names (its
    own, and a first occurrence) counted from the start of the file, or
    Parquet rows."""
    located = exc.located
    if located is None:
        return exc
    file_index, places = located
    last_piece = max(piece for piece, _ in places)
    counts = np.cumsum([0, *lines[file_index][:last_piece]])
    of_file = pieces[file_index]
    numbers = [int(counts[piece]) + line for piece, line in places]
    rows = [of_file[piece].first_row + line for piece, line in places]     # rows count from 1, as lines
    path = files[file_index]
    related = len(places) > 1
    if of_file[places[0][0]].row_group >= 0:
        return exc.moved(path=path, line=rows[0], first_line=rows[-1] if related else None, unit="row")
    return exc.moved(path=path, line=numbers[0], first_line=numbers[-1] if related else None)


def bucket(split_result, k: int):
    """(bytes, segments, piece) of bucket k of a split piece."""
    buckets, segments, _, piece = split_result
    return buckets[k], segments[k], piece


def outline(split_result):
    """(parts, filled, lines) of a split piece: ``filled`` (K,) whether
    bucket k has lines, ``lines`` the piece's; ``parts`` is every bucket's
    (tail, segments, piece) for a piece read in place (small: its text
    stays in the file), else None (its text and segments go to their
    partitions as tasks of their own)."""
    buckets, segments, lines, piece = split_result
    filled = np.array([len(segment) > 0 for segment in segments])
    parts = tuple(zip(buckets, segments, [piece] * len(buckets))) if piece.start >= 0 else None
    return parts, filled, lines
