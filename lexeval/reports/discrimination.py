"""discrimination: % of pairs significant at alpha, with each measure's test
and correction, and with Tukey HSD."""

from __future__ import annotations

from ..stats import significance as sig
from ..stats.pairs import SignificanceOptions, p_values, test_for
from .common import MeasureMatrices, ReportLine, ReportOptions, percent


def discrimination(evaluation, data: MeasureMatrices, options: ReportOptions) -> list[ReportLine]:
    tests = SignificanceOptions(test=options.test, permutations=options.permutations, seed=options.seed)
    lines = []
    for name, d in data.differences.items():
        p = p_values(test_for(name, data.measures[name], options.test), d, tests)
        p = sig.correct(p, options.correction)
        lines.append(ReportLine("discrimination", name, "test", percent(p < options.alpha)))
        hsd = sig.tukey_hsd(data.scores[name], data.pairs)
        lines.append(ReportLine("discrimination", name, "hsd", percent(hsd < options.alpha)))
    return lines
