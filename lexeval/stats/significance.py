"""Significance of differences between runs, vectorised over pairs.

Every function takes matrices of per-query values and returns one p-value
per pair: shapes (P, Q) in, (P,) out. Which test a measure gets:

- per-run metrics: two-sided paired t-test (default) or a paired
  randomization test (sign flips of the per-query differences);
- LP, LR (signs): two-sided exact binomial (sign) test over non-tied queries;
- rrLP, rrLR (magnitudes): one-sample t-test of the values against 0;
- Tukey HSD: two-way ANOVA with runs and queries as factors (Carterette
  2012) and the studentized range distribution, over all runs at once.

Degenerate cases (all differences zero, fewer than two queries) give p = 1.
"""

from __future__ import annotations

import warnings

import numpy as np

from .distributions import binomial_lower_tail, t_two_sided

# scipy is imported only where it is needed (Tukey HSD's studentized range,
# the t quantile of --ci): the t and binomial tails of every default call
# are computed in lexeval.distributions.


def one_sample_t(values: np.ndarray) -> np.ndarray:
    """(P,) two-sided p of a one-sample t-test of each row against 0."""
    values = np.asarray(values, dtype=np.float64)
    count = values.shape[1]
    if count < 2:
        return np.ones(len(values))
    mean = values.mean(axis=1)
    spread = values.std(axis=1, ddof=1)
    p = np.ones(len(values))
    varies = spread > 0
    t = mean[varies] / (spread[varies] / np.sqrt(count))
    p[varies] = t_two_sided(t, count - 1)
    p[~varies & (mean != 0)] = 0.0          # every difference equal and non-zero
    return p


def paired_t(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """(P,) two-sided p of the paired t-test of rows of first vs second."""
    return one_sample_t(np.asarray(first, dtype=np.float64) - second)


def sign_test(signs: np.ndarray) -> np.ndarray:
    """(P,) two-sided exact binomial p over the non-zero entries of each row."""
    wins = (signs > 0).sum(axis=1)
    losses = (signs < 0).sum(axis=1)
    trials = wins + losses
    smaller = np.minimum(wins, losses)
    p = np.minimum(1.0, 2 * binomial_lower_tail(smaller, trials))
    return np.where(trials == 0, 1.0, p)


def randomization(differences: np.ndarray, permutations: int = 10_000, seed: int | None = 0,
                  chunk: int = 256) -> np.ndarray:
    """(P,) two-sided p of a paired randomization test: the per-query
    differences' signs are flipped at random ``permutations`` times (the
    same flips for every pair); p = (1 + #{|mean*| >= |mean|}) / (1 + N)."""
    differences = np.asarray(differences, dtype=np.float64)
    pairs, count = differences.shape
    if count < 1 or pairs == 0:
        return np.ones(pairs)
    rng = np.random.default_rng(seed)
    flips = rng.integers(0, 2, size=(permutations, count), dtype=np.int8) * 2.0 - 1.0   # (N, Q)
    observed = np.abs(differences.sum(axis=1))
    tolerance = 1e-9 * np.maximum(1.0, np.abs(differences).sum(axis=1))
    extreme = np.zeros(pairs, dtype=np.int64)
    for start in range(0, pairs, chunk):
        block = differences[start:start + chunk] @ flips.T             # (chunk, N) sums
        extreme[start:start + chunk] = (np.abs(block) >= (observed[start:start + chunk]
                                                         - tolerance[start:start + chunk])[:, None]).sum(axis=1)
    p = (1 + extreme) / (1 + permutations)
    return np.where(np.all(differences == 0, axis=1), 1.0, p)


def correct(p: np.ndarray, method: str) -> np.ndarray:
    """Adjust one measure's p-values over all pairs (family-wise: bonferroni,
    holm, holm-sidak; false discovery rate: bh, Benjamini-Hochberg)."""
    p = np.asarray(p, dtype=np.float64)
    count = len(p)
    if method == "none" or count == 0:
        return p
    if method == "bonferroni":
        return np.minimum(1.0, p * count)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":                      # step down: (m - i + 1) p_(i), made monotone
        stepped = np.maximum.accumulate((count - np.arange(count)) * ranked)
    elif method == "holm-sidak":              # step down: 1 - (1 - p_(i))^(m - i + 1), without cancellation
        with np.errstate(divide="ignore"):
            stepped = np.maximum.accumulate(-np.expm1((count - np.arange(count)) * np.log1p(-ranked)))
    elif method == "bh":                      # step up: m p_(i) / i, made monotone from the top
        stepped = np.minimum.accumulate((count * ranked / np.arange(1, count + 1))[::-1])[::-1]
    else:
        raise ValueError(f"unknown correction '{method}'")
    adjusted = np.empty(count)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


def effect_size(differences: np.ndarray) -> np.ndarray:
    """(P,) standardized effect size of each row of paired differences
    (P, Q): the mean over the standard deviation (Cohen's d_z); 0 when every
    difference is 0, NaN when all are equal and not 0
    (the ratio is undefined)."""
    differences = np.asarray(differences, dtype=np.float64)
    count = differences.shape[1]
    mean = differences.mean(axis=1) if count else np.zeros(len(differences))
    spread = differences.std(axis=1, ddof=1) if count > 1 else np.zeros(len(differences))
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = mean / spread
    return np.where(spread > 0, effect, np.where(mean == 0, 0.0, np.nan))


def t_interval(differences: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """(P,) each, the t-based confidence interval of each row's mean
    difference: mean +- t_((1 + c)/2, n - 1) sd / sqrt(n); NaN with fewer
    than two queries."""
    from scipy.special import stdtrit  # only --ci needs the t quantile
    differences = np.asarray(differences, dtype=np.float64)
    count = differences.shape[1]
    if count < 2:
        return np.full(len(differences), np.nan), np.full(len(differences), np.nan)
    mean = differences.mean(axis=1)
    half = stdtrit(count - 1, (1 + confidence) / 2) * differences.std(axis=1, ddof=1) / np.sqrt(count)
    return mean - half, mean + half


def bootstrap_interval(differences: np.ndarray, confidence: float, resamples: int = 2000,
                       seed: int | None = 0, chunk: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """(P,) each, the percentile bootstrap interval of each row's mean: the
    queries are resampled with replacement ``resamples`` times (the same
    resamples for every row, from ``seed``)."""
    differences = np.asarray(differences, dtype=np.float64)
    pairs, count = differences.shape
    if count < 1 or pairs == 0:
        return np.full(pairs, np.nan), np.full(pairs, np.nan)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, count, size=(resamples, count))
    cells = (np.arange(resamples)[:, None] * count + picks).ravel()      # how often each query is drawn
    weights = np.bincount(cells, minlength=resamples * count).reshape(resamples, count) / count
    quantiles = ((1 - confidence) / 2, (1 + confidence) / 2)
    low, high = np.empty(pairs), np.empty(pairs)
    for start in range(0, pairs, chunk):
        means = differences[start:start + chunk] @ weights.T                # (chunk, resamples)
        low[start:start + chunk], high[start:start + chunk] = np.quantile(means, quantiles, axis=1)
    return low, high


class StudentizedRange:
    """Survival function of the studentized range for k groups and df.

    scipy integrates numerically for every value (~10 ms each), so a few
    values are computed exactly and many are interpolated (monotone, in log
    space) from exact values on a grid that is computed once per (k, df).
    """

    GRID = 200
    _grids: dict[tuple[int, float], tuple] = {}

    def __init__(self, groups: int, df: float):
        self.groups, self.df = groups, df

    def _exact(self, q: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from scipy import stats
            return np.clip(stats.studentized_range.sf(q, self.groups, self.df), 0.0, 1.0)

    def _grid(self):
        key = (self.groups, self.df)
        if key not in self._grids:
            top = 4.0
            while top < 500 and self._exact(np.array([top]))[0] > 1e-13:   # p below printing
                top *= 1.5
            # spacing even in log(1 + q): dense where p changes, sparse in the tail
            grid = np.expm1(np.linspace(0.0, np.log1p(top), self.GRID))
            exact = self._exact(grid)
            from scipy.interpolate import PchipInterpolator
            curve = PchipInterpolator(grid, np.log(np.maximum(exact, 1e-300)))
            self._grids[key] = (grid, curve)
        return self._grids[key]

    def sf(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=np.float64)
        unique = np.unique(q)
        if len(unique) <= 50:
            return self._exact(unique)[np.searchsorted(unique, q)]
        grid, curve = self._grid()
        return np.where(q >= grid[-1], 0.0, np.clip(np.exp(curve(np.minimum(q, grid[-1]))), 0.0, 1.0))


def tukey_hsd(scores: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(P,) Tukey HSD p for each pair (a, b) of rows of ``scores`` (R, Q),
    from the two-way ANOVA (runs x queries, no interaction)."""
    scores = np.asarray(scores, dtype=np.float64)
    runs, queries = scores.shape
    if runs < 2 or queries < 2 or len(pairs) == 0:
        return np.ones(len(pairs))
    run_means = scores.mean(axis=1)
    residual = scores - run_means[:, None] - scores.mean(axis=0)[None, :] + scores.mean()
    df = (runs - 1) * (queries - 1)
    mse = (residual ** 2).sum() / df
    gap = np.abs(run_means[pairs[:, 0]] - run_means[pairs[:, 1]])
    if mse <= 0:
        return np.where(gap > 0, 0.0, 1.0)
    q = gap / np.sqrt(mse / queries)
    return StudentizedRange(runs, df).sf(q)
