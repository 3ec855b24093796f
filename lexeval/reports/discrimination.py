"""discrimination: % of pairs significant at alpha, with each measure's test
and correction, and with Tukey HSD."""

from __future__ import annotations

from typing import cast

from ..stats import significance as sig
from ..stats.conclusions import matrix_hsd, matrix_p_values
from ..stats.pairs import test_for
from ..stats.sums import query_keys
from .common import PERCENT, MeasureMatrices, ReportLine, ReportOptions, percent


def discrimination(evaluation, data: MeasureMatrices, options: ReportOptions, progress=None) -> list[ReportLine]:
    keys = query_keys(evaluation.compared_qids) if options.test == "randomization" else None
    lines = []
    for name, d in data.differences.items():
        p = matrix_p_values(cast(str, test_for(name, data.measures[name], options.test)), d, options.permutations,
                            options.seed, keys)
        p = sig.correct(p, options.correction)
        lines.append(ReportLine("discrimination", name, "test", percent(p < options.alpha), PERCENT))
        hsd = matrix_hsd(data.scores[name], data.pairs)
        lines.append(ReportLine("discrimination", name, "hsd", percent(hsd < options.alpha), PERCENT))
    return lines
