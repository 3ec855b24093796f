"""Precision and recall: AP, P@k, recall@k, R-precision, reciprocal rank, success,
interpolated precision (trec_eval's m_map.c, m_P.c, m_recall.c, m_Rprec.c, m_recip_rank.c, ...)."""

from __future__ import annotations

import numpy as np

from .. import compiled
from ..rankings import Rankings, suffix_max
from .base import per_cutoff, ratio

# ---------------------------------------------------------------- precision family

def _precision_at_relevant(r: Rankings) -> np.ndarray:
    """(K,) precision at the rank of each relevant retrieved document."""
    return r.rel_ordinal / r.rel_rank


def _rel_within(r: Rankings, depth) -> np.ndarray:
    """(S,) relevant documents at rank <= depth (scalar or (S,)); for a
    scalar depth, counted once per rankings (P.k and recall.k share it)."""
    if np.ndim(depth) == 0:
        counted = r.__dict__.setdefault("rel_within_depth", {})
        if depth not in counted:
            # not yet located (--bounds' assigned rankings, mostly relevant): the top of each ranking read instead
            made = None if "_relevant_located" in r.__dict__ or not float(depth).is_integer() else \
                compiled.relevant_within(r.codes, r.starts, r.lengths, r.level, int(depth))
            counted[depth] = made if made is not None else \
                np.bincount(r.rel_segment[r.rel_rank <= depth], minlength=r.num_segments)
        return counted[depth]
    return np.bincount(r.rel_segment[r.rel_rank <= depth[r.rel_segment]], minlength=r.num_segments)


def average_precision(r: Rankings, _=()) -> np.ndarray:
    """map: mean of the precision at every relevant document (0 if unretrieved)."""
    total = np.bincount(r.rel_segment, weights=_precision_at_relevant(r), minlength=r.num_segments)
    return ratio(total, r.num_rel)


def yaap(r: Rankings, _=()) -> np.ndarray:
    """yaap: yet another average precision, log((1 + S) / (1 + R - S)), S the
    sum of the precision at every relevant retrieved document (Robertson, "On
    Smoothing Average Precision", ECIR 2012; trec_eval's m_yaap.c)."""
    total = np.bincount(r.rel_segment, weights=_precision_at_relevant(r), minlength=r.num_segments)
    return np.log((1.0 + total) / (1.0 + r.num_rel - total))


def map_cut(r: Rankings, cutoffs) -> np.ndarray:
    """map_cut.k: average precision counting only the top k."""
    precision = _precision_at_relevant(r)

    def at(cutoff):
        chosen = r.rel_rank <= cutoff
        return ratio(np.bincount(r.rel_segment[chosen], weights=precision[chosen],
                                  minlength=r.num_segments), r.num_rel)
    return per_cutoff(at, cutoffs)


def r_precision(r: Rankings, _=()) -> np.ndarray:
    """Rprec: precision after R documents (R = relevant documents)."""
    return ratio(_rel_within(r, r.num_rel), r.num_rel)


def recip_rank(r: Rankings, _=()) -> np.ndarray:
    """recip_rank: 1 / rank of the first relevant document."""
    return ratio(1.0, r.first_rel_rank)


def recip_rank_cut(r: Rankings, cutoffs) -> np.ndarray:
    """recip_rank.k (MRR@k, RR@k): 1 / rank of the first relevant document
    if it is in the top k, else 0 (MS MARCO's official measure at k = 10)."""
    first = r.first_rel_rank
    return per_cutoff(lambda k: ratio(1.0, np.where(first <= k, first, 0)), cutoffs)


def precision(r: Rankings, cutoffs) -> np.ndarray:
    """P.k: relevant in the top k, over k."""
    return per_cutoff(lambda k: _rel_within(r, k) / k, cutoffs)


def recall(r: Rankings, cutoffs) -> np.ndarray:
    """recall.k: relevant in the top k, over R."""
    return per_cutoff(lambda k: ratio(_rel_within(r, k), r.num_rel), cutoffs)


def hits(r: Rankings, cutoffs) -> np.ndarray:
    """hits.k: relevant documents in the top k (ranx's hits@k)."""
    return per_cutoff(lambda k: _rel_within(r, k).astype(np.float64), cutoffs)


def f1(r: Rankings, cutoffs) -> np.ndarray:
    """F1.k: harmonic mean of P.k and recall.k, 0 when both are 0 (ranx's f1@k)."""
    def at(k):
        found = _rel_within(r, k)
        p, rec = found / k, ratio(found, r.num_rel)
        return ratio(2.0 * p * rec, p + rec)
    return per_cutoff(at, cutoffs)


def relative_precision(r: Rankings, cutoffs) -> np.ndarray:
    """relative_P.k: relevant in the top k, over min(k, R)."""
    return per_cutoff(lambda k: ratio(_rel_within(r, k), np.minimum(k, r.num_rel)), cutoffs)


def success(r: Rankings, cutoffs) -> np.ndarray:
    """success.k: 1 if a relevant document is in the top k."""
    first = r.first_rel_rank
    return per_cutoff(lambda k: ((first > 0) & (first <= k)).astype(np.float64), cutoffs)


def r_precision_multiples(r: Rankings, fractions) -> np.ndarray:
    """Rprec_mult.f: precision at f * R documents (rounded as trec_eval)."""
    def at(fraction):
        depth = np.floor(fraction * r.num_rel + 0.9)
        return ratio(_rel_within(r, depth), depth)
    return per_cutoff(at, fractions)


def _lround(values: np.ndarray) -> np.ndarray:
    """C's lround for non-negative values: halves round up, exactly."""
    floor = np.floor(values)
    return (floor + (values - floor >= 0.5)).astype(np.int64)


def interpolated_precision(r: Rankings, fractions) -> np.ndarray:
    """iprec_at_recall.f: the highest precision at any rank at or below the
    one where recall first reaches f (recall counted as round(f * R))."""
    tail = ratio(r.num_rel_ret, r.lengths)                     # P at the last rank
    best = suffix_max(_precision_at_relevant(r), r.rel_starts, r.num_rel_ret)
    best = np.maximum(best, tail[r.rel_segment])

    def at(fraction):
        needed = _lround(fraction * r.num_rel)
        reached = needed <= r.num_rel_ret
        level = np.maximum(needed, 1)
        has = reached & (r.num_rel_ret > 0)
        out = np.where(reached, tail, 0.0)
        out[has] = best[r.rel_starts[has] + level[has] - 1]
        return out
    return per_cutoff(at, fractions)


def eleven_point_average(r: Rankings, fractions) -> np.ndarray:
    """11pt_avg: mean interpolated precision over the recall points."""
    points = interpolated_precision(r, sorted(fractions))
    total = np.zeros(r.num_segments)
    for column in range(points.shape[1] - 1, -1, -1):  # trec_eval adds from the top point down
        total += points[:, column]
    return total / len(fractions)


def accuracy(r: Rankings, cutoffs) -> np.ndarray:
    """accuracy.k: the chance that a relevant document in the top k ranks
    above a non-relevant (or unjudged) one there: pairs in that order over
    all (relevant, non-relevant) pairs of the top k (ir_measures'
    Accuracy@k); 1 when the top k holds no non-relevant document, 0 when it
    holds no relevant one (where ir_measures leaves the query out, or
    divides by zero)."""
    index, segment, rank = r.rel_index, r.rel_segment, r.rel_rank
    before = np.arange(len(index)) - np.searchsorted(segment, segment)    # relevant documents above each

    def at(k):
        within = rank <= k
        found = np.bincount(segment[within], minlength=r.num_segments).astype(np.float64)
        # non-relevant documents above each relevant one: its rank less the relevant ones above it, less itself
        above = np.bincount(segment[within], weights=(rank - before - 1)[within], minlength=r.num_segments)
        others = np.minimum(r.lengths, k) - found
        value = np.where(found > 0, 1.0, 0.0)
        mixed = (found > 0) & (others > 0)
        value[mixed] = 1.0 - above[mixed] / (others[mixed] * found[mixed])
        return value
    return per_cutoff(at, cutoffs)
