"""judges: would other judgements (``--compare-qrels FILE``: a language
model's, another assessor's) rank the systems as the first ones do?

For each compared judgement set, on the queries both sets judge, per measure
(metrics by their mean, preferences by each run's mean preference against
the others):

- the leaderboards' correlation: Kendall's ``tau_b``, ``tau_ap`` (Yilmaz,
  Aslam and Robertson, SIGIR 2008: the compared leaderboard against the
  first, top-weighted), Spearman's ``spearman``, Pearson's ``pearson`` of the
  scores, and ``rbo`` (Webber, Moffat and Zobel, TOIS 2010: extrapolated
  rank-biased overlap, persistence ``--rbo-p``, default 0.9); with --ci a
  percentile bootstrap interval over queries for each (``_low``, ``_high``);
- ``largest_rank_change``: the largest move of a run between the two
  leaderboards, signed (positive: down under the compared set), and the run;
- significance agreement over the tested pairs at alpha, with the test and
  correction chosen: ``same_significant``, ``opposite_significant`` (with -q,
  each such pair), ``only_first``, ``only_compared``, ``neither``;
- ``judged@k``: each run's share of its top k (``--judged-at``, 10)
  documents judged, under each set;
- ``documents``: for the (qid, docno) judged (grade >= 0) in both sets, the
  confusion matrix of grades, Cohen's kappa at the relevance level -l,
  weighted kappa (linear, quadratic) and Krippendorff's ordinal alpha; per
  query with -q.

Records: report ``judges``, the measure, a parameter ``what:set[:run]``
(sets named by their file names), the value.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import UsageError
from ..io.runs import check_rereadable
from ..io.source import run_name
from ..stats import similarity as sim
from ..stats.pairs import testable
from .common import COUNT, RANK, ReportLine, ReportOptions, run_inputs

DEFAULT_RBO_P = 0.9
COEFFICIENTS = {
    "tau_b": sim.kendall_tau_b,
    "tau_ap": sim.tau_ap,
    "spearman": sim.spearman_rho,
    "pearson": sim.pearson_r,
}


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
    check_rereadable(runs, reader)
    rankings = load(given, list(runs), reading, hooks=Hooks(warn=lambda _: None))
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


def score_matrices(first, second) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{measure: ((R, Q) first, (R, Q) second)} per-query scores over the same
    queries; a run's leaderboard score is its row's mean (NaN: a query the
    run leaves out)."""
    out = {}
    for column in first.columns:
        if testable(column.measure):
            out[column.name] = (first.values(column.name), second.values(column.name))
    shared = [qid for qid in first.compared_qids if qid in set(second.compared_qids)]
    where = [{qid: q for q, qid in enumerate(ev.compared_qids)} for ev in (first, second)]
    for name in first.preference_names():
        out[name] = tuple(ev.run_preference_scores(name)[:, [index[qid] for qid in shared]]
                          for ev, index in zip((first, second), where))
    return out


def leaderboards(scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(B, R) mean scores under query weights (B, Q) (counts of a bootstrap
    draw, or ones), NaN values left out."""
    known = np.isfinite(scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ np.where(known, scores, 0.0).T) / (weights @ known.T.astype(np.float64))


def judges(evaluation, data, options: ReportOptions, progress=None) -> list[ReportLine]:
    if not options.compare_qrels:
        raise UsageError("--report judges compares judgement sets: add --compare-qrels FILE")
    first_path = evaluation.rankings.qrels.path
    compared = list(options.compare_qrels.items()) if isinstance(options.compare_qrels, dict) else \
        [(None, given) for given in options.compare_qrels]
    names = set_names([first_path, *(given if name is None else _Named(name) for name, given in compared)])
    lines: list[ReportLine] = []
    for set_name, (_, given) in zip(names[1:], compared):
        where = getattr(given, "path", given) if not isinstance(given, (str, os.PathLike)) else os.fspath(given)
        other = other_judgements(evaluation, given, options, "--report judges")
        first, second = on_common_queries(evaluation, other, first_path, str(where), options.warn)
        lines += leaderboard_lines(first, second, names[0], set_name, options)
        lines += significance_lines(first, second, set_name, options)
        lines += judged_lines(first, second, names[0], set_name, options)
        lines += document_lines(first, second, set_name, options, str(where))
    return lines


def leaderboard_lines(first, second, first_name: str, set_name: str, options: ReportOptions) -> list[ReportLine]:
    runs = first.run_names
    significance = first.options
    p = options.rbo_p if options.rbo_p is not None else DEFAULT_RBO_P
    lines = []
    for measure, (a, b) in score_matrices(first, second).items():
        queries = a.shape[1]
        ones = np.ones((1, queries))
        x, y = leaderboards(a, ones), leaderboards(b, ones)
        values = {name: function(x, y)[0] for name, function in COEFFICIENTS.items()}
        values["rbo"] = sim.rbo_extrapolated(x, y, p)[0]
        board = {"table": "judges: leaderboards", "row": set_name, "row_name": "judgements"}
        for name, value in values.items():
            lines.append(ReportLine("judges", measure, f"{name}:{set_name}", float(value), column=name, **board))
        if significance.ci and queries > 1:
            draws = np.random.default_rng(significance.seed).multinomial(
                queries, np.full(queries, 1.0 / queries), size=significance.resamples).astype(np.float64)
            bx, by = leaderboards(a, draws), leaderboards(b, draws)
            tail = 100 * (1 - significance.confidence) / 2
            drawn = {name: function(bx, by) for name, function in COEFFICIENTS.items()}
            drawn["rbo"] = sim.rbo_extrapolated(bx, by, p)
            for name, values_drawn in drawn.items():
                low, high = np.nanpercentile(values_drawn, [tail, 100 - tail]) if np.isfinite(values_drawn).any() \
                    else (np.nan, np.nan)
                lines += [ReportLine("judges", measure, f"{name}_low:{set_name}", float(low), column=f"{name}_low",
                                     **board),
                          ReportLine("judges", measure, f"{name}_high:{set_name}", float(high),
                                     column=f"{name}_high", **board)]
        before, after = sim.strict_positions(x)[0], sim.strict_positions(y)[0]
        change = after - before
        moved = int(np.argmax(np.abs(change)))
        lines.append(ReportLine("judges", measure, f"largest_rank_change:{set_name}:{runs[moved]}",
                                float(change[moved]), RANK, column="largest_rank_change", **board))
        # every run's score and rank under each set, and its move (positive: down under the compared set)
        each = {"table": "judges: runs", "row_name": "run"}
        for name, scores, ranks in ((first_name, x[0], before + 1), (set_name, y[0], after + 1)):
            for r, run in enumerate(runs):
                lines += [ReportLine("judges", measure, f"score:{name}:{run}", float(scores[r]), row=run,
                                     column=f"score:{name}", **each),
                          ReportLine("judges", measure, f"rank:{name}:{run}", float(ranks[r]), RANK, row=run,
                                     column=f"rank:{name}", **each)]
        lines += [ReportLine("judges", measure, f"rank_change:{set_name}:{run}", float(change[r]), RANK, row=run,
                             column=f"rank_change:{set_name}", **each) for r, run in enumerate(runs)]
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


def document_lines(first, second, set_name: str, options: ReportOptions, second_path: str) -> list[ReportLine]:
    """Agreement on the grades of the documents both sets judge."""
    qrels_a, qrels_b = first.rankings.qrels, second.rankings.qrels
    rows_b = qrels_a.rows_in(qrels_b)
    shared_queries = set(first.qids)
    query_shared = np.array([qid in shared_queries for qid in qrels_a.qids])[qrels_a.query_index]
    both = (rows_b >= 0) & query_shared
    grades_a = qrels_a.grades.astype(np.int64)
    grades_b = np.where(rows_b >= 0, qrels_b.grades[np.maximum(rows_b, 0)], -1).astype(np.int64)
    both &= (grades_a >= 0) & (grades_b >= 0)
    if not both.any():
        raise UsageError(f"--compare-qrels {second_path}: no document judged in both it and {qrels_a.path}")
    a, b = grades_a[both], grades_b[both]
    level = first.level
    where = {"table": "judges: documents judged in both", "row": set_name, "row_name": "judgements"}
    lines = [ReportLine("judges", "documents", f"shared:{set_name}", float(both.sum()), COUNT, column="shared",
                        **where),
             ReportLine("judges", "documents", f"cohen_kappa:{set_name}", sim.cohen_kappa(a >= level, b >= level),
                        column="cohen_kappa", **where),
             ReportLine("judges", "documents", f"kappa_linear:{set_name}", sim.cohen_kappa(a, b, "linear"),
                        column="kappa_linear", **where),
             ReportLine("judges", "documents", f"kappa_quadratic:{set_name}", sim.cohen_kappa(a, b, "quadratic"),
                        column="kappa_quadratic", **where),
             ReportLine("judges", "documents", f"krippendorff_alpha:{set_name}",
                        sim.krippendorff_alpha_ordinal(a, b), column="krippendorff_alpha", **where)]
    grades = np.unique(np.concatenate([a, b])).tolist()
    confusion = {"table": f"judges: grades, first judgements (rows) against {set_name} (columns)",
                 "row_name": "grade"}
    for g in grades:
        for h in grades:
            lines.append(ReportLine("judges", "documents", f"grades_{g}_{h}:{set_name}",
                                    float(((a == g) & (b == h)).sum()), COUNT, row=str(g), column=str(h), **confusion))
    if options.per_query:
        query = qrels_a.query_index[both]
        for q in np.unique(query).tolist():
            chosen = query == q
            lines.append(ReportLine("judges", "documents", f"cohen_kappa:{set_name}:{qrels_a.qids[q]}",
                                    sim.cohen_kappa(a[chosen] >= level, b[chosen] >= level),
                                    table="judges: documents per query", row=qrels_a.qids[q], row_name="qid",
                                    column=f"cohen_kappa:{set_name}"))
    return lines
