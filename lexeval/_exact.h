/* lexeval's compiled statistics kernel: the exact moments of pairs'
 * differences and their correctly rounded means and standard deviations,
 * the t and binomial tails' continued fraction (four lanes to a vector
 * where the processor has AVX2), and LP's, LR's, rrLP's and rrLR's
 * decisions, values and sums over the queries.
 *
 * Everything here is also done by numpy (moments.py, limbs.py,
 * distributions.py), which gives the same floats bit for bit: the moments
 * are exact integers and their quotients are rounded once, to nearest with
 * ties to even, so any correct way of computing them agrees; the continued
 * fraction does the numpy code's operations in the numpy code's order, one
 * value at a time (compiled without contraction into fused multiply-adds).
 * Tests compare the two. Optional: without a compiler the package installs
 * without it, and LEXEVAL_KERNEL=off turns it off.
 *
 * This header holds what the three parts share (_exact_moments.c: the
 * pairs' moments; _exact_tdist.c: the t and binomial tails' continued
 * fraction; _exact_lexorder.c: the lexicographic orders and decisions):
 * wide integers, prepared divisors, correctly rounded quotients, the
 * buffers' checks, and the constants of the grids (_exact_constants.h,
 * made from lexeval/constants.py).
 */
#ifndef LEXEVAL_EXACT_H
#define LEXEVAL_EXACT_H

/* The exact sums need 128-bit integers (GCC and Clang on 64-bit targets have them; MSVC has not): where the
 * compiler lacks them the build of this optional kernel stops here, and lexeval computes the same with numpy. */
#if !defined(__SIZEOF_INT128__)
#error "lexeval's statistics kernel needs 128-bit integers (GCC or Clang); without it lexeval uses numpy"
#endif

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "_exact_constants.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATHS 1
#endif

/* which vector paths run: 0 none, 1 AVX2's (where the processor has AVX2), 2 AVX-512's too (BW and VL), unless the
 * tests narrowed them (vectors()) to compare them with the others; one for the whole module (_exact_module.c) */
extern int vector_paths;

static inline int vectors_on(void) {
#if defined(HAVE_AVX2_PATHS)
    if (vector_paths < 0)
        vector_paths = !__builtin_cpu_supports("avx2") ? 0
                       : __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? 2 : 1;
    return vector_paths;
#else
    return 0;
#endif
}

/* the next of a count threads share (each takes the next query in turn: a thread's queries are then as many as
 * its speed allows, where a fixed share of them left one core idle for the last tenth of a second) */
static inline int64_t next_shared(int64_t *counter) { return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }

typedef unsigned __int128 u128;
typedef __int128 i128;

/* ---------------------------------------------------------------- 256-bit integers
 * Two's complement, four 64-bit words, lowest first. The moments are far
 * below 2**255 (the Python side checks the bounds before calling). */

typedef struct { uint64_t w[4]; } i256;

static inline i256 from_i128(i128 v) {
    i256 r;
    r.w[0] = (uint64_t)v;
    r.w[1] = (uint64_t)((u128)v >> 64);
    r.w[2] = r.w[3] = v < 0 ? ~0ULL : 0;
    return r;
}

static inline i256 add256(i256 a, i256 b) {
    i256 r;
    u128 carry = 0;
    for (int k = 0; k < 4; k++) {
        carry += (u128)a.w[k] + b.w[k];
        r.w[k] = (uint64_t)carry;
        carry >>= 64;
    }
    return r;
}

static inline i256 neg256(i256 a) {
    i256 r;
    u128 carry = 1;
    for (int k = 0; k < 4; k++) {
        carry += (u128)(~a.w[k]);
        r.w[k] = (uint64_t)carry;
        carry >>= 64;
    }
    return r;
}

static inline int negative256(i256 a) { return (int64_t)a.w[3] < 0; }

/* a (non-negative) times m (non-negative, below 2**64) */
static inline i256 mul256_u64(i256 a, uint64_t m) {
    i256 r;
    u128 carry = 0;
    for (int k = 0; k < 4; k++) {
        carry += (u128)a.w[k] * m;
        r.w[k] = (uint64_t)carry;
        carry >>= 64;
    }
    return r;
}

/* the square of |v| */
static inline i256 square128(u128 v) {
    uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    u128 ll = (u128)lo * lo, lh = (u128)lo * hi, hh = (u128)hi * hi;
    i256 r;
    r.w[0] = (uint64_t)ll;
    u128 mid = (ll >> 64) + (uint64_t)lh + (uint64_t)lh;      /* 2 lo hi's low half, with ll's carry */
    r.w[1] = (uint64_t)mid;
    u128 top = (mid >> 64) + (lh >> 64) + (lh >> 64) + (uint64_t)hh;
    r.w[2] = (uint64_t)top;
    r.w[3] = (uint64_t)((top >> 64) + (hh >> 64));
    return r;
}

static inline int bit_length256(i256 a) {
    for (int k = 3; k >= 0; k--)
        if (a.w[k]) return 64 * k + 64 - __builtin_clzll(a.w[k]);
    return 0;
}

static inline i256 shift_left256(i256 a, int s) {
    i256 r = {{0, 0, 0, 0}};
    int words = s / 64, bits = s % 64;
    for (int k = 3; k >= words; k--) {
        uint64_t v = a.w[k - words] << bits;
        if (bits && k - words - 1 >= 0) v |= a.w[k - words - 1] >> (64 - bits);
        r.w[k] = v;
    }
    return r;
}

/* (high 2**64 + low) / divisor, high below divisor: one machine division on x86-64 */
static inline uint64_t divide_word(uint64_t high, uint64_t low, uint64_t divisor, uint64_t *remainder) {
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t quotient;
    __asm__("divq %4" : "=a"(quotient), "=d"(*remainder) : "a"(low), "d"(high), "rm"(divisor));
    return quotient;
#else
    u128 current = ((u128)high << 64) | low;
    *remainder = (uint64_t)(current % divisor);
    return (uint64_t)(current / divisor);
#endif
}

/* A divisor in [1, 2**62) made ready for many divisions by it (Moller and Granlund, "Improved division by
 * invariant integers", 2011): shifted until its top bit is set, with the reciprocal floor((2**128 - 1) /
 * normalized) - 2**64; a division is then two products and two corrections, not a machine division. */
typedef struct { uint64_t value, normalized, inverse; int shift; } Divisor;

static inline Divisor divisor_of(uint64_t value) {
    Divisor d;
    uint64_t remainder;
    d.value = value;
    d.shift = __builtin_clzll(value);
    d.normalized = value << d.shift;
    d.inverse = divide_word(~d.normalized, ~0ULL, d.normalized, &remainder);
    return d;
}

/* (high 2**64 + low) / normalized, high below it: the quotient, and the remainder in *remainder */
static inline uint64_t divide_prepared(uint64_t high, uint64_t low, const Divisor *d, uint64_t *remainder) {
    u128 estimate = (u128)d->inverse * high + ((u128)high << 64 | low);
    uint64_t q = (uint64_t)(estimate >> 64) + 1, r = low - q * d->normalized;
    if (r > (uint64_t)estimate) {
        q--;
        r += d->normalized;
    }
    if (__builtin_expect(r >= d->normalized, 0)) {
        q++;
        r -= d->normalized;
    }
    *remainder = r;
    return q;
}

/* value 2**exponent: a product by a power of two, exact while both are normal; ldexp beyond */
static inline double scaled(double value, int exponent) {
    if (exponent < -1000 || exponent > 1000) return ldexp(value, exponent);
    union { uint64_t bits; double number; } power = {(uint64_t)(exponent + 1023) << 52};
    double product = value * power.number;
    return fabs(product) >= 0x1p-1000 ? product : ldexp(value, exponent);
}

/* ``top 2**below / (divisor 2**scale)``, correctly rounded (to nearest, ties to even), where ``sticky``
 * says whether bits below ``top`` were dropped (they are then below its last bit); divisor in [1, 2**62).
 * Shifted so that its leading bit is at 126, top's high word is below the normalized divisor (leading bit
 * at 63): one division by the prepared reciprocal gives a quotient in [2**62, 2**64), 53 bits, a rounding
 * bit and more below it, where the remainder and the dropped bits are a sticky bit; the uint64 to double
 * conversion rounds once. */
static inline double quotient_of_top(u128 top, uint64_t sticky, int below, const Divisor *divisor, int scale) {
    uint64_t high = (uint64_t)(top >> 64);
    if (!top) return 0.0;
    int length = high ? 128 - __builtin_clzll(high) : 64 - __builtin_clzll((uint64_t)top);
    if (length == 128) {
        sticky |= (uint64_t)top & 1;
        top >>= 1;
        below += 1;
    } else {
        top <<= 127 - length;
        below -= 127 - length;
    }
    uint64_t remainder, q = divide_prepared((uint64_t)(top >> 64), (uint64_t)top, divisor, &remainder);
    sticky |= remainder != 0;
    return scaled((double)(q | (sticky != 0)), below + divisor->shift - scale);
}

/* ``number / (divisor 2**scale)``, correctly rounded: its top 128 bits, the rest a sticky bit */
static inline double quotient(i256 number, const Divisor *divisor, int scale) {
    int negative = negative256(number);
    i256 m = negative ? neg256(number) : number;
    int drop = bit_length256(m) - 128;
    double value;
    if (drop <= 0) {
        value = quotient_of_top((u128)m.w[1] << 64 | m.w[0], 0, 0, divisor, scale);
    } else {
        int words = drop / 64, bits = drop % 64;
        uint64_t w0 = m.w[words], w1 = words + 1 < 4 ? m.w[words + 1] : 0, w2 = words + 2 < 4 ? m.w[words + 2] : 0;
        uint64_t low = bits ? w0 >> bits | w1 << (64 - bits) : w0, high = bits ? w1 >> bits | w2 << (64 - bits) : w1;
        uint64_t sticky = bits ? (w0 & ((1ULL << bits) - 1)) != 0 : 0;
        for (int k = 0; k < words; k++) sticky |= m.w[k] != 0;
        value = quotient_of_top((u128)high << 64 | low, sticky, drop, divisor, scale);
    }
    return negative ? -value : value;
}

/* a pair's mean (first / (n 2**scale)) and sample standard deviation from
 * its exact first and second moments: n (n - 1) s**2 = n S2 - S1**2, in
 * units of 2**-(2 scale), divided once */
typedef struct { int64_t count; Divisor of_mean, of_variance; } Divisors;

/* the divisors of a count's mean (n, or 1) and variance (n (n - 1), or 1) */
static inline Divisors divisors_of(int64_t count) {
    Divisors d = {count, divisor_of((uint64_t)(count > 1 ? count : 1)),
                  divisor_of((uint64_t)(count > 1 ? count * (count - 1) : 1))};
    return d;
}

static inline void finish(i128 first, i256 second, const Divisors *divisors, int scale, double *mean,
                          double *spread) {
    int64_t count = divisors->count;
    *mean = quotient(from_i128(first), &divisors->of_mean, scale);
    if (count < 2) { *spread = 0.0; return; }
    u128 magnitude = first < 0 ? (u128)(-first) : (u128)first;
    i256 numerator = add256(mul256_u64(second, (uint64_t)count), neg256(square128(magnitude)));
    double variance = quotient(numerator, &divisors->of_variance, 2 * scale);
    *spread = variance > 0 ? sqrt(variance) : 0.0;
}

/* ---------------------------------------------------------------- a pair's moments in 192 bits
 * pair_moments' numbers stay below 2**192: differences below 2**63 and fewer than 2**31 queries make
 * S2 < 2**157, n S2 < 2**188 and S1**2 < 2**188; three words are half the work of four. */

typedef struct { u128 low; uint64_t high; } u192;

static inline u192 u192_of(i256 v) {
    u192 r = {(u128)v.w[1] << 64 | v.w[0], v.w[2]};
    return r;
}

static inline u192 add192(u192 a, u192 b) {
    u192 r = {a.low + b.low, a.high + b.high};
    r.high += r.low < a.low;
    return r;
}

static inline u192 sub192(u192 a, u192 b) {
    u192 r = {a.low - b.low, a.high - b.high - (a.low < b.low)};
    return r;
}

/* a m, below 2**192 */
static inline u192 mul192(u192 a, uint64_t m) {
    u128 low = (u128)(uint64_t)a.low * m, middle = (u128)(uint64_t)(a.low >> 64) * m + (uint64_t)(low >> 64);
    u192 r = {middle << 64 | (uint64_t)low, (uint64_t)(middle >> 64) + a.high * m};
    return r;
}

/* v**2, below 2**192 */
static inline u192 square192(u128 v) {
    uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    u128 ll = (u128)lo * lo, lh = (u128)lo * hi;
    u128 middle = (ll >> 64) + (uint64_t)lh + (uint64_t)lh;
    u192 r = {middle << 64 | (uint64_t)ll, (uint64_t)(middle >> 64) + (uint64_t)(lh >> 64) * 2 + hi * hi};
    return r;
}

/* ``number / (divisor 2**scale)``, correctly rounded: its top 128 bits, the rest a sticky bit */
static inline double quotient192(u192 number, const Divisor *divisor, int scale) {
    if (!number.high) return quotient_of_top(number.low, 0, 0, divisor, scale);
    int lead = 64 - __builtin_clzll(number.high);               /* 1 to 64 bits above the low 128 */
    u128 top = (u128)number.high << (128 - lead) | number.low >> lead;
    return quotient_of_top(top, (number.low << (128 - lead)) != 0, lead, divisor, scale);
}

/* finish() for pair_moments: the pair (a, b)'s mean and deviation from its runs' sums and sums of squares
 * and its cross product sum_q a b; sum (a - b)**2 = S2(a) + S2(b) - 2 sum a b */
static inline __attribute__((always_inline)) void finish_pair(i128 first, u192 second, const Divisors *divisors,
                                                              int scale, double *mean, double *spread) {
    u128 magnitude = first < 0 ? (u128)(-first) : (u128)first;
    double value = quotient_of_top(magnitude, 0, 0, &divisors->of_mean, scale);
    *mean = first < 0 ? -value : value;
    if (divisors->count < 2) { *spread = 0.0; return; }
    u192 product = mul192(second, (uint64_t)divisors->count), square = square192(magnitude);
    /* never below S1**2 for sums of real values; sums made up (the tests) get a deviation of 0, as finish() */
    if (product.high < square.high || (product.high == square.high && product.low < square.low)) {
        *spread = 0.0;
        return;
    }
    double variance = quotient192(sub192(product, square), &divisors->of_variance, 2 * scale);
    *spread = variance > 0 ? sqrt(variance) : 0.0;
}

/* PyBuffer_Release of each of ``count`` buffers (Py_buffer *) */
static inline void release(int count, ...) {
    va_list buffers;
    va_start(buffers, count);
    for (int i = 0; i < count; i++) PyBuffer_Release(va_arg(buffers, Py_buffer *));
    va_end(buffers);
}

static inline int check(Py_buffer *b, Py_ssize_t items, Py_ssize_t itemsize, const char *name) {
    if (b->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, b->len, items * itemsize);
        return 0;
    }
    return 1;
}

/* ``count`` carried 21-bit limbs of a 256-bit number: each in [0, 2**21) but the top one, which keeps the
 * sign (an arithmetic shift) */
static inline void to_limbs(i256 v, int64_t *limbs, int count) {
    for (int k = 0; k < count; k++) {
        int bit = LIMB_BITS * k, word = bit / 64, offset = bit % 64;
        if (k == count - 1) {       /* the rest, signed: fits int64 for the widths used here */
            uint64_t low = v.w[word] >> offset;
            if (offset && word < 3) low |= v.w[word + 1] << (64 - offset);
            limbs[k] = (int64_t)low;
            break;
        }
        uint64_t bits = v.w[word] >> offset;
        if (offset > 43 && word < 3) bits |= v.w[word + 1] << (64 - offset);
        limbs[k] = (int64_t)(bits & LIMB_MASK);
    }
}

/* the module's functions, one part each (see _exact_module.c's table) */
PyObject *pair_moments(PyObject *self, PyObject *args);
PyObject *row_moments(PyObject *self, PyObject *args);
PyObject *limb_moments(PyObject *self, PyObject *args);
PyObject *t_prepare(PyObject *self, PyObject *args);
PyObject *t_finish(PyObject *self, PyObject *args);
PyObject *continued_fraction(PyObject *self, PyObject *args);
PyObject *lex_decide(PyObject *self, PyObject *args);
PyObject *lex_run_totals(PyObject *self, PyObject *args);
PyObject *lex_order(PyObject *self, PyObject *args);
PyObject *reciprocal_difference(PyObject *self, PyObject *args);
PyObject *lex_moments(PyObject *self, PyObject *args);
PyObject *lex_signs(PyObject *self, PyObject *args);
PyObject *precision_bounds(PyObject *self, PyObject *args);
PyObject *bpref_sums(PyObject *self, PyObject *args);
PyObject *relevant_within(PyObject *self, PyObject *args);
PyObject *uniform_codes(PyObject *self, PyObject *args);
PyObject *difference_bounds(PyObject *self, PyObject *args);
PyObject *lex_bounds(PyObject *self, PyObject *args);

#endif
