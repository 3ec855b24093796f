"""Exact integers of any size as int64 arrays of 21-bit limbs, whole-array.

A number is ``sum(limbs[..., k] * 2**(21 * k))``: the last axis holds its
limbs, lowest first. Limbs may be any int64 while a number is being built
(sums of products of limbs, differences); :func:`carry` brings every limb
but the top one into [0, 2**21) and leaves the sign in the top one. Products
of two carried limbs stay below 2**42, so sums of thousands of them cannot
leave int64 (or, in float64 matrix products, 2**53): the exact sums of
:mod:`lexeval.stats.sums` stay exact without a Python integer per row.

:func:`quotient` is the one way back to floats: ``n / (d * 2**scale)``
rounded correctly (to nearest, ties to even), as Python's ``int / int``.
"""

from __future__ import annotations

import numpy as np

from ..constants import LIMB_BITS

MASK = (1 << LIMB_BITS) - 1
_CARRY_BLOCK = 1 << 17           # limbs carried at once (a megabyte of them: a cache's worth)
_HALF = 10                      # long division takes a limb in two steps (11 bits, then 10): divisors to 2**52


def carry(limbs: np.ndarray, width: int | None = None) -> np.ndarray:
    """(..., width) the same numbers with every limb but the top one in
    [0, 2**21); ``width`` (default: 3 more limbs than given, room for any
    int64 limb's carries) must hold the numbers."""
    limbs = np.asarray(limbs, dtype=np.int64)
    have = limbs.shape[-1]
    width = have + 3 if width is None else width
    flat = limbs.reshape(-1, have)
    out = np.empty((len(flat), width), dtype=np.int64)
    # limb-major while carrying, a cache-sized block of numbers at a time: each step reads and writes
    # whole contiguous rows, not a strided column
    step = max(1, _CARRY_BLOCK // width)
    for start in range(0, len(flat), step):
        block = flat[start:start + step]
        work = np.zeros((width, len(block)), dtype=np.int64)
        work[:min(have, width)] = block[:, :width].T
        for k in range(width - 1):
            work[k + 1] += work[k] >> LIMB_BITS           # arithmetic shift: floor, so the rest is in [0, 2**21)
            work[k] &= MASK
        out[start:start + step] = work.T
    return out.reshape(limbs.shape[:-1] + (width,))


def carry_in_place(limbs: np.ndarray) -> np.ndarray:
    """:func:`carry` of a C-contiguous int64 array into itself, its width
    kept (it must hold the numbers): a column at a time, no array made (the
    threads' sums of the pairs' kernels, megabytes of fresh pages in
    :func:`carry`'s copies, a tenth of a core-second on a slow machine)."""
    flat = limbs.reshape(-1, limbs.shape[-1])
    for k in range(flat.shape[1] - 1):
        flat[:, k + 1] += flat[:, k] >> LIMB_BITS        # arithmetic shift: floor, so the rest is in [0, 2**21)
        flat[:, k] &= MASK
    return limbs


def trim(limbs: np.ndarray) -> np.ndarray:
    """The same carried numbers in as few limbs as hold them all, as int32
    (a carried limb is below 2**21: a third of the memory of int64 words
    would be wasted, twice over). A top limb goes where it is only the sign
    of the one below: 0 above a limb under 2**20, or -1 above one from 2**20
    (which then carries the sign itself). Only the top limb is worked on
    (a row at a time for all numbers): the others are in [0, 2**21) already."""
    limbs = np.asarray(limbs)
    top = limbs.shape[-1]
    head = limbs[..., top - 1].astype(np.int64)
    half = 1 << (LIMB_BITS - 1)
    while top > 1:
        below = limbs[..., top - 2].astype(np.int64)
        positive, negative = (head == 0) & (below < half), (head == -1) & (below >= half)
        if not (positive | negative).all():
            break
        head = np.where(negative, below - (1 << LIMB_BITS), below)
        top -= 1
    fits = not head.size or (int(head.min()) >= -(1 << 31) and int(head.max()) < (1 << 31))
    out = limbs[..., :top].astype(np.int32 if fits else np.int64)      # a copy: the top limb is rewritten
    out[..., top - 1] = head
    return out


def add(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Carried sums of two arrays of numbers (limbs of any width)."""
    return trim(carry(subtract(first, -np.asarray(second, dtype=np.int64))))


def subtract(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Uncarried differences of two arrays of numbers (limbs of any width)."""
    width = max(first.shape[-1], second.shape[-1])
    return _widen(first, width).astype(np.int64) - _widen(second, width)


def concatenate(parts: list[np.ndarray]) -> np.ndarray:
    """(sum of rows, K) the rows of each (rows, K_i) part, one after another."""
    width = max((part.shape[-1] for part in parts), default=1)
    return np.concatenate([_widen(part, width) for part in parts]) if parts else np.zeros((0, 1), np.int64)


def _widen(limbs: np.ndarray, width: int) -> np.ndarray:
    if limbs.shape[-1] == width:
        return limbs
    out = np.zeros(limbs.shape[:-1] + (width,), dtype=np.int64)
    out[..., :limbs.shape[-1]] = limbs
    return out


def from_ints(numbers: list[int]) -> np.ndarray:
    """(len(numbers), K) carried limbs of Python integers (any size)."""
    bits = max((abs(number).bit_length() for number in numbers), default=0)
    width = bits // LIMB_BITS + 2
    return np.array([[(number >> (LIMB_BITS * k)) & MASK for k in range(width - 1)]
                     + [number >> (LIMB_BITS * (width - 1))] for number in numbers],
                    dtype=np.int64).reshape(len(numbers), width)


def of_integers(numbers: np.ndarray) -> np.ndarray:
    """(..., 3) carried limbs of int64 numbers."""
    numbers = np.asarray(numbers, dtype=np.int64)
    return np.stack([numbers & MASK, (numbers >> LIMB_BITS) & MASK, numbers >> (2 * LIMB_BITS)], axis=-1)


def to_ints(limbs: np.ndarray) -> list[int]:
    """The numbers of (rows, K) limbs as Python integers."""
    return [sum(limb << (LIMB_BITS * k) for k, limb in enumerate(row)) for row in np.asarray(limbs).tolist()]


def multiply(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """(..., K1 + K2 - 1) uncarried limbs of the products of carried numbers."""
    first, second = first.astype(np.int64), second.astype(np.int64)
    width = second.shape[-1]
    shape = np.broadcast_shapes(first.shape[:-1], second.shape[:-1])
    out = np.zeros(shape + (first.shape[-1] + width - 1,), dtype=np.int64)
    for i in range(first.shape[-1]):
        out[..., i:i + width] += first[..., i:i + 1] * second
    return out


def quotient(limbs: np.ndarray, divisor: np.ndarray, scale: int = 0) -> np.ndarray:
    """(rows,) ``number / (divisor * 2**scale)`` of each row of (rows, K)
    limbs, correctly rounded; ``divisor`` (rows,) integers in [1, 2**52)."""
    numbers = carry(limbs)
    negative = numbers[:, -1] < 0
    if negative.any():
        numbers = np.where(negative[:, None], carry(-numbers, numbers.shape[1]), numbers)
    # limb-major from here: each step of the long division reads and writes whole contiguous rows
    numbers = np.ascontiguousarray(trim(numbers).T, dtype=np.int64)                 # (K, rows)
    divisor = np.broadcast_to(np.asarray(divisor, dtype=np.int64), negative.shape)
    # zero limbs appended below, so that the smallest non-zero number's quotient keeps 55 bits or more
    nonzero = numbers != 0
    lowest_top = int((len(numbers) - 1 - np.argmax(nonzero[::-1], axis=0))[nonzero.any(axis=0)].min(initial=0))
    largest = int(divisor.max(initial=1))
    guard = max(0, -(-(56 + largest.bit_length() - LIMB_BITS * lowest_top) // LIMB_BITS))
    width = len(numbers) + guard
    rows = numbers.shape[1]
    digits = np.zeros((width, rows), dtype=np.int64)
    remainder = np.zeros(rows, dtype=np.int64)
    zero = np.zeros(rows, dtype=np.int64)
    for k in range(width - 1, -1, -1):      # long division from the top limb
        limb = numbers[k - guard] if k >= guard else zero
        if largest < 1 << 42:               # a partial remainder and a limb: below 2**63
            current = (remainder << LIMB_BITS) + limb
            digits[k] = current // divisor
            remainder = current - digits[k] * divisor
            continue
        # larger divisors: half a limb at a time (11 bits, then 10), each partial remainder below 2**63
        current = (remainder << (LIMB_BITS - _HALF)) + (limb >> _HALF)
        high = current // divisor
        current = ((current - high * divisor) << _HALF) + (limb & ((1 << _HALF) - 1))
        low = current // divisor
        remainder = current - low * divisor
        digits[k] = (high << _HALF) | low
    value = _to_float(digits, remainder != 0)
    value = np.ldexp(value, -LIMB_BITS * guard - scale)
    return np.where(negative, -value, value)


def _to_float(digits: np.ndarray, sticky: np.ndarray) -> np.ndarray:
    """(rows,) the nearest float of each column of non-negative carried
    limbs (width, rows), limb-major, plus a fraction below them where
    ``sticky`` (never a whole half)."""
    width, rows = digits.shape
    nonzero = digits != 0
    zero = ~nonzero.any(axis=0)
    top = width - 1 - np.argmax(nonzero[::-1], axis=0) + 3                # in positions of the digits after 3 zeros
    index = np.arange(rows)
    # the limb j below the top, 0 under the lowest (the 3 zero limbs a padded copy would hold)
    first, second, third, fourth = (np.where(top - j >= 3, digits[np.maximum(top - j - 3, 0), index], 0)
                                    for j in range(4))
    shift = LIMB_BITS - np.frexp(first.astype(np.float64))[1]               # 0..20: puts the top bit at 62
    shift = np.where(zero, 0, shift)
    window = (((first << 42) | (second << 21) | third) << shift) | (fourth >> (LIMB_BITS - shift))
    lowest = np.argmax(nonzero, axis=0) + 3                                  # the lowest limb that is not 0
    lower = ~zero & (lowest < top - 3)                                       # any limb under the fourth
    lost = (fourth & ((np.int64(1) << (LIMB_BITS - shift)) - 1)) != 0
    window = window | (lower | lost | sticky).astype(np.int64)            # a sticky bit far below float's 53
    value = np.ldexp(window.astype(np.float64), LIMB_BITS * (top - 3 - 2) - shift)
    return np.where(zero, 0.0, value)
