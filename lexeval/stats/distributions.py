"""The two distributions every default call needs, without importing scipy.

The paired t-test needs Student's t tail and the sign test the binomial tail;
both are the regularized incomplete beta function I_x(a, b). scipy has it,
but importing scipy.special costs a quarter of a second, more than a small
evaluation itself; a CI gate runs on every commit. Computed here with the
continued fraction of Numerical Recipes (section 6.4), vectorised, to about
1e-14 relative error (the tests compare with scipy across the range). The
compiled kernel (:mod:`lexeval.compiled`) runs the same fraction value
by value, with the same floats.
"""

from __future__ import annotations

import math

import numpy as np

from .. import compiled

_EPSILON = 1e-16
_TINY = 1e-300
_MAX_TERMS = 100_000


def _log_beta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log B(a, b) elementwise; lgamma runs once per distinct (a, b)."""
    # B is symmetric, and lgamma(a) + lgamma(b) is the same float either way: (small, large) pairs; a
    # default call's t-tests share one pair, found without sorting millions of values
    a, b = np.minimum(a, b), np.maximum(a, b)
    if a.size and a.min() == a.max() and b.min() == b.max():
        x, y = float(a[0]), float(b[0])
        return np.full(a.shape, math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y))
    distinct, inverse = np.unique(a + 1j * b, return_inverse=True)    # one sort finds the pairs
    values = np.array([math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)
                       for x, y in zip(distinct.real.tolist(), distinct.imag.tolist())])
    return values[np.ravel(inverse)]


def _continued_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of I_x(a, b) (modified Lentz), for x below
    (a + 1) / (a + b + 2), where it converges quickly. Each value stops at
    its own convergence; the values still going are kept packed together
    (packed again only on a step where some stop), so a step does no
    gathering."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1.0 / d
    h = d.copy()
    out = h.copy()
    where = np.arange(len(x))                    # each packed value's place in the output
    aa_, bb, xx, qab_, qap_, qam_ = a, b, x, qab, qap, qam
    for m in range(1, _MAX_TERMS):
        if not len(where):
            break
        m2 = 2 * m
        coefficient = m * (bb - m) * xx / ((qam_ + m2) * (aa_ + m2))
        dd = 1.0 + coefficient * d
        dd = np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = 1.0 + coefficient / c
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        dd = 1.0 / dd
        step = dd * cc
        coefficient = -(aa_ + m) * (qab_ + m) * xx / ((aa_ + m2) * (qap_ + m2))
        dd = 1.0 + coefficient * dd
        dd = np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = 1.0 + coefficient / cc
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        dd = 1.0 / dd
        delta = dd * cc
        h = h * (step * delta)
        d, c = dd, cc
        going = np.abs(delta - 1.0) > _EPSILON
        if not going.all():                      # some stop here: keep their value, pack the others
            out[where] = h
            where, h, d, c = where[going], h[going], d[going], c[going]
            aa_, bb, xx, qab_, qap_, qam_ = aa_[going], bb[going], xx[going], qab_[going], qap_[going], qam_[going]
    out[where] = h
    return out


def betainc(a, b, x, complement=None) -> np.ndarray:
    """Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
    ``complement`` is 1 - x when the caller knows it more precisely."""
    if complement is None:
        complement = 1.0 - np.asarray(x, dtype=np.float64)
    a, b, x, y = (np.asarray(v, dtype=np.float64) for v in np.broadcast_arrays(a, b, x, complement))
    shape = x.shape
    a, b, x, y = a.ravel(), b.ravel(), x.ravel(), y.ravel()
    out = np.where(x <= 0.0, 0.0, 1.0)
    inside = np.flatnonzero((x > 0.0) & (y > 0.0))
    if len(inside):
        a_, b_, x_, y_ = a[inside], b[inside], x[inside], y[inside]
        flip = x_ >= (a_ + 1.0) / (a_ + b_ + 2.0)          # use I_x(a, b) = 1 - I_(1-x)(b, a)
        a2, b2 = np.where(flip, b_, a_), np.where(flip, a_, b_)
        x2 = np.where(flip, y_, x_)
        log_front = a2 * np.log(x2) + b2 * np.log1p(-x2) - _log_beta(a2, b2)
        fraction = compiled.continued_fraction(a2, b2, x2)
        if fraction is None:
            fraction = _continued_fraction(a2, b2, x2)
        value = np.exp(log_front) * fraction / a2
        out[inside] = np.where(flip, 1.0 - value, value)
    return out.reshape(shape)


def t_two_sided(t, df) -> np.ndarray:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees
    of freedom: P(|T| >= |t|)."""
    t, df = np.broadcast_arrays(np.asarray(t, dtype=np.float64), np.asarray(df, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = df / (df + t * t)
        complement = (t * t) / (df + t * t)       # 1 - x, without cancellation
    infinite = np.isinf(t)
    x, complement = np.where(infinite, 0.0, x), np.where(infinite, 1.0, complement)
    return betainc(df / 2.0, np.full_like(df, 0.5), x, complement)


def binomial_lower_tail(k, n) -> np.ndarray:
    """P(X <= k) for X ~ Binomial(n, 1/2): I_(1/2)(n - k, k + 1); 1 when k >= n."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    out = np.ones(k.shape)
    below = k < n
    out[k < 0] = 0.0
    inside = below & (k >= 0)
    if inside.any():
        # a sign test's tail depends on (k, n) alone: half a million pairs over 50 queries have a few
        # hundred of them
        k_in, n_in = k[inside], n[inside]
        most = int(n_in.max())
        if (most + 1) ** 2 <= len(k_in):    # (k, n) as one cell of a (n + 1) x (n + 1) table, no larger: no sort
            key = n_in.astype(np.int64) * (most + 1) + k_in.astype(np.int64)
            seen = np.zeros((most + 1) ** 2, dtype=bool)
            seen[key] = True
            distinct = np.flatnonzero(seen)
            place = np.zeros(len(seen), dtype=np.int64)
            place[distinct] = np.arange(len(distinct))
            inverse = place[key]
            k_in, n_in = (distinct % (most + 1)).astype(np.float64), (distinct // (most + 1)).astype(np.float64)
        elif most < 2 ** 31:                # one integer key per (k, n): a sort of integers
            key = n_in.astype(np.int64) << 32 | k_in.astype(np.int64)
            distinct, inverse = np.unique(key, return_inverse=True)
            k_in, n_in = (distinct & 0xFFFFFFFF).astype(np.float64), (distinct >> 32).astype(np.float64)
        else:
            inverse = np.arange(len(k_in))
        tails = betainc(n_in - k_in, k_in + 1.0, np.full(len(k_in), 0.5))
        out[inside] = tails[np.ravel(inverse)]
    return out
