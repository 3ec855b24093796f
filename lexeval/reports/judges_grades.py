"""The judges report's figures of the grades themselves: how two judgement
sets grade the same documents.

- pooled over the documents both sets judge (grade >= 0 in each): the
  confusion matrix of grades, Cohen's kappa at -l, weighted kappa (linear,
  quadratic) and Krippendorff's ordinal alpha; at every grade threshold,
  the documents relevant under both, the first only, the compared only,
  neither;
- leniency, on the same documents: the mean grade difference (compared
  minus first), the shares graded up and down, and per grade of the first
  set the mean grade the compared set gives;
- per query, as AutoJudge's ``qrel-evaluate`` computes them: over every
  document either set judges for the query (one the other set leaves out,
  or grades below 0, counting as grade 0), the compared set's precision,
  recall and F1 against the first's relevant documents (grade >= -l; only
  for queries where either set has one, as AutoJudge), Jaccard, Cohen's
  kappa at -l, linear weighted kappa on the grades 0..G (G the highest
  either set gives; fractional grades: the grades given, in order),
  Krippendorff's ordinal alpha and the adjusted Rand
  index; with -q each query's, always their means (``<figure>_mean``) over
  the queries where the figure is defined.

Every figure is a whole-array function of per-query counts (numpy's
bincount), so the cost is linear in the judgements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..stats import similarity as sim
from .common import COUNT, ReportLine, ReportOptions

#: The per-query figures, in the order printed
QUERY_FIGURES = ("precision", "recall", "f1", "jaccard", "cohen_kappa", "kappa_linear", "krippendorff_alpha", "ari")


@dataclass
class GradePairs:
    """Every (query, document) either set judges on the queries both judge,
    (n,) each: the query's place in ``qids``, each set's grade (float64; 0
    where that set leaves the document out or grades it below 0), and
    whether both judge it (grade >= 0 in each)."""

    qids: list[str]
    query: np.ndarray
    first: np.ndarray
    second: np.ndarray
    both: np.ndarray


def grade_pairs(qrels_a, qrels_b, shared_qids) -> GradePairs:
    """The documents of two qrels on the queries ``shared_qids``."""
    shared = set(shared_qids)
    qids = [qid for qid in qrels_a.qids if qid in shared]
    place = {qid: index for index, qid in enumerate(qids)}
    query_a = np.array([place.get(qid, -1) for qid in qrels_a.qids], dtype=np.int64)[qrels_a.query_index]
    query_b = np.array([place.get(qid, -1) for qid in qrels_b.qids], dtype=np.int64)[qrels_b.query_index]
    match_a, match_b = qrels_a.rows_in(qrels_b), qrels_b.rows_in(qrels_a)
    grades_a, grades_b = qrels_a.grade_of(qrels_a.grades), qrels_b.grade_of(qrels_b.grades)
    from_a = query_a >= 0
    from_b = (query_b >= 0) & (match_b < 0)                  # the compared set's documents the first leaves out
    second_of_a = np.where(match_a >= 0, grades_b[np.maximum(match_a, 0)], -1)
    both = (match_a >= 0) & (grades_a >= 0) & (second_of_a >= 0)
    return GradePairs(qids, np.concatenate([query_a[from_a], query_b[from_b]]),
                      np.maximum(np.concatenate([grades_a[from_a], np.zeros(from_b.sum())]), 0),
                      np.maximum(np.concatenate([second_of_a[from_a], grades_b[from_b]]), 0),
                      np.concatenate([both[from_a], np.zeros(from_b.sum(), bool)]))


def grade_lines(first, second, set_name: str, options: ReportOptions, second_path: str) -> list[ReportLine]:
    """Every figure of the grades: pooled, leniency, thresholds, per query."""
    pairs = grade_pairs(first.rankings.qrels, second.rankings.qrels, first.qids)
    if not pairs.both.any():
        raise UsageError(f"--compare-qrels {second_path}: no document judged in both it and "
                         f"{first.rankings.qrels.path}")
    level = first.level
    a, b = pairs.first[pairs.both], pairs.second[pairs.both]
    return [*pooled_lines(a, b, level, set_name), *leniency_lines(a, b, set_name), *threshold_lines(a, b, set_name),
            *query_lines(pairs, level, set_name, options.per_query)]


def pooled_lines(a: np.ndarray, b: np.ndarray, level: float, set_name: str) -> list[ReportLine]:
    where = {"table": "judges: documents judged in both", "row": set_name, "row_name": "judgements"}
    lines = [ReportLine("judges", "documents", f"shared:{set_name}", float(len(a)), COUNT, column="shared", **where),
             ReportLine("judges", "documents", f"cohen_kappa:{set_name}", sim.cohen_kappa(a >= level, b >= level),
                        column="cohen_kappa", **where),
             ReportLine("judges", "documents", f"kappa_linear:{set_name}", sim.cohen_kappa(a, b, "linear"),
                        column="kappa_linear", **where),
             ReportLine("judges", "documents", f"kappa_quadratic:{set_name}", sim.cohen_kappa(a, b, "quadratic"),
                        column="kappa_quadratic", **where),
             ReportLine("judges", "documents", f"krippendorff_alpha:{set_name}",
                        sim.krippendorff_alpha_ordinal(a, b), column="krippendorff_alpha", **where)]
    grades = np.unique(np.concatenate([a, b]))
    k = len(grades)
    counts = np.bincount(np.searchsorted(grades, a) * k + np.searchsorted(grades, b), minlength=k * k)
    confusion = {"table": f"judges: grades, first judgements (rows) against {set_name} (columns)",
                 "row_name": "grade"}
    names = [grade_text(g) for g in grades.tolist()]
    lines += [ReportLine("judges", "documents", f"grades_{g}_{h}:{set_name}", float(counts[i * k + j]), COUNT,
                         row=g, column=h, **confusion)
              for i, g in enumerate(names) for j, h in enumerate(names)]
    return lines


def leniency_lines(a: np.ndarray, b: np.ndarray, set_name: str) -> list[ReportLine]:
    """How much more (or less) the compared set grants, document by document."""
    where = {"table": "judges: leniency (documents judged in both)", "row": set_name, "row_name": "judgements"}
    lines = [ReportLine("judges", "documents", f"mean_grade_difference:{set_name}", float((b - a).mean()),
                        column="mean_grade_difference", **where),
             ReportLine("judges", "documents", f"graded_up:{set_name}", float((b > a).mean()), column="graded_up",
                        **where),
             ReportLine("judges", "documents", f"graded_down:{set_name}", float((b < a).mean()),
                        column="graded_down", **where)]
    grades, place = np.unique(a, return_inverse=True)
    given, counted = np.bincount(place, weights=b), np.bincount(place)
    each = {"table": f"judges: mean grade {set_name} gives, per grade of the first judgements",
            "row_name": "grade"}
    lines += [ReportLine("judges", "documents", f"mean_grade_given_{grade_text(g)}:{set_name}",
                         float(given[i] / counted[i]), row=grade_text(g), column=f"mean_grade:{set_name}", **each)
              for i, g in enumerate(grades.tolist())]
    return lines


def threshold_lines(a: np.ndarray, b: np.ndarray, set_name: str) -> list[ReportLine]:
    """At every grade threshold t > 0 either set uses: the documents
    relevant (grade >= t) under both, the first only, the compared only,
    neither."""
    lines = []
    for threshold in np.unique(np.concatenate([a, b])[np.concatenate([a, b]) > 0]).tolist():
        x, y = a >= threshold, b >= threshold
        counts = {"both_relevant": x & y, "only_first": x & ~y, "only_compared": ~x & y, "neither": ~x & ~y}
        shown = grade_text(threshold)
        lines += [ReportLine("judges", "documents", f"relevant_{name}_at_{shown}:{set_name}", float(mask.sum()),
                             COUNT, table=f"judges: relevant at each threshold, {set_name}", row=shown,
                             row_name="threshold", column=name) for name, mask in counts.items()]
    return lines


def grade_text(grade: float) -> str:
    """A grade as a name shows it: 2, or 0.5."""
    return str(int(grade)) if float(grade).is_integer() else f"{grade:g}"


def query_figures(pairs: GradePairs, level: float) -> dict[str, np.ndarray]:
    """(Q,) each query's figures (NaN where undefined) over ``pairs.qids``."""
    queries = len(pairs.qids)
    x, y = pairs.first >= level, pairs.second >= level
    counts = [np.bincount(pairs.query[mask], minlength=queries) for mask in (x & y, x & ~y, ~x & y, ~x & ~y)]
    figures = sim.binary_agreement(*counts)
    anyone = counts[0] + counts[1] + counts[2] > 0          # AutoJudge's set overlap knows only these queries
    for name in ("precision", "recall", "f1"):
        figures[name] = np.where(anyone, figures[name], np.nan)
    both = np.concatenate([pairs.first, pairs.second])
    # integer grades: AutoJudge's labels 0..G (a grade no one gives still spaces the weights); else those given
    labels = np.arange(both.max(initial=0) + 1.0) if np.all(both == np.round(both)) else np.unique(both)
    width = len(labels)
    cells = (pairs.query * width + np.searchsorted(labels, pairs.first)) * width + np.searchsorted(labels, pairs.second)
    linear, alpha = np.empty(queries), np.empty(queries)
    for rows in sim._row_chunks(queries, width * width):
        chosen = (pairs.query >= rows.start) & (pairs.query < rows.stop)
        tables = np.bincount(cells[chosen] - rows.start * width * width,
                             minlength=(rows.stop - rows.start) * width * width).reshape(-1, width, width)
        linear[rows] = sim.kappa_of_tables(tables, "linear")
        alpha[rows] = sim.alpha_of_tables(tables)
    figures["kappa_linear"], figures["krippendorff_alpha"] = linear, alpha
    return {name: figures[name] for name in QUERY_FIGURES}


def query_lines(pairs: GradePairs, level: float, set_name: str, per_query: bool) -> list[ReportLine]:
    figures = query_figures(pairs, level)
    means = {"table": "judges: grades per query, means (as AutoJudge's qrel-evaluate)", "row": set_name,
             "row_name": "judgements"}
    lines = [ReportLine("judges", "documents", f"{name}_mean:{set_name}", float(np.mean(values[np.isfinite(values)])),
                        column=f"{name}_mean", **means)
             for name, values in figures.items() if np.isfinite(values).any()]
    if per_query:
        each = {"table": "judges: grades per query", "row_name": "qid"}
        for q, qid in enumerate(pairs.qids):
            lines += [ReportLine("judges", "documents", f"{name}:{set_name}:{qid}", float(values[q]), row=qid,
                                 column=f"{name}:{set_name}", **each)
                      for name, values in figures.items() if np.isfinite(values[q])]
    return lines
