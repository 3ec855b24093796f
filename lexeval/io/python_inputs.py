"""Qrels and runs as Python users already hold them, made into tables with
lexeval's columns (qid, docno, score or relevance):

- pytrec_eval's and ranx's dictionaries, ``{qid: {docno: grade}}`` and
  ``{qid: {docno: score}}``;
- ranx's Qrels and Run objects (anything with ``to_dict()``; a Run's
  ``name`` names the run), read without importing ranx;
- ir_measures' Qrel and ScoredDoc tuples (any iterable of objects with
  ``query_id``, ``doc_id`` and ``relevance`` or ``score``).

DataFrames and pyarrow Tables are tables already (:func:`lexeval.io.source.
table_columns` finds their columns by any accepted name, ranx's ``q_id``
among them).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from numbers import Number

from ..errors import InputError


def is_nested_dict(value) -> bool:
    """Whether ``value`` is ``{qid: {docno: number}}`` (pytrec_eval, ranx)."""
    if not isinstance(value, Mapping) or not value:
        return False
    inner = next(iter(value.values()))
    if not isinstance(inner, Mapping):
        return False
    return all(isinstance(number, Number) for number in itertools.islice(inner.values(), 5))


def is_ranx(given) -> bool:
    """A ranx Qrels or Run (its numba typed dict in ``qrels`` or ``run``)."""
    held = getattr(given, "qrels", getattr(given, "run", None))
    return (type(given).__module__ or "").startswith("ranx.") and type(held).__name__ == "Dict"


def is_tuple_stream(value) -> bool:
    """Whether ``value`` is an iterable of ir_measures' Qrel or ScoredDoc
    tuples (or a list whose first item is one)."""
    if isinstance(value, (str, bytes, os.PathLike, Mapping)) or hasattr(value, "to_dict") or \
            hasattr(value, "column_names") or hasattr(value, "columns"):
        return False
    if isinstance(value, (list, tuple)):
        return bool(value) and _is_record(value[0])
    return isinstance(value, Iterable) and hasattr(value, "__next__")          # a generator of records


def _is_record(item) -> bool:
    return hasattr(item, "query_id") and hasattr(item, "doc_id") and \
        (hasattr(item, "score") or hasattr(item, "relevance"))


def as_table(given, where: str, kind: str):
    """``given`` as a pyarrow Table with lexeval's columns (qid, docno, and
    score for runs or relevance for qrels), or ``given`` itself when it is
    a path or a table already."""
    value_column = "score" if kind == "run" else "relevance"
    if is_ranx(given):                             # read from ranx's own arrays, not through to_dict()
        from .ranx_inputs import ranx_table
        return with_empty_queries(*ranx_table(given, value_column))
    if hasattr(given, "to_dict") and not hasattr(given, "columns") and not hasattr(given, "column_names"):
        given = given.to_dict()                  # ranx's Qrels and Run
    if is_nested_dict(given) or (isinstance(given, Mapping) and not given) or _all_empty(given):
        qids, docnos, values, empty = [], [], [], []
        for qid, documents in given.items():
            if not isinstance(documents, Mapping):
                raise InputError(where, f"query {qid!r} holds a {type(documents).__name__}, not "
                                        "{docno: " + ("score}" if kind == "run" else "grade}"))
            if not documents:
                empty.append(str(qid))
            for docno, value in documents.items():
                qids.append(str(qid))
                docnos.append(str(docno))
                values.append(value)
        return with_empty_queries(_table(qids, docnos, values, value_column), empty)
    if is_tuple_stream(given):
        qids, docnos, values = [], [], []
        for number, record in enumerate(given, start=1):
            if not _is_record(record):
                raise InputError(where, f"item {number}: a {type(record).__name__}, not a Qrel or ScoredDoc")
            qids.append(str(record.query_id))
            docnos.append(str(record.doc_id))
            values.append(record.score if kind == "run" else record.relevance)
        return _table(qids, docnos, values, value_column)
    return given


#: A table's schema metadata key for the queries a run holds with no document ({"q3": {}} in a dict).
EMPTY_QUERIES = b"lexeval.empty_queries"


def _all_empty(value) -> bool:
    """``{qid: {}, ...}``: every query an empty ranking."""
    return isinstance(value, Mapping) and all(isinstance(inner, Mapping) and not inner for inner in value.values())


def with_empty_queries(table, qids: list[str]):
    """``table`` noting ``qids``, queries given with an empty ranking: a run
    scores them as empty rankings (a query absent from it is missing)."""
    if not qids:
        return table
    import json
    return table.replace_schema_metadata({**(table.schema.metadata or {}), EMPTY_QUERIES: json.dumps(qids)})


def empty_queries(table) -> list[str]:
    """The queries ``table`` was given with an empty ranking (see :func:`with_empty_queries`)."""
    metadata = getattr(getattr(table, "schema", None), "metadata", None) or {}
    if EMPTY_QUERIES not in metadata:
        return []
    import json
    return json.loads(metadata[EMPTY_QUERIES])


def _table(qids: list, docnos: list, values: list, value_column: str):
    import pyarrow as pa
    return pa.table({"qid": pa.array(qids, pa.string()), "docno": pa.array(docnos, pa.string()),
                     value_column: values})


def run_name_of(given) -> str | None:
    """The name an object gives its run (a ranx Run's ``name``), if any."""
    name = getattr(given, "name", None)
    return name if isinstance(name, str) and name and not isinstance(given, (str, os.PathLike)) else None
