"""The CI gate: a verdict for every candidate run and gate measure.

A candidate fails a gate measure where it is worse than the baseline by more
than the margin with p < alpha (after the correction). Every verdict keeps
what a CI report shows: the values, the difference and its interval, p, and
the rule it was judged by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..choices import PREFERENCE_NAMES
from ..errors import UsageError
from .pairs import test_for
from .power import smallest, t_power

POWER_WANTED = 0.8
#: the drop the gate should see when no margin names one: half the differences' standard deviation
#: (Cohen's "medium" standardized effect)
DEFAULT_EFFECT = 0.5


@dataclass(frozen=True)
class GateVerdict:
    """One candidate run on one gate measure, against the baseline."""

    run: str
    baseline: str
    measure: str
    difference: float     # run minus baseline (preferences: mean preference of run over baseline)
    ci_low: float         # the difference's confidence interval (NaN below two queries)
    ci_high: float
    confidence: float
    p: float              # after the correction
    alpha: float
    correction: str
    margin: float
    test: str             # the test of its p: t, randomization, sign, one-sample t, one-sided t
    run_value: float      # the measure's summary value (NaN for preferences: they have no per-run value)
    baseline_value: float
    passed: bool
    gate_test: str = "worse"        # worse: fail where significantly worse; non-inferiority: pass where shown
    drop: float = float("nan")      # the drop the power is of: the margin, or DEFAULT_EFFECT sd
    power: float = float("nan")     # the gate's power to see that drop with the queries at hand
    queries_for_power: int = 0      # queries that would give POWER_WANTED (0: unknown)
    bound_low: float = float("nan")   # --bounds: the least and greatest difference over the unjudged grades
    bound_high: float = float("nan")

    @property
    def could_reverse(self) -> bool:
        """Significant, with a difference whose bounds over the unjudged
        documents' grades reach zero or the other side (--bounds)."""
        if not (self.p < self.alpha and self.bound_low == self.bound_low):
            return False
        return self.bound_low <= 0 if self.difference > 0 else self.bound_high >= 0


@dataclass(frozen=True)
class GateFailure:
    run: str
    measure: str
    difference: float     # run minus baseline (preferences: mean preference of run)
    p: float


def gate_verdicts(result, gates: list[str], margin: float = 0.0, gate_test: str = "worse") -> list[GateVerdict]:
    """A verdict per gate measure and candidate (gate by gate, candidates in
    command-line order), from a result (:class:`lexeval.interface.Result`):
    its tests of its pairs, every pair holding the baseline; its totals give
    the difference's t interval where --ci did not compute one, its
    summaries the (R,) value of each metric beside the verdicts.

    ``gate_test`` "worse" fails a candidate where it is worse by more than
    ``margin`` with p < alpha (the pair's own test); "non-inferiority"
    passes it only where a one-sided t-test of the mean difference (or mean
    preference) against -``margin`` rejects "worse by the margin or more"
    at alpha (corrected over the candidates). Each verdict carries the power
    of its test to see a drop of the margin (or of half the differences'
    standard deviation where the margin is 0)."""
    tests, totals, pairs, run_names, options = result.tests, result.totals, result.pairs, result.run_names, \
        result.options
    if tests is None or options.baseline is None:
        raise UsageError("--gate needs two or more runs, --baseline RUN and a test (--test t or randomization)")
    if gate_test == "non-inferiority" and not margin > 0:
        raise UsageError("--gate-test non-inferiority needs --gate-margin D > 0 (the drop that counts as worse)")
    from .conclusions import t_interval
    from .significance import correct
    baseline = run_names.index(options.baseline)
    run_values = {column.name: result.summary(column) for column in result.columns
                  if column.name in gates and column.name in tests.p}
    verdicts = []
    bounds = getattr(result, "difference_bounds", None)
    for gate in gates:
        if gate not in tests.p:
            raise UsageError(f"--gate {gate}: not a tested measure here "
                             f"(tested: {', '.join(tests.p) or 'none'})")
        if gate in tests.ci_low:
            low, high = tests.ci_low[gate], tests.ci_high[gate]
        else:
            moments = totals.metrics[gate] if gate in totals.metrics else totals.preferences[gate]
            low, high = t_interval(moments, options.confidence)
        values = run_values.get(gate)
        moments = totals.metrics[gate] if gate in totals.metrics else totals.preferences[gate]
        signs = np.array([1.0 if b == baseline else -1.0 for a, b in pairs.tolist()])     # candidate minus baseline
        means, spreads, counts = signs * moments.mean(), moments.spread(), moments.count()
        if gate_test == "non-inferiority":
            ps = correct(non_inferiority_p(means, spreads, counts, margin), options.correction)
            test = "one-sided t"
        else:
            ps = tests.p[gate]
            test = cast(str, test_for(gate)) if gate in PREFERENCE_NAMES else options.test  # LP and LR: the sign test
        for row, (a, b) in enumerate(pairs.tolist()):
            other = b if a == baseline else a
            difference = float(means[row]) + 0.0                # + 0.0: no -0.0 where nothing differs
            interval = sorted((float(signs[row] * low[row]) + 0.0, float(signs[row] * high[row]) + 0.0))
            p = float(ps[row])
            drop = margin if margin > 0 else DEFAULT_EFFECT * float(spreads[row])
            power, needed = gate_power(drop, float(spreads[row]), int(counts[row]), options.alpha, gate_test)
            passed = p < options.alpha if gate_test == "non-inferiority" else \
                not (difference < -margin and p < options.alpha)
            bounded = sorted((float(signs[row] * bounds.low[gate][row]), float(signs[row] * bounds.high[gate][row]))) \
                if bounds is not None and gate in bounds.low else (float("nan"), float("nan"))
            verdicts.append(GateVerdict(
                run_names[other], options.baseline, gate, difference, interval[0], interval[1], options.confidence,
                p, options.alpha, options.correction, margin, test,
                float(values[other]) if values is not None else float("nan"),
                float(values[baseline]) if values is not None else float("nan"),
                passed=passed, gate_test=gate_test, drop=drop, power=power, queries_for_power=needed,
                bound_low=bounded[0] + 0.0, bound_high=bounded[1] + 0.0))
    return verdicts


def non_inferiority_p(means: np.ndarray, spreads: np.ndarray, counts: np.ndarray, margin: float) -> np.ndarray:
    """(P,) one-sided p of the paired t-test of H0 "mean difference <= -margin"
    against H1 "mean difference > -margin" (the candidate is not worse by the
    margin or more)."""
    from scipy.stats import t
    p = np.ones(len(means))
    varies = (spreads > 0) & (counts >= 2)
    statistic = (means[varies] + margin) / (spreads[varies] / np.sqrt(counts[varies]))
    p[varies] = t.sf(statistic, counts[varies] - 1)
    p[~varies & (counts >= 2) & (means > -margin)] = 0.0     # every difference equal, and above -margin
    return p


def gate_power(drop: float, spread: float, queries: int, alpha: float, gate_test: str) -> tuple[float, int]:
    """(power, queries for POWER_WANTED) of the gate's paired t-test to see a
    true difference of ``drop`` (standard deviation ``spread``): the two-sided
    test's power to find a drop of ``drop`` ("worse"), or the one-sided
    test's power to show non-inferiority by the margin ``drop`` when the
    runs are equal ("non-inferiority"). NaN where the differences do not vary."""
    if not (spread > 0 and drop > 0 and queries >= 2):
        return float("nan"), 0
    one_sided = gate_test == "non-inferiority"
    achieved = t_power(drop, spread, queries, alpha, one_sided)
    # the queries 0.8 needs, as the power report finds them: fewer than at hand where the power is ample
    return achieved, smallest(lambda n: t_power(drop, spread, n, alpha, one_sided), POWER_WANTED)


def effect_words(verdict: GateVerdict) -> str:
    """What the drop the power is of stands for: the margin, or the standardized effect used without one."""
    if verdict.margin > 0:
        return f"the margin {verdict.margin:g}"
    return f"{DEFAULT_EFFECT:g} sd of the differences, Cohen's medium effect, as no --gate-margin names one"


def failures_of(verdicts: list[GateVerdict]) -> list[GateFailure]:
    """The failed verdicts, as the library has always returned them."""
    return [GateFailure(v.run, v.measure, v.difference, v.p) for v in verdicts if not v.passed]
