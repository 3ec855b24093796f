"""Where lines come from (:class:`Source`: a file, standard input, a
table in memory, a Parquet file or dataset), run names, tables' columns,
and the checks for a document twice in one query."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..cpus import jobs
from ..errors import InputError, UsageError
from . import kernel
from .blocks import iter_blocks, size_hint
from .strings import (
    ArrayBuilder,
    ByteStrings,
    have_arrow,
    mix,
    numbers,
    shown,
)
from .textfile import (
    LAYOUT_OF_CODE,
    MSMARCO_LAYOUT,
    QRELS_LAYOUT,
    Columns,
    Layout,
    block_columns,
    find_line,
)

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

    def __init__(self, given, name: str | None = None, kind: str = "run"):
        from .python_inputs import as_table, run_name_of
        self.is_file = isinstance(given, (str, os.PathLike))
        name = name or run_name_of(given)
        self.path = os.fspath(given) if self.is_file else f"<{'table' if _is_table(given) else kind} " \
                                                            f"{name or 'in memory'}>"
        # dictionaries, ranx objects and ir_measures tuples become tables
        self.data = given if self.is_file else as_table(given, self.path, kind)
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
        return self.data

    def blocks(self, layouts: list[Layout], look_up: tuple | None = None, into: dict | None = None
               ) -> Iterator[kernel.Scanned]:
        """The data lines, a block at a time: through the compiled kernel
        when it is built and takes the block, else through the Python
        reader (which names the file and line of any problem). ``look_up``
        (runs: the qrels' kernel tables) has the kernel find judgement rows
        as it reads; ``into`` has it write numbers, codes and rows in place
        (see kernel.scan)."""
        if not self.is_text:
            whole = _scanned(table_columns(self.table(), "qrels" if layouts[0] is QRELS_LAYOUT else "run", self.path,
                                           layouts[0]))
            if len(whole.docno_hash):           # an empty table has no lines, as an empty file has none
                yield whole
            return
        chosen: list[Layout] = []
        use_kernel = kernel.enabled()
        scratch = kernel.Scratch()
        first_line = 1
        blocks = iter_blocks(self.path)
        if not size_hint(self.path) and jobs() > 1:   # gzip or a pipe: the next block is read meanwhile
            blocks = prefetched(blocks)
        for block in blocks:
            piece: kernel.Scanned | None = None
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
                raise InputError(self.path, f"document '{shown(key[1])}' {verb} for query '{shown(key[0])}'", row,
                                 first_line=seen[key], unit="row")
            seen[key] = row


def _is_table(given) -> bool:
    """A DataFrame (pandas, polars) or a pyarrow Table."""
    return hasattr(given, "column_names") or (hasattr(given, "columns") and hasattr(given, "dtypes"))


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
            if parquet_ends(handle, size):
                return True
            handle.seek(0)
            head = handle.read(4)
        if head == b"PAR1" and _binary(path):
            raise InputError(path, "starts as a Parquet file but does not end as one (PAR1 and its footer): "
                                   "truncated or damaged; write it again")
        return False
    except OSError:
        return False                # reading it as text says what is wrong


def parquet_ends(handle, size: int) -> bool:
    """Whether an open file of ``size`` bytes is Parquet: PAR1 at both ends,
    and a footer that fits in the file (a text file whose first qid is
    "PAR1" is still text). Local files and a cluster's fsspec files alike."""
    head = handle.read(4)
    handle.seek(size - 8)
    tail = handle.read(8)
    return head == b"PAR1" and tail[4:] == b"PAR1" and int.from_bytes(tail[:4], "little") + 12 <= size


def _binary(path: str) -> bool:
    """Whether the file's first 64 KB hold a NUL byte (text never does)."""
    with open(path, "rb") as handle:
        return b"\x00" in handle.read(1 << 16)


#: column names accepted in tables, first choice first (PyTerrier, ir_measures, ir_datasets)
#: and ranx's (q_id, doc_id, score: ranx's qrels hold their grades in "score" too)
TABLE_COLUMNS = {"qid": ("qid", "query_id", "q_id"), "docno": ("docno", "doc_id", "docid"), "score": ("score",),
                 "grade": ("relevance", "grade", "label", "rel", "score")}


def table_column(table, name: str, where: str):
    """(its name, the column) of a pyarrow Table's column for ``name`` (qid,
    docno, score, grade) under any accepted name; none, or missing values,
    is bad input."""
    column = next((c for c in TABLE_COLUMNS[name] if c in table.column_names), None)
    if column is None:
        raise InputError(where, f"no column {' or '.join(repr(c) for c in TABLE_COLUMNS[name])} "
                                f"(columns: {', '.join(table.column_names)})")
    data = table.column(column)
    if data.null_count:
        raise InputError(where, f"column '{column}' has missing values")
    return column, data


def arrow_table(table, kind: str, where: str):
    """A pandas or polars DataFrame, or a pyarrow Table, as a pyarrow Table."""
    if not have_arrow():
        raise UsageError(f"{where}: tables in memory are read through pyarrow, which is not installed "
                         "(pip install pyarrow)")
    import pyarrow as pa
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
    return table


def table_columns(table, kind: str, where: str, layout: Layout) -> Columns:
    """A pandas or polars DataFrame, or a pyarrow Table, as Columns: qid
    and docno as byte strings (UTF-8), score (runs) or grade (qrels)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    table = arrow_table(table, kind, where)
    wanted = ("qid", "docno", "score") if kind == "run" else ("qid", "docno", "grade")
    values: dict[str, object] = {}
    for name in wanted:
        column, data = table_column(table, name, where)
        if name in ("qid", "docno"):
            text = data if pa.types.is_string(data.type) or pa.types.is_large_string(data.type) \
                or pa.types.is_binary(data.type) else pc.cast(data, pa.string())
            values[name] = ByteStrings.from_arrow(pc.cast(text, pa.binary()) if not pa.types.is_binary(text.type)
                                                  else text)
        elif name == "score":
            scores = numbers(pc.cast(data, pa.float64()))
            if np.isnan(scores).any():
                raise InputError(where, "score is NaN", int(np.flatnonzero(np.isnan(scores))[0]) + 1, unit="row")
            values[name] = scores
        else:
            try:
                values[name] = numbers(pc.cast(data, pa.int64()))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                from .grades import FractionalGrade
                try:
                    grades = numbers(pc.cast(data, pa.float64()))
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    raise InputError(where, f"column '{column}' does not hold numbers") from None
                bad = np.flatnonzero(~np.isfinite(grades))
                if len(bad):
                    raise InputError(where, f"grade {grades[bad[0]]!r} is not a finite number", int(bad[0]) + 1,
                                     unit="row") from None
                raise FractionalGrade(where, f"column '{column}' holds fractional grades") from None
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


class Groups:
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
        self.last: tuple | None = None             # (group, number, docno) of the last line so far
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


def check_repeats(source: Source, group: np.ndarray, docnos, groups: Groups, layouts: list[Layout],
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
            raise InputError(path, f"document '{shown(key[1])}' {verb} for query '{shown(key[0])}'", number,
                             first_line=seen[key])
        seen[key] = number
    find_line(path, layouts, test)
    raise InputError(path, f"a document {verb} for one query")


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
