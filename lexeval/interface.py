"""What output and reports read from a result: one machine's
:class:`~lexeval.evaluation.Evaluation` and the cluster's
:class:`~lexeval.cluster.combine.Combined` both hold these, so that the
output layer names the interface, not either class (and imports neither)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Inputs:
    """Where a result came from: the qrels and runs as given, and how they
    were read (a :class:`lexeval.options.Reading`); the reports that read
    the runs again read them so."""

    qrels: Any
    runs: tuple
    reading: Any


class Result(Protocol):
    """Runs, queries, per-measure columns (R, Q), their summaries, the tested
    pairs with their tests and preference summaries, and the options."""

    run_names: list[str]
    qids: list[str]
    columns: list                   # Column: name, measure, values (R, Q)
    included: Any                   # (R, Q) bool: the queries each run's average counts
    compared: Any                   # (Q,) bool: the queries comparisons use
    options: Any                    # SignificanceOptions
    pairs: Any                      # (P, 2) the printed and tested pairs, or None
    pair_summary: Any               # PairSummary of the preferences, or None
    tests: Any                      # PairTests, or None
    metric_pairs: Any               # MetricPairs with pair_metrics, or None
    preferences: Any                # per-query preferences (their blocks), or None
    totals: Any                     # the sums every summary and test comes from
    zscores: Any                    # -Z's reference, or None
    difference_bounds: Any          # DifferenceBounds of the pairs (--bounds), or None

    @property
    def compared_qids(self) -> list[str]: ...

    def summary(self, column) -> Any: ...

    def compared_values(self, column) -> Any: ...

    def preference_names(self) -> list[str]: ...

    def run_preference_summary(self, name: str) -> tuple: ...

    def printed_name(self, name: str) -> str: ...
