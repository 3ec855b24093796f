"""Measures over several sets of judgements of the same queries (trec_eval's
``-R qrels_jg``: a qrels whose second column names the judgement group, e.g.
the assessor). Each group's judgements are evaluated as an ordinary qrels,
and a query's value is the mean over the groups that judge it, in group
order (trec_eval's m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c):

- map_avgjg: average precision, averaged over the groups;
- P_avgjg.k: precision at k, averaged over the groups;
- Rprec_mult_avgjg.f: precision at f * R, R each group's relevant count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from ..rankings import Rankings
from .precision import average_precision, precision, r_precision_multiples

NOT_IN_QRELS, UNJUDGED = -1, -2     # relevance codes of the rankings (io.inputs)


@dataclass(frozen=True)
class JudgementGroups:
    """Per ordinary qrels row, its grade in each judgement group.

    ``codes[j, g]``: row j's relevance code in group g (its grade, -2 for a
    negative grade, -1 where g does not judge the document);
    ``level_counts[g]`` (Q, W) judged documents per grade >= 0;
    ``judges[g, q]``: group g judges query q. Groups are in byte order."""

    names: list[bytes]
    query_of: dict              # qid -> query index here (rankings may hold fewer queries)
    codes: np.ndarray           # (J, G) int16
    level_counts: np.ndarray    # (G, Q, W) int64
    judges: np.ndarray          # (G, Q) bool
    judged_only: bool           # -J: each group's unjudged documents leave its rankings

    @classmethod
    def build(cls, qrels, judgements, judged_only: bool = False) -> JudgementGroups:
        """``qrels``: the ordinary Qrels made from ``judgements`` (GroupedJudgements)."""
        names = sorted(set(judgements.group))
        group_of = {name: g for g, name in enumerate(names)}
        qid_bytes = [qid.encode("utf-8", "surrogateescape") for qid in qrels.qids]
        row_of = {(qid_bytes[int(q)], qrels.docnos[int(line)]): row for row, (q, line) in
                  enumerate(zip(qrels.query_index.tolist(), qrels.line_of_row.tolist()))}
        rows = np.array([row_of[(qid, docno)] for qid, docno in zip(judgements.qid, judgements.docno)],
                        dtype=np.int64)
        groups = np.array([group_of[name] for name in judgements.group], dtype=np.int64)
        grades = judgements.level.astype(np.int64)
        codes = np.full((len(qrels.grades), len(names)), NOT_IN_QRELS, dtype=np.int16)
        codes[rows, groups] = np.where(grades >= 0, grades, UNJUDGED)
        queries = qrels.query_index[rows].astype(np.int64)
        num_queries, width = len(qrels.qids), max(int(grades.max()), 0) + 1
        judged = grades >= 0
        level_counts = np.bincount((groups[judged] * num_queries + queries[judged]) * width + grades[judged],
                                   minlength=len(names) * num_queries * width
                                   ).reshape(len(names), num_queries, width)
        judges = np.zeros((len(names), num_queries), dtype=bool)
        judges[groups, queries] = True
        return cls(names, {qid: q for q, qid in enumerate(qrels.qids)}, codes, level_counts, judges, judged_only)

    def queries(self, rankings: Rankings) -> np.ndarray:
        """(Q,) the index here of each of the rankings' queries."""
        return np.array([self.query_of[qid] for qid in rankings.qids], dtype=np.int64)

    def rankings_of(self, rankings: Rankings, group: int) -> Rankings:
        """The rankings as group ``group`` judges them."""
        rows = cast(np.ndarray, rankings.qrels_rows)
        codes = np.where(rows >= 0, self.codes[np.maximum(rows, 0), group], NOT_IN_QRELS).astype(np.int16)
        judged = replace(rankings, codes=codes, level_counts=self.level_counts[group][self.queries(rankings)])
        return judged.judged_only() if self.judged_only else judged


def _averaged(kernel):
    """A kernel's values averaged over the judgement groups of each query."""
    def over_groups(r: Rankings, params=()) -> np.ndarray:
        groups = r.groups
        judges = groups.judges[:, groups.queries(r)][:, r.segment_query]      # (G, S)
        total: Any = None
        for group in range(len(groups.names)):              # in group order, as trec_eval adds
            values = kernel(groups.rankings_of(r, group), params).reshape(r.num_segments, -1)
            values = np.where(judges[group][:, None], values, 0.0)
            total = values if total is None else total + values
        count = judges.sum(axis=0)[:, None]
        return np.where(count > 1, total / np.maximum(count, 1), total)
    over_groups.__doc__ = kernel.__doc__
    return over_groups


map_avgjg = _averaged(average_precision)
map_avgjg.__doc__ = "map_avgjg: average precision per judgement group, averaged over the query's groups."
P_avgjg = _averaged(precision)
P_avgjg.__doc__ = "P_avgjg.k: precision at k per judgement group, averaged over the query's groups."
Rprec_mult_avgjg = _averaged(r_precision_multiples)
Rprec_mult_avgjg.__doc__ = ("Rprec_mult_avgjg.f: precision at f * R per judgement group (R its relevant "
                            "documents), averaged over the query's groups.")
