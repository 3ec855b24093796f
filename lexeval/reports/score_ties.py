"""score-ties: how far the order of documents with tied scores moves each
run's measures (every tool breaks ties its own way: trec_eval by docno,
ranx by the file's line order).

Per run and measure (the metrics tested between runs), over the queries
the run's mean counts:

- ``low:RUN`` and ``high:RUN``: the mean with every block of tied scores in
  its worst order (lower grades first, unjudged documents lowest) and in its
  best (higher grades first). A measure that never falls when a higher grade
  moves above a lower one (every rank measure of trec_eval's) takes its
  least and greatest values over all tie orders there;
- ``queries:RUN``: the queries where the two differ, the ties that matter.

``--tie-order expected`` gives each measure's mean over all those orders.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..stats.pairs import testable
from .common import COUNT, ReportLine, ReportOptions, run_inputs


def in_tie_order(rankings, best: bool):
    """The rankings with each block of tied scores sorted by grade, best
    (descending) or worst (ascending) first."""
    from ..measures.expected import Ties
    block = Ties.of(rankings).block
    key = -rankings.codes.astype(np.int32) if best else rankings.codes.astype(np.int32)
    order = np.lexsort((key, block))
    return replace(rankings, codes=rankings.codes[order], tie_groups=rankings.tie_groups[order],
                   qrels_rows=None)


def score_ties(evaluation, data, options: ReportOptions, progress=None) -> list[ReportLine]:
    from ..evaluation import compute_columns, load
    from ..io.runs import check_rereadable
    from ..options import Hooks
    runs, reading = run_inputs(evaluation, options, "--report score-ties")
    check_rereadable(runs, "--report score-ties")
    qrels = evaluation.inputs.qrels if evaluation.inputs is not None else None
    if qrels is None:
        from ..errors import UsageError
        raise UsageError("--report score-ties reads the runs again: evaluate them with lexeval.evaluate()")
    rankings = load(qrels, list(runs), replace(reading, tie_order="expected"), hooks=Hooks(warn=lambda _: None))
    requests = [req for req in evaluation.requests if testable(req.measure)]
    orders = [compute_columns(in_tie_order(rankings, best), requests) for best in (False, True)]
    lines = []
    included = evaluation.included
    for worst, best in zip(*orders):
        for r, run in enumerate(evaluation.run_names):
            counted = included[r]
            low, high = worst.values[r, counted], best.values[r, counted]
            low, high = np.minimum(low, high), np.maximum(low, high)
            where = {"table": f"score-ties: {worst.name}", "row": run, "row_name": "run"}
            lines += [ReportLine("score-ties", worst.name, f"low:{run}", float(low.mean()) if len(low) else 0.0,
                                 column="low", **where),
                      ReportLine("score-ties", worst.name, f"high:{run}", float(high.mean()) if len(high) else 0.0,
                                 column="high", **where),
                      ReportLine("score-ties", worst.name, f"queries:{run}", float((low != high).sum()), COUNT,
                                 column="queries where ties matter", **where)]
    return lines
