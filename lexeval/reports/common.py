"""What every report reads: its options, its output lines, and the two
matrices per measure (differences over pairs, scores over runs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..evaluation import Evaluation
from ..measures.registry import Measure
from ..preferences import run_pairs
from ..stats.pairs import testable


@dataclass
class ReportOptions:
    reference: str = "recip_rank"
    trials: int = 1000
    fractions: tuple[float, ...] = (1.0, 0.8, 0.6, 0.4, 0.2)
    samples: int = 10
    seed: int = 0
    alpha: float = 0.05
    test: str = "t"
    permutations: int = 10_000
    correction: str = "none"
    label_policy: str = "random"    # degradation: random, or pool (the most retrieved labels kept)
    degradation: bool = False       # the degradation report is asked for (a cluster counts its labels where they are)
    deltas: tuple[float, ...] = ()  # power: minimum detectable differences (default: scaled to each measure's spread)
    power: float = 0.8              # power: the power wanted
    original: tuple[str, str] | None = None      # reproduction: the original baseline and advanced runs
    reproduced: tuple[str, str] | None = None    # reproduction: their reproductions
    replication_qrels: object | None = None      # reproduction: the reproductions' own qrels (replicability)
    cutoffs: tuple[int, ...] = (5, 10, 20, 50, 100, 1000)   # reproduction: KTU@k and RBO@k
    rbo_p: float | None = None      # RBO's persistence (default: each report's own)
    compare_qrels: tuple = ()       # judges: the other judgement sets
    judged_at: int = 10             # judges: the top k whose judged share is counted
    top_runs: int = 10              # judges: the correlations over the first set's top K runs (<corr>@K)
    run_groups: str | None = None   # judges: a run<TAB>group file
    group_by: str | None = None     # reusability, judges: runs are grouped by their name up to this separator
    pool_depth: int = 100           # reusability: the depth the pool was made to
    per_query: bool = False         # -q: per-query lines where a report has them
    runs: tuple = ()                # the run inputs in the evaluation's order, for reports that read them again
    reading: Any = None             # how they were read (a lexeval.options.Reading; default: as the evaluation's)
    warn: Callable[[str], Any] | None = None      # where notes on those readings go (default: warnings)


PERCENT, COUNT, RANK = "%", "count", "rank"      # a figure's unit (counts and ranks print as integers)


@dataclass
class ReportLine:
    """One figure of a report: the text output's four columns (report,
    measure, parameter, value), and where a table shows it (``table``, its
    ``row``, whose header is ``row_name``, and ``column``; by default the
    report's table, a row per measure, a column per parameter)."""

    report: str
    measure: str
    parameter: str
    value: float
    unit: str = ""                  # PERCENT (0-100), COUNT, RANK or "" (a number)
    table: str = ""
    row: str = ""
    row_name: str = ""
    column: str = ""

    @property
    def integer(self) -> bool:
        """A count or rank with an integer value: printed as one."""
        return self.unit in (COUNT, RANK) and float(self.value).is_integer()


@dataclass
class MeasureMatrices:
    """Per measure: differences (P, Q) over all pairs, scores (R, Q)."""

    pairs: np.ndarray
    differences: dict[str, np.ndarray] = field(default_factory=dict)
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    measures: dict[str, Measure | None] = field(default_factory=dict)   # None: a preference


def matrices(evaluation: Evaluation) -> MeasureMatrices:
    """Differences and scores of every tested measure of an evaluation."""
    pairs = np.array(run_pairs(len(evaluation.run_names)), dtype=np.int64).reshape(-1, 2)
    out = MeasureMatrices(pairs)
    for column in evaluation.columns:
        if testable(column.measure):
            values = evaluation.compared_values(column).astype(np.float64)
            out.differences[column.name] = values[pairs[:, 0]] - values[pairs[:, 1]]
            out.scores[column.name] = values
            out.measures[column.name] = column.measure
    if evaluation.preferences is not None:
        for name, values in evaluation.preferences.values.items():
            out.differences[name] = values
            out.scores[name] = evaluation.run_preference_scores(name)
            out.measures[name] = None
    return out


def run_inputs(evaluation, options: ReportOptions, reader: str):
    """The run inputs, in the evaluation's order, and how to read them again
    (a :class:`lexeval.options.Reading` at the evaluation's level), for a
    report that reads them again: the options' if given, else what
    :func:`lexeval.evaluation.evaluate` kept."""
    from ..errors import UsageError
    from ..options import Reading
    kept = evaluation.inputs
    runs = tuple(options.runs) or (tuple(kept.runs) if kept is not None else ())
    if len(runs) != len(evaluation.run_names):
        raise UsageError(f"{reader} reads the runs again: give their inputs (ReportOptions(runs=...))")
    given = options.reading or (kept.reading if kept is not None else Reading())
    # cut as the evaluation cut them (-M, -J), at its level, with its kind of judgements (subtopics, -R) and its
    # filled holes (--fill-qrels); their notes were said already
    subtopics = given.subtopics or getattr(evaluation.rankings, "subtopics", None) is not None
    return runs, Reading(level=evaluation.level, depth=given.depth, judged_only=given.judged_only, jobs=given.jobs,
                         subtopics=subtopics, rel_format=given.rel_format, fill_qrels=given.fill_qrels)


def percent(mask: np.ndarray) -> float:
    return 100.0 * float(mask.mean()) if mask.size else 0.0
