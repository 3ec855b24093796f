"""Evaluate runs: from file names to matrices of per-query values.

This is the library face of the command line: ``evaluate(qrels, runs, ...)``
does everything ``lexeval`` does before formatting and returns an
:class:`Evaluation`, built once and not changed afterwards. It orchestrates
the layers below (``io`` -> ``rankings`` -> ``measures`` and
``preferences`` -> ``stats``) and computes nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, cast

import numpy as np

from .bounds import Bounder, check_bounded, has_bounds
from .bounds.lexical import BOUNDED_PREFERENCES
from .bounds.pairs import DifferenceBounds, bounded_in_background, marked_fragile
from .checks import choice
from .choices import GATE_TESTS
from .errors import UsageError
from .interface import Inputs
from .io.runs import sources_of
from .io.zscores import read_zscores
from .loading import DEFAULT_SETS, LexevalNote, check_judgements, in_keywords, load, note  # noqa: F401 (the library's)
from .measures import registry as m
from .measures.names import select_measures
from .measures.requests import computed
from .measures.zscores import to_zscores
from .options import Evaluating, Hooks, Measuring, Options, Reading
from .preferences import Preferences, RelevantRanks, compute_preferences, rank_runs
from .rankings import Rankings
from .result import ResultViews
from .stats.gate import GateFailure, GateVerdict, failures_of, gate_verdicts
from .stats.pairs import (
    MetricPairs,
    PairSummary,
    PairTests,
    SignificanceOptions,
    compute_pair_tests,
    metric_pairs,
    plan_for,
    selected_pairs,
    summarize_pairs,
)
from .stats.totals import Queries, Totals, query_totals, run_scores_of
from .timings import timed


@dataclass(frozen=True)
class Column:
    """One printed measure: values (R, Q) for every run and query."""

    name: str
    measure: m.Measure
    values: np.ndarray


class ResultCore(ResultViews):
    """What a result offers, made once for one machine's
    :class:`Evaluation` and the cluster's
    :class:`~lexeval.cluster.combine.Combined`: summaries from the exact
    totals, the tests, the preferences' scores, the gate, and the same
    measures on other rankings. A result holds ``run_names``,
    ``run_tags``, ``columns``, ``totals``, ``options`` (its tests),
    ``requests``, ``complete``, ``aggregate``, ``pairs``, ``pair_summary``,
    ``tests``, ``preferences`` and ``zscores``; with per-query values,
    ``qids``, ``included`` and ``compared`` (a cluster's only when brought
    back)."""

    # what Evaluation and Combined hold (run_names, run_tags and qids too: fields of one, properties of the other)
    included: Any
    compared: Any
    totals: Any
    complete: bool
    preferences: Any
    pair_summary: Any
    requests: tuple
    aggregate: str

    @property
    def compared_qids(self) -> list[str]:
        if self.compared is None:
            return []
        return [qid for qid, on in zip(cast(Any, self).qids, self.compared.tolist()) if on]

    def compared_values(self, column: Column) -> np.ndarray:
        """(R, compared queries) a column's values where runs are compared."""
        return column.values[:, self.compared]

    def values(self, name: str) -> np.ndarray:
        """(R, Q) per-query values of a measure (any accepted name), NaN
        where a run's average leaves the query out (a query the run lacks,
        without -c): ``np.nanmean(values, axis=1)`` is the printed mean.
        ``column(name).values`` holds 0 there, as comparisons score it."""
        column = self.column(name)
        if column.values is None or self.included is None:
            raise KeyError(f"{name}: the per-query values stayed on the cluster's workers (per_query=True brings "
                           "them back)")
        return np.where(self.included, column.values, np.nan)

    def num_queries(self) -> np.ndarray:
        """(R,) queries evaluated per run."""
        return self.totals.included

    def summary(self, column: Column) -> np.ndarray:
        """(R,) the 'all' value of a column, as trec_eval computes it (from
        exact sums over the included queries)."""
        return summary_values(column.measure, column.name, self.totals, cast(Any, self).run_tags, self.complete)

    def summary_of(self, name: str) -> np.ndarray:
        """(R,) the 'all' values of a measure, by any accepted name."""
        return self.summary(self.column(name))

    def p_values(self, name: str) -> np.ndarray:
        """(P,) p-values of a measure or preference, by any accepted name
        (``nDCG@10``, ``lexiprecision``), for the pairs in ``pairs``."""
        printed = self.printed_name(name)
        if self.tests is None or printed not in self.tests.p:
            raise KeyError(f"{name}: not tested (a count, one run, or --test none)")
        return self.tests.p[printed]

    def preference_names(self) -> list[str]:
        return list(self.totals.preferences) if self.totals is not None else []

    def run_preference_scores(self, name: str) -> np.ndarray:
        """(R, compared queries) each run's mean preference ``name`` against the others."""
        return run_scores_of(self.preferences)[name]

    def run_preference_summary(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(R,) score and rank (1 = best) for ``name``, aggregated from the
        per-query scores as ``aggregate`` says (mean, borda, mc4)."""
        name = self.printed_name(name)
        if name not in self.preference_names():
            raise KeyError(f"{name} is not a preference; computed here: {', '.join(self.preference_names())}")
        score = self.pair_summary.scores[name]
        return score, rank_runs(score)

    def gate_verdicts(self, gates: list[str], margin: float = 0.0, gate_test: str = "worse") -> list[GateVerdict]:
        """A verdict per candidate run and each of ``gates`` (printed measure
        names), by ``gate_test`` (see :func:`lexeval.stats.gate.gate_verdicts`)."""
        return gate_verdicts(self, gates, margin, str(choice("gate_test", gate_test, GATE_TESTS)))

    def gate_failures(self, gates: list[str], margin: float = 0.0) -> list[GateFailure]:
        """Runs significantly worse than the baseline on each of ``gates``
        (printed measure names) by more than ``margin``."""
        return failures_of(self.gate_verdicts(gates, margin))

    def reevaluate(self, rankings: Rankings, options: SignificanceOptions | None = None) -> Evaluation:
        """The same measures and preferences on other rankings (e.g. with
        labels removed, or other judgements), on this machine, without
        significance tests unless ``options`` says how to test."""
        return evaluate_rankings(rankings, self.requests, self.preference_names(),
                                 Options(Reading(complete=self.complete), Measuring(aggregate=self.aggregate),
                                         options or SignificanceOptions(test="none")), zscores=self.zscores)


@dataclass(frozen=True, eq=False, repr=False)      # equal only to itself: arrays have no one truth value
class Evaluation(ResultCore):
    """Per-run measure values for every run and qrels query, and the
    comparisons between runs; made once by :func:`evaluate_rankings`.

    ``included[r, q]`` says whether query q counts in run r's averages (the
    run has it, or -c asked for every query), as trec_eval decides per run.
    ``compared[q]`` says whether query q takes part in comparisons (it has a
    relevant document; elsewhere every run ties). Preferences, tests and
    reports see only compared queries (``comparison``).
    """

    rankings: Rankings
    columns: list[Column]
    included: np.ndarray                      # (R, Q) bool
    compared: np.ndarray                      # (Q,) bool
    options: SignificanceOptions
    requests: tuple                           # the measure requests computed
    complete: bool = False
    preferences: Preferences | None = None    # (all pairs, compared queries) pair preferences
    pairs: np.ndarray | None = None           # (P, 2) pairs printed and tested, command-line order
    pair_summary: PairSummary | None = None   # preferences of ``pairs``, every run's scores
    tests: PairTests | None = None            # tests of ``pairs`` (None with --test none)
    aggregate: str = "mean"                   # how <pref>_score and _rank rank the runs
    metric_pairs: MetricPairs | None = None   # with pair_metrics: per pair, metric differences
    zscores: dict | None = None               # -Z's reference means and sds, if values are z-scores
    totals: Totals | None = None              # the sums over queries every summary and test is made of
    inputs: Inputs | None = None              # the qrels and runs, and how they were read (by evaluate())
    difference_bounds: DifferenceBounds | None = None   # with --bounds: each pair's bounds and fragile wins

    @cached_property
    def comparison(self) -> Rankings:
        """The rankings over the compared queries only."""
        return self.rankings.restrict(self.compared)

    @property
    def compared_qids(self) -> list[str]:
        return self.comparison.qids

    @property
    def run_names(self) -> list[str]:
        return self.rankings.run_names

    @property
    def run_tags(self) -> list[str]:
        return self.rankings.run_tags

    @property
    def qids(self) -> list[str]:
        return self.rankings.qids

    @property
    def level(self) -> float:
        """The relevance level (-l), as given."""
        given = self.rankings.relevance_level
        return self.rankings.level if given is None else given

    def level_tie_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """LP's ties per recall level over the compared queries, as counts
        (see :func:`lexeval.reports.ties.level_tie_counts`)."""
        from .preferences import level_tie_counts
        return level_tie_counts(self.comparison)


def compute_columns(rankings: Rankings, requests, phases=None, bounds: bool = False,
                    expected: bool = False) -> list[Column]:
    """Every requested measure's (R, Q) values (on every core: :func:`.measures.requests.computed`); with
    ``bounds``, after each column that has them its least and greatest over the unjudged documents' grades
    (<name>_low, <name>_high; :mod:`lexeval.bounds`); with ``expected``, each its expected value over the
    orders of tied documents (:mod:`lexeval.measures.expected`). ``phases("measures", done, total)`` follows."""
    columns = []
    bounder = None
    made = computed(requests, rankings, lambda req: req.measure.expected if expected and
                    req.measure.expected != m.ORDER_FREE else None)
    for done, (req, value) in enumerate(zip(requests, made)):
        if phases:
            phases("measures", done, len(requests))
        if value is None:                     # runid, num_q: summary only
            columns.append(Column(req.output_names()[0], req.measure,
                                  np.zeros((rankings.num_runs, rankings.num_queries))))
            continue
        values = [value]
        bounded = bounds and has_bounds(req.measure)
        if bounded:
            bounder = bounder or Bounder(rankings)
            values.extend(bounder.bounds(req, values[0]))
        if req.measure.zero_when_missing:
            values = [np.where(rankings.present.reshape(-1, 1), value, 0) for value in values]
        for index, name in enumerate(req.output_names()):
            columns.append(Column(name, req.measure, rankings.as_matrix(values[0][:, index])))
            if bounded:
                measure = bound_measure(req.measure)
                columns.extend(Column(f"{name}_{side}", measure, rankings.as_matrix(value[:, index]))
                               for side, value in zip(("low", "high"), values[1:]))
    return columns


def bound_measure(measure: m.Measure) -> m.Measure:
    """The measure row of a bound's column: summed or averaged as the
    measure, never tested (a count stays a count)."""
    summary = m.SUMMARY_SUM if measure.summary == m.SUMMARY_NUM_REL else measure.summary
    return replace(measure, value=measure.value if measure.integer else m.BOUND, summary=summary)


def as_zscores(columns: list[Column], qids: list[str], reference: dict) -> list[Column]:
    """trec_eval's -Z: every numeric column as z-scores against ``reference``,
    printed as Z<name> with four decimals (runid and relstring unchanged)."""
    out = []
    for column in columns:
        if column.measure.text:
            out.append(column)
            continue
        measure = replace(column.measure, value=m.REAL, label="Z" + column.measure.stem)
        values = column.values if column.measure.compute is None else \
            to_zscores(column.values, qids, column.name, reference)
        out.append(Column("Z" + column.name, measure, values))
    return out


def evaluate_rankings(rankings: Rankings, requests, preference_names: list[str] | None = None,
                      options: Options | None = None, *, zscores: dict | None = None,
                      hooks: Hooks | None = None) -> Evaluation:
    """Compute per-run measures and, with 2+ runs, pair preferences and tests.

    ``options``: -c (``reading.complete``: every qrels query counts),
    ``measuring.aggregate`` (mean, borda, mc4: how runs are ranked from
    per-query preferences), ``measuring.pair_metrics`` (every metric a
    preference too: mean difference, wins, losses, ties per pair), and the
    tests (``significance``). ``hooks.timings`` (a :class:`Timings`)
    receives the seconds spent on measures and on pairs (preferences and
    tests); ``hooks.phases(label, done, total)`` follows the measures and
    the pairs."""
    given = options or Options()
    complete, aggregate, pair_metrics = given.reading.complete, given.measuring.aggregate, \
        given.measuring.pair_metrics
    bounds, expected = given.measuring.bounds, given.reading.tie_order == "expected"
    timings: Any = hooks.timings if hooks is not None else None
    phases = hooks.phases if hooks is not None else None
    tested = given.significance
    if tested.baseline is not None and tested.baseline not in rankings.run_names:
        raise UsageError(f"--baseline '{tested.baseline}' is not one of the runs: {', '.join(rankings.run_names)}")
    if rankings.grade_values is not None:
        m.check_fractional(requests, bounds, rankings.qrels.path if rankings.qrels is not None else "the qrels")
    included = np.ones_like(rankings.present) if complete else rankings.present.copy()
    compared = rankings.num_rel_per_query > 0
    pairs = selected_pairs(rankings.run_names, tested.baseline) if rankings.num_runs >= 2 else None
    bounding = bounded_in_background(rankings, requests, pairs, compared, preference_names or ()) \
        if bounds and pairs is not None else None
    with timed(timings, "measures"):
        columns = compute_columns(rankings, requests, phases, bounds, expected)
        # the preferences read the relevant ranks the measures located: handed over, the measures' arrays dropped
        relevant_ranks = RelevantRanks.of(rankings) if preference_names and rankings.num_runs >= 2 else None
        rankings.forget()
        if zscores is not None:
            columns = as_zscores(columns, rankings.qids, zscores)
    preferences = summary = tests = as_preferences = plan = difference_bounds = None
    by_name = {column.name: (column.measure, column.values) for column in columns}
    relevant = int(rankings.level_counts[:, 1:].sum())
    if rankings.num_runs < 2:
        totals = query_totals(by_name, Queries(included, compared, rankings.qids, relevant))
    else:
        with timed(timings, "pairs"):
            plan = plan_for(by_name, cast(np.ndarray, pairs), tested, pair_metrics)
            if preference_names:
                preferences = compute_preferences(rankings.restrict(compared), preference_names,
                                                  cast(RelevantRanks, relevant_ranks).restrict(compared))
            totals = query_totals(by_name, Queries(included, compared, rankings.qids, relevant), plan, preferences,
                                  aggregate, phases)
            if phases:
                phases("tests", 0, 1)
            summary, tests, as_preferences = conclude(totals, plan, tested, aggregate, pair_metrics)
            if phases:
                phases("tests", 1, 1)
            if bounding is not None:
                difference_bounds = marked_fragile(bounding.result(), tests, tested.alpha)
    return Evaluation(rankings, columns, included, compared, tested, tuple(requests), complete,
                      preferences, pairs, summary, tests, aggregate, as_preferences, zscores, totals,
                      difference_bounds=difference_bounds)


def conclude(totals: Totals, plan, options: SignificanceOptions, aggregate: str, pair_metrics: bool):
    """(pair summary or None, tests or None, metric pairs or None) from the totals."""
    summary = summarize_pairs(totals, plan, options if options.test != "none" else None, aggregate) \
        if totals.preferences else None
    tests = compute_pair_tests(totals, plan, summary, options) if options.test != "none" else None
    return summary, tests, metric_pairs(totals, plan) if pair_metrics else None


def summary_values(measure: m.Measure, name: str, totals: Totals, run_tags, complete: bool) -> np.ndarray:
    """(R,) the 'all' value of the column ``name`` of ``measure``, from the
    totals: sums exact, means from trec_eval's left-to-right sums."""
    kind, count = measure.summary, totals.included
    if kind == m.SUMMARY_RUNID:
        return np.array(run_tags, dtype=object)
    if kind == m.SUMMARY_COUNT:
        return count
    if kind == m.SUMMARY_NUM_REL and complete:
        # trec_eval's -c summary counts every judgement above grade 0,
        # whatever -l says (m_num_rel.c); its per-query lines follow -l
        return np.full(len(count), totals.relevant)
    if kind in (m.SUMMARY_SUM, m.SUMMARY_NUM_REL):
        values = totals.columns[name].totals()
        return np.rint(values).astype(np.int64) if measure.integer else values
    # means: trec_eval's sum, left to right in qid order, over the count
    total = cast(dict, totals.in_order)[name]
    if kind == m.SUMMARY_GEOMETRIC:
        return np.where(count > 0, np.exp(total / np.maximum(count, 1)), 0.0)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def requests_for(asked: Evaluating, num_runs: int):
    """(measure requests, the selection they come from) of what is asked
    for ``num_runs`` runs: the defaults of -R's judgements where no measure
    is named, each with -N and --rarity-weight where it reads them."""
    reading, measuring = asked.options.reading, asked.options.measuring
    # --fill-qrels: who judged each run's top 10, beside what was asked
    extra = (*asked.extra_measures, *(("judged_qrels", "judged_fill") if reading.fill_qrels is not None else ()))
    selection = select_measures(asked.measures, num_runs, extra=extra, default_set=DEFAULT_SETS[reading.rel_format])
    check_judgements(selection, reading.rel_format, asked.measures)
    if measuring.bounds:
        if reading.judged_only:
            raise UsageError("--bounds with -J: judged-only rankings hold no unjudged documents, so every bound "
                             "is the value itself; leave out one of them")
        if reading.zscores is not None:
            raise UsageError("--bounds with -Z: the bounds are of the measures' values, not of their z-scores; "
                             "leave out one of them")
        check_bounded(selection.metrics, named_alone(asked.measures, num_runs))
    if reading.tie_order == "expected":
        selection = in_expectation(selection, named_alone(asked.measures, num_runs), depth=reading.depth,
                                   bounds=measuring.bounds)
    requests = [replace(req, rarity_weight=measuring.rarity_weight) if req.measure.needs_documents else
                replace(req, num_docs=reading.num_docs) if req.measure.uses_num_docs else req
                for req in selection.metrics]
    return requests, selection


def named_alone(measures, num_runs: int) -> set:
    """The measures and preferences -m names one by one (not through a set):
    where one has no bounds or expected value, it is refused, not left out."""
    from .choices import PREFERENCE_SETS
    alone = set()
    for name in measures or ():
        if isinstance(name, str) and (name in m.MEASURE_SETS or name in PREFERENCE_SETS):
            continue
        chosen = select_measures([name], max(num_runs, 2))
        alone |= {req.measure.name for req in chosen.metrics} | set(chosen.preferences)
    return alone


def in_expectation(selection, named: set, depth: int | None, bounds: bool):
    """The selection as --tie-order expected computes it: every measure
    with an expected value in closed form; the others, and the preferences,
    refused where named one by one (-m) and left out of a set and the
    default set, with a note."""
    if depth is not None:
        raise UsageError("-M with --tie-order expected: which tied documents make the top DEPTH depends on their "
                         "order; ask for a measure's cutoff instead (P.k, ndcg_cut.k, map_cut.k)")
    if bounds:
        raise UsageError("--bounds with --tie-order expected: the bounds are over the unjudged documents' grades "
                         "in one order of the ties; use --tie-order trec_eval or input with --bounds")
    missing = [req for req in selection.metrics if req.measure.expected is None and req.measure.name in named]
    preferences = [name for name in selection.preferences if name in named]
    if missing or preferences:
        names = [req.output_names()[0] for req in missing] + preferences
        raise UsageError(f"--tie-order expected: no expected value over tie orders in closed form for "
                         f"{', '.join(names)}; lexeval computes it for the measures --list-measures marks, not for "
                         "the preferences (LP, LR, ...); use --tie-order trec_eval or input")
    return replace(selection, metrics=[req for req in selection.metrics if req.measure.expected is not None],
                   preferences=[])


def evaluation_notes(asked: Evaluating, num_runs: int) -> list[str]:
    """What --bounds and --tie-order expected leave out of the default
    measures (none where measures are named: they are refused)."""
    reading, measuring = asked.options.reading, asked.options.measuring
    if not measuring.bounds and reading.tie_order != "expected":
        return []
    requests, _ = requests_for(asked, num_runs)
    notes = []
    if reading.tie_order == "expected":
        full, selection = requests_for(replace(asked, options=replace(asked.options, reading=replace(
            reading, tie_order="trec_eval"))), num_runs)
        left = [req.measure.stem for req in full if req.measure.expected is None]
        left += [] if num_runs < 2 or not selection.preferences else ["the preferences"]
        if left:
            notes.append(f"--tie-order expected: {', '.join(dict.fromkeys(left))} left out (no expected value "
                         "over tie orders in closed form; --list-measures marks those that have one)")
    missing = check_bounded(requests, named_alone(asked.measures, num_runs)) if measuring.bounds else []
    if missing:
        names = ", ".join(dict.fromkeys(req.measure.stem for req in missing))
        notes.append(f"--bounds: no exact bounds for {names}: printed without _low and _high (--list-measures "
                     "says which measures have them)")
    if measuring.bounds and num_runs >= 2:
        _, selection = requests_for(asked, num_runs)
        unbounded = [req.measure.stem for req in requests if req.measure.per_query and req.measure.value == m.REAL
                     and not req.measure.pair_bounds and req not in missing]
        unbounded += [name for name in selection.preferences if name not in BOUNDED_PREFERENCES]
        if unbounded:
            notes.append(f"--bounds: no exact bounds of the difference between two runs for "
                         f"{', '.join(dict.fromkeys(unbounded))} (one assignment shared by both: --list-measures "
                         "says which have them): their pairs print no _low, _high or _fragile")
    return notes


def evaluate(qrels, runs, measures=None, options: Options | None = None, *, extra_measures=(),
             keep_rows: bool = False, hooks: Hooks | None = None) -> Evaluation:
    """Evaluate runs against qrels: trec_eval's measures for each run, and
    with two or more runs the pair preferences and significance tests.

    ``qrels``: a path, or a table (pandas or polars DataFrame, pyarrow
    Table) with columns qid, docno and relevance (or grade). ``runs``: a
    path or table (columns qid, docno, score), a list of them, or a dict
    {run name: path or table}. ``measures``: -m values (None: the
    defaults). ``options`` (:class:`~lexeval.options.Options`): how to read
    (``reading``: -l, -M, -c, -J, -R, -Z, -N, --subtopics, --jobs), what to
    compute (``measuring``: --rarity-weight, --aggregate, --pair-metrics)
    and how to test (``significance``). ``extra_measures`` are computed
    even when ``measures`` is None (the gate's); ``keep_rows`` keeps
    document identities (the degradation report needs them); ``hooks``
    (:class:`~lexeval.options.Hooks`): notes, progress, timings, phases and
    what was read. :func:`lexeval.evaluate` takes all of these as keywords,
    and runs on a Dask cluster with ``client=``.

    >>> ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])  # doctest: +SKIP
    >>> ev.column("map").values          # (runs, queries)  # doctest: +SKIP
    >>> ev.to_frame()                    # run, pair, measure, qid, value  # doctest: +SKIP
    """
    options = options or Options()
    hooks = hooks or Hooks()
    reading = options.reading
    sources = sources_of(runs)
    asked = Evaluating(measures, options, extra_measures, keep_rows)
    requests, selection = requests_for(asked, len(sources))
    rankings = load(qrels, sources, replace(reading, subtopics=reading.subtopics or selection.needs_subtopics),
                    keep_rows=keep_rows or selection.needs_documents,
                    keep_holes=options.measuring.bounds and len(sources) >= 2, hooks=hooks)
    evaluation = evaluate_rankings(rankings, requests, selection.preferences, options,
                                   zscores=read_zscores(reading.zscores) if reading.zscores is not None else None,
                                   hooks=hooks)
    # the reports that read the runs again (judges, reusability, reproduction) read them as these were read
    return replace(evaluation, inputs=Inputs(qrels, tuple(sources), reading))
