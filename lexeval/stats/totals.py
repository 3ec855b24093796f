"""Sufficient statistics: everything the summaries and tests need, as sums
over queries that add up across any split of the queries.

:func:`query_totals` turns one set of queries' per-query values (runs x
queries matrices, pair preferences) into :class:`Totals`; totals of
disjoint sets of queries add with ``+``; :func:`conclude` turns totals
into every printed summary, mean, count, p-value and interval. One machine
makes one set of totals from all queries; a cluster makes one per
partition and adds them: the same integers, so the same output.

Per pair and measure the totals are the exact first and second moments of
the per-query differences, their extremes and win / loss / tie counts;
per run the exact sums of each measure; for Tukey HSD the two-way ANOVA
sums; for randomization tests and bootstrap intervals the per-draw sums
under counter-based draws (see :mod:`lexeval.stats.sums`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..choices import SIGN_PREFERENCES
from ..compiled import cores, in_threads
from ..measures import registry as m
from ..preferences import PairSource, RunSpread, pair_rows, pairs_of_rows
from .anova import Anova
from .conclusions import THREADED_CELLS, t_tests
from .draws import draw_sums, on_grid
from .moments import Moments
from .sums import Sums, fixed_sums, poisson_weights, query_keys, random_signs

_DRAW_CELLS = 1 << 22            # draws x queries generated at once


def _merge(first: dict, second: dict) -> dict:
    return {name: first[name] + second[name] for name in first}


@dataclass
class Totals:
    """Sufficient statistics of one set of queries (see the module)."""

    included: np.ndarray                       # (R,) queries counted per run
    compared: int                              # queries with a relevant document
    relevant: int                              # judgements above grade 0 (-c's num_rel)
    columns: dict[str, Sums]                   # printed name -> (R,) sums over included queries (counts)
    metrics: dict[str, Moments] = field(default_factory=dict)       # per printed pair, over compared queries
    preferences: dict[str, Moments] = field(default_factory=dict)
    anova: dict[str, Anova] = field(default_factory=dict)           # --hsd: metrics' and run scores'
    randomized: dict[str, np.ndarray] = field(default_factory=dict)  # (P, permutations) sign-flipped sums
    resampled: dict[str, np.ndarray] = field(default_factory=dict)   # (P, resamples) weighted sums
    weights: np.ndarray | None = None          # (resamples,) total bootstrap weight
    run_scores: dict[str, Sums] = field(default_factory=dict)       # (R,) sums of preferences, over pairs and queries
    borda: dict[str, np.ndarray] = field(default_factory=dict)      # (R,) runs below + half the tied ones
    majority: dict[str, np.ndarray] = field(default_factory=dict)   # (R, R) queries above minus below
    in_order: dict[str, np.ndarray] | None = None   # (R,) trec_eval's sums: left to right in qid order (not added)

    def __add__(self, other: Totals) -> Totals:
        return Totals(self.included + other.included, self.compared + other.compared,
                      self.relevant + other.relevant, _merge(self.columns, other.columns),
                      _merge(self.metrics, other.metrics), _merge(self.preferences, other.preferences),
                      _merge(self.anova, other.anova), _merge(self.randomized, other.randomized),
                      _merge(self.resampled, other.resampled),
                      None if self.weights is None else self.weights + other.weights,
                      _merge(self.run_scores, other.run_scores), _merge(self.borda, other.borda),
                      _merge(self.majority, other.majority))


@dataclass(frozen=True)
class Plan:
    """What :func:`query_totals` sums: the printed pairs, the tested metrics
    (printed name -> test kind), the preferences, and the options that
    decide the draws."""

    pairs: np.ndarray                  # (P, 2)
    tested: dict[str, str]             # metric name -> "t" | "randomization"
    paired: tuple[str, ...]            # metrics made preferences (--pair-metrics)
    permutations: int = 0              # > 0: randomization sums
    resamples: int = 0                 # > 0: bootstrap sums (--ci)
    seed: int | None = 0
    hsd: bool = False
    testing: bool = True               # the pairs are tested (the preferences' tests made with their totals)


class SummedColumns(Mapping):
    """{name: (R, Q)} the values each summary adds: the measure's values
    (logs for geometric means) where a run's query counts, 0 elsewhere;
    each made when it is read."""

    def __init__(self, columns, included: np.ndarray):
        self.columns, self.included = columns, included
        self.names = [name for name, (measure, _) in columns.items() if measure.summary in
                      (m.SUMMARY_MEAN, m.SUMMARY_SUM, m.SUMMARY_NUM_REL, m.SUMMARY_GEOMETRIC)]

    def __getitem__(self, name: str) -> np.ndarray:
        measure, values = self.columns[name]
        if measure.summary == m.SUMMARY_GEOMETRIC:
            values = m.geometric_mean_log(values)
        return np.where(self.included, values, 0).astype(np.float64)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def fold_in_order(start: dict[str, np.ndarray] | None, summed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """trec_eval's sums, continued: ``start`` (R,) per column (None: 0)
    plus this set's values (R, Q), added one query at a time, left to right
    in qid order, in floating point, as trec_eval adds them. Not additive:
    a cluster folds its partitions one after another, in qid order."""
    out = {}
    for name, values in summed.items():
        first = np.zeros(len(values)) if start is None else start[name]
        # a copy: the last column alone, not a view that keeps the whole (R, Q) running sums alive
        out[name] = np.cumsum(np.concatenate([first[:, None], values], axis=1), axis=1)[:, -1].copy()
    return out


@dataclass(frozen=True)
class Queries:
    """One set of queries: ``included`` (R, Q) those each run averages over,
    ``compared`` (Q,) those with a relevant document, ``qids`` their ids
    (the draws' keys), ``relevant`` the judgements above grade 0."""

    included: np.ndarray
    compared: np.ndarray
    qids: list[str]
    relevant: int


def query_totals(columns, queries: Queries, plan: Plan | None = None, preferences: PairSource | None = None,
                 aggregate: str = "mean", phases=None) -> Totals:
    """Totals of one set of queries.

    ``columns``: printed name -> (measure, (R, Q) values); ``preferences``
    over the compared queries; ``plan`` None for one run."""
    included, compared, qids, relevant = queries.included, queries.compared, queries.qids, queries.relevant
    # counts are summed exactly; trec_eval's means are added in its order (fold_in_order); a column at a
    # time, so that one masked copy is alive at once
    sums, in_order = {}, {}
    for name, values in SummedColumns(columns, included).items():
        if columns[name][0].summary in (m.SUMMARY_SUM, m.SUMMARY_NUM_REL):
            sums[name] = fixed_sums(values)
        in_order.update(fold_in_order(None, {name: values}))
    totals = Totals(included.sum(axis=1), int(compared.sum()), relevant, sums, in_order=in_order)
    if plan is None:
        return totals
    chosen = None if compared.all() else compared
    keys = query_keys([qid for qid, on in zip(qids, compared.tolist()) if on]) \
        if plan.permutations or plan.resamples else None
    if plan.resamples:
        weights, step = np.zeros(plan.resamples), max(1, _DRAW_CELLS // plan.resamples)
        keys = cast(np.ndarray, keys)
        for start in range(0, len(keys), step):
            weights += poisson_weights(plan.seed, keys[start:start + step], 0, plan.resamples).sum(axis=1)
        totals.weights = weights
    work = [(name, (values if chosen is None else values[:, chosen]).astype(np.float64), plan.tested.get(name))
            for name, (_, values) in columns.items() if name in plan.tested or name in plan.paired]
    # big enough (a thread costs a fraction of a millisecond): the preferences' part beside the metrics' (its
    # own keys of the totals; compiled code and numpy mostly), and a metric per thread
    threads = len(plan.pairs) * max(int(compared.sum()), 1) >= THREADED_CELLS and cores() > 1
    preferring = None
    if threads and preferences is not None:
        from concurrent.futures import ThreadPoolExecutor
        beside = ThreadPoolExecutor(max_workers=1)
        preferring = beside.submit(_preference_totals, totals, preferences, plan, keys, aggregate)
        beside.shutdown(wait=False)         # the submitted call still runs; its result is awaited below
    elif preferences is not None:
        _preference_totals(totals, preferences, plan, keys, aggregate)
    # fewer measures than cores (-m map): each measure's pairs shared between threads
    parts = max(1, cores() // max(len(work) + (preferences is not None), 1)) if threads else 1
    made = in_threads(lambda item: _metric_totals(item[0], item[1], item[2], plan, keys, parts), work, threads)
    for done, ((name, _, kind), (moments, randomized, resampled, anova)) in enumerate(zip(work, made)):
        if phases:
            phases("pairs", done, len(work) + 1)
        totals.metrics[name] = moments
        if kind == "randomization":
            totals.randomized[name] = randomized
            if resampled is not None:
                totals.resampled[name] = resampled
        if anova is not None:
            totals.anova[name] = anova
    if preferring is not None:
        preferring.result()             # its exception, if any, is raised here
    if phases:
        phases("pairs", len(work) + 1, len(work) + 1)
    return totals


def _metric_totals(name: str, values: np.ndarray, kind: str | None, plan: Plan, keys, parts: int = 1):
    """One metric's part of the totals over the printed pairs: its moments,
    and where asked for its randomization and bootstrap sums and ANOVA;
    ``parts`` threads share its pairs' moments and t-tests."""
    pairs = plan.pairs
    # t-tests need only sums and cross products; wins and extremes where printed or randomized
    moments = Moments.of_pairs(values, pairs, kind == "randomization" or name in plan.paired, parts)
    if kind == "t":
        t_tests([moments], parts)       # here, in this measure's thread, while the other threads work
    randomized = resampled = anova = None
    if kind == "randomization":
        step = max(1, (1 << 21) // max(values.shape[1], 1))
        drawn, resamples = [], []
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            gaps = values[block[:, 0]] - values[block[:, 1]]
            drawn.append(draw_sums(gaps, keys, plan.permutations, plan.seed, random_signs))
            if plan.resamples:
                resamples.append(draw_sums(gaps, keys, plan.resamples, plan.seed, poisson_weights))
        randomized = np.concatenate(drawn) if drawn else np.zeros((0, 1 + plan.permutations), dtype=np.int64)
        resampled = np.concatenate(resamples) if resamples else None
    if plan.hsd and kind is not None:
        anova = Anova.of(values)
    return moments, randomized, resampled, anova


def _preference_totals(totals: Totals, preferences: PairSource, plan: Plan, keys, aggregate: str) -> None:
    """Moments of each preference over the printed pairs, and every run's
    scores (its mean preference against all others, per query) summed as
    the aggregate needs them."""
    runs, queries = preferences.num_runs, preferences.num_queries
    names = preferences.names
    # preferences are made of pairs (a, b), a < b; a pair printed (b, a) (run:baseline) has them negated
    swap = plan.pairs[:, 0] > plan.pairs[:, 1]
    if swap.any():
        from dataclasses import replace
        plan = replace(plan, pairs=np.sort(plan.pairs, axis=1))
    parts: dict[str, list] = {name: [] for name in names}
    where: list[np.ndarray] = []
    resampled: dict[str, list] = {name: [] for name in names}
    fast = _fast_run_totals(preferences)
    printed_only = fast is not None
    scores: dict[str, np.ndarray] = fast if fast is not None else {}
    summed = _summed_preferences(preferences, plan.pairs) if printed_only and not plan.resamples else None
    rows = cast(np.ndarray, pair_rows(runs, plan.pairs) if summed is None else None)
    if summed is not None:
        blocks = []
        totals.preferences.update(summed)
    elif printed_only:        # the runs' scores from the sorted sequences: only the printed pairs' blocks
        slots = np.argsort(rows, kind="stable")             # each sorted row's place among the printed pairs
        blocks = preferences.blocks(rows[slots])
    else:                   # every pair's block adds to the runs' scores
        slots = np.full(preferences.num_pairs, -1, dtype=np.int64)
        slots[rows] = np.arange(len(plan.pairs))
        scores = {name: np.zeros((runs, queries)) for name in names}
        blocks = preferences.blocks()
    done = 0
    for chunk, values, _ in blocks:
        if printed_only:
            slot, done = slots[done:done + len(chunk)], done + len(chunk)
        else:
            _add_run_scores(scores, preferences, chunk, values)
            slot = slots[chunk]
        shown = slot >= 0
        where.append(slot[shown])
        for name, block in values.items():
            chosen = block if printed_only else block[shown]
            parts[name].append(Moments.of(chosen, unit=name in SIGN_PREFERENCES))
            if plan.resamples:
                resampled[name].append(draw_sums(chosen, keys, plan.resamples, plan.seed, poisson_weights))
    order = np.argsort(np.concatenate(where)) if where else np.zeros(0, dtype=np.int64)
    for name in names:
        if summed is None:
            moments = Moments.stack(parts[name]) if parts[name] else Moments.of(np.zeros((0, queries)))
            totals.preferences[name] = moments.take(order)
        totals.preferences[name] = totals.preferences[name].flipped(swap)
        if plan.resamples:
            totals.resampled[name] = np.concatenate(resampled[name])[order]
            totals.resampled[name][swap] *= -1
        totals.run_scores[name] = fixed_sums(scores[name])      # divided once, at the end: ties stay ties
        run_scores = scores[name] / max(runs - 1, 1)
        if aggregate == "borda":
            from .aggregation import borda_points
            totals.borda[name] = borda_points(run_scores)
        if aggregate == "mc4":
            from .aggregation import majority
            totals.majority[name] = majority(run_scores)
        if plan.hsd:
            totals.anova[name] = Anova.of(run_scores)
        # the means and t-tests made here, beside the metrics' threads, not after them
        moments = totals.preferences[name]
        if plan.testing and name not in SIGN_PREFERENCES:
            t_tests([moments])
        moments.mean()


_SUMMED_PAIRS = 1 << 16         # pairs whose preferences the compiled kernel sums at once
_SQUARE = 16                    # runs per side of the squares of pairs it sums together


def _summed_preferences(preferences: PairSource, pairs: np.ndarray) -> dict[str, Moments] | None:
    """{name: Moments} each preference's moments over ``pairs`` (P, 2),
    summed by the compiled kernel over the queries without the pairs'
    (pairs x queries) values; None where it does not apply (see
    :meth:`~lexeval.preferences.PairSource.summed_arrays`)."""
    runs, queries = preferences.num_runs, preferences.num_queries
    arrays = preferences.summed_arrays(len(pairs))
    if arrays is None:
        return None
    # pairs taken in squares of runs (a // 16, b // 16): the kernel reads a query's data of 32 runs for 256
    # pairs, not of 257 runs (a thousand runs' relevant ranks are megabytes per query)
    order = np.argsort(pairs[:, 0] // _SQUARE * (runs // _SQUARE + 1) + pairs[:, 1] // _SQUARE, kind="stable")
    # the kernel lets other threads run: blocks on every core (the metrics' threads may be done first)
    done = in_threads(lambda start: cast(Any, preferences).sum_into(arrays, pairs[order[start:start + _SUMMED_PAIRS]],
                                                         order[start:start + _SUMMED_PAIRS]),
                      range(0, len(pairs), _SUMMED_PAIRS), len(pairs) * queries >= THREADED_CELLS)
    if not all(list(done)):
        return None
    return {name: Moments.of_signs(sums[0], sums[1], queries) if name in SIGN_PREFERENCES else Moments.of_limbs(
            sums, queries) for name, sums in arrays.items()}


def _fast_run_totals(preferences: PairSource) -> dict[str, np.ndarray] | None:
    """{name: (R, Q)} every run's per-query sum of each preference over all
    other runs, from the sorted sequences (see
    :meth:`~lexeval.preferences.PairSource.run_totals`), or None where
    some preference needs the pairs added up."""
    totals = {}
    for name in preferences.names:
        made = preferences.run_totals(name)
        if made is None:
            return None
        totals[name] = made
    return totals


def _add_run_scores(scores: dict, preferences: PairSource, rows: np.ndarray, values: dict) -> None:
    """Add a block of pairs' preferences to both runs' per-query totals (A
    gains, B loses), on a grid, so that the totals do not depend on how the
    pairs are blocked."""
    spread = RunSpread(pairs_of_rows(preferences.num_runs, rows))
    for name, block in values.items():
        spread.add(scores[name], on_grid(block))


def run_scores_of(preferences: PairSource) -> dict[str, np.ndarray]:
    """{name: (R, Q)} each run's mean preference against every other run, per query."""
    runs, queries = preferences.num_runs, preferences.num_queries
    scores = _fast_run_totals(preferences)
    if scores is None:
        scores = {name: np.zeros((runs, queries)) for name in preferences.names}
        for rows, values, _ in preferences.blocks():
            _add_run_scores(scores, preferences, rows, values)
    return {name: total / max(runs - 1, 1) for name, total in scores.items()}


def run_score_summary(totals: Totals, name: str, aggregate: str) -> np.ndarray:
    """(R,) each run's aggregate preference score (mean, borda, mc4)."""
    runs = len(totals.included)
    queries = totals.compared
    if aggregate == "mean":
        return totals.run_scores[name].divided(queries * max(runs - 1, 1))
    if aggregate == "borda":
        from .aggregation import borda_share
        return borda_share(totals.borda[name], queries)
    from .aggregation import markov_limit
    return markov_limit(totals.majority[name])


