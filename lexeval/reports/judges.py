"""judges: would other judgements (``--compare-qrels FILE``: a language
model's, another assessor's) rank the systems as the first ones do? The
figures of TREC AutoJudge's meta-evaluation (``autojudge-evaluate``'s
``meta-evaluate`` and ``qrel-evaluate``), and what studies of machine
judgements add to them.

For each compared judgement set, on the queries both sets judge, per measure
(metrics by their mean, preferences by each run's mean preference against
the others):

- the leaderboards' correlation: Kendall's ``tau_b``, ``tau_ap`` (Yilmaz,
  Aslam and Robertson, SIGIR 2008: the compared leaderboard against the
  first, top-weighted), ``tau_ap_b`` (Urbano and Marrero, ICTIR 2017:
  symmetric, tie-aware), ``tau_gap`` (Gao and Oard, SIGIR 2015: the first
  set's scores as the gaps, head-weighted; ties in the compared scores
  broken by run name, as AutoJudge), Spearman's ``spearman``, Pearson's
  ``pearson`` of the scores, and ``rbo`` (Webber, Moffat and Zobel, TOIS
  2010: extrapolated rank-biased overlap, persistence ``--rbo-p``, default
  0.9); each also over the first set's top K runs (``<corr>@K``,
  ``--top-runs``, 10; ties at the cut kept in the runs' order); with --ci a
  percentile bootstrap interval over queries for each (``_low``, ``_high``);
- per query, ``tau_b`` and ``spearman`` between the runs' values under the
  two sets (with -q), their means and the share of queries with tau_b < 0.5;
- ``largest_rank_change``: the largest move of a run between the two
  leaderboards, signed (positive: down under the compared set), and the run;
- significance agreement over the tested pairs at alpha, with the test and
  correction chosen: ``same_significant``, ``opposite_significant`` (with -q,
  each such pair), ``only_first``, ``only_compared``, ``neither``; and as
  rates with the first set as the reference: ``false_positive_rate``
  (significant only under the compared set, of the pairs not significant
  under the first), ``false_negative_rate`` (significant only under the
  first, of those significant under it) and ``reversal_rate`` (significant
  under both in opposite directions, of those significant under the first);
- ``judged@k``: each run's share of its top k (``--judged-at``, 10)
  documents judged, under each set;
- the grades of the documents (:mod:`lexeval.reports.judges_grades`):
  pooled agreement, leniency, each threshold's confusion, and AutoJudge's
  per-query agreement and its means;
- with run groups (``--run-groups FILE`` or ``--group-by SEP``), each
  group's mean rank and score change and a permutation test between groups
  (:mod:`lexeval.reports.judges_groups`).

Records: report ``judges``, the measure, a parameter ``what:set[:run]``
(sets named by their file names), the value. Every figure costs time linear
in the queries and in the pairs of runs.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from ..errors import UsageError
from ..io.runs import check_rereadable
from ..io.source import run_name
from ..stats import similarity as sim
from ..stats.pairs import testable
from .common import COUNT, RANK, ReportLine, ReportOptions, run_inputs
from .judges_grades import grade_lines
from .judges_groups import group_lines, leaderboards, run_groups

DEFAULT_RBO_P = 0.9
DEFAULT_TOP_RUNS = 10
COEFFICIENTS = ("tau_b", "tau_ap", "tau_ap_b", "tau_gap", "spearman", "pearson", "rbo")
WEAK_QUERY_TAU = 0.5        # a query whose leaderboards agree less (tau_b below it) is counted


def set_names(paths: list) -> list[str]:
    """A short name per judgement set: the name it was given (NAME=PATH),
    else its file name without suffixes, made unique with #2, #3 where two
    are the same."""
    names: list[str] = []
    for path in paths:
        given = getattr(path, "name", None) if not isinstance(path, (str, os.PathLike)) else None
        name = given if isinstance(given, str) and given else \
            run_name(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else "qrels"
        unique, number = name, 2
        while unique in names:
            unique, number = f"{name}#{number}", number + 1
        names.append(unique)
    return names


class _Named:
    """A judgement set named in Python ({name: qrels})."""

    def __init__(self, name: str):
        self.name = str(name)


def other_judgements(evaluation, given, options: ReportOptions, reader: str):
    """The same runs, measures and tests on the judgements ``given``."""
    from ..evaluation import load
    from ..options import Hooks
    runs, reading = run_inputs(evaluation, options, reader)
    reading = replace(reading, fill_qrels=None)         # the other judgements as they are given
    check_rereadable(runs, reader)
    rankings = load(given, list(runs), reading, keep_rows=evaluation.rankings.qrels_rows is not None,  # P_rare...
                    hooks=Hooks(warn=lambda _: None))
    return evaluation.reevaluate(rankings, evaluation.options)


def on_common_queries(first, second, first_path: str, second_path: str, warn):
    """Both evaluations on the queries both judge (the first's order)."""
    shared = set(first.qids) & set(second.qids)
    if not shared:
        raise UsageError(f"--compare-qrels {second_path}: no query in common with {first_path}")
    if len(shared) < max(len(first.qids), len(second.qids)):
        (warn or (lambda _: None))(f"--compare-qrels {second_path} judges {len(second.qids)} queries and "
                                   f"{first_path} {len(first.qids)}: compared on the {len(shared)} both judge")

    def restricted(evaluation):
        keep = np.array([qid in shared for qid in evaluation.qids])
        return evaluation if keep.all() else evaluation.reevaluate(evaluation.rankings.restrict(keep),
                                                                   evaluation.options)
    return restricted(first), restricted(second)


def score_matrices(first, second) -> dict[str, tuple[np.ndarray, np.ndarray, list[str]]]:
    """{measure: ((R, Q) first, (R, Q) second, the Q qids)} per-query scores
    over the same queries; a run's leaderboard score is its row's mean
    (NaN: a query the run leaves out)."""
    out = {}
    for column in first.columns:
        if testable(column.measure):
            out[column.name] = (first.values(column.name), second.values(column.name), list(first.qids))
    compared = set(second.compared_qids)
    shared = [qid for qid in first.compared_qids if qid in compared]
    where = [{qid: q for q, qid in enumerate(ev.compared_qids)} for ev in (first, second)]
    for name in first.preference_names():
        a, b = (ev.run_preference_scores(name)[:, [index[qid] for qid in shared]]
                for ev, index in zip((first, second), where))
        out[name] = (a, b, shared)
    return out


def correlations(x: np.ndarray, y: np.ndarray, by_name: np.ndarray, p: float) -> dict[str, np.ndarray]:
    """{coefficient: (B,)} of leaderboards x (the first set's) and y, (B, R)
    each; ``by_name`` (R,) the runs sorted by name (tau_gap's tie order)."""
    return {"tau_b": sim.kendall_tau_b(x, y), "tau_ap": sim.tau_ap(x, y), "tau_ap_b": sim.tau_ap_b(x, y),
            "tau_gap": sim.tau_gap(x[:, by_name], y[:, by_name]), "spearman": sim.spearman_rho(x, y),
            "pearson": sim.pearson_r(x, y), "rbo": sim.rbo_extrapolated(x, y, p)}


def judges(evaluation, data, options: ReportOptions, progress=None) -> list[ReportLine]:
    if not options.compare_qrels:
        raise UsageError("--report judges compares judgement sets: add --compare-qrels FILE")
    first_path = evaluation.rankings.qrels.path
    compared = list(options.compare_qrels.items()) if isinstance(options.compare_qrels, dict) else \
        [(None, given) for given in options.compare_qrels]
    names = set_names([first_path, *(given if name is None else _Named(name) for name, given in compared)])
    groups = run_groups(evaluation.run_names, options)
    top = options.top_runs
    if min(top, len(evaluation.run_names)) < 3:
        (options.warn or (lambda _: None))(
            f"--report judges: the first judgements' top {top} holds {min(top, len(evaluation.run_names))} runs, "
            f"fewer than 3: the correlations @{top} are left out")
    lines: list[ReportLine] = []
    for set_name, (_, given) in zip(names[1:], compared):
        where = getattr(given, "path", given) if not isinstance(given, (str, os.PathLike)) else os.fspath(given)
        other = other_judgements(evaluation, given, options, "--report judges")
        first, second = on_common_queries(evaluation, other, first_path, str(where), options.warn)
        scores = score_matrices(first, second)
        lines += leaderboard_lines(first, scores, names[0], set_name, options)
        lines += query_leaderboard_lines(first, scores, set_name, options)
        lines += significance_lines(first, second, set_name, options)
        lines += judged_lines(first, second, names[0], set_name, options)
        lines += grade_lines(first, second, set_name, options, str(where))
        if groups is not None:
            lines += group_lines(first, scores, groups, set_name, options)
    return lines


def leaderboard_lines(first, scores: dict, first_name: str, set_name: str, options: ReportOptions
                      ) -> list[ReportLine]:
    runs = first.run_names
    significance = first.options
    p = options.rbo_p if options.rbo_p is not None else DEFAULT_RBO_P
    top = options.top_runs
    lines = []
    for measure, (a, b, _) in scores.items():
        queries = a.shape[1]
        ones = np.ones((1, queries))
        x, y = leaderboards(a, ones), leaderboards(b, ones)
        leading = np.sort(np.argsort(-x[0], kind="stable")[:top])      # the first set's top K, in the runs' order
        subsets = {"": np.arange(len(runs))}
        if len(leading) >= 3:
            subsets[f"@{top}"] = leading
        board = {"table": "judges: leaderboards", "row": set_name, "row_name": "judgements"}
        for suffix, chosen in subsets.items():
            values = correlations(x[:, chosen], y[:, chosen], _name_order(runs, chosen), p)
            lines += [ReportLine("judges", measure, f"{name}{suffix}:{set_name}", float(value[0]),
                                 column=f"{name}{suffix}", **board) for name, value in values.items()]
        if significance.ci and queries > 1:
            draws = np.random.default_rng(significance.seed).multinomial(
                queries, np.full(queries, 1.0 / queries), size=significance.resamples).astype(np.float64)
            bx, by = leaderboards(a, draws), leaderboards(b, draws)
            tail = 100 * (1 - significance.confidence) / 2
            for suffix, chosen in subsets.items():
                drawn = correlations(bx[:, chosen], by[:, chosen], _name_order(runs, chosen), p)
                for name, values_drawn in drawn.items():
                    low, high = np.nanpercentile(values_drawn, [tail, 100 - tail]) \
                        if np.isfinite(values_drawn).any() else (np.nan, np.nan)
                    lines += [ReportLine("judges", measure, f"{name}{suffix}_low:{set_name}", float(low),
                                         column=f"{name}{suffix}_low", **board),
                              ReportLine("judges", measure, f"{name}{suffix}_high:{set_name}", float(high),
                                         column=f"{name}{suffix}_high", **board)]
        before, after = sim.strict_positions(x)[0], sim.strict_positions(y)[0]
        change = after - before
        moved = int(np.argmax(np.abs(change)))
        lines.append(ReportLine("judges", measure, f"largest_rank_change:{set_name}:{runs[moved]}",
                                float(change[moved]), RANK, column="largest_rank_change", **board))
        # every run's score and rank under each set, and its move (positive: down under the compared set)
        each = {"table": "judges: runs", "row_name": "run"}
        for name, board_scores, ranks in ((first_name, x[0], before + 1), (set_name, y[0], after + 1)):
            for r, run in enumerate(runs):
                lines += [ReportLine("judges", measure, f"score:{name}:{run}", float(board_scores[r]), row=run,
                                     column=f"score:{name}", **each),
                          ReportLine("judges", measure, f"rank:{name}:{run}", float(ranks[r]), RANK, row=run,
                                     column=f"rank:{name}", **each)]
        lines += [ReportLine("judges", measure, f"rank_change:{set_name}:{run}", float(change[r]), RANK, row=run,
                             column=f"rank_change:{set_name}", **each) for r, run in enumerate(runs)]
    return lines


def _name_order(runs: list[str], chosen: np.ndarray) -> np.ndarray:
    """(len(chosen),) places 0.. of the chosen runs, sorted by name."""
    return np.array(sorted(range(len(chosen)), key=lambda i: runs[chosen[i]]), dtype=np.int64)


def query_leaderboard_lines(first, scores: dict, set_name: str, options: ReportOptions) -> list[ReportLine]:
    """Per query, how the runs' values under the two sets correlate: Kendall's
    tau_b and Spearman's rho over the runs (NaN where one set's values are
    constant, left out); their means, and the share of queries with tau_b
    below 0.5."""
    lines = []
    board = {"table": "judges: leaderboards", "row": set_name, "row_name": "judgements"}
    for measure, (a, b, qids) in scores.items():
        if a.shape[0] < 2:
            continue
        per_query = {"tau_b": sim.kendall_tau_b(a.T, b.T), "spearman": sim.spearman_rho(a.T, b.T)}
        for name, values in per_query.items():
            known = np.isfinite(values)
            if known.any():
                lines.append(ReportLine("judges", measure, f"query_{name}_mean:{set_name}",
                                        float(values[known].mean()), column=f"query_{name}_mean", **board))
        tau = per_query["tau_b"]
        if np.isfinite(tau).any():
            lines.append(ReportLine("judges", measure, f"query_tau_b_below_{WEAK_QUERY_TAU}:{set_name}",
                                    float((tau[np.isfinite(tau)] < WEAK_QUERY_TAU).mean()),
                                    column=f"query_tau_b_below_{WEAK_QUERY_TAU}", **board))
        if options.per_query:
            each = {"table": f"judges: leaderboards per query, {measure}", "row_name": "qid"}
            for q, qid in enumerate(qids):
                lines += [ReportLine("judges", measure, f"query_{name}:{set_name}:{qid}", float(values[q]), row=qid,
                                     column=f"{name}:{set_name}", **each)
                          for name, values in per_query.items() if np.isfinite(values[q])]
    return lines


def significance_lines(first, second, set_name: str, options: ReportOptions) -> list[ReportLine]:
    """How often the two sets reach the same conclusion on a tested pair."""
    if first.tests is None or second.tests is None:
        return []
    alpha, runs, lines = first.options.alpha, first.run_names, []
    for measure, p_first in first.tests.p.items():
        p_second = second.tests.p.get(measure)
        if p_second is None:
            continue
        significant = p_first < alpha, p_second < alpha
        direction = np.sign(first.tests.mean_difference[measure]), np.sign(second.tests.mean_difference[measure])
        both = significant[0] & significant[1]
        counts = {"same_significant": both & (direction[0] == direction[1]),
                  "opposite_significant": both & (direction[0] != direction[1]),
                  "only_first": significant[0] & ~significant[1],
                  "only_compared": ~significant[0] & significant[1],
                  "neither": ~significant[0] & ~significant[1]}
        lines += [ReportLine("judges", measure, f"{name}:{set_name}", float(mask.sum()), COUNT,
                             "judges: significance", set_name, "judgements", name)
                  for name, mask in counts.items()]
        # the same as rates, the first set the reference (a rate of no pair is left out)
        rates = {"false_positive_rate": (counts["only_compared"], ~significant[0]),
                 "false_negative_rate": (counts["only_first"], significant[0]),
                 "reversal_rate": (counts["opposite_significant"], significant[0])}
        lines += [ReportLine("judges", measure, f"{name}:{set_name}", float(mask.sum() / among.sum()), "",
                             "judges: significance", set_name, "judgements", name)
                  for name, (mask, among) in rates.items() if among.any()]
        if options.per_query:
            for row in np.flatnonzero(counts["opposite_significant"]).tolist():
                a, b = first.pairs[row]
                lines.append(ReportLine("judges", measure, f"opposite_significant:{set_name}:{runs[a]}:{runs[b]}",
                                        float(first.tests.mean_difference[measure][row]),
                                        table="judges: opposite significant pairs (difference under the first "
                                              "judgements)", row=f"{runs[a]}:{runs[b]}", row_name="pair",
                                        column=set_name))
    return lines


def judged_share(evaluation, depth: int) -> np.ndarray:
    """(R,) each run's mean share of its top ``depth`` documents judged,
    over the queries it ranks."""
    rankings = evaluation.rankings
    judged = rankings.as_matrix(rankings.count_within(rankings.codes >= 0, depth)) / depth
    present = rankings.present
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, judged, 0.0).sum(axis=1) / present.sum(axis=1)


def judged_lines(first, second, first_name: str, set_name: str, options: ReportOptions) -> list[ReportLine]:
    depth = options.judged_at
    return [ReportLine("judges", f"judged@{depth}", f"share:{name}:{run}", float(value), table="judges: judged share",
                       row=run, row_name="run", column=f"share:{name}")
            for name, evaluation in ((first_name, first), (set_name, second))
            for run, value in zip(first.run_names, judged_share(evaluation, depth))]
