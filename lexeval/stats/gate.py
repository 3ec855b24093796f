"""The CI gate: runs significantly worse than the baseline on a gate measure."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .pairs import PairTests, SignificanceOptions


@dataclass(frozen=True)
class GateFailure:
    run: str
    measure: str
    difference: float     # run minus baseline (preferences: mean preference of run)
    p: float


def gate_failures(tests: PairTests | None, pairs: np.ndarray | None, run_names: list[str],
                  options: SignificanceOptions, gates: list[str], margin: float = 0.0) -> list[GateFailure]:
    """Runs worse than the baseline on a gate measure by more than ``margin``
    with p < alpha (after correction). ``tests`` are those of ``pairs``,
    every pair holding the baseline."""
    if tests is None or options.baseline is None:
        raise UsageError("--gate needs two or more runs, --baseline RUN and a test (--test t or randomization)")
    baseline = run_names.index(options.baseline)
    failures = []
    for gate in gates:
        if gate not in tests.p:
            raise UsageError(f"--gate {gate}: not a tested measure here "
                             f"(tested: {', '.join(tests.p) or 'none'})")
        for row, (a, b) in enumerate(pairs):
            other = b if a == baseline else a
            sign = 1.0 if other == a else -1.0          # differences are A minus B
            difference = sign * tests.mean_difference[gate][row]
            p = tests.p[gate][row]
            if difference < -margin and p < options.alpha:
                failures.append(GateFailure(run_names[other], gate, float(difference), float(p)))
    return failures
