"""The papers' evaluation analyses, on any set of runs (``--report NAME``).

Every report works from the same two matrices per measure:

- differences D (P, Q): for every pair of runs (A before B) and every query,
  A minus B for a metric, the preference of A over B for LP, rrLP, LR, rrLR;
- scores (R, Q): each run's per-query value (for preferences, its mean
  preference against the other runs), which orders systems.

Reports (Diaz, "Best-Case Retrieval Evaluation", sections 2, 3.6, 4.2
and 5; Diaz, "Recall, Robustness, and Lexicographic Evaluation", section 6;
Türkmen et al., "New Metrics to Encourage Innovation and Diversity", section 4):

- ties: % of (query, pair) cases each measure ties; for LP also the tie
  probability at each recall level and the distribution of the deciding level;
- agreement: % of (query, pair) cases where ``--reference`` differs and the
  measure agrees in sign (ranking agreement), and % of pairs whose mean
  differences agree in sign (system agreement);
- discrimination: % of pairs significant at alpha, with the paired test and
  correction chosen, and with Tukey HSD;
- stability: Buckley-Voorhees stability over random halves of the queries,
  and Kendall's tau between the measure's and the reference's orderings;
- degradation: relevant labels removed at random (at least one kept per
  query): ties and agreement with the full-label preferences, mean and sd;
- power: queries needed (paired t-test, one-way ANOVA) to see a difference,
  the difference the queries at hand can see, each tested pair's power
  (Sakai, "Topic set size design", 2016; see lexeval.reports.power);
- reproduction: repro_eval's measures of an original and a reproduced pair
  of runs: KTU, RBO, RMSE, nRMSE, ER, DeltaRI and p (Breuer et al., SIGIR
  2020; see lexeval.reports.reproduction);
- judges: the leaderboards, significance and document grades under other
  judgement sets (see lexeval.reports.judges);
- reusability: each run (group) scored without the relevant documents
  only it contributed to the pool (see lexeval.reports.reusability);
- score-ties: each run's measures with its tied scores in their worst and
  best orders, and the queries where that matters (see
  lexeval.reports.score_ties).

Everything random draws from one ``numpy.random.Generator(seed)``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UsageError
from ..evaluation import Evaluation
from .agreement import agreement
from .common import MeasureMatrices, ReportLine, ReportOptions, matrices
from .degradation import degradation
from .discrimination import discrimination
from .judges import judges
from .power import power
from .reproduction import reproduction
from .reusability import reusability
from .score_ties import score_ties
from .stability import stability
from .ties import ties

__all__ = ["ReportLine", "ReportOptions", "run_reports"]


#: Every report, by the name --report takes: each ``report(evaluation, data, options, progress)``, with ``data``
#: the two matrices per measure (:class:`MeasureMatrices`, made when a report first reads them), ``options``
#: the reports' :class:`ReportOptions` and ``progress(done, total)`` (or None) following its sampling.
REPORT_FUNCTIONS: dict[str, Callable] = {"ties": ties, "agreement": agreement, "discrimination": discrimination,
                                         "stability": stability, "power": power, "reproduction": reproduction,
                                         "judges": judges, "reusability": reusability, "degradation": degradation,
                                         "score-ties": score_ties}


class _Matrices:
    """:func:`matrices` of an evaluation, made when a report first reads them
    (the reports of other judgements and runs never do)."""

    def __init__(self, evaluation: Evaluation):
        self._evaluation = evaluation
        self._made: MeasureMatrices | None = None

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._made is None:
            self._made = matrices(self._evaluation)
        return getattr(self._made, name)


def run_reports(evaluation: Evaluation, names: list[str], options: ReportOptions,
                progress: Callable | None = None) -> list[ReportLine]:
    """Every requested report, once each, in the order asked.
    ``progress(label, done, total)`` follows the sampling loops."""
    if not evaluation.compared.any():
        raise UsageError(f"--report compares runs on the queries with a relevant document (grade >= "
                         f"{evaluation.level}), and there is none here: nothing to compare")
    if "degradation" in names:
        grouped = [column.measure.name for column in evaluation.columns if column.measure.judgements != "qrels"]
        if grouped:
            raise UsageError(f"--report degradation removes relevance labels from a qrels, and {grouped[0]} reads "
                             "trec_eval's grouped judgements (-R), which it cannot thin: ask for measures of "
                             "ordinary grades (e.g. -m map) with the degradation report")
    unknown = [name for name in names if name not in REPORT_FUNCTIONS]
    if unknown:
        raise UsageError(f"no report '{unknown[0]}' (the reports: {', '.join(REPORT_FUNCTIONS)})")
    data = _Matrices(evaluation)
    lines: list[ReportLine] = []
    for name in dict.fromkeys(names):
        follow = progress and (lambda done, total, name=name: progress(name, done, total))
        lines += REPORT_FUNCTIONS[name](evaluation, data, options, follow)
    return lines
