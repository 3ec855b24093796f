"""power: how many queries an experiment needs, and what these queries can
see (Sakai, "Topic set size design", Information Retrieval Journal 19, 2016;
Webber, Moffat and Zobel, "Statistical power in retrieval experimentation",
CIKM 2008).

Per measure (preferences included, through their per-query values):

- ``V_E``: the residual variance of the two-way ANOVA without replication
  over runs x queries (Sakai's estimate of the within-system variance), and
  ``sd_difference`` = sqrt(2 V_E), the standard deviation of a paired
  difference it implies;
- for each minimum detectable difference delta (``--delta``; by default a
  quarter, a half and one ``sd_difference``): the queries a paired t-test
  needs to see delta at ``alpha`` with power ``--power``
  (``queries_t@delta``), and a one-way ANOVA over the runs given to see a
  range of delta among their means (``queries_anova@delta``: Sakai's worst
  case, two means delta apart and the rest between them);
- ``mdd_t``: the smallest difference the paired t-test sees with the
  queries at hand, at that power;
- ``achieved:A:B``: each tested pair's power to see its own observed mean
  difference (post hoc: it restates the pair's p, and says nothing of
  whether a difference exists).
"""

from __future__ import annotations

import numpy as np

from ..stats.power import anova_power, smallest, t_power
from .common import COUNT, MeasureMatrices, ReportLine, ReportOptions

DEFAULT_SCALES = (0.25, 0.5, 1.0)       # default deltas, in units of sd_difference


def residual_variance(scores: np.ndarray) -> float:
    """V_E of a (runs, queries) matrix: two-way ANOVA without replication."""
    runs, queries = scores.shape
    if runs < 2 or queries < 2:
        return float("nan")
    residual = scores - scores.mean(axis=1, keepdims=True) - scores.mean(axis=0, keepdims=True) + scores.mean()
    return float((residual ** 2).sum() / ((runs - 1) * (queries - 1)))


def minimum_detectable(sd: float, queries: int, alpha: float, wanted: float) -> float:
    """The difference a paired t-test sees with ``wanted`` power (bisection)."""
    if not (sd > 0 and queries >= 2):
        return float("nan")
    low, high = 0.0, sd
    while t_power(high, sd, queries, alpha) < wanted:
        high *= 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if t_power(middle, sd, queries, alpha) < wanted else (low, middle)
    return high


def power(evaluation, data: MeasureMatrices, options: ReportOptions, progress=None) -> list[ReportLine]:
    lines = []
    names = evaluation.run_names
    tested = evaluation.pairs.tolist() if evaluation.pairs is not None else []
    row_of = {tuple(pair): row for row, pair in enumerate(data.pairs.tolist())}
    for name, scores in data.scores.items():
        runs, queries = scores.shape
        variance = residual_variance(scores)
        sd = float(np.sqrt(2 * variance))
        lines += [ReportLine("power", name, "V_E", variance), ReportLine("power", name, "sd_difference", sd)]
        deltas = options.deltas or tuple(scale * sd for scale in DEFAULT_SCALES)
        for delta in deltas:
            shown = f"{delta:.4g}"
            needed = {"table": "power: queries needed", "row": shown, "row_name": "difference"}
            lines.append(ReportLine("power", name, f"queries_t@{shown}", float(smallest(
                lambda n, delta=delta, sd=sd: t_power(delta, sd, n, options.alpha), options.power)), COUNT,
                column="paired t-test", **needed))
            lines.append(ReportLine("power", name, f"queries_anova@{shown}", float(smallest(
                lambda n, delta=delta, variance=variance, runs=runs:
                anova_power(delta, variance, runs, n, options.alpha), options.power)), COUNT,
                column="one-way ANOVA", **needed))
        lines.append(ReportLine("power", name, "mdd_t", minimum_detectable(sd, queries, options.alpha, options.power)))
        differences = data.differences[name]
        for a, b in tested:
            row = row_of[(min(a, b), max(a, b))]
            own = differences[row]
            spread = float(own.std(ddof=1)) if len(own) > 1 else float("nan")
            lines.append(ReportLine("power", name, f"achieved:{names[a]}:{names[b]}",
                                    t_power(abs(float(own.mean())), spread, len(own), options.alpha),
                                    table="power: achieved by each tested pair", row=f"{names[a]}:{names[b]}",
                                    row_name="pair", column="achieved"))
    return lines
