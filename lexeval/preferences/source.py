"""Sources of pairs' per-query preferences: what the sums, the output and
the reports read (:class:`PairSource`), computed on this machine from the
relevant ranks (:class:`Preferences`) or gathered from a cluster's
partitions (:class:`GatheredPreferences`, and the cluster's printed pairs)."""

from __future__ import annotations

from functools import cached_property
from typing import cast

import numpy as np

from .. import compiled
from ..choices import PREFERENCE_NAMES, RPP_WEIGHTS
from ..constants import FIRST_LIMBS, SECOND_LIMBS
from ..rankings import Rankings
from .orders import NO_SPLIT, Lex, RelevantRanks, reciprocal_difference, sorted_sequences
from .pairs import pair_rows, pair_signs, pairs_of_rows, run_pairs
from .recall_paired import RecallPaired


class PairSource:
    """Per-query preferences of run A over run B for pairs of runs (pair
    rows in :func:`~lexeval.preferences.pairs.run_pairs` order, A before B
    on the command line), positive when A is better: ``names`` (the
    preferences), ``num_runs`` and ``num_queries``; :meth:`blocks` of rows,
    :meth:`of_pairs`, and the whole matrices ``values[name]`` and
    ``levels[name]`` (P, Q) (the recall level that decided LP or LR, 0 for
    a tie). A source that holds its matrices whole gives these from them."""

    names: list[str]
    num_runs: int
    num_queries: int
    values: dict[str, np.ndarray]             # a source holding its matrices whole: (P, Q) each
    levels: dict[str, np.ndarray]
    BLOCK_CELLS = 1 << 20                     # pairs x queries per block (about 16 arrays of it live at once)

    def __init__(self, names, num_runs: int, num_queries: int):
        self.names = [name for name in PREFERENCE_NAMES if name in names]
        self.num_runs, self.num_queries = num_runs, num_queries
        self.num_pairs = num_runs * (num_runs - 1) // 2

    @property
    def block_size(self) -> int:
        """Pairs per block."""
        return max(1, self.BLOCK_CELLS // max(self.num_queries, 1))

    @cached_property
    def pairs(self) -> list[tuple[int, int]]:
        """Every pair (a, b), a < b, in order (made when first asked for: the
        computations go by row numbers, see :func:`pairs_of_rows`)."""
        return run_pairs(self.num_runs)

    def of_pairs(self, name: str, pairs: np.ndarray) -> np.ndarray:
        """(P, compared Q) preference ``name`` of ``pairs`` (a, b), A over B."""
        return _signed(self.values[name][pair_rows(self.num_runs, pairs)], pairs)

    def blocks(self, rows: np.ndarray | None = None):
        """(rows, values, levels) for consecutive blocks of ``rows`` (all
        pairs if None), from the whole matrices."""
        rows = np.arange(self.num_pairs) if rows is None else np.asarray(rows, dtype=np.int64)
        consecutive = len(rows) > 0 and rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all()
        for start in range(0, len(rows), self.block_size):
            chunk = rows[start:start + self.block_size]
            # consecutive rows (every pair's, or a baseline's): views, not copies
            taken = slice(int(chunk[0]), int(chunk[-1]) + 1) if consecutive else chunk
            yield (chunk, {name: v[taken] for name, v in self.values.items()},
                   {name: v[taken] for name, v in self.levels.items()})

    def run_totals(self, name: str) -> np.ndarray | None:
        """(R, Q) each run's per-query sum of ``name`` over every other run,
        where the source can make it without the pairs (else None: the
        caller adds up the pairs)."""
        return None

    def summed_arrays(self, count: int) -> dict[str, tuple] | None:
        """The arrays :meth:`sum_into` fills, where the source sums its pairs
        itself (else None: the caller sums the blocks)."""
        return None


def _signed(values: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The rows' preferences (made for a < b), negated where a pair is printed the other way round."""
    return values if (pairs[:, 0] < pairs[:, 1]).all() else values * pair_signs(pairs) + 0.0


class GatheredPreferences(PairSource):
    """Every pair's preferences computed elsewhere (a cluster's partitions):
    ``values`` and ``levels`` (P, Q), read as the computed ones are."""

    def __init__(self, num_runs: int, num_queries: int, values: dict, levels: dict):
        super().__init__(values, num_runs, num_queries)
        self.values, self.levels = values, levels


class Preferences(PairSource):
    """The preferences of every pair of runs, computed a block of pairs at a
    time (:meth:`block`) from the relevant ranks, so that memory follows the
    block, not pairs x queries; whole matrices when asked for. The
    recall-paired preferences also read ``rankings`` (their grades)."""

    def __init__(self, relevant: RelevantRanks, names: list[str], rankings: Rankings | None = None):
        super().__init__(names, relevant.num_runs, relevant.num_queries)
        self.relevant, self.rankings = relevant, rankings

    # each family's sorted sequences made when first used (in the pairs' thread, beside the metrics)
    @property
    def _empty(self) -> bool:
        return not self.num_pairs or self.num_queries == 0

    @cached_property
    def _lp(self) -> Lex | None:
        return Lex(self.relevant, sorted_sequences(self.relevant, False)) \
            if not self._empty and {"LP", "rrLP"} & set(self.names) else None

    @cached_property
    def _lr(self) -> Lex | None:
        return Lex(self.relevant, sorted_sequences(self.relevant, True)) \
            if not self._empty and {"LR", "rrLR"} & set(self.names) else None

    @cached_property
    def _rpp(self) -> dict[bool, RecallPaired | None]:
        wanted = set(self.names)
        return {graded: RecallPaired(cast(Rankings, self.rankings), graded) if not self._empty and
                {name for name in RPP_WEIGHTS if name.startswith("g") == graded} & wanted else None
                for graded in (False, True)}

    def of_pairs(self, name: str, pairs: np.ndarray) -> np.ndarray:
        """(P, compared Q) preference ``name`` of ``pairs`` (a, b), A over B:
        from the whole matrices where they are kept (or small enough to
        keep), else computed for these pairs alone."""
        rows = pair_rows(self.num_runs, pairs)
        whole = self.num_pairs * self.num_queries * len(self.names)
        if "values" not in self.__dict__ and whole > self.KEEP_CELLS:
            return _signed(self.block(rows)[0][name], pairs)
        return _signed(self.values[name][rows], pairs)

    def block(self, rows) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Values and deciding levels, (k, Q) each, of the pairs ``rows``
        (indices into ``pairs``)."""
        r = self.relevant
        queries = self.num_queries
        chosen = pairs_of_rows(self.num_runs, rows)
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
                values["rrLP"] = reciprocal_difference(r, first, second, levels["LP"])
        if self._lr is not None:
            values["LR"], levels["LR"] = self._lr.levels(first, second, r.retrieved)
            if "rrLR" in self.names:
                values["rrLR"] = reciprocal_difference(r, first, second, levels["LR"])
        for name in self.names:
            if name in RPP_WEIGHTS:
                values[name] = cast(RecallPaired, self._rpp[name.startswith("g")]).values(first, second,
                                                                                         RPP_WEIGHTS[name])
        return {name: values[name] for name in self.names}, levels

    def summed_arrays(self, count: int) -> dict[str, tuple] | None:
        """The arrays :meth:`sum_into` fills for ``count`` pairs, empty:
        {name: (wins, losses)} (count,) for LP and LR, {name: (first limbs
        (count, 7), second limbs (count, 10), least, greatest, wins,
        losses, mean, deviation)} for rrLP and rrLR; None where the compiled kernel does not
        apply (another preference, no kernel, no pairs or queries)."""
        if not count or not self.num_queries or not compiled.enabled() or \
                not set(self.names) <= {"LP", "rrLP", "LR", "rrLR"}:
            return None
        arrays: dict[str, tuple] = {}
        for name in self.names:
            arrays[name] = (np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)) \
                if name in ("LP", "LR") else \
                (np.empty((count, FIRST_LIMBS), dtype=np.int64), np.empty((count, SECOND_LIMBS), dtype=np.int64),
                 np.empty(count),
                 np.empty(count), np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64), np.empty(count),
                 np.empty(count))
        return arrays

    def sum_into(self, arrays: dict[str, tuple], pairs: np.ndarray, slots: np.ndarray) -> bool:
        """Each preference of ``pairs`` (k, 2) summed over the queries by
        the compiled kernel, into rows ``slots`` of :meth:`summed_arrays`'
        ``arrays`` (see :func:`lexeval.compiled.lex_moments`), without the
        (pairs x queries) matrices; False where the kernel is not there."""
        chosen = (pairs[:, 0], pairs[:, 1], slots)
        for family, lex in (("LP", self._lp), ("LR", self._lr)):
            if lex is None:
                continue
            if "rr" + family not in arrays:     # LP's (LR's) counts alone: the runs' ranks compared, no levels
                if compiled.lex_signs(lex.narrow_rank, chosen, arrays[family]) is None:
                    return False
                continue
            # LP's (or LR's) counts where only rrLP (rrLR) is asked for: made, not kept
            signs = arrays.get(family) or (np.empty(len(arrays["rr" + family][2]), dtype=np.int64),) * 2
            if compiled.lex_moments(lex.tables, self._relevant_by_query, chosen, family == "LR", signs,
                                    arrays.get("rr" + family)) is None:
                return False
        return True

    @cached_property
    def _relevant_by_query(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(1 / relevant ranks, starts (Q, R), relevant retrieved (Q, R)):
        the relevant ranks' reciprocals (the rr preferences' terms, divided
        once here) with the segments in query order, each query's runs
        together (the kernel reads a query at a time)."""
        r = self.relevant
        retrieved = np.ascontiguousarray(r.retrieved.reshape(r.num_runs, r.num_queries).T)
        starts = np.ascontiguousarray(r.starts.reshape(r.num_runs, r.num_queries).T)
        lengths = retrieved.ravel()
        placed = np.cumsum(lengths) - lengths
        index = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts.ravel() - placed, lengths)
        return 1.0 / r.rank[index].astype(np.float64), placed.reshape(retrieved.shape), retrieved

    def run_totals(self, name: str) -> np.ndarray | None:
        """(R, Q) each run's per-query sum of preference ``name`` over every
        other run (as the pairs' blocks add it up: rrLP on the 2**-40
        grid), from each query's sorted sequences alone, for LP, LR and
        rrLP where the compiled kernel is built; else None (the caller
        adds up the pairs)."""
        lex = {"LP": "_lp", "rrLP": "_lp", "LR": "_lr"}.get(name)
        lex = getattr(self, lex, None) if lex else None
        if lex is None:
            return None
        r = self.relevant
        return compiled.lex_run_totals((lex.order, lex.split), r.arrays, (r.num_runs, r.num_queries),
                                       name == "rrLP", int(NO_SPLIT))

    KEEP_CELLS = 1 << 23                      # whole matrices up to this size are kept once computed

    def blocks(self, rows: np.ndarray | None = None):
        """(rows, values, levels) for consecutive blocks of ``rows`` (all
        pairs if None). The first pass over all pairs keeps the whole
        matrices when they are small, so that each pair's work is done once;
        bigger ones are computed again when asked for."""
        if "values" in self.__dict__:
            yield from super().blocks(rows)
            return
        whole = rows is None
        rows = np.arange(self.num_pairs) if whole else np.asarray(rows, dtype=np.int64)
        keep = whole and len(rows) * self.num_queries * len(self.names) <= self.KEEP_CELLS
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
    def values(self) -> dict[str, np.ndarray]:  # type: ignore[override]  # made when first read
        if "values" not in self.__dict__:
            self._whole()
        return self.__dict__["values"]

    @property
    def levels(self) -> dict[str, np.ndarray]:  # type: ignore[override]  # made when first read
        if "levels" not in self.__dict__:
            self._whole()
        return self.__dict__["levels"]


def compute_preferences(rankings: Rankings, names: list[str], relevant: RelevantRanks | None = None) -> Preferences:
    """``names`` (LP, rrLP, LR, rrLR, the RPPs) for every pair of runs of
    ``rankings`` and every query, computed when asked for, a block of pairs
    at a time, from ``relevant`` (the rankings' relevant ranks, handed over
    by the caller where it has them; else made here)."""
    return Preferences(relevant if relevant is not None else RelevantRanks.of(rankings), names, rankings)
