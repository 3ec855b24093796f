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
  only it contributed to the pool (see lexeval.reports.reusability).

Everything random draws from one ``numpy.random.Generator(seed)``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UsageError
from ..evaluation import Evaluation
from .agreement import agreement
from .common import ReportLine, ReportOptions, matrices
from .degradation import degradation
from .discrimination import discrimination
from .judges import judges
from .power import power
from .reproduction import reproduction
from .reusability import reusability
from .stability import stability
from .ties import ties

__all__ = ["ReportLine", "ReportOptions", "run_reports"]


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
    data = matrices(evaluation)
    lines: list[ReportLine] = []
    for name in dict.fromkeys(names):
        if name == "ties":
            lines += ties(evaluation, data, options)
        elif name == "agreement":
            lines += agreement(evaluation, data, options)
        elif name == "discrimination":
            lines += discrimination(evaluation, data, options)
        elif name == "stability":
            lines += stability(evaluation, data, options,
                               progress and (lambda done, total: progress("stability", done, total)))
        elif name == "power":
            lines += power(evaluation, data, options)
        elif name == "reproduction":
            lines += reproduction(evaluation, options)
        elif name == "judges":
            lines += judges(evaluation, options)
        elif name == "reusability":
            lines += reusability(evaluation, options,
                                 progress and (lambda done, total: progress("reusability", done, total)))
        elif name == "degradation":
            lines += degradation(evaluation, options,
                                 progress and (lambda done, total: progress("degradation", done, total)))
    return lines
