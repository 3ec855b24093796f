"""Pairs of runs: every pair (a, b) with a before b on the command line,
numbered in that order (rows), without making the list (ten thousand runs
have fifty million pairs); a pair printed the other way round (run:baseline)
has its preferences negated; each pair's values added to its runs."""

from __future__ import annotations

from itertools import combinations

import numpy as np


def run_pairs(num_runs: int) -> list[tuple[int, int]]:
    """Every pair (a, b) of run indices with a before b on the command line."""
    return list(combinations(range(num_runs), 2))


def pairs_of_rows(num_runs: int, rows: np.ndarray) -> np.ndarray:
    """(k, 2) the pairs (a, b) at ``rows`` of :func:`run_pairs`' list,
    without making the list (ten thousand runs have fifty million pairs):
    the inverse of :func:`pair_rows`."""
    rows = np.asarray(rows, dtype=np.int64)
    n = num_runs
    # row(a, 0) = a (2n - a - 1) / 2: a is the largest with row(a) <= row; the float root, then corrected
    first = np.floor(((2 * n - 1) - np.sqrt(np.maximum((2 * n - 1) ** 2 - 8.0 * rows, 0.0))) / 2).astype(np.int64)
    first = np.clip(first, 0, max(n - 2, 0))
    start = first * (2 * n - first - 1) // 2
    first = np.where(start > rows, first - 1, first)
    start = first * (2 * n - first - 1) // 2
    following = (first + 1) * (2 * n - first - 2) // 2
    first = np.where(following <= rows, first + 1, first)
    start = first * (2 * n - first - 1) // 2
    return np.stack([first, rows - start + first + 1], axis=1).reshape(-1, 2)


class RunSpread:
    """Adds each pair's (Q,) values to its first run and subtracts them from
    its second, for a block of pairs (k, 2); the grouping is worked out
    once per block and reused for every preference."""

    def __init__(self, pairs: np.ndarray):
        self.sides = []
        for side, sign in ((0, 1.0), (1, -1.0)):
            owner = pairs[:, side]
            order = None if (owner[1:] >= owner[:-1]).all() else np.argsort(owner, kind="stable")
            owner = owner if order is None else owner[order]
            starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
            self.sides.append((order, owner[starts], starts, sign))

    def add(self, total: np.ndarray, values: np.ndarray) -> None:
        """``total`` (R, Q) += the block's ``values`` (k, Q), signed by side."""
        if len(values) == 0:
            return
        for order, runs, starts, sign in self.sides:
            sums = np.add.reduceat(values if order is None else values[order], starts, axis=0)
            total[runs] += sums if sign > 0 else -sums


def pair_rows(num_runs: int, pairs: np.ndarray) -> np.ndarray:
    """Row of each of ``pairs`` (a, b) in the list of all pairs in
    :func:`run_pairs` order: that of (min, max), whose preferences are
    made (a pair printed (b, a), run:baseline, has them times
    :func:`pair_signs`)."""
    a, b = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return a * (2 * num_runs - a - 1) // 2 + (b - a - 1)


def pair_signs(pairs: np.ndarray) -> np.ndarray:
    """(P, 1) +1 for a pair (a, b) with a < b, -1 for one printed the other
    way round: what its row's preferences (made for a < b) are multiplied by."""
    return np.where(pairs[:, :1] < pairs[:, 1:], 1.0, -1.0)


def rank_runs(scores: np.ndarray) -> np.ndarray:
    """(R,) 1 = best; runs with equal scores share the better rank."""
    return 1 + (scores[None, :] > scores[:, None]).sum(axis=1)
