"""Measures for incomplete judgements: bpref, infAP, and the share of
(un)judged documents near the top."""

from __future__ import annotations

import numpy as np

from .. import compiled
from ..rankings import Rankings
from .base import INFAP_EPSILON, per_cutoff, ratio

# ---------------------------------------------------------------- incomplete judgements

def bpref(r: Rankings, _=()) -> np.ndarray:
    """bpref: how many judged non-relevant documents (of the first R) rank
    above each relevant one (Buckley and Voorhees 2004)."""
    # the compiled kernel's one pass where it is built, else bpref_reference
    made = compiled.bpref_sums(r.codes, r.starts, r.lengths, r.level, r.num_rel, r.num_judged_nonrel)
    if made is None:
        return bpref_reference(r)
    return ratio(made, r.num_rel)


def bpref_reference(r: Rankings) -> np.ndarray:
    """:func:`bpref` in numpy: the judged non-relevant documents above each relevant one, counted."""
    nonrel_above = r.count_above(r.judged_nonrel, r.rel_index, r.rel_segment)
    limit = np.minimum(r.num_judged_nonrel, r.num_rel)[r.rel_segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = np.minimum(nonrel_above, r.num_rel[r.rel_segment]) / limit
    score = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    return ratio(np.bincount(r.rel_segment, weights=score, minlength=r.num_segments), r.num_rel)


def inferred_ap(r: Rankings, _=()) -> np.ndarray:
    """infAP: inferred average precision (Yilmaz and Aslam 2006), average
    precision estimated from a sampled pool (grade -1: in the pool, not
    judged)."""
    above = (r.rel_rank - 1).astype(np.float64)                  # documents ranked above
    rel_above = r.rel_ordinal - 1
    nonrel_above = r.count_above(r.judged_nonrel, r.rel_index, r.rel_segment)
    pool_unjudged_above = r.count_above(r.codes == -2, r.rel_index, r.rel_segment)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (1.0 / (above + 1.0)
                 + (above / (above + 1.0)) * ((rel_above + nonrel_above + pool_unjudged_above) / above)
                 * ((rel_above + INFAP_EPSILON) / ((rel_above + nonrel_above) + 2 * INFAP_EPSILON)))
    score = np.where(above == 0, 1.0, score)
    return ratio(np.bincount(r.rel_segment, weights=score, minlength=r.num_segments), r.num_rel)


def unjudged(r: Rankings, cutoffs) -> np.ndarray:
    """unj.k: fraction of the top k not judged."""
    return per_cutoff(lambda k: r.count_within(r.unjudged, k) / k, cutoffs)


def judged_by_qrels(r: Rankings, cutoffs) -> np.ndarray:
    """judged_qrels.k: fraction of the top k judged (grade >= 0) by QRELS
    itself, over k or the ranking's length if shorter; with --fill-qrels,
    not by FILE."""
    return per_cutoff(lambda k: ratio(r.count_within((r.codes >= 0) & ~_filled(r), k),
                                      np.minimum(r.lengths, k)), cutoffs)


def judged_by_fill(r: Rankings, cutoffs) -> np.ndarray:
    """judged_fill.k: fraction of the top k whose grade --fill-qrels gave
    (0 without it)."""
    return per_cutoff(lambda k: ratio(r.count_within(_filled(r), k), np.minimum(r.lengths, k)), cutoffs)


def _filled(r: Rankings) -> np.ndarray:
    """(N,) bool: the document's judgement came from --fill-qrels."""
    filled = r.qrels.filled if r.qrels is not None else None
    if filled is None or r.qrels_rows is None:
        return np.zeros(len(r.codes), dtype=bool)
    return (r.qrels_rows >= 0) & filled[np.maximum(r.qrels_rows, 0)]


def judged(r: Rankings, cutoffs) -> np.ndarray:
    """judged.k (Judged@k): fraction of the top k that is in the qrels (any
    grade), over k or the ranking's length if shorter (as ir_measures)."""
    in_qrels = r.codes != -1
    return per_cutoff(lambda k: ratio(r.count_within(in_qrels, k), np.minimum(r.lengths, k)), cutoffs)
