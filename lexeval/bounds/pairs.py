"""Bounds of the differences between two runs under one assignment of
grades to the unjudged documents, shared by both runs (a document has the
same grade in each): per pair and measure, the least and greatest mean
difference A minus B over the compared queries (queries are independent,
so the mean's bounds are the means of the queries' bounds).

Which measures have them, and why each is exact, by the measure table's
``pair_bounds``:

- **linear** (P, hits, set_P, DCG and its cuts): the difference is a
  constant plus, for each unjudged document h, (w_A(h) - w_B(h)) times
  its grade's relevance or gain (w: its weight at its rank in each run, 0
  where a run lacks it): each document takes its own worst or best grade;
- **first** (the reciprocal rank, success, hit_rate): a run's value is a
  falling function of its first relevant rank, so the best assignment for
  A makes at most one unjudged document relevant (a second only helps B):
  no document, or each one alone, is tried;
- **recall** (recall.k, set_recall): (c_0 + sum of c_h over the relevant
  holes) / (R + their number), c_h = 1, 0 or -1 as h is in A's top k and
  not B's, in both or neither, in B's only: the greatest takes every +1 and,
  if the sum is still negative, every 0; the least the reverse;
- **depth** (Rprec, Rprec_mult): for m relevant holes the depth is fixed,
  and the best m are the +1s, then the 0s, then the -1s at that depth;
  every m is tried (the kernel, for Rprec, tries every m for a run's
  pairs side by side, reading each depth's shared counts once);
- **gain** (nDCG and its cuts, gains at least 0 and none for grade 0):
  with the distinct positive gains v_1 < ... < v_L, a gain is the sum of
  the steps v_l - v_(l-1) up to it, so with T_l the holes of gain at least
  v_l the ideal DCG is the sum over l of the step times the discounts of
  the first J_l + T_l ranks (J_l: the qrels' documents of gain at least
  v_l), fixed by (T_1 >= ... >= T_L); given them, the greatest difference
  puts the largest gains on the holes with the largest discount
  differences (the rearrangement inequality): T_l's step on the T_l
  largest. Every such chain is tried here; the kernel finds the best ratio
  by Dinkelbach's iteration, each step a pass over the chains' layers (one
  layer, every T tried);
- LP, rrLP, LR and rrLR: :mod:`.lexical`.

This module computes them one query and pair at a time; it is the
reference of the compiled kernel and its stand-in where that is not built.
The kernel takes a query at a time and lists each unjudged document's runs,
so that a run's holes meet every pair holding them (the shared holes per
depth, counted once per pair, then added up).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import cast

import numpy as np

from ..measures.base import CUTOFFS, FRACTIONS
from ..measures.gains import Gains
from ..measures.registry import PAIR_DEPTH as DEPTH
from ..measures.registry import PAIR_FIRST as FIRST
from ..measures.registry import PAIR_GAIN as GAIN
from ..measures.registry import PAIR_LINEAR as LINEAR
from ..measures.registry import PAIR_RECALL as RECALL
from ..measures.registry import REAL
from ..rankings import Rankings
from .gains import gain_layers
from .lexical import BOUNDED_PREFERENCES, lex_bounds


def pair_kind(req) -> str:
    """How a request's pair bounds are found ("" where they are not)."""
    return req.measure.pair_bounds


class Segments:
    """Each (run, query) ranking's relevance codes and unjudged documents' numbers."""

    def __init__(self, rankings: Rankings):
        self.r = rankings

    def of(self, run: int, query: int):
        r = self.r
        s = run * r.num_queries + query
        start, end = int(r.starts[s]), int(r.ends[s])
        return r.codes[start:end].astype(np.int64), cast(np.ndarray, r.hole_ids)[start:end].astype(np.int64)


def _depths(req) -> list:
    if req.measure.params in (CUTOFFS, FRACTIONS):
        return list(req.values)
    return [None]


def request_phi(req, top_grade: int, level: int) -> np.ndarray:
    """(G + 1,) what each grade adds to a linear or gain measure: its
    relevance (0 or 1 at ``level``) or its gain."""
    name = req.measure.name
    grades = np.arange(top_grade + 1)
    if name in ("dcg",):
        return Gains(req.values).of_grades(top_grade + 1)
    if name in ("dcg_cut",):
        gains = Gains().of_grades(top_grade + 1)
        return np.where(gains > 0, gains, 0.0)
    if name in ("dcg_exp", "dcg_burges", "ndcg_exp", "ndcg_burges"):
        return 2.0 ** grades - 1.0
    if name == "ndcg_cut":
        table = dict(req.options).get("gains", ())
        gains = Gains(tuple((str(grade), gain) for grade, gain in table)).of_grades(top_grade + 1)
        return np.where(gains > 0, gains, 0.0)
    if name == "ndcg":
        return Gains(req.values).of_grades(top_grade + 1)
    return (grades >= level).astype(np.float64)


def _weight(req, rank: int, length: int, depth) -> float:
    """A linear measure's weight of a document at ``rank`` (1-based)."""
    name = req.measure.name
    if depth is not None and rank > depth:
        return 0.0
    if name == "P":
        return 1.0 / depth
    if name == "set_P":
        return 1.0 / length if length else 0.0
    if name in ("hits", "hits_cut"):
        return 1.0
    return 1.0 / np.log2(rank + 1.0)                          # the DCGs


def _first_value(req, rank, depth) -> float:
    """A first-relevant measure's value for a first relevant ``rank`` (None: none)."""
    if rank is None or (depth is not None and rank > depth):
        return 0.0
    return 1.0 / rank if req.measure.name in ("recip_rank", "recip_rank_cut") else 1.0


def whole_times(req, depth, top: int, level: int) -> int:
    """k where a column's per-query bounds are k times the difference (P.k
    with relevance 0 or 1: integers, whose sum over the queries is divided
    by k once, so that a mean bound of 0 is exactly 0 and the fragile mark
    reads its sign right), else 1."""
    if req.measure.name == "P" and depth is not None and set(request_phi(req, top, level).tolist()) <= {0.0, 1.0}:
        return int(depth)
    return 1


def judged_layers(gains: np.ndarray, grade_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """nDCG's layers of gain (:func:`.gains.gain_layers`: the steps v_l -
    v_(l-1) between the distinct positive ``gains`` (G + 1,) of the
    grades), (L,), and the qrels' documents of gain at least v_l, from
    ``grade_counts`` (..., G') judged documents per grade (...: a query, or
    (Q,)), (..., L)."""
    steps, _, reaches = gain_layers(gains, "nDCG")
    width = min(grade_counts.shape[-1], len(gains))
    return steps, grade_counts[..., :width] @ reaches[:width].astype(np.int64)


def query_bounds(req, depth, a, b, context) -> tuple[float, float]:
    """(least, greatest) of A's value minus B's on one query, over every
    shared assignment (times :func:`whole_times`); ``a``, ``b``: (codes,
    hole numbers) of each ranking; ``context``: the level, the top grade,
    the query's relevant documents and its judged documents per grade."""
    kind = pair_kind(req)
    level, top, num_rel, grade_counts = context
    phi = request_phi(req, top, level)
    relevant_grade = top if top >= level else None
    other_grade = 0 if level > 0 else None
    (codes_a, ids_a), (codes_b, ids_b) = a, b
    rank_a = {int(h): i + 1 for i, h in enumerate(ids_a) if h >= 0}
    rank_b = {int(h): i + 1 for i, h in enumerate(ids_b) if h >= 0}
    holes = sorted(set(rank_a) | set(rank_b))
    settled = kind != GAIN and (relevant_grade is None or other_grade is None)
    judged = lambda codes: [(i + 1, int(c)) for i, c in enumerate(codes) if c >= 0]   # noqa: E731
    if kind == LINEAR and req.measure.name in ("P", "hits", "hits_cut") and set(phi.tolist()) <= {0.0, 1.0}:
        # equal weights in both runs and relevance 0 or 1: an integer over k; the integer (see whole_times)
        in_top = lambda rank: depth is None or rank <= depth                                # noqa: E731
        count = sum(int(phi[c]) for i, c in judged(codes_a) if in_top(i)) \
            - sum(int(phi[c]) for i, c in judged(codes_b) if in_top(i))
        ups = sum(h in rank_a and in_top(rank_a[h]) and not (h in rank_b and in_top(rank_b[h])) for h in holes)
        downs = sum(h in rank_b and in_top(rank_b[h]) and not (h in rank_a and in_top(rank_a[h])) for h in holes)
        least, most = int(phi.min()), int(phi.max())
        return float(count + ups * least - downs * most), float(count + ups * most - downs * least)
    if kind == LINEAR:
        total = sum(_weight(req, i, len(codes_a), depth) * phi[c] for i, c in judged(codes_a)) \
            - sum(_weight(req, i, len(codes_b), depth) * phi[c] for i, c in judged(codes_b))
        low = high = total
        grades = range(top + 1)             # phi is 0 or 1 by the level: a settled relevance needs no case
        for h in holes:
            coefficient = (_weight(req, rank_a[h], len(codes_a), depth) if h in rank_a else 0.0) \
                - (_weight(req, rank_b[h], len(codes_b), depth) if h in rank_b else 0.0)
            options = [coefficient * phi[g] for g in grades]
            low, high = low + min(options), high + max(options)
        return low, high
    relevant = lambda codes: [i + 1 for i, c in enumerate(codes) if c >= level]     # noqa: E731
    if kind == FIRST:
        first_a, first_b = min(relevant(codes_a), default=None), min(relevant(codes_b), default=None)
        if settled:
            if relevant_grade is not None and other_grade is None:      # every hole relevant
                first_a = min([x for x in (first_a, *rank_a.values()) if x is not None], default=None)
                first_b = min([x for x in (first_b, *rank_b.values()) if x is not None], default=None)
            value = _first_value(req, first_a, depth) - _first_value(req, first_b, depth)
            return value, value
        values = [_first_value(req, first_a, depth) - _first_value(req, first_b, depth)]
        for h in holes:
            fa = min([x for x in (first_a, rank_a.get(h)) if x is not None], default=None)
            fb = min([x for x in (first_b, rank_b.get(h)) if x is not None], default=None)
            values.append(_first_value(req, fa, depth) - _first_value(req, fb, depth))
        return min(values), max(values)
    within = (lambda rank, d: d is None or rank <= d)
    if kind == RECALL:
        base = sum(within(i, depth) for i in relevant(codes_a)) - sum(within(i, depth) for i in relevant(codes_b))
        signs = [int(h in rank_a and within(rank_a[h], depth)) - int(h in rank_b and within(rank_b[h], depth))
                 for h in holes]
        plus, zero, minus = signs.count(1), signs.count(0), signs.count(-1)
        if settled:
            count = len(holes) if other_grade is None else 0
            numerator = base + (plus - minus) * (count > 0)
            value = numerator / (num_rel + count) if num_rel + count else 0.0
            return value, value
        return _recall_extreme(base, num_rel, minus, zero, plus, -1), _recall_extreme(base, num_rel, plus, zero,
                                                                                   minus, 1)
    if kind == DEPTH:
        counts = range(len(holes) + 1) if not settled else [len(holes) if other_grade is None else 0]
        low, high = np.inf, -np.inf
        for many in counts:
            total = num_rel + many
            reach = total if depth is None else int(np.floor(depth * total + 0.9))
            base = sum(i <= reach for i in relevant(codes_a)) - sum(i <= reach for i in relevant(codes_b))
            ordered = sorted((int(h in rank_a and rank_a[h] <= reach) - int(h in rank_b and rank_b[h] <= reach)
                              for h in holes), reverse=True)
            best, worst = base + sum(ordered[:many]), base + sum(ordered[len(ordered) - many:])
            high = max(high, best / reach if reach else 0.0)
            low = min(low, worst / reach if reach else 0.0)
        return low, high
    if kind == GAIN:
        gains = phi
        steps, judged_at = judged_layers(gains, grade_counts)
        discount = lambda rank: 0.0 if not within(rank, depth) else 1.0 / np.log2(rank + 1.0)   # noqa: E731
        dcg = lambda codes: sum(gains[c] * discount(i + 1) for i, c in enumerate(codes) if c >= 0)  # noqa: E731
        base = dcg(codes_a) - dcg(codes_b)
        if not len(steps):
            return base, base
        moves = sorted((discount(rank_a[h]) if h in rank_a else 0.0) - (discount(rank_b[h]) if h in rank_b else 0.0)
                       for h in holes)
        ideal = lambda reach: sum(1.0 / np.log2(i + 1.0) for i in range(1, reach + 1) if within(i, depth))  # noqa: E731
        low, high = np.inf, -np.inf
        for chain in itertools.combinations_with_replacement(range(len(holes) + 1), len(steps)):
            layers = sorted(chain, reverse=True)         # T_1 >= ... >= T_L: the holes of gain >= v_l
            ideal_dcg = sum(step * ideal(int(j) + t) for step, j, t in zip(steps, judged_at, layers))
            best = base + sum(step * sum(moves[len(moves) - t:]) for step, t in zip(steps, layers) if t)
            worst = base + sum(step * sum(moves[:t]) for step, t in zip(steps, layers))
            high = max(high, best / ideal_dcg if ideal_dcg > 0 else 0.0)
            low = min(low, worst / ideal_dcg if ideal_dcg > 0 else 0.0)
        return low, high
    raise ValueError(f"no pair bounds for {req.measure.name}")


def _recall_extreme(base: int, num_rel: int, toward: int, zero: int, away: int, sign: int) -> float:
    """The greatest (sign 1) or least (-1) recall difference: every hole
    that moves it ``sign``-ward relevant, and the neutral ones too where
    the difference is still on the other side (they pull it toward 0)."""
    numerator, count = base + sign * toward, num_rel + toward
    if sign * numerator < 0:
        count += zero
    return numerator / count if count else 0.0


VARIANTS = {"P": 0, "set_P": 1, "hits": 2, "hits_cut": 2, "recip_rank": 0, "recip_rank_cut": 0, "success": 1,
            "hit_rate": 1}        # the compiled kernel's weights (linear) and values (first), by measure; else 3, 0


_PAIR_BLOCK = 1 << 20       # (pair, query) cells per block: the per-query values of a block, then their sums
_SUMMED_BLOCK = 1 << 22     # the same where the kernel sums the columns: LR's shared holes and the preferences' values


def pair_bounds(rankings: Rankings, requests, pairs: np.ndarray, compared: np.ndarray,
                preferences=()) -> tuple[dict[str, tuple], dict[str, int]]:
    """({printed name: (least, greatest)}, {printed name: k}): exact sums (:class:`~lexeval.stats.sums.Sums`,
    a row per pair (P, 2)) over the ``compared`` (Q,) queries of each
    pair's difference (times k, :func:`whole_times`) under one shared assignment, for each request with
    pair bounds and each of ``preferences`` (:data:`.lexical.BOUNDED_PREFERENCES`): the compiled kernel, else
    :func:`query_bounds` and :func:`.lexical.lex_bounds` query by query. Exact sums,
    so that a cluster's partitions add up to the same."""
    from .. import compiled
    from ..stats.sums import Sums, fixed_sums
    from . import kernel
    from .holes import with_level
    queries = np.flatnonzero(compared)
    top = max(rankings.level_counts.shape[1] - 1, 0)
    most = int(rankings.hole_counts.max(initial=0)) if rankings.hole_counts is not None else 0
    columns = [(req, name, depth) for req in requests if pair_kind(req) and req.measure.per_query
               for name, depth in zip(req.output_names(), _depths(req))]
    levels = list(dict.fromkeys(rankings.level if req.level is None else req.level for req, _, _ in columns))
    groups = [[column for column in columns if (rankings.level if column[0].level is None else column[0].level)
               == level] for level in levels]
    plans = []                                  # per level, what the kernel reads, made once
    if compiled.enabled():
        for level, chosen in zip(levels, groups):
            ranked = with_level(rankings, level)
            plans.append((rankings.hole_ids,
                          (rankings.codes, ranked.first_rel_rank, rankings.lengths, rankings.num_queries),
                          _described(ranked, chosen, top),
                          (ranked.level, top >= level > 0, level <= 0 and top >= level),
                          (ranked.num_rel_per_query, _gain_tables(ranked, chosen, top), _ideal_before(ranked, most),
                           most)))
    per_query_block = max(1, _PAIR_BLOCK // max(len(queries), 1))     # pairs whose per-query values are kept
    size = max(1, _SUMMED_BLOCK // max(len(queries), 1)) if plans else per_query_block
    parts: dict = {}
    times: dict[str, int] = {}
    for start in range(0, len(pairs), size):
        block = pairs[start:start + size]
        # LR's bounds read the unjudged documents each pair shares, which the first level's columns count
        shared = np.empty((len(block), len(queries)), dtype=np.int64) if plans and "LR" in preferences else None
        for index, (level, chosen) in enumerate(zip(levels, groups)):
            if plans:
                summed = iter(side for column in kernel.column_sums(plans[index], block, queries,
                                                                    shared if index == 0 else None, per_query_block)
                              for side in column)
            else:               # each column's two sides summed on every core
                summed = iter(compiled.in_threads(fixed_sums, [side for req, _, depth in chosen for side in
                                                               _pair_values(rankings, req, depth, block, queries,
                                                                            level, top)]))
            for req, name, depth in chosen:
                parts.setdefault(name, []).append((next(summed), next(summed)))
                times[name] = whole_times(req, depth, top, level)
        # the preferences' sums in one pass of the kernel; else (a value off the grid, or no kernel) their
        # per-query values summed on every core (a numpy pass each)
        lexical = ((rankings.codes, rankings.hole_ids, rankings.starts, rankings.lengths, rankings.num_queries),
                   block, queries, [BOUNDED_PREFERENCES[name] for name in preferences],
                   (rankings.level, top >= rankings.level > 0, rankings.level <= 0 and top >= rankings.level), most,
                   shared)
        made = kernel.lex_sums(*lexical) if preferences else []
        if made is None:
            values = kernel.lex_bounds(*lexical) or \
                [_pair_values(rankings, name, None, block, queries, rankings.level, top) for name in preferences]
            summed = iter(compiled.in_threads(fixed_sums, [side for pair in values for side in pair]))
            made = [(next(summed), next(summed)) for _ in preferences]
        for name, sides in zip(preferences, made):
            parts.setdefault(name, []).append(sides)
    return {name: tuple(Sums.concatenate([part[side] for part in pieces]) for side in (0, 1))
            for name, pieces in parts.items()}, times


def _described(r: Rankings, chosen, top: int) -> tuple:
    """The kernel's description of each column: kind, variant, depth, phi's
    least and greatest, and the per-run base values (C, S)."""
    kinds, variants, depths, lows, highs, bases = [], [], [], [], [], []
    for req, _name, depth in chosen:
        kind = pair_kind(req)
        phi = request_phi(req, top, r.level)
        kinds.append(("linear", "first", "recall", "depth", "gain").index(kind))
        variants.append(VARIANTS.get(req.measure.name, 0 if kind == FIRST else 3))
        depths.append((-1.0 if depth is None else float(depth)) if kind == DEPTH else
                      np.inf if depth is None else float(depth))
        lows.append(float(phi.min()))
        highs.append(float(phi.max()))
        single = replace(req, values=(depth,)) if depth is not None else req
        if kind == LINEAR:
            bases.append(single.compute(r)[:, 0])
        elif kind == GAIN:
            bases.append(_judged_dcg(r, phi, np.inf if depth is None else float(depth)))
        else:
            bases.append(np.zeros(r.num_segments))
    return kinds, variants, depths, lows, highs, np.stack(bases)


def _judged_dcg(r: Rankings, phi: np.ndarray, cutoff: float) -> np.ndarray:
    """(S,) the DCG of the judged documents in each ranking's top ``cutoff``, with gains ``phi``."""
    judged = r.codes >= 0
    gain = np.zeros(len(r.codes))
    gain[judged] = phi[np.minimum(r.codes[judged], len(phi) - 1)]
    chosen = (gain != 0) & (r.rank <= cutoff)
    return r.segment_sum(np.where(chosen, gain / np.log2(r.rank + 1.0), 0.0))


def _gain_tables(r: Rankings, chosen, top: int) -> tuple[np.ndarray, np.ndarray]:
    """nDCG's layers (:func:`judged_layers`) of each column, for its ideal: the steps (C, L) and the qrels'
    documents of gain at least each layer's (C, L, Q), L the most layers of a column (0 steps past a column's
    own); a column of another kind has none."""
    layers = [judged_layers(request_phi(req, top, r.level), r.level_counts) if pair_kind(req) == GAIN
              else (np.zeros(0), np.zeros((r.num_queries, 0), dtype=np.int64)) for req, _, _ in chosen]
    width = max([len(steps) for steps, _ in layers] + [1])
    steps = np.zeros((len(chosen), width))
    judged = np.zeros((len(chosen), width, r.num_queries), dtype=np.int64)
    for column, (step, at) in enumerate(layers):
        steps[column, :len(step)] = step
        judged[column, :len(step)] = at.T
    return steps, judged


def _ideal_before(r: Rankings, most: int) -> np.ndarray:
    """The ideal ranking's running discounts, long enough for any query."""
    longest = int(r.level_counts.sum(axis=1).max(initial=0)) + most + 2
    return np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, longest + 2, dtype=np.float64)))))


def _pair_values(rankings: Rankings, req, depth, pairs, queries, level: int, top: int):
    """(least, greatest), (P, queries) each, of one column, query by query in
    Python (``req`` a preference's name: :func:`.lexical.lex_bounds`)."""
    segments = Segments(rankings)
    low, high = np.zeros((len(pairs), len(queries))), np.zeros((len(pairs), len(queries)))
    for p, (a, b) in enumerate(pairs.tolist()):
        for k, q in enumerate(queries.tolist()):
            if isinstance(req, str):
                lo, hi = lex_bounds(req, segments.of(a, q), segments.of(b, q), level, top)
            else:
                counts = rankings.level_counts[q]
                context = (level, top, int(counts[max(level, 0):].sum()), counts)
                lo, hi = query_bounds(req, depth, segments.of(a, q), segments.of(b, q), context)
            low[p, k], high[p, k] = lo, hi
    return low, high


@dataclass
class DifferenceBounds:
    """Per tested pair (P,) and measure (printed name): the least and the
    greatest mean difference A minus B over the compared queries under one
    shared assignment of grades to the unjudged documents (``low``,
    ``high``; from ``sums``, exact, over ``queries``), and whether a
    significant difference could reverse (its bounds reach zero or the
    other side) were they judged (``fragile``, where the pair was tested)."""

    sums: dict                      # name -> (least, greatest) Sums, a row per pair
    queries: int                    # the compared queries they are summed over
    fragile: dict[str, np.ndarray] = field(default_factory=dict)
    times: dict[str, int] = field(default_factory=dict)      # name -> k: the sums are k times the differences

    @cached_property
    def low(self) -> dict[str, np.ndarray]:
        return {name: least.divided(self.queries * self.times.get(name, 1)) for name, (least, _) in self.sums.items()}

    @cached_property
    def high(self) -> dict[str, np.ndarray]:
        return {name: greatest.divided(self.queries * self.times.get(name, 1))
                for name, (_, greatest) in self.sums.items()}

    def __add__(self, other: DifferenceBounds) -> DifferenceBounds:
        """A cluster's partitions' bounds, added."""
        return DifferenceBounds({name: (low + other.sums[name][0], high + other.sums[name][1])
                                 for name, (low, high) in self.sums.items()}, self.queries + other.queries,
                                times={**other.times, **self.times})


def bounded_requests(requests, top_grade: int) -> tuple[list, list]:
    """(requests with exact pair bounds, the printed names of those
    without): nDCG's need gains at least 0, and none for grade 0."""
    kept, missing = [], []
    for req in requests:
        if not req.measure.per_query or not testable_measure(req.measure):
            continue
        layered = True
        if req.measure.pair_bounds == GAIN:
            phi = request_phi(req, top_grade, 1)
            layered = bool((phi >= 0).all() and phi[0] == 0)
        if req.measure.pair_bounds and layered:
            kept.append(req)
        else:
            missing.extend(req.output_names())
    return kept, missing


def testable_measure(measure) -> bool:
    """A real-valued measure, tested between runs (as stats.pairs.testable)."""
    return measure.per_query and measure.value == REAL


def marked_fragile(bounds: DifferenceBounds, tests, alpha: float) -> DifferenceBounds:
    """``bounds`` with each tested measure's fragile pairs: significant at
    ``alpha``, with bounds that reach zero or the other side."""
    if tests is None:
        return bounds
    fragile = {}
    lows, highs = bounds.low, bounds.high
    for name, low in lows.items():
        if name not in tests.p:
            continue
        mean, high = tests.mean_difference[name], highs[name]
        could_reverse = np.where(mean > 0, low <= 0, np.where(mean < 0, high >= 0, True))
        fragile[name] = (tests.p[name] < alpha) & could_reverse
    return DifferenceBounds(bounds.sums, bounds.queries, fragile, bounds.times)


def bounded_differences(rankings: Rankings, requests, pairs: np.ndarray, compared: np.ndarray,
                        preferences=()) -> DifferenceBounds:
    """Every pair's (P, 2) difference bounds over the ``compared`` queries,
    for the requests that have them and the ``preferences`` that do
    (:data:`.lexical.BOUNDED_PREFERENCES`); the compiled kernel where it is built."""
    top = max(rankings.level_counts.shape[1] - 1, 0)
    kept, _ = bounded_requests(requests, top)
    bounded = [name for name in BOUNDED_PREFERENCES if name in preferences]
    sums, times = pair_bounds(rankings, kept, pairs, compared, bounded)
    return DifferenceBounds(sums, int(compared.sum()), times=times)


def bounded_in_background(rankings: Rankings, requests, pairs: np.ndarray, compared: np.ndarray, preferences=()):
    """:func:`bounded_differences` started in a thread of its own (a future): it reads the rankings only, so it
    runs beside the measures, preferences and tests, whose threads leave a core idle now and then."""
    from ..compiled import in_background
    return in_background(bounded_differences, rankings, requests, pairs, compared, preferences)
