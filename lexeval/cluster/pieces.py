"""Worker side, reading and splitting: every input cut into pieces the
workers read themselves, and each piece's lines split into buckets by the
range of their qid."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InputError, MissingFileError
from ..io.blocks import BOM, failure
from ..io.source import parquet_ends

BLOCK_BYTES = 32 << 20            # text read in byte ranges of this size
LOCAL_BYTES = 128 << 20           # a local file's pieces: mapped, not read (fewer tasks: 0.25 -> 0.16 s on 0.9 GB)
PARTITION_BYTES = 256 << 20       # about this much input text per partition (and two per worker at least)
NO_LINES = "lexeval:partition-without-lines"   # the qid of a placeholder line (the reader refuses an empty run)


@dataclass
class Piece:
    """Part of one input file: a byte range of a local text file (``start``
    to ``stop``, read where it lies), a block of text read through fsspec
    (``block``), or a Parquet row group."""

    path: str
    index: int                     # the piece's place in its file
    kind: str = "run"              # run or qrels
    tag: str = ""                  # Parquet: the runid one machine gives a table (the run's name)
    source: str = ""               # the input as given (a dataset's folder, for its pieces' errors)
    block: object = None           # a dask delayed of bytes (text)
    row_group: int = -1            # Parquet
    first_row: int = 0             # Parquet: rows before this row group
    start: int = -1                # a local file: the piece's bytes, start to stop (read where they lie)
    stop: int = -1


def pieces_of(path: str, blocksize: int | None, kind: str) -> list[Piece]:
    """The pieces of one input (a file, a fsspec URL or a Parquet dataset),
    of about ``blocksize`` bytes (None: LOCAL_BYTES for a local file,
    BLOCK_BYTES for one read)."""
    import fsspec
    if _is_parquet(path):
        import pyarrow.parquet as pq

        from ..io.source import run_name
        pieces: list = []
        rows = 0                   # a dataset's rows are counted across its files, as one table's
        for file in _parquet_files(path):
            with fsspec.open(file, "rb") as handle:
                meta = pq.ParquetFile(handle).metadata
            for group in range(meta.num_row_groups):
                pieces.append(Piece(file, len(pieces), kind, run_name(path), path, row_group=group, first_row=rows))
                rows += meta.row_group(group).num_rows
        return pieces
    local = _local_text(path)
    if local is not None:
        return _local_pieces(local, blocksize or LOCAL_BYTES, kind, path)
    from dask.bytes import read_bytes
    try:
        compressed = fsspec.utils.infer_compression(path) or _compression_by_magic(path)
        _, blocks = read_bytes(path, delimiter=b"\n", blocksize=None if compressed else blocksize or BLOCK_BYTES,
                               compression=compressed, sample=False)
    except (OSError, ValueError) as exc:
        raise failure(path, exc) from None
    if not blocks or not blocks[0]:
        raise MissingFileError(path, "no such file")
    return [Piece(path, i, kind, source=path, block=block) for i, block in enumerate(blocks[0])]


def _compression_by_magic(path: str) -> str | None:
    """fsspec's name of the compression a file's first bytes announce (as
    one machine knows it: a gzipped run need not end in .gz), or None."""
    import fsspec

    from ..io.blocks import MAGIC_BYTES, compression
    try:
        with fsspec.open(path, "rb") as handle:
            kind = compression(handle.read(MAGIC_BYTES))
    except (OSError, ValueError):
        return None                    # read_bytes says what is wrong
    return {"gzip": "gzip", "bzip2": "bz2", "xz": "xz", "zstd": "zstd"}.get(kind or "")


def _local_text(path: str) -> str | None:
    """The path of a local, uncompressed (by its first bytes) regular file,
    else None (a URL, a compressed file, a pipe: read through fsspec)."""
    import fsspec
    fs, inner = fsspec.core.url_to_fs(path)
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    if "file" not in protocols or fsspec.utils.infer_compression(path) or not os.path.isfile(inner):
        return None
    return inner if _compression_by_magic(path) is None else None


def _local_pieces(path: str, blocksize: int, kind: str, source: str) -> list[Piece]:
    """A local text file's pieces: byte ranges of about ``blocksize``, each
    ending after a line feed (a leading byte-order mark left out). The
    workers map them where they lie (the file must be where they see it, as
    for any path given to a cluster)."""
    from ..io.blocks import read_error
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            start = len(BOM) if handle.read(len(BOM)) == BOM else 0
            pieces: list = []
            while start < size:
                handle.seek(min(start + blocksize, size) - 1)
                handle.readline()                  # on to the end of the line the nominal cut falls in
                stop = min(handle.tell(), size)
                pieces.append(Piece(path, len(pieces), kind, source=source, start=start, stop=stop))
                start = stop
            return pieces or [Piece(path, 0, kind, source=source, start=start, stop=start)]
    except OSError as exc:
        raise read_error(path, exc) from None


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
            return parquet_ends(handle, size)
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


def _piece_text(piece: Piece):
    """The piece's lines as text: its bytes (a local file's mapped, not
    read), or its Parquet row group as TREC lines (scores printed so that
    they read back to the same float)."""
    if piece.start >= 0:
        import mmap
        with open(piece.path, "rb") as handle:
            if piece.stop == piece.start:
                return b""
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return memoryview(mapped)[piece.start:piece.stop]
    if piece.row_group < 0:
        data: Any = piece.block.compute(scheduler="sync") if hasattr(piece.block, "compute") else piece.block
        if piece.index == 0 and data.startswith(BOM):
            data = data[len(BOM):]
        return data
    import fsspec
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from ..io.source import table_column
    with fsspec.open(piece.path, "rb") as handle:
        table = pq.ParquetFile(handle).read_row_group(piece.row_group)
    wanted = ("qid", "docno", "score") if piece.kind == "run" else ("qid", "docno", "grade")
    text = []
    for name in wanted:
        column, data = table_column(table, name, piece.source)
        if name == "score":
            data = pc.cast(data, pa.float64())     # printed shortest, so it reads back to the same float
            if pc.any(pc.is_nan(data)).as_py():
                row = piece.first_row + int(pc.index(pc.is_nan(data), True).as_py()) + 1
                raise InputError(piece.source, "score is NaN", row, unit="row")
        elif name == "grade":
            data = pc.cast(data, pa.int64())
        text.append(pc.cast(data, pa.string()))
    if piece.kind == "run":
        fields = [text[0], pa.scalar("Q0"), text[1], pa.scalar("0"), text[2], pa.scalar(piece.tag)]
    else:
        fields = [text[0], pa.scalar("0"), text[1], text[2]]
    lines = pc.binary_join_element_wise(*fields, " ")
    return ("\n".join(lines.to_pylist()) + "\n").encode("utf-8", "surrogateescape") if len(lines) else b""


def _runs_of_lines(piece: Piece, bounds: list[bytes], by_qid: bool):
    """(text, records, lines): the piece's text, its lines in runs of one
    bucket (with ``by_qid`` of one qid), and how many lines it has.
    ``records`` (m, 7) int64 per run: bucket, byte start, byte stop (after
    its line feed), first line (0-based), line count, qid start, qid
    length; blank lines are in no run. The kernel's one pass when it is
    built, else numpy's."""
    try:
        text = _piece_text(piece)
    except Exception as exc:  # an unreadable piece: the file's fault, said as one machine says it
        raise failure(piece.source or piece.path, exc) from None
    from ..io import kernel
    if kernel.enabled():
        return (text, *kernel.split_lines(text, bounds, by_qid))
    return (text, *_numpy_runs(text, bounds, by_qid))


def _numpy_runs(text, bounds: list[bytes], by_qid: bool):
    """(records, lines) as the kernel's split_lines gives them."""
    from bisect import bisect_right
    buf = np.frombuffer(text, dtype=np.uint8) if len(text) else np.frombuffer(b"\n", dtype=np.uint8)
    ended = buf[-1] == 10
    if not ended:
        buf = np.append(buf, np.uint8(10))
    ends = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    qid_start, qid_end, same = _qid_spans(buf, starts, ends)
    kept = qid_end > qid_start                                  # blank lines go nowhere
    breaks = np.flatnonzero(~same)
    firsts = breaks[kept[breaks]]
    stops = np.concatenate((breaks, [len(ends)]))[np.searchsorted(breaks, firsts, side="right")]
    view = buf.data
    keys = np.array([bisect_right(bounds, bytes(view[a:b]))
                     for a, b in zip(qid_start[firsts].tolist(), qid_end[firsts].tolist())], dtype=np.int64)
    if not by_qid and len(firsts):          # runs that follow one another in one bucket are one run
        opens = np.flatnonzero(np.concatenate(([True], (firsts[1:] != stops[:-1]) | (keys[1:] != keys[:-1]))))
        closes = np.append(opens[1:], len(firsts)) - 1
        firsts, stops, keys = firsts[opens], stops[closes], keys[opens]
    byte_stop = np.minimum(ends[stops - 1] + 1, len(text))
    records = np.stack([keys, starts[firsts], byte_stop, firsts, stops - firsts, qid_start[firsts],
                        qid_end[firsts] - qid_start[firsts]], axis=1)
    return records.astype(np.int64).reshape(-1, 7), len(ends) if len(text) else 0


_SAMPLE = 10_000                  # qids per qrels piece that set the ranges


def _qid_sample(piece: Piece) -> tuple[bytes, np.ndarray]:
    """Up to 10,000 of a qrels piece's distinct qids, evenly spread in byte
    order: enough to cut ranges of about as many queries. Packed (their
    bytes, their lengths): Dask sends a list of 10,000 objects ten times
    as slowly (0.2 s)."""
    text, records, _ = _runs_of_lines(piece, [], True)
    view = memoryview(text)
    distinct = sorted({bytes(view[a:a + n]) for a, n in records[:, 5:7].tolist()})
    sample = distinct[::-(-len(distinct) // _SAMPLE) or 1]
    return b"".join(sample), np.array([len(qid) for qid in sample], dtype=np.int64)


def _unpacked(data: bytes, lengths: np.ndarray) -> list[bytes]:
    ends = np.cumsum(lengths).tolist()
    return [data[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def partition_bounds(client, qrels_pieces: list[Piece], partitions: int) -> list[bytes]:
    """The K - 1 qids (bytes) that cut the judged queries, in byte order
    (trec_eval's query order), into K ranges of about as many queries (from
    a sample; any cut gives the same numbers, only the balance depends on it)."""
    samples = client.gather([client.submit(_qid_sample, piece, pure=False) for piece in qrels_pieces])
    distinct = sorted(set().union(*(_unpacked(*sample) for sample in samples)))
    partitions = max(1, min(partitions, len(distinct)))
    return [distinct[(i * len(distinct)) // partitions] for i in range(1, partitions)]


#: A local file's piece is read in place when its lines form runs of this many on average (a query's
#: lines kept together); a piece whose queries are scattered sends its buckets' text instead (its
#: segments would be a row per line, for the client to hold and the partition to read one by one).
IN_PLACE_RUN_LINES = 32
IN_PLACE_RUNS = 1024              # a piece of at most this many runs is read in place whatever their length


def split_piece(piece: Piece, bounds: list[bytes]):
    """(buckets, segments, lines, piece): bucket k holds the piece's lines
    whose qid falls in range k (``bounds[k - 1] <= qid < bounds[k]`` in byte
    order), in file order; its segments (m, 4) say which lines they are
    (first line number in the piece, 1-based; count; their bytes in the
    piece, start and stop: only the first two when the text travels);
    ``lines`` is how many lines the piece has.
    Segments are as few as the file's order allows (a file sorted by qid:
    one per bucket). A piece of a local file read in place (the piece
    returned has ``start >= 0``) sends no text: its buckets are None, or
    the line feed its last line lacks, and the partition reads its
    segments' bytes from the file itself; any other piece's buckets are
    its text (the piece returned has ``start`` -1)."""
    text, records, lines = _runs_of_lines(piece, bounds, False)
    partitions = len(bounds) + 1
    if piece.start >= 0 and len(records) > max(IN_PLACE_RUNS, lines // IN_PLACE_RUN_LINES):
        piece = replace(piece, start=-1, stop=-1)          # scattered queries: its text travels
    order = np.argsort(records[:, 0], kind="stable")
    cuts = np.searchsorted(records[order, 0], np.arange(partitions + 1))
    buckets, segments = [], []
    for k in range(partitions):
        chosen = records[order[cuts[k]:cuts[k + 1]]]
        segment = np.stack([chosen[:, 3] + 1, chosen[:, 4], chosen[:, 1], chosen[:, 2]], axis=1)
        ended = not len(chosen) or text[int(chosen[-1, 2]) - 1:int(chosen[-1, 2])] == b"\n"
        if piece.start >= 0:          # the text the partition adds after the bytes: a last line's line feed
            buckets.append(None if ended else b"\n")
        else:                         # the text itself, and its line numbers only (int32: a quarter of the bytes)
            buckets.append(_joined(text, segment[:, 2:]) + (b"" if ended else b"\n"))
            segment = segment[:, :2].astype(np.int32 if lines < 2**31 else np.int64)
        segments.append(segment)
    return buckets, segments, lines, piece


def _joined(text, ranges: np.ndarray) -> bytes:
    """The bytes of ``text`` in ``ranges`` (m, 2: start, stop), joined."""
    from ..io import kernel
    if kernel.enabled():
        return kernel.gather_pieces(text, ranges[:, 0], ranges[:, 1] - ranges[:, 0], np.arange(len(ranges)))
    view = memoryview(text)
    return b"".join(view[a:b] for a, b in ranges.tolist())


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
