"""The exact moments of pairs' per-query differences, from which every
paired test is concluded (see :mod:`lexeval.stats.totals`).

A value is placed on the grid of 2**-62 once (:func:`grid_limbs`: its
integer in units of 2**-62, as 21-bit limbs held in floats); from then on
everything is integer arithmetic, so any split of the queries adds up to the
same moments. A pair's first moment is the sum of its differences, the
second the sum of their squares, both exact.

Pairs of runs need no per-pair pass over the queries
(:meth:`Moments.of_pairs`): the sum of A - B is the difference of the runs'
sums, and the sum of (A - B)**2 is S2(A) + S2(B) - 2 sum_q A B, whose cross
term for every pair at once is one matrix product per pair of limbs (runs x
queries times its transpose; exact in float64, since products of limbs are
below 2**42 and at most 2**10 of them are added before the result is an
integer again). Where the compiled kernel is built (:mod:`lexeval.compiled`)
each pair's sums come instead from one pass over its queries in 64-bit
lanes and 192-bit integers, and its mean and deviation straight from them: the same
integers, the same floats, kept as two floats per pair rather than limbs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .. import compiled
from . import limbs as lb
from .sums import GRID_BITS, Sums

_PRODUCT_QUERIES = 1 << 10       # queries per float product: 2**10 x 2 x 2**42 = 2**53, still exact
_BLOCK_CELLS = 1 << 21           # pairs x queries of differences made at once


def grid_limbs(values: np.ndarray, bound: float) -> np.ndarray:
    """(k, *values.shape) the limbs, lowest first, of each value's integer
    in units of 2**-62 (rounded half to even), as floats in [-2**20, 2**20];
    ``bound``: the largest absolute value (finite)."""
    exponent = math.frexp(bound)[1] if bound > 0 else 0
    count = 3 + max(0, -(-exponent // lb.LIMB_BITS))
    scaled = values * float(2.0 ** (GRID_BITS - lb.LIMB_BITS * (count - 1)))   # a power of 2: exact
    out = np.empty((count,) + values.shape)
    for k in range(count - 1, -1, -1):
        np.rint(scaled, out=out[k])
        if k:   # the rest of a float less its nearest integer is exact, and so is its scaling by 2**21
            scaled = (scaled - out[k]) * float(1 << lb.LIMB_BITS)
    return out


def _shifted(counts: np.ndarray, bits: int) -> np.ndarray:
    """(P, K) carried limbs of ``counts * 2**bits`` (int64 counts)."""
    place, shift = divmod(bits, lb.LIMB_BITS)
    counts = counts.astype(np.int64)
    if len(counts) and int(np.abs(counts).max()) >= 1 << 40:        # beyond three limbs: the general carry
        out = np.zeros((len(counts), place + 1), dtype=np.int64)
        out[:, place] = counts << shift
        return lb.trim(lb.carry(out))
    # count 2**shift, below 2**61 in size: its three limbs directly, the top one keeping the sign
    moved = counts << shift
    out = np.zeros((len(counts), place + 3), dtype=np.int64)
    out[:, place] = moved & lb.MASK
    out[:, place + 1] = (moved >> lb.LIMB_BITS) & lb.MASK
    out[:, place + 2] = moved >> (2 * lb.LIMB_BITS)
    return lb.trim(out)


def _sums_of(limbs: np.ndarray) -> np.ndarray:
    """(rows, k) the exact sums over the last axis of (k, rows, n) limbs, as
    uncarried integer limbs."""
    out = np.zeros((limbs.shape[1], len(limbs)), dtype=np.int64)
    for start in range(0, limbs.shape[2], 1 << 30):
        out += limbs[:, :, start:start + (1 << 30)].sum(axis=2).T.astype(np.int64)
    return out


def _limb_products(limbs: np.ndarray, product, mirrored) -> np.ndarray:
    """Uncarried limbs (..., 2k - 1) of the exact sums over queries of
    products of the numbers whose limbs are (k, rows, Q): ``product(x, y)``
    multiplies two (rows, q) limb arrays and sums over the queries (exact:
    at most 2**10 products of limbs below 2**21 are summed in floats), and
    ``mirrored(p)`` is the product of the limbs taken the other way round."""
    count, _, queries = limbs.shape
    out: Any = None
    for start in range(0, max(queries, 1), _PRODUCT_QUERIES):        # no queries: one empty part, sums 0
        part = limbs[:, :, start:start + _PRODUCT_QUERIES]
        for i in range(count):
            for j in range(i, count):
                done = product(part[i], part[j])
                done = (done if i == j else done + mirrored(done)).astype(np.int64)
                if out is None:
                    out = np.zeros(done.shape + (2 * count - 1,), dtype=np.int64)
                out[..., i + j] += done
        if start // _PRODUCT_QUERIES % 64 == 63:         # int64 coefficients stay far from overflow
            out = lb.carry(out, out.shape[-1])
    return out


def _row_squares(limbs: np.ndarray) -> np.ndarray:
    """(rows, 2k - 1) the sums of squares over the last axis of the numbers
    whose limbs are (k, rows, n) (|limb| <= 2**21), uncarried."""
    return _limb_products(limbs, lambda x, y: np.einsum("rq,rq->r", x, y), lambda done: done)


def _cross(limbs: np.ndarray) -> np.ndarray:
    """(R, R, 2k - 1) uncarried limbs of sum_q x_a x_b for every two rows
    of the numbers whose limbs are (k, R, Q) (|limb| <= 2**20)."""
    return _limb_products(limbs, lambda x, y: x @ y.T, lambda done: done.T)


@dataclass
class Moments:
    """Per pair (P,): exact sums of the differences (units of 2**-62) and of
    their squares (2**-124), and the queries counted. Where asked for
    (``signs``): the smallest and largest difference, wins (> 0), losses
    (< 0) and ties; else None.

    Pairs of runs whose means and deviations the compiled kernel made
    (:meth:`of_pairs`) keep the runs' values instead of the sums (``_runs``)
    and make the sums only when asked (adding partitions, --hsd): at a
    thousand runs the sums of every pair would take gigabytes. Signs
    (:meth:`of_signs`) keep their counts and make the sums the same way."""

    _first: Sums | None
    _second: Sums | None
    queries: np.ndarray
    # each (P,) where the kind of moments has them, else None (typed Any: which kind is known where used)
    low: Any = None
    high: Any = None
    wins: Any = None
    losses: Any = None
    ties: Any = None
    _mean: Any = field(default=None, repr=False, compare=False)         # (P,), made once, when asked
    _spread: Any = field(default=None, repr=False, compare=False)
    _runs: Any = field(default=None, repr=False, compare=False)         # (values, pairs) or None
    t_p: np.ndarray | None = field(default=None, repr=False, compare=False)     # the t-test's p, once made

    @property
    def first(self) -> Sums:
        if self._first is None:
            self._make_sums()
        return cast(Sums, self._first)

    @property
    def second(self) -> Sums:
        if self._second is None:
            self._make_sums()
        return cast(Sums, self._second)

    def __getstate__(self) -> dict:
        """Pickled (a cluster's partition sends its totals back): the sums,
        not the runs' values."""
        if self._first is None:
            self._make_sums()
        return {**self.__dict__, "_runs": None}

    def _make_sums(self) -> None:
        if self._runs is None:          # counts of -1, 0 and 1 (of_signs): wins - losses and wins + losses
            self._first = Sums(_shifted(self.wins - self.losses, GRID_BITS), np.zeros(len(self.wins)))
            self._second = Sums(_shifted(self.wins + self.losses, 2 * GRID_BITS), np.zeros(len(self.wins)),
                                2 * GRID_BITS)
            return
        values, pairs = self._runs
        made = Moments._numpy_pairs(values, pairs, np.isfinite(values), False)
        self._first, self._second = made._first, made._second

    @classmethod
    def of(cls, differences: np.ndarray, signs: bool = True, unit: bool = False) -> Moments:
        """Moments of the rows of ``differences`` (P, Q); ``unit``: each is
        -1, 0 or 1 (LP, LR), so the sums are wins - losses and wins + losses."""
        differences = np.asarray(differences, dtype=np.float64)
        if unit:
            return cls.of_signs((differences > 0).sum(axis=1), (differences < 0).sum(axis=1), differences.shape[1])
        finite = np.isfinite(differences)
        made = compiled.row_moments(differences, GRID_BITS) if finite.all() else None
        if made is not None:
            pairs = len(differences)
            moments = cls(Sums(lb.trim(made[0]), np.zeros(pairs)),
                          Sums(lb.trim(made[1]), np.zeros(pairs), 2 * GRID_BITS),
                          np.full(pairs, differences.shape[1], dtype=np.int64))
        elif finite.all():
            bound = float(np.abs(differences).max()) if differences.size else 0.0
            moments = cls._of_limbs(grid_limbs(differences, bound))
        else:
            kept = np.where(finite, differences, 0.0)
            moments = cls._of_limbs(grid_limbs(kept, float(np.abs(kept).max())), differences)
        return moments._with_signs(differences) if signs else moments

    @classmethod
    def of_signs(cls, wins: np.ndarray, losses: np.ndarray, queries: int) -> Moments:
        """:meth:`of` ``unit`` from the counts alone: each row's ``wins``
        (+1) and ``losses`` (-1) (P,) among ``queries``, the rest 0. The
        sums' limbs are made when asked (a cluster adds them); the mean and
        deviation of such small integers directly: n S2 - S1**2 and S1 stay
        below 2**53, so one float division rounds each correctly, as the
        sums' quotients do."""
        pairs = len(wins)
        ties = queries - wins - losses
        first, second = (wins - losses).astype(np.float64), (wins + losses).astype(np.float64)
        spread = np.sqrt(np.maximum(queries * second - first * first, 0.0) / (queries * (queries - 1))) \
            if queries >= 2 else np.zeros(pairs)
        small = queries < 1 << 26
        return cls(None, None, np.full(pairs, queries, np.int64),
                   np.where(losses > 0, -1.0, np.where(ties > 0, 0.0, 1.0)) if queries else np.full(pairs, np.inf),
                   np.where(wins > 0, 1.0, np.where(ties > 0, 0.0, -1.0)) if queries else np.full(pairs, -np.inf),
                   wins, losses, ties, _mean=first / max(queries, 1) if small else None,
                   _spread=spread if small else None)

    @classmethod
    def of_limbs(cls, sums: tuple, queries: int) -> Moments:
        """:meth:`of` from what the compiled kernel summed over ``queries``
        (> 0) finite values per row, ``sums``: carried limbs of the sums on
        the grid and of their squares, (P, K) each, the least and greatest
        value, wins (> 0) and losses (< 0), and where it made them the mean
        and deviation of those sums (else None: made from the limbs when
        asked)."""
        first, second, low, high, wins, losses, *made = sums
        mean, spread = (made + [None, None])[:2]
        pairs = len(first)
        return cls(Sums(lb.trim(first), np.zeros(pairs)), Sums(lb.trim(second), np.zeros(pairs), 2 * GRID_BITS),
                   np.full(pairs, queries, dtype=np.int64), low, high, wins, losses, queries - wins - losses,
                   _mean=mean, _spread=spread)

    @classmethod
    def of_pairs(cls, values: np.ndarray, pairs: np.ndarray, signs: bool = False, parts: int = 1) -> Moments:
        """Moments of ``values[a] - values[b]`` (R, Q) for each pair (a, b)
        of ``pairs`` (P, 2); the sums are those of the differences of the
        values on the grid. ``parts``: threads to share the kernel's pairs."""
        values = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(values)
        if not signs and finite.all():
            made = compiled.pair_moments(values, pairs, GRID_BITS, parts)
            if made is not None:
                # every pair counts every query: one count, seen as a (P,) array (no memory per pair)
                return cls(None, None, np.broadcast_to(np.int64(values.shape[1]), (len(pairs),)),
                           _mean=made[0], _spread=made[1], _runs=(values, pairs))
        return cls._numpy_pairs(values, pairs, finite, signs)

    @classmethod
    def _numpy_pairs(cls, values: np.ndarray, pairs: np.ndarray, finite: np.ndarray, signs: bool) -> Moments:
        """:meth:`of_pairs` in numpy: the exact sums, from the runs' sums and cross products."""
        bound = float(np.abs(np.where(finite, values, 0.0)).max()) if values.size else 0.0
        limbs = grid_limbs(np.where(finite, values, 0.0), bound)
        first, second = pairs[:, 0], pairs[:, 1]
        whole = None
        if finite.all():
            totals, cross = _sums_of(limbs), _cross(limbs)
            squares = cross[np.arange(len(values)), np.arange(len(values))]
            whole = cls(Sums(lb.trim(lb.carry(totals[first] - totals[second])), np.zeros(len(pairs))),
                        Sums(lb.trim(lb.carry(squares[first] + squares[second] - 2 * cross[first, second])),
                             np.zeros(len(pairs)), 2 * GRID_BITS),
                        np.full(len(pairs), values.shape[1], dtype=np.int64))
            if not signs:
                return whole
        parts = []
        step = max(1, _BLOCK_CELLS // max(values.shape[1] * len(limbs) // 3, 1))
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            differences = values[block[:, 0]] - values[block[:, 1]]
            if whole is not None:
                part = whole.take(np.arange(start, start + len(block)))
            else:   # the differences of the limbs are exact (integers to 2**21); non-finite ones are kept aside
                kept = np.isfinite(differences)
                part = cls._of_limbs((limbs[:, block[:, 0]] - limbs[:, block[:, 1]]) * kept, differences)
            parts.append(part._with_signs(differences) if signs else part)
        return cls.stack(parts) if parts else cls.of(np.zeros((0, values.shape[1])), signs)

    @classmethod
    def _of_limbs(cls, limbs: np.ndarray, raw: np.ndarray | None = None) -> Moments:
        """Moments from the limbs (k, P, Q) of the finite differences; the
        non-finite ones of ``raw`` (P, Q) (None: none) are summed aside, and
        NaN ones are not counted."""
        pairs, queries = limbs.shape[1], limbs.shape[2]
        counted = np.full(pairs, queries, dtype=np.int64)
        aside = np.zeros(pairs)
        if raw is not None:
            with np.errstate(invalid="ignore"):             # inf - inf: NaN, as the sum is
                aside = np.where(np.isfinite(raw), 0.0, raw).sum(axis=1)
            counted -= np.isnan(raw).sum(axis=1)
        return cls(Sums(lb.trim(lb.carry(_sums_of(limbs))), aside),
                   Sums(lb.trim(lb.carry(_row_squares(limbs))), np.zeros(pairs), 2 * GRID_BITS), counted)

    def _with_signs(self, differences: np.ndarray) -> Moments:
        """These moments with the signs of ``differences`` (P, Q)."""
        pairs, count = differences.shape
        if not count or not pairs:
            empty = np.zeros(pairs, dtype=np.int64)
            self.low, self.high = np.full(pairs, np.inf), np.full(pairs, -np.inf)
            self.wins, self.losses, self.ties = empty, empty, empty
            return self
        self.low, self.high = differences.min(axis=1), differences.max(axis=1)
        self.wins, self.losses = (differences > 0).sum(axis=1), (differences < 0).sum(axis=1)
        self.ties = (differences == 0).sum(axis=1) if np.isnan(self.low).any() else count - self.wins - self.losses
        return self

    @classmethod
    def stack(cls, parts: list[Moments]) -> Moments:
        """Moments of consecutive blocks of pairs, as one."""
        signed = parts[0].wins is not None
        return cls(Sums.concatenate([p.first for p in parts]), Sums.concatenate([p.second for p in parts]),
                   np.concatenate([p.queries for p in parts]),
                   *((np.concatenate([getattr(p, name) for p in parts]) if signed else None)
                     for name in ("low", "high", "wins", "losses", "ties")))

    def take(self, order: np.ndarray) -> Moments:
        """The moments of pairs in ``order``."""
        if self._first is None and self._runs is None:         # of_signs' counts
            return Moments.of_signs(self.wins[order], self.losses[order], int(self.queries[0])) \
                if len(self.queries) else Moments.of_signs(self.wins[order], self.losses[order], 0)
        if self._first is None:
            values, pairs = self._runs
            return Moments(None, None, self.queries[order], _mean=self._mean[order], _spread=self._spread[order],
                           _runs=(values, pairs[order]))
        return Moments(self.first.take(order), self.second.take(order), self.queries[order],
                       *(None if self.wins is None else getattr(self, name)[order]
                         for name in ("low", "high", "wins", "losses", "ties")))

    def flipped(self, swap: np.ndarray) -> Moments:
        """The moments with the two runs of the pairs where ``swap`` (P,)
        bool is set swapped: their differences negated (the same integers,
        so the same floats, with the sign changed)."""
        if not swap.any():
            return self
        sign = np.where(swap, -1, 1)
        if self._first is None and self._runs is None:         # of_signs' counts
            return Moments.of_signs(np.where(swap, self.losses, self.wins), np.where(swap, self.wins, self.losses),
                                    int(self.queries[0]) if len(self.queries) else 0)
        if self._first is None:
            values, pairs = self._runs
            return Moments(None, None, self.queries, _mean=self._mean * sign + 0.0, _spread=self._spread,
                           _runs=(values, np.where(swap[:, None], pairs[:, ::-1], pairs)), t_p=self.t_p)
        first = Sums(lb.trim(lb.carry(self.first.limbs.astype(np.int64) * sign[:, None])),
                     self.first.special * sign, self.first.bits)
        signed = self.wins is not None
        return Moments(first, self.second, self.queries,
                       np.where(swap, -self.high, self.low) if signed else None,
                       np.where(swap, -self.low, self.high) if signed else None,
                       np.where(swap, self.losses, self.wins) if signed else None,
                       np.where(swap, self.wins, self.losses) if signed else None, self.ties,
                       _mean=None if self._mean is None else self._mean * sign + 0.0, _spread=self._spread,
                       t_p=self.t_p)

    def __add__(self, other: Moments) -> Moments:
        signed = self.wins is not None and other.wins is not None
        return Moments(self.first + other.first, self.second + other.second, self.queries + other.queries,
                       np.minimum(self.low, other.low) if signed else None,
                       np.maximum(self.high, other.high) if signed else None,
                       *((getattr(self, name) + getattr(other, name)) if signed else None
                         for name in ("wins", "losses", "ties")))

    def count(self) -> np.ndarray:
        return self.queries

    def mean(self) -> np.ndarray:
        """(P,) the mean difference, correctly rounded."""
        if self._mean is None and not self._compiled():
            self._mean = self.first.divided(self.queries)
        return self._mean

    def _compiled(self) -> bool:
        """The mean and deviation from the compiled kernel, where it applies."""
        n = self.queries
        made = compiled.limb_moments(self.first.limbs, self.second.limbs, n, self.first.bits) \
            if self.second.bits == 2 * self.first.bits else None
        if made is None:
            return False
        self._mean = np.where(n > 0, made[0] + self.first.special, 0.0)
        self._spread = made[1]
        return True

    def spread(self) -> np.ndarray:
        """(P,) sample standard deviation (0 when every difference is equal
        or there are fewer than two), from the exact sums: n (n - 1) s^2 =
        n S2 - S1^2, in integers, divided once (correctly rounded)."""
        if self._spread is not None or self._compiled():
            return self._spread
        n = self.queries
        if not len(n):
            return np.zeros(0)
        counts = lb.of_integers(n)
        numerator = lb.subtract(lb.multiply(counts, self.second.limbs),     # in units of 2**-124
                                lb.multiply(self.first.limbs, self.first.limbs))
        variance = lb.quotient(numerator, np.maximum(n * (n - 1), 1), 2 * GRID_BITS)
        self._spread = np.where((n >= 2) & (variance > 0), np.sqrt(np.maximum(variance, 0.0)), 0.0)
        return self._spread
