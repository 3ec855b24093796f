"""The papers' evaluation analyses, on any set of runs (``--report NAME``).

Every report works from the same two matrices per measure:

- differences D (P, Q): for every pair of runs (A before B) and every query,
  A minus B for a metric, the preference of A over B for LP, rrLP, LR, rrLR;
- scores (R, Q): each run's per-query value (for preferences, its mean
  preference against the other runs), which orders systems.

Reports (seed 000 sections 2, 3.6, 4.2 and 5; seed 003 section 6; seed 002
section 4):

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
  query): ties and agreement with the full-label preferences, mean and sd.

Everything random draws from one ``numpy.random.Generator(seed)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import significance as sig
from .preferences import SIGN_PREFERENCES
from .rankings import Rankings



@dataclass
class ReportOptions:
    reference: str = "recip_rank"
    trials: int = 1000
    fractions: tuple[float, ...] = (1.0, 0.8, 0.6, 0.4, 0.2)
    samples: int = 10
    seed: int = 0
    alpha: float = 0.05
    test: str = "t"
    permutations: int = 10_000
    correction: str = "none"


@dataclass
class ReportLine:
    report: str
    measure: str
    parameter: str
    value: float


@dataclass
class MeasureMatrices:
    """Per measure: differences (P, Q) over all pairs, scores (R, Q)."""

    pairs: np.ndarray
    differences: dict[str, np.ndarray] = field(default_factory=dict)
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    is_sign: dict[str, bool] = field(default_factory=dict)


def matrices(evaluation) -> MeasureMatrices:
    """Differences and scores of every tested measure of an evaluation."""
    from .evaluation import testable
    pairs = np.array(evaluation.preferences.pairs if evaluation.preferences else
                     [(a, b) for a in range(len(evaluation.run_names))
                      for b in range(a + 1, len(evaluation.run_names))], dtype=np.int64).reshape(-1, 2)
    out = MeasureMatrices(pairs)
    for column in evaluation.columns:
        if testable(column):
            values = evaluation.compared_values(column).astype(np.float64)
            out.differences[column.name] = values[pairs[:, 0]] - values[pairs[:, 1]]
            out.scores[column.name] = values
            out.is_sign[column.name] = False
    if evaluation.preferences is not None:
        for name, values in evaluation.preferences.values.items():
            out.differences[name] = values
            out.scores[name] = evaluation.run_preference_scores(name)
            out.is_sign[name] = name in SIGN_PREFERENCES
    return out


def _percent(mask: np.ndarray) -> float:
    return 100.0 * float(mask.mean()) if mask.size else 0.0


# ---------------------------------------------------------------- ties

def ties(evaluation, data: MeasureMatrices, options: ReportOptions) -> list[ReportLine]:
    lines = [ReportLine("ties", name, "all", _percent(d == 0)) for name, d in data.differences.items()]
    if evaluation.preferences is not None and "LP" in evaluation.preferences.names:
        lines += [ReportLine("ties", "LP_level", str(level), value)
                  for level, value in level_ties(evaluation.comparison)]
        decided = evaluation.preferences.levels["LP"]
        decided = decided[decided > 0]
        if decided.size:
            counts = np.bincount(decided)
            for level in np.flatnonzero(counts):
                lines.append(ReportLine("ties", "LP_decided_at", str(level), 100.0 * counts[level] / decided.size))
    return lines


def level_ties(r: Rankings) -> list[tuple[int, float]]:
    """(level i, % of (query, pair) cases with p_i^A = p_i^B) over queries
    with at least i relevant documents; unretrieved positions are equal."""
    runs, queries = r.num_runs, r.num_queries
    if runs < 2:
        return []
    m = r.num_rel_per_query                                       # (Q,)
    # every (run, query, level <= m) with its position (0 = unretrieved)
    segment_levels = m[r.segment_query]                           # (S,) levels per segment
    owner = np.repeat(np.arange(r.num_segments), segment_levels)
    level = np.arange(len(owner)) - np.repeat(np.concatenate(([0], np.cumsum(segment_levels)[:-1])),
                                              segment_levels) + 1
    retrieved = level <= r.num_rel_ret[owner]
    position = np.zeros(len(owner), dtype=np.int64)
    position[retrieved] = r.rel_rank[r.rel_starts[owner[retrieved]] + level[retrieved] - 1]
    query = r.segment_query[owner]
    # tied pairs per (query, level): sum over equal positions of C(count, 2)
    width = int(r.lengths.max(initial=0)) + 1
    deepest = int(m.max())
    key = (query * (deepest + 1) + level) * width + position
    values, counts = np.unique(key, return_counts=True)
    group = values // width                                       # (query, level) of each value
    tied = np.bincount(group, weights=counts * (counts - 1) / 2, minlength=queries * (deepest + 1))
    tied = tied.reshape(queries, deepest + 1).sum(axis=0)
    queries_reaching = np.cumsum(np.bincount(m, minlength=deepest + 1)[::-1])[::-1]   # (m >= i)
    cases = queries_reaching * (runs * (runs - 1) / 2)
    return [(i, 100.0 * tied[i] / cases[i]) for i in range(1, deepest + 1) if cases[i] > 0]


# ---------------------------------------------------------------- agreement

def agreement(evaluation, data: MeasureMatrices, options: ReportOptions) -> list[ReportLine]:
    reference = data.differences.get(options.reference)
    if reference is None:
        raise ValueError(f"--reference {options.reference} was not computed")
    lines = []
    reference_mean = reference.mean(axis=1)
    for name, d in data.differences.items():
        if name == options.reference:
            continue
        cases = reference != 0
        lines.append(ReportLine("agreement", name, "ranking",
                                _percent(np.sign(d[cases]) == np.sign(reference[cases]))))
        differs = reference_mean != 0
        lines.append(ReportLine("agreement", name, "system",
                                _percent(np.sign(d.mean(axis=1)[differs]) == np.sign(reference_mean[differs]))))
    return lines


# ---------------------------------------------------------------- discrimination

def discrimination(evaluation, data: MeasureMatrices, options: ReportOptions) -> list[ReportLine]:
    lines = []
    for name, d in data.differences.items():
        if data.is_sign[name]:
            p = sig.sign_test(d)
        elif name in ("rrLP", "rrLR") or options.test == "t":
            p = sig.one_sample_t(d)
        else:
            p = sig.randomization(d, options.permutations, options.seed)
        p = sig.correct(p, options.correction)
        lines.append(ReportLine("discrimination", name, "test", _percent(p < options.alpha)))
        hsd = sig.tukey_hsd(data.scores[name], data.pairs)
        lines.append(ReportLine("discrimination", name, "hsd", _percent(hsd < options.alpha)))
    return lines


# ---------------------------------------------------------------- stability

def stability(evaluation, data: MeasureMatrices, options: ReportOptions,
              progress: Callable | None = None) -> list[ReportLine]:
    rng = np.random.default_rng(options.seed)
    queries = next(iter(data.differences.values())).shape[1]
    half = max(queries // 2, 1)
    membership = np.zeros((options.trials, queries))
    for trial in range(options.trials):
        membership[trial, rng.choice(queries, size=half, replace=False)] = 1.0
        if progress and (trial + 1) % 50 == 0:
            progress(trial + 1, options.trials)
    lines = []
    reference_order = data.scores[options.reference].mean(axis=1) if options.reference in data.scores else None
    for name, d in data.differences.items():
        full = np.sign(d.sum(axis=1))                               # (P,)
        sampled = np.sign(d @ membership.T)                          # (P, trials)
        agree = (sampled == full[:, None]).mean(axis=1)
        lines.append(ReportLine("stability", name, "all", float(agree.mean()) if agree.size else 0.0))
        if reference_order is not None and name != options.reference:
            from scipy import stats
            tau = stats.kendalltau(data.scores[name].mean(axis=1), reference_order).statistic
            lines.append(ReportLine("stability", name, "tau", 0.0 if np.isnan(tau) else float(tau)))
    return lines


# ---------------------------------------------------------------- degradation

def degraded(r: Rankings, qrels, fraction: float, rng: np.random.Generator) -> Rankings:
    """Rankings with a random ``fraction`` of each query's relevant labels
    kept (at least one); removed labels make their documents unjudged."""
    from dataclasses import replace
    query_of_row = qrels.query_index
    relevant_rows = np.flatnonzero(qrels.grades >= r.level)
    evaluated = {qid: index for index, qid in enumerate(r.qids)}
    row_query = np.array([evaluated.get(qrels.qids[q], -1) for q in query_of_row[relevant_rows]], dtype=np.int64)
    inside = row_query >= 0
    relevant_rows, row_query = relevant_rows[inside], row_query[inside]
    order = np.lexsort((rng.random(len(relevant_rows)), row_query))
    relevant_rows, row_query = relevant_rows[order], row_query[order]
    first = np.searchsorted(row_query, np.arange(r.num_queries))
    position = np.arange(len(row_query)) - first[row_query]
    keep_count = np.maximum(1, np.round(fraction * r.num_rel_per_query)).astype(np.int64)
    removed = relevant_rows[position >= keep_count[row_query]]
    removed_mask = np.zeros(len(qrels.grades), dtype=bool)
    removed_mask[removed] = True
    codes = r.codes.copy()
    hit = (r.qrels_rows >= 0)
    hit[hit] = removed_mask[r.qrels_rows[hit]]
    codes[hit] = -1
    level_counts = r.level_counts.copy()
    removed_query = row_query[position >= keep_count[row_query]]
    width = level_counts.shape[1]
    level_counts -= np.bincount(removed_query * width + qrels.grades[removed],
                                minlength=level_counts.size).reshape(level_counts.shape)
    return replace(r, codes=codes, level_counts=level_counts)


def degradation(evaluation, data: MeasureMatrices, options: ReportOptions,
                progress: Callable | None = None) -> list[ReportLine]:
    """Re-evaluates the same measures on rankings with labels removed."""
    qrels = evaluation.rankings.qrels
    compared_rankings = evaluation.comparison
    rng = np.random.default_rng(options.seed)
    lines = []
    total = len(options.fractions) * options.samples
    done = 0
    for fraction in options.fractions:
        tie_rates: dict[str, list[float]] = {name: [] for name in data.differences}
        agreements: dict[str, list[float]] = {name: [] for name in data.differences}
        for _ in range(options.samples):
            sample = matrices(evaluation.reevaluate(degraded(compared_rankings, qrels, fraction, rng)))
            for name, full in data.differences.items():
                d = sample.differences[name]
                tie_rates[name].append(_percent(d == 0))
                decided = full != 0
                agreements[name].append(_percent(np.sign(d[decided]) == np.sign(full[decided])))
            done += 1
            if progress:
                progress(done, total)
        for name in data.differences:
            for what, values in (("ties", tie_rates[name]), ("agreement", agreements[name])):
                lines.append(ReportLine("degradation", f"{name}_{what}_mean", f"{fraction:g}",
                                        float(np.mean(values))))
                lines.append(ReportLine("degradation", f"{name}_{what}_sd", f"{fraction:g}",
                                        float(np.std(values, ddof=1)) if len(values) > 1 else 0.0))
    return lines


def run_reports(evaluation, names: list[str], options: ReportOptions,
                progress: Callable | None = None) -> list[ReportLine]:
    """Every requested report, once each, in the order asked.
    ``progress(label, done, total)`` follows the sampling loops."""
    if not evaluation.compared.any():
        from .errors import UsageError
        raise UsageError(f"--report compares runs on the queries with a relevant document (grade >= "
                         f"{evaluation.rankings.level}), and there is none here: nothing to compare")
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
        elif name == "degradation":
            lines += degradation(evaluation, data, options,
                                 progress and (lambda done, total: progress("degradation", done, total)))
    return lines
