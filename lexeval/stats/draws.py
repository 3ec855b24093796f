"""The draws' sums: for randomization tests and bootstrap intervals, each
pair's sum over queries of its differences under each draw's per-query
factors (sign flips, Poisson weights), as integers, so that any split of
the queries adds up to the same (see :mod:`lexeval.stats.sums` for the
counter-based draws themselves)."""

from __future__ import annotations

import numpy as np

from ..constants import DRAW_BITS

DRAW_CELLS = 1 << 22             # draws x queries generated at once


def draw_sums(differences: np.ndarray, keys: np.ndarray, count: int, seed, draw) -> np.ndarray:
    """(P, 1 + count) integers, in units of 2**-40: each row's sum over
    queries of its differences (P, Q) (column 0), then times each draw's
    per-query factors. Integers, so that any split of the queries adds up to
    the same (int64, or Python integers where they could outgrow it); an
    infinite or NaN difference counts as 0."""
    pairs, queries = differences.shape
    values = np.rint(np.where(np.isfinite(differences), differences, 0.0) * float(1 << DRAW_BITS))
    size = float(np.abs(values).max()) if values.size else 0.0
    if size >= 2.0 ** 47:           # differences of 128 or more (z-scores): Python integers, slowly
        whole = np.array([[int(v) for v in row] for row in values.tolist()], dtype=object).reshape(values.shape)
        out = np.zeros((pairs, 1 + count), dtype=object)
        out[:, 0] = whole.sum(axis=1)
        for start in range(0, queries, 256):
            factors = draw(seed, keys[start:start + 256], 0, count).astype(np.int64).astype(object)
            out[:, 1:] += whole[:, start:start + 256].dot(factors.T)
        return out
    huge = size * 32 * queries >= 2.0 ** 62                 # the totals could leave int64
    out = np.zeros((pairs, 1 + count), dtype=object if huge else np.int64)
    out[:, 0] = [int(v) for v in values.sum(axis=1).tolist()] if huge else values.sum(axis=1)
    # queries per product: |values| x (weights <= 24) summed stays below 2**53, so the float product is exact
    step = max(1, min(DRAW_CELLS // max(count, 1), int(2.0 ** 53 // (24 * max(size, 1.0)))))
    for start in range(0, queries, step):
        factors = draw(seed, keys[start:start + step], 0, count)          # (count, q)
        product = (values[:, start:start + step] @ factors.T).astype(np.int64)
        out[:, 1:] += product.astype(object) if huge else product
    return out


def on_grid(values: np.ndarray) -> np.ndarray:
    """Values rounded to multiples of 2**-40, so that sums over pairs do not
    depend on how the pairs are blocked (|sums| stay far below 2**52)."""
    return np.rint(values * 2.0**40) / 2.0**40
