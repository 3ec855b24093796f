"""agreement: where ``--reference`` prefers one run, how often each measure
agrees (ranking agreement), and how often the mean differences agree in sign
(system agreement)."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from .common import PERCENT, MeasureMatrices, ReportLine, ReportOptions, percent


def agreement(evaluation, data: MeasureMatrices, options: ReportOptions, progress=None) -> list[ReportLine]:
    reference = data.differences.get(options.reference)
    if reference is None:
        raise UsageError(f"--reference {options.reference}: not a measure compared between runs "
                         "(a count or text); choose a real-valued measure or a preference")
    lines = []
    reference_mean = reference.mean(axis=1)
    for name, d in data.differences.items():
        if name == options.reference:
            continue
        cases = reference != 0
        lines.append(ReportLine("agreement", name, "ranking",
                                percent(np.sign(d[cases]) == np.sign(reference[cases])), PERCENT))
        differs = reference_mean != 0
        lines.append(ReportLine("agreement", name, "system",
                                percent(np.sign(d.mean(axis=1)[differs]) == np.sign(reference_mean[differs])),
                                PERCENT))
    return lines
