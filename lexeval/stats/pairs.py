"""Statistics of pairs of runs: which test each measure gets, the pairs to
test, preference summaries (means, wins, losses, ties, run scores) and every
tested difference's p-value, interval and effect size. Functions of arrays:
per-query values (R, Q) and preferences (pairs, Q) in, per-pair arrays out."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..choices import CORRECTIONS, PREFERENCE_NAMES, SIGN_PREFERENCES, TESTS
from ..errors import UsageError
from ..measures.registry import REAL, Measure
from ..preferences import Preferences, RunSpread, run_pairs
from . import significance as sig


@dataclass(frozen=True)
class SignificanceOptions:
    """How differences are tested: the test, its correction, HSD, intervals."""

    test: str = "t"                 # t | randomization | none
    permutations: int = 10_000
    seed: int | None = 0
    correction: str = "none"        # none | holm | holm-sidak | bonferroni | bh
    hsd: bool = False
    alpha: float = 0.05
    baseline: str | None = None     # test only this run against each other run
    ci: bool = False                # confidence intervals and effect sizes of differences
    confidence: float = 0.95
    resamples: int = 2000           # bootstrap resamples for the intervals

    def __post_init__(self):
        if self.test not in TESTS:
            raise UsageError(f"unknown test '{self.test}' (one of {', '.join(TESTS)})")
        if self.correction not in CORRECTIONS:
            raise UsageError(f"unknown correction '{self.correction}' (one of {', '.join(CORRECTIONS)})")
        if not 0.0 <= self.alpha <= 1.0:                       # also refuses NaN
            raise UsageError(f"alpha must be in [0, 1], got {self.alpha}")
        if not 0.0 < self.confidence < 1.0:
            raise UsageError(f"confidence must be in (0, 1), got {self.confidence}")


# ---------------------------------------------------------------- which test

SIGN = "sign"                   # exact binomial test over the untied queries
ONE_SAMPLE_T = "one-sample t"   # the values are already differences


def testable(measure: Measure) -> bool:
    """Real-valued per-query metrics get tests; counts and text do not."""
    return measure.per_query and measure.value == REAL


def test_for(name: str, measure: Measure | None = None, test: str = "t") -> str | None:
    """The one rule for which test a measure's differences get: the sign
    test for LP and LR (Diaz, "Best-Case Retrieval Evaluation", section
    4.2), a one-sample t-test for the other preferences, the paired ``test``
    (t or randomization) for real-valued metrics, None for counts and text."""
    if name in PREFERENCE_NAMES:
        return SIGN if name in SIGN_PREFERENCES else ONE_SAMPLE_T
    if measure is None or not testable(measure) or test == "none":
        return None
    return test


def p_values(kind: str, differences: np.ndarray, options: SignificanceOptions) -> np.ndarray:
    """(P,) two-sided p-values of the rows of ``differences`` (P, Q), with
    the test ``kind`` from :func:`test_for`."""
    if kind == SIGN:
        return sig.sign_test(differences)
    if kind == "randomization":
        return sig.randomization(differences, options.permutations, options.seed)
    return sig.one_sample_t(differences)      # paired t: a one-sample t-test of the differences


def intervals(kind: str, differences: np.ndarray, options: SignificanceOptions) -> tuple[np.ndarray, np.ndarray]:
    """(P,) each: t-based intervals for the paired t-test, percentile
    bootstrap over queries otherwise."""
    if kind == "t":
        return sig.t_interval(differences, options.confidence)
    return sig.bootstrap_interval(differences, options.confidence, options.resamples, options.seed)


# ---------------------------------------------------------------- pairs


def selected_pairs(run_names: list[str], baseline: str | None) -> np.ndarray:
    """(P, 2) the pairs to print and test: all, or those with the baseline."""
    pairs = np.array(run_pairs(len(run_names)), dtype=np.int64).reshape(-1, 2)
    if baseline is None:
        return pairs
    if baseline not in run_names:
        raise UsageError(f"--baseline '{baseline}' is not one of the runs: {', '.join(run_names)}")
    index = run_names.index(baseline)
    return pairs[(pairs[:, 0] == index) | (pairs[:, 1] == index)]


def pair_rows(num_runs: int, pairs: np.ndarray) -> np.ndarray:
    """Row of each of ``pairs`` (a, b), a < b, in the list of all pairs in
    :func:`~lexeval.preferences.run_pairs` order."""
    a, b = pairs[:, 0], pairs[:, 1]
    return a * (2 * num_runs - a - 1) // 2 + (b - a - 1)


@dataclass(frozen=True)
class PairSummary:
    """Per printed pair and preference: the mean over compared queries,
    wins, losses and ties (P,) each; the raw p-values of the preference
    tests (before correction); and every run's per-query score (R, Q)
    against all other runs. One pass over all pairs, a block at a time,
    makes them all."""

    mean: dict[str, np.ndarray]
    wins: dict[str, np.ndarray]
    losses: dict[str, np.ndarray]
    ties: dict[str, np.ndarray]
    raw_p: dict[str, np.ndarray]
    run_scores: dict[str, np.ndarray]
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci: percentile bootstrap
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)


def summarize_pairs(preferences: Preferences, pairs: np.ndarray,
                    options: SignificanceOptions | None) -> PairSummary:
    """Means, counts and (with ``options``) raw test p-values of the
    preferences of ``pairs``, and every run's scores; memory follows a block
    of pairs, not all pairs x queries."""
    runs, queries = preferences.rankings.num_runs, preferences.rankings.num_queries
    names = preferences.names
    printed = np.full(len(preferences.pairs), -1, dtype=np.int64)
    printed[pair_rows(runs, pairs)] = np.arange(len(pairs))
    shape = len(pairs)
    mean = {name: np.zeros(shape) for name in names}
    wins, losses, ties = ({name: np.zeros(shape, dtype=np.int64) for name in names} for _ in range(3))
    raw_p = {name: np.ones(shape) for name in names} if options is not None else {}
    with_ci = options is not None and options.ci
    low, high, effect = ({name: np.full(shape, np.nan) for name in names} if with_ci else {} for _ in range(3))
    totals = {name: np.zeros((runs, queries)) for name in names}
    for rows, values, _ in preferences.blocks():
        spread = RunSpread(preferences.pair_array[rows])
        slot = printed[rows]
        shown = slot >= 0
        for name, block in values.items():
            spread.add(totals[name], block)
            if not shown.any():
                continue
            rows_shown, where = block[shown], slot[shown]
            if queries:   # added left to right, as the per-query lines read
                mean[name][where] = np.cumsum(rows_shown, axis=1)[:, -1] / queries
            wins[name][where] = (rows_shown > 0).sum(axis=1)
            losses[name][where] = (rows_shown < 0).sum(axis=1)
            ties[name][where] = (rows_shown == 0).sum(axis=1)
            if options is not None:
                raw_p[name][where] = p_values(test_for(name), rows_shown, options)
            if with_ci:
                low[name][where], high[name][where] = intervals("bootstrap", rows_shown, options)
                effect[name][where] = sig.effect_size(rows_shown)
    run_scores = {name: total / max(runs - 1, 1) for name, total in totals.items()}
    return PairSummary(mean, wins, losses, ties, raw_p, run_scores, low, high, effect)


@dataclass(frozen=True)
class PairTests:
    """p-values per measure for the tested pairs, (P,) each, corrected."""

    p: dict[str, np.ndarray]
    hsd_p: dict[str, np.ndarray]
    mean_difference: dict[str, np.ndarray]   # A minus B (preferences: mean preference of A)
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)


def compute_pair_tests(metrics: dict[str, tuple[Measure, np.ndarray]], summary: PairSummary | None,
                       pairs: np.ndarray, options: SignificanceOptions) -> PairTests:
    """Every tested measure's p-values for ``pairs``, corrected per measure.

    ``metrics``: printed name -> (measure, (R, compared queries) values);
    ``summary``: the preferences' pair summary, or None."""
    p, hsd_p, difference = {}, {}, {}
    ci_low, ci_high, effect = {}, {}, {}
    for name, (measure, values) in metrics.items():
        kind = test_for(name, measure, options.test)
        if kind is None:
            continue
        values = values.astype(np.float64)
        queries = values.shape[1]
        step = max(1, (1 << 21) // max(queries, 1))        # pairs per block: memory follows the block
        mean, raw = np.zeros(len(pairs)), np.ones(len(pairs))
        if options.ci:
            low, high, size = (np.full(len(pairs), np.nan) for _ in range(3))
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            gaps = values[block[:, 0]] - values[block[:, 1]]
            if queries:
                mean[start:start + step] = gaps.mean(axis=1)
            raw[start:start + step] = p_values(kind, gaps, options)
            if options.ci:
                low[start:start + step], high[start:start + step] = intervals(kind, gaps, options)
                size[start:start + step] = sig.effect_size(gaps)
        difference[name] = mean
        if options.ci:
            ci_low[name], ci_high[name], effect[name] = low, high, size
        p[name] = sig.correct(raw, options.correction)
        if options.hsd:
            hsd_p[name] = sig.tukey_hsd(values, pairs)
    if summary is not None:
        for name in summary.mean:
            difference[name] = summary.mean[name]
            p[name] = sig.correct(summary.raw_p[name], options.correction)
            if options.hsd:
                hsd_p[name] = sig.tukey_hsd(summary.run_scores[name], pairs)
            if options.ci:
                ci_low[name], ci_high[name], effect[name] = \
                    summary.ci_low[name], summary.ci_high[name], summary.effect[name]
    return PairTests(p, hsd_p, difference, ci_low, ci_high, effect)


@dataclass(frozen=True)
class MetricPairs:
    """Metrics as preferences (``--pair-metrics``; pref_eval's metric
    preferences, ranx's win/tie/loss): per metric, for each pair (P,), the
    mean over compared queries of M(A) - M(B) and the queries A wins, loses
    and ties."""

    mean: dict[str, np.ndarray]
    wins: dict[str, np.ndarray]
    losses: dict[str, np.ndarray]
    ties: dict[str, np.ndarray]


def metric_pairs(metrics: dict[str, tuple[Measure, np.ndarray]], pairs: np.ndarray) -> MetricPairs:
    """``metrics``: printed name -> (measure, (R, compared queries) values);
    only real-valued per-query metrics take part."""
    mean, wins, losses, ties = {}, {}, {}, {}
    for name, (measure, values) in metrics.items():
        if not testable(measure):
            continue
        values = values.astype(np.float64)
        queries = values.shape[1]
        step = max(1, (1 << 21) // max(queries, 1))
        mean[name], wins[name], losses[name], ties[name] = (np.zeros(len(pairs)), *(
            np.zeros(len(pairs), dtype=np.int64) for _ in range(3)))
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            gaps = values[block[:, 0]] - values[block[:, 1]]
            chosen = slice(start, start + step)
            if queries:   # added left to right, as the per-query lines read
                mean[name][chosen] = np.cumsum(gaps, axis=1)[:, -1] / queries
            wins[name][chosen] = (gaps > 0).sum(axis=1)
            losses[name][chosen] = (gaps < 0).sum(axis=1)
            ties[name][chosen] = (gaps == 0).sum(axis=1)
    return MetricPairs(mean, wins, losses, ties)
