"""Evaluation sharded by query on a Dask cluster.

The data flow, from files to the printed lines:

1. **Read** (workers): every input is cut into pieces the workers read
   themselves: text (plain or gzipped) in byte ranges ending at a line
   break (``dask.bytes.read_bytes``; a gzipped file is one piece), Parquet
   by row group. Paths are local or any fsspec URL.
2. **Shuffle** (the engine): the judged qids are cut into K ranges in byte
   order (trec_eval's query order); each piece splits its lines into K
   buckets by the range of their qid; bucket k of every piece of every file
   goes to partition k, so a query's judgements and every run's lines for it
   meet there. The engine moves the buckets; a lost worker's tasks are run
   again.
3. **Evaluate** (workers): each partition is evaluated by the code one
   machine uses (:func:`lexeval.evaluation.evaluate`) and returns only its
   :class:`~lexeval.stats.totals.Totals` (sums over its queries), a few
   counts for the notes and, with ``-q``, its per-query values.
4. **Conclude** (client): the totals are added and concluded as on one
   machine. Sums are exact integers and random draws are keyed by (seed,
   qid, draw); trec_eval's means, which add floats left to right in qid
   order, are folded through the partitions in range order (only the
   running sums travel). So every printed number equals the one-machine
   call's.

An error in a piece names the original file and line (Parquet: row).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError, UsageError

BLOCK_BYTES = 32 << 20            # text read in byte ranges of this size
PARTITION_BYTES = 256 << 20       # about this much input text per partition (and two per worker at least)
_NO_LINES = "lexeval:partition-without-lines"   # the qid of a placeholder line (the reader refuses an empty run)
_BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------- client side


def connect(address: str):
    """A dask.distributed Client: ``local`` starts a LocalCluster of this
    machine's cores (2 workers at least), else ``tcp://host:port``."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--cluster needs Dask: pip install 'lexeval[dask]'") from None
    if address == "local":
        workers = max(2, min(os.cpu_count() or 2, 8))
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
        return Client(cluster)
    host_port = address.split("://", 1)[-1]
    try:
        if host_port.rsplit(":", 1)[-1].isdigit():        # refused at once, rather than after the client's wait
            import socket
            host, port = host_port.rsplit(":", 1)
            socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
        return Client(address, timeout="30s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--cluster {address}: cannot reach the scheduler ({exc})") from None


@dataclass
class Piece:
    """Part of one input file: a byte range of text or a Parquet row group.
    ``first_line`` is filled in after reading (lines before it, in the file)."""

    path: str
    index: int                     # the piece's place in its file
    kind: str = "run"              # run or qrels
    tag: str = ""                  # Parquet: the runid one machine gives a table (the run's name)
    source: str = ""               # the input as given (a dataset's folder, for its pieces' errors)
    block: object = None           # a dask delayed of bytes (text)
    row_group: int = -1            # Parquet
    first_row: int = 0             # Parquet: rows before this row group


def _pieces(path: str, blocksize: int, kind: str) -> list[Piece]:
    """The pieces of one input (a file, a fsspec URL or a Parquet dataset)."""
    import fsspec
    if _is_parquet(path):
        import pyarrow.parquet as pq

        from .io.inputs import run_name
        pieces = []
        rows = 0                   # a dataset's rows are counted across its files, as one table's
        for file in _parquet_files(path):
            with fsspec.open(file, "rb") as handle:
                meta = pq.ParquetFile(handle).metadata
            for group in range(meta.num_row_groups):
                pieces.append(Piece(file, len(pieces), kind, run_name(path), path, row_group=group, first_row=rows))
                rows += meta.row_group(group).num_rows
        return pieces
    from dask.bytes import read_bytes
    try:
        compressed = fsspec.utils.infer_compression(path)
        _, blocks = read_bytes(path, delimiter=b"\n", blocksize=None if compressed else blocksize,
                               compression=compressed, sample=False)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read ({exc})") from None
    if not blocks or not blocks[0]:
        raise InputError(path, "no such file")
    return [Piece(path, i, kind, source=path, block=block) for i, block in enumerate(blocks[0])]


def _is_parquet(path: str) -> bool:
    import fsspec
    fs, inner = fsspec.core.url_to_fs(path)
    try:
        if fs.isdir(inner):
            return any(name.endswith(".parquet") for name in fs.ls(inner, detail=False))
        size = fs.size(inner)
        if size < 12 or fsspec.utils.infer_compression(path):
            return False
        with fs.open(inner, "rb") as handle:
            head = handle.read(4)
            handle.seek(size - 8)
            tail = handle.read(8)
        return head == b"PAR1" and tail[4:] == b"PAR1" and int.from_bytes(tail[:4], "little") + 12 <= size
    except (OSError, ValueError):
        return False


def _parquet_files(path: str) -> list[str]:
    import fsspec
    fs, inner = fsspec.core.url_to_fs(path)
    if fs.isdir(inner):
        names = sorted(name for name in fs.ls(inner, detail=False) if name.endswith(".parquet"))
        return [fs.unstrip_protocol(name) for name in names]
    return [path]


def evaluate_on_cluster(client, qrels, runs, measures=None, *, partitions: int | None = None,
                        per_query: bool = False, output_dir: str | None = None, output_format: str = "text",
                        warn=None, verbose: bool = False, timings=None, progress=None, **options):
    """:func:`lexeval.evaluation.evaluate` on a cluster: the same arguments
    (paths or fsspec URLs only), the same summaries and tests, as a
    :class:`Combined`; ``per_query`` also brings back -q's values, or
    ``output_dir`` (a folder every worker can write, or an fsspec URL) has
    each partition write them as a part file in ``output_format``;
    ``progress(done, total)`` follows the partitions."""
    from .io.inputs import Source
    from .io.sources import check_sources, sources_of
    sources = sources_of(runs)
    if not all(source.is_file for source in sources) or not isinstance(qrels, (str, os.PathLike)):
        raise UsageError("--cluster reads files or URLs (not tables in memory)")
    check_sources(Source(qrels, kind="qrels"), sources)         # one machine's checks: each file once, each name once
    runs = {source.name: source.path for source in sources}
    unsupported = [name for name in ("subtopics", "keep_rows") if options.get(name)]
    if options.get("rel_format", "qrels") != "qrels":
        unsupported.append("-R " + options["rel_format"])
    if unsupported:
        raise UsageError(f"--cluster does not take {', '.join(unsupported)} (yet): run it on one machine")
    if "-" in (os.fspath(qrels), *runs.values()):
        raise UsageError("--cluster: the workers read files or URLs, not standard input")
    if options.get("zscores") is not None:
        options["zscores"] = os.path.abspath(options["zscores"])
    started = time.perf_counter()
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    names = list(runs)
    files = [os.fspath(qrels), *[runs[name] for name in names]]
    pieces = [_pieces(path, BLOCK_BYTES, "qrels" if index == 0 else "run") for index, path in enumerate(files)]
    if partitions is None:
        partitions = max(2 * workers, -(-_input_bytes(files) // PARTITION_BYTES))
    # 1-2: the judged qids cut into ranges (in trec_eval's query order); every piece splits its lines
    # into one bucket per range, on the workers; each bucket is a task's result of its own, so that a
    # partition fetches its buckets, not whole pieces
    bounds = partition_bounds(client, pieces[0], partitions)
    partitions = len(bounds) + 1
    split = [[client.submit(_split_piece, piece, bounds, pure=False) for piece in file_pieces]
             for file_pieces in pieces]
    lines = [[client.submit(_line_count, future, pure=False) for future in file_split] for file_split in split]
    buckets = [[[client.submit(_bucket, future, k, pure=False) for future in file_split] for file_split in split]
               for k in range(partitions)]
    del split                                # the buckets hold their bytes: the pieces' results can go
    # 3: every partition gathers its bucket of every piece and is evaluated; its totals come to the
    # client, the values its summaries add stay on its worker
    writing = (output_dir, output_format) if output_dir else None
    evaluated = [client.submit(_evaluate_partition, k, buckets[k], files, names, measures, options, per_query,
                               writing, pure=False)
                 for k in range(partitions)]
    futures = [client.submit(_item, future, 0, pure=False) for future in evaluated]
    summed = [client.submit(_item, future, 1, pure=False) for future in evaluated]
    from dask.distributed import as_completed
    results: list = [None] * partitions
    index_of = {future.key: k for k, future in enumerate(futures)}
    try:
        for done, future in enumerate(as_completed(futures), 1):
            results[index_of[future.key]] = future.result()
            if progress is not None:
                progress(done, partitions)
        # 4: trec_eval's means add left to right in qid order: the running sums (runs x columns)
        # pass from each range's partition to the next; nothing else travels
        folds = [None]
        for future in summed:
            folds.append(client.submit(_fold, folds[-1], future, pure=False))
        in_order = folds[-1].result()
    except InputError as exc:
        raise _located(client, exc, lines, pieces, files) from None
    except BaseException:
        client.cancel(evaluated + futures + summed)          # stop the work left (a gate or ^C)
        raise
    del evaluated, futures, summed, buckets                   # released: the workers let go of the buckets
    combined = _combine([r for r in results if r is not None], files, names, options, per_query, warn, verbose,
                        in_order)
    if timings is not None:
        timings.seconds["cluster"] = timings.seconds.get("cluster", 0.0) + time.perf_counter() - started
        timings.workers = dict(sorted(client.run(_peak_megabytes).items()))
        timings.partitions = partitions
    return combined


def _item(pair, index: int):
    return pair[index]


def _fold(state, summed):
    """The running left-to-right sums, continued over one partition's values."""
    from .stats.totals import fold_in_order
    return state if summed is None else fold_in_order(state, summed)


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


def _located(client, exc: InputError, lines, pieces, files: list[str]) -> InputError:
    """A worker's error as one machine words it: the lines it names (its
    own, and a first occurrence) counted from the start of the file, or
    Parquet rows."""
    located = getattr(exc, "located", None)
    if located is None:
        return exc
    file_index, places = located
    last_piece = max(piece for piece, _ in places)
    counts = np.cumsum([0, *client.gather(lines[file_index][:last_piece])])
    of_file = pieces[file_index]
    numbers = [int(counts[piece]) + line for piece, line in places]
    rows = [of_file[piece].first_row + line for piece, line in places]     # rows count from 1, as lines
    path = files[file_index]
    if of_file[places[0][0]].row_group >= 0:
        message = re.sub(r"\(first on line \d+\)", f"(first in row {rows[-1]})", exc.message)
        return InputError(path, f"row {rows[0]}: {message}")
    message = re.sub(r"\(first on line \d+\)", f"(first on line {numbers[-1]})", exc.message)
    return InputError(path, message, numbers[0])


def _bucket(split_result, k: int):
    """(bytes, segments, piece) of bucket k of a split piece."""
    buckets, segments, _, piece = split_result
    return buckets[k], segments[k], piece


def _line_count(split_result) -> int:
    return split_result[2]


# ---------------------------------------------------------------- worker side: reading and splitting


def _read_piece(piece: Piece) -> bytes:
    """The piece's lines as text: its bytes, or its Parquet row group as
    TREC lines (scores printed so that they read back to the same float)."""
    if piece.row_group < 0:
        data = piece.block.compute(scheduler="sync") if hasattr(piece.block, "compute") else piece.block
        if piece.index == 0 and data.startswith(_BOM):
            data = data[len(_BOM):]
        return data
    import fsspec
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from .io.inputs import TABLE_COLUMNS
    with fsspec.open(piece.path, "rb") as handle:
        table = pq.ParquetFile(handle).read_row_group(piece.row_group)
    wanted = ("qid", "docno", "score") if piece.kind == "run" else ("qid", "docno", "grade")
    text = []
    for name in wanted:
        column = next((c for c in TABLE_COLUMNS[name] if c in table.column_names), None)
        if column is None:
            raise InputError(piece.source, f"no column {' or '.join(repr(c) for c in TABLE_COLUMNS[name])} "
                                         f"(columns: {', '.join(table.column_names)})")
        data = table.column(column)
        if data.null_count:
            raise InputError(piece.source, f"column '{column}' has missing values")
        if name == "score":
            data = pc.cast(data, pa.float64())     # printed shortest, so it reads back to the same float
            if pc.any(pc.is_nan(data)).as_py():
                row = piece.first_row + int(pc.index(pc.is_nan(data), True).as_py()) + 1
                raise InputError(piece.source, f"row {row}: score is NaN")
        elif name == "grade":
            data = pc.cast(data, pa.int64())
        text.append(pc.cast(data, pa.string()))
    if piece.kind == "run":
        fields = [text[0], pa.scalar("Q0"), text[1], pa.scalar("0"), text[2], pa.scalar(piece.tag)]
    else:
        fields = [text[0], pa.scalar("0"), text[1], text[2]]
    lines = pc.binary_join_element_wise(*fields, " ")
    return ("\n".join(lines.to_pylist()) + "\n").encode("utf-8", "surrogateescape") if len(lines) else b""


def _runs_of_one_qid(piece: Piece):
    """(buf, starts, ends, firsts, stops, qids, lines): the piece's text as
    bytes, its lines (starts, ends), and its runs of lines with one qid
    (lines firsts[i] .. stops[i] - 1, qid bytes qids[i]); blank lines belong
    to no run."""
    try:
        data = _read_piece(piece)
    except InputError:
        raise
    except Exception as exc:  # an unreadable piece: the file's fault
        raise InputError(piece.source or piece.path, f"cannot read ({exc})") from None
    buf = np.frombuffer(data or b"\n", dtype=np.uint8)
    if buf[-1] != 10:
        buf = np.append(buf, np.uint8(10))
    ends = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    qid_start, qid_end, same = _qid_spans(buf, starts, ends)
    kept = qid_end > qid_start                                  # blank lines go nowhere
    breaks = np.flatnonzero(~same)
    firsts = breaks[kept[breaks]]
    stops = np.concatenate((breaks, [len(ends)]))[np.searchsorted(breaks, firsts, side="right")]
    view = memoryview(buf)
    qids = [bytes(view[a:b]) for a, b in zip(qid_start[firsts].tolist(), qid_end[firsts].tolist())]
    return buf, starts, ends, firsts, stops, qids, len(ends) if data else 0


_SAMPLE = 10_000                  # qids per qrels piece that set the ranges


def _qid_sample(piece: Piece) -> list[bytes]:
    """Up to 10,000 of a qrels piece's distinct qids, evenly spread in byte
    order: enough to cut ranges of about as many queries."""
    distinct = sorted(set(_runs_of_one_qid(piece)[5]))
    return distinct[::-(-len(distinct) // _SAMPLE) or 1]


def partition_bounds(client, qrels_pieces: list[Piece], partitions: int) -> list[bytes]:
    """The K - 1 qids (bytes) that cut the judged queries, in byte order
    (trec_eval's query order), into K ranges of about as many queries (from
    a sample; any cut gives the same numbers, only the balance depends on it)."""
    distinct = sorted(set().union(*client.gather([client.submit(_qid_sample, piece, pure=False)
                                                   for piece in qrels_pieces])))
    partitions = max(1, min(partitions, len(distinct)))
    return [distinct[(i * len(distinct)) // partitions] for i in range(1, partitions)]


def _split_piece(piece: Piece, bounds: list[bytes]):
    """(buckets, segments, lines, piece): bucket k holds the piece's lines
    whose qid falls in range k (``bounds[k - 1] <= qid < bounds[k]`` in byte
    order), in file order; its segments (m, 2) say which lines they are
    (first line number in the piece, 1-based, and count); ``lines`` is how
    many lines the piece has. Lines are taken in runs of one qid (most runs
    and qrels keep a query's lines together), so a qid is placed once per
    run of lines, not per line."""
    from bisect import bisect_right
    buf, starts, ends, firsts, stops, qids, lines = _runs_of_one_qid(piece)
    partitions = len(bounds) + 1
    keys = np.array([bisect_right(bounds, qid) for qid in qids], dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    cuts = np.searchsorted(keys[order], np.arange(partitions + 1))
    view = memoryview(buf)
    buckets, segments = [], []
    for k in range(partitions):
        chosen = order[cuts[k]:cuts[k + 1]]
        first, stop = firsts[chosen], stops[chosen]
        buckets.append(b"".join(view[a:b] for a, b in zip(starts[first].tolist(), (ends[stop - 1] + 1).tolist())))
        segments.append(np.stack([first + 1, stop - first], axis=1).astype(np.int64))
    return buckets, segments, lines, piece


_WINDOW = 16


def _qid_spans(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """Per line: where its first field (the qid) starts and ends (equal for
    a blank line), and whether it is the same qid as the line before. Most
    lines start with a qid shorter than 16 bytes: those are read from a
    window of each line's first bytes; the others one by one."""
    count = len(starts)
    window = buf[np.minimum(starts[:, None] + np.arange(_WINDOW, dtype=np.int32), len(buf) - 1)]   # (lines, 16)
    space = (window == 32) | ((window >= 9) & (window <= 13))
    length = np.argmax(space, axis=1)
    plain = ~space[:, 0] & space.any(axis=1)                  # starts with a qid that ends in the window
    qid_start = starts.copy()
    qid_end = starts + length
    for line in np.flatnonzero(~plain).tolist():             # leading spaces, blank, or a long qid
        text = bytes(buf[starts[line]:ends[line]])
        fields = text.split(None, 1)
        if not fields:
            qid_end[line] = qid_start[line]
            continue
        offset = text.index(fields[0])
        qid_start[line] = starts[line] + offset
        qid_end[line] = qid_start[line] + len(fields[0])
    inside = np.arange(_WINDOW) < length[:, None]
    same = np.zeros(count, dtype=bool)
    same[1:] = plain[1:] & plain[:-1] & (length[1:] == length[:-1]) & \
        ((window[1:] == window[:-1]) | ~inside[1:]).all(axis=1)
    return qid_start, qid_end, same


# ---------------------------------------------------------------- worker side: one partition


@dataclass
class PartitionResult:
    """What one partition sends back: its totals, and what the notes and
    -q need."""

    totals: object
    columns: list                             # (name, measure) of every column
    coverage: object                          # what the runs left out here (lexeval.io.sources.Coverage)
    last: list[tuple[int, int]]               # per run: (piece, line) of its last line here
    tags: list[str]                           # per run: the tag of that line
    unknown: list[list]                       # per run: ((piece, line), qid) of the first query here the qrels lack
    num_unknown: list[int]
    formats: list[str]
    per_query: dict | None = None             # with -q: see _per_query_values
    part: str | None = None                   # with an output folder: the part file written


def _evaluate_partition(k: int, parts, files: list[str], names: list[str], measures, options: dict,
                        per_query: bool, writing: tuple | None = None):
    """Evaluate partition k: its bucket of every piece, written to local
    files in file order and read by the one-machine code."""
    from .evaluation import evaluate
    folder = tempfile.mkdtemp(prefix=f"lexeval-part{k}-")
    try:
        local, maps = [], []
        for index, file_parts in enumerate(parts):
            path = os.path.join(folder, f"{index}")
            origin = []                        # (piece, first local line, line numbers in the piece)
            written = 0
            with open(path, "wb") as out:
                for data, segments, piece in file_parts:
                    out.write(data)
                    origin.append((piece, written, segments))
                    written += int(segments[:, 1].sum())
                if index and not written:       # a run with no line here: one line for no judged query
                    out.write(f"{_NO_LINES} Q0 - 0 0 -\n".encode())
            local.append(path)
            maps.append(origin)
        if all(len(segments) == 0 for origin in maps for _, _, segments in origin):
            return None, None
        if all(len(segments) == 0 for _, _, segments in maps[0]):
            return _unjudged(local, maps, names, files), None
        read: list = []
        try:
            evaluation = evaluate(local[0], dict(zip(names, local[1:])), measures,
                                  jobs=1, warn=lambda text: None, on_read=lambda q, runs: read.append((q, runs)),
                                  **options)
        except InputError as exc:
            raise _remapped(exc, local, maps, files) from None
        judgements, parsed = read[0]
        from .io.sources import Coverage
        coverage = Coverage.of(judgements, parsed, options.get("level", 1))
        for run, path in zip(coverage.runs, files[1:]):
            run.path = path
            if _NO_LINES in parsed[coverage.runs.index(run)].unknown_qids:     # the placeholder is no query
                run.num_unknown -= 1
        rankings = evaluation.rankings
        part = None
        if writing is not None:
            from .output.records import write_part
            part = write_part(evaluation, writing[0], k, writing[1])
        from .stats.totals import SummedColumns
        summed = dict(SummedColumns({c.name: (c.measure, c.values) for c in evaluation.columns},
                                     evaluation.included))
        return PartitionResult(evaluation.totals, [(c.name, c.measure) for c in evaluation.columns],
                               coverage,
                               [_last_line(m) for m in maps[1:]], list(rankings.run_tags),
                               [_first_unknown(path, origin, [q for q in run.unknown_qids if q != _NO_LINES][:1])
                                for path, origin, run in zip(local[1:], maps[1:], parsed)],
                               [run.num_unknown - (_NO_LINES in run.unknown_qids) for run in parsed],
                               [run.format for run in parsed], _per_query_values(evaluation) if per_query else None,
                               part), summed
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _remapped(exc: InputError, local: list[str], maps, files: list[str]) -> InputError:
    """The local file's error, with the local lines it names found in the
    pieces (``located``: file index, [(piece, line in piece)]); the client
    counts the lines before those pieces."""
    if exc.path not in local:
        return exc
    index = local.index(exc.path)
    error = InputError(files[index], exc.message)
    if exc.line is None:
        return error
    named = [exc.line] + [int(n) for n in re.findall(r"\(first on line (\d+)\)", exc.message)]
    places = [_position(maps[index], line - 1) for line in named]
    if all(piece >= 0 for piece, _ in places):
        error.located = (index, places)
    return error


def _qids_in_order(path: str) -> dict[str, int]:
    """Each qid of a local run file with its first local line, in file order."""
    seen: dict[str, int] = {}
    with open(path, "rb") as handle:
        for number, line in enumerate(handle):
            fields = line.split(None, 1)
            if fields and not fields[0].startswith(b"#"):
                seen.setdefault(fields[0].decode("utf-8", "surrogateescape").lstrip("\ufeff"), number)
    seen.pop(_NO_LINES, None)
    return seen


def _first_unknown(path: str, origin, qids: list[str]) -> list:
    """[((piece, line), qid)] of the run's first query here the qrels lack, or []."""
    if not qids:
        return []
    local_line = _qids_in_order(path).get(qids[0], 0)
    return [(_position(origin, local_line), qids[0])]


def _position(origin, local_line: int) -> tuple[int, int]:
    """(piece, line in piece) of a local file's line (0-based)."""
    for piece, first, segments in origin:
        counts = np.cumsum(segments[:, 1])
        if first <= local_line < first + (int(counts[-1]) if len(counts) else 0):
            offset = local_line - first
            index = int(np.searchsorted(counts, offset, side="right"))
            before = int(counts[index - 1]) if index else 0
            return piece.index, int(segments[index, 0]) + offset - before
    return -1, -1


def _unjudged(local: list[str], maps, names: list[str], files: list[str]) -> PartitionResult:
    """A partition without judgements: its run lines are queries the qrels lack."""
    unknown, counts = [], []
    for path, origin in zip(local[1:], maps[1:]):
        seen = _qids_in_order(path)
        counts.append(len(seen))
        first = min(seen.items(), key=lambda item: item[1]) if seen else None
        unknown.append([(_position(origin, first[1]), first[0])] if first else [])
    from .io.sources import Coverage, RunCoverage
    coverage = Coverage([RunCoverage(path, 0, 0, None, count, None) for path, count in zip(files[1:], counts)])
    return PartitionResult(None, [], coverage, [_last_line(m) for m in maps[1:]],
                           [_last_tag(path) for path in local[1:]], unknown, counts, ["run"] * len(names))


def _last_tag(path: str) -> str:
    """The tag (sixth field) of a local run file's last line."""
    with open(path, "rb") as handle:
        lines = handle.read().split(b"\n")
    fields = next((line.split() for line in reversed(lines) if line.split()), [])
    return fields[5].decode("utf-8", "surrogateescape") if len(fields) >= 6 else ""


def _last_line(maps_of_file) -> tuple[int, int]:
    """(piece, line) of the last line a partition holds of a file."""
    for piece, _, segments in reversed(maps_of_file):
        if len(segments):
            return piece.index, int(segments[-1, 0] + segments[-1, 1] - 1)
    return -1, -1


def _per_query_values(evaluation) -> dict:
    """Everything ``-q`` prints, per query: every column's values (R, Q),
    included (R, Q), compared (Q,), and the printed pairs' preferences
    (P, compared Q)."""
    out = {"qids": list(evaluation.qids),
           "columns": {c.name: c.values for c in evaluation.columns if c.measure.per_query},
           "included": evaluation.included, "compared": evaluation.compared, "preferences": {}}
    if evaluation.preferences is not None:
        from .preferences import pair_rows
        rows = pair_rows(evaluation.rankings.num_runs, evaluation.pairs)
        parts: dict[str, list] = {}
        for _, values, _ in evaluation.preferences.blocks(rows):
            for name, block in values.items():
                parts.setdefault(name, []).append(block)
        out["preferences"] = {name: np.concatenate(blocks) for name, blocks in parts.items()}
    return out


# ---------------------------------------------------------------- client side: combining


@dataclass
class Combined:
    """The cluster's results, offered to the output layer as an
    :class:`~lexeval.evaluation.Evaluation` offers them: summaries, pairs
    and tests from the added totals; with ``-q`` the per-query values put
    back in qid order."""

    run_names: list[str]
    run_tags: list[str]
    columns: list
    totals: object
    options: object
    complete: bool
    aggregate: str
    names: tuple = ()
    pairs: np.ndarray | None = None
    pair_summary: object = None
    tests: object = None
    metric_pairs: object = None
    qids: list[str] = field(default_factory=list)
    included: np.ndarray | None = None
    compared: np.ndarray | None = None
    preferences: object = None
    parts: list[str] = field(default_factory=list)     # part files of per-query lines, if written

    @property
    def compared_qids(self) -> list[str]:
        return [q for q, on in zip(self.qids, self.compared.tolist()) if on] if self.compared is not None else []

    def column(self, name: str):
        """The column of a printed measure (its ``values`` only with per-query values)."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    def num_queries(self) -> np.ndarray:
        """(R,) queries evaluated per run."""
        return self.totals.included

    def summary(self, column) -> np.ndarray:
        from .evaluation import summary_values
        return summary_values(column.measure, column.name, self.totals, self.run_tags, self.complete)

    def preference_names(self) -> list[str]:
        return list(self.names)

    def run_preference_summary(self, name: str):
        from .preferences import rank_runs
        score = self.pair_summary.scores[name]
        return score, rank_runs(score)

    def gate_failures(self, gates: list[str], margin: float = 0.0):
        from .stats.gate import gate_failures
        return gate_failures(self.tests, self.pairs, self.run_names, self.options, gates, margin)

    def compared_values(self, column) -> np.ndarray:
        return column.values[:, self.compared]


class _GatheredPreferences:
    """The printed pairs' per-query preferences, read as ``pair_blocks``
    reads :class:`~lexeval.preferences.Preferences`."""

    def __init__(self, values: dict, num_runs: int, pairs: np.ndarray):
        from .preferences import pair_rows
        self.values = values
        self.rankings = _Runs(num_runs)
        self.slot = {int(row): i for i, row in enumerate(pair_rows(num_runs, pairs).tolist())}

    def blocks(self, rows):
        index = np.array([self.slot[int(row)] for row in rows], dtype=np.int64)
        yield rows, {name: v[index] for name, v in self.values.items()}, {}


@dataclass
class _Runs:
    num_runs: int


def _combine(results: list[PartitionResult], files, names, options: dict, per_query: bool, warn, verbose,
             in_order: dict):
    """Add the partitions' totals and conclude, as one machine does."""
    from .evaluation import Column, conclude
    from .stats.pairs import SignificanceOptions, plan_for, selected_pairs
    everything, results = results, [r for r in results if r.totals is not None]
    if not results:
        raise InputError(files[0], "no judgements (empty qrels file)")
    totals = results[0].totals
    for result in results[1:]:
        totals = totals + result.totals
    totals.in_order = in_order
    significance = options.get("options") or SignificanceOptions()
    aggregate = options.get("aggregate", "mean")
    for index in range(len(names)):
        if all(r.last[index] == (-1, -1) for r in everything):
            raise InputError(files[index + 1], "empty run: no result lines")
    tags = [max(everything, key=lambda r: r.last[index]).tags[index] for index in range(len(names))]
    combined = Combined(names, tags, [Column(name, measure, None) for name, measure in results[0].columns],
                        totals, significance, bool(options.get("complete")), aggregate, tuple(totals.preferences))
    if len(names) > 1:
        pairs = selected_pairs(names, significance.baseline)
        by_name = {column.name: (column.measure, None) for column in combined.columns}
        plan = plan_for(by_name, pairs, significance, bool(options.get("pair_metrics")))
        combined.pairs = pairs
        combined.pair_summary, combined.tests, combined.metric_pairs = \
            conclude(totals, plan, significance, aggregate, bool(options.get("pair_metrics")))
    combined.parts = sorted(r.part for r in results if r.part)
    if per_query:          # the partitions are ranges of qids in trec_eval's order, each in that order
        _put_back(combined, results)
    _notes(results, everything, names, verbose, warn, bool(options.get("complete")))
    return combined


def _put_back(combined: Combined, results: list[PartitionResult]) -> None:
    """-q's per-query values of every partition, in qid order."""
    from .evaluation import Column
    combined.qids = [qid for r in results for qid in r.per_query["qids"]]
    combined.included = np.concatenate([r.per_query["included"] for r in results], axis=1)
    combined.compared = np.concatenate([r.per_query["compared"] for r in results])
    columns = []
    for column in combined.columns:
        if column.name in results[0].per_query["columns"]:
            values = np.concatenate([r.per_query["columns"][column.name] for r in results], axis=1)
            columns.append(Column(column.name, column.measure, values))
        else:
            columns.append(column)
    combined.columns = columns
    if combined.names:
        values = {name: np.concatenate([r.per_query["preferences"][name] for r in results], axis=1)
                  for name in combined.names}
        combined.preferences = _GatheredPreferences(values, len(combined.run_names), combined.pairs)


def _notes(results, everything, names, verbose: bool, warn, complete: bool = False) -> None:
    """The one-machine notes on dropped and missing queries, from the
    partitions' coverages (ranges in query order; a run's first unknown
    query is the one earliest in its file)."""
    from .io.sources import Coverage, notes
    if warn is None:
        from .evaluation import note as warn
    first_unknown = [min((first for r in everything for first in r.unknown[index]), default=(None, None))[1]
                     for index in range(len(names))]
    for index in range(len(names)):
        format_ = next((r.formats[index] for r in results if r.formats[index] != "run"), "run")
        if format_ != "run":
            warn(f"{results[0].coverage.runs[index].path}: read as {format_} (qid docid rank): score = -rank")
    for note in notes(Coverage.merge([r.coverage for r in everything], first_unknown), verbose, complete):
        warn(note)
