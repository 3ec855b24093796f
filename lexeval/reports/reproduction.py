"""reproduction: does an experiment reproduce (the same collection) or
replicate (another collection, ``--replication-qrels``)? The measures of
repro_eval (Breuer et al., "How to Measure the Reproducibility of
System-oriented IR Experiments", SIGIR 2020), for an original baseline and
advanced run and their reproduced counterparts, named among the runs given
(``--original BASE,ADV --reproduced BASE,ADV``).

- Ranking level (reproducibility only): Kendall's tau union ``KTU@k`` and
  rank-biased overlap ``RBO@k`` (Clarke's normalised form, persistence
  ``--rbo-p``, default 0.95 as repro_eval) of each original run's top k
  documents against its reproduction's, per cutoff (``--cutoffs``), averaged
  over the queries both runs rank (per query with -q).
- Score level (reproducibility only), per measure: ``RMSE`` of the
  per-query scores, and ``nRMSE``, RMSE over the RMSE of the largest error
  each original score allows, max(x, 1 - x).
- Effect level, per measure: the effect ratio ``ER`` (the reproduced mean
  improvement of advanced over baseline, over the original one), ``DeltaRI``
  (the original relative improvement minus the reproduced one; 0 is
  perfect), and ``p`` of the t-test of each original run against its
  reproduction: paired (reproducibility) or unpaired (replicability).

Preferences (LP, LR, rrLP, rrLR) have no score of their own: their effect is
the mean preference of the advanced run over the baseline, so they get
``ER``; reproducibility also tests each original run against its
reproduction directly (the sign test for LP and LR, the one-sample t-test
for the others), as ``p``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import UsageError
from ..io.runs import check_rereadable
from ..stats.pairs import SIGN, test_for, testable
from ..stats.similarity import kendall_tau_union, rbo_normalized
from .common import ReportLine, ReportOptions, run_inputs

ROLES = ("baseline", "advanced")
DEFAULT_RBO_P = 0.95          # repro_eval's


def run_index(evaluation, names: tuple[str, str] | None, option: str) -> tuple[int, int]:
    """The two runs an option names (BASE,ADV), as indices into the runs."""
    if names is None:
        raise UsageError("--report reproduction needs --original BASE_RUN,ADV_RUN and --reproduced "
                         "BASE_RUN,ADV_RUN (run names among the runs given)")
    known = evaluation.run_names
    for name in names:
        if name not in known:
            raise UsageError(f"{option}: '{name}' is not one of the runs: {', '.join(known)}")
    return known.index(names[0]), known.index(names[1])


def reproduction(evaluation, data, options: ReportOptions, progress=None) -> list[ReportLine]:
    original = run_index(evaluation, options.original, "--original")
    reproduced = run_index(evaluation, options.reproduced, "--reproduced")
    replication = None
    if options.replication_qrels is not None:
        replication = _replicated(evaluation, reproduced, options)
    lines: list[ReportLine] = []
    if replication is None:
        lines += ranking_level(evaluation, original, reproduced, options)
    for column in evaluation.columns:
        if not testable(column.measure):
            continue
        values = evaluation.values(column.name)
        before = values[list(original)]
        after = values[list(reproduced)] if replication is None else replication.values(column.name)
        lines += [ReportLine("reproduction", column.name, parameter, value)
                  for parameter, value in score_measures(before, after, replication is None)]
    for name in evaluation.preference_names():
        before = _preference(evaluation, *original, name)
        after = _preference(evaluation, *reproduced, name) if replication is None else \
            _preference(replication, 0, 1, name)
        lines.append(ReportLine("reproduction", name, "ER", _ratio(np.mean(after), np.mean(before))))
        if replication is None:
            for role, (a, b) in zip(ROLES, zip(original, reproduced)):
                lines.append(ReportLine("reproduction", name, f"p:{role}",
                                        _preference_p(_preference(evaluation, b, a, name), name)))
    return lines


def _replicated(evaluation, reproduced: tuple[int, int], options: ReportOptions):
    """The reproduced runs evaluated on the replication qrels, with the same
    measures and preferences."""
    from ..evaluation import load
    from ..options import Hooks
    runs, reading = run_inputs(evaluation, options, "--replication-qrels")
    check_rereadable([runs[index] for index in reproduced], "--replication-qrels")
    rankings = load(options.replication_qrels, [runs[index] for index in reproduced],
                    replace(reading, fill_qrels=None),              # another collection's judgements, as given
                    keep_rows=evaluation.rankings.qrels_rows is not None, hooks=Hooks(warn=options.warn))
    return evaluation.reevaluate(rankings)


def ranking_level(evaluation, original, reproduced, options: ReportOptions) -> list[ReportLine]:
    """KTU@k and RBO@k of each original run against its reproduction."""
    from ..io.documents import ranked_documents
    runs, _ = run_inputs(evaluation, options, "the reproduction report")
    qids = evaluation.qids
    deepest = max(options.cutoffs)
    documents = {index: ranked_documents(runs[index], qids, deepest) for index in {*original, *reproduced}}
    p = options.rbo_p if options.rbo_p is not None else DEFAULT_RBO_P
    lines = []
    for k in options.cutoffs:
        for what in ("KTU", "RBO"):
            for role, (a, b) in zip(ROLES, zip(original, reproduced)):
                per_query = {}
                for q, qid in enumerate(qids):
                    first, second = documents[a][q][:k], documents[b][q][:k]
                    if not first or not second:
                        continue                 # a query one of them lacks
                    per_query[qid] = kendall_tau_union(first, second) if what == "KTU" else \
                        rbo_normalized(second, first, p, k)
                shown = np.array(list(per_query.values()), dtype=np.float64)
                mean = float(np.nanmean(shown)) if np.isfinite(shown).any() else float("nan")
                lines.append(ReportLine("reproduction", f"{what}@{k}", role, mean, table="reproduction: rankings"))
                if options.per_query:
                    lines += [ReportLine("reproduction", f"{what}@{k}", f"{role}:{qid}", value,
                                         table="reproduction: rankings per query", row=qid, row_name="qid",
                                         column=role) for qid, value in per_query.items()]
    return lines


def score_measures(before: np.ndarray, after: np.ndarray, paired: bool) -> list[tuple[str, float]]:
    """repro_eval's measures of one metric: ``before`` (2, Q) the original
    baseline and advanced per-query values, ``after`` (2, Q') the
    reproduced ones (Q' = Q, same queries, when ``paired``); NaN marks a
    query a run leaves out."""
    from scipy.stats import ttest_ind, ttest_rel
    out = []
    if paired:
        shared = np.isfinite(before).all(axis=0) & np.isfinite(after).all(axis=0)
        before, after = before[:, shared], after[:, shared]
        for role, x, y in zip(ROLES, before, after):
            rmse = float(np.sqrt(np.mean((x - y) ** 2))) if len(x) else float("nan")
            largest = float(np.sqrt(np.mean(np.maximum(x, 1 - x) ** 2))) if len(x) else float("nan")
            out += [(f"RMSE:{role}", rmse), (f"nRMSE:{role}", _ratio(rmse, largest))]
    else:
        before = before[:, np.isfinite(before).all(axis=0)]
        after = after[:, np.isfinite(after).all(axis=0)]
    improvement_before = float(np.mean(before[1] - before[0])) if before.shape[1] else float("nan")
    improvement_after = float(np.mean(after[1] - after[0])) if after.shape[1] else float("nan")
    out.append(("ER", _ratio(improvement_after, improvement_before)))
    relative = [_ratio(float(np.mean(v[1]) - np.mean(v[0])), float(np.mean(v[0]))) if v.shape[1] else float("nan")
                for v in (before, after)]
    out.append(("DeltaRI", relative[0] - relative[1]))
    for role, x, y in zip(ROLES, before, after):
        out.append((f"p:{role}", _t_p(x, y, paired, ttest_rel if paired else ttest_ind)))
    return out


def _t_p(x: np.ndarray, y: np.ndarray, paired: bool, test) -> float:
    """The t-test's p; 1 where it is undefined because the scores are the same (as repro_eval)."""
    if len(x) < 2 or len(y) < 2:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = float(test(x, y).pvalue)
    if np.isnan(p) and (np.array_equal(x, y) if paired else (np.ptp(x) == 0 and np.ptp(y) == 0 and x[0] == y[0])):
        return 1.0
    return p


def _ratio(top: float, bottom: float) -> float:
    """top / bottom; NaN where bottom is 0 (no effect to compare with)."""
    return float(top / bottom) if bottom != 0 and np.isfinite(bottom) else float("nan")


def _preference(evaluation, a: int, b: int, name: str) -> np.ndarray:
    """(compared queries,) the preference of run a over run b."""
    values = evaluation.preferences.of_pairs(name, np.array([[min(a, b), max(a, b)]]))[0]
    return values if a < b else -values


def _preference_p(values: np.ndarray, name: str) -> float:
    """The preference's own test of ``values`` against no preference."""
    from scipy.stats import binomtest, ttest_1samp
    if test_for(name) == SIGN:
        wins, losses = int((values > 0).sum()), int((values < 0).sum())
        return 1.0 if wins + losses == 0 else float(binomtest(wins, wins + losses).pvalue)
    if len(values) < 2 or not np.any(values):
        return 1.0 if len(values) else float("nan")
    return float(ttest_1samp(values, 0.0).pvalue)
