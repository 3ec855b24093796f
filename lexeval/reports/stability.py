"""stability: Buckley-Voorhees stability over random halves of the queries,
and Kendall's tau between each measure's and the reference's system orderings."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .common import MeasureMatrices, ReportLine, ReportOptions


def stability(evaluation, data: MeasureMatrices, options: ReportOptions,
              progress: Callable | None = None) -> list[ReportLine]:
    rng = np.random.default_rng(options.seed)
    queries = int(evaluation.compared.sum())
    half = max(queries // 2, 1)
    membership = np.zeros((options.trials, queries))
    for trial in range(options.trials):
        membership[trial, rng.choice(queries, size=half, replace=False)] = 1.0
        if progress and (trial + 1) % 50 == 0:
            progress(trial + 1, options.trials)
    lines = []
    reference_order = data.scores[options.reference].mean(axis=1) if options.reference in data.scores else None
    for name, d in data.differences.items():
        full = np.sign(d.sum(axis=1))                               # (P,)
        sampled = np.sign(d @ membership.T)                          # (P, trials)
        agree = (sampled == full[:, None]).mean(axis=1)
        lines.append(ReportLine("stability", name, "all", float(agree.mean()) if agree.size else 0.0))
        if reference_order is not None and name != options.reference:
            from scipy import stats
            tau = stats.kendalltau(data.scores[name].mean(axis=1), reference_order).statistic
            lines.append(ReportLine("stability", name, "tau", 0.0 if np.isnan(tau) else float(tau)))
    return lines
