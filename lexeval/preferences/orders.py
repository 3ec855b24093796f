"""Lexicographic orders: every run's relevant ranks per query (the
position vector, :class:`RelevantRanks`) sorted lexicographically once per
query (:func:`lexicographic_order`), from which a pair's sign is the order
of its two runs and its deciding level the shortest common prefix of the
neighbours between them, found with a sparse-table range minimum
(:class:`RangeMinimum`). There is no loop over pairs, queries or levels in
Python: the only loops are over refinement rounds (one per recall level at
which some runs are still tied) and over log2(runs).

Each kernel here has one door: the compiled function where it is built,
else its numpy reference (``*_reference``), the same values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .. import compiled
from ..rankings import Rankings


@dataclass(frozen=True)
class RelevantRanks:
    """The index of relevant documents the preferences read, handed over by
    the rankings once the measures are done: per segment (run r and query q,
    r * Q + q) the ranks of the relevant documents it retrieved, ascending
    (``rank``, (K,)), where they start (``starts``, (S,)) and how many
    (``retrieved``, (S,)); ``pad`` is worse than any rank."""

    rank: np.ndarray
    starts: np.ndarray
    retrieved: np.ndarray
    num_runs: int
    num_queries: int
    pad: int

    @classmethod
    def of(cls, rankings: Rankings) -> RelevantRanks:
        return cls(rankings.rel_rank, rankings.rel_starts, rankings.num_rel_ret, rankings.num_runs,
                   rankings.num_queries, int(rankings.lengths.max(initial=0)) + 1)

    def restrict(self, keep: np.ndarray) -> RelevantRanks:
        """The same runs over the queries where ``keep`` (Q,) holds (their ranks are theirs still)."""
        if keep.all():
            return self
        segment_kept = np.tile(keep, self.num_runs)
        retrieved = self.retrieved[segment_kept]
        rank = self.rank[np.repeat(segment_kept, self.retrieved)]
        starts = (np.cumsum(retrieved) - retrieved).astype(np.int64)
        return replace(self, rank=rank, starts=starts, retrieved=retrieved, num_queries=int(keep.sum()))

    @property
    def segment_query(self) -> np.ndarray:
        """(S,) each segment's query."""
        return np.tile(np.arange(self.num_queries), self.num_runs)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rank, starts, retrieved): what the kernels read."""
        return self.rank, self.starts, self.retrieved


NO_SPLIT = np.iinfo(np.int64).max      # adjacent vectors that are identical


@dataclass
class LexOrder:
    """Lexicographic order of the sequences of each group.

    order:  (n,) item indices, grouped by ``group`` ascending, best first
    rank:   (n,) dense rank of each item within its group (0 = best; ties share)
    split:  (n,) by sorted position j: the 1-based index of the first element
            where the item at j differs from the item at j + 1 of the same
            group (NO_SPLIT if identical, or last of its group)
    """

    order: np.ndarray
    rank: np.ndarray
    split: np.ndarray


def lexicographic_order(group: np.ndarray, values: np.ndarray, starts: np.ndarray,
                        lengths: np.ndarray, pad: int) -> LexOrder:
    """Sort ragged integer sequences lexicographically within groups.

    Item i is the sequence ``values[starts[i]:starts[i] + lengths[i]]``,
    continued with ``pad`` forever (so with pad larger than every value, a
    proper prefix sorts after its extensions: an unretrieved position is
    worse than any retrieved one). Smaller sequences sort first.

    Refinement by element: round j sorts the items still tied on elements
    1..j-1 by their j-th element; items that reach their padding together
    are identical and leave. Cost: the sum over rounds of still-tied items.
    """
    count = len(group)
    order = np.lexsort((np.arange(count), group))          # by group, stable
    split = np.full(count, NO_SPLIT, dtype=np.int64)
    # tie classes: runs of sorted positions, labelled by their first position
    # (labels then increase along the order); start with one class per group
    sorted_group = group[order]
    starts_group = np.concatenate(([True], sorted_group[1:] != sorted_group[:-1]))
    cls = np.maximum.accumulate(np.where(starts_group, np.arange(count), 0))
    level = 0
    active = _tied_positions(cls)                           # sorted positions still tied
    while len(active):
        level += 1
        items = order[active]
        inside = level <= lengths[items]
        value = np.full(len(items), pad, dtype=np.int64)
        value[inside] = values[starts[items[inside]] + level - 1]
        # sort the active positions by (class, value); classes stay in place
        resort = np.lexsort((value, cls[active]))
        order[active] = items[resort]
        value = value[resort]
        active_cls = cls[active]
        # neighbours that were tied and now differ split at this level
        same_cls = active_cls[1:] == active_cls[:-1]
        differ = same_cls & (value[1:] != value[:-1])
        split[active[:-1][differ]] = level
        # new classes: runs of equal (old class, value), labelled by first position
        new_class = np.concatenate(([True], ~same_cls | (value[1:] != value[:-1])))
        cls[active] = active[np.maximum.accumulate(np.where(new_class, np.arange(len(active)), 0))]
        keep = active[value != pad]                         # exhausted together: identical
        active = keep[_tied_mask(cls[keep])]
    dense = np.empty(count, dtype=np.int64)
    new_rank = np.concatenate(([True], cls[1:] != cls[:-1]))
    running = np.cumsum(new_rank) - 1
    first_of_group = np.maximum.accumulate(np.where(starts_group, running, 0))
    dense[order] = running - first_of_group
    return LexOrder(order, dense, split)


def _tied_mask(cls: np.ndarray) -> np.ndarray:
    """Mask of positions whose class has at least two members (contiguous)."""
    if len(cls) == 0:
        return np.zeros(0, dtype=bool)
    same = cls[1:] == cls[:-1]
    return np.append(same, False) | np.concatenate(([False], same))


def _tied_positions(cls: np.ndarray) -> np.ndarray:
    return np.flatnonzero(_tied_mask(cls))


class RangeMinimum:
    """Sparse table over the rows of a matrix: min of row[a:b] in O(1).

    The levels (min over 1, 2, 4 ... columns from each column) are stacked
    in one (levels, rows, columns) array, so that a query of any span is one
    gather (a level's last columns, never read, are padded)."""

    def __init__(self, rows: np.ndarray):
        levels = [rows]
        width = 1
        while 2 * width <= rows.shape[1]:
            previous = levels[-1]
            levels.append(np.minimum(previous[:, :-width], previous[:, width:]))
            width *= 2
        self.levels = levels
        stacked = np.zeros((len(levels),) + rows.shape, dtype=rows.dtype)
        for k, level in enumerate(levels):
            stacked[k, :, :level.shape[1]] = level
        self.stacked, self.flat, self.shape = stacked, stacked.ravel(), stacked.shape

    def query(self, row: np.ndarray, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
        """min(rows[row, start:stop]) elementwise; requires start < stop."""
        power = np.frexp((stop - start).astype(np.float64))[1].astype(np.int64) - 1     # floor(log2(span))
        # one flat index, not three index arrays: numpy's multi-array gather costs several times more
        base = (power * self.shape[1] + row) * self.shape[2]
        return np.minimum(self.flat.take(base + start), self.flat.take(base + stop - (1 << power)))


def _reciprocal_at(r: RelevantRanks, segments: np.ndarray, level: np.ndarray) -> np.ndarray:
    """1 / p_level of each segment's position vector (0 if unretrieved)."""
    retrieved = (level >= 1) & (level <= r.retrieved[segments])
    out = np.zeros(level.shape)
    index = r.starts[segments[retrieved]] + level[retrieved] - 1
    out[retrieved] = 1.0 / r.rank[index]
    return out


def reciprocal_difference(r: RelevantRanks, first: np.ndarray, second: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(k, Q) 1 / p_level of run ``first`` less that of run ``second`` (k,),
    0 where ``level`` is 0 (tied): rrLP's and rrLR's values. The door of
    this kernel: the compiled one where it is built, else
    :func:`reciprocal_difference_reference`."""
    made = compiled.reciprocal_difference(r.arrays, r.num_queries, first, second, level)
    return made if made is not None else reciprocal_difference_reference(r, first, second, level)


def reciprocal_difference_reference(r: RelevantRanks, first: np.ndarray, second: np.ndarray,
                                    level: np.ndarray) -> np.ndarray:
    """:func:`reciprocal_difference` in numpy."""
    segments = np.arange(r.num_queries)
    seg_a, seg_b = first[:, None] * r.num_queries + segments, second[:, None] * r.num_queries + segments
    return np.where(level != 0, _reciprocal_at(r, seg_a, level) - _reciprocal_at(r, seg_b, level), 0.0)


def lexirecall_sequences(r: RelevantRanks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment the sequence (-k, p_k, p_(k-1), ..., p_1): more relevant
    retrieved sorts first, then positions from the bottom up.
    Returns (values, starts, lengths)."""
    k = r.retrieved
    lengths = k + 1
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    sequence = np.empty(int(lengths.sum()), dtype=np.int64)
    sequence[starts] = -k
    # relevant j of segment s (the (j - rel_starts[s])-th from the top) goes to starts[s] + k[s] less that:
    # a constant per segment less j (the relevant arrays are in segment order)
    target = np.repeat(starts + k + r.starts, k) - np.arange(len(r.rank))
    sequence[target] = r.rank
    return sequence, starts, lengths


def sorted_sequences(r: RelevantRanks, recall: bool) -> LexOrder:
    """LP's sequences (or, ``recall``, LR's: :func:`lexirecall_sequences`)
    sorted per query (order, dense rank, split): the door of this kernel, the
    compiled merge sort where it is built, else numpy's refinement by
    element (:func:`lexicographic_order`)."""
    made = compiled.lex_order(r.arrays, (r.num_runs, r.num_queries), recall, int(NO_SPLIT))
    if made is not None:
        return LexOrder(*made)
    sequences = lexirecall_sequences(r) if recall else (r.rank, r.starts, r.retrieved)
    return lexicographic_order(r.segment_query, *sequences, r.pad)


class Lex:
    """One preference's per-query structures: every run's dense rank among
    the runs, its sorted position, and the range-minimum table over the
    split levels of neighbours (see :func:`lexicographic_order`)."""

    def __init__(self, r: RelevantRanks, lex: LexOrder):
        runs, queries = r.num_runs, r.num_queries
        self.rank = lex.rank.reshape(runs, queries)
        position = np.empty(runs * queries, dtype=np.int64)
        position[lex.order] = np.arange(runs * queries) % runs
        self.position = position.reshape(runs, queries)
        self.order, self.split = lex.order.reshape(queries, runs), lex.split.reshape(queries, runs)
        self.table = RangeMinimum(self.split[:, :-1])

    @cached_property
    def narrow_rank(self) -> np.ndarray:
        """(R, Q) :attr:`rank` as int32 (ranks below the runs), half the bytes to compare."""
        return np.ascontiguousarray(self.rank, dtype=np.int32)

    @cached_property
    def rank_by_query(self) -> np.ndarray:
        """(Q, R) :attr:`rank`, a query's runs together."""
        return np.ascontiguousarray(self.rank.T)

    @cached_property
    def position_by_query(self) -> np.ndarray:
        """(Q, R) :attr:`position`, a query's runs together."""
        return np.ascontiguousarray(self.position.T)

    def levels(self, first: np.ndarray, second: np.ndarray,
               counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Sign (k, Q) float (+1: the first run better) and deciding level
        (k, Q), 0 where tied, for k pairs. LP (``counts`` None): the level
        is the deciding sequence element (1-based). LR (``counts``: each
        segment's relevant retrieved, (R * Q,)): element 1 is -k, so the
        counts differ and the larger count's level decides; element e >= 2
        is p_(k - e + 2) of the first run."""
        runs, queries = self.rank.shape
        made = compiled.lex_decide((self.rank, self.position, self.table.stacked), first, second,
                                   None if counts is None else counts.reshape(runs, queries))
        return made if made is not None else decide_reference(self.rank, self.position, self.table, (first, second),
                                                                 counts)

    @property
    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ranks, positions, range-minimum levels), a query's runs together: what the kernel's sums read."""
        return self.rank_by_query, self.position_by_query, self.table.stacked


def decide_reference(rank: np.ndarray, position: np.ndarray, table: RangeMinimum, pairs: tuple,
                     counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Lex.levels` in numpy: ``rank`` and ``position`` (R, Q), the
    range-minimum ``table`` of the split levels, ``pairs`` (first, second)
    (k,) each, ``counts`` (R * Q,) for LR."""
    first, second = pairs
    queries = rank.shape[1]
    sign = np.sign(rank[second] - rank[first])
    element = np.full(sign.shape, NO_SPLIT, dtype=np.int64)
    decided = np.flatnonzero(sign)
    if len(decided):
        pair, query = np.divmod(decided, sign.shape[1])
        a = position.ravel().take(first[pair] * queries + query)
        b = position.ravel().take(second[pair] * queries + query)
        element.ravel()[decided] = table.query(query, np.minimum(a, b), np.maximum(a, b))
    if counts is not None:
        k_a = counts[first[:, None] * queries + np.arange(queries)]
        k_b = counts[second[:, None] * queries + np.arange(queries)]
        element = np.where(element == 1, np.maximum(k_a, k_b), k_a - (element - 2))
    return sign.astype(np.float64), np.where(sign != 0, element, 0)


def level_tie_counts(r: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """Per recall level i (index i, from 0): the (query, pair) cases whose
    i-th relevant positions are equal, and the cases (queries with at least
    i relevant documents, times the pairs). Counts of disjoint query sets
    add up (a cluster's partitions)."""
    runs, queries = r.num_runs, r.num_queries
    if runs < 2 or queries == 0:
        return np.zeros(1), np.zeros(1)
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
    return tied, queries_reaching * (runs * (runs - 1) / 2)
