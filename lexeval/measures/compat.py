"""Compatibility with an ideal ranking (Clarke, Vtyurina and Smucker,
"Assessing top-k preferences", TOIS 2021), as ir_measures' Compat computes
it: rank-biased overlap (RBO) between the run and an ideal ranking of the
relevant documents, over the deeper of the two, normalised by the ideal's
RBO with itself.

The ideal ranking holds the documents of grade >= max(-l, 1), best grade
first; within a grade, the ones the run retrieved come first, in the run's
order (ir_measures orders them by the run's score, and the ones the run
lacks by a score of 0: the same for runs of positive scores).
"""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings
from .base import ratio


def compat(r: Rankings, pairs=()) -> np.ndarray:
    """compat: RBO with the ideal ranking over its RBO with itself,
    persistence p = 0.95 (compat.p=0.8; normalize=0 leaves it unnormalised)."""
    params = {"p": 0.95, "normalize": 1.0, **{key: float(value) for key, value in pairs}}
    p, normalize = params["p"], params["normalize"] != 0
    floor = max(r.level, 1)
    counts = r.level_counts[:, floor:]                                   # (Q, grades >= floor)
    ideal_length = counts.sum(axis=1)[r.segment_query]                   # (S,) L
    depth = np.maximum(r.lengths, ideal_length)                          # (S,) D
    most = int(depth.max(initial=0))
    d = np.arange(1, most + 1, dtype=np.float64)
    weight = p ** (d - 1)
    running = np.concatenate(([0.0], np.cumsum(weight / d)))             # H[m] = sum_{d<=m} p^(d-1)/d
    mass = np.concatenate(([0.0], np.cumsum(weight)))                    # sum_{d<=m} p^(d-1)
    # each relevant retrieved document: its rank b, its place a in the ideal ranking
    index, segment, rank = r.locate(r.codes >= floor)
    grade = r.codes[index].astype(np.int64) - floor
    better = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1] - counts      # (Q, grades): documents of a higher grade
    order = np.lexsort((rank, -grade, segment))
    key_segment, key_grade = segment[order], grade[order]
    first = np.r_[True, (key_segment[1:] != key_segment[:-1]) | (key_grade[1:] != key_grade[:-1])]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order)) - group_start                   # retrieved of its grade above it
    ideal_place = better[r.segment_query[segment], grade] + place + 1
    joined = np.maximum(ideal_place, rank)                               # in both top-d lists from d on
    score = np.bincount(segment, weights=running[depth[segment]] - running[joined - 1],
                        minlength=r.num_segments)
    if not normalize:
        return ratio(score, mass[depth])
    length = np.minimum(ideal_length, depth)
    best = mass[length] + length * (running[depth] - running[length])  # the ideal's overlap with itself
    return ratio(score, best)
