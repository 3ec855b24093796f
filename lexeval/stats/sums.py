"""Sums that do not depend on how the queries are split, and random draws
that do not either.

The tests, the pair means and the counts are functions of sums over
queries. Adding floats in a different order (one machine in one go, a
cluster partition by partition) changes the last bits, and a value on a
printed rounding edge would then print differently. So these sums are exact
on a fixed grid of 2**-62 (:func:`fixed_sums`): integer additions, which
any split of the queries adds up to the same integer. Values are placed on
the grid once, per query (an error below 2**-63, far under any printed
digit). (trec_eval's own means are added in trec_eval's order instead: see
:func:`lexeval.stats.totals.fold_in_order`.)

Random draws (randomization signs, bootstrap weights) come from a
counter-based generator keyed by (seed, query, draw) (:func:`uniform_bits`),
so a query draws the same numbers on one machine and on any worker.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np

from ..compiled import scratch
from ..constants import GRID_BITS
from . import limbs

_HIGH_BITS = 20          # a value is split at 2**-20: floor(x * 2**20) and the rest in 2**-62 units
_LOW_BITS = GRID_BITS - _HIGH_BITS
_CHUNK = 1 << 10         # columns per float sum: 2**10 integers below 2**42 add up exactly
_LARGE = 2.0 ** 22       # values this large are placed on the grid one by one, in Python


class Sums:
    """Exact sums of rows: row i is ``limbs[i]`` (see :mod:`.limbs`) in units
    of ``2**-bits`` plus ``special[i]`` (the sum of row i's infinite and NaN
    values, 0 if none). Added with ``+``."""

    __slots__ = ("limbs", "special", "bits")

    def __init__(self, limbs: np.ndarray, special: np.ndarray, bits: int = GRID_BITS):
        self.limbs, self.special, self.bits = limbs, special, bits

    @classmethod
    def zeros(cls, rows: int, bits: int = GRID_BITS) -> Sums:
        return cls(np.zeros((rows, 1), dtype=np.int64), np.zeros(rows), bits)

    @classmethod
    def concatenate(cls, parts: list[Sums]) -> Sums:
        """The rows of each part, one after another."""
        return cls(limbs.concatenate([part.limbs for part in parts]),
                   np.concatenate([part.special for part in parts]), parts[0].bits)

    def take(self, rows: np.ndarray) -> Sums:
        return Sums(self.limbs[rows], self.special[rows], self.bits)

    def __add__(self, other: Sums) -> Sums:
        if self.bits != other.bits:
            raise ValueError("sums on different grids")
        return Sums(limbs.add(self.limbs, other.limbs), self.special + other.special, self.bits)

    def __len__(self) -> int:
        return len(self.limbs)

    @property
    def units(self) -> list[int]:
        """The finite sums as Python integers, in units of ``2**-bits``."""
        return limbs.to_ints(self.limbs)

    def fractions(self) -> list[Fraction]:
        """The exact sums (their finite part)."""
        return [Fraction(units, 1 << self.bits) for units in self.units]

    def divided(self, counts) -> np.ndarray:
        """(rows,) each sum over its count, correctly rounded (0 where the
        count is 0)."""
        counts = np.broadcast_to(np.asarray(counts, dtype=np.int64), (len(self),))
        if not len(self):
            return np.zeros(0)
        out = limbs.quotient(self.limbs, np.maximum(counts, 1), self.bits)
        return np.where(counts > 0, out + self.special, 0.0)

    def totals(self) -> np.ndarray:
        """(rows,) the sums as floats, correctly rounded."""
        return self.divided(1)


def fixed_sums(values: np.ndarray, bound: float | None = None) -> Sums:
    """Exact row sums of ``values`` (rows, n) on the 2**-62 grid. ``bound``:
    the largest absolute value, when the caller knows it (NaN if any is)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values.reshape(1, -1)
    rows = values.shape[0]
    special, extra = np.zeros(rows), None
    if bound is None and values.size:
        bound = max(-values.min(), values.max())
    if values.size and not (bound is not None and bound < _LARGE):       # NaN, infinite or large values: rare
        finite = np.isfinite(values)
        special = np.where(finite, 0.0, values).sum(axis=1)
        values = np.where(finite, values, 0.0)
        large = np.abs(values) >= _LARGE
        extra = [sum((_on_grid(value) for value in values[row, large[row]].tolist()), 0) for row in range(rows)]
        values = np.where(large, 0.0, values)
    high_total, low_total = np.zeros(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)
    units = np.zeros((rows, 1), dtype=np.int64)
    for number, start in enumerate(range(0, values.shape[1], _CHUNK)):
        # high: a multiple of 2**-20 (|.| < 2**42 in those units), low: the rest in 2**-62 units (< 2**41);
        # both integers, so float sums of up to 2**10 of them are exact, in any order
        block = values[:, start:start + _CHUNK]
        scaled, high = _scratch(block.shape)
        np.multiply(block, float(1 << _HIGH_BITS), out=scaled)
        np.rint(scaled, out=high)
        np.subtract(scaled, high, out=scaled)
        np.multiply(scaled, float(1 << _LOW_BITS), out=scaled)
        np.rint(scaled, out=scaled)
        high_total += high.sum(axis=1).astype(np.int64)      # each chunk's sums are below 2**52
        low_total += scaled.sum(axis=1).astype(np.int64)
        if number % 1024 == 1023:                               # int64 totals stay below 2**62
            units = _add_units(units, high_total, low_total)
            high_total[:], low_total[:] = 0, 0
    units = _add_units(units, high_total, low_total)
    if extra is not None:
        units = limbs.add(units, limbs.from_ints(extra))
    return Sums(units, special)


def _add_units(units: np.ndarray, high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """``units`` plus ``high * 2**42 + low`` (rows,) each, as limbs."""
    return limbs.add(units, np.stack([low, np.zeros_like(low), high], axis=1))


def _scratch(shape: tuple[int, int], count: int = 2, first: int = 0) -> tuple[np.ndarray, ...]:
    """``count`` (rows, columns) float arrays from the ``first``, this
    thread's, reused from call to call (see :func:`lexeval.compiled.scratch`:
    blocks are up to 2M values)."""
    size = shape[0] * shape[1]
    return tuple(scratch(f"sums{k}", size).reshape(shape) for k in range(first, first + count))


def _on_grid(value: float) -> int:
    """``value`` in 2**-62 units, rounded half to even as the array path rounds."""
    return round(Fraction(value) * (1 << GRID_BITS))


# ---------------------------------------------------------------- counter-based draws

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer: a bijection of uint64 that scatters every bit."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def query_keys(qids: list[str]) -> np.ndarray:
    """(Q,) uint64 key of each query id: the first 8 bytes of its BLAKE2b
    digest, the same on every machine and in every process."""
    return np.array([int.from_bytes(hashlib.blake2b(qid.encode("utf-8", "surrogateescape"), digest_size=8)
                                    .digest(), "little") for qid in qids], dtype=np.uint64)


def uniform_bits(seed: int | None, keys: np.ndarray, first: int, count: int) -> np.ndarray:
    """(count, Q) uint64 random words for draws ``first .. first + count - 1``
    of each query key: SplitMix64 of (seed, key, draw), a pure function of the
    three, whatever else is drawn and wherever."""
    with np.errstate(over="ignore"):
        base = _splitmix(np.asarray(np.uint64((seed or 0) & (2**64 - 1)) * _GOLDEN + np.uint64(0x632BE59BD9B4E019)))
        stream = _splitmix(np.asarray(keys, dtype=np.uint64) ^ base)                    # (Q,)
        draws = np.arange(first, first + count, dtype=np.uint64)[:, None] * _GOLDEN      # (count, 1)
        return _splitmix(_splitmix(stream[None, :] + draws) ^ base)


def random_signs(seed: int | None, keys: np.ndarray, first: int, count: int) -> np.ndarray:
    """(count, Q) +1.0 or -1.0, each with probability 1/2."""
    bits = uniform_bits(seed, keys, first, count) >> np.uint64(63)
    return bits.astype(np.float64) * 2.0 - 1.0


# Poisson(1) cumulative probabilities, scaled to 2**53: a uniform below the k-th is a draw of k
_POISSON_EDGES = None


def poisson_weights(seed: int | None, keys: np.ndarray, first: int, count: int) -> np.ndarray:
    """(count, Q) Poisson(1) counts: how often each query is drawn in each
    bootstrap resample (the Poisson bootstrap: each query independently, so
    a query's weight does not depend on the others)."""
    global _POISSON_EDGES
    if _POISSON_EDGES is None:
        from math import exp, factorial
        cumulative = np.cumsum([exp(-1.0) / factorial(k) for k in range(24)])
        _POISSON_EDGES = np.floor(np.minimum(cumulative, 1.0) * 2.0**53)
    uniform = (uniform_bits(seed, keys, first + (1 << 40), count) >> np.uint64(11)).astype(np.float64)
    return np.searchsorted(_POISSON_EDGES, uniform, side="right").astype(np.float64)
