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


# ---------------------------------------------------------------- leaderboards
# Each takes score vectors of the same runs, one leaderboard a row: (B, R)
# arrays (B bootstrap draws, or 1), higher scores ranking first, and gives (B,).


def strict_positions(scores: np.ndarray) -> np.ndarray:
    """(B, R) each run's 0-based place when the runs are sorted by score,
    best first; tied scores keep the runs' order (the command line's)."""
    order = np.argsort(-scores, axis=1, kind="stable")
    positions = np.empty_like(order)
    np.put_along_axis(positions, order, np.arange(scores.shape[1])[None, :].repeat(len(scores), 0), axis=1)
    return positions


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair (ties in either leaderboard count as
    in scipy's kendalltau)."""
    upper = np.triu(np.ones((x.shape[1], x.shape[1]), dtype=bool), 1)
    out = np.empty(len(x))
    for row in range(len(x)):               # R x R each: a row at a time keeps memory at R^2
        sx = np.sign(x[row][:, None] - x[row][None, :])[upper]
        sy = np.sign(y[row][:, None] - y[row][None, :])[upper]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[row] = (sx * sy).sum() / np.sqrt(float(np.abs(sx).sum()) * float(np.abs(sy).sum()))
    return out


def tau_ap(truth: np.ndarray, compared: np.ndarray) -> np.ndarray:
    """AP correlation of ``compared`` against ``truth`` (Yilmaz, Aslam and
    Robertson, SIGIR 2008): 2 / (N - 1) sum_{i=2..N} C(i) / (i - 1) - 1, where
    i runs down ``compared``'s order and C(i) counts the runs above i there
    that ``truth`` also puts above it. Top-weighted, and asymmetric: swaps
    near the top of ``compared`` cost most. Ties broken by the runs' order."""
    runs = truth.shape[1]
    if runs < 2:
        return np.full(len(truth), np.nan)
    truth_place = strict_positions(truth)
    order = np.argsort(-compared, axis=1, kind="stable")
    place = np.take_along_axis(truth_place, order, axis=1)          # truth's place, in compared's order
    out = np.empty(len(truth))
    lower = np.tril(np.ones((runs, runs), dtype=bool), -1)          # j above i
    for row in range(len(truth)):
        correct = ((place[row][None, :] < place[row][:, None]) & lower).sum(axis=1)[1:]
        out[row] = 2.0 / (runs - 1) * (correct / np.arange(1, runs)).sum() - 1.0
    return out


def rbo_extrapolated(x: np.ndarray, y: np.ndarray, p: float) -> np.ndarray:
    """Rank-biased overlap of the two orderings of the same runs (Webber,
    Moffat and Zobel, TOIS 2010, eq. 32, RBO_ext at depth R): X_R / R p^R
    + (1 - p) / p sum_{d=1..R} X_d / d p^d, X_d the runs in both top d.
    Identical orderings score 1. Ties broken by the runs' order."""
    runs = x.shape[1]
    both = np.maximum(strict_positions(x), strict_positions(y))      # the depth from which a run is in both
    offsets = (np.arange(len(x)) * runs)[:, None]
    overlap = np.cumsum(np.bincount((both + offsets).ravel(), minlength=len(x) * runs).reshape(len(x), runs), axis=1)
    depth = np.arange(1, runs + 1, dtype=np.float64)
    weights = p ** depth
    return overlap[:, -1] / runs * p ** runs + (1 - p) / p * (overlap / depth * weights).sum(axis=1)


def spearman_rho(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho: Pearson's r of the ranks (ties averaged, as scipy)."""
    from scipy.stats import rankdata
    return pearson_r(rankdata(x, axis=1), rankdata(y, axis=1))


def pearson_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of the scores themselves."""
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dx * dy).sum(axis=1) / np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))


# ---------------------------------------------------------------- grades of the same documents


def cohen_kappa(first: np.ndarray, second: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of two raters' labels of the same items, (n,) each;
    ``weights`` linear or quadratic weigh a disagreement by the distance of
    the two labels' places among the labels used (as scikit-learn)."""
    labels = np.unique(np.concatenate([first, second]))
    if len(first) == 0:
        return float("nan")
    a, b = np.searchsorted(labels, first), np.searchsorted(labels, second)
    k = len(labels)
    observed = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(np.float64)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    distance = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(np.float64)
    penalty = {None: (distance > 0).astype(np.float64), "linear": distance, "quadratic": distance ** 2}[weights]
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(1.0 - (penalty * observed).sum() / (penalty * expected).sum())


def krippendorff_alpha_ordinal(first: np.ndarray, second: np.ndarray) -> float:
    """Krippendorff's alpha, ordinal, of two raters with no value missing
    (Krippendorff, "Computing Krippendorff's alpha-reliability", 2011): from
    the coincidence matrix o, n_c its margins, and the ordinal distance
    (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2."""
    values = np.unique(np.concatenate([first, second]))
    if len(first) == 0 or len(values) < 2:
        return float("nan")
    a, b = np.searchsorted(values, first), np.searchsorted(values, second)
    k = len(values)
    coincidences = (np.bincount(a * k + b, minlength=k * k) + np.bincount(b * k + a, minlength=k * k)) \
        .reshape(k, k).astype(np.float64)
    margins = coincidences.sum(axis=1)
    total = margins.sum()
    cumulative = np.concatenate(([0.0], np.cumsum(margins)))
    low, high = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
    distance = (cumulative[high + 1] - cumulative[low] - (margins[low] + margins[high]) / 2) ** 2
    expected = (np.outer(margins, margins) * distance).sum()
    return float(1.0 - (total - 1) * (coincidences * distance).sum() / expected)
