"""Choosing, per segment, the best of many candidate assignments whose
values are laid out end to end (every segment's candidates together)."""

from __future__ import annotations

import numpy as np


def segment_cumsum(values: np.ndarray, segment: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(U,) running sums of ``values`` within segments laid end to end
    (``starts`` (S,) the first entry of each). Used to rank candidates
    only: the chosen assignment's value is computed again by the kernel."""
    running = np.cumsum(values)
    before = np.concatenate(([0.0], running))[starts]
    return running - before[segment]


def segment_totals(values: np.ndarray, segment: np.ndarray, num_segments: int) -> np.ndarray:
    """(S,) the sum of ``values`` (U,) in each segment."""
    return np.bincount(segment, weights=values, minlength=num_segments)


def best_candidate(values: np.ndarray, choice: np.ndarray, segment: np.ndarray, counts: np.ndarray,
                   base: np.ndarray, maximize: bool) -> np.ndarray:
    """(S,) per segment the ``choice`` (U,) of its best candidate by
    ``values`` (U,), or 0 where ``base`` (S,), the value of choice 0, is
    as good; candidates of a segment are contiguous, ``counts`` (S,) many."""
    sign = 1.0 if maximize else -1.0
    scored, best = sign * values, sign * base
    has = counts > 0
    if not has.any():
        return np.zeros(len(counts), dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[has]
    best = best.copy()
    best[has] = np.maximum(best[has], np.maximum.reduceat(scored, starts))
    wins = scored >= best[segment]
    chosen = np.zeros(len(counts), dtype=np.int64)
    first = np.minimum.reduceat(np.where(wins, choice, np.iinfo(np.int64).max), starts)
    chosen[has] = np.where(first == np.iinfo(np.int64).max, 0, first)
    chosen[sign * base >= best] = 0
    return chosen


def expanded(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(segment, m) for every segment and every m in 0..counts (S,):
    ``counts + 1`` entries a segment, end to end."""
    sizes = counts + 1
    segment = np.repeat(np.arange(len(counts), dtype=np.int64), sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return segment, np.arange(len(segment), dtype=np.int64) - starts[segment]


def blocks(counts: np.ndarray, size: int = 1 << 21):
    """Slices of segments whose ``counts + 1`` add up to about ``size``:
    the candidates of one block are laid out at once (a candidate a
    segment and hole would take gigabytes at the Robust04 shape)."""
    ends = np.cumsum(counts + 1)
    start = 0
    while start < len(counts):
        before = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, before + size, side="right")), start + 1)
        yield slice(start, stop)
        start = stop
