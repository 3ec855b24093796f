"""Reading TREC qrels and run files into plain arrays.

Parsing happens here and only here. The fast path hands the whole buffer to
``numpy.loadtxt`` (C speed); when anything looks wrong, a slow line-by-line
validator re-reads the text to name the exact file and line of the first
problem. Documents are identified by a 64-bit hash of their (qid, docno)
bytes; every hash hit is verified against the actual bytes, so the hash only
speeds up look-ups and never decides an answer.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import sys
import warnings
import zlib
from dataclasses import dataclass

import numpy as np

from .errors import InputError

RUN_COLUMNS = "qid iter docno rank score [tag]"
QRELS_COLUMNS = "qid iter docno grade"


# ---------------------------------------------------------------- raw bytes


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


def read_bytes(path: str) -> bytes:
    """The whole file as bytes; ``-`` is standard input; gzip is undone."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(path, "cannot read: permission denied") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(path, f"not a valid gzip file ({exc})") from None
    return data


_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def _blank_comment_lines(data: bytes) -> bytes:
    """Empty every line whose first non-blank character is '#' (as trec_eval
    skips them), keeping the line count so that line numbers stay true."""
    if b"#" not in data:
        return data
    return _COMMENT_LINE.sub(b"", data)


def _load_columns(data: bytes, fields: list[tuple[str, str]], usecols) -> np.ndarray:
    """``numpy.loadtxt`` over the whole buffer into a structured array.

    String fields start 64 bytes wide; loadtxt silently truncates longer
    strings, so a field that fills its width is loaded again, wider.
    Raises ValueError on any malformed line (the caller then locates it).
    """
    width = 64
    while True:
        dtype = [(name, f"S{width}" if kind == "S" else kind) for name, kind in fields]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data"
            table = np.loadtxt(io.BytesIO(data), dtype=dtype, usecols=usecols,
                               comments=None, ndmin=1)
        full = [name for name, kind in fields
                if kind == "S" and len(table) and
                np.ascontiguousarray(table[name]).view(np.uint8).reshape(len(table), width)[:, -1].any()]
        if not full:
            return table
        width *= 4


# ---------------------------------------------------------------- hashing

_WORD_MULTIPLIERS = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
     0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x94D049BB133111EB, 0xBF58476D1CE4E5B9],
    dtype=np.uint64)


def _padded_words(strings: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings (n,) as big-endian 64-bit words (n, w/8)."""
    width = strings.dtype.itemsize
    padded = -(-width // 8) * 8
    raw = np.zeros((len(strings), padded), dtype=np.uint8)
    raw[:, :width] = np.ascontiguousarray(strings).view(np.uint8).reshape(len(strings), width)
    return raw.view(">u8").astype(np.uint64)


def string_hash(strings: np.ndarray) -> np.ndarray:
    """64-bit hash of each fixed-width byte string, independent of the width
    (NUL padding adds nothing), so arrays of different widths agree."""
    words = _padded_words(strings)
    hashed = np.zeros(len(strings), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            multiplier = _WORD_MULTIPLIERS[j % len(_WORD_MULTIPLIERS)] + np.uint64(2 * (j // 8))
            hashed ^= (words[:, j] * multiplier) ^ (words[:, j] >> np.uint64(29))
            hashed = (hashed << np.uint64(7)) | (hashed >> np.uint64(57))
    return hashed


def pair_hash(qids: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Hash of (qid, docno) pairs: shape (n,) uint64."""
    with np.errstate(over="ignore"):
        return string_hash(docnos) ^ (string_hash(qids) * np.uint64(0x2545F4914F6CDD1D))


def _group_starts(values: np.ndarray) -> np.ndarray:
    """Indices where a run of equal consecutive values begins."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------- qrels


@dataclass
class Qrels:
    """Relevance judgements, one row per judged (query, document).

    ``qids`` are the judged queries in byte order (trec_eval's query order);
    rows are sorted by ``keys`` (the (qid, docno) hash) for look-ups.
    ``level_counts[q, g]`` counts the documents of query q judged with grade
    g >= 0 (negative grades mean "in the pool but not judged").
    """

    path: str
    qids: list[str]
    keys: np.ndarray          # (J,) uint64, sorted
    query_index: np.ndarray   # (J,) int32, into qids
    docnos: np.ndarray        # (J,) fixed-width bytes
    grades: np.ndarray        # (J,) int64
    level_counts: np.ndarray  # (Q, max_grade + 1) int64

    def num_relevant(self, level: int) -> np.ndarray:
        """Relevant documents per query at relevance level ``level``: (Q,)."""
        return self.level_counts[:, max(level, 0):].sum(axis=1)

    def num_judged_nonrelevant(self, level: int) -> np.ndarray:
        """Documents judged (grade >= 0) but below ``level``: (Q,)."""
        return self.level_counts[:, :max(level, 0)].sum(axis=1)

    def query_lookup(self) -> dict[bytes, int]:
        return {qid.encode("utf-8", "surrogateescape"): index for index, qid in enumerate(self.qids)}


def read_qrels(path: str) -> Qrels:
    """Parse a qrels file (``qid iter docno grade``)."""
    original = read_bytes(path)
    data = _blank_comment_lines(original)
    try:
        table = _load_columns(data, [("qid", "S"), ("iter", "S"), ("docno", "S"), ("grade", "i8")], None)
    except ValueError:
        _raise_first_qrels_problem(path, original)
        raise InputError(path, "could not be parsed as qrels") from None
    if len(table) == 0:
        raise InputError(path, "no judgements (empty qrels file)")
    grades = table["grade"]
    if grades.max() > 100_000:
        _raise_first_qrels_problem(path, original)
    keys = pair_hash(table["qid"], table["docno"])
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    table = table[order]
    repeated = np.flatnonzero(keys[1:] == keys[:-1])
    if len(repeated):
        same = (table["qid"][repeated] == table["qid"][repeated + 1]) & \
               (table["docno"][repeated] == table["docno"][repeated + 1])
        if same.any():
            _raise_first_qrels_problem(path, original)
        raise InputError(path, "internal hash collision; please report this qrels file")
    qid_bytes, query_index = np.unique(table["qid"], return_inverse=True)
    qids = [_decode(q) for q in qid_bytes.tolist()]
    grades = table["grade"]
    max_grade = max(int(grades.max()), 0)
    judged = grades >= 0
    level_counts = np.zeros((len(qids), max_grade + 1), dtype=np.int64)
    np.add.at(level_counts, (query_index[judged], grades[judged]), 1)
    return Qrels(path=path, qids=qids, keys=keys, query_index=query_index.astype(np.int32),
                 docnos=table["docno"], grades=grades.astype(np.int64), level_counts=level_counts)


def _raise_first_qrels_problem(path: str, data: bytes) -> None:
    """Find the first bad qrels line and raise an InputError naming it."""
    seen: dict[tuple[bytes, bytes], int] = {}
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != 4:
            raise InputError(path, f"expected 4 columns ({QRELS_COLUMNS}), found {len(fields)}", number)
        try:
            grade = int(fields[3])
        except ValueError:
            raise InputError(path, f"grade '{_decode(fields[3])}' is not an integer", number) from None
        if abs(grade) > 100_000:
            raise InputError(path, f"grade {grade} is out of range (|grade| <= 100000)", number)
        key = (fields[0], fields[2])
        if key in seen:
            raise InputError(path, f"document '{_decode(fields[2])}' is judged twice for query "
                                   f"'{_decode(fields[0])}' (first on line {seen[key]})", number)
        seen[key] = number


# ---------------------------------------------------------------- runs


@dataclass
class ParsedRun:
    """One run, reduced to what evaluation needs.

    For every qrels query q (in ``Qrels.qids`` order) the run ranked
    ``counts[q]`` documents; their relevance codes, in rank order, are
    ``codes[offsets[q]:offsets[q + 1]]``. A code is the document's grade when
    it was judged, -1 when it is not in the qrels and -2 when the qrels give it
    a negative grade (in the pool, unjudged): trec_eval's conventions.
    ``doc_keys`` (same layout) hash each ranked docno, for measures that
    compare documents across runs.
    """

    name: str
    tag: str
    path: str
    present: np.ndarray   # (Q,) bool: the run has lines for this query
    counts: np.ndarray    # (Q,) int64
    codes: np.ndarray     # (sum counts,) int32
    doc_keys: np.ndarray  # (sum counts,) uint64
    num_lines: int

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.counts)))


NOT_IN_QRELS = -1
UNJUDGED = -2


def read_run(path: str, qrels: Qrels, depth: int | None = None) -> ParsedRun:
    """Parse a run file (``qid iter docno rank score [tag]``) against qrels.

    Documents are ordered per query by score descending, ties by docno
    descending (byte-wise), exactly as trec_eval; the rank column is
    ignored. ``depth`` keeps only the top ``depth`` documents per query.
    """
    original = read_bytes(path)
    data = _blank_comment_lines(original)
    try:
        table = _load_columns(data, [("qid", "S"), ("docno", "S"), ("score", "f8")], (0, 2, 4))
    except ValueError:
        _raise_first_run_problem(path, original)
        raise InputError(path, "could not be parsed as a run") from None
    if len(table) == 0:
        raise InputError(path, "empty run: no result lines")
    scores = table["score"]
    if np.isnan(scores).any():
        _raise_first_run_problem(path, original)
    keys = pair_hash(table["qid"], table["docno"])
    sorted_keys = np.sort(keys)
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        _raise_first_run_problem(path, original)  # a docno twice in one query (or a hash clash)

    # map each line's qid to its qrels query index (-1: not judged, ignored)
    lookup = qrels.query_lookup()
    starts = _group_starts(table["qid"])
    lengths = np.diff(np.append(starts, len(table)))
    block_query = np.array([lookup.get(q, -1) for q in table["qid"][starts].tolist()], dtype=np.int64)
    query = np.repeat(block_query, lengths)
    kept = query >= 0
    if not kept.all():
        table, query, keys = table[kept], query[kept], keys[kept]
        scores = table["score"]

    # trec_eval's order: query, score descending, docno descending
    order = np.lexsort((-scores, query))
    tied = (query[order][1:] == query[order][:-1]) & (scores[order][1:] == scores[order][:-1])
    if tied.any():
        order = np.lexsort((table["docno"], scores, -query))[::-1]
    query, keys, docnos = query[order], keys[order], table["docno"][order]

    num_queries = len(qrels.qids)
    counts = np.bincount(query, minlength=num_queries).astype(np.int64)
    present = counts > 0
    if depth is not None and (counts > depth).any():
        first = np.concatenate(([0], np.cumsum(counts)))[query]
        keep = np.arange(len(query)) - first < depth
        query, keys, docnos = query[keep], keys[keep], docnos[keep]
        counts = np.minimum(counts, depth)

    codes = _relevance_codes(qrels, query, keys, docnos)
    return ParsedRun(name=run_name(path), tag=_last_tag(data) or run_name(path), path=path,
                     present=present, counts=counts, codes=codes,
                     doc_keys=string_hash(docnos), num_lines=int(kept.size))


def _relevance_codes(qrels: Qrels, query: np.ndarray, keys: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Grade (or -1 / -2) of each ranked document, verified byte for byte."""
    position = np.searchsorted(qrels.keys, keys)
    position[position == len(qrels.keys)] = 0
    found = (qrels.keys[position] == keys) & (qrels.query_index[position] == query)
    found &= qrels.docnos[position] == docnos
    grades = qrels.grades[position]
    codes = np.where(found, np.where(grades >= 0, grades, UNJUDGED), NOT_IN_QRELS)
    return codes.astype(np.int32)


def _last_tag(data: bytes) -> str:
    """The tag (6th column) of the last line: trec_eval's runid."""
    for line in reversed(data.rstrip().rsplit(b"\n", 2)):
        fields = line.split()
        if len(fields) >= 6:
            return _decode(fields[5])
        if fields:
            return ""
    return ""


def _raise_first_run_problem(path: str, data: bytes) -> None:
    """Find the first bad run line and raise an InputError naming it."""
    seen: dict[tuple[bytes, bytes], int] = {}
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 5:
            raise InputError(path, f"expected 6 columns, found {len(fields)} ({RUN_COLUMNS})", number)
        try:
            score = float(fields[4])
        except ValueError:
            raise InputError(path, f"score '{_decode(fields[4])}' is not a number", number) from None
        if math.isnan(score):
            raise InputError(path, "score is NaN", number)
        key = (fields[0], fields[2])
        if key in seen:
            raise InputError(path, f"document '{_decode(fields[2])}' appears twice for query "
                                   f"'{_decode(fields[0])}' (first on line {seen[key]})", number)
        seen[key] = number
