"""The compiled reading kernel (``_kernel.c``), when it was built.

One call reads a block of text: for each data line it splits the fields,
parses the number, hashes the docno, finds the line's judgement (for runs)
and copies the docno out. It takes only the common case and gives any other
block back (None); :mod:`lexeval.io.inputs` then reads that block through
:mod:`lexeval.io.textfile`, which gives the same arrays and every file:line
error. Without a C compiler the package installs without the kernel, and
every block takes that path. ``LEXEVAL_KERNEL=off`` turns it off (tests
and benchmarks compare the two).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .strings import _PAD, ByteStrings

_kernel: Any
try:
    from . import _kernel  # type: ignore[attr-defined,no-redef]  # the compiled module: no type information
except ImportError:         # not built: no compiler at install time
    _kernel = None

#: layouts as the kernel numbers them (0: a run file whose first line decides)
RUN_OR_MSMARCO, RUN, MSMARCO, QRELS = 0, 1, 2, 3


def enabled() -> bool:
    """Whether blocks go through the kernel."""
    return _kernel is not None and os.environ.get("LEXEVAL_KERNEL", "on") != "off"


#: a block's flags: two lines of one qid may name one docno (hashes equal; the
#: bytes decide later); tied scores whose docnos rise, or fall, in file order
MAY_REPEAT, TIE_RISES, TIE_FALLS = 1, 2, 4
#: the flags of a block the Python reader read: nothing checked
UNCHECKED = MAY_REPEAT | TIE_RISES | TIE_FALLS


@dataclass
class Scanned:
    """A block's data lines, in file order. Lines with one qid next to each
    other form a *group*; a group starts at each of ``change_lines``."""

    layout: int                    # RUN, MSMARCO or QRELS
    number: np.ndarray             # (n,) float64 score (runs; -rank for MS MARCO) or int64 grade (qrels)
    row: np.ndarray | None         # (n,) int32 judgement row, -1 if none (runs, with tables)
    docno_hash: np.ndarray         # (n,) uint64, ByteStrings.hash64
    docnos: ByteStrings            # (n,)
    change_lines: np.ndarray       # (k,) int64: the first line of each group
    change_query: np.ndarray | None   # (k,) int32 each group's qrels query, -1 if none (runs, with tables)
    change_qid: Callable[[int], bytes]           # group i's qid
    all_change_qids: Callable[[], list[bytes]]   # every group's qid
    last_fields: list[bytes]       # the fields of the block's last data line
    flags: int = UNCHECKED         # within each group: MAY_REPEAT, TIE_RISES, TIE_FALLS
    newlines: int = 0              # lines of text in the block (blank and comment lines too)
    code: np.ndarray | None = None     # (n,) int16 relevance code (runs read by the kernel: in place)

    @property
    def in_place(self) -> bool:
        """Whether number, code and row are in the caller's builders already."""
        return self.code is not None

    @property
    def change_qids(self) -> list[bytes]:
        return self.all_change_qids()

    def per_line(self, per_group: np.ndarray) -> np.ndarray:
        """(n,) each line's value of its group's ``per_group`` (k,)."""
        return np.repeat(per_group, np.diff(np.append(self.change_lines, len(self.docno_hash))))


def tables(queries: tuple, buckets: tuple, row_docnos: ByteStrings, row_codes) -> tuple:
    """The look-up arrays, contiguous and of the types the kernel reads:
    ``queries`` (the qids' hashes sorted, each one's query, the qids),
    ``buckets`` (the judgement index's base, shift, starts and row hashes),
    ``row_docnos`` each judgement row's docno, in row order (a query's rows
    lie together, so its look-ups touch one stretch of memory)."""
    qid_hash_sorted, qid_query, qids = queries
    base, shift, starts, row_hash = buckets
    return (np.ascontiguousarray(qid_hash_sorted, np.uint64), np.ascontiguousarray(qid_query, np.int32),
              qids.data, qids.offsets, np.ascontiguousarray(base, np.int64), np.ascontiguousarray(shift, np.uint64),
              starts, row_hash, row_docnos.data, row_docnos.offsets, row_codes)


_NO_TABLES = (b"",) * 11
_SHORTEST_LINE = {RUN_OR_MSMARCO: 6, RUN: 10, MSMARCO: 6, QRELS: 8}     # "q d 1\n", "q 0 d 1\n", "q Q0 d 1 1\n"


class Scratch:
    """Arrays the blocks of one file reuse (a block's are read before the
    next block is scanned): fresh memory costs the system a cleared page."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, count: int, dtype) -> np.ndarray:
        array = self.arrays.get(name)
        if array is None or len(array) < count:
            array = self.arrays[name] = np.empty(count, dtype=dtype)
        return array[:count]


def scan(block, layout: int, look_up: tuple | None = None, into: dict | None = None,
         scratch: Scratch | None = None) -> Scanned | None:
    """The data lines of a block of text (bytes-like, ending with a line
    feed), or None when it needs the Python reader.

    Runs give ``look_up`` (the qrels' tables, :attr:`inputs.Qrels.kernel_tables`)
    and ``into``: strings.ArrayBuilder for "number", "code" and, if kept,
    "row", written in place and advanced over the lines; their docno hashes
    are then in ``scratch`` (valid until the next block)."""
    scratch = scratch or Scratch()
    # at most a line per shortest possible line (reserved, not touched: unused pages cost no memory)
    capacity = len(block) // _SHORTEST_LINE[layout] + 1
    if into is not None:
        number, code = into["number"].room(capacity), into["code"].room(capacity)
        row = into["row"].room(capacity) if "row" in into else scratch.get("row", capacity, np.int32)
        docno_hash = scratch.get("hash", capacity, np.uint64)
    else:
        number = np.empty(capacity, dtype=np.int64 if layout == QRELS else np.float64)
        row, code = np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int16)
        docno_hash = np.empty(capacity, dtype=np.uint64)
    data = np.empty(len(block) + _PAD, dtype=np.uint8)
    offsets = np.empty(capacity + 1, dtype=np.int32)
    change_lines, change_lengths, change_query = (scratch.get(name, capacity, np.int32)
                                                  for name in ("change_lines", "change_lengths", "change_query"))
    change_starts = scratch.get("change_starts", capacity, np.int64)
    result = _kernel.scan(block, layout, row, code, number, docno_hash, data, offsets, change_lines, change_starts,
                          change_lengths, change_query, *(look_up or _NO_TABLES))
    if result is None:
        return None
    lines, changes, layout, last, flags, newlines = result
    for builder in (into or {}).values():
        builder.advance(lines)
    used = int(offsets[lines])
    data[used:used + _PAD] = 0
    view = memoryview(block)
    starts, lengths = change_starts[:changes], change_lengths[:changes]

    def change_qid(i: int) -> bytes:
        return bytes(view[int(starts[i]):int(starts[i]) + int(lengths[i])])

    def all_change_qids() -> list[bytes]:
        return ByteStrings.from_spans(np.frombuffer(view, dtype=np.uint8), starts, starts + lengths).to_list()
    tail = bytes(view[last:last + 4096])
    if b"\n" not in tail:                 # a last line of more than 4 KB
        tail = bytes(view[last:])
    last_fields = tail.split(b"\n", 1)[0].split() if lines else []
    return Scanned(layout, number[:lines], row[:lines] if into else None, docno_hash[:lines],
                   ByteStrings(data[:used + _PAD], offsets[:lines + 1]), change_lines[:changes].astype(np.int64),
                   change_query[:changes].copy() if into else None, change_qid, all_change_qids, last_fields, flags,
                   newlines,
                   code[:lines] if into else None)


def split_lines(text, bounds: list[bytes], by_qid: bool) -> tuple[np.ndarray, int]:
    """The kernel's one pass over a cluster piece's text: (m, 7) int64 runs
    of lines of one bucket (bucket, byte start, stop, first line, line
    count, qid start, qid length), and the line count (see
    lexeval.cluster.pieces)."""
    lengths = np.cumsum([0, *map(len, bounds)]).astype(np.int64)
    packed, lines = _kernel.split_lines(text, b"".join(bounds), lengths.tobytes(), by_qid)
    return np.frombuffer(packed, dtype=np.int64).reshape(-1, 7), lines


def gather_pieces(text, starts: np.ndarray, sizes: np.ndarray, pieces: np.ndarray) -> bytes:
    """The pieces ``text[starts[k]:starts[k] + sizes[k]]`` for k in
    ``pieces`` (m,), joined."""
    starts, sizes, pieces = (np.ascontiguousarray(v, dtype=np.int64) for v in (starts, sizes, pieces))
    return _kernel.gather_pieces(text, starts, sizes, pieces)


def layout_block(reals: np.ndarray, integers: np.ndarray, styles: np.ndarray, heads: list[str], qids: list[str],
                 keys: list[str], into: bytearray | None = None,
                 key_pairs: np.ndarray | None = None) -> tuple[bytearray, int]:
    """The text writer's lines of a block of numbers as UTF-8 bytes, laid
    out by the kernel with the interpreter let go (see
    :func:`lexeval.output.layout.block_bytes`): ``reals`` (float64) and
    ``integers`` (int64) each (names, groups), the int columns' values in
    ``integers``; ``styles`` (names,) 0 ``%6.4f``, 1 ``%.4g``, 2 ``%d``;
    ``heads`` each name's padded text with its tab, ``qids`` and ``keys``
    each group's (one for all, or no key), with theirs (padded with 16
    bytes, which the kernel copies 16 at a time); with ``key_pairs``
    (groups, 2), ``keys`` are the runs' names (no tab) and each group's
    key is "A:B" of the two its row numbers. Written to the
    start of ``into`` (a new buffer where it is None or too small):
    (that buffer, the bytes written)."""
    def texts(items: list[str]) -> tuple[bytes, np.ndarray]:
        encoded = [item.encode("utf-8", "surrogateescape") for item in items]
        return b"".join(encoded) + bytes(16), np.cumsum([0, *map(len, encoded)]).astype(np.int64)
    arguments = (np.ascontiguousarray(reals, dtype=np.float64), np.ascontiguousarray(integers, dtype=np.int64),
                 np.ascontiguousarray(styles, dtype=np.int8), *texts(heads), *texts(qids), *texts(keys),
                 np.ascontiguousarray(key_pairs if key_pairs is not None else np.zeros((0, 2)), dtype=np.int64))
    into = into if into is not None else bytearray(1 << 16)
    made = _kernel.layout_block(*arguments, into)
    if made < 0:
        into = bytearray(-made)
        made = _kernel.layout_block(*arguments, into)
    return into, made


#: The highest number an int16 id holds (a query's distinct unjudged documents less one); tests lower it.
NARROW_IDS_UP_TO = 32767


def number_holes(docnos: list, codes: np.ndarray, lengths: np.ndarray, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """((N,) int16 or int32, (queries,) int64): each unjudged document
    (``codes`` (N,) < 0: the runs' rankings end to end, ``lengths`` (R x
    queries) long) numbered among its query's, equal docnos alike, by first
    appearance; -1 for a judged one; and how many each query has.
    ``docnos``: per run, its unjudged documents' docnos in order
    (ByteStrings, or ShortStrings: read by their lengths). The numbers are int16 where every query's fit (half the
    fresh pages of int32: 55 MB on the Robust04 shape), tried first; int32
    where a query has more (its numbering then starts again)."""
    from ..compiled import cores, in_parts
    from .strings import ShortStrings
    arrays = (tuple(strings.data for strings in docnos),
              tuple(strings.lengths if isinstance(strings, ShortStrings) else strings.offsets for strings in docnos),
              np.ascontiguousarray(codes, dtype=np.int16), np.ascontiguousarray(lengths, dtype=np.int64))
    per_query = np.empty(queries, dtype=np.int64)
    def numbered(ids: np.ndarray) -> bool:
        # the queries shared between threads (each numbers its own, with its own table)
        fitted = in_parts(lambda start, stop: _kernel.number_holes(*arrays, int(queries), start, stop, ids, per_query),
                          queries, cores(), least=16)
        return all(fitted) and per_query.max(initial=0) <= NARROW_IDS_UP_TO + 1

    ids = np.empty(len(codes), dtype=np.int16)
    if not numbered(ids):
        ids = np.empty(len(codes), dtype=np.int32)
        numbered(ids)
    return ids, per_query
