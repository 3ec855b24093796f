"""TREC qrels and run files as plain arrays.

:mod:`lexeval.io.textfile` turns a file into columns (identifiers as byte
strings, numbers as arrays); this module gives them their meaning. Qrels
become judgement arrays sorted for look-ups; a run becomes, for every qrels
query, the relevance codes of its documents in trec_eval's order.

Identity is exact by construction: a run line matches a judgement only when
its qid and its docno are byte for byte those of the judgement. Hashes of the
(query, docno) pairs find the candidates quickly; the bytes decide.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import InputError, UsageError
from . import kernel
from .strings import (
    ArrayBuilder,
    ByteStrings,
    ByteStringsBuilder,
    ChunkedByteStrings,
    decode,
    have_arrow,
    mix,
    numbers,
    shown,
)
from .textfile import (
    BYTES,
    FLOAT,
    INTEGER,
    MAX_GRADE,
    Columns,
    Layout,
    block_columns,
    find_line,
    iter_blocks,
    size_hint,
)

QRELS_LAYOUT = Layout("qrels", "qid iter docno grade",
                      ((0, "qid", BYTES), (2, "docno", BYTES), (3, "grade", INTEGER)), 4, 4, kernel.QRELS)
RUN_LAYOUT = Layout("run", "qid iter docno rank score [tag]",
                    ((0, "qid", BYTES), (2, "docno", BYTES), (4, "score", FLOAT)), 5, None, kernel.RUN)
MSMARCO_LAYOUT = Layout("MS MARCO", "qid docid rank",
                        ((0, "qid", BYTES), (1, "docno", BYTES), (2, "rank", INTEGER)), 3, 3, kernel.MSMARCO)
RUN_LAYOUTS = [RUN_LAYOUT, MSMARCO_LAYOUT]
LAYOUT_OF_CODE = {layout.kernel_code: layout for layout in (QRELS_LAYOUT, RUN_LAYOUT, MSMARCO_LAYOUT)}

NOT_IN_QRELS = -1       # trec_eval's RELVALUE_NONPOOL
UNJUDGED = -2           # trec_eval's RELVALUE_UNJUDGED: in the qrels with a negative grade

_QUERY_SALT = np.uint64(0xD6E8FEB86659FD93)   # odd: multiplying by it is one-to-one


#: What a run's name leaves out of its file's name: the ends of compressed
#: and Parquet files (any of them, in any order), and a leading ``input.``
#: (TREC's submission files).
NAME_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".parquet")


def run_name(path: str) -> str:
    """A run's name: the file's base name without ``input.`` and without
    compression and Parquet suffixes (``input.bm25.parquet.gz``: bm25)."""
    if path == "-":
        return "stdin"
    name = os.path.basename(os.path.normpath(path))
    while name.endswith(NAME_SUFFIXES) and "." in name[1:]:
        name = name[:name.rindex(".")]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name


def is_stream(path: str) -> bool:
    """Whether ``path`` is standard input or a pipe (``<(zcat run.gz)``,
    /dev/fd/63): its file name says nothing of the run."""
    if path == "-":
        return True
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode) or stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def repeated_pairs(group: np.ndarray, docnos, lines: np.ndarray | None = None) -> bool:
    """Whether some (group, docno) pair occurs on two lines. ``group`` holds
    exact query numbers, ``docnos`` (ByteStrings or ChunkedByteStrings) line
    i's docno; equal hashes are candidates, the bytes decide. With
    ``lines``, only those lines are looked at."""
    if lines is not None:
        group, docnos = group[lines], docnos.take(lines)
    docno_hash = docnos.hash64()

    def pair_keys():
        with np.errstate(over="ignore"):
            return mix(docno_hash ^ (group.astype(np.uint64) * _QUERY_SALT))
    keys = pair_keys()
    keys.sort()                                 # in place: no second array for huge runs
    if not (keys[1:] == keys[:-1]).any():
        return False
    keys = pair_keys()
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    twin = np.flatnonzero(keys[1:] == keys[:-1])
    first, second = order[twin], order[twin + 1]
    del keys, order
    shared = (group[first] == group[second]) & (docno_hash[first] == docno_hash[second])
    first, second = first[shared], second[shared]
    a, b = docnos.take(first), docnos.take(second)
    every = np.arange(len(first))
    if a.equal(every, b, every).any():
        return True
    # lines sharing a hash with different docnos: three or more may repeat one docno non-adjacently
    clashing = np.union1d(first, second)
    pairs = {(int(group[i]), docnos[i]) for i in clashing.tolist()}
    return len(pairs) < len(clashing)


class Source:
    """Where lines come from: a file (path, or '-' for standard input), or
    a table in memory (pandas, polars or pyarrow) with named columns."""

    def __init__(self, origin, name: str | None = None, kind: str = "run"):
        from .python_inputs import as_table, run_name_of
        self.is_file = isinstance(origin, (str, os.PathLike))
        name = name or run_name_of(origin)
        self.path = os.fspath(origin) if self.is_file else f"<{'table' if _is_table(origin) else kind} " \
                                                            f"{name or 'in memory'}>"
        # dictionaries, ranx objects and ir_measures tuples become tables
        self.origin = origin if self.is_file else as_table(origin, self.path, kind)
        self.name = name or (run_name(self.path) if self.is_file else "run")
        # a run from a pipe or standard input is named by its tag column (trec_eval's runid)
        self.named_by_tag = name is None and self.is_file and is_stream(self.path)
        # a Parquet file (or a directory of them) is read as a table
        self.is_text = self.is_file and not (self.path != "-" and _is_parquet(self.path))

    def table(self):
        """The table a source in memory, or a Parquet file, holds."""
        if self.is_file:
            try:
                import pyarrow.parquet as pq
            except ImportError:
                raise UsageError(f"{self.path}: Parquet files are read through pyarrow, which is not installed "
                                 "(pip install pyarrow)") from None
            import pyarrow as pa
            try:
                return pq.read_table(self.path)
            except (pa.ArrowException, OSError) as exc:
                raise InputError(self.path, f"not a readable Parquet file ({exc})") from None
        return self.origin

    def blocks(self, layouts: list[Layout], look_up: tuple | None = None, into: dict | None = None
               ) -> Iterator[kernel.Scanned]:
        """The data lines, a block at a time: through the compiled kernel
        when it is built and takes the block, else through the Python
        reader (which names the file and line of any problem). ``look_up``
        (runs: the qrels' kernel tables) has the kernel find judgement rows
        as it reads; ``into`` has it write numbers, codes and rows in place
        (see kernel.scan)."""
        if not self.is_text:
            yield _scanned(table_columns(self.table(), "qrels" if layouts[0] is QRELS_LAYOUT else "run", self.path,
                                         layouts[0]))
            return
        chosen: list[Layout] = []
        use_kernel = kernel.enabled()
        scratch = kernel.Scratch()
        first_line = 1
        blocks = iter_blocks(self.path)
        if not size_hint(self.path):            # gzip or a pipe: the next block is read while this one is scanned
            blocks = prefetched(blocks)
        for block in blocks:
            piece = None
            if use_kernel:
                piece = kernel.scan(block, chosen[0].kernel_code if chosen else layouts[0].kernel_code
                                    if len(layouts) == 1 else kernel.RUN_OR_MSMARCO, look_up, into, scratch)
                if piece is not None and not chosen and piece.layout:
                    chosen.append(LAYOUT_OF_CODE[piece.layout])
            if piece is not None:
                first_line += piece.newlines
            else:                       # the Python reader: it names the line of any problem
                text = bytes(block)
                columns = block_columns(text, first_line, self.path, layouts, chosen)
                piece = _scanned(columns) if columns is not None else None
                first_line += text.count(b"\n")
            if piece is not None and len(piece.docno_hash):
                yield piece

    def size(self) -> int:
        return size_hint(self.path) if self.is_file else 0

    def first_repeat(self, layouts: list[Layout], docno_field: int, verb: str) -> None:
        """Raise at the second line (or row) naming a (qid, docno)."""
        if self.is_text:
            _first_repeat(self.path, layouts, 0, docno_field, verb)
        columns = table_columns(self.table(), "qrels" if verb == "is judged twice" else "run", self.path,
                                layouts[0])
        seen: dict[tuple[bytes, bytes], int] = {}
        for row, key in enumerate(zip(columns["qid"].to_list(), columns["docno"].to_list()), start=1):
            if key in seen:
                raise InputError(self.path, f"row {row}: document '{shown(key[1])}' {verb} for query "
                                            f"'{shown(key[0])}' (first in row {seen[key]})")
            seen[key] = row


def _is_table(origin) -> bool:
    """A DataFrame (pandas, polars) or a pyarrow Table."""
    return hasattr(origin, "column_names") or (hasattr(origin, "columns") and hasattr(origin, "dtypes"))


def _is_parquet(path: str) -> bool:
    """Whether ``path`` is a Parquet file (its magic number, PAR1, first and
    last, with a footer that fits) or a directory of them (a dataset)."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            return any(name.endswith(".parquet") for name in os.listdir(path))
        if not stat.S_ISREG(mode):  # a pipe: its first bytes must not be taken
            return False
        size = os.stat(path).st_size
        if size < 12:
            return False
        with open(path, "rb") as handle:
            head = handle.read(4)
            handle.seek(size - 8)
            tail = handle.read(8)
        # PAR1 at both ends, and a footer that fits in the file: a text file
        # whose first qid is "PAR1" is still text
        if head == b"PAR1" and tail[4:] == b"PAR1" and int.from_bytes(tail[:4], "little") + 12 <= size:
            return True
        if head == b"PAR1" and _binary(path):
            raise InputError(path, "starts as a Parquet file but does not end as one (PAR1 and its footer): "
                                   "truncated or damaged; write it again")
        return False
    except OSError:
        return False                # reading it as text says what is wrong


def _binary(path: str) -> bool:
    """Whether the file's first 64 KB hold a NUL byte (text never does)."""
    with open(path, "rb") as handle:
        return b"\x00" in handle.read(1 << 16)


#: column names accepted in tables, first choice first (PyTerrier, ir_measures, ir_datasets)
#: and ranx's (q_id, doc_id, score: ranx's qrels hold their grades in "score" too)
TABLE_COLUMNS = {"qid": ("qid", "query_id", "q_id"), "docno": ("docno", "doc_id", "docid"), "score": ("score",),
                 "grade": ("relevance", "grade", "label", "rel", "score")}


def table_columns(table, kind: str, where: str, layout: Layout) -> Columns:
    """A pandas or polars DataFrame, or a pyarrow Table, as Columns: qid
    and docno as byte strings (UTF-8), score (runs) or grade (qrels)."""
    if not have_arrow():
        raise UsageError(f"{where}: tables in memory are read through pyarrow, which is not installed "
                         "(pip install pyarrow)")
    import pyarrow as pa
    import pyarrow.compute as pc
    if not isinstance(table, pa.Table):
        if hasattr(table, "to_arrow"):                       # polars
            table = table.to_arrow()
        elif hasattr(table, "columns") and hasattr(table, "dtypes"):     # pandas
            table = pa.Table.from_pandas(table, preserve_index=False)
        else:
            raise InputError(where, f"cannot read a {type(table).__name__}: give a path, a pandas or polars "
                                    "DataFrame, a pyarrow Table, a {qid: {docno: " +
                             ("score" if kind == "run" else "grade") + "}} dict, a ranx " +
                             ("Run" if kind == "run" else "Qrels") + " or ir_measures " +
                             ("ScoredDocs" if kind == "run" else "Qrels"))
    wanted = ("qid", "docno", "score") if kind == "run" else ("qid", "docno", "grade")
    values = {}
    for name in wanted:
        column = next((c for c in TABLE_COLUMNS[name] if c in table.column_names), None)
        if column is None:
            raise InputError(where, f"no column {' or '.join(repr(c) for c in TABLE_COLUMNS[name])} "
                                    f"(columns: {', '.join(table.column_names)})")
        data = table.column(column)
        if data.null_count:
            raise InputError(where, f"column '{column}' has missing values")
        if name in ("qid", "docno"):
            text = data if pa.types.is_string(data.type) or pa.types.is_large_string(data.type) \
                or pa.types.is_binary(data.type) else pc.cast(data, pa.string())
            values[name] = ByteStrings.from_arrow(pc.cast(text, pa.binary()) if not pa.types.is_binary(text.type)
                                                  else text)
        elif name == "score":
            scores = numbers(pc.cast(data, pa.float64()))
            if np.isnan(scores).any():
                raise InputError(where, f"row {int(np.flatnonzero(np.isnan(scores))[0]) + 1}: score is NaN")
            values[name] = scores
        else:
            try:
                values[name] = numbers(pc.cast(data, pa.int64()))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise InputError(where, f"column '{column}' does not hold integer grades") from None
    return Columns(where, layout, values, table.num_rows)


def _scanned(columns: Columns) -> kernel.Scanned:
    """Columns read by the Python reader in the kernel's form (nothing
    checked within groups: ``flags`` says so)."""
    qids, docnos = columns["qid"], columns["docno"]
    every = np.arange(len(qids) - 1)
    changes = np.flatnonzero(np.concatenate(([True], ~qids.equal(every, qids, every + 1)))) if len(qids) \
        else np.zeros(0, np.int64)
    layout = columns.layout
    number = columns["grade"] if layout is QRELS_LAYOUT else -columns["rank"].astype(np.float64) \
        if layout is MSMARCO_LAYOUT else columns["score"]
    changed = qids.take(changes).to_list()
    return kernel.Scanned(layout.kernel_code, number, None, docnos.hash64(), docnos, changes, None,
                          changed.__getitem__, lambda: changed, columns.last_fields)


class _Groups:
    """Each line's group (a number per qid) over a file's blocks, and what
    the kernel checked within groups: which groups may still repeat a docno
    (their lines span blocks, or lie apart, or a block was read by Python,
    or two hashes were equal), and in which docno order tied scores come."""

    def __init__(self, lines: int):
        self.group = ArrayBuilder(np.int32, lines)
        self.segments: list[np.ndarray] = []       # each block's groups, in file order
        self.unchecked: list[np.ndarray] = []
        self.ranges: list[tuple[int, int]] = []    # lines holding every line of the unchecked groups
        self.flags = 0
        self.last = None                           # (group, number, docno) of the last line so far
        self.last_start = 0                        # the first line of the last group so far

    def add(self, piece: kernel.Scanned, per_group: np.ndarray) -> None:
        """A block whose groups are numbered ``per_group`` (k,)."""
        segments = per_group
        start, lines = len(self.group), len(piece.docno_hash)
        if self.last is not None and per_group[0] == self.last[0]:      # a group goes on across blocks
            self.unchecked.append(per_group[:1])
            self.ranges.append((self.last_start, start + (int(piece.change_lines[1]) if len(per_group) > 1
                                                          else lines)))
            if piece.layout != kernel.QRELS and piece.number[0] == self.last[1]:
                first = piece.docnos[0]
                self.flags |= kernel.TIE_RISES if first > self.last[2] else kernel.TIE_FALLS \
                    if first < self.last[2] else 0
            segments = per_group[1:]
        if piece.flags & kernel.MAY_REPEAT:
            self.unchecked.append(per_group)
            self.ranges.append((start, start + lines))
        self.flags |= piece.flags & (kernel.TIE_RISES | kernel.TIE_FALLS)
        self.segments.append(segments)
        if len(segments) or self.last is None:
            self.last_start = start + int(piece.change_lines[-1])
        self.group.append(piece.per_line(per_group))
        self.last = (per_group[-1], piece.number[-1], piece.docnos[len(piece.docnos) - 1])

    def to_check(self, group: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """(the lines whose groups may repeat a docno, None for all; whether
        each group's lines are together). ``group`` is every line's group."""
        values, counts = np.unique(np.concatenate(self.segments), return_counts=True)
        apart = values[counts > 1]
        if len(apart):                             # lines of one qid apart: look everywhere for them
            unchecked = np.unique(np.concatenate(self.unchecked + [apart]))
            lines = None if len(unchecked) == len(values) else \
                np.flatnonzero(np.isin(group, unchecked, kind="table"))
            return lines, False
        if not self.ranges:
            return np.zeros(0, dtype=np.int64), True
        merged: list[list[int]] = []               # the ranges may overlap: each line once
        for start, stop in sorted(self.ranges):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], stop)
            else:
                merged.append([start, stop])
        return np.concatenate([np.arange(start, stop) for start, stop in merged]), True

    def ties_in_order(self, descending: bool) -> bool:
        """Whether every tie of adjacent lines is in docno order already."""
        return not self.flags & (kernel.TIE_RISES if descending else kernel.TIE_FALLS)


def _check_repeats(source: Source, group: np.ndarray, docnos, groups: _Groups, layouts: list[Layout],
                   docno_field: int, verb: str) -> bool:
    """Raise at the second line naming a (qid, docno), if any; returns
    whether each group's lines are together."""
    lines, together = groups.to_check(group)
    if (lines is None or len(lines)) and repeated_pairs(group, docnos, lines):
        source.first_repeat(layouts, docno_field, verb)
    return together


def _first_repeat(path: str, layouts: list[Layout], qid_field: int, docno_field: int, verb: str) -> None:
    """Re-read the file and raise at the second line naming a (qid, docno)."""
    seen: dict[tuple[bytes, bytes], int] = {}

    def test(number: int, fields: list[bytes]) -> None:
        if len(fields) <= max(qid_field, docno_field):
            return
        key = (fields[qid_field], fields[docno_field])
        if key in seen:
            raise InputError(path, f"document '{shown(key[1])}' {verb} for query "
                                   f"'{shown(key[0])}' (first on line {seen[key]})", number)
        seen[key] = number
    find_line(path, layouts, test)
    raise InputError(path, f"a document {verb} for one query")


class JudgementIndex:
    """Finds judgements by (query, docno). Judgements are sorted by query,
    then docno hash; each query gets one or two buckets per judgement,
    picked by the hash's top bits, so the look-ups of one query (a run lists
    a query's lines together) stay within a small, cache-resident table. A
    row is found when its hash and then its bytes are the line's."""

    def __init__(self, query: np.ndarray, docno_hash: np.ndarray, num_queries: int):
        self.hash = docno_hash
        counts = np.bincount(query, minlength=num_queries)
        bits = np.maximum(np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64), 1)
        self.shift = (64 - bits).astype(np.uint64)      # a query's bucket: its hash's top ``bits`` bits
        self.base = np.concatenate(([0], np.cumsum(2 ** bits))).astype(np.int64)
        # rows are sorted by bucket: each bucket's first row, found by binary search a few million at a time
        buckets, total = self.buckets(query, docno_hash), int(self.base[-1]) + 1
        self.starts = np.empty(total, dtype=np.int64 if len(query) >= 2 ** 31 else np.int32)
        for first in range(0, total, 1 << 22):
            self.starts[first:first + (1 << 22)] = np.searchsorted(buckets, np.arange(first, min(first + (1 << 22),
                                                                                             total)))

    def buckets(self, query: np.ndarray, docno_hash: np.ndarray) -> np.ndarray:
        bucket = (docno_hash >> self.shift[query]).view(np.int64)
        bucket += self.base[query]
        return bucket

    def find(self, query: np.ndarray, docno_hash: np.ndarray, docnos: ByteStrings, judged: ByteStrings,
             line_of_row: np.ndarray) -> np.ndarray:
        """(n,) int32: the row judging line i's document (query ``query[i]``,
        docno ``docnos[i]`` with hash ``docno_hash[i]``), -1 where none; row
        r's docno is ``judged[line_of_row[r]]``. All lines at once, a probe
        of each bucket per round."""
        found = np.full(len(query), -1, dtype=np.int32)
        if len(self.hash) == 0 or len(query) == 0:
            return found
        bucket = self.buckets(query, docno_hash)
        end = self.starts[bucket + 1]
        candidate = self.starts[bucket].astype(np.int64)
        active = np.flatnonzero(candidate < end)
        candidate, end = candidate[active], end[active]
        while len(active):
            match = self.hash[candidate] == docno_hash[active]
            hit = np.flatnonzero(match)
            same = docnos.equal(active[hit], judged, line_of_row[candidate[hit]])
            found[active[hit[same]]] = candidate[hit[same]]
            match[hit[~same]] = False
            going = ~match & (candidate + 1 < end)
            active, candidate, end = active[going], candidate[going] + 1, end[going]
        return found


# ---------------------------------------------------------------- qrels


@dataclass
class Qrels:
    """Relevance judgements, one row per judged (query, document).

    ``qids`` are the judged queries in byte order (trec_eval's query order).
    Rows are sorted by query, then docno hash, for look-ups.
    ``level_counts[q, g]`` counts query q's documents judged with grade
    g >= 0 (a negative grade means "in the pool, not judged").
    """

    path: str
    qids: list[str]
    query_of: dict[bytes, int]          # qid bytes -> query index
    query_index: np.ndarray             # (J,) int32
    grades: np.ndarray                  # (J,) int16
    docnos: ByteStrings                 # in file order: row j's docno is docnos[line_of_row[j]]
    line_of_row: np.ndarray             # (J,) int32 (int64 from 2**31 lines)
    index: JudgementIndex
    level_counts: np.ndarray            # (Q, max_grade + 1) int64

    def num_relevant(self, level: int) -> np.ndarray:
        """Relevant documents per query at relevance level ``level``: (Q,)."""
        return self.level_counts[:, max(level, 0):].sum(axis=1)

    def rows_of(self, query: np.ndarray, docnos: ByteStrings, docno_hash: np.ndarray) -> np.ndarray:
        """(n,) int32 judgement row of each line, -1 if not judged: line i
        has qrels query ``query[i]`` (-1: a query the qrels lack) and docno
        ``docnos[i]`` with hash ``docno_hash[i]``."""
        known = np.flatnonzero(query >= 0)
        if len(known) == len(query):
            return self.index.find(query, docno_hash, docnos, self.docnos, self.line_of_row)
        rows = np.full(len(query), -1, dtype=np.int32)
        rows[known] = self.index.find(query[known], docno_hash[known], docnos.take(known), self.docnos,
                                      self.line_of_row)
        return rows

    @cached_property
    def row_codes(self) -> np.ndarray:
        """(J + 1,) int16 each row's relevance code (its grade, or UNJUDGED
        for a negative one), then NOT_IN_QRELS: ``row_codes[rows]`` codes
        lines whose row is -1 too."""
        codes = np.where(self.grades >= 0, self.grades, UNJUDGED).astype(np.int16)
        return np.append(codes, np.int16(NOT_IN_QRELS))

    @cached_property
    def kernel_tables(self) -> tuple:
        """The arrays the compiled kernel looks judgements up in."""
        encoded = [q.encode("utf-8", "surrogateescape") for q in self.qids]
        qids = ByteStrings.from_list(encoded)
        qid_hash = qids.hash64()
        by_hash = np.argsort(qid_hash, kind="stable")
        return kernel.tables(qid_hash[by_hash], by_hash, qids, self.index.base, self.index.shift, self.index.starts,
                             self.index.hash, self.line_of_row, self.docnos, self.row_codes)


def read_qrels(origin) -> Qrels:
    """Parse qrels: a file (``qid iter docno grade``, exactly four columns)
    or a table (columns qid, docno, relevance or grade)."""
    source = origin if isinstance(origin, Source) else Source(origin, kind="qrels")
    path = source.path
    seen: dict[bytes, int] = {}
    # room for every line the file can hold (its shortest has 8 bytes): reserved, only used pages cost
    lines = source.size() // 8 + 16 if source.size() else 1 << 16
    groups = _Groups(lines)
    grade, docno_hash = ArrayBuilder(np.int16, lines), ArrayBuilder(np.uint64, lines)
    docno_builder = ByteStringsBuilder(max(source.size(), 1 << 16), lines)
    for piece in source.blocks([QRELS_LAYOUT]):
        groups.add(piece, np.array([seen.setdefault(q, len(seen)) for q in piece.change_qids], dtype=np.int32))
        if not source.is_text and len(piece.number) and np.abs(piece.number).max() > MAX_GRADE:
            raise InputError(path, f"a grade is out of range (|grade| <= {MAX_GRADE})")
        grade.append(piece.number)              # |grade| <= 10,000: two bytes
        docno_hash.append(piece.docno_hash)
        docno_builder.append(piece.docnos)
    if len(grade) == 0:
        raise InputError(path, "no judgements (empty qrels file)")
    grades, docno_hash, docnos, group = grade.build(), docno_hash.build(), docno_builder.build(), groups.group.build()
    del grade, docno_builder                    # each array once in memory from here on
    distinct_qids = list(seen)
    by_bytes = sorted(range(len(distinct_qids)), key=distinct_qids.__getitem__)   # strcmp order
    rank = np.empty(len(distinct_qids), dtype=np.int32)
    rank[by_bytes] = np.arange(len(distinct_qids))
    query = rank[group]
    try:
        _check_repeats(source, query, docnos, groups, [QRELS_LAYOUT], 2, "is judged twice")
    except InputError as error:
        # the usual cause: judgements with a second column that means something (ndeval's subtopics)
        raise InputError(error.path, f"{error.message}; diversity judgements ('qid subtopic docno grade', a "
                                     "document once per subtopic) are read with --subtopics or a diversity measure, "
                                     "judgement groups with -R qrels_jg", error.line) from None
    del groups, group
    # sorted by query, then by the hash's top bits (all the index looks at)
    query_bits = max(int(len(distinct_qids)).bit_length(), 1)
    key = docno_hash >> np.uint64(query_bits)
    key |= query.astype(np.uint64) << np.uint64(64 - query_bits)
    order = np.argsort(key, kind="stable")
    del key
    query, docno_hash, grades = query[order], docno_hash[order], grades[order]
    line_of_row = order.astype(np.int32 if len(order) < 2 ** 31 else np.int64)
    del order
    max_grade = max(int(grades.max()), 0)
    judged = grades >= 0
    width = max_grade + 1
    level_counts = np.bincount(query[judged].astype(np.int64) * width + grades[judged],
                               minlength=len(distinct_qids) * width).reshape(len(distinct_qids), width)
    ordered_qids = [distinct_qids[i] for i in by_bytes]
    return Qrels(path=path, qids=[decode(q) for q in ordered_qids],
                 query_of={q: i for i, q in enumerate(ordered_qids)}, query_index=query,
                 grades=grades, docnos=docnos, line_of_row=line_of_row,
                 index=JudgementIndex(query, docno_hash, len(ordered_qids)), level_counts=level_counts)


# ---------------------------------------------------------------- runs


@dataclass
class ParsedRun:
    """One run, reduced to what evaluation needs.

    For every qrels query q (in ``Qrels.qids`` order) the run ranked
    ``counts[q]`` documents; their relevance codes, in rank order, are
    ``codes[offsets[q]:offsets[q + 1]]``. A code is the document's grade when
    it was judged, -1 when it is not in the qrels and -2 when the qrels give it
    a negative grade (in the pool, unjudged): trec_eval's conventions.
    ``qrels_rows`` (same layout, when asked for) gives each ranked document's
    judgement row (-1 if not judged): an exact identity for judged documents,
    for measures that compare documents across runs.
    """

    name: str
    tag: str
    path: str
    present: np.ndarray              # (Q,) bool: the run has lines for this query
    counts: np.ndarray               # (Q,) int64
    codes: np.ndarray                # (sum counts,) int16
    qrels_rows: np.ndarray | None    # (sum counts,) int32, when asked for
    num_lines: int
    unknown_qids: list[str]          # the run's queries the qrels lack, first few, file order
    num_unknown: int                 # how many such queries
    format: str = "run"              # the file's layout: "run" (TREC) or "MS MARCO"

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.counts)))


@dataclass(frozen=True)
class ReadOptions:
    """How rankings are cut: ``depth`` keeps the top documents of each
    (trec_eval's -M), ``judged_only`` then drops unjudged ones (-J), and
    ``keep_rows`` keeps each document's judgement row (``qrels_rows``)."""

    depth: int | None = None
    judged_only: bool = False
    keep_rows: bool = False
    ties_ascending: bool = False    # tied scores by docno ascending (trec_eval's order for preference judgements)


def read_run(origin, qrels: Qrels, options: ReadOptions = ReadOptions(), name: str | None = None) -> ParsedRun:
    """Parse a run against qrels: a file (``qid iter docno rank score [tag]``,
    or MS MARCO's ``qid docid rank``, where score = -rank keeps the order) or
    a table (columns qid, docno, score).

    Documents are ordered per query by score descending, ties by docno
    descending (byte-wise), exactly as trec_eval; the rank column is
    ignored. The lines are matched against the qrels one block at a time;
    what is kept per line (query, score, judgement row, docno hash and bytes)
    is what the ordering and the check for repeated documents need.
    """
    source = origin if isinstance(origin, Source) else Source(origin, name)
    path, size = source.path, source.size()
    unknown: dict[bytes, int] = {}              # qids the qrels lack, first seen first
    # room for every line the file can hold (its shortest line has 6 bytes): reserved, only used pages cost
    lines = size // 6 + 16 if size else 1 << 16
    groups = _Groups(lines)
    score, code = ArrayBuilder(np.float64, lines), ArrayBuilder(np.int16, lines)
    row = ArrayBuilder(np.int32, lines) if options.keep_rows else None
    docno_chunks: list[ByteStrings] = []
    last: list[bytes] = []
    layout = RUN_LAYOUT
    look_up = qrels.kernel_tables if source.is_text and kernel.enabled() else None
    into = {"number": score, "code": code, **({"row": row} if row is not None else {})} if look_up else None
    for piece in source.blocks(RUN_LAYOUTS, look_up, into):
        layout = LAYOUT_OF_CODE[piece.layout]
        # a group is its qrels query, or below -1 for a qid the qrels lack
        per_group = piece.change_query if piece.change_query is not None else \
            np.array([qrels.query_of.get(q, -1) for q in piece.change_qids], dtype=np.int32)
        for i in np.flatnonzero(per_group < 0).tolist():
            per_group[i] = -2 - unknown.setdefault(piece.change_qid(i), len(unknown))
        groups.add(piece, per_group)
        if not piece.in_place:                  # read by Python: rows found here
            block_row = qrels.rows_of(piece.per_line(np.maximum(per_group, -1)), piece.docnos, piece.docno_hash)
            score.append(piece.number)
            code.append(qrels.row_codes[block_row])
            if row is not None:
                row.append(block_row)
        docno_chunks.append(piece.docnos)
        last = piece.last_fields
    if not docno_chunks:
        raise InputError(path, "empty run: no result lines")
    group = groups.group.build()
    docnos = ChunkedByteStrings(docno_chunks)
    together = _check_repeats(source, group, docnos, groups, RUN_LAYOUTS, 2 if layout is RUN_LAYOUT else 1,
                              "appears twice")
    num_lines = len(group)
    query = np.maximum(group, -1, out=group)
    del group
    score, code = score.build(), code.build()
    row = row.build() if row is not None else None
    kept = np.flatnonzero(query >= 0) if unknown else None
    if unknown:
        query, score, code = query[kept], score[kept], code[kept]
        row = row[kept] if row is not None else None
    descending = not options.ties_ascending
    order, fix = trec_order(query, score, docnos, kept, descending=descending,
                            ties_in_order=together and groups.ties_in_order(descending))
    del score, kept, docnos
    counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    del query
    for values in (code, row) if row is not None else (code,):
        if fix is not None:
            values[fix[0]] = values[fix[1]]
    if order is not None:
        code = code[order]
        row = row[order] if row is not None else None
    del order

    present = counts > 0
    keep = None
    if options.depth is not None and (counts > options.depth).any():       # -M first, as trec_eval
        first = np.repeat(np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        keep = np.arange(len(code)) - first < options.depth
    if options.judged_only:                                                  # then -J
        keep = (code >= 0) if keep is None else keep & (code >= 0)
    if keep is not None:
        query = np.repeat(np.arange(len(counts), dtype=np.int32), counts)    # lines are in query order now
        query, code = query[keep], code[keep]
        row = row[keep] if row is not None else None
        counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    tag = decode(last[5]) if len(last) >= 6 else ""
    return ParsedRun(name=tag if source.named_by_tag and tag else source.name, tag=tag or source.name, path=path,
                     present=present, counts=counts, codes=code, qrels_rows=row,
                     num_lines=num_lines, unknown_qids=[decode(q) for q in list(unknown)[:3]],
                     num_unknown=len(unknown),
                     format=layout.name)


def prefetched(blocks):
    """The same items, the next one read in a background thread while the
    caller works on the current one (pyarrow and numpy release the GIL)."""
    iterator = iter(blocks)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next, iterator, None)
        while True:
            item = pending.result()
            if item is None:
                return
            pending = pool.submit(next, iterator, None)
            yield item


def trec_order(query: np.ndarray, scores: np.ndarray, docnos, index: np.ndarray | None,
               descending: bool = True, ties_in_order: bool = False) -> tuple[np.ndarray | None, tuple | None]:
    """How to put lines in trec_eval's order: query, then score descending,
    then docno descending (byte-wise; ascending if not ``descending``, as
    trec_eval orders runs for preference judgements). Returns ``(order,
    fix)``: ``x[fix[0]] = x[fix[1]]`` first (tied lines put in docno order
    where they are; no fix if None), then ``x[order]`` (None: in order
    already). Line i's docno is ``docnos[index[i]]`` (``docnos[i]``
    without ``index``); ``ties_in_order`` says tied neighbours are known
    to be in docno order.

    Runs are usually written by query and descending score already; that is
    checked in linear time, whole blocks of a query are moved into query
    order, and only tied scores are ordered by docno. Other files pay for a
    sort by (query, score).
    """
    count = len(query)
    if count == 0:
        return None, None
    boundaries = np.flatnonzero(query[1:] != query[:-1]) + 1       # where a query's block starts
    block_query = query[np.concatenate(([0], boundaries))]
    rises = np.flatnonzero(scores[1:] > scores[:-1]) + 1            # a score may rise only at a block start
    grouped = np.bincount(block_query).max() <= 1
    if grouped and np.isin(rises, boundaries).all():
        blocks = None
        if not (block_query[1:] > block_query[:-1]).all():           # move whole blocks into query order
            position = np.int32 if count < 2 ** 31 else np.int64
            starts = np.concatenate(([0], boundaries)).astype(position)
            lengths = np.diff(np.append(starts, count)).astype(position)
            by_query = np.argsort(block_query, kind="stable")
            blocks = np.repeat(starts[by_query] - np.concatenate(([0], np.cumsum(lengths[by_query])[:-1])),
                               lengths[by_query]).astype(position)
            blocks += np.arange(count, dtype=position)
        # ties lie within blocks: ordered where they are (moving blocks keeps their order)
        return blocks, None if ties_in_order else _tie_fix(query, scores, docnos, index, descending, None)
    order = np.lexsort((-scores, query))                             # stable
    fix = _tie_fix(query[order], scores[order], docnos, index, descending, order)
    if fix is not None:
        order[fix[0]] = order[fix[1]]
    return order, None


def _tie_fix(query: np.ndarray, scores: np.ndarray, docnos, index: np.ndarray | None, descending: bool,
             order: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """For lines in order of query and score (position i holds line
    ``order[i]``, or i): (positions, sources) putting tied scores in docno
    order by ``x[positions] = x[sources]``, or None when they are so
    already."""
    tie = (query[1:] == query[:-1]) & (scores[1:] == scores[:-1])
    tied = np.flatnonzero(tie)
    if not len(tied):
        return None
    members = np.union1d(tied, tied + 1)                              # positions in tied groups
    line = members if order is None else order[members]
    rank = docnos.rank(line if index is None else index[line]) * (1 if descending else -1)
    position = np.searchsorted(members, tied)
    if (rank[position] > rank[position + 1]).all():                  # in docno order already
        return None
    starts_group = np.ones(len(members), dtype=bool)                  # not tied to the position before
    starts_group[1:] = ~tie[members[1:] - 1]
    return members, members[np.lexsort((-rank, np.cumsum(starts_group)))]
