"""The compiled kernel's wrappers for --bounds' pairs (lexeval/_exact_pairbounds.c
and the one-pass ranking kernels of lexeval/_exact_measures.c): each
returns None where the kernel is not built, and shares its work between
threads: the queries, taken one at a time from a shared counter
(:func:`_by_queries`), or, where the queries are few, parts of the pairs
(:func:`lexeval.compiled.in_parts`)."""

from __future__ import annotations

from typing import cast

import numpy as np

from ..compiled import _exact, cores, enabled, in_parts, in_threads
from ..constants import FIRST_LIMBS

SCRATCH_CELLS = 1 << 22     # difference_bounds: the cells (4 or 8 bytes) a group of pairs' and a query's tables take


def difference_bounds(hole_ids: np.ndarray, per_segment: tuple, pairs: np.ndarray, compared: np.ndarray, columns: tuple,
                      relevance: tuple, per_query: tuple,
                      out: tuple | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(least, greatest), (C, P, compared Q) views each: on each of the
    ``compared`` queries (indices), each pair's difference under one shared assignment, for C measure
    columns at one relevance level (see :mod:`lexeval.bounds.pairs`, the
    reference). ``hole_ids`` (N,): each unjudged document's number in its
    query (-1: judged; the kernel lists each query's as it comes to it);
    ``per_segment``: the relevance codes (N,) int16, the
    first relevant ranks and lengths (S,), and the number of queries;
    ``columns``: kind, variant, depth, phi's least and greatest, base values
    (C, S); ``relevance``: (the level: a judged document is relevant at a code at least
    it, variable, all relevant); ``per_query``: R,
    nDCG's layers of gain (the steps (C, L) and the qrels' documents of gain
    at least each, (C, L, Q)), the ideal's running discounts, the most
    holes of a query. ``out``: two flat float64 buffers of at least P x C x
    compared Q values to write into, reused from block to block (fresh
    ones cost a page fault per 4 kB), and a third, None or (P, compared Q)
    int64: where given, each pair's unjudged documents both runs hold,
    written (LR's bounds read them: :func:`lex_bounds`). On every core
    (:func:`_difference_kernel`); None where the kernel is not built."""
    if not enabled():
        return None
    shape = (len(pairs), len(columns[0]), len(compared))
    low, high = (buffer[:int(np.prod(shape))].reshape(shape) for buffer in out[:2]) if out is not None else \
        (np.empty(shape), np.empty(shape))
    shared = out[2] if out is not None and len(out) > 2 else None
    _difference_kernel((hole_ids, per_segment, pairs, compared, columns, relevance, per_query),
                       (low, high, shared, None))
    return low.transpose(1, 0, 2), high.transpose(1, 0, 2)


def difference_sums(hole_ids: np.ndarray, per_segment: tuple, pairs: np.ndarray, compared: np.ndarray, columns: tuple,
                    relevance: tuple, per_query: tuple, shared: np.ndarray | None = None) -> np.ndarray | None:
    """(2, C, P, FIRST_LIMBS) int64: :func:`difference_bounds`' least and
    greatest, each summed over the compared queries in the kernel on the
    exact grid (carried limbs, as :func:`lexeval.stats.sums.fixed_sums`
    sums), with no per-query values kept (P x C x Q of them, twice: two
    buffers of a page fault per 4 kB, and a numpy pass to sum them). The
    arguments and ``shared`` as there; None where the kernel is not built
    or a value is off the grid's range (NaN, infinite, 2**22 or more: then
    :func:`difference_bounds`' values and :func:`~lexeval.stats.sums.fixed_sums`)."""
    if not enabled():
        return None
    sums = np.empty((len(pairs), len(columns[0]), 2, FIRST_LIMBS), dtype=np.int64)
    empty = np.zeros(0)
    if not all(_difference_kernel((hole_ids, per_segment, pairs, compared, columns, relevance, per_query),
                                  (empty, empty, shared, sums))):
        return None
    return sums.transpose(2, 1, 0, 3)


def column_sums(plan: tuple, pairs: np.ndarray, compared: np.ndarray, shared: np.ndarray | None,
                block: int) -> list[tuple]:
    """Each of a plan's C columns' (least, greatest) sums (:class:`~lexeval.stats.sums.Sums`, a row per pair) over
    the ``compared`` queries: :func:`difference_sums`, else (a value off the grid) :func:`difference_bounds`'
    per-query values, ``block`` pairs at a time into the same two buffers, summed by
    :func:`~lexeval.stats.sums.fixed_sums` on every core. ``plan``: holes, per segment, columns, relevance and
    per query as :func:`difference_bounds` takes them; ``shared`` as there."""
    from ..stats import limbs
    from ..stats.sums import Sums, fixed_sums
    hole_ids, per_segment, columns, relevance, per_query = plan
    width = len(columns[0])
    summed = difference_sums(hole_ids, per_segment, pairs, compared, columns, relevance, per_query, shared)
    if summed is not None:
        zeros = np.zeros(len(pairs))
        return [tuple(Sums(limbs.trim(summed[side, column]), zeros) for side in (0, 1)) for column in range(width)]
    buffers = tuple(np.empty(min(block, len(pairs)) * width * len(compared)) for _ in range(2))
    parts = []
    for start in range(0, len(pairs), block):
        made = cast(tuple, difference_bounds(hole_ids, per_segment, pairs[start:start + block], compared, columns,
                                             relevance, per_query,
                                             (*buffers, None if shared is None else shared[start:start + block])))
        parts.append(list(in_threads(fixed_sums, [made[side][column] for column in range(width) for side in (0, 1)])))
    return [tuple(Sums.concatenate([part[2 * column + side] for part in parts]) for side in (0, 1))
            for column in range(width)]


def _difference_kernel(given: tuple, out: tuple) -> list:
    """The compiled difference_bounds on every core, over
    :func:`difference_bounds`' arguments (``given``) into ``out``: low, high
    (P, C, Q) or empty, shared (P, Q) or None, sums (P, C, 2, limbs) or
    None; each part's answer (False: a value off the grid, the sums
    unfinished). The queries taken one at a time by each thread in turn as
    it comes free, every pair in each (a query's lists and tables are then
    made once, not once per part of the pairs: a tenth of the work); a
    part of the pairs each where the queries are fewer than twice the
    cores."""
    hole_ids, per_segment, pairs, compared, columns, relevance, per_query = given
    low, high, shared, sums = out
    kinds, variants, depths, phi_low, phi_high, base = columns
    num_rel, (steps, ideal), ideal_before, most = per_query
    numbers = hole_numbers(hole_ids)
    codes, first, lengths, queries = per_segment
    segments = (np.ascontiguousarray(codes, dtype=np.int16), np.ascontiguousarray(first, dtype=np.int64),
                np.ascontiguousarray(lengths, dtype=np.int64))
    described = (np.asarray(kinds, dtype=np.int64), np.asarray(variants, dtype=np.int64),
                 np.asarray(depths, dtype=np.float64), np.asarray(phi_low, dtype=np.float64),
                 np.asarray(phi_high, dtype=np.float64), np.ascontiguousarray(base, dtype=np.float64))
    tables = (np.ascontiguousarray(num_rel, dtype=np.int64), np.ascontiguousarray(steps, dtype=np.float64),
              np.ascontiguousarray(ideal, dtype=np.int64), np.ascontiguousarray(ideal_before, dtype=np.float64))
    chosen = np.ascontiguousarray(compared, dtype=np.int64)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)

    def run(chosen_pairs: np.ndarray, low: np.ndarray, high: np.ndarray, shared, sums, counter=none) -> bool:
        return _exact.difference_bounds(numbers, *segments, int(queries), chosen, chosen_pairs, *described,
                                        *(int(x) for x in relevance), *tables, int(most), SCRATCH_CELLS, low, high,
                                        none if shared is None else shared, none if sums is None else sums, counter)

    parts = cores()
    if parts > 1 and len(chosen) >= 2 * parts and len(pairs) >= 16:
        return _by_queries(lambda own, counter: run(pairs, low, high, shared, own, counter), sums, parts)
    dealt = dealt_rows(pairs, parts) if len(pairs) >= 32 else None
    if dealt is None:
        return list(in_parts(lambda start, stop: run(pairs[start:stop], low[start:stop] if len(low) else low,
                                                     high[start:stop] if len(high) else high,
                                                     None if shared is None else shared[start:stop],
                                                     None if sums is None else sums[start:stop]),
                             len(pairs), cores(), least=16))
    def own(array, index):                  # a part's output of its own (None or empty: nothing written there)
        return array if array is None or not len(array) else np.empty((len(index), *array.shape[1:]), array.dtype)
    made = [tuple(own(array, index) for array in (low, high, shared, sums)) for index in dealt]
    answers = list(in_threads(lambda k: run(pairs[dealt[k]], *made[k]), range(len(dealt))))
    for index, outputs in zip(dealt, made):         # put back in the pairs' order
        for target, output in zip((low, high, shared, sums), outputs):
            if output is not None and len(output):
                target[index] = output
    return answers


def hole_numbers(hole_ids: np.ndarray) -> np.ndarray:
    """The documents' numbers as the kernels read them: int16 or int32 as they are (the numbering makes int16
    where every query's fit), any other integers as int32."""
    return np.ascontiguousarray(hole_ids, dtype=hole_ids.dtype if hole_ids.dtype in (np.int16, np.int32) else np.int32)


def _by_queries(run, sums: np.ndarray | None, parts: int) -> list:
    """A kernel on ``parts`` threads, each taking the queries one at a time from one counter as it comes free
    (``run(its own sums or None, the counter)``: every pair in each, each thread writing its queries' values into
    the same arrays), their sums added up and carried as the kernel carries; each thread's answer. Dealt in turn,
    the queries' unequal work left a core idle for the last tenth of a second, and split by pairs, each thread read
    every query's rankings."""
    counter = np.zeros(1, dtype=np.int64)
    # the first thread's sums written into ``sums`` itself, the others' beside, then added there and carried in
    # place (a sum of each thread's and its carried copy were fresh pages, a serial 40 ms after the threads)
    own_sums = [sums] + [None if sums is None else np.empty_like(sums) for _ in range(parts - 1)]
    answers = list(in_threads(lambda k: run(own_sums[k], counter), range(parts)))
    if sums is not None and all(answers):
        from ..stats.limbs import carry_in_place
        for part in own_sums[1:]:
            sums += cast(np.ndarray, part)
        carry_in_place(sums)
    return answers


def dealt_rows(pairs: np.ndarray, parts: int) -> list[np.ndarray] | None:
    """The pairs' indices in ``parts`` parts, whole rows each (a row: one run
    A's pairs (A, B)), dealt in turn down and back up the parts (rows 0 .. P -
    1 to parts 0 .. P - 1, the next P to parts P - 1 .. 0, ...), each part's
    rows in order; None where the pairs do not come ordered (A < B, A never
    falling: the kernel's lists are then passed once, and a part of them
    stays ordered) or make one part. The kernel's work per pair grows as a
    row shortens (its groups' scans run over 16 slots a vector, and each
    group reads A's unjudged documents once), so that contiguous halves,
    the long rows in one, took 1.3 s and 1.9 s on the Robust04 shape."""
    if parts < 2 or not len(pairs):
        return None
    first, second = pairs[:, 0], pairs[:, 1]
    if not (np.all(first < second) and np.all(first[1:] >= first[:-1])):
        return None
    starts = np.flatnonzero(np.r_[True, first[1:] != first[:-1]])
    ends = np.r_[starts[1:], len(pairs)]
    turn = np.arange(len(starts)) % (2 * parts)
    owner = np.where(turn < parts, turn, 2 * parts - 1 - turn)
    dealt = [np.concatenate([np.arange(starts[row], ends[row]) for row in np.flatnonzero(owner == part)]
                            + [np.zeros(0, dtype=np.int64)]) for part in range(parts)]
    dealt = [index for index in dealt if len(index)]
    return dealt if len(dealt) > 1 else None


def lex_bounds(rankings_arrays: tuple, pairs: np.ndarray, compared: np.ndarray, which,
               relevance: tuple, most: int, shared: np.ndarray | None = None):
    """(least, greatest), (P, compared Q) each: LP (``which`` 0), LR (1),
    rrLP (2) or rrLR (3) on each of the ``compared`` queries under one shared
    assignment (see :mod:`lexeval.bounds.lexical`, the reference); for a
    list of them, a list of such pairs, made in one pass (the arguments
    checked, and each query's rankings read, once for all);
    ``rankings_arrays``: codes, hole numbers, starts, lengths and the
    number of queries; ``relevance``: the level, whether the holes' grades vary, whether every
    hole is relevant where they do not; ``shared`` (P, compared Q) int64:
    LR's unjudged documents both runs hold, where :func:`difference_bounds`
    counted them (else counted here). On every core (:func:`_lex_kernel`);
    None where the kernel is not built."""
    if not enabled():
        return None
    whiches = np.atleast_1d(np.asarray(which, dtype=np.int64))
    low, high = (np.empty((len(pairs), len(whiches), len(compared))) for _ in range(2))   # a part's rows together
    _lex_kernel((rankings_arrays, pairs, compared, whiches, relevance, most, shared), (low, high, None))
    made = [(low[:, w], high[:, w]) for w in range(len(whiches))]
    return made if np.ndim(which) else made[0]


def lex_sums(rankings_arrays: tuple, pairs: np.ndarray, compared: np.ndarray, whiches: list,
             relevance: tuple, most: int, shared: np.ndarray | None = None) -> list | None:
    """Per preference of ``whiches``, its (least, greatest) sums over the
    ``compared`` queries (:class:`~lexeval.stats.sums.Sums`, a row per pair),
    made in the kernel on the exact grid as :func:`difference_sums` makes
    them, with no per-query values kept (P x W x Q of them, twice: fresh
    pages, and a numpy pass each to sum them). The arguments as
    :func:`lex_bounds`'; None where the kernel is not built or a value is
    off the grid's range."""
    from ..stats import limbs
    from ..stats.sums import Sums
    if not enabled():
        return None
    numbers = np.asarray(whiches, dtype=np.int64)
    sums = np.empty((len(pairs), len(numbers), 2, FIRST_LIMBS), dtype=np.int64)
    empty = np.zeros(0)
    if not all(_lex_kernel((rankings_arrays, pairs, compared, numbers, relevance, most, shared),
                           (empty, empty, sums))):
        return None
    zeros = np.zeros(len(pairs))
    return [tuple(Sums(limbs.trim(sums[:, w, side]), zeros) for side in (0, 1)) for w in range(len(numbers))]


def _lex_kernel(given: tuple, out: tuple) -> list:
    """The compiled lex_bounds on every core (the queries taken one at a
    time by each thread, every pair in each; a part of the pairs each where
    the queries are fewer than twice the cores), over :func:`lex_bounds`'
    arguments (``given``, the preferences' numbers as an array) into
    ``out``: low, high (P, W, Q) or empty, sums (P, W, 2, limbs) or None;
    each part's answer (False: a value off the grid, the sums unfinished)."""
    rankings_arrays, pairs, compared, whiches, relevance, most, shared = given
    codes, hole_ids, starts, lengths, queries = rankings_arrays
    level, variable, all_relevant = relevance
    low, high, sums = out
    none = np.zeros(0, dtype=np.int64)
    arrays = (np.ascontiguousarray(codes, dtype=np.int16), hole_numbers(hole_ids),
              np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64))
    chosen = np.ascontiguousarray(compared, dtype=np.int64)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    counted = none if shared is None else np.ascontiguousarray(shared, dtype=np.int64)
    parts = cores()
    if parts > 1 and len(chosen) >= 2 * parts and len(pairs) >= 16:
        return _by_queries(lambda own, counter: _exact.lex_bounds(
            *arrays, int(queries), chosen, pairs, whiches, int(level), int(variable), int(all_relevant), int(most),
            counted, low, high, none if own is None else own, counter), sums, parts)
    return list(in_parts(lambda start, stop: _exact.lex_bounds(
        *arrays, int(queries), chosen, pairs[start:stop], whiches, int(level), int(variable), int(all_relevant),
        int(most), counted[start:stop] if len(counted) else none, low[start:stop] if len(low) else low,
        high[start:stop] if len(high) else high, none if sums is None else sums[start:stop], none),
        len(pairs), cores(), least=16))
