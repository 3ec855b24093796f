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


def _row_chunks(rows: int, width: int, cells: int = 1 << 22):
    """Slices of ``rows`` rows whose (chunk, width) arrays hold about ``cells``
    cells: whole-array work at a bounded memory."""
    step = max(1, cells // max(width, 1))
    return (slice(start, min(start + step, rows)) for start in range(0, rows, step))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row pair (ties in either leaderboard count as
    in scipy's kendalltau); NaN where a row is constant or holds a NaN."""
    first, second = np.triu_indices(x.shape[1], 1)
    out = np.empty(len(x))
    for rows in _row_chunks(len(x), len(first)):
        sx = np.sign(x[rows][:, first] - x[rows][:, second])
        sy = np.sign(y[rows][:, first] - y[rows][:, second])
        with np.errstate(invalid="ignore", divide="ignore"):
            out[rows] = (sx * sy).sum(axis=1) / np.sqrt(np.abs(sx).sum(axis=1) * np.abs(sy).sum(axis=1))
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


def tau_ap_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Symmetric, tie-aware AP correlation tau_AP,b (Urbano and Marrero,
    "The Treatment of Ties in AP Correlation", ICTIR 2017), as AutoJudge's
    meta-evaluation computes it: the mean of tau_AP,b(x | y) and
    tau_AP,b(y | x). In tau_AP,b(x | y) each run i with p_i > 0 runs
    strictly above it in y scores c_i / p_i, c_i those of the p_i also
    strictly above it in x; the result is 2 / n sum_i c_i / p_i - 1 over the
    n such runs (0 where every run ties at the top of y). (B, R) -> (B,)."""
    return (_tau_ap_b_given(x, y) + _tau_ap_b_given(y, x)) / 2


def _tau_ap_b_given(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    runs = x.shape[1]
    out = np.empty(len(x))
    for rows in _row_chunks(len(x), runs * runs):
        above_y = y[rows][:, None, :] > y[rows][:, :, None]              # [b, i, j]: j strictly above i in y
        above_x = x[rows][:, None, :] > x[rows][:, :, None]
        above = above_y.sum(axis=2)
        concordant = (above_y & above_x).sum(axis=2)
        counted = above > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            total = np.where(counted, concordant / np.maximum(above, 1), 0.0).sum(axis=1)
            used = counted.sum(axis=1)
            out[rows] = np.where(used > 0, 2.0 * total / np.maximum(used, 1) - 1.0, 0.0)
    return out


def tau_gap(truth: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """tau_GAP (Gao and Oard, "A Head-Weighted Gap-Sensitive Correlation
    Coefficient", SIGIR 2015), as AutoJudge's meta-evaluation computes it:
    down ``predicted``'s order (ties broken by the runs' order), each run i
    after the first scores the share of the gap mass |t_j - t_i| of the runs
    j above it that ``predicted`` orders as ``truth`` does (t_j > t_i);
    positions whose gaps are all zero are left out; 2 / n sum - 1 over the n
    others (NaN where there is none). Head-weighted and asymmetric: ``truth``
    gives the gaps. (B, R) -> (B,)."""
    runs = truth.shape[1]
    out = np.full(len(truth), np.nan)
    if runs < 2:
        return out
    order = np.argsort(-predicted, axis=1, kind="stable")
    ordered = np.take_along_axis(truth, order, axis=1)
    before = np.tril(np.ones((runs, runs), dtype=bool), -1)          # [i, j]: j before i
    for rows in _row_chunks(len(truth), runs * runs):
        gap = ordered[rows][:, None, :] - ordered[rows][:, :, None]    # [b, i, j] = t_j - t_i
        gaps = np.where(before, np.abs(gap), 0.0).sum(axis=2)
        correct = np.where(before, np.maximum(gap, 0.0), 0.0).sum(axis=2)
        counted = gaps > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            total = np.where(counted, correct / np.where(counted, gaps, 1.0), 0.0).sum(axis=1)
            used = counted.sum(axis=1)
            out[rows] = np.where(used > 0, 2.0 * total / np.maximum(used, 1) - 1.0, np.nan)
    return out


def spearman_rho(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho: Pearson's r of the ranks (ties averaged, as scipy)."""
    return pearson_r(average_ranks(x), average_ranks(y))


def average_ranks(x: np.ndarray) -> np.ndarray:
    """(B, R) each row's 1-based ranks, ascending, tied values sharing their
    mean rank (scipy's rankdata, method average); a row with a NaN is NaN."""
    rows, width = x.shape
    order = np.argsort(x, axis=1, kind="stable")
    ordered = np.take_along_axis(x, order, axis=1)
    starts = np.ones(x.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = (np.cumsum(starts, axis=1) - 1 + (np.arange(rows) * width)[:, None]).ravel()
    places = np.tile(np.arange(1, width + 1, dtype=np.float64), rows)
    mean = np.bincount(group, weights=places, minlength=rows * width) / np.maximum(
        np.bincount(group, minlength=rows * width), 1)
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, mean[group].reshape(x.shape), axis=1)
    return np.where(np.isnan(x).any(axis=1, keepdims=True), np.nan, ranks)


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
    table = np.bincount(a * k + b, minlength=k * k).reshape(1, k, k)
    return float(kappa_of_tables(table, weights, undefined_when_constant=False)[0])


def kappa_of_tables(tables: np.ndarray, weights: str | None = None, undefined_when_constant: bool = True
                    ) -> np.ndarray:
    """Cohen's kappa of each (K, K) table of label counts (rows the first
    rater's labels in order, columns the second's): (T, K, K) -> (T,).
    ``weights``: None (exact agreement), "linear" or "quadratic" in the
    labels' places. NaN where both raters give one label throughout, as
    AutoJudge's qrel-evaluate, when ``undefined_when_constant``."""
    tables = tables.astype(np.float64)
    k = tables.shape[1]
    distance = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(np.float64)
    penalty = {None: (distance > 0).astype(np.float64), "linear": distance, "quadratic": distance ** 2}[weights]
    rows, columns, total = tables.sum(axis=2), tables.sum(axis=1), tables.sum(axis=(1, 2))
    observed = (tables * penalty).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = ((rows @ penalty) * columns).sum(axis=1) / total
        kappa = 1.0 - observed / expected
    if undefined_when_constant:
        constant = ((rows > 0).sum(axis=1) < 2) & ((columns > 0).sum(axis=1) < 2)
        kappa = np.where(constant, np.nan, kappa)
    return kappa


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
    table = np.bincount(a * k + b, minlength=k * k).reshape(1, k, k)
    return float(alpha_of_tables(table)[0])


def alpha_of_tables(tables: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal alpha of each (K, K) table of two raters'
    label counts (labels in order; a label no one gives adds nothing):
    (T, K, K) -> (T,), NaN where a table holds one label only."""
    tables = tables.astype(np.float64)
    k = tables.shape[1]
    coincidences = tables + tables.transpose(0, 2, 1)
    margins = coincidences.sum(axis=2)                                   # (T, K)
    total = margins.sum(axis=1)
    cumulative = np.concatenate([np.zeros((len(tables), 1)), np.cumsum(margins, axis=1)], axis=1)
    low, high = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
    distance = (cumulative[:, high + 1] - cumulative[:, low] - (margins[:, low] + margins[:, high]) / 2) ** 2
    expected = (margins[:, :, None] * margins[:, None, :] * distance).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = 1.0 - (total - 1) * (coincidences * distance).sum(axis=(1, 2)) / expected
    return np.where((margins > 0).sum(axis=1) < 2, np.nan, alpha)


def binary_agreement(both: np.ndarray, only_first: np.ndarray, only_second: np.ndarray, neither: np.ndarray
                     ) -> dict[str, np.ndarray]:
    """Agreement of two raters' binary labels from the counts of items
    labelled 1 by both, by the first only, by the second only, by neither,
    (T,) each (as AutoJudge's qrel-evaluate): the second set's precision
    and recall against the first and their F1 (0 where undefined), Jaccard
    (NaN with no positive), Cohen's kappa (NaN where both raters are
    constant) and the adjusted Rand index of the two partitions (1 where
    every pair of items is split alike, as scikit-learn)."""
    tp, fp, fn, tn = (np.asarray(count, dtype=np.float64) for count in (both, only_second, only_first, neither))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
        jaccard = np.where(tp + fp + fn > 0, tp / (tp + fp + fn), np.nan)
    tables = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)   # [first][second]
    return {"precision": precision, "recall": recall, "f1": f1, "jaccard": jaccard,
            "cohen_kappa": kappa_of_tables(tables), "ari": adjusted_rand_of_tables(tables)}


def adjusted_rand_of_tables(tables: np.ndarray) -> np.ndarray:
    """The adjusted Rand index (Hubert and Arabie, 1985) of two partitions
    of the same items from their contingency tables (T, K, K), through the
    pair confusion matrix as scikit-learn computes it: 1 where no pair is
    split by one and joined by the other."""
    tables = tables.astype(np.float64)
    n = tables.sum(axis=(1, 2))
    squares = (tables ** 2).sum(axis=(1, 2))
    joined_both = squares - n
    joined_second = (tables * tables.sum(axis=1)[:, None, :]).sum(axis=(1, 2)) - squares
    joined_first = (tables * tables.sum(axis=2)[:, :, None]).sum(axis=(1, 2)) - squares
    neither = n ** 2 - joined_second - joined_first - squares
    with np.errstate(invalid="ignore", divide="ignore"):
        ari = 2.0 * (joined_both * neither - joined_first * joined_second) / (
            (joined_both + joined_first) * (joined_first + neither) +
            (joined_both + joined_second) * (joined_second + neither))
    return np.where((joined_first == 0) & (joined_second == 0), 1.0, ari)
