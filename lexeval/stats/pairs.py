"""Statistics of pairs of runs: which test each measure gets, the pairs to
test, preference summaries (means, wins, losses, ties, run scores) and every
tested difference's p-value, interval and effect size. Functions of arrays:
per-query values (R, Q) and preferences (pairs, Q) in, per-pair arrays out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ..choices import PREFERENCE_NAMES, SIGN_PREFERENCES
from ..errors import UsageError
from ..measures.registry import REAL, Measure
from ..options import Significance
from . import significance as sig
from .conclusions import bootstrap_interval, effect_size, randomization_p, sign_test, t_interval, t_test, t_tests
from .totals import Plan, Totals, run_score_summary

#: How differences are tested (the test, its correction, HSD, intervals): the
#: :class:`lexeval.options.Significance` group, by the name the library has always given it.
SignificanceOptions = Significance


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


# ---------------------------------------------------------------- pairs


def selected_pairs(run_names: list[str], baseline: str | None) -> np.ndarray:
    """(P, 2) the pairs to print and test, in :func:`run_pairs`' order: all,
    or each other run with the baseline, written (run, baseline) (made
    alone: ten thousand runs have fifty million pairs, the baseline 9,999
    of them)."""
    runs = len(run_names)
    if baseline is None:            # every pair, in order: the upper triangle's cells row by row
        return np.stack(np.triu_indices(runs, 1), axis=1).astype(np.int64)
    if baseline not in run_names:
        raise UsageError(f"--baseline '{baseline}' is not one of the runs: {', '.join(run_names)}")
    index = run_names.index(baseline)
    # run:baseline, whatever the order on the command line: every difference is run minus baseline
    others = np.delete(np.arange(runs, dtype=np.int64), index)
    return np.stack([others, np.full(len(others), index, dtype=np.int64)], axis=1).reshape(-1, 2)


def plan_for(columns: dict[str, tuple[Measure, np.ndarray]], pairs: np.ndarray, options: SignificanceOptions,
             pair_metrics: bool) -> Plan:
    """What the totals must hold for these columns, pairs and options."""
    tested = {name: kind for name, (measure, _) in columns.items()
              if (kind := test_for(name, measure, options.test)) is not None}
    paired = tuple(name for name, (measure, _) in columns.items() if pair_metrics and testable(measure))
    testing = options.test != "none"
    return Plan(pairs, tested, paired, options.permutations if options.test == "randomization" else 0,
                options.resamples if testing and options.ci else 0, options.seed, testing and options.hsd, testing)


@dataclass(frozen=True)
class PairSummary:
    """Per printed pair and preference: the mean over compared queries,
    wins, losses and ties (P,) each; the raw p-values of the preference
    tests (before correction); every run's aggregate score (R,)."""

    mean: dict[str, np.ndarray]
    wins: dict[str, np.ndarray]
    losses: dict[str, np.ndarray]
    ties: dict[str, np.ndarray]
    raw_p: dict[str, np.ndarray]
    scores: dict[str, np.ndarray]
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci: percentile bootstrap
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)


def summarize_pairs(totals: Totals, plan: Plan, options: SignificanceOptions | None, aggregate: str) -> PairSummary:
    """Means, counts, raw p-values (with ``options``) and intervals of the
    preferences of the printed pairs, and every run's aggregate score."""
    mean, wins, losses, ties, raw_p, scores, low, high, effect = ({} for _ in range(9))
    for name, moments in totals.preferences.items():
        mean[name], wins[name], losses[name], ties[name] = moments.mean(), cast(np.ndarray, moments.wins), \
            cast(np.ndarray, moments.losses), cast(np.ndarray, moments.ties)
        scores[name] = run_score_summary(totals, name, aggregate)
        if options is not None:
            raw_p[name] = sign_test(moments) if test_for(name) == SIGN else t_test(moments)
        if plan.resamples:
            low[name], high[name] = bootstrap_interval(moments, totals.resampled[name],
                                                       cast(np.ndarray, totals.weights),
                                                       cast(Significance, options).confidence)
            effect[name] = effect_size(moments)
    return PairSummary(mean, wins, losses, ties, raw_p, scores, low, high, effect)


@dataclass(frozen=True)
class PairTests:
    """p-values per measure for the tested pairs, (P,) each, corrected."""

    p: dict[str, np.ndarray]
    hsd_p: dict[str, np.ndarray]
    mean_difference: dict[str, np.ndarray]   # A minus B (preferences: mean preference of A)
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)
    raw_p: dict[str, np.ndarray] = field(default_factory=dict)      # before the correction


def compute_pair_tests(totals: Totals, plan: Plan, summary: PairSummary | None,
                       options: SignificanceOptions) -> PairTests:
    """Every tested measure's p-values for the printed pairs, corrected per
    measure, from the totals."""
    p, hsd_p, difference, raw_p = {}, {}, {}, {}
    ci_low, ci_high, effect = {}, {}, {}
    t_tested = [name for name, kind in plan.tested.items() if kind != "randomization"]
    t_raw = dict(zip(t_tested, t_tests([totals.metrics[name] for name in t_tested])))
    for name, kind in plan.tested.items():
        moments = totals.metrics[name]
        difference[name] = moments.mean()
        raw_p[name] = randomization_p(moments, totals.randomized[name]) if kind == "randomization" else t_raw[name]
        p[name] = sig.correct(raw_p[name], options.correction)
        if options.ci:
            ci_low[name], ci_high[name] = t_interval(moments, options.confidence) if kind == "t" else \
                bootstrap_interval(moments, totals.resampled[name], cast(np.ndarray, totals.weights),
                                   options.confidence)
            effect[name] = effect_size(moments)
        if options.hsd:
            hsd_p[name] = totals.anova[name].tukey_hsd(plan.pairs)
    if summary is not None:
        for name in summary.mean:
            difference[name] = summary.mean[name]
            raw_p[name] = summary.raw_p[name]
            p[name] = sig.correct(raw_p[name], options.correction)
            if options.hsd:
                hsd_p[name] = totals.anova[name].tukey_hsd(plan.pairs)
            if options.ci:
                ci_low[name], ci_high[name], effect[name] = \
                    summary.ci_low[name], summary.ci_high[name], summary.effect[name]
    return PairTests(p, hsd_p, difference, ci_low, ci_high, effect, raw_p)


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


def metric_pairs(totals: Totals, plan: Plan) -> MetricPairs:
    """The metrics of ``plan.paired`` as preferences, from the totals."""
    chosen = {name: totals.metrics[name] for name in plan.paired}
    return MetricPairs({name: mo.mean() for name, mo in chosen.items()},
                       {n: cast(np.ndarray, mo.wins) for n, mo in chosen.items()},
                       {n: cast(np.ndarray, mo.losses) for n, mo in chosen.items()},
                       {n: cast(np.ndarray, mo.ties) for n, mo in chosen.items()})
