"""Fractional grades: a language model's probability, an average of
judges (0.5, 1.25). The measures read integer relevance codes; qrels whose
grades are not all integers are read as codes, and the codes' grades kept:

- grade 0 is code 0, each distinct positive grade a code 1, 2, ... in
  increasing order, a negative grade (in the pool, not judged) code -1;
- ``grade_values[code]`` is the grade again (float64, increasing, 0 first):
  gain-based measures take it as the gain, and a relevance level (``-l``,
  ``rel=``) becomes the least code whose grade reaches it.

Qrels of integer grades (and grades written 1.0) are read as they always
were: the code is the grade and ``grade_values`` is None.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, UsageError
from .blocks import iter_blocks
from .grades import codes_of
from .strings import judgement_table
from .textfile import data_fields, grade_problem, parse_float


def read_fractional(source) -> tuple[object, np.ndarray | None, list[int] | None]:
    """(a table of integer codes to read as qrels, grade_values or None
    where every grade is an integer, each row's line in the file or None
    for a table) of a qrels source with a fractional grade."""
    if source.is_text:
        if source.path == "-":
            raise UsageError("qrels with fractional grades are read from a file, not standard input")
        qids, docnos, grades, lines = _text_judgements(source.path)
    else:
        qids, docnos, grades = _table_judgements(source)
        lines = None
    if np.all(grades == np.round(grades)):
        return judgement_table(qids, docnos, grades.astype(np.int64).tolist()), None, lines
    codes, values = codes_of(grades)
    return judgement_table(qids, docnos, codes.tolist()), values, lines


def _text_judgements(path: str):
    qids, docnos, grades, lines = [], [], [], []
    number = 0
    for block in iter_blocks(path):
        for line in bytes(block).split(b"\n")[:-1]:
            number += 1
            fields = data_fields(line, path, number)
            if fields is None:
                continue
            if len(fields) != 4:
                raise InputError(path, f"{len(fields)} columns; a qrels line has 4 (qid iter docno grade)", number)
            value = parse_float(fields[3])
            if value is None or not math.isfinite(value):
                raise grade_problem(path, number, fields[3])
            qids.append(fields[0])
            docnos.append(fields[2])
            grades.append(value)
            lines.append(number)
    return qids, docnos, np.array(grades, dtype=np.float64), lines


def _table_judgements(source):
    import pyarrow as pa
    import pyarrow.compute as pc

    from .source import arrow_table, table_column
    where = source.path
    table = arrow_table(source.table(), "qrels", where)
    columns = {}
    for name in ("qid", "docno"):
        _, data = table_column(table, name, where)
        text = data if pa.types.is_binary(data.type) or pa.types.is_string(data.type) else pc.cast(data, pa.string())
        columns[name] = [value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
                         for value in text.to_pylist()]
    column, data = table_column(table, "grade", where)
    try:
        grades = np.asarray(pc.cast(data, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise InputError(where, f"column '{column}' does not hold numbers") from None
    bad = np.flatnonzero(~np.isfinite(grades))
    if len(bad):
        raise InputError(where, f"grade {grades[bad[0]]!r} is not a finite number", int(bad[0]) + 1, unit="row")
    return columns["qid"], columns["docno"], grades
