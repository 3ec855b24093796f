"""ranx's Qrels and Run read where ranx keeps them: a numba typed dict of
typed dicts ({qid: {docno: value}}). Going through ranx's ``to_dict()``
boxes every entry into Python one at a time (30 times the cost of reading
the same run from a file); instead a small compiled function (numba, which
ranx itself needs) copies the identifiers' UTF-8 bytes and the values into
flat arrays, and pyarrow wraps those buffers as the table's columns without
a Python loop over entries.
"""

from __future__ import annotations

import numpy as np
from numba import njit  # ranx's own dependency: this module is imported only for ranx's objects


@njit(cache=True)
def utf8_length(text) -> int:
    """Bytes of ``text`` in UTF-8."""
    size = 0
    for char in text:
        code = ord(char)
        size += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return size


@njit(cache=True)
def put_utf8(text, out, at: int) -> int:
    """Write ``text`` as UTF-8 into ``out`` from ``at``; returns the end."""
    for char in text:
        code = ord(char)
        if code < 0x80:
            out[at] = code
            at += 1
        elif code < 0x800:
            out[at], out[at + 1] = 0xC0 | (code >> 6), 0x80 | (code & 0x3F)
            at += 2
        elif code < 0x10000:
            out[at], out[at + 1], out[at + 2] = 0xE0 | (code >> 12), 0x80 | ((code >> 6) & 0x3F), 0x80 | (code & 0x3F)
            at += 3
        else:
            out[at], out[at + 1] = 0xF0 | (code >> 18), 0x80 | ((code >> 12) & 0x3F)
            out[at + 2], out[at + 3] = 0x80 | ((code >> 6) & 0x3F), 0x80 | (code & 0x3F)
            at += 4
    return at


@njit(cache=True)
def flatten(nested):
    """{qid: {docno: value}} as flat arrays: the qids' UTF-8 bytes and offsets,
    each qid's entry count, the docnos' bytes and offsets, the values.
    str(): ranx may hold short identifiers as fixed-size character arrays."""
    queries, entries, query_bytes, doc_bytes = len(nested), 0, 0, 0
    for query, inner in nested.items():
        query_bytes += utf8_length(str(query))
        entries += len(inner)
        for doc in inner:
            doc_bytes += utf8_length(str(doc))
    query_text = np.empty(query_bytes, np.uint8)
    query_offsets = np.zeros(queries + 1, np.int64)
    counts = np.empty(queries, np.int64)
    doc_text = np.empty(doc_bytes, np.uint8)
    doc_offsets = np.zeros(entries + 1, np.int64)
    values = np.empty(entries, np.float64)
    q, e, qat, dat = 0, 0, 0, 0
    for query, inner in nested.items():
        qat = put_utf8(str(query), query_text, qat)
        query_offsets[q + 1] = qat
        counts[q] = len(inner)
        for doc, value in inner.items():
            dat = put_utf8(str(doc), doc_text, dat)
            doc_offsets[e + 1] = dat
            values[e] = value
            e += 1
        q += 1  # noqa: SIM113 - numba's typed dict items, counted by hand
    return query_text, query_offsets, counts, doc_text, doc_offsets, values


def ranx_table(given, value_column: str):
    """A ranx Qrels or Run as a pyarrow Table (qid, docno, ``value_column``),
    and the queries it holds with no document."""
    import warnings

    import pyarrow as pa
    nested = given.qrels if hasattr(given, "qrels") else given.run
    with warnings.catch_warnings():           # numba's notes (a cache folder it cannot write: no cache)
        warnings.simplefilter("ignore")
        query_text, query_offsets, counts, doc_text, doc_offsets, values = flatten(nested)
    queries = pa.Array.from_buffers(pa.large_string(), len(counts),
                                    [None, pa.py_buffer(query_offsets), pa.py_buffer(query_text)])
    documents = pa.Array.from_buffers(pa.large_string(), len(values),
                                      [None, pa.py_buffer(doc_offsets), pa.py_buffer(doc_text)])
    qids = queries.take(pa.array(np.repeat(np.arange(len(counts)), counts)))
    table = pa.table({"qid": qids.cast(pa.string()), "docno": documents.cast(pa.string()),
                      value_column: values if value_column == "score" else values.astype(np.int64)})
    empty = queries.take(pa.array(np.flatnonzero(counts == 0))).to_pylist() if (counts == 0).any() else []
    return table, empty
