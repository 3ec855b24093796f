"""The compiled kernel's wrappers for --bounds' pairs (lexeval/_exact_pairbounds.c
and the one-pass ranking kernels of lexeval/_exact_measures.c): each
returns None where the kernel is not built, and shares its pairs between
threads (:func:`lexeval.compiled.in_parts`)."""

from __future__ import annotations

import numpy as np

from ..compiled import _exact, cores, enabled, in_parts, in_threads

SCRATCH_CELLS = 1 << 22     # difference_bounds: the cells (4 or 8 bytes) a group of pairs' and a query's tables take


def hole_list(codes: np.ndarray, hole_ids: np.ndarray, starts: np.ndarray,
              lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Every segment's unjudged documents (code < 0), in one pass: their
    ranks (U,) int64 and numbers (``hole_ids`` (N,)) (U,) int32 in segment
    then rank order, each segment's first (S,) and count (S,); None where
    the kernel is not built."""
    if not enabled():
        return None
    codes, hole_ids = np.ascontiguousarray(codes, dtype=np.int16), np.ascontiguousarray(hole_ids, dtype=np.int32)
    starts, lengths = np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64)
    # the segments in a part per thread, each part's holes counted first to place its output
    edges = np.linspace(0, len(starts), max(min(cores(), len(starts)), 1) + 1).astype(np.int64)
    ends = [int(starts[edge - 1] + lengths[edge - 1]) if edge else 0 for edge in edges]
    placed = np.cumsum([0] + [int(np.count_nonzero(codes[ends[k]:ends[k + 1]] < 0)) for k in range(len(edges) - 1)])
    rank, ids = np.empty(int(placed[-1]), dtype=np.int64), np.empty(int(placed[-1]), dtype=np.int32)
    counts = np.empty(len(starts), dtype=np.int64)
    list(in_threads(lambda k: _exact.hole_list(codes, hole_ids, starts[edges[k]:edges[k + 1]],
                                               lengths[edges[k]:edges[k + 1]], rank[placed[k]:placed[k + 1]],
                                               ids[placed[k]:placed[k + 1]], counts[edges[k]:edges[k + 1]]),
                    range(len(edges) - 1)))
    return rank, ids, np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64), counts


def difference_bounds(holes: tuple, per_segment: tuple, pairs: np.ndarray, compared: np.ndarray, columns: tuple,
                      relevance: tuple, per_query: tuple,
                      out: tuple | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(least, greatest), (C, P, compared Q) views each: on each of the
    ``compared`` queries (indices), each pair's difference under one shared assignment, for C measure
    columns at one relevance level (see :mod:`lexeval.bounds.pairs`, the
    reference). ``holes``: each segment's holes (ranks, numbers, first
    index, count); ``per_segment``: the relevance codes (N,) int16, the
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
    written (LR's bounds read them: :func:`lex_bounds`). A thread per part
    of the pairs; None where the kernel is not built."""
    if not enabled():
        return None
    kinds, variants, depths, phi_low, phi_high, base = columns
    num_rel, (steps, ideal), ideal_before, most = per_query
    size = len(kinds)
    shape = (len(pairs), size, len(compared))
    low, high = (buffer[:int(np.prod(shape))].reshape(shape) for buffer in out[:2]) if out is not None else \
        (np.empty(shape), np.empty(shape))
    shared = out[2] if out is not None and len(out) > 2 else None
    holes = (np.ascontiguousarray(holes[0], dtype=np.int64), np.ascontiguousarray(holes[1], dtype=np.int32),
             np.ascontiguousarray(holes[2], dtype=np.int64), np.ascontiguousarray(holes[3], dtype=np.int64))
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

    in_parts(lambda start, stop: _exact.difference_bounds(*holes, *segments, int(queries), chosen, pairs[start:stop],
                                                          *described, *(int(x) for x in relevance), *tables,
                                                          int(most), SCRATCH_CELLS, low[start:stop], high[start:stop],
                                                          none if shared is None else shared[start:stop]),
             len(pairs), cores(), least=16)
    return low.transpose(1, 0, 2), high.transpose(1, 0, 2)


def lex_bounds(rankings_arrays: tuple, holes: tuple, pairs: np.ndarray, compared: np.ndarray, which: int,
               relevance: tuple, most: int, shared: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(least, greatest), (P, compared Q) each: LP (``which`` 0), LR (1),
    rrLP (2) or rrLR (3) on each of the ``compared`` queries under one shared
    assignment (see :mod:`lexeval.bounds.lexical`, the reference);
    ``rankings_arrays``: codes, hole numbers, starts, lengths and the
    number of queries; ``holes``: the unjudged documents' numbers in
    segment and rank order, each segment's first and count;
    ``relevance``: the level, whether the holes' grades vary, whether every
    hole is relevant where they do not; ``shared`` (P, compared Q) int64:
    LR's unjudged documents both runs hold, where :func:`difference_bounds`
    counted them (else counted here). A thread per part of the pairs;
    None where the kernel is not built."""
    if not enabled():
        return None
    codes, hole_ids, starts, lengths, queries = rankings_arrays
    none = np.zeros(0, dtype=np.int64)
    level, variable, all_relevant = relevance
    low, high = np.empty((len(pairs), len(compared))), np.empty((len(pairs), len(compared)))
    arrays = (np.ascontiguousarray(codes, dtype=np.int16), np.ascontiguousarray(hole_ids, dtype=np.int32),
              np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64),
              np.ascontiguousarray(holes[0], dtype=np.int32), np.ascontiguousarray(holes[1], dtype=np.int64),
              np.ascontiguousarray(holes[2], dtype=np.int64))
    chosen = np.ascontiguousarray(compared, dtype=np.int64)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    given = none if shared is None else np.ascontiguousarray(shared, dtype=np.int64)
    in_parts(lambda start, stop: _exact.lex_bounds(*arrays, int(queries), chosen, pairs[start:stop], int(which),
                                                   int(level), int(variable), int(all_relevant), int(most),
                                                   given[start:stop] if len(given) else none, low[start:stop],
                                                   high[start:stop]), len(pairs), cores(), least=16)
    return low, high
