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

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import InputError
from . import kernel
from .order import trec_order
from .source import (
    NOT_IN_QRELS,
    UNJUDGED,
    Groups,
    Source,
    check_repeats,
)
from .strings import (
    ArrayBuilder,
    ByteStrings,
    ByteStringsBuilder,
    ChunkedByteStrings,
    ShortStrings,
    decode,
)
from .textfile import (
    LAYOUT_OF_CODE,
    MAX_GRADE,
    QRELS_LAYOUT,
    RUN_LAYOUT,
    RUN_LAYOUTS,
)


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
    grade_values: np.ndarray | None = None   # fractional grades: each code's grade (io.fractional); None: code = grade
    filled: np.ndarray | None = None         # (J,) bool: the row's grade came from --fill-qrels (io.fill)

    def num_relevant(self, level: float) -> np.ndarray:
        """Relevant documents per query at relevance level ``level``: (Q,)."""
        return self.level_counts[:, max(self.level_code(level), 0):].sum(axis=1)

    def level_code(self, level: float) -> int:
        """The least relevance code whose grade reaches ``level``."""
        return level_code(level, self.grade_values)

    def grade_of(self, codes: np.ndarray) -> np.ndarray:
        """(n,) float64 the grades of relevance codes (negative ones as they are)."""
        return grades_of_codes(codes, self.grade_values)

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

    def rows_in(self, other: Qrels) -> np.ndarray:
        """(J,) int32 for each of these rows, the row of ``other`` judging the
        same (qid, docno), -1 where ``other`` does not judge it."""
        query = np.array([other.query_of.get(qid.encode("utf-8", "surrogateescape"), -1) for qid in self.qids],
                         dtype=np.int32)[self.query_index]
        docnos = self.docnos.take(self.line_of_row)
        return other.rows_of(query, docnos, docnos.hash64())

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
        index = self.index
        return kernel.tables((qid_hash[by_hash], by_hash, qids), (index.base, index.shift, index.starts, index.hash),
                             self.docnos.take(self.line_of_row), self.row_codes)


def level_code(level: float, grade_values: np.ndarray | None) -> int:
    """The least relevance code whose grade is ``level`` or more (integer
    grades: the code is the grade, so the level rounded up)."""
    if grade_values is None:
        return int(math.ceil(level))
    return int(np.searchsorted(grade_values, level, side="left")) if level > 0 else int(math.ceil(level))


def grades_of_codes(codes: np.ndarray, grade_values: np.ndarray | None) -> np.ndarray:
    """(n,) float64 each relevance code's grade; negative codes as they are."""
    codes = np.asarray(codes)
    if grade_values is None:
        return codes.astype(np.float64)
    return np.where(codes >= 0, grade_values[np.clip(codes, 0, len(grade_values) - 1)], codes.astype(np.float64))


def read_qrels(given) -> Qrels:
    """Parse qrels: a file (``qid iter docno grade``, exactly four columns)
    or a table (columns qid, docno, relevance or grade). Fractional grades
    (0.5, 1.25) are read as relevance codes with their grades kept
    (:mod:`lexeval.io.fractional`)."""
    from .fractional import read_fractional
    from .grades import FractionalGrade
    source = given if isinstance(given, Source) else Source(given, kind="qrels")
    try:
        return _read_qrels(source)
    except FractionalGrade:
        pass
    table, grade_values, lines = read_fractional(source)
    try:
        qrels = _read_qrels(Source(table, name=source.path, kind="qrels"))
    except InputError as error:             # a table's row is a line of the file
        if lines is None or error.line is None:
            raise
        raise InputError(source.path, error.message, lines[error.line - 1],
                         first_line=lines[error.first_line - 1] if error.first_line else None,
                         hint=error.hint) from None
    qrels.path = source.path
    qrels.grade_values = grade_values
    return qrels


def _read_qrels(source: Source) -> Qrels:
    path = source.path
    seen: dict[bytes, int] = {}
    # room for every line the file can hold (its shortest has 8 bytes): reserved, only used pages cost
    lines = source.size() // 8 + 16 if source.size() else 1 << 16
    groups = Groups(lines)
    grade, hash_builder = ArrayBuilder(np.int16, lines), ArrayBuilder(np.uint64, lines)
    docno_builder = ByteStringsBuilder(max(source.size(), 1 << 16), lines)
    for piece in source.blocks([QRELS_LAYOUT]):
        groups.add(piece, np.array([seen.setdefault(q, len(seen)) for q in piece.change_qids], dtype=np.int32))
        if not source.is_text and len(piece.number) and np.abs(piece.number).max() > MAX_GRADE:
            raise InputError(path, f"a grade is out of range (|grade| <= {MAX_GRADE})")
        grade.append(piece.number)              # |grade| <= 10,000: two bytes
        hash_builder.append(piece.docno_hash)
        docno_builder.append(piece.docnos)
    if len(grade) == 0:
        raise InputError(path, "no judgements (empty qrels file)")
    grades, docno_hash, docnos, group = grade.build(), hash_builder.build(), docno_builder.build(), groups.group.build()
    del grade, hash_builder, docno_builder      # each array once in memory from here on
    distinct_qids = list(seen)
    by_bytes = sorted(range(len(distinct_qids)), key=distinct_qids.__getitem__)   # strcmp order
    rank = np.empty(len(distinct_qids), dtype=np.int32)
    rank[by_bytes] = np.arange(len(distinct_qids))
    query = rank[group]
    try:
        check_repeats(source, query, docnos, groups, [QRELS_LAYOUT], 2, "is judged twice")
    except InputError as error:
        # the usual cause: judgements with a second column that means something (ndeval's subtopics)
        raise error.moved(hint="diversity judgements ('qid subtopic docno grade', a document once per subtopic) "
                               "are read with --subtopics or a diversity measure, judgement groups with -R "
                               "qrels_jg") from None
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
    tie_groups: np.ndarray | None = None   # (sum counts,) int32, when asked for: equal within a query iff tied
    hole_docnos: ByteStrings | ShortStrings | None = None   # the docnos of the documents with codes < 0, in
    #                                                          order, when asked for (ShortStrings: as spooled)

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
    ties_in_line_order: bool = False  # tied scores in the file's line order (--tie-order input), not by docno
    keep_ties: bool = False         # keep which documents tie (``tie_groups``: --tie-order expected)
    keep_holes: bool = False        # keep the unjudged documents' docnos (``hole_docnos``: --bounds' pairs)


def read_run(given, qrels: Qrels, options: ReadOptions = ReadOptions(), name: str | None = None) -> ParsedRun:
    """Parse a run against qrels: a file (``qid iter docno rank score [tag]``,
    or MS MARCO's ``qid docid rank``, where score = -rank keeps the order) or
    a table (columns qid, docno, score).

    Documents are ordered per query by score descending, ties by docno
    descending (byte-wise), exactly as trec_eval; the rank column is
    ignored. The lines are matched against the qrels one block at a time;
    what is kept per line (query, score, judgement row, docno hash and bytes)
    is what the ordering and the check for repeated documents need.
    """
    source = given if isinstance(given, Source) else Source(given, name)
    path, size = source.path, source.size()
    unknown: dict[bytes, int] = {}              # qids the qrels lack, first seen first
    # room for every line the file can hold (its shortest line has 6 bytes): reserved, only used pages cost
    lines = size // 6 + 16 if size else 1 << 16
    groups = Groups(lines)
    score_builder, code_builder = ArrayBuilder(np.float64, lines), ArrayBuilder(np.int16, lines)
    row_builder = ArrayBuilder(np.int32, lines) if options.keep_rows else None
    docno_chunks: list[ByteStrings] = []
    last: list[bytes] = []
    layout = RUN_LAYOUT
    look_up = qrels.kernel_tables if source.is_text and kernel.enabled() else None
    into = {"number": score_builder, "code": code_builder,
            **({"row": row_builder} if row_builder is not None else {})} if look_up else None
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
            score_builder.append(piece.number)
            code_builder.append(qrels.row_codes[block_row])
            if row_builder is not None:
                row_builder.append(block_row)
        docno_chunks.append(piece.docnos)
        last = piece.last_fields
    if not docno_chunks:
        raise InputError(path, "empty run: no result lines")
    group = groups.group.build()
    docnos = ChunkedByteStrings(docno_chunks)
    together = check_repeats(source, group, docnos, groups, RUN_LAYOUTS, 2 if layout is RUN_LAYOUT else 1,
                              "appears twice")
    num_lines = len(group)
    query = np.maximum(group, -1, out=group)
    del group
    score, code = score_builder.build(), code_builder.build()
    del score_builder, code_builder
    row = row_builder.build() if row_builder is not None else None
    del row_builder
    kept = np.flatnonzero(query >= 0) if unknown else None
    if unknown:
        query, score, code = query[kept], score[kept], code[kept]
        row = row[kept] if row is not None else None
    line = (kept if kept is not None else np.arange(len(code), dtype=np.int64)) if options.keep_holes else None
    descending = not options.ties_ascending
    order, fix = trec_order(query, score, docnos, kept, descending=descending,
                            ties_in_order=together and groups.ties_in_order(descending),
                            line_order=options.ties_in_line_order)
    del kept
    ties = tie_groups(query if order is None else query[order], score if order is None else score[order]) \
        if options.keep_ties else None
    del score
    counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    del query
    for values in [values for values in (code, row, line) if values is not None]:
        if fix is not None:
            values[fix[0]] = values[fix[1]]
    if order is not None:
        code = code[order]
        row = row[order] if row is not None else None
        line = line[order] if line is not None else None
    del order

    present = counts > 0
    if not source.is_file:                  # {"q3": {}} from Python: an empty ranking, not a missing query
        from .python_inputs import empty_queries
        for qid in empty_queries(source.table()):
            query = qrels.query_of.get(qid.encode("utf-8", "surrogateescape"))
            if query is not None:
                present[query] = True
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
        ties = ties[keep] if ties is not None else None
        line = line[keep] if line is not None else None
        counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    # the holes' places by flatnonzero, then taken: a boolean index of the int64 lines took ten times as long
    holes = docnos.take(line.take(np.flatnonzero(code < 0))) if line is not None else None
    del docnos, line
    tag = decode(last[5]) if len(last) >= 6 else ""
    return ParsedRun(name=tag if source.named_by_tag and tag else source.name, tag=tag or source.name, path=path,
                     present=present, counts=counts, codes=code, qrels_rows=row,
                     num_lines=num_lines, unknown_qids=[decode(q) for q in list(unknown)[:3]],
                     num_unknown=len(unknown),
                     format=layout.name, tie_groups=ties, hole_docnos=holes)


def tie_groups(query: np.ndarray, score: np.ndarray) -> np.ndarray:
    """(N,) int32 for lines in ranking order: a number per run of equal
    scores within a query, rising down the rankings."""
    starts = np.ones(len(query), dtype=bool)
    starts[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
    return (np.cumsum(starts) - 1).astype(np.int32)
