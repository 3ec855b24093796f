"""The compiled statistics kernel (``_exact.c``), when it was built.

Loops that numpy does too, bit for bit, at a tenth of its cost or
less (a thousand runs make half a million pairs per measure):

- :func:`pair_moments`: each pair's mean and standard deviation of its
  per-query differences, from the runs' values on the 2**-62 grid, exact
  (the runs' sums once, each pair's cross product of the values' 21-bit
  limbs, 192-bit integers) and rounded once;
- :func:`limb_moments`: the same from exact moments already summed (a
  cluster's partitions added, a preference's blocks);
- :func:`continued_fraction`: the incomplete beta function's continued
  fraction (the t and binomial tails), value by value, in numpy's order;
- :func:`lex_decide`: LP's and LR's sign and deciding level for pairs
  of runs, from the runs' ranks and the range-minimum table, and
  :func:`reciprocal_difference`: rrLP's and rrLR's values from them;
  :func:`lex_moments`: the same summed over the queries (wins, losses,
  rrLP's and rrLR's exact moments), without the pairs x queries matrices,
  and :func:`lex_signs` the wins and losses alone;
  :func:`lex_run_totals`: every run's sum of LP, LR or rrLP over all the
  other runs, from the sorted sequences alone (no pass over the pairs);
  :func:`lex_order`: those sorted sequences, a merge sort per query.

Each takes arrays and sizes only, and returns None where it does not
apply (not built, turned off with ``LEXEVAL_KERNEL=off``, or numbers
beyond its bounds); its one door (the caller that dispatches:
:meth:`lexeval.stats.moments.Moments.of_pairs`,
:func:`lexeval.stats.distributions.t_two_sided`,
:func:`lexeval.preferences.sorted_sequences`, ...) then takes the numpy
reference. The tests compare the two.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from .constants import FIRST_LIMBS, LIMB_BITS, SECOND_LIMBS

try:
    from . import _exact
except ImportError:         # not built: no compiler at install time
    _exact = None

_MOST_QUERIES = 1 << 31     # n (n - 1) stays below 2**62, the kernel's largest divisor


def enabled() -> bool:
    """Whether the kernel is built and not turned off."""
    return _exact is not None and os.environ.get("LEXEVAL_KERNEL", "on") != "off"


_PART_LEAST = 1 << 14        # pairs below which a measure's pairs are not split between threads


def cores() -> int:
    """The threads the pairs' work takes at most: as many as lexeval may
    use (:func:`lexeval.cpus.jobs`: the process's processors, --jobs)."""
    from .cpus import jobs
    return jobs()


def in_threads(function, items, threads: bool = True):
    """``[function(item) for item in items]``, on every core (``threads``):
    the pairs' work is compiled code and numpy, which let other threads
    run, and each item's result is its own (the same whatever the order).
    A generator, in the items' order."""
    items = list(items)
    workers = min(len(items), cores()) if threads else 1
    if workers <= 1:
        yield from map(function, items)
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(function, items)


def in_background(function, *arguments):
    """``function(*arguments)`` started in a thread of its own: a future, whose
    ``result()`` waits for it (and raises what it raised). For work that reads
    what the caller does not change, run beside the caller's own threads; done
    here and now where lexeval may use one processor (--jobs 1: no thread)."""
    from concurrent.futures import Future, ThreadPoolExecutor
    if cores() <= 1:
        done: Future = Future()
        try:
            done.set_result(function(*arguments))
        except Exception as error:              # raised where the result is asked for, as a thread's would be
            done.set_exception(error)
        return done
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(function, *arguments)
    finally:
        pool.shutdown(wait=False)           # the thread ends with the work


def in_parts(work, count: int, parts: int, least: int = _PART_LEAST) -> list:
    """``work(start, stop)`` over ``parts`` contiguous ranges of ``count``
    items, a thread each (see :func:`in_threads`), and what each part
    returned: one measure's pairs on every core where the measures are
    fewer than the cores; one part where the items are fewer than twice
    ``least``. Each item's result is its own: the same whatever the split."""
    parts = min(parts, count) if count >= 2 * least else 1
    bounds = np.linspace(0, count, max(parts, 1) + 1).astype(np.int64).tolist()
    return list(in_threads(lambda k: work(bounds[k], bounds[k + 1]), range(len(bounds) - 1)))


def pair_moments(values: np.ndarray, pairs: np.ndarray, bits: int,
                 parts: int = 1) -> tuple[np.ndarray, np.ndarray] | None:
    """(mean, spread), (P,) each: for each pair (a, b) of ``pairs`` (P, 2),
    the mean and sample standard deviation of ``values[a] - values[b]`` (R,
    Q, finite) on the grid of 2**-bits, from exact sums; None where the
    kernel does not apply (a difference on the grid would leave int64).
    ``parts``: threads to share the pairs (see :func:`in_parts`)."""
    runs, queries = values.shape
    if not enabled() or not queries or queries >= _MOST_QUERIES or not len(pairs):
        return None
    scaled = values * float(2.0 ** bits)           # a power of 2: exact
    low, high = float(scaled.min()), float(scaled.max())
    if not (high - low < 2.0 ** 63 and low > -2.0 ** 63 and high < 2.0 ** 63):   # NaN fails too
        return None
    grid = np.ascontiguousarray(np.rint(scaled).astype(np.int64))
    mean, spread = np.empty(len(pairs)), np.empty(len(pairs))
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    in_parts(lambda start, stop: _exact.pair_moments(grid, queries, pairs[start:stop], bits, mean[start:stop],
                                                     spread[start:stop]), len(pairs), parts)
    return mean, spread


def row_moments(values: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(first, second): carried limbs (P, 7) and (P, 10) of the exact sums
    over each row of ``values`` (P, Q, finite) on the grid of 2**-bits and
    of their squares; None where the kernel does not apply (a value on the
    grid beyond 2**62)."""
    rows, queries = values.shape
    if not enabled() or not rows:
        return None
    scaled = values * float(2.0 ** bits)           # a power of 2: exact
    if scaled.size and not float(np.abs(scaled).max()) <= 2.0 ** 62:        # NaN fails too
        return None
    grid = np.ascontiguousarray(np.rint(scaled).astype(np.int64))
    first, second = np.empty((rows, FIRST_LIMBS), dtype=np.int64), np.empty((rows, SECOND_LIMBS), dtype=np.int64)
    _exact.row_moments(grid, queries, first, second)
    return first, second


def _fits(limbs: np.ndarray, width: int) -> bool:
    """Whether every limb is below 2**21 in size (carried, or widened after
    carrying: a sum of blocks) and there are at most ``width``: the number
    is then below 2**(21 width + 1)."""
    return limbs.shape[-1] <= width and (not limbs.size or int(np.abs(limbs).max()) < 1 << LIMB_BITS)


def limb_moments(first: np.ndarray, second: np.ndarray, counts: np.ndarray,
                 bits: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(mean, spread) from exact moments: carried limbs (P, K) of the sums
    of the differences (units of 2**-bits) and of their squares
    (2**-2 bits), and the counts (P,); None where the kernel does not apply
    (sums beyond 2**106 and 2**190, or too many queries)."""
    if not enabled() or not len(counts) or int(counts.max()) >= _MOST_QUERIES or int(counts.min()) < 0 \
            or not _fits(first, 5) or not _fits(second, 9):
        return None
    first, second = (np.ascontiguousarray(limbs, dtype=np.int64) for limbs in (first, second))
    mean, spread = np.empty(len(counts)), np.empty(len(counts))
    _exact.limb_moments(first, first.shape[1], second, second.shape[1],
                        np.ascontiguousarray(counts, dtype=np.int64), bits, mean, spread)
    return mean, spread


def continued_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """The values of :func:`lexeval.stats.distributions._continued_fraction`,
    or None where the kernel is not there."""
    if not enabled():
        return None
    a, b, x = (np.ascontiguousarray(v, dtype=np.float64) for v in (a, b, x))
    out = np.empty(len(x))
    _exact.continued_fraction(a, b, x, out)
    return out


def lex_decide(lex: tuple, first: np.ndarray, second: np.ndarray,
               counts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The values of :meth:`lexeval.preferences.Lex.levels`: (sign, level),
    (k, Q) each (float64, int64), for runs ``first`` and ``second`` (k,);
    ``lex``: (rank, position) (R, Q) and ``table`` (levels, Q, R - 1) the
    range-minimum levels; ``counts`` (R, Q) the relevant retrieved, for LR
    (None for LP). None where the kernel is not there."""
    rank, position, table = lex
    if not enabled() or not rank.shape[1] or table.shape[2] == 0:
        return None
    levels, queries = table.shape[0], rank.shape[1]
    sign = np.empty((len(first), queries))
    level = np.empty((len(first), queries), dtype=np.int64)
    contiguous = [np.ascontiguousarray(v, dtype=np.int64) for v in (rank, position, table, first, second)]
    recall = np.zeros(0, dtype=np.int64) if counts is None else np.ascontiguousarray(counts, dtype=np.int64)
    _exact.lex_decide(*contiguous[:3], levels, queries, *contiguous[3:], recall, sign, level)
    return sign, level


def lex_moments(tables: tuple, by_query: tuple, pairs: tuple, recall: bool, signs: tuple[np.ndarray, np.ndarray],
                reciprocal: tuple | None) -> tuple | None:
    """:func:`lex_decide` (and with ``reciprocal``
    :func:`reciprocal_difference`) summed over the queries for ``pairs``:
    runs ``first`` and ``second`` (k,), into row ``slot`` (k,) of the
    outputs: ``signs`` (wins, losses) (n,) of LP or (``recall``) LR, and ``reciprocal`` None or (first limbs (n, 7),
    second limbs (n, 10), least, greatest, wins, losses, mean, deviation
    (n,)) of rrLP's or rrLR's values: what
    :meth:`lexeval.stats.moments.Moments.of` makes of the (k, Q) matrices,
    with the mean and deviation of :func:`limb_moments`. ``tables``: the
    runs' ranks and positions (Q, R), a query's runs together, and the
    range-minimum table (see :attr:`lexeval.preferences.Lex.tables`);
    ``by_query`` the relevant ranks' reciprocals, their starts and counts
    (Q, R) with one query's runs together; the kernel reads both a query at
    a time. Returns ``signs``; None where the kernel is not there."""
    rank_by_query, position_by_query, table = tables
    first, second, slot = pairs
    queries = rank_by_query.shape[0]
    if not enabled() or not queries or table.shape[2] == 0:
        return None
    empty = (np.empty((0, FIRST_LIMBS), dtype=np.int64), np.empty((0, SECOND_LIMBS), dtype=np.int64), np.empty(0),
             np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    reciprocal_ranks, starts, retrieved = by_query
    arrays = [np.ascontiguousarray(v, dtype=np.int64) for v in
              (rank_by_query, position_by_query, table, first, second, slot,
               np.zeros(0) if not recall else retrieved)]
    _exact.lex_moments(*arrays[:3], table.shape[0], queries, *arrays[3:],
                       np.ascontiguousarray(reciprocal_ranks, dtype=np.float64),
                       *(np.ascontiguousarray(v, dtype=np.int64) for v in (starts, retrieved)),
                       reciprocal is not None, *signs, *(empty if reciprocal is None else reciprocal))
    return signs


def lex_order(relevant: tuple, shape: tuple[int, int], recall: bool,
              no_split: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The arrays of :func:`lexeval.preferences.lexicographic_order` for LP's
    sequences (``recall`` False) or LR's (True, see
    :func:`lexeval.preferences.lexirecall_sequences`) of the relevant ranks
    ``relevant`` (rank (K,), starts and retrieved (S,)) of ``shape`` (runs,
    queries), grouped by query: (order, rank, split), (R * Q,) each, ties in
    run order; a stable merge sort per query, the queries shared between the
    cores. None where the kernel is not there."""
    runs, queries = shape
    if not enabled() or not queries or not runs:
        return None
    arrays = [np.ascontiguousarray(v, dtype=np.int64) for v in relevant]
    order, rank, split = (np.empty(runs * queries, dtype=np.int64) for _ in range(3))
    in_parts(lambda start, stop: _exact.lex_order(*arrays, runs, queries, start, stop, recall, no_split, order, rank,
                                                  split), queries, cores() if runs * queries >= _PART_LEAST else 1, 1)
    return order, rank, split


def lex_signs(rank: np.ndarray, pairs: tuple, signs: tuple[np.ndarray, np.ndarray]) -> tuple | None:
    """LP's or LR's (wins, losses) ``signs`` of :func:`lex_moments` without
    rrLP or rrLR: for ``pairs`` (first, second, slot) (k,) each, the queries
    where run ``first`` ranks better than run ``second`` in the dense ranks
    ``rank`` (R, Q, int32), and worse, into rows ``slot``; a pair's two rows
    of ranks side by side, no levels. Returns ``signs``; None where the
    kernel is not there."""
    runs, queries = rank.shape
    if not enabled() or not queries:
        return None
    if runs >= 1 << 31 or queries >= _MOST_QUERIES:       # ranks and counts in int32
        return None
    arrays = [np.ascontiguousarray(v, dtype=np.int64) for v in pairs]
    _exact.lex_signs(rank, queries, *arrays, *signs)
    return signs


def reciprocal_difference(relevant: tuple, queries: int, first: np.ndarray, second: np.ndarray,
                          level: np.ndarray) -> np.ndarray | None:
    """(k, Q) rrLP's or rrLR's values: 1 / p_level of run ``first`` less
    that of run ``second`` (k,) per query, 0 where ``level`` (k, Q) is 0,
    from the relevant ranks ``relevant`` (rank (K,), starts and retrieved
    (S,)); None where the kernel is not there."""
    if not enabled() or not queries:
        return None
    out = np.empty((len(first), queries))
    arrays = [np.ascontiguousarray(v, dtype=np.int64) for v in (*relevant, first, second, level)]
    _exact.reciprocal_difference(*arrays[:3], queries, *arrays[3:], out)
    return out


_SCRATCH = threading.local()
_SCRATCH_LARGEST = 1 << 21          # values per buffer kept for the thread's next call (16 MB of floats)


def precision_bounds(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray, num_rel: np.ndarray, level: int,
                     cutoff: float, fraction: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(least, greatest), (S,) each: per segment the bounds over the
    unjudged documents' grades (codes < 0) of AP counted to ``cutoff``
    (``fraction`` NaN), Rprec's (``fraction`` < 0) or Rprec_mult.fraction's
    precision; ``level`` >= 1 and some grade reaches it. The sweeps of
    :mod:`lexeval.bounds.sweeps` with the kernels' arithmetic, a thread
    per part of the segments; None where the kernel is not built."""
    if not enabled():
        return None
    segments = len(starts)
    low, high = np.empty(segments), np.empty(segments)
    codes = np.ascontiguousarray(codes, dtype=np.int16)
    starts, lengths, num_rel = (np.ascontiguousarray(a, dtype=np.int64) for a in (starts, lengths, num_rel))
    in_parts(lambda start, stop: _exact.precision_bounds(codes, starts[start:stop], lengths[start:stop],
                                                         num_rel[start:stop], int(level), float(cutoff),
                                                         float(fraction), low[start:stop], high[start:stop]),
             segments, cores(), least=256)
    return low, high


def bpref_sums(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray, level: int, num_rel: np.ndarray,
               num_judged_nonrel: np.ndarray) -> np.ndarray | None:
    """(S,) each segment's sum of bpref's scores of its relevant documents
    (see :func:`lexeval.measures.incomplete.bpref`, the reference: the same
    additions in the same order), in one pass over the documents; None
    where the kernel is not built."""
    if not enabled():
        return None
    sums = np.empty(len(starts))
    _exact.bpref_sums(np.ascontiguousarray(codes, dtype=np.int16),
                      *(np.ascontiguousarray(a, dtype=np.int64) for a in (starts, lengths)), int(level),
                      *(np.ascontiguousarray(a, dtype=np.int64) for a in (num_rel, num_judged_nonrel)), sums)
    return sums


def relevant_within(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray, level: int,
                    depth: int | None) -> np.ndarray | None:
    """(S,) int64: each segment's relevant documents (code >= ``level``) at
    rank <= ``depth``, or (``depth`` None) its first relevant rank (0 if
    none), reading only that far down each ranking; None where the kernel
    is not built."""
    if not enabled():
        return None
    counts = np.empty(len(starts), dtype=np.int64)
    _exact.relevant_within(np.ascontiguousarray(codes, dtype=np.int16),
                           *(np.ascontiguousarray(a, dtype=np.int64) for a in (starts, lengths)), int(level),
                           -1 if depth is None else int(min(depth, 2 ** 62)), counts)
    return counts


def uniform_codes(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                  grade: int) -> tuple[np.ndarray, np.ndarray] | None:
    """((N,) int16, (S,) int64): the codes with every unjudged document's
    (code < 0) judged ``grade``, and how many each segment has, in one pass
    on every core; None where the kernel is not built. Documents outside
    every segment keep their codes."""
    if not enabled():
        return None
    codes = np.ascontiguousarray(codes, dtype=np.int16)
    starts, lengths = np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64)
    out = np.empty_like(codes) if lengths.sum() == len(codes) else codes.copy()   # segments end to end: all written
    counts = np.empty(len(starts), dtype=np.int64)
    in_parts(lambda start, stop: _exact.uniform_codes(codes, starts[start:stop], lengths[start:stop], int(grade),
                                                      out, counts[start:stop]), len(starts), cores(), least=1 << 10)
    return out, counts


def scratch(name: str, size: int, dtype=np.float64) -> np.ndarray:
    """A buffer ``name`` of ``size`` values for this call only, kept per
    thread for the thread's next call (filling fresh memory costs more than
    the arithmetic: a thousand runs' t-tests would otherwise touch a
    gigabyte of fresh pages, a fault per 4 kB); past ``_SCRATCH_LARGEST``, a
    new one."""
    if size > _SCRATCH_LARGEST:
        return np.empty(size, dtype=dtype)
    buffers = _SCRATCH.__dict__.setdefault("buffers", {})
    buffer = buffers.get(name)
    if buffer is None or len(buffer) < size or buffer.dtype != dtype:
        buffer = buffers[name] = np.empty(max(size, 1024), dtype=dtype)
    return buffer[:size]


def t_test_p(mean: np.ndarray, spread: np.ndarray, count: np.ndarray, log_beta, parts: int = 1) -> np.ndarray | None:
    """(P,) :func:`lexeval.stats.conclusions.t_test`'s two-sided p from each
    pair's mean, sample deviation and count, the same floats: the kernel
    does the arithmetic, numpy the logarithms and the exponential (whose
    last bits are numpy's own), ``log_beta(a, b)`` log B elementwise.
    None where the kernel is not there. ``parts``: threads to share the
    pairs (see :func:`in_parts`)."""
    if not enabled():
        return None
    p = np.empty(len(mean))
    in_parts(lambda start, stop: _t_test_p_into(mean[start:stop], spread[start:stop], count[start:stop], log_beta,
                                                p[start:stop]), len(mean), parts)
    return p


_T_CHUNK = 1 << 14        # pairs a thread's t-test takes at once: its buffers stay small (and in cache) at any count


def _t_test_p_into(mean: np.ndarray, spread: np.ndarray, count: np.ndarray, log_beta, p: np.ndarray) -> None:
    """:func:`t_test_p` into ``p``, with this thread's scratch buffers, a
    chunk of pairs at a time (so that memory does not grow with the
    threads: each holds a chunk's buffers, not a measure's)."""
    for start in range(0, len(mean), _T_CHUNK):
        chunk = slice(start, start + _T_CHUNK)
        _t_test_chunk(mean[chunk], spread[chunk], count[chunk] if isinstance(count, np.ndarray) else count,
                      log_beta, p[chunk])


def _t_test_chunk(mean: np.ndarray, spread: np.ndarray, count: np.ndarray, log_beta, p: np.ndarray) -> None:
    pairs = len(mean)
    index, flip = scratch("index", pairs, np.int64), scratch("flip", pairs, np.uint8)
    a, b, x = scratch("a", pairs, np.float64), scratch("b", pairs, np.float64), scratch("x", pairs, np.float64)
    counts = count
    if not (isinstance(count, np.ndarray) and count.dtype == np.int64 and count.flags.c_contiguous):
        counts = scratch("count", pairs, np.int64)        # a pair moments' one count, seen as an array
        np.copyto(counts, count)
    inside = _exact.t_prepare(*(np.ascontiguousarray(v, dtype=np.float64) for v in (mean, spread)), counts, p,
                              index, a, b, x, flip)
    a, b, x = a[:inside], b[:inside], x[:inside]
    # exp(a log x + b log1p(-x) - log B(a, b)), the same operations in place: no temporary per step
    front, tail = np.log(x, out=scratch("front", inside, np.float64)), \
        np.negative(x, out=scratch("tail", inside, np.float64))
    front *= a
    np.log1p(tail, out=tail)
    tail *= b
    front += tail
    if inside and counts.min() == counts.max():     # one count: (a, b) is (df / 2, 1 / 2) either way round
        front -= log_beta(a[:1], b[:1])[0]
    else:
        front -= log_beta(a, b)
    np.exp(front, out=front)
    _exact.t_finish(a, b, x, front, flip[:inside], index[:inside], p)


def lex_run_totals(sorted_: tuple, relevant: tuple, shape: tuple[int, int], reciprocal: bool,
                   no_split: int) -> np.ndarray | None:
    """(R, Q) each run's per-query sum of LP or LR (``reciprocal`` False:
    counts) or rrLP (True: on the 2**-40 grid) over every other run, from
    the sorted sequences ``sorted_``: (order (Q, R): segments, best first;
    split (Q, R): their neighbours' first differing elements), and the
    relevant ranks ``relevant`` (rank, starts, retrieved) of ``shape``
    (runs, queries); None where the kernel is not there."""
    runs, queries = shape
    if not enabled() or not queries or not runs:
        return None
    totals = np.empty((runs, queries))
    arrays = [np.ascontiguousarray(v, dtype=np.int64) for v in (*sorted_, *relevant)]
    _exact.lex_run_totals(*arrays, runs, queries, reciprocal, no_split, totals)
    return totals
