"""How alike two rankings are: of documents (the reproduction report) or of
systems (the judges and reusability reports). Plain functions of sequences
and score vectors; scipy for the classic coefficients."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def kendall_tau_union(original: Sequence, reproduced: Sequence) -> float:
    """Kendall's tau union (Breuer et al., "How to Measure the
    Reproducibility of System-oriented IR Experiments", SIGIR 2020), as
    repro_eval computes it: each list's documents replaced by their
    positions in the sorted union of both, and Kendall's tau-b of those two
    sequences, position by position. Lists of unequal length are compared
    over their common length. NaN for fewer than two positions (or a
    constant sequence)."""
    from scipy.stats import kendalltau
    length = min(len(original), len(reproduced))
    original, reproduced = list(original[:length]), list(reproduced[:length])
    if length < 2:
        return float("nan")
    union = {doc: index for index, doc in enumerate(sorted(set(original) | set(reproduced)))}
    tau = kendalltau([union[doc] for doc in original], [union[doc] for doc in reproduced]).statistic
    return float(round(tau, 14))


def overlap_at_depth(first: Sequence, second: Sequence, depth: int) -> np.ndarray:
    """(depth,) |first[:d] & second[:d]| for d = 1 .. depth (lists without repeats)."""
    position: dict = {}
    for rank, item in enumerate(first[:depth]):
        position.setdefault(item, [rank, depth])
    for rank, item in enumerate(second[:depth]):
        position.setdefault(item, [depth, depth])[1] = rank
    both = np.array([max(a, b) for a, b in position.values()], dtype=np.int64)
    both = both[both < depth]
    return np.cumsum(np.bincount(both, minlength=depth))[:depth]


def rbo_normalized(run: Sequence, ideal: Sequence, p: float, depth: int) -> float:
    """Rank-biased overlap to ``depth``, normalised by the weights used
    (Clarke et al., "Assessing top-k preferences", TOIS 2021; repro_eval's
    RBO): sum_d p^(d-1) |A_d & B_d| / d over sum_d p^(d-1), d = 1 .. depth.
    Identical lists score 1 where they hold ``depth`` items or more (a
    shorter list's overlap at depth d is its length over d)."""
    if depth < 1:
        return float("nan")
    overlap = overlap_at_depth(run, ideal, depth)
    weights = p ** np.arange(depth, dtype=np.float64)
    return float((weights * overlap / np.arange(1, depth + 1)).sum() / weights.sum())
