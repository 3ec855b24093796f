"""The CI gate: a verdict for every candidate run and gate measure.

A candidate fails a gate measure where it is worse than the baseline by more
than the margin with p < alpha (after the correction). Every verdict keeps
what a CI report shows: the values, the difference and its interval, p, and
the rule it was judged by.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .pairs import PairTests, SignificanceOptions


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
    test: str
    run_value: float      # the measure's summary value (NaN for preferences: they have no per-run value)
    baseline_value: float
    passed: bool

    @property
    def rule(self) -> str:
        """The rule in words, for messages and reports."""
        return (f"fails where worse than the baseline by more than {self.margin:g} with p < {self.alpha:g} "
                f"({self.test} test, correction {self.correction})")


@dataclass(frozen=True)
class GateFailure:
    run: str
    measure: str
    difference: float     # run minus baseline (preferences: mean preference of run)
    p: float


def gate_verdicts(tests: PairTests | None, totals, pairs: np.ndarray | None, run_names: list[str],
                  options: SignificanceOptions, gates: list[str], margin: float = 0.0,
                  run_values: dict[str, np.ndarray] | None = None) -> list[GateVerdict]:
    """A verdict per gate measure and candidate (gate by gate, candidates in
    command-line order). ``tests`` are those of ``pairs``, every pair holding
    the baseline; ``totals`` give the difference's t interval where --ci did
    not compute one; ``run_values`` the (R,) summary value of each metric."""
    if tests is None or options.baseline is None:
        raise UsageError("--gate needs two or more runs, --baseline RUN and a test (--test t or randomization)")
    from .totals import t_interval
    baseline = run_names.index(options.baseline)
    run_values = run_values or {}
    verdicts = []
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
        for row, (a, b) in enumerate(pairs.tolist()):
            other = b if a == baseline else a
            sign = 1.0 if other == a else -1.0          # differences are A minus B
            difference = float(sign * tests.mean_difference[gate][row])
            interval = sorted((float(sign * low[row]), float(sign * high[row])))
            p = float(tests.p[gate][row])
            verdicts.append(GateVerdict(
                run_names[other], options.baseline, gate, difference, interval[0], interval[1], options.confidence,
                p, options.alpha, options.correction, margin, options.test,
                float(values[other]) if values is not None else float("nan"),
                float(values[baseline]) if values is not None else float("nan"),
                passed=not (difference < -margin and p < options.alpha)))
    return verdicts


def failures_of(verdicts: list[GateVerdict]) -> list[GateFailure]:
    """The failed verdicts, as the library has always returned them."""
    return [GateFailure(v.run, v.measure, v.difference, v.p) for v in verdicts if not v.passed]
