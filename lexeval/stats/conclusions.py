"""The tests' conclusions from the totals' exact moments: the paired
t-test (one pass of the t distribution for many pairs, or the compiled
kernel), the sign test, the randomization test's p from the draws' sums,
effect sizes and intervals; and the same of whole matrices of differences
(the reports').

These are functions of :class:`~lexeval.stats.moments.Moments` (and the
draws' sums), never of the runs' values: what the partitions of a cluster
added up concludes as one machine's totals do.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..compiled import in_threads
from .anova import Anova
from .distributions import binomial_lower_tail, t_two_sided
from .draws import DRAW_BITS, draw_sums
from .moments import Moments
from .sums import random_signs

THREADED_CELLS = 1 << 20         # pairs x queries from which the pairs' work is shared between the cores
_T_VALUES = 1 << 17              # t statistics whose tails are computed together (a dozen arrays of them live)


def t_test(moments: Moments) -> np.ndarray:
    """(P,) two-sided p of the one-sample t-test of each pair's differences against 0."""
    return t_tests([moments])[0]


def t_tests(many: list[Moments], parts: int = 1) -> list[np.ndarray]:
    """:func:`t_test` of each moments, with one pass of the t distribution
    for all (its series runs until the slowest value converges, each value
    for itself: the same p as one at a time); the compiled kernel does the
    same arithmetic, a moments at a time (``parts`` threads sharing its pairs)."""
    from .. import compiled
    from .distributions import _log_beta
    if all(moments.t_p is not None for moments in many):
        return [cast(np.ndarray, moments.t_p) for moments in many]
    if compiled.enabled():
        made = list(in_threads(lambda moments: moments.t_p if moments.t_p is not None else
                               compiled.t_test_p(moments.mean(), moments.spread(), moments.count(), _log_beta,
                                                 parts),
                               many, sum(len(moments.count()) for moments in many) >= THREADED_CELLS // 64))
        for moments, p in zip(many, made):
            moments.t_p = p
        return made
    ps, statistics, freedoms, where = [], [], [], []
    for moments in many:
        count, mean, spread = moments.count(), moments.mean(), moments.spread()
        p = np.ones(len(count))
        varies = (spread > 0) & (count >= 2)
        statistics.append(mean[varies] / (spread[varies] / np.sqrt(count[varies])))
        freedoms.append(count[varies] - 1)
        p[~varies & (mean != 0) & (count >= 2)] = 0.0          # every difference equal and non-zero
        ps.append(p)
        where.append(varies)
    if ps:
        statistic, freedom = np.concatenate(statistics), np.concatenate(freedoms)
        tail = np.concatenate([t_two_sided(statistic[start:start + _T_VALUES], freedom[start:start + _T_VALUES])
                               for start in range(0, len(statistic), _T_VALUES)] or [np.zeros(0)])
        tails = np.split(tail, np.cumsum([len(t) for t in statistics])[:-1])
        for p, varies, tail in zip(ps, where, tails):
            p[varies] = tail
    for moments, p in zip(many, ps):
        moments.t_p = p
    return ps


def sign_test(moments: Moments) -> np.ndarray:
    """(P,) two-sided exact binomial p over the untied queries."""
    wins, losses = cast(np.ndarray, moments.wins), cast(np.ndarray, moments.losses)
    trials = wins + losses
    p = np.minimum(1.0, 2 * binomial_lower_tail(np.minimum(wins, losses), trials))
    return np.where(trials == 0, 1.0, p)


def randomization_p(moments: Moments, randomized: np.ndarray) -> np.ndarray:
    """(P,) p = (1 + #{|sum*| >= |sum| - tolerance}) / (1 + N) from
    :func:`~lexeval.stats.draws.draw_sums`' integer sums (column 0 the observed one). Sums that
    are equal in exact arithmetic (P@10's tenths, recall's thirds) can differ
    once each difference is rounded to the grid: the tolerance, 1e-9 of the
    differences' size, keeps them equal."""
    permutations = randomized.shape[1] - 1
    with np.errstate(invalid="ignore"):        # no queries: inf * 0
        size = np.maximum(np.abs(cast(np.ndarray, moments.low)), np.abs(cast(np.ndarray, moments.high))) * \
            moments.count()
    tolerance = 1e-9 * np.maximum(1.0, np.nan_to_num(size)) * 2.0 ** DRAW_BITS
    observed = np.abs(randomized[:, 0]).astype(np.float64) - tolerance
    extreme = (np.abs(randomized[:, 1:]) >= observed[:, None]).sum(axis=1)
    p = (1 + extreme) / (1 + permutations)
    all_zero = (moments.low == 0) & (moments.high == 0)
    return np.where(all_zero | (moments.count() == 0), 1.0, p)


def effect_size(moments: Moments) -> np.ndarray:
    """(P,) mean over standard deviation; 0 when every difference is 0,
    NaN when all are equal and not 0."""
    mean, spread = moments.mean(), moments.spread()
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = mean / spread
    return np.where(spread > 0, effect, np.where(mean == 0, 0.0, np.nan))


def t_interval(moments: Moments, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """(P,) each: mean +- t_((1 + c)/2, n - 1) sd / sqrt(n); NaN below two queries."""
    count = moments.count()
    if not len(count) or count.max() < 2:
        return np.full(len(count), np.nan), np.full(len(count), np.nan)
    from scipy.special import stdtrit  # only --ci needs the t quantile
    mean = moments.mean()
    half = stdtrit(np.maximum(count - 1, 1), (1 + confidence) / 2) * moments.spread() / np.sqrt(count)
    return np.where(count >= 2, mean - half, np.nan), np.where(count >= 2, mean + half, np.nan)


def bootstrap_interval(moments: Moments, resampled: np.ndarray, weights: np.ndarray,
                       confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """(P,) each: percentiles of the resampled means (weighted sums over
    total weights; a resample that drew no query is left out)."""
    pairs = len(resampled)
    drawn = weights > 0
    if len(resampled) and len(weights) != resampled.shape[1] - 1:
        raise ValueError("resampled sums and weights disagree")
    if pairs == 0 or not drawn.any():
        return np.full(pairs, np.nan), np.full(pairs, np.nan)
    means = np.asarray(resampled[:, 1:][:, drawn], dtype=np.float64) * 2.0 ** -DRAW_BITS / weights[drawn]
    low, high = np.quantile(means, ((1 - confidence) / 2, (1 + confidence) / 2), axis=1)
    empty = moments.count() == 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def matrix_p_values(kind: str, differences: np.ndarray, permutations: int = 10_000, seed: int | None = 0,
                    keys: np.ndarray | None = None) -> np.ndarray:
    """(P,) p-values of the rows of ``differences`` (P, Q) with the test
    ``kind`` ("sign", "randomization", else the one-sample t-test); the
    randomization draws are keyed by ``keys`` (Q,) (default: the column
    numbers)."""
    differences = np.asarray(differences, dtype=np.float64)
    moments = Moments.of(differences)
    if kind == "sign":
        return sign_test(moments)
    if kind == "randomization":
        keys = np.arange(differences.shape[1], dtype=np.uint64) if keys is None else keys
        return randomization_p(moments, draw_sums(differences, keys, permutations, seed, random_signs))
    return t_test(moments)


def matrix_hsd(scores: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(P,) Tukey HSD p of each pair (a, b) of rows of ``scores`` (R, Q)."""
    return Anova.of(np.asarray(scores, dtype=np.float64)).tukey_hsd(np.asarray(pairs).reshape(-1, 2))
