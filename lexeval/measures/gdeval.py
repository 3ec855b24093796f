"""Measures with exponential gains, as learning-to-rank papers and the TREC
Web track's gdeval compute them: ERR@k (Chapelle et al., "Expected
Reciprocal Rank for Graded Relevance", CIKM 2009) and nDCG@k with gains
2^grade - 1 and a log2 discount (Burges et al. 2005; ranx's ndcg_burges).

Documents are in trec_eval's order (score descending, docno descending),
which is gdeval's order too. Negative grades gain nothing.
"""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings, running_sum
from .base import per_cutoff, ratio
from .gains import Gains, Ideal, gaining

#: gdeval's largest grade: ERR's stopping probability is (2^g - 1) / 2^4.
MAX_GRADE = 4


def expected_reciprocal_rank(r: Rankings, cutoffs) -> np.ndarray:
    """err.k: expected reciprocal rank of the top k, sum over ranks i of
    R_i / i times the chance the user was not satisfied above i, with
    R = (2^grade - 1) / 2^4 (grades above 4 count as 4, where gdeval stops)."""
    index, segment, rank = r.locate(r.codes > 0)
    grade = np.minimum(r.grades(r.codes[index]), MAX_GRADE)
    stop = (2.0 ** grade - 1.0) / 2.0 ** MAX_GRADE
    counts = np.bincount(segment, minlength=r.num_segments)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    # log of the chance of going on past each satisfying document, summed in rank order
    going_on = running_sum(np.log1p(-stop), starts, counts)
    reached = np.exp(going_on - np.log1p(-stop))            # not satisfied above this document

    def at(cutoff):
        within = rank <= cutoff
        return np.bincount(segment[within], weights=(stop * reached / rank)[within], minlength=r.num_segments)
    return per_cutoff(at, cutoffs)


def exponential_gains(r: Rankings) -> Gains:
    """Gain 2^g - 1 for every grade g in the qrels."""
    grades = r.grades(np.arange(r.level_counts.shape[1])) if r.grade_values is not None else \
        range(r.level_counts.shape[1])
    return Gains(tuple((repr(float(grade)) if r.grade_values is not None else str(grade), 2.0 ** grade - 1.0)
                       for grade in grades))


def dcg_exponential(r: Rankings, cutoffs) -> np.ndarray:
    """dcg_exp.k: DCG of the top k with gains 2^grade - 1 and a log2
    discount (ranx's dcg_burges@k)."""
    segment, rank, _, discounted = gaining(r, exponential_gains(r), positive_only=True)

    def at(cutoff):
        chosen = rank <= cutoff
        return np.bincount(segment[chosen], weights=discounted[chosen], minlength=r.num_segments)
    return per_cutoff(at, cutoffs)


def ndcg_exponential(r: Rankings, cutoffs) -> np.ndarray:
    """ndcg_exp.k: nDCG of the top k with gains 2^grade - 1 and a log2
    discount (gdeval's ndcg@k, ir_measures' nDCG(dcg=exp-log2)@k, ranx's
    ndcg_burges@k)."""
    gains = exponential_gains(r)
    segment, rank, _, discounted = gaining(r, gains, positive_only=True)
    ideal = Ideal.of(r, gains)

    def at(cutoff):
        chosen = rank <= cutoff
        found = np.bincount(segment[chosen], weights=discounted[chosen], minlength=r.num_segments)
        return ratio(found, ideal.dcg_within(cutoff)[r.segment_query])
    return per_cutoff(at, cutoffs)
