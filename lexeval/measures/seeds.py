"""Measures from the seeds that trec_eval lacks: total search efficiency
(Diaz, "Recall, Robustness, and Lexicographic Evaluation", eq. 3) and the
rareness measures (Türkmen et al., "New Metrics to Encourage Innovation and
Diversity in Information Retrieval Approaches", eq. 1-4)."""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings, running_sum
from .base import per_cutoff, ratio

# ---------------------------------------------------------------- measures from the seeds

def total_search_efficiency(r: Rankings, _=()) -> np.ndarray:
    """tse: 1 / rank of the last relevant document (AP exposure), 0 if any
    relevant document is unretrieved (Diaz, "Recall, Robustness, and Lexicographic Evaluation", eq. 3)."""
    complete = (r.num_rel_ret == r.num_rel) & (r.num_rel > 0)
    last = np.zeros(r.num_segments, dtype=np.int64)
    last[complete] = r.rel_rank[r.rel_starts[complete] + r.num_rel_ret[complete] - 1]
    return ratio(1.0, last)


def _rarity(r: Rankings, depth=None) -> np.ndarray:
    """(K,) R(d) = 1 - S_d / S for each relevant retrieved document, S_d the
    runs retrieving it within ``depth`` (Türkmen et al., "New Metrics to Encourage Innovation and Diversity", eq. 2)."""
    return 1.0 - r.retrieved_by(depth) / r.num_runs


def rare_precision(r: Rankings, cutoffs, rarity_weight: float = 0.5) -> np.ndarray:
    """P_rare.k: (1/k) sum over relevant documents in the top k of
    1 + alpha R(d), rarity counted among the runs' top k (Türkmen et al., "New
    Metrics to Encourage Innovation and Diversity in IR Approaches", eq. 1-2);
    alpha is ``rarity_weight`` (--rarity-weight)."""

    def at(cutoff):
        within = r.rel_rank <= cutoff
        weight = 1.0 + rarity_weight * _rarity(r, cutoff)
        return np.bincount(r.rel_segment[within], weights=weight[within], minlength=r.num_segments) / cutoff
    return per_cutoff(at, cutoffs)


def rare_precision_bounded(r: Rankings, cutoffs, rarity_weight: float = 0.5) -> np.ndarray:
    """P_rare_norm.k: (1/k) sum over relevant documents in the top k of
    (1 - alpha) + alpha R'(d), R'(d) = 1 - (S_d - 1) / (S - 1), in [0, 1]
    (Türkmen et al., "New Metrics to Encourage Innovation and Diversity in IR
    Approaches", eq. 4; R' = 1 with a single run)."""
    runs = r.num_runs

    def at(cutoff):
        within = r.rel_rank <= cutoff
        bounded = 1.0 - (r.retrieved_by(cutoff) - 1) / (runs - 1) if runs > 1 else np.ones(len(within))
        weight = (1.0 - rarity_weight) + rarity_weight * bounded
        return np.bincount(r.rel_segment[within], weights=weight[within], minlength=r.num_segments) / cutoff
    return per_cutoff(at, cutoffs)


def rare_average_precision(r: Rankings, _=(), rarity_weight: float = 0.5) -> np.ndarray:
    """map_rare: average over relevant documents of P_rare at each one's
    rank; rarity over the runs' whole rankings (Türkmen et al., "New
    Metrics to Encourage Innovation and Diversity in IR Approaches", eq. 3)."""
    weight = 1.0 + rarity_weight * _rarity(r)
    gained = running_sum(weight, r.rel_starts, r.num_rel_ret)
    total = np.bincount(r.rel_segment, weights=gained / r.rel_rank, minlength=r.num_segments)
    return ratio(total, r.num_rel)
