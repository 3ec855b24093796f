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
MAX_GRADE = 10_000
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


def _load_columns(data: bytes, fields: list[tuple[str, str]], usecols) -> dict[str, np.ndarray]:
    """``numpy.loadtxt`` over the whole buffer; string columns come back as
    word matrices (see :func:`string_words`), numbers as arrays.

    loadtxt silently truncates strings longer than their field, so a
    column that fills its width is loaded again, four times wider.
    Raises ValueError on any malformed line (the caller then locates it).
    """
    widths = {name: 24 for name, kind in fields if kind == "S"}
    while True:
        dtype = [(name, f"S{widths[name]}" if kind == "S" else "S1" if kind == "ignored" else kind)
                 for name, kind in fields]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data"
            table = np.loadtxt(io.BytesIO(data), dtype=dtype, usecols=usecols,
                               comments=None, ndmin=1)
        columns, full = {}, False
        for name, kind in fields:
            if kind == "ignored":
                continue
            if kind != "S":
                columns[name] = np.ascontiguousarray(table[name])
                continue
            words = string_words(table[name])
            if len(table) and words.shape[1] * 8 >= widths[name] and (words[:, -1] & np.uint64(0xFF)).any():
                widths[name] *= 4
                full = True
            columns[name] = words
        if not full:
            return columns


# ---------------------------------------------------------------- strings as words

_WORD_MULTIPLIERS = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
     0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x94D049BB133111EB, 0xBF58476D1CE4E5B9],
    dtype=np.uint64)


def string_words(strings: np.ndarray) -> np.ndarray:
    """Fixed-width byte strings (n,) as big-endian 64-bit words (n, w).

    Columns after the longest string are dropped (w >= 1). Comparing rows
    word by word is comparing the strings byte-wise, as strcmp does.
    """
    count, width = len(strings), strings.dtype.itemsize
    padded_width = -(-width // 8) * 8
    if padded_width != width:
        strings = strings.astype(f"S{padded_width}")
    words = np.ascontiguousarray(strings).view(">u8").reshape(count, padded_width // 8)
    used = np.flatnonzero((words != 0).any(axis=0)) if count else np.zeros(0, int)
    keep = int(used[-1]) + 1 if len(used) else 1
    return words[:, :keep].astype(np.uint64)


def pad_words(words: np.ndarray, width: int) -> np.ndarray:
    """Word matrix (n, k) widened with NUL words to (n, width)."""
    if words.shape[1] >= width:
        return words
    return np.hstack([words, np.zeros((len(words), width - words.shape[1]), dtype=np.uint64)])


def same_words(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n,) whether rows of two word matrices hold the same string."""
    width = max(a.shape[1], b.shape[1])
    return (pad_words(a, width) == pad_words(b, width)).all(axis=1)


def words_to_bytes(words: np.ndarray) -> list[bytes]:
    """The strings a word matrix holds."""
    width = words.shape[1] * 8
    return np.ascontiguousarray(words.astype(">u8")).view(f"S{width}").ravel().tolist()


def words_hash(words: np.ndarray) -> np.ndarray:
    """64-bit hash of each row of a word matrix; NUL words add nothing, so
    a string hashes alike whatever its padding."""
    hashed = np.zeros(len(words), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            multiplier = _WORD_MULTIPLIERS[j % len(_WORD_MULTIPLIERS)] + np.uint64(2 * (j // 8))
            hashed ^= (words[:, j] * multiplier) ^ (words[:, j] >> np.uint64(29))
            hashed = (hashed << np.uint64(7)) | (hashed >> np.uint64(57))
    return hashed


def group_starts(words: np.ndarray) -> np.ndarray:
    """Indices where a run of equal consecutive rows begins."""
    if len(words) == 0:
        return np.zeros(0, dtype=np.int64)
    changed = (words[1:] != words[:-1]).any(axis=1)
    return np.concatenate(([0], np.flatnonzero(changed) + 1))


def pair_hash(qid_words: np.ndarray, docno_words: np.ndarray) -> np.ndarray:
    """Hash of (qid, docno) pairs: shape (n,) uint64. Qids come in blocks,
    so each block's qid is hashed once."""
    starts = group_starts(qid_words)
    lengths = np.diff(np.append(starts, len(qid_words)))
    qid_hash = np.repeat(words_hash(qid_words[starts]), lengths)
    with np.errstate(over="ignore"):
        return words_hash(docno_words) ^ (qid_hash * np.uint64(0x2545F4914F6CDD1D))


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
    qid_words: np.ndarray     # (Q, w) uint64, the qids as words (see string_words)
    docno_words: np.ndarray   # (J, w) uint64
    grades: np.ndarray        # (J,) int64
    level_counts: np.ndarray  # (Q, max_grade + 1) int64

    def num_relevant(self, level: int) -> np.ndarray:
        """Relevant documents per query at relevance level ``level``: (Q,)."""
        return self.level_counts[:, max(level, 0):].sum(axis=1)

    def query_lookup(self) -> dict[bytes, int]:
        return {qid.encode("utf-8", "surrogateescape"): index for index, qid in enumerate(self.qids)}


def read_qrels(path: str) -> Qrels:
    """Parse a qrels file (``qid iter docno grade``, exactly four columns)."""
    original = read_bytes(path)
    data = _blank_comment_lines(original)
    try:
        table = _load_columns(data, [("qid", "S"), ("iter", "ignored"), ("docno", "S"),
                                     ("grade", "i8")], None)
    except ValueError:
        _raise_first_qrels_problem(path, original)
        raise InputError(path, "could not be parsed as qrels") from None
    grades = table["grade"]
    if len(grades) == 0:
        raise InputError(path, "no judgements (empty qrels file)")
    if np.abs(grades).max() > MAX_GRADE:
        _raise_first_qrels_problem(path, original)
    keys = pair_hash(table["qid"], table["docno"])
    order = np.argsort(keys, kind="stable")
    keys, qid_words, docno_words, grades = keys[order], table["qid"][order], table["docno"][order], grades[order]
    repeated = np.flatnonzero(keys[1:] == keys[:-1])
    if len(repeated):
        same = same_words(qid_words[repeated], qid_words[repeated + 1]) & \
            same_words(docno_words[repeated], docno_words[repeated + 1])
        if same.any():
            _raise_first_qrels_problem(path, original)
        raise InputError(path, "internal hash collision; please report this qrels file")
    unique_qids, query_index = np.unique(qid_words, axis=0, return_inverse=True)
    qids = [_decode(q) for q in words_to_bytes(unique_qids)]
    query_index = query_index.ravel()
    max_grade = max(int(grades.max()), 0)
    judged = grades >= 0
    level_counts = np.zeros((len(qids), max_grade + 1), dtype=np.int64)
    np.add.at(level_counts, (query_index[judged], grades[judged]), 1)
    return Qrels(path=path, qids=qids, keys=keys, query_index=query_index.astype(np.int32),
                 qid_words=unique_qids, docno_words=docno_words, grades=grades.astype(np.int64), level_counts=level_counts)


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
        if abs(grade) > MAX_GRADE:
            raise InputError(path, f"grade {grade} is out of range (|grade| <= {MAX_GRADE})", number)
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
    ``qrels_rows`` (same layout, when asked for) gives each ranked document's
    row in the qrels (-1 if not judged): an exact identity for the judged
    documents, for measures that compare documents across runs.
    """

    name: str
    tag: str
    path: str
    present: np.ndarray   # (Q,) bool: the run has lines for this query
    counts: np.ndarray    # (Q,) int64
    codes: np.ndarray     # (sum counts,) int16
    qrels_rows: np.ndarray | None  # (sum counts,) int32, when asked for
    num_lines: int

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.counts)))


NOT_IN_QRELS = -1
UNJUDGED = -2


def read_run(path: str, qrels: Qrels, depth: int | None = None, keep_rows: bool = False) -> ParsedRun:
    """Parse a run file (``qid iter docno rank score [tag]``) against qrels.

    Documents are ordered per query by score descending, ties by docno
    descending (byte-wise), exactly as trec_eval; the rank column is
    ignored. ``depth`` keeps only the top ``depth`` documents per query;
    ``keep_rows`` keeps each document's qrels row (``qrels_rows``).
    """
    original = read_bytes(path)
    data = _blank_comment_lines(original)
    try:
        table = _load_columns(data, [("qid", "S"), ("docno", "S"), ("score", "f8")], (0, 2, 4))
    except ValueError:
        _raise_first_run_problem(path, original)
        raise InputError(path, "could not be parsed as a run") from None
    qid_words, docno_words, scores = table["qid"], table["docno"], table["score"]
    if len(scores) == 0:
        raise InputError(path, "empty run: no result lines")
    if np.isnan(scores).any():
        _raise_first_run_problem(path, original)
    keys = pair_hash(qid_words, docno_words)
    by_key = np.argsort(keys)
    sorted_keys = keys[by_key]
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        _raise_first_run_problem(path, original)  # a docno twice in one query (or a hash clash)
    codes = np.empty(len(keys), dtype=np.int16)
    rows = np.empty(len(keys), dtype=np.int32)
    codes[by_key], rows[by_key] = _relevance_codes(qrels, qid_words[by_key], sorted_keys, docno_words[by_key])

    # each line's qrels query (-1: not judged; such lines are ignored)
    lookup = qrels.query_lookup()
    starts = group_starts(qid_words)
    lengths = np.diff(np.append(starts, len(scores)))
    block_query = np.array([lookup.get(q, -1) for q in words_to_bytes(qid_words[starts])], dtype=np.int64)
    query = np.repeat(block_query, lengths)
    kept = query >= 0
    num_lines = len(scores)
    if not kept.all():
        query, docno_words, scores, codes, rows = (query[kept], docno_words[kept], scores[kept],
                                                   codes[kept], rows[kept])

    order = trec_order(query, scores, docno_words)
    query, docno_words, codes, rows = query[order], docno_words[order], codes[order], rows[order]

    counts = np.bincount(query, minlength=len(qrels.qids)).astype(np.int64)
    present = counts > 0
    if depth is not None and (counts > depth).any():
        first = np.concatenate(([0], np.cumsum(counts)))[query]
        keep = np.arange(len(query)) - first < depth
        docno_words, codes, rows = docno_words[keep], codes[keep], rows[keep]
        counts = np.minimum(counts, depth)

    return ParsedRun(name=run_name(path), tag=_last_tag(data) or run_name(path), path=path,
                     present=present, counts=counts, codes=codes,
                     qrels_rows=rows if keep_rows else None, num_lines=num_lines)


def trec_order(query: np.ndarray, scores: np.ndarray, docno_words: np.ndarray) -> np.ndarray:
    """Permutation putting lines in trec_eval's order: query, then score
    descending, then docno descending (byte-wise).

    Runs are usually written by query and descending score already; that is
    checked in linear time, and then only tied scores (if out of docno
    order) are sorted. Other files pay for a full sort.
    """
    count = len(query)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    same_query = query[1:] == query[:-1]
    starts = np.concatenate(([0], np.flatnonzero(~same_query) + 1))
    block_query = query[starts]
    if len(np.unique(block_query)) != len(block_query) or \
            not np.all((scores[1:] <= scores[:-1]) | ~same_query):
        docno_keys = tuple(docno_words[:, j] for j in range(docno_words.shape[1] - 1, -1, -1))
        return np.lexsort(docno_keys + (scores, -query))[::-1]
    order = np.arange(count)
    tie = same_query & (scores[1:] == scores[:-1])
    tied = np.flatnonzero(tie)
    if len(tied) and not _descending_rows(docno_words[tied], docno_words[tied + 1]).all():
        group = np.concatenate(([0], np.cumsum(~tie)))           # runs of equal (query, score)
        members = np.union1d(tied, tied + 1)
        descending = tuple(~docno_words[members, j] for j in range(docno_words.shape[1] - 1, -1, -1))
        order[members] = members[np.lexsort(descending + (group[members],))]
    lengths = np.diff(np.append(starts, count))
    by_query = np.argsort(block_query, kind="stable")
    moved = np.repeat(starts[by_query] - np.concatenate(([0], np.cumsum(lengths[by_query])[:-1])),
                      lengths[by_query])
    return order[moved + np.arange(count)]


def _descending_rows(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """(n,) whether each row of ``first`` sorts after the same row of
    ``second`` (word matrices compared lexicographically)."""
    differs = first != second
    column = np.argmax(differs, axis=1)
    rows = np.arange(len(first))
    return differs[rows, column] & (first[rows, column] > second[rows, column])


def _relevance_codes(qrels: Qrels, qid_words: np.ndarray, keys: np.ndarray,
                     docno_words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grade (or -1 / -2) and qrels row (or -1) of each document; every
    hash hit is checked against the qid and docno themselves. Sorted keys
    look up fastest."""
    position = np.searchsorted(qrels.keys, keys)
    position[position == len(qrels.keys)] = 0
    candidate = np.flatnonzero(qrels.keys[position] == keys)
    found = np.zeros(len(keys), dtype=bool)
    judged = position[candidate]
    found[candidate] = same_words(qrels.docno_words[judged], docno_words[candidate]) & \
        same_words(qrels.qid_words[qrels.query_index[judged]], qid_words[candidate])
    grades = qrels.grades[position]
    codes = np.where(found, np.where(grades >= 0, grades, UNJUDGED), NOT_IN_QRELS)
    return codes.astype(np.int16), np.where(found, position, -1).astype(np.int32)


def _last_tag(data: bytes) -> str:
    """The tag (6th column) of the last line: trec_eval's runid."""
    tail = data[-65536:].rstrip()
    for line in reversed(tail.rsplit(b"\n", 2)):
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
