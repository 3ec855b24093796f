"""Lexicographic preferences between every pair of runs, per query.

A run's *position vector* for a query is the sorted ranks p_1 < ... < p_k
of the relevant documents it retrieved; the m - k unretrieved ones are
imputed below everything (pessimistic imputation: Diaz, "Recall,
Robustness, and Lexicographic Evaluation", section 2.2), so an unretrieved
position is worse than any retrieved one and two unretrieved positions are
equal.

- LP (lexiprecision: Diaz, "Best-Case Retrieval Evaluation", eq. 3): compare
  p top-down; the first recall level i* where the runs differ decides, the
  higher-ranked one wins.
- rrLP (eq. 2): 1/p^A_i* - 1/p^B_i* (1/unretrieved = 0).
- LR (lexirecall: Diaz, "Recall, Robustness, and Lexicographic Evaluation",
  eq. 11): the run that retrieved more relevant
  documents wins; with equal counts, compare from the lowest retrieved
  relevant document upward, the smaller position wins.
- rrLR: the reciprocal-rank difference at lexirecall's deciding level.

Algorithm: per query, the runs' vectors are sorted lexicographically once
(:func:`lexicographic_order`). A pair's sign is the order of its two runs;
its deciding level is the shortest common prefix of the neighbours between
them, found with a sparse-table range minimum. There is no loop over pairs,
queries or levels in Python: the only loops are over refinement rounds (one
per recall level at which some runs are still tied) and over log2(runs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from itertools import combinations

import numpy as np

from .choices import PREFERENCE_NAMES, RPP_WEIGHTS
from .rankings import Rankings

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


def run_pairs(num_runs: int) -> list[tuple[int, int]]:
    """Every pair (a, b) of run indices with a before b on the command line."""
    return list(combinations(range(num_runs), 2))


def pairs_of_rows(num_runs: int, rows: np.ndarray) -> np.ndarray:
    """(k, 2) the pairs (a, b) at ``rows`` of :func:`run_pairs`' list,
    without making the list (ten thousand runs have fifty million pairs):
    the inverse of :func:`pair_rows`."""
    rows = np.asarray(rows, dtype=np.int64)
    n = num_runs
    # row(a, 0) = a (2n - a - 1) / 2: a is the largest with row(a) <= row; the float root, then corrected
    first = np.floor(((2 * n - 1) - np.sqrt(np.maximum((2 * n - 1) ** 2 - 8.0 * rows, 0.0))) / 2).astype(np.int64)
    first = np.clip(first, 0, max(n - 2, 0))
    start = first * (2 * n - first - 1) // 2
    first = np.where(start > rows, first - 1, first)
    start = first * (2 * n - first - 1) // 2
    following = (first + 1) * (2 * n - first - 2) // 2
    first = np.where(following <= rows, first + 1, first)
    start = first * (2 * n - first - 1) // 2
    return np.stack([first, rows - start + first + 1], axis=1).reshape(-1, 2)


def _reciprocal_at(r: Rankings, segments: np.ndarray, level: np.ndarray) -> np.ndarray:
    """1 / p_level of each segment's position vector (0 if unretrieved)."""
    retrieved = (level >= 1) & (level <= r.num_rel_ret[segments])
    out = np.zeros(level.shape)
    index = r.rel_starts[segments[retrieved]] + level[retrieved] - 1
    out[retrieved] = 1.0 / r.rel_rank[index]
    return out


def _reciprocal_difference(r: Rankings, first: np.ndarray, second: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(k, Q) 1 / p_level of run ``first`` less that of run ``second`` (k,),
    0 where ``level`` is 0 (tied): rrLP's and rrLR's values."""
    from . import compiled
    made = compiled.reciprocal_difference(r, first, second, level)
    if made is not None:
        return made
    segments = np.arange(r.num_queries)
    seg_a, seg_b = first[:, None] * r.num_queries + segments, second[:, None] * r.num_queries + segments
    return np.where(level != 0, _reciprocal_at(r, seg_a, level) - _reciprocal_at(r, seg_b, level), 0.0)


def lexirecall_sequences(r: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment the sequence (-k, p_k, p_(k-1), ..., p_1): more relevant
    retrieved sorts first, then positions from the bottom up.
    Returns (values, starts, lengths)."""
    k = r.num_rel_ret
    lengths = k + 1
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    sequence = np.empty(int(lengths.sum()), dtype=np.int64)
    sequence[starts] = -k
    # relevant j of segment s (the (j - rel_starts[s])-th from the top) goes to starts[s] + k[s] less that:
    # a constant per segment less j (the relevant arrays are in segment order)
    target = np.repeat(starts + k + r.rel_starts, k) - np.arange(len(r.rel_rank))
    sequence[target] = r.rel_rank
    return sequence, starts, lengths


class _Lex:
    """One preference's per-query structures: every run's dense rank among
    the runs, its sorted position, and the range-minimum table over the
    split levels of neighbours (see :func:`lexicographic_order`)."""

    def __init__(self, r: Rankings, lex: LexOrder):
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
        from . import compiled
        runs, queries = self.rank.shape
        made = compiled.lex_decide(self.rank, self.position, self.table.stacked, first, second,
                                   None if counts is None else counts.reshape(runs, queries))
        if made is not None:
            return made
        sign = np.sign(self.rank[second] - self.rank[first])
        element = np.full(sign.shape, NO_SPLIT, dtype=np.int64)
        decided = np.flatnonzero(sign)
        if len(decided):
            pair, query = np.divmod(decided, sign.shape[1])
            a = self.position.ravel().take(first[pair] * queries + query)
            b = self.position.ravel().take(second[pair] * queries + query)
            element.ravel()[decided] = self.table.query(query, np.minimum(a, b), np.maximum(a, b))
        if counts is not None:
            k_a = counts[first[:, None] * queries + np.arange(queries)]
            k_b = counts[second[:, None] * queries + np.arange(queries)]
            element = np.where(element == 1, np.maximum(k_a, k_b), k_a - (element - 2))
        return sign.astype(np.float64), np.where(sign != 0, element, 0)


def rpp_weights(m: np.ndarray, weighting: str) -> np.ndarray:
    """(sum m,) the weights of recall levels i = 1..m_q of every query, queries
    concatenated, normalised to sum 1 per query: 1 (uniform), 1/i (inverse)
    or 1/log2(i+1) (dcg)."""
    owner = np.repeat(np.arange(len(m)), m)
    level = np.arange(len(owner)) - np.repeat(np.cumsum(m) - m, m) + 1.0
    raw = {"uniform": np.ones(len(level)), "inverse": 1.0 / level, "dcg": 1.0 / np.log2(level + 1.0)}[weighting]
    mass = np.bincount(owner, weights=raw, minlength=len(m))
    return raw / mass[owner] if len(raw) else raw


class _RecallPaired:
    """Recall-paired preference (pref_eval's rpp.py; Diaz, "Recall,
    Robustness, and Lexicographic Evaluation", section on recall
    orientation): every run's position vector per query as one row, missing
    positions worse than any rank, so that sign(y_i - x_i) is +1 where A's
    i-th relevant document ranks higher or only B's is missing, -1 the other
    way, and 0 where both are missing (the walk has stopped) or equal."""

    CELLS = 1 << 22                       # pairs x recall levels per step

    def __init__(self, r: Rankings, graded: bool):
        runs, queries = r.num_runs, r.num_queries
        pad = int(r.lengths.max(initial=0)) + 1
        self.queries = queries
        # (threshold grade, its per-query weight m_g or 1, the position rows, levels per query)
        self.parts = []
        thresholds = [r.level]
        if graded:
            counts = r.level_counts
            thresholds = [g for g in range(max(r.level, 0), counts.shape[1]) if counts[:, g].any()]
        for grade in thresholds:
            at = r if grade == r.level else replace(r, level=grade)
            m = at.num_rel_per_query
            ends = np.cumsum(m)
            positions = np.full((runs, int(ends[-1]) if queries else 0), pad, dtype=np.int64)
            run, query = np.divmod(at.rel_segment, queries) if queries else (at.rel_segment, at.rel_segment)
            positions[run, ends[query] - m[query] + at.rel_ordinal - 1] = at.rel_rank
            # a grade counts m_g times in a query only where some document has exactly that grade
            weight = np.where(r.level_counts[:, grade] > 0, m, 0) if graded else np.ones(queries)
            self.parts.append((weight, positions, m))
        self.total_weight = np.sum([weight for weight, _, _ in self.parts], axis=0)

    def values(self, first: np.ndarray, second: np.ndarray, weighting: str) -> np.ndarray:
        """(k, Q) the preference of each pair's first run over its second."""
        out = np.zeros((len(first), self.queries))
        for weight, positions, m in self.parts:
            levels = rpp_weights(m, weighting)
            starts = np.cumsum(m) - m
            nonempty = m > 0
            step = max(1, self.CELLS // max(positions.shape[1], 1))
            for start in range(0, len(first), step):
                a, b = first[start:start + step], second[start:start + step]
                signs = np.sign(positions[b] - positions[a]) * levels
                value = np.zeros((len(a), self.queries))
                if nonempty.any():
                    value[:, nonempty] = np.add.reduceat(signs, starts[nonempty], axis=1) \
                        if signs.shape[1] else 0.0
                out[start:start + step] += weight * value
        return out / np.where(self.total_weight > 0, self.total_weight, 1.0)


class Preferences:
    """Per-query preferences of run A over run B for every pair (A before B
    on the command line), positive when A is better.

    They are computed a block of pairs at a time (:meth:`block`), so memory
    follows the block, not pairs x queries; ``values[name]`` (P, Q) and
    ``levels[name]`` (P, Q) (the recall level that decided LP or LR, 0 for a
    tie) give whole matrices when asked for.
    """

    BLOCK_CELLS = 1 << 20                     # pairs x queries per block (about 16 arrays of it live at once)

    def __init__(self, r: Rankings, names: list[str]):
        self.rankings = r
        self.names = [name for name in PREFERENCE_NAMES if name in names]
        self.num_pairs = r.num_runs * (r.num_runs - 1) // 2

    # each family's sorted sequences made when first used (in the pairs' thread, beside the metrics)
    @property
    def _empty(self) -> bool:
        return not self.num_pairs or self.rankings.num_queries == 0

    @property
    def _pad(self) -> int:
        return int(self.rankings.lengths.max(initial=0)) + 1              # worse than any rank

    @cached_property
    def _lp(self) -> _Lex | None:
        return self._lex(False) if not self._empty and {"LP", "rrLP"} & set(self.names) else None

    @cached_property
    def _lr(self) -> _Lex | None:
        return self._lex(True) if not self._empty and {"LR", "rrLR"} & set(self.names) else None

    def _lex(self, recall: bool) -> _Lex:
        """LP's (or, ``recall``, LR's) sorted sequences: the compiled merge
        sort where it is built, else numpy's refinement by element."""
        from . import compiled
        r = self.rankings
        made = compiled.lex_order(r, recall, int(NO_SPLIT))
        if made is not None:
            return _Lex(r, LexOrder(*made))
        sequences = lexirecall_sequences(r) if recall else (r.rel_rank, r.rel_starts, r.num_rel_ret)
        return _Lex(r, lexicographic_order(r.segment_query, *sequences, self._pad))

    @cached_property
    def _rpp(self) -> dict[bool, _RecallPaired | None]:
        wanted = set(self.names)
        return {graded: _RecallPaired(self.rankings, graded) if not self._empty and
                {name for name in RPP_WEIGHTS if name.startswith("g") == graded} & wanted else None
                for graded in (False, True)}

    @classmethod
    def gathered(cls, num_runs: int, num_queries: int, values: dict, levels: dict) -> Preferences:
        """Preferences already computed elsewhere (a cluster's partitions):
        every pair's ``values`` and ``levels`` (P, Q), read as the computed ones are."""
        from types import SimpleNamespace
        gathered = cls.__new__(cls)
        gathered.rankings = SimpleNamespace(num_runs=num_runs, num_queries=num_queries)
        gathered.names = [name for name in PREFERENCE_NAMES if name in values]
        gathered.num_pairs = num_runs * (num_runs - 1) // 2
        gathered.__dict__.update(_lp=None, _lr=None, _rpp={False: None, True: None})
        gathered.__dict__["values"], gathered.__dict__["levels"] = values, levels
        return gathered

    def of_pairs(self, name: str, pairs: np.ndarray) -> np.ndarray:
        """(P, compared Q) preference ``name`` of ``pairs`` (a, b), A over B:
        from the whole matrices where they are kept (or small enough to
        keep), else computed for these pairs alone."""
        rows = pair_rows(self.rankings.num_runs, pairs)
        whole = self.num_pairs * self.rankings.num_queries * len(self.names)
        if "values" not in self.__dict__ and whole > self.KEEP_CELLS:
            values = self.block(rows)[0][name]
        else:
            values = self.values[name][rows]
        return values if (pairs[:, 0] < pairs[:, 1]).all() else values * pair_signs(pairs) + 0.0

    @property
    def block_size(self) -> int:
        """Pairs per block."""
        return max(1, self.BLOCK_CELLS // max(self.rankings.num_queries, 1))

    def block(self, rows) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Values and deciding levels, (k, Q) each, of the pairs ``rows``
        (indices into ``pairs``)."""
        r = self.rankings
        queries = r.num_queries
        chosen = pairs_of_rows(r.num_runs, rows)
        first, second = chosen[:, 0], chosen[:, 1]
        if len(chosen) == 0 or queries == 0 or (self._lp is None and self._lr is None and
                                                 not any(self._rpp.values())):
            shape = (len(chosen), queries)
            families = [name for name in ("LP", "LR") if {name, "rr" + name} & set(self.names)]
            return ({name: np.zeros(shape) for name in self.names},
                    {name: np.zeros(shape, dtype=np.int64) for name in families})
        values: dict[str, np.ndarray] = {}
        levels: dict[str, np.ndarray] = {}
        if self._lp is not None:
            values["LP"], levels["LP"] = self._lp.levels(first, second)
            if "rrLP" in self.names:
                values["rrLP"] = _reciprocal_difference(r, first, second, levels["LP"])
        if self._lr is not None:
            values["LR"], levels["LR"] = self._lr.levels(first, second, r.num_rel_ret)
            if "rrLR" in self.names:
                values["rrLR"] = _reciprocal_difference(r, first, second, levels["LR"])
        for name in self.names:
            if name in RPP_WEIGHTS:
                values[name] = self._rpp[name.startswith("g")].values(first, second, RPP_WEIGHTS[name])
        return {name: values[name] for name in self.names}, levels

    def summed_arrays(self, count: int) -> dict[str, tuple] | None:
        """The arrays :meth:`sum_into` fills for ``count`` pairs, empty:
        {name: (wins, losses)} (count,) for LP and LR, {name: (first limbs
        (count, 7), second limbs (count, 10), least, greatest, wins,
        losses, mean, deviation)} for rrLP and rrLR; None where the compiled kernel does not
        apply (another preference, no kernel, no pairs or queries)."""
        from . import compiled
        r = self.rankings
        if not count or not r.num_queries or not compiled.enabled() or \
                not set(self.names) <= {"LP", "rrLP", "LR", "rrLR"}:
            return None
        arrays: dict[str, tuple] = {}
        for name in self.names:
            arrays[name] = (np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)) \
                if name in ("LP", "LR") else \
                (np.empty((count, 7), dtype=np.int64), np.empty((count, 10), dtype=np.int64), np.empty(count),
                 np.empty(count), np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64), np.empty(count),
                 np.empty(count))
        return arrays

    def sum_into(self, arrays: dict[str, tuple], pairs: np.ndarray, slots: np.ndarray) -> bool:
        """Each preference of ``pairs`` (k, 2) summed over the queries by
        the compiled kernel, into rows ``slots`` of :meth:`summed_arrays`'
        ``arrays`` (see :func:`lexeval.compiled.lex_moments`), without the
        (pairs x queries) matrices; False where the kernel is not there."""
        from . import compiled
        for family, lex in (("LP", self._lp), ("LR", self._lr)):
            if lex is None:
                continue
            if "rr" + family not in arrays:     # LP's (LR's) counts alone: the runs' ranks compared, no levels
                if not compiled.lex_signs(lex, pairs[:, 0], pairs[:, 1], slots, arrays[family]):
                    return False
                continue
            # LP's (or LR's) counts where only rrLP (rrLR) is asked for: made, not kept
            signs = arrays.get(family) or (np.empty(len(arrays["rr" + family][2]), dtype=np.int64),) * 2
            if not compiled.lex_moments(lex, self._relevant_by_query, pairs[:, 0], pairs[:, 1], slots,
                                        family == "LR", signs, arrays.get("rr" + family)):
                return False
        return True

    @cached_property
    def _relevant_by_query(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(1 / relevant ranks, starts (Q, R), relevant retrieved (Q, R)):
        the rankings' relevant ranks' reciprocals (the rr preferences'
        terms, divided once here) with the segments in query order, each
        query's runs together (the kernel reads a query at a time)."""
        r = self.rankings
        retrieved = np.ascontiguousarray(r.num_rel_ret.reshape(r.num_runs, r.num_queries).T)
        starts = np.ascontiguousarray(r.rel_starts.reshape(r.num_runs, r.num_queries).T)
        lengths = retrieved.ravel()
        placed = np.cumsum(lengths) - lengths
        index = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts.ravel() - placed, lengths)
        return 1.0 / r.rel_rank[index].astype(np.float64), placed.reshape(retrieved.shape), retrieved

    @cached_property
    def pairs(self) -> list[tuple[int, int]]:
        """Every pair (a, b), a < b, in order (made when first asked for: the
        computations go by row numbers, see :func:`pairs_of_rows`)."""
        return run_pairs(self.rankings.num_runs)

    def run_totals(self, name: str) -> np.ndarray | None:
        """(R, Q) each run's per-query sum of preference ``name`` over every
        other run (as the pairs' blocks add it up: rrLP on the 2**-40
        grid), from each query's sorted sequences alone, for LP, LR and
        rrLP where the compiled kernel is built; else None (the caller
        adds up the pairs)."""
        # a cluster's gathered preferences have their values only
        lex = {"LP": "_lp", "rrLP": "_lp", "LR": "_lr"}.get(name)
        lex = getattr(self, lex, None) if lex else None
        if lex is None:
            return None
        from . import compiled
        return compiled.lex_run_totals(lex.order, lex.split, self.rankings, name == "rrLP", int(NO_SPLIT))

    KEEP_CELLS = 1 << 23                      # whole matrices up to this size are kept once computed

    def blocks(self, rows: np.ndarray | None = None):
        """(rows, values, levels) for consecutive blocks of ``rows`` (all
        pairs if None). The first pass over all pairs keeps the whole
        matrices when they are small, so that each pair's work is done once;
        bigger ones are computed again when asked for."""
        whole = rows is None
        rows = np.arange(self.num_pairs) if whole else np.asarray(rows, dtype=np.int64)
        if "values" in self.__dict__:
            consecutive = len(rows) > 0 and rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all()
            for start in range(0, len(rows), self.block_size):
                chunk = rows[start:start + self.block_size]
                # consecutive rows (every pair's, or a baseline's): views, not copies
                taken = slice(int(chunk[0]), int(chunk[-1]) + 1) if consecutive else chunk
                yield (chunk, {name: v[taken] for name, v in self.values.items()},
                       {name: v[taken] for name, v in self.levels.items()})
            return
        keep = whole and len(rows) * self.rankings.num_queries * len(self.names) <= self.KEEP_CELLS
        parts = []
        for start in range(0, len(rows), self.block_size):
            chunk = rows[start:start + self.block_size]
            part = (chunk, *self.block(chunk))
            if keep:
                parts.append(part)
            yield part
        if keep:
            self._keep(parts)

    def _whole(self) -> None:
        parts = list(self.blocks())
        if "values" not in self.__dict__:
            self._keep(parts)

    def _keep(self, parts) -> None:
        """Keep the whole matrices made of ``parts`` (every block, in order)."""
        empty = self.block(np.zeros(0, dtype=np.int64))
        self.__dict__["values"] = {name: np.concatenate([empty[0][name]] + [p[1][name] for p in parts])
                                   for name in self.names}
        self.__dict__["levels"] = {name: np.concatenate([empty[1][name]] + [p[2][name] for p in parts])
                                   for name in empty[1]}

    @property
    def values(self) -> dict[str, np.ndarray]:
        if "values" not in self.__dict__:
            self._whole()
        return self.__dict__["values"]

    @property
    def levels(self) -> dict[str, np.ndarray]:
        if "levels" not in self.__dict__:
            self._whole()
        return self.__dict__["levels"]


class RunSpread:
    """Adds each pair's (Q,) values to its first run and subtracts them from
    its second, for a block of pairs (k, 2); the grouping is worked out
    once per block and reused for every preference."""

    def __init__(self, pairs: np.ndarray):
        self.sides = []
        for side, sign in ((0, 1.0), (1, -1.0)):
            owner = pairs[:, side]
            order = None if (owner[1:] >= owner[:-1]).all() else np.argsort(owner, kind="stable")
            owner = owner if order is None else owner[order]
            starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
            self.sides.append((order, owner[starts], starts, sign))

    def add(self, total: np.ndarray, values: np.ndarray) -> None:
        """``total`` (R, Q) += the block's ``values`` (k, Q), signed by side."""
        if len(values) == 0:
            return
        for order, runs, starts, sign in self.sides:
            sums = np.add.reduceat(values if order is None else values[order], starts, axis=0)
            total[runs] += sums if sign > 0 else -sums


def pair_rows(num_runs: int, pairs: np.ndarray) -> np.ndarray:
    """Row of each of ``pairs`` (a, b) in the list of all pairs in
    :func:`run_pairs` order: that of (min, max), whose preferences are
    made (a pair printed (b, a), run:baseline, has them times
    :func:`pair_signs`)."""
    a, b = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    return a * (2 * num_runs - a - 1) // 2 + (b - a - 1)


def pair_signs(pairs: np.ndarray) -> np.ndarray:
    """(P, 1) +1 for a pair (a, b) with a < b, -1 for one printed the other
    way round: what its row's preferences (made for a < b) are multiplied by."""
    return np.where(pairs[:, :1] < pairs[:, 1:], 1.0, -1.0)


def compute_preferences(r: Rankings, names: list[str]) -> Preferences:
    """LP, rrLP, LR and/or rrLR for every pair of runs and every query
    (computed when asked for, a block of pairs at a time)."""
    return Preferences(r, names)


def rank_runs(scores: np.ndarray) -> np.ndarray:
    """(R,) 1 = best; runs with equal scores share the better rank."""
    return 1 + (scores[None, :] > scores[:, None]).sum(axis=1)


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
