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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError
from .strings import (
    ArrayBuilder,
    ByteStrings,
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
    column_blocks,
    find_line,
    read_columns,
    size_hint,
)

QRELS_LAYOUT = Layout("qrels", "qid iter docno grade",
                      ((0, "qid", BYTES), (2, "docno", BYTES), (3, "grade", INTEGER)), 4, 4)
RUN_LAYOUT = Layout("run", "qid iter docno rank score [tag]",
                    ((0, "qid", BYTES), (2, "docno", BYTES), (4, "score", FLOAT)), 5, None)
MSMARCO_LAYOUT = Layout("MS MARCO", "qid docid rank",
                        ((0, "qid", BYTES), (1, "docno", BYTES), (2, "rank", INTEGER)), 3, 3)
RUN_LAYOUTS = [RUN_LAYOUT, MSMARCO_LAYOUT]

NOT_IN_QRELS = -1       # trec_eval's RELVALUE_NONPOOL
UNJUDGED = -2           # trec_eval's RELVALUE_UNJUDGED: in the qrels with a negative grade

_QUERY_SALT = np.uint64(0xD6E8FEB86659FD93)   # odd: multiplying by it is one-to-one


def run_name(path: str) -> str:
    """A run's name: the file's base name without ``input.`` and ``.gz``."""
    if path == "-":
        return "stdin"
    name = os.path.basename(path)
    if name.endswith(".gz"):
        name = name[:-3]
    if name.startswith("input."):
        name = name[len("input."):]
    return name


def distinct(strings: ByteStrings) -> tuple[np.ndarray, list[bytes]]:
    """Each string's index among the distinct strings (first-seen order),
    and those strings. Exact: equal neighbours are found by comparing bytes
    (qids come in blocks), the blocks' strings by a dict."""
    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64), []
    every = np.arange(len(strings) - 1)
    starts = np.flatnonzero(np.concatenate(([True], ~strings.equal(every, strings, every + 1))))
    if len(starts) > len(strings) // 8 + 16 and have_arrow():     # not in blocks: hash them all
        import pyarrow.compute as pc
        encoded = pc.dictionary_encode(strings.to_arrow())
        return numbers(encoded.indices).astype(np.int64), encoded.dictionary.to_pylist()
    seen: dict[bytes, int] = {}
    block_code = np.array([seen.setdefault(value, len(seen)) for value in strings.take(starts).to_list()],
                          dtype=np.int64)
    return np.repeat(block_code, np.diff(np.append(starts, len(strings)))), list(seen)


def same_strings(a: ByteStrings, a_index: np.ndarray, a_head: np.ndarray,
                 b: ByteStrings, b_index: np.ndarray, b_head: np.ndarray) -> np.ndarray:
    """(k,) whether a[a_index[i]] == b[b_index[i]]: lengths and 16-byte heads
    (given, (2, k) each), then the remaining bytes of longer strings."""
    lengths = a.lengths[a_index]
    same = (lengths == b.lengths[b_index]) & (a_head[0] == b_head[0]) & (a_head[1] == b_head[1])
    longer = np.flatnonzero(same & (lengths > 16))
    if len(longer):
        same[longer] = a.equal(a_index[longer], b, b_index[longer], skip=16)
    return same


def repeated_pairs(group: np.ndarray, docno_hash: np.ndarray, docnos) -> tuple[bool, np.ndarray]:
    """Whether some (group, docno) pair occurs on two lines, and the lines
    whose (group, docno hash) another line shares with a different docno (a
    hash clash; they need exact look-ups). ``group`` holds exact query
    numbers, ``docnos`` (ByteStrings or ChunkedByteStrings) line i's docno;
    equal hashes are candidates, the bytes decide."""
    def pair_keys():
        with np.errstate(over="ignore"):
            return mix(docno_hash ^ (group.astype(np.uint64) * _QUERY_SALT))
    keys = pair_keys()
    keys.sort()                                 # in place: no second array for huge runs
    if not (keys[1:] == keys[:-1]).any():
        return False, np.zeros(0, dtype=np.int64)
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
        return True, np.zeros(0, dtype=np.int64)
    clashing = np.union1d(first, second)
    # a group of three or more clashing lines may repeat one docno non-adjacently
    pairs = {(int(group[i]), docnos[int(i)]) for i in clashing.tolist()}
    return len(pairs) < len(clashing), clashing


class Source:
    """Where lines come from: a file (path, or '-' for standard input), or
    a table in memory (pandas, polars or pyarrow) with named columns."""

    def __init__(self, origin, name: str | None = None):
        self.origin = origin
        self.is_file = isinstance(origin, (str, os.PathLike))
        self.path = os.fspath(origin) if self.is_file else f"<table {name or 'in memory'}>"
        self.name = name or (run_name(self.path) if self.is_file else "run")

    def blocks(self, layouts: list[Layout], kind: str):
        """Columns, a block at a time."""
        if self.is_file:
            yield from column_blocks(self.path, layouts)
        else:
            yield table_columns(self.origin, kind, self.path, layouts[0])

    def size(self) -> int:
        return size_hint(self.path) if self.is_file else 0

    def first_repeat(self, layouts: list[Layout], docno_field: int, verb: str) -> None:
        """Raise at the second line (or row) naming a (qid, docno)."""
        if self.is_file:
            _first_repeat(self.path, layouts, 0, docno_field, verb)
        columns = table_columns(self.origin, "qrels" if verb == "is judged twice" else "run", self.path,
                                layouts[0])
        seen: dict[tuple[bytes, bytes], int] = {}
        for row, key in enumerate(zip(columns["qid"].to_list(), columns["docno"].to_list())):
            if key in seen:
                raise InputError(self.path, f"row {row}: document '{shown(key[1])}' {verb} for query "
                                            f"'{shown(key[0])}' (first in row {seen[key]})")
            seen[key] = row


#: column names accepted in tables, first choice first (PyTerrier, ir_measures, ir_datasets)
TABLE_COLUMNS = {"qid": ("qid", "query_id"), "docno": ("docno", "doc_id", "docid"), "score": ("score",),
                 "grade": ("relevance", "grade", "label")}


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
            raise InputError(where, f"cannot read a {type(table).__name__}: give a path, or a pandas or "
                                    "polars DataFrame or a pyarrow Table")
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
                raise InputError(where, f"row {int(np.flatnonzero(np.isnan(scores))[0])}: score is NaN")
            values[name] = scores
        else:
            try:
                values[name] = numbers(pc.cast(data, pa.int64()))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise InputError(where, f"column '{column}' does not hold integer grades") from None
    return Columns(where, layout, values, table.num_rows)


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
    """Finds judgements by (query, docno hash). Judgements are sorted by
    query, then hash; each query gets about two buckets per judgement,
    picked by the hash's top bits, so the look-ups of one query (a run lists
    a query's lines together) stay within a small, cache-resident table."""

    def __init__(self, query: np.ndarray, docno_hash: np.ndarray, num_queries: int):
        self.hash = docno_hash
        counts = np.bincount(query, minlength=num_queries)
        bits = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64) + 1
        self.shift = (64 - bits).astype(np.uint64)      # a query's bucket: its hash's top ``bits`` bits
        self.base = np.concatenate(([0], np.cumsum(2 ** bits))).astype(np.int64)
        per_bucket = np.bincount(self.buckets(query, docno_hash), minlength=int(self.base[-1]))
        self.starts = np.zeros(len(per_bucket) + 1, dtype=np.int64 if len(query) >= 2 ** 31 else np.int32)
        np.cumsum(per_bucket, out=self.starts[1:])

    def buckets(self, query: np.ndarray, docno_hash: np.ndarray) -> np.ndarray:
        return self.base[query] + (docno_hash >> self.shift[query]).view(np.int64)

    def find(self, query: np.ndarray, docno_hash: np.ndarray) -> np.ndarray:
        """(n,) the row with this query and docno hash (the first if several),
        -1 where none."""
        if len(self.hash) == 0:
            return np.full(len(query), -1, dtype=np.int64)
        bucket = self.buckets(query, docno_hash)
        low, high = self.starts[bucket], self.starts[bucket + 1]
        # first round on whole arrays (most buckets hold at most one row)
        match = (low < high) & (self.hash[np.minimum(low, len(self.hash) - 1)] == docno_hash)
        found = np.where(match, low, -1).astype(np.int64)
        active = np.flatnonzero(~match & (low + 1 < high))
        step = 1
        while len(active):
            candidate = low[active].astype(np.int64) + step
            match = self.hash[candidate] == docno_hash[active]
            found[active[match]] = candidate[match]
            going = ~match & (candidate + 1 < high[active])
            active = active[going]
            step += 1
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
    grades: np.ndarray                  # (J,) int64
    docnos: ByteStrings                 # in file order: row j's docno is docnos[line_of_row[j]]
    line_of_row: np.ndarray             # (J,) int64
    head: np.ndarray                    # (2, J) uint64: each row's docno's first 16 bytes
    clashes: dict                       # (query, docno) -> row, where two rows share a hash
    index: JudgementIndex
    level_counts: np.ndarray            # (Q, max_grade + 1) int64

    def num_relevant(self, level: int) -> np.ndarray:
        """Relevant documents per query at relevance level ``level``: (Q,)."""
        return self.level_counts[:, max(level, 0):].sum(axis=1)

    def rows_of(self, query: np.ndarray, docnos: ByteStrings, index: np.ndarray,
                docno_hash: np.ndarray, head: np.ndarray) -> np.ndarray:
        """(n,) the judgement row of each line, -1 if not judged: line i has
        qrels query ``query[i]`` and docno ``docnos[index[i]]`` (with hash
        ``docno_hash[i]`` and head ``head[:, i]``)."""
        rows = self.index.find(query, docno_hash)
        found = rows >= 0
        safe = np.where(found, rows, 0)
        same = found & same_strings(docnos, index, head, self.docnos, self.line_of_row[safe], self.head[:, safe])
        if self.clashes:
            clashing = np.flatnonzero(found & np.isin(rows, list(self.clashes.values())))
            for i in clashing.tolist():
                same[i] = True
                rows[i] = self.clashes.get((int(query[i]), docnos[int(index[i])]), -1)
        return np.where(same, rows, -1)


def read_qrels(origin) -> Qrels:
    """Parse qrels: a file (``qid iter docno grade``, exactly four columns)
    or a table (columns qid, docno, relevance or grade)."""
    source = origin if isinstance(origin, Source) else Source(origin)
    path = source.path
    if source.is_file:
        columns = read_columns(path, [QRELS_LAYOUT])
    else:
        columns = table_columns(source.origin, "qrels", path, QRELS_LAYOUT)
        if len(columns["grade"]) and np.abs(columns["grade"]).max() > MAX_GRADE:
            raise InputError(path, f"a grade is out of range (|grade| <= {MAX_GRADE})")
    if columns.num_rows == 0:
        raise InputError(path, "no judgements (empty qrels file)")
    codes, distinct_qids = distinct(columns["qid"])
    by_bytes = sorted(range(len(distinct_qids)), key=distinct_qids.__getitem__)   # strcmp order
    rank = np.empty(len(distinct_qids), dtype=np.int64)
    rank[by_bytes] = np.arange(len(distinct_qids))
    query = rank[codes]
    docnos = columns["docno"]
    docno_hash, head = docnos.digest()
    repeated, clashing = repeated_pairs(query, docno_hash, docnos)
    if repeated:
        source.first_repeat([QRELS_LAYOUT], 2, "is judged twice")
    # sorted by query, then by the hash's top bits (all the index looks at)
    query_bits = max(int(len(distinct_qids)).bit_length(), 1)
    with np.errstate(over="ignore"):
        order = np.argsort((query.astype(np.uint64) << np.uint64(64 - query_bits))
                           | (docno_hash >> np.uint64(query_bits)), kind="stable")
    row_of_line = np.empty(len(order), dtype=np.int64)
    row_of_line[order] = np.arange(len(order))
    clashes = {(int(query[line]), docnos[line]): int(row_of_line[line]) for line in clashing.tolist()}
    query, docno_hash, head, grades = query[order], docno_hash[order], head[:, order], columns["grade"][order]
    max_grade = max(int(grades.max()), 0)
    judged = grades >= 0
    width = max_grade + 1
    level_counts = np.bincount(query[judged] * width + grades[judged],
                               minlength=len(distinct_qids) * width).reshape(len(distinct_qids), width)
    ordered_qids = [distinct_qids[i] for i in by_bytes]
    return Qrels(path=path, qids=[decode(q) for q in ordered_qids],
                 query_of={q: i for i, q in enumerate(ordered_qids)}, query_index=query.astype(np.int32),
                 grades=grades.astype(np.int64), docnos=docnos,
                 line_of_row=order.astype(np.int32 if len(order) < 2 ** 31 else np.int64), head=head,
                 clashes=clashes, index=JudgementIndex(query, docno_hash, len(ordered_qids)),
                 level_counts=level_counts)


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
    run_qids: dict[bytes, int] = {}
    to_qrels: list[int] = []
    code = score = row = docno_hash = None
    docno_chunks: list[ByteStrings] = []
    last: list[bytes] = []
    layout = RUN_LAYOUT
    for columns in prefetched(source.blocks(RUN_LAYOUTS, "run")):
        if code is None:                        # room for the whole file, judged by its first block
            lines = int(columns.num_rows / max(columns.text_bytes, 1) * size * 1.05) + 16 if size else 1 << 16
            code, score, row, docno_hash = (ArrayBuilder(dtype, lines)
                                            for dtype in (np.int32, np.float64, np.int32, np.uint64))
        layout = columns.layout
        block_code = _qid_codes(columns["qid"], run_qids)
        to_qrels += [qrels.query_of.get(q, -1) for q in list(run_qids)[len(to_qrels):]]
        query = np.asarray(to_qrels, dtype=np.int64)[block_code]
        docnos = columns["docno"]
        block_hash, head = docnos.digest()
        known = np.flatnonzero(query >= 0)
        if len(known) == len(query):            # the usual case: no copies of the whole block
            block_row = qrels.rows_of(query, docnos, np.arange(len(query)), block_hash, head).astype(np.int32)
        else:
            block_row = np.full(len(block_code), -1, dtype=np.int32)
            if len(known):
                block_row[known] = qrels.rows_of(query[known], docnos, known, block_hash[known], head[:, known])
        code.append(block_code)
        score.append(-columns["rank"].astype(np.float64) if layout is MSMARCO_LAYOUT else columns["score"])
        row.append(block_row)
        docno_hash.append(block_hash)
        docno_chunks.append(docnos)
        last = columns.last_fields
    if code is None:
        raise InputError(path, "empty run: no result lines")
    code, docno_hash = code.build(), docno_hash.build()
    docnos = ChunkedByteStrings(docno_chunks)
    if repeated_pairs(code, docno_hash, docnos)[0]:
        source.first_repeat(RUN_LAYOUTS, 2 if layout is RUN_LAYOUT else 1, "appears twice")
    del docno_hash
    num_lines = len(code)
    query = np.asarray(to_qrels, dtype=np.int32)[code]
    del code
    unknown = [decode(q) for q, target in zip(run_qids, to_qrels) if target < 0]
    score, row = score.build(), row.build()
    kept = np.flatnonzero(query >= 0) if unknown else np.arange(len(query))
    if unknown:
        query, score, row = query[kept], score[kept], row[kept]
    order = trec_order(query, score, docnos, kept, descending=not options.ties_ascending)
    del score, kept, docnos
    if order is not None:
        query, row = query[order], row[order]
    del order
    grades = qrels.grades[np.maximum(row, 0)] if len(qrels.grades) else np.zeros(len(row), np.int64)
    codes = np.where(row >= 0, np.where(grades >= 0, grades, UNJUDGED), NOT_IN_QRELS).astype(np.int16)
    del grades

    counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    present = counts > 0
    keep = None
    if options.depth is not None and (counts > options.depth).any():       # -M first, as trec_eval
        first = np.concatenate(([0], np.cumsum(counts)))[query]
        keep = np.arange(len(query)) - first < options.depth
    if options.judged_only:                                                  # then -J
        keep = (codes >= 0) if keep is None else keep & (codes >= 0)
    if keep is not None:
        query, codes, row = query[keep], codes[keep], row[keep]
        counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    tag = decode(last[5]) if len(last) >= 6 else ""
    return ParsedRun(name=source.name, tag=tag or source.name, path=path, present=present,
                     counts=counts, codes=codes, qrels_rows=row.astype(np.int32) if options.keep_rows else None,
                     num_lines=num_lines, unknown_qids=unknown[:3], num_unknown=len(unknown),
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


def _qid_codes(qids: ByteStrings, seen: dict[bytes, int]) -> np.ndarray:
    """(n,) int32 index of each line's qid among the run's distinct qids
    (first-seen order); ``seen`` grows with the new ones."""
    local, distinct_qids = distinct(qids)
    mapping = np.array([seen.setdefault(q, len(seen)) for q in distinct_qids], dtype=np.int32)
    return mapping[local]


def trec_order(query: np.ndarray, scores: np.ndarray, docnos, index: np.ndarray,
               descending: bool = True) -> np.ndarray | None:
    """Permutation putting lines in trec_eval's order: query, then score
    descending, then docno descending (byte-wise; ascending if not
    ``descending``, as trec_eval orders runs for preference judgements);
    None when the lines are in that order already. Line i's docno is
    ``docnos[index[i]]``.

    Runs are usually written by query and descending score already; that is
    checked in linear time, and then only tied scores are ordered by docno.
    Other files pay for a sort by (query, score).
    """
    count = len(query)
    if count == 0:
        return None
    boundaries = np.flatnonzero(query[1:] != query[:-1]) + 1       # where a query's block starts
    block_query = query[np.concatenate(([0], boundaries))]
    rises = np.flatnonzero(scores[1:] > scores[:-1]) + 1            # a score may rise only at a block start
    grouped = len(np.unique(block_query)) == len(block_query)
    if grouped and np.isin(rises, boundaries).all():
        order = None
        if not (block_query[1:] > block_query[:-1]).all():           # move whole blocks into query order
            starts = np.concatenate(([0], boundaries))
            lengths = np.diff(np.append(starts, count))
            by_query = np.argsort(block_query, kind="stable")
            moved = np.repeat(starts[by_query] - np.concatenate(([0], np.cumsum(lengths[by_query])[:-1])),
                              lengths[by_query])
            order = moved + np.arange(count)
    else:
        order = np.lexsort((-scores, query))                         # stable
    ordered_query = query if order is None else query[order]
    ordered_scores = scores if order is None else scores[order]
    tie = (ordered_query[1:] == ordered_query[:-1]) & (ordered_scores[1:] == ordered_scores[:-1])
    del ordered_query, ordered_scores
    tied = np.flatnonzero(tie)
    if len(tied):
        members = np.union1d(tied, tied + 1)                          # positions in tied groups
        line = members if order is None else order[members]
        rank = docnos.rank(index[line]) * (1 if descending else -1)
        position = np.searchsorted(members, tied)
        if not (rank[position] > rank[position + 1]).all():           # not already in docno order
            group = np.cumsum(np.concatenate(([True], ~tie)))[members]
            if order is None:
                order = np.arange(count)
            order[members] = line[np.lexsort((-rank, group))]
    return order
