"""Worker side, reading and splitting: every input cut into pieces the
workers read themselves, and each piece's lines split into buckets by the
range of their qid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

BLOCK_BYTES = 32 << 20            # text read in byte ranges of this size
PARTITION_BYTES = 256 << 20       # about this much input text per partition (and two per worker at least)
NO_LINES = "lexeval:partition-without-lines"   # the qid of a placeholder line (the reader refuses an empty run)
_BOM = b"\xef\xbb\xbf"


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


def pieces_of(path: str, blocksize: int, kind: str) -> list[Piece]:
    """The pieces of one input (a file, a fsspec URL or a Parquet dataset)."""
    import fsspec
    if _is_parquet(path):
        import pyarrow.parquet as pq

        from ..io.source import run_name
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

    from ..io.source import TABLE_COLUMNS
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


def split_piece(piece: Piece, bounds: list[bytes]):
    """(buckets, segments, lines, piece): bucket k holds the piece's lines
    whose qid falls in range k (``bounds[k - 1] <= qid < bounds[k]`` in byte
    order), in file order; its segments (m, 2) say which lines they are
    (first line number in the piece, 1-based, and count); ``lines`` is how
    many lines the piece has. Lines are taken in runs of one qid (most runs
    and qrels keep a query's lines together), so a qid is placed once per
    run of lines, not per line; segments are as few as the file's order allows."""
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
        # runs that follow one another in the file are one slice (a file sorted by qid: one per bucket)
        if len(first):
            opens = np.flatnonzero(np.concatenate(([True], first[1:] != stop[:-1])))
            first, stop = first[opens], stop[np.append(opens[1:], len(stop)) - 1]
        buckets.append(b"".join(view[a:b] for a, b in zip(starts[first].tolist(), (ends[stop - 1] + 1).tolist())))
        segments.append(np.stack([first + 1, stop - first], axis=1).astype(np.int64))
    return buckets, segments, lines, piece


_WINDOW = 16


#: row n: two 8-byte words whose first n bytes (in memory order) are 0xFF, the rest 0
_PREFIX_MASKS = np.where(np.arange(_WINDOW) < np.arange(_WINDOW + 1)[:, None], 255, 0).astype(np.uint8).view(np.uint64)


def _first_bytes(buf: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(lines, 16) uint8: the 16 bytes from each line's start, the buffer's
    last byte repeated past its end. Rows of a sliding-window view, copied
    16 bytes at a time: a (lines, 16) index array cost 13 times as much."""
    padded = np.concatenate((buf, np.full(_WINDOW, buf[-1], dtype=np.uint8)))
    return np.lib.stride_tricks.sliding_window_view(padded, _WINDOW)[starts]


def _qid_spans(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """Per line: where its first field (the qid) starts and ends (equal for
    a blank line), and whether it is the same qid as the line before. Most
    lines start with a qid shorter than 16 bytes: those are read from a
    window of each line's first bytes; the others one by one."""
    count = len(starts)
    window = _first_bytes(buf, starts)                                                  # (lines, 16)
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
    # the same qid: equal lengths and equal first ``length`` bytes, compared as two 8-byte words under a mask
    words = window.view(np.uint64)                                              # (lines, 2)
    differ = (words[1:] ^ words[:-1]) & _PREFIX_MASKS[length[1:]]
    same = np.zeros(count, dtype=bool)
    same[1:] = plain[1:] & plain[:-1] & (length[1:] == length[:-1]) & (differ == 0).all(axis=1)
    return qid_start, qid_end, same
