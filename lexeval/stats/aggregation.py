"""Ranking runs from per-query preferences (``--aggregate``).

Each takes the runs' per-query scores (R, Q) (a run's mean preference
against every other run, per query: the order of the runs in that query)
and returns each run's aggregate score (R,), higher is better:

- ``mean``: the mean over queries of the per-query scores;
- ``borda``: Borda count over the per-query orders, each run earning 1 for
  every run below it and 1/2 for every run tied with it, as a share of the
  R - 1 others, averaged over queries (in [0, 1]);
- ``mc4``: Dwork, Kumar, Naor and Sivakumar's MC4 ("Rank aggregation
  methods for the Web", WWW 2001): a Markov chain that moves from a run to
  each run a majority of queries puts above it with probability 1/R, and
  stays otherwise; the score is its limit distribution from the uniform
  start, computed exactly (see :func:`mc4`).
"""

from __future__ import annotations

import numpy as np

from ..choices import AGGREGATES


def mean(scores: np.ndarray) -> np.ndarray:
    """(R,) mean over queries, added left to right as the per-query lines read."""
    return np.cumsum(scores, axis=1)[:, -1] / scores.shape[1] if scores.shape[1] else np.zeros(len(scores))


def borda_points(scores: np.ndarray) -> np.ndarray:
    """(R,) Borda points summed over queries: per query, runs below + runs
    tied / 2 (halves: exact in floats, so sums over any split of the
    queries add up to the same)."""
    runs, queries = scores.shape
    below = np.zeros(runs)
    for run in range(runs):                  # R passes over (R, Q): memory stays (R, Q)
        below[run] = ((scores[run] > scores).sum() + 0.5 * ((scores[run] == scores).sum() - queries))
    return below


def borda_share(points: np.ndarray, queries: int) -> np.ndarray:
    """(R,) mean Borda share from :func:`borda_points`: over (R - 1) per query."""
    runs = len(points)
    if runs < 2 or queries == 0:
        return np.zeros(runs)
    return points / (queries * (runs - 1))


def borda(scores: np.ndarray) -> np.ndarray:
    """(R,) mean Borda share: per query, (runs below + runs tied / 2) / (R - 1)."""
    return borda_share(borda_points(scores), scores.shape[1])


def majority(scores: np.ndarray) -> np.ndarray:
    """(R, R) queries where the column's run ranks above the row's, minus
    queries where it ranks below."""
    runs = len(scores)
    out = np.zeros((runs, runs))
    for run in range(runs):
        out[run] = (scores > scores[run]).sum(axis=1) - (scores < scores[run]).sum(axis=1)
    return out


def mc4(scores: np.ndarray) -> np.ndarray:
    """(R,) MC4's limit distribution from the uniform start.

    The chain stays put with probability at least 1/R, so it is aperiodic
    and the uniform start converges; where several runs are never beaten by
    a majority the chain is reducible and the limit depends on the start,
    which is why the start is fixed (uniform, as pref_eval starts). The
    transition matrix is squared until it no longer changes (at most 64
    squarings: 2^64 steps; each squaring's rows renormalised to sum 1),
    instead of pref_eval's ten steps, which stop before
    convergence on more than a few runs. Scores are rounded to 12 decimals,
    so that floating-point noise does not order runs the chain ties."""
    return markov_limit(majority(scores))


def markov_limit(majority_counts: np.ndarray) -> np.ndarray:
    """(R,) MC4's limit from the (R, R) majority counts of :func:`majority`."""
    runs = len(majority_counts)
    if runs == 0:
        return np.zeros(0)
    transition = np.where(majority_counts > 0, 1.0 / runs, 0.0)
    np.fill_diagonal(transition, 0.0)
    np.fill_diagonal(transition, 1.0 - transition.sum(axis=1))
    for _ in range(64):
        squared = transition @ transition
        squared /= squared.sum(axis=1, keepdims=True)     # rounding must not compound over 2^k steps
        converged = np.abs(squared - transition).max() <= 1e-15
        transition = squared
        if converged:
            break
    # rounding noise must not break ties between runs the chain treats alike
    return np.round(np.full(runs, 1.0 / runs) @ transition, 12)


AGGREGATE = dict(zip(AGGREGATES, (mean, borda, mc4)))     # each choice of --aggregate, spelled in choices
