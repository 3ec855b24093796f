"""--fill-qrels: the holes of a human pool filled by a model. Documents the
qrels leave unjudged (absent, or graded below 0: in the pool, not judged)
take the filler's grade, on the queries the qrels judge; every judgement of
the qrels stays as it is. The merged judgements say which rows the filler
gave (``Qrels.filled``), so a run's share of its top k judged by each set
can be counted (the judged_qrels and judged_fill measures)."""

from __future__ import annotations

import numpy as np

from .inputs import Qrels, read_qrels
from .source import Source


def fill_holes(first: Qrels, filler: Qrels) -> tuple[Qrels, dict]:
    """(the merged judgements, counts for the notes: filled, judged,
    queries of the filler the qrels lack)."""
    first_grades = first.grade_of(first.grades)
    match = first.rows_in(filler)                                     # (J1,) the filler's row, -1 none
    filler_grades = filler.grade_of(filler.grades)
    # the first's unjudged rows the filler judges
    take = (first_grades < 0) & (match >= 0) & (filler_grades[np.maximum(match, 0)] >= 0)
    grades = np.where(take, filler_grades[np.maximum(match, 0)], first_grades)
    # the filler's rows on the first's queries that the first does not hold
    known = set(first.qids)
    on_query = np.array([qid in known for qid in filler.qids], dtype=bool)[filler.query_index]
    extra = on_query & (filler.rows_in(first) < 0) & (filler_grades >= 0)
    qids = [first.qids[q].encode("utf-8", "surrogateescape") for q in first.query_index.tolist()] + \
           [filler.qids[q].encode("utf-8", "surrogateescape") for q in filler.query_index[extra].tolist()]
    docnos = first.docnos.take(first.line_of_row).to_list() + \
        filler.docnos.take(filler.line_of_row[extra]).to_list()
    values = np.concatenate([grades, filler_grades[extra]])
    merged = read_qrels(Source(_table(qids, docnos, values), name=first.path, kind="qrels"))
    merged.path = first.path
    # a row the filler gave: one the qrels lack, or one they hold unjudged that now has a grade
    in_first = merged.rows_in(first)
    merged.filled = ((in_first < 0) | (first_grades[np.maximum(in_first, 0)] < 0)) & \
        (merged.grade_of(merged.grades) >= 0)
    lacking = len({qid for qid in filler.qids if qid not in known})
    return merged, {"filled": int(merged.filled.sum()), "judged": int((first_grades >= 0).sum()),
                    "queries_left_out": lacking}


def _table(qids: list[bytes], docnos: list[bytes], grades: np.ndarray):
    """A qrels table of float grades (integers read as such)."""
    import pyarrow as pa

    from .strings import ByteStrings
    return pa.Table.from_arrays([ByteStrings.from_list(qids).to_arrow(), ByteStrings.from_list(docnos).to_arrow(),
                                 pa.array(grades, type=pa.float64())], names=["qid", "docno", "relevance"])
