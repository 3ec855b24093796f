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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

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

/* whether the AVX2 paths run: where the processor has AVX2, unless the tests turned them off (vectors()) to
 * compare them with the scalar paths */
static int vector_paths = -1;

static inline int vectors_on(void) {
#if defined(HAVE_AVX2_PATHS)
    if (vector_paths < 0) vector_paths = __builtin_cpu_supports("avx2") ? 1 : 0;
    return vector_paths;
#else
    return 0;
#endif
}

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
static void release(int count, ...) {
    va_list buffers;
    va_start(buffers, count);
    for (int i = 0; i < count; i++) PyBuffer_Release(va_arg(buffers, Py_buffer *));
    va_end(buffers);
}

static int check(Py_buffer *b, Py_ssize_t items, Py_ssize_t itemsize, const char *name) {
    if (b->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, b->len, items * itemsize);
        return 0;
    }
    return 1;
}

/* the exact sum of x[q] - y[q] (x[q] where y is NULL) over ``queries`` and the sum of their squares;
 * each difference fits int64 (the callers check), so its square fits 128 bits unsigned */
static inline void sums_of(const int64_t *x, const int64_t *y, Py_ssize_t queries, i128 *first, i256 *second) {
    i128 sum = 0;
    u128 low = 0;           /* the sum of squares: low + high * 2**128 */
    uint64_t high = 0;
    for (Py_ssize_t q = 0; q < queries; q++) {
        int64_t d = y ? x[q] - y[q] : x[q];
        sum += d;
        u128 square = (u128)((i128)d * d), before = low;
        low += square;
        high += low < before;
    }
    *first = sum;
    second->w[0] = (uint64_t)low;
    second->w[1] = (uint64_t)(low >> 64);
    second->w[2] = high;
    second->w[3] = 0;
}

/* the exact sum over ``queries`` of x[q] y[q], unsigned (each below 2**63): each product's low and high words
 * summed apart, so that the loop is a multiply and two short add-with-carry chains */
static inline u192 cross_of(const uint64_t *x, const uint64_t *y, Py_ssize_t queries) {
    u128 low = 0, high = 0;         /* the sum: low + high * 2**64 */
    for (Py_ssize_t q = 0; q < queries; q++) {
        u128 product = (u128)x[q] * y[q];
        low += (uint64_t)product;
        high += (uint64_t)(product >> 64);
    }
    u128 middle = (low >> 64) + (uint64_t)high;     /* both below 2**64 queries: no overflow */
    u192 out = {middle << 64 | (uint64_t)low, (uint64_t)(middle >> 64) + (uint64_t)(high >> 64)};
    return out;
}

#if defined(HAVE_AVX2_PATHS)
/* the values split into three 21-bit limbs, as 64-bit lanes: run r's limb k at limbs + (3 r + k) width, each
 * row padded with zeros to ``width`` (a multiple of four) */

/* the five level sums' four lanes each added up, into level[0..4] */
__attribute__((target("avx2"))) static inline void lanes_added(__m256i s0, __m256i s1, __m256i s2, __m256i s3,
                                                               __m256i s4, uint64_t level[5]) {
    __m256i t01 = _mm256_add_epi64(_mm256_unpacklo_epi64(s0, s1), _mm256_unpackhi_epi64(s0, s1));
    __m256i t23 = _mm256_add_epi64(_mm256_unpacklo_epi64(s2, s3), _mm256_unpackhi_epi64(s2, s3));
    _mm256_storeu_si256((__m256i *)level, _mm256_add_epi64(_mm256_permute2x128_si256(t01, t23, 0x20),
                                                           _mm256_permute2x128_si256(t01, t23, 0x31)));
    __m128i four = _mm_add_epi64(_mm256_castsi256_si128(s4), _mm256_extracti128_si256(s4, 1));
    level[4] = (uint64_t)_mm_cvtsi128_si64(four) + (uint64_t)_mm_extract_epi64(four, 1);
}

/* sum_k level_k 2**(21 k): the levels below 2**64 each, the first four fit 128 bits, the fifth is shifted
 * past them */
static inline u192 of_levels(const uint64_t level[5]) {
    u128 low = (u128)level[0] + ((u128)level[1] << 21) + ((u128)level[2] << 42) + ((u128)level[3] << 63);
    u192 cross = {low, 0}, top = {(u128)(level[4] << 20) << 64, level[4] >> 44};
    return add192(cross, top);
}

/* one query block's nine limb products of x and y, added by level i + j into s0..s4 (each below 2**42:
 * exact while 3 queries 2**42 stays below 2**64) */
#define LIMB_PRODUCTS(x0, x1, x2, y0, y1, y2, s0, s1, s2, s3, s4) do {                                            \
        s0 = _mm256_add_epi64(s0, _mm256_mul_epu32(x0, y0));                                                       \
        s1 = _mm256_add_epi64(s1, _mm256_add_epi64(_mm256_mul_epu32(x0, y1), _mm256_mul_epu32(x1, y0)));           \
        s2 = _mm256_add_epi64(s2, _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(x0, y2),                      \
                                                                    _mm256_mul_epu32(x1, y1)),                     \
                                                   _mm256_mul_epu32(x2, y0)));                                     \
        s3 = _mm256_add_epi64(s3, _mm256_add_epi64(_mm256_mul_epu32(x1, y2), _mm256_mul_epu32(x2, y1)));           \
        s4 = _mm256_add_epi64(s4, _mm256_mul_epu32(x2, y2));                                                       \
    } while (0)

/* cross_of of runs a and b from their limbs, four queries to a vector */
__attribute__((target("avx2"))) static inline u192 cross_of_limbs(const uint64_t *limbs, Py_ssize_t width,
                                                                  Py_ssize_t a, Py_ssize_t b) {
    const uint64_t *x = limbs + 3 * a * width, *y = limbs + 3 * b * width;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, s4 = s0;
    for (Py_ssize_t q = 0; q < width; q += 4) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(x + q)), y0 = _mm256_loadu_si256((const __m256i *)(y + q));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(x + width + q));
        __m256i y1 = _mm256_loadu_si256((const __m256i *)(y + width + q));
        __m256i x2 = _mm256_loadu_si256((const __m256i *)(x + 2 * width + q));
        __m256i y2 = _mm256_loadu_si256((const __m256i *)(y + 2 * width + q));
        LIMB_PRODUCTS(x0, x1, x2, y0, y1, y2, s0, s1, s2, s3, s4);
    }
    uint64_t level[5];
    lanes_added(s0, s1, s2, s3, s4, level);
    return of_levels(level);
}

/* pair_moments' pass over the pairs with the limbs' cross products (two pairs sharing a run at once, a's
 * limbs loaded once, measured no faster: the multiplies are the bound) */
__attribute__((target("avx2"))) static void pairs_by_limbs(const uint64_t *limbs, Py_ssize_t width,
                                                           const int64_t *pair, Py_ssize_t count,
                                                           const i128 *run_first, const u192 *run_second,
                                                           const Divisors *divisors, int scale, double *means,
                                                           double *spreads) {
    for (Py_ssize_t p = 0; p < count; p++) {
        int64_t a = pair[2 * p], b = pair[2 * p + 1];
        u192 cross = cross_of_limbs(limbs, width, a, b);
        finish_pair(run_first[a] - run_first[b], sub192(add192(run_second[a], run_second[b]), add192(cross, cross)),
                    divisors, scale, means + p, spreads + p);
    }
}
#endif

/* pair_moments(grid, queries, pairs, scale, mean, spread): for each pair
 * (a, b) of ``pairs`` (int64, P x 2), the mean and standard deviation of
 * the differences grid[a] - grid[b] (int64, R x queries: the values in
 * units of 2**-scale; the caller checks that every difference fits int64),
 * into ``mean`` and ``spread`` (float64, P). */
static PyObject *pair_moments(PyObject *self, PyObject *args) {
    Py_buffer grid, pairs, mean, spread;
    Py_ssize_t queries;
    int scale;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*ny*iw*w*", &grid, &queries, &pairs, &scale, &mean, &spread)) return NULL;
    Py_ssize_t count = pairs.len / 16, runs = queries ? grid.len / 8 / queries : 0;
    PyObject *result = NULL;
    if (!check(&mean, count, 8, "mean") || !check(&spread, count, 8, "spread") ||
        (queries && !check(&grid, runs * queries, 8, "grid")))
        goto done;
    const int64_t *values = (const int64_t *)grid.buf, *pair = (const int64_t *)pairs.buf;
    for (Py_ssize_t p = 0; p < count; p++)
        if (pair[2 * p] < 0 || pair[2 * p] >= runs || pair[2 * p + 1] < 0 || pair[2 * p + 1] >= runs) {
            PyErr_SetString(PyExc_IndexError, "pair_moments: a run out of range");
            goto done;
        }
    /* sum (a - b)**2 = S2(a) + S2(b) - 2 sum a b, with every value less the least (the differences are the
     * same, and the values in [0, 2**63) multiply unsigned); the runs' sums once, then a product per pair */
    uint64_t *shifted = PyMem_RawMalloc((size_t)(runs * queries + 1) * sizeof(uint64_t));
    i128 *run_first = PyMem_RawMalloc((size_t)(runs + 1) * sizeof(i128));
    u192 *run_second = PyMem_RawMalloc((size_t)(runs + 1) * sizeof(u192));
    if (!shifted || !run_first || !run_second) {
        PyMem_RawFree(shifted);
        PyMem_RawFree(run_first);
        PyMem_RawFree(run_second);
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    double *means = (double *)mean.buf, *spreads = (double *)spread.buf;
    int64_t least = runs * queries > 0 ? values[0] : 0;
    for (Py_ssize_t i = 0; i < runs * queries; i++) least = values[i] < least ? values[i] : least;
    for (Py_ssize_t i = 0; i < runs * queries; i++) shifted[i] = (uint64_t)values[i] - (uint64_t)least;
    for (Py_ssize_t r = 0; r < runs; r++) {
        i256 squares;
        sums_of((const int64_t *)shifted + r * queries, NULL, queries, run_first + r, &squares);
        run_second[r] = u192_of(squares);
    }
    Divisors divisors = divisors_of(queries);
    int by_limbs = 0;
#if defined(HAVE_AVX2_PATHS)
    /* the values' three 21-bit limbs (below 2**63: the top one too), multiplied four queries to a vector */
    Py_ssize_t width = (queries + 3) / 4 * 4;
    uint64_t *limbs = queries <= (1 << 20) && vectors_on() ?
        PyMem_RawCalloc((size_t)(3 * runs * width + 1), sizeof(uint64_t)) : NULL;
    if (limbs) {
        for (Py_ssize_t r = 0; r < runs; r++)
            for (int k = 0; k < 3; k++)
                for (Py_ssize_t q = 0; q < queries; q++)
                    limbs[(3 * r + k) * width + q] = (shifted[r * queries + q] >> (21 * k)) & 0x1FFFFF;
        pairs_by_limbs(limbs, width, pair, count, run_first, run_second, &divisors, scale, means, spreads);
        PyMem_RawFree(limbs);
        by_limbs = 1;
    }
#endif
    for (Py_ssize_t p = 0; p < count && !by_limbs; p++) {
        int64_t a = pair[2 * p], b = pair[2 * p + 1];
        u192 cross = cross_of(shifted + a * queries, shifted + b * queries, queries);
        u192 second = sub192(add192(run_second[a], run_second[b]), add192(cross, cross));
        finish_pair(run_first[a] - run_first[b], second, &divisors, scale, means + p, spreads + p);
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(shifted);
    PyMem_RawFree(run_first);
    PyMem_RawFree(run_second);
    result = Py_None;
    Py_INCREF(result);
done:
    release(4, &grid, &pairs, &mean, &spread);
    return result;
}

/* ``count`` carried 21-bit limbs of a 256-bit number: each in [0, 2**21) but the top one, which keeps the
 * sign (an arithmetic shift) */
static inline void to_limbs(i256 v, int64_t *limbs, int count) {
    for (int k = 0; k < count; k++) {
        int bit = 21 * k, word = bit / 64, offset = bit % 64;
        if (k == count - 1) {       /* the rest, signed: fits int64 for the widths used here */
            uint64_t low = v.w[word] >> offset;
            if (offset && word < 3) low |= v.w[word + 1] << (64 - offset);
            limbs[k] = (int64_t)low;
            break;
        }
        uint64_t bits = v.w[word] >> offset;
        if (offset > 43 && word < 3) bits |= v.w[word + 1] << (64 - offset);
        limbs[k] = (int64_t)(bits & ((1ULL << 21) - 1));
    }
}

/* row_moments(grid, queries, first, second): the exact sums of each row of ``grid`` (int64, rows x
 * queries: values on the grid, the caller checks |value| <= 2**62) and of their squares, as carried
 * 21-bit limbs: first (int64, rows x 7), second (rows x 10). */
static PyObject *row_moments(PyObject *self, PyObject *args) {
    Py_buffer grid, first, second;
    Py_ssize_t queries;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nw*w*", &grid, &queries, &first, &second)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = first.len / 8 / 7;
    if (!check(&first, rows * 7, 8, "first") || !check(&second, rows * 10, 8, "second") ||
        !check(&grid, rows * queries, 8, "grid"))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    const int64_t *values = (const int64_t *)grid.buf;
    int64_t *firsts = (int64_t *)first.buf, *seconds = (int64_t *)second.buf;
    for (Py_ssize_t row = 0; row < rows; row++) {
        const int64_t *x = values + row * queries;
        i128 sum;
        i256 squares;
        sums_of(x, NULL, queries, &sum, &squares);
        to_limbs(from_i128(sum), firsts + row * 7, 7);
        to_limbs(squares, seconds + row * 10, 10);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(3, &grid, &first, &second);
    return result;
}

/* the number sum_k limbs[k] 2**(21 k) of ``count`` 21-bit limbs, each of
 * either sign (carried or not: sums of blocks are widened, not carried), as
 * 256 bits */
static inline i256 from_limbs(const int64_t *limbs, Py_ssize_t count) {
    /* six limbs at a time in 128 bits (each below 2**21 in size: |sum| < 2**127), then low + high 2**126 */
    i128 low = 0, high = 0;
    for (Py_ssize_t k = count < 6 ? count - 1 : 5; k >= 0; k--) low = low * (1 << 21) + limbs[k];
    if (count <= 6) return from_i128(low);
    for (Py_ssize_t k = count - 1; k >= 6; k--) high = high * (1 << 21) + limbs[k];
    return add256(from_i128(low), shift_left256(from_i128(high), 126));
}

/* limb_moments(first, first_width, second, second_width, counts, scale, mean, spread):
 * the same from exact moments already summed: 21-bit limbs (int64, P x
 * width, each below 2**21 in size), the first in units of 2**-scale, the
 * second of 2**-(2 scale); counts (int64, P). The caller checks that they
 * fit (first below 2**127, n S2 and S1**2 below 2**254). */
static PyObject *limb_moments(PyObject *self, PyObject *args) {
    Py_buffer first, second, counts, mean, spread;
    Py_ssize_t first_width, second_width;
    int scale;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*ny*ny*iw*w*", &first, &first_width, &second, &second_width, &counts, &scale,
                          &mean, &spread))
        return NULL;
    Py_ssize_t count = counts.len / 8;
    PyObject *result = NULL;
    if (first_width < 1 || second_width < 1 || first_width > 6 || second_width > 12) {
        PyErr_SetString(PyExc_ValueError, "limb_moments: widths out of range");
        goto done;
    }
    if (!check(&first, count * first_width, 8, "first") || !check(&second, count * second_width, 8, "second") ||
        !check(&mean, count, 8, "mean") || !check(&spread, count, 8, "spread"))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    const int64_t *f = (const int64_t *)first.buf, *s = (const int64_t *)second.buf, *n = (const int64_t *)counts.buf;
    double *means = (double *)mean.buf, *spreads = (double *)spread.buf;
    Divisors divisors = divisors_of(1);
    int small = 64;             /* S2 below 2**(128 + small) keeps n S2 below 2**192 */
    for (Py_ssize_t p = 0; p < count; p++) {
        i256 sum = from_limbs(f + p * first_width, first_width);
        i128 value = (i128)(((u128)sum.w[1] << 64) | sum.w[0]);
        if (p == 0 || n[p] != divisors.count) {                 /* mostly one count */
            divisors = divisors_of(n[p]);
            small = 64 - (n[p] > 1 ? 64 - __builtin_clzll((uint64_t)n[p]) : 0);
        }
        i256 second = from_limbs(s + p * second_width, second_width);
        u128 magnitude = value < 0 ? -(u128)value : (u128)value;
        /* n S2 and S1**2 below 2**192 (the common case): three words */
        if (!second.w[3] && (small == 64 || second.w[2] >> small == 0) && magnitude >> 96 == 0)
            finish_pair(value, u192_of(second), &divisors, scale, means + p, spreads + p);
        else
            finish(value, second, &divisors, scale, means + p, spreads + p);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(5, &first, &second, &counts, &mean, &spread);
    return result;
}

/* ---------------------------------------------------------------- the incomplete beta's continued fraction */

#define EPSILON 1e-16
#define TINY 1e-300
#define MAX_TERMS 100000

static inline double clamp(double v) { return fabs(v) < TINY ? TINY : v; }

/* distributions._continued_fraction of n values, operation for operation, four at a time: each lane
 * does the numpy code's operations for its value and takes the next value when it stops, so that four independent chains of divisions overlap
 * in the processor (one value's steps wait on each other) */
#define LANES 4
typedef struct { Py_ssize_t at; int m; double a, b, x, qab, qap, qam, c, d, h; } Lane;

static inline int lane_start(Lane *lane, Py_ssize_t at, const double *a, const double *b, const double *x) {
    lane->at = at;
    lane->m = 1;
    lane->a = a[at];
    lane->b = b[at];
    lane->x = x[at];
    lane->qab = lane->a + lane->b;
    lane->qap = lane->a + 1.0;
    lane->qam = lane->a - 1.0;
    lane->c = 1.0;
    lane->d = 1.0 / clamp(1.0 - lane->qab * lane->x / lane->qap);
    lane->h = lane->d;
    return 1;
}

static void fractions_scalar(const double *a, const double *b, const double *x, double *out, Py_ssize_t n) {
    Lane lanes[LANES];
    Py_ssize_t next = 0;
    int busy = 0;
    for (int l = 0; l < LANES; l++) {
        lanes[l].at = -1;
        if (next < n) busy += lane_start(&lanes[l], next++, a, b, x);
    }
    while (busy) {
        for (int l = 0; l < LANES; l++) {
            Lane *lane = &lanes[l];
            if (lane->at < 0) continue;
            double m2 = 2.0 * lane->m, mm = (double)lane->m, av = lane->a, xv = lane->x;
            double coefficient = mm * (lane->b - mm) * xv / ((lane->qam + m2) * (av + m2));
            double dd = clamp(1.0 + coefficient * lane->d), cc = clamp(1.0 + coefficient / lane->c);
            dd = 1.0 / dd;
            double step = dd * cc;
            coefficient = -(av + mm) * (lane->qab + mm) * xv / ((av + m2) * (lane->qap + m2));
            dd = clamp(1.0 + coefficient * dd);
            cc = clamp(1.0 + coefficient / cc);
            dd = 1.0 / dd;
            double delta = dd * cc;
            lane->h = lane->h * (step * delta);
            lane->d = dd;
            lane->c = cc;
            if (!(fabs(delta - 1.0) > EPSILON) || ++lane->m >= MAX_TERMS) {
                out[lane->at] = lane->h;
                lane->at = -1;
                busy--;
                if (next < n) busy += lane_start(lane, next++, a, b, x);
            }
        }
    }
}

#if defined(HAVE_AVX2_PATHS)
#define VECTORS 4           /* independent vectors of four lanes: enough to keep the divider busy */

__attribute__((target("avx2"))) static inline __m256d clamp4(__m256d v) {
    __m256d size = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
    return _mm256_blendv_pd(v, _mm256_set1_pd(TINY), _mm256_cmp_pd(size, _mm256_set1_pd(TINY), _CMP_LT_OQ));
}

/* fractions_scalar, four lanes to a vector: the same operations per lane (IEEE's +, -, *, / round the same
 * in a vector as alone), so the same bits; a lane that stops is written out and takes the next value */
__attribute__((target("avx2"))) static void fractions_avx2(const double *a, const double *b, const double *x,
                                                            double *out, Py_ssize_t n) {
    enum { L = 4 * VECTORS };
    Lane lanes[L];
    double A[L], B[L], X[L], QAB[L], QAP[L], QAM[L], C[L], D[L], H[L], M[L];
    Py_ssize_t next = 0;
    int busy = 0;
    for (int l = 0; l < L; l++) {         /* n >= L: every lane starts with a value */
        busy += lane_start(&lanes[l], next++, a, b, x);
        A[l] = lanes[l].a; B[l] = lanes[l].b; X[l] = lanes[l].x; QAB[l] = lanes[l].qab; QAP[l] = lanes[l].qap;
        QAM[l] = lanes[l].qam; C[l] = lanes[l].c; D[l] = lanes[l].d; H[l] = lanes[l].h; M[l] = 1.0;
    }
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), sign = _mm256_set1_pd(-0.0);
    const __m256d epsilon = _mm256_set1_pd(EPSILON);
    while (busy) {
        int stopped[VECTORS];
        int any = 0;
        for (int v = 0; v < VECTORS; v++) {
            int o = 4 * v;
            __m256d av = _mm256_loadu_pd(A + o), bv = _mm256_loadu_pd(B + o), xv = _mm256_loadu_pd(X + o);
            __m256d qab = _mm256_loadu_pd(QAB + o), qap = _mm256_loadu_pd(QAP + o), qam = _mm256_loadu_pd(QAM + o);
            __m256d c = _mm256_loadu_pd(C + o), d = _mm256_loadu_pd(D + o), h = _mm256_loadu_pd(H + o);
            __m256d mm = _mm256_loadu_pd(M + o), m2 = _mm256_mul_pd(two, mm);
            __m256d coefficient = _mm256_div_pd(_mm256_mul_pd(_mm256_mul_pd(mm, _mm256_sub_pd(bv, mm)), xv),
                                                _mm256_mul_pd(_mm256_add_pd(qam, m2), _mm256_add_pd(av, m2)));
            __m256d dd = clamp4(_mm256_add_pd(one, _mm256_mul_pd(coefficient, d)));
            __m256d cc = clamp4(_mm256_add_pd(one, _mm256_div_pd(coefficient, c)));
            dd = _mm256_div_pd(one, dd);
            __m256d step = _mm256_mul_pd(dd, cc);
            __m256d negated = _mm256_xor_pd(_mm256_add_pd(av, mm), sign);
            coefficient = _mm256_div_pd(_mm256_mul_pd(_mm256_mul_pd(negated, _mm256_add_pd(qab, mm)), xv),
                                        _mm256_mul_pd(_mm256_add_pd(av, m2), _mm256_add_pd(qap, m2)));
            dd = clamp4(_mm256_add_pd(one, _mm256_mul_pd(coefficient, dd)));
            cc = clamp4(_mm256_add_pd(one, _mm256_div_pd(coefficient, cc)));
            dd = _mm256_div_pd(one, dd);
            __m256d delta = _mm256_mul_pd(dd, cc);
            h = _mm256_mul_pd(h, _mm256_mul_pd(step, delta));
            _mm256_storeu_pd(H + o, h);
            _mm256_storeu_pd(D + o, dd);
            _mm256_storeu_pd(C + o, cc);
            mm = _mm256_add_pd(mm, one);
            _mm256_storeu_pd(M + o, mm);
            __m256d size = _mm256_andnot_pd(sign, _mm256_sub_pd(delta, one));
            /* stops: not |delta - 1| > epsilon (NaN stops too), or the terms run out */
            __m256d going = _mm256_and_pd(_mm256_cmp_pd(size, epsilon, _CMP_GT_OQ),
                                          _mm256_cmp_pd(mm, _mm256_set1_pd((double)MAX_TERMS), _CMP_LT_OQ));
            stopped[v] = ~_mm256_movemask_pd(going) & 15;
            any |= stopped[v];
        }
        if (!any) continue;
        for (int v = 0; v < VECTORS; v++)
            for (int k = 0; k < 4; k++) {
                int l = 4 * v + k;
                if (!(stopped[v] >> k & 1) || lanes[l].at < 0) continue;
                out[lanes[l].at] = H[l];
                lanes[l].at = -1;
                busy--;
                if (next < n) {
                    busy += lane_start(&lanes[l], next++, a, b, x);
                    A[l] = lanes[l].a; B[l] = lanes[l].b; X[l] = lanes[l].x; QAB[l] = lanes[l].qab;
                    QAP[l] = lanes[l].qap; QAM[l] = lanes[l].qam; C[l] = lanes[l].c; D[l] = lanes[l].d;
                    H[l] = lanes[l].h; M[l] = 1.0;
                }
            }
    }
}
#endif

static void fractions(const double *a, const double *b, const double *x, double *out, Py_ssize_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (n >= 4 * VECTORS && vectors_on()) {
        fractions_avx2(a, b, x, out, n);
        return;
    }
#endif
    fractions_scalar(a, b, x, out, n);
}

/* t_prepare(mean, spread, count, p, index, a, b, x, flip) -> n: the paired t-test's two-sided p of each
 * pair, up to the incomplete beta function's transcendental part, in the numpy code's operations and
 * order (conclusions.t_tests, distributions.t_two_sided and betainc). Pairs decided without it get their p
 * (1, or 0 where every difference is equal and not 0, or where |t| is too large); the n others are
 * listed in ``index`` with the beta function's a, b and x after its flip, and whether it flipped. */
static PyObject *t_prepare(PyObject *self, PyObject *args) {
    Py_buffer mean, spread, count, p, index, a, b, x, flip;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*w*w*w*", &mean, &spread, &count, &p, &index, &a, &b, &x, &flip))
        return NULL;
    Py_ssize_t pairs = mean.len / 8, inside = -1;
    if (check(&spread, pairs, 8, "spread") && check(&count, pairs, 8, "count") && check(&p, pairs, 8, "p") &&
        check(&index, pairs, 8, "index") && check(&a, pairs, 8, "a") && check(&b, pairs, 8, "b") &&
        check(&x, pairs, 8, "x") && check(&flip, pairs, 1, "flip")) {
        const double *means = (const double *)mean.buf, *spreads = (const double *)spread.buf;
        const int64_t *counts = (const int64_t *)count.buf;
        double *ps = (double *)p.buf, *as = (double *)a.buf, *bs = (double *)b.buf, *xs = (double *)x.buf;
        int64_t *where = (int64_t *)index.buf;
        unsigned char *flips = (unsigned char *)flip.buf;
        Py_ssize_t listed = 0;
        Py_BEGIN_ALLOW_THREADS          /* the metrics' threads run beside it */
        for (Py_ssize_t i = 0; i < pairs; i++) {
            int64_t n = counts[i];
            if (!(spreads[i] > 0 && n >= 2)) {          /* every difference equal: p 0 if they are not 0 */
                ps[i] = means[i] != 0 && n >= 2 ? 0.0 : 1.0;
                continue;
            }
            double t = means[i] / (spreads[i] / sqrt((double)n)), df = (double)(n - 1), lower, upper;
            if (isinf(t)) {
                lower = 0.0;
                upper = 1.0;
            } else {
                lower = df / (df + t * t);
                upper = (t * t) / (df + t * t);
            }
            if (!(lower > 0.0 && upper > 0.0)) {
                ps[i] = lower <= 0.0 ? 0.0 : 1.0;
                continue;
            }
            double first = df / 2.0, second = 0.5;
            int flipped = lower >= (first + 1.0) / (first + second + 2.0);
            where[listed] = i;
            as[listed] = flipped ? second : first;
            bs[listed] = flipped ? first : second;
            xs[listed] = flipped ? upper : lower;
            flips[listed] = (unsigned char)flipped;
            listed++;
        }
        Py_END_ALLOW_THREADS
        inside = listed;
    }
    release(9, &mean, &spread, &count, &p, &index, &a, &b, &x, &flip);
    return inside < 0 ? NULL : PyLong_FromSsize_t(inside);
}

/* t_finish(a, b, x, front, flip, index, p): for the n values t_prepare listed, the continued fraction,
 * then p[index] = front * fraction / a, or 1 less that where the function flipped (front: numpy's
 * exp(a log x + b log(1 - x) - log B(a, b))) */
static PyObject *t_finish(PyObject *self, PyObject *args) {
    Py_buffer a, b, x, front, flip, index, p;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*w*", &a, &b, &x, &front, &flip, &index, &p)) return NULL;
    Py_ssize_t n = front.len / 8, pairs = p.len / 8;
    PyObject *result = NULL;
    if (!check(&a, n, 8, "a") || !check(&b, n, 8, "b") || !check(&x, n, 8, "x") || !check(&flip, n, 1, "flip") ||
        !check(&index, n, 8, "index"))
        goto done;
    const int64_t *where = (const int64_t *)index.buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (where[i] < 0 || where[i] >= pairs) {
            PyErr_SetString(PyExc_IndexError, "t_finish: an index out of range");
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    const double *as = (const double *)a.buf, *bs = (const double *)b.buf, *xs = (const double *)x.buf;
    const double *fronts = (const double *)front.buf;
    const unsigned char *flips = (const unsigned char *)flip.buf;
    double *ps = (double *)p.buf;
    Py_ssize_t chunk = 4096;
    double buffer[4096];
    for (Py_ssize_t start = 0; start < n; start += chunk) {
        Py_ssize_t count = n - start < chunk ? n - start : chunk;
        fractions(as + start, bs + start, xs + start, buffer, count);
        for (Py_ssize_t i = 0; i < count; i++) {
            double value = fronts[start + i] * buffer[i] / as[start + i];
            ps[where[start + i]] = flips[start + i] ? 1.0 - value : value;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(7, &a, &b, &x, &front, &flip, &index, &p);
    return result;
}

/* continued_fraction(a, b, x, out): float64 arrays of one length */
static PyObject *continued_fraction(PyObject *self, PyObject *args) {
    Py_buffer a, b, x, out;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &a, &b, &x, &out)) return NULL;
    Py_ssize_t count = out.len / 8;
    PyObject *result = NULL;
    if (!check(&a, count, 8, "a") || !check(&b, count, 8, "b") || !check(&x, count, 8, "x")) goto done;
    Py_BEGIN_ALLOW_THREADS
    const double *av = (const double *)a.buf, *bv = (const double *)b.buf, *xv = (const double *)x.buf;
    double *o = (double *)out.buf;
    fractions(av, bv, xv, o, count);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(4, &a, &b, &x, &out);
    return result;
}

/* ---------------------------------------------------------------- lexicographic preferences */

/* the level that decides between two runs of query q that differ, at sorted positions at_a and at_b: the
 * least split level between them (a range-minimum query on ``mins``, levels x queries x width); for LR
 * (``recall``, k_a and k_b the runs' relevant retrieved) element 1 is -k (the larger count's level) and
 * element e >= 2 is p_(k_a - e + 2) */
static inline int64_t deciding_level(const int64_t *mins, Py_ssize_t queries, Py_ssize_t width, Py_ssize_t q,
                                     int64_t at_a, int64_t at_b, int recall, int64_t k_a, int64_t k_b) {
    int64_t low = at_a < at_b ? at_a : at_b, high = at_a < at_b ? at_b : at_a;
    int power = 63 - __builtin_clzll((unsigned long long)(high - low));
    const int64_t *row = mins + ((Py_ssize_t)power * queries + q) * width;
    int64_t left = row[low], right = row[high - ((int64_t)1 << power)];
    int64_t element = left < right ? left : right;
    if (recall) element = element == 1 ? (k_a > k_b ? k_a : k_b) : k_a - (element - 2);
    return element;
}

/* lex_decide(rank, position, table, levels, queries, first, second, counts, sign, level): for k pairs of
 * runs (first[i], second[i]) and every query q, the sign of rank[second, q] - rank[first, q] (int64,
 * runs x queries: each run's dense rank among the runs' sequences, 0 best) as a float, and the recall
 * level that decides (0 where tied). The deciding element (1-based) of the two runs' sequences is the
 * minimum of the split levels between their sorted positions (position, runs x queries), a
 * range-minimum query on ``table`` (int64, levels x queries x width, see preferences.RangeMinimum). For
 * LP it is the level; for LR (``counts``: each segment's relevant retrieved, runs x queries; empty for
 * LP) element 1 is -k (the counts differ: the larger count's level) and element e >= 2 is
 * p_(k_first - e + 2). Outputs k x queries: sign float64, level int64. */
static PyObject *lex_decide(PyObject *self, PyObject *args) {
    Py_buffer rank, position, table, first, second, counts, sign, level;
    Py_ssize_t levels, queries;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*nny*y*y*w*w*", &rank, &position, &table, &levels, &queries, &first, &second,
                          &counts, &sign, &level))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = first.len / 8, cells = rank.len / 8, runs = queries ? cells / queries : 0;
    Py_ssize_t width = levels && queries ? table.len / 8 / levels / queries : 0;
    int recall = counts.len > 0;
    if (!queries || !check(&position, cells, 8, "position") || !check(&second, pairs, 8, "second") ||
        !check(&sign, pairs * queries, 8, "sign") || !check(&level, pairs * queries, 8, "level") ||
        !check(&table, levels * queries * width, 8, "table") || (recall && !check(&counts, cells, 8, "counts")))
        goto done;
    const int64_t *a_runs = (const int64_t *)first.buf, *b_runs = (const int64_t *)second.buf;
    for (Py_ssize_t i = 0; i < pairs; i++)
        if (a_runs[i] < 0 || a_runs[i] >= runs || b_runs[i] < 0 || b_runs[i] >= runs) {
            PyErr_SetString(PyExc_IndexError, "lex_decide: a run out of range");
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    const int64_t *ranks = (const int64_t *)rank.buf, *positions = (const int64_t *)position.buf;
    const int64_t *mins = (const int64_t *)table.buf, *retrieved = (const int64_t *)counts.buf;
    double *signs = (double *)sign.buf;
    int64_t *levels_out = (int64_t *)level.buf;
    for (Py_ssize_t i = 0; i < pairs; i++) {
        Py_ssize_t a = a_runs[i] * queries, b = b_runs[i] * queries;
        double *sign_out = signs + i * queries;
        int64_t *level_out = levels_out + i * queries;
        for (Py_ssize_t q = 0; q < queries; q++) {
            int64_t difference = ranks[b + q] - ranks[a + q];
            sign_out[q] = (double)((difference > 0) - (difference < 0));
            if (!difference) { level_out[q] = 0; continue; }
            level_out[q] = deciding_level(mins, queries, width, q, positions[a + q], positions[b + q], recall,
                                          recall ? retrieved[a + q] : 0, recall ? retrieved[b + q] : 0);
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(8, &rank, &position, &table, &first, &second, &counts, &sign, &level);
    return result;
}

/* lex_run_totals(order, split, rel_rank, rel_starts, num_rel_ret, runs, queries, reciprocal, totals): each
 * run's per-query sum of its preference over every other run, without a pass over the pairs. Per query
 * the runs' sequences sorted best first (order: their segments, queries x runs) and the first element
 * where sorted neighbours differ (split, queries x runs, 1-based, no_split where identical) are a trie:
 * the runs that share a prefix of length L - 1 and differ somewhere split at element L = the least split
 * among them into children (equal L-th elements, in order). A run in child i prefers itself over each run
 * of child j by the sign of j - i (LP, LR: a count) or, with ``reciprocal`` (rrLP), by 1 / p_L of its own
 * ranking less that of the other's, rounded to 2**-40 (as the pairs' blocks round it), summed exactly in
 * integers. Each node costs its runs and its children squared; totals (float64, runs x queries). */
static PyObject *lex_run_totals(PyObject *self, PyObject *args) {
    Py_buffer order, split, rel_rank, rel_starts, num_rel_ret, totals;
    Py_ssize_t runs, queries;
    int reciprocal;
    long long no_split;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*nnpLw*", &order, &split, &rel_rank, &rel_starts, &num_rel_ret, &runs,
                          &queries, &reciprocal, &no_split, &totals))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t cells = runs * queries, ranks = rel_rank.len / 8;
    int64_t *units = NULL, *stack = NULL, *child_start = NULL, *child_size = NULL;
    double *label = NULL;
    if (!check(&order, cells, 8, "order") || !check(&split, cells, 8, "split") || !check(&totals, cells, 8, "totals")
        || !check(&rel_starts, cells, 8, "rel_starts") || !check(&num_rel_ret, cells, 8, "num_rel_ret"))
        goto done;
    const int64_t *segments = (const int64_t *)order.buf, *splits = (const int64_t *)split.buf;
    const int64_t *starts = (const int64_t *)rel_starts.buf, *retrieved = (const int64_t *)num_rel_ret.buf;
    const int64_t *rank = (const int64_t *)rel_rank.buf;
    for (Py_ssize_t i = 0; i < cells; i++)
        if (segments[i] < 0 || segments[i] >= cells || retrieved[i] < 0 || starts[i] < 0 ||
            starts[i] + retrieved[i] > ranks) {
            PyErr_SetString(PyExc_IndexError, "lex_run_totals: a segment out of range");
            goto done;
        }
    units = PyMem_Calloc(cells ? cells : 1, sizeof(int64_t));
    stack = PyMem_Malloc(2 * (runs + 1) * sizeof(int64_t));
    child_start = PyMem_Malloc((runs + 1) * sizeof(int64_t));
    child_size = PyMem_Malloc((runs + 1) * sizeof(int64_t));
    label = PyMem_Malloc((runs + 1) * sizeof(double));
    if (!units || !stack || !child_start || !child_size || !label) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < queries; q++) {
        const int64_t *sorted = segments + q * runs, *between = splits + q * runs;
        Py_ssize_t depth = 0;
        stack[depth++] = 0;
        stack[depth++] = runs;
        while (depth) {
            Py_ssize_t high = stack[--depth], low = stack[--depth];
            if (high - low < 2) continue;
            int64_t level = no_split;
            for (Py_ssize_t j = low; j < high - 1; j++) if (between[j] < level) level = between[j];
            if (level == no_split) continue;                  /* identical sequences: tied throughout */
            Py_ssize_t children = 0;
            child_start[0] = low;
            for (Py_ssize_t j = low; j < high - 1; j++)
                if (between[j] == level) {
                    child_size[children] = j + 1 - child_start[children];
                    child_start[++children] = j + 1;
                }
            child_size[children] = high - child_start[children];
            children++;
            if (reciprocal)
                for (Py_ssize_t c = 0; c < children; c++) {
                    int64_t segment = sorted[child_start[c]];
                    label[c] = level <= retrieved[segment] ? 1.0 / (double)rank[starts[segment] + level - 1] : 0.0;
                }
            int64_t before = 0;
            for (Py_ssize_t c = 0; c < children; c++) {
                int64_t gain;
                if (reciprocal) {
                    gain = 0;
                    for (Py_ssize_t other = 0; other < children; other++)
                        if (other != c)
                            gain += child_size[other] * (int64_t)nearbyint((label[c] - label[other]) * 1099511627776.0);
                } else {
                    gain = (high - low - before - child_size[c]) - before;
                }
                for (Py_ssize_t j = child_start[c]; j < child_start[c] + child_size[c]; j++) units[sorted[j]] += gain;
                before += child_size[c];
                if (child_size[c] >= 2) {
                    stack[depth++] = child_start[c];
                    stack[depth++] = child_start[c] + child_size[c];
                }
            }
        }
    }
    double *out = (double *)totals.buf;
    double unit = reciprocal ? 1.0 / 1099511627776.0 : 1.0;
    for (Py_ssize_t segment = 0; segment < cells; segment++) out[segment] = (double)units[segment] * unit;
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(units);
    PyMem_Free(stack);
    PyMem_Free(child_start);
    PyMem_Free(child_size);
    PyMem_Free(label);
    release(6, &order, &split, &rel_rank, &rel_starts, &num_rel_ret, &totals);
    return result;
}

/* the order of two runs' sequences of one query: 0 where identical, else -L (the first sorts first) or +L
 * (the second does), L the 1-based element where they first differ. LP's sequence is the relevant ranks
 * from the top, then a rank worse than any (a longer sequence sorts first once a shorter one ends); LR's is
 * (-k, p_k, ..., p_1): more relevant retrieved first, then the ranks from the bottom up. */
typedef struct {
    const int64_t *ranks;   /* a run's relevant ranks, from the top */
    int64_t count;          /* how many */
} Sequence;

static inline int64_t sequence_order(const Sequence *a, const Sequence *b, int recall) {
    if (recall) {
        if (a->count != b->count) return a->count > b->count ? -1 : 1;
        for (int64_t i = a->count - 1; i >= 0; i--)
            if (a->ranks[i] != b->ranks[i]) {
                int64_t level = 2 + (a->count - 1 - i);
                return a->ranks[i] < b->ranks[i] ? -level : level;
            }
        return 0;
    }
    int64_t shorter = a->count < b->count ? a->count : b->count;
    for (int64_t i = 0; i < shorter; i++)
        if (a->ranks[i] != b->ranks[i]) return a->ranks[i] < b->ranks[i] ? -(i + 1) : i + 1;
    if (a->count == b->count) return 0;
    return a->count > b->count ? -(shorter + 1) : shorter + 1;
}

/* stable merge sort of the runs ``items`` (n) by their sequences, ``spare`` (n) the scratch space; runs of
 * up to 16 by insertion first */
static void sort_sequences(int64_t *items, int64_t *spare, Py_ssize_t n, const Sequence *sequences, int recall) {
    const Py_ssize_t small = 16;
    for (Py_ssize_t low = 0; low < n; low += small) {
        Py_ssize_t high = low + small < n ? low + small : n;
        for (Py_ssize_t i = low + 1; i < high; i++) {
            int64_t item = items[i];
            Py_ssize_t j = i;
            while (j > low && sequence_order(&sequences[items[j - 1]], &sequences[item], recall) > 0) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = item;
        }
    }
    int64_t *from = items, *to = spare;
    for (Py_ssize_t width = small; width < n; width *= 2) {
        for (Py_ssize_t low = 0; low < n; low += 2 * width) {
            Py_ssize_t middle = low + width < n ? low + width : n, high = low + 2 * width < n ? low + 2 * width : n;
            Py_ssize_t i = low, j = middle, k = low;
            while (i < middle && j < high)     /* ties: the left (earlier) run first */
                to[k++] = sequence_order(&sequences[from[j]], &sequences[from[i]], recall) < 0 ? from[j++] : from[i++];
            while (i < middle) to[k++] = from[i++];
            while (j < high) to[k++] = from[j++];
        }
        int64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != items) memcpy(items, from, (size_t)n * sizeof(int64_t));
}

/* lex_order(rel_rank, rel_starts, num_rel_ret, runs, queries, first_query, stop_query, recall, no_split, order,
 * rank, split): lexicographic_order of LP's (recall false) or LR's sequences for the queries
 * [first_query, stop_query), a query's runs sorted best first, ties in run order. Segments are run * queries
 * + query. order (queries x runs): each sorted place's segment; rank (runs x queries): each segment's dense
 * rank among its query's runs (0 = best); split (queries x runs): the 1-based element where the sequence at
 * a place first differs from the next one's, no_split where they are identical (and at the last place). */
static PyObject *lex_order(PyObject *self, PyObject *args) {
    Py_buffer rel_rank, rel_starts, num_rel_ret, order, rank, split;
    Py_ssize_t runs, queries, first_query, stop_query;
    int recall;
    long long no_split;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*nnnnpLw*w*w*", &rel_rank, &rel_starts, &num_rel_ret, &runs, &queries,
                          &first_query, &stop_query, &recall, &no_split, &order, &rank, &split))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t cells = runs * queries, ranks = rel_rank.len / 8;
    int64_t *items = NULL, *spare = NULL;
    Sequence *sequences = NULL;
    if (runs < 1 || first_query < 0 || stop_query > queries || first_query > stop_query ||
        !check(&rel_starts, cells, 8, "rel_starts") || !check(&num_rel_ret, cells, 8, "num_rel_ret") ||
        !check(&order, cells, 8, "order") || !check(&rank, cells, 8, "rank") || !check(&split, cells, 8, "split")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "lex_order: queries out of range");
        goto done;
    }
    const int64_t *starts = (const int64_t *)rel_starts.buf, *retrieved = (const int64_t *)num_rel_ret.buf;
    for (Py_ssize_t i = 0; i < cells; i++)
        if (retrieved[i] < 0 || starts[i] < 0 || starts[i] + retrieved[i] > ranks) {
            PyErr_SetString(PyExc_IndexError, "lex_order: a segment outside the ranks");
            goto done;
        }
    items = PyMem_Malloc((size_t)runs * sizeof(int64_t));
    spare = PyMem_Malloc((size_t)runs * sizeof(int64_t));
    sequences = PyMem_Malloc((size_t)runs * sizeof(Sequence));
    if (!items || !spare || !sequences) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    const int64_t *all_ranks = (const int64_t *)rel_rank.buf;
    int64_t *sorted = (int64_t *)order.buf, *dense = (int64_t *)rank.buf, *between = (int64_t *)split.buf;
    for (Py_ssize_t q = first_query; q < stop_query; q++) {
        for (Py_ssize_t run = 0; run < runs; run++) {
            Py_ssize_t segment = run * queries + q;
            sequences[run].ranks = all_ranks + starts[segment];
            sequences[run].count = retrieved[segment];
            items[run] = run;
        }
        sort_sequences(items, spare, runs, sequences, recall);
        int64_t place_rank = 0;
        for (Py_ssize_t j = 0; j < runs; j++) {
            sorted[q * runs + j] = items[j] * queries + q;
            dense[items[j] * queries + q] = place_rank;
            int64_t differ = j + 1 < runs ? sequence_order(&sequences[items[j]], &sequences[items[j + 1]], recall) : 0;
            between[q * runs + j] = differ ? (differ < 0 ? -differ : differ) : no_split;
            place_rank += differ != 0;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(items);
    PyMem_Free(spare);
    PyMem_Free(sequences);
    release(6, &rel_rank, &rel_starts, &num_rel_ret, &order, &rank, &split);
    return result;
}

/* reciprocal_difference(rel_rank, rel_starts, num_rel_ret, queries, first, second, level, out): rrLP's and
 * rrLR's value for k pairs of runs and every query: 1 / p_level of the first run's ranking less the same of
 * the second's (0 where that run did not retrieve ``level`` relevant documents), and 0 where ``level`` is 0
 * (tied). Segments are run * queries + query; rel_rank (int64) holds each segment's relevant ranks from
 * rel_starts[segment]. level (int64) and out (float64) are k x queries. */
static PyObject *reciprocal_difference(PyObject *self, PyObject *args) {
    Py_buffer rel_rank, rel_starts, num_rel_ret, first, second, level, out;
    Py_ssize_t queries;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*ny*y*y*w*", &rel_rank, &rel_starts, &num_rel_ret, &queries, &first, &second,
                          &level, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = first.len / 8, segments = rel_starts.len / 8, ranks = rel_rank.len / 8;
    if (!queries || !check(&num_rel_ret, segments, 8, "num_rel_ret") || !check(&second, pairs, 8, "second") ||
        !check(&level, pairs * queries, 8, "level") || !check(&out, pairs * queries, 8, "out"))
        goto done;
    const int64_t *a_runs = (const int64_t *)first.buf, *b_runs = (const int64_t *)second.buf;
    const int64_t *starts = (const int64_t *)rel_starts.buf, *retrieved = (const int64_t *)num_rel_ret.buf;
    for (Py_ssize_t i = 0; i < pairs; i++)
        if (a_runs[i] < 0 || (a_runs[i] + 1) * queries > segments || b_runs[i] < 0 ||
            (b_runs[i] + 1) * queries > segments) {
            PyErr_SetString(PyExc_IndexError, "reciprocal_difference: a run out of range");
            goto done;
        }
    for (Py_ssize_t s = 0; s < segments; s++)
        if (retrieved[s] < 0 || starts[s] < 0 || starts[s] + retrieved[s] > ranks) {
            PyErr_SetString(PyExc_IndexError, "reciprocal_difference: a segment outside the ranks");
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    const int64_t *rank = (const int64_t *)rel_rank.buf, *levels = (const int64_t *)level.buf;
    double *values = (double *)out.buf;
    for (Py_ssize_t i = 0; i < pairs; i++)
        for (Py_ssize_t q = 0; q < queries; q++) {
            Py_ssize_t cell = i * queries + q, a = a_runs[i] * queries + q, b = b_runs[i] * queries + q;
            int64_t at = levels[cell];
            if (!at) { values[cell] = 0.0; continue; }
            double from_a = at >= 1 && at <= retrieved[a] ? 1.0 / (double)rank[starts[a] + at - 1] : 0.0;
            double from_b = at >= 1 && at <= retrieved[b] ? 1.0 / (double)rank[starts[b] + at - 1] : 0.0;
            values[cell] = from_a - from_b;
        }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(7, &rel_rank, &rel_starts, &num_rel_ret, &first, &second, &level, &out);
    return result;
}

/* whether every pair's runs are below ``runs`` and its slot below ``rows`` (an IndexError named ``name`` if not) */
static int pairs_in_range(const int64_t *a_runs, const int64_t *b_runs, const int64_t *slots, Py_ssize_t pairs,
                          Py_ssize_t runs, Py_ssize_t rows, const char *name) {
    for (Py_ssize_t i = 0; i < pairs; i++)
        if (a_runs[i] < 0 || a_runs[i] >= runs || b_runs[i] < 0 || b_runs[i] >= runs || slots[i] < 0 ||
            slots[i] >= rows) {
            PyErr_Format(PyExc_IndexError, "%s: a run or a slot out of range", name);
            return 0;
        }
    return 1;
}

/* lex_moments(rank, position, table, levels, queries, first, second, slot, counts, rel_rank, rel_starts,
 * num_rel_ret, reciprocal, wins, losses, r_first, r_second, r_low, r_high, r_wins, r_losses, r_mean,
 * r_spread): lex_decide's preference for k pairs, summed over the queries without the (k x queries)
 * matrices: each pair's wins and losses (int64, n rows: pair i in row slot[i]), and with ``reciprocal``
 * those of rrLP's or rrLR's values (reciprocal_difference's floats) with row_moments' exact sums on the
 * 2**-62 grid as carried limbs (r_first n x 7, r_second n x 10), their least and greatest values, and the
 * mean and standard deviation those sums give (float64, n; limb_moments' floats). Everything per run is
 * by query (queries x runs: rank, position, counts for LR, and each segment's start in rel_rank and its
 * relevant retrieved, num_rel_ret, with one query's segments together; rel_rank holds 1 / p as float64,
 * numpy's division, made once), so that a tile of pairs reads one query's rows and table at a time. */
#define TILE 65536
static PyObject *lex_moments(PyObject *self, PyObject *args) {
    Py_buffer rank, position, table, first, second, slot, counts, rel_rank, rel_starts, num_rel_ret;
    Py_buffer wins, losses, r_first, r_second, r_low, r_high, r_wins, r_losses, r_mean, r_spread;
    Py_ssize_t levels, queries;
    int reciprocal;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*nny*y*y*y*y*y*y*pw*w*w*w*w*w*w*w*w*w*", &rank, &position, &table, &levels,
                          &queries, &first, &second, &slot, &counts, &rel_rank, &rel_starts, &num_rel_ret, &reciprocal,
                          &wins, &losses, &r_first, &r_second, &r_low, &r_high, &r_wins, &r_losses, &r_mean,
                          &r_spread))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = first.len / 8, cells = rank.len / 8, runs = queries ? cells / queries : 0;
    Py_ssize_t width = levels && queries ? table.len / 8 / levels / queries : 0;
    Py_ssize_t ranked = rel_rank.len / 8;
    Py_ssize_t rows = wins.len / 8, out_pairs = reciprocal ? rows : 0;
    int recall = counts.len > 0;
    if (!queries || !check(&position, cells, 8, "position") || !check(&second, pairs, 8, "second") ||
        !check(&slot, pairs, 8, "slot") ||
        !check(&table, levels * queries * width, 8, "table") || (recall && !check(&counts, cells, 8, "counts")) ||
        !check(&losses, rows, 8, "losses") ||
        !check(&r_first, out_pairs * 7, 8, "r_first") || !check(&r_second, out_pairs * 10, 8, "r_second") ||
        !check(&r_low, out_pairs, 8, "r_low") || !check(&r_high, out_pairs, 8, "r_high") ||
        !check(&r_wins, out_pairs, 8, "r_wins") || !check(&r_losses, out_pairs, 8, "r_losses") ||
        !check(&r_mean, out_pairs, 8, "r_mean") || !check(&r_spread, out_pairs, 8, "r_spread") ||
        (reciprocal && (!check(&rel_starts, cells, 8, "rel_starts") || !check(&num_rel_ret, cells, 8, "num_rel_ret"))))
        goto done;
    const int64_t *a_runs = (const int64_t *)first.buf, *b_runs = (const int64_t *)second.buf;
    const int64_t *slots = (const int64_t *)slot.buf;
    if (!pairs_in_range(a_runs, b_runs, slots, pairs, runs, rows, "lex_moments")) goto done;
    const int64_t *starts_t = (const int64_t *)rel_starts.buf, *retrieved_t = (const int64_t *)num_rel_ret.buf;
    if (reciprocal)
        for (Py_ssize_t s = 0; s < cells; s++)
            if (retrieved_t[s] < 0 || starts_t[s] < 0 || starts_t[s] + retrieved_t[s] > ranked) {
                PyErr_SetString(PyExc_IndexError, "lex_moments: a segment outside the ranks");
                goto done;
            }
    /* the tile's accumulators: 8 int64 and 3 x 16 bytes per pair */
    int64_t *accumulators = PyMem_RawMalloc((size_t)(11 * TILE) * sizeof(int64_t));
    if (!accumulators) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const int64_t *rank_t = (const int64_t *)rank.buf, *position_t = (const int64_t *)position.buf;
    const int64_t *counts_t = (const int64_t *)counts.buf;
    const double *reciprocal_rank = (const double *)rel_rank.buf;       /* 1 / p, made once */
    const int64_t *mins = (const int64_t *)table.buf;
    int64_t *win_out = (int64_t *)wins.buf, *loss_out = (int64_t *)losses.buf;
    int64_t *first_out = (int64_t *)r_first.buf, *second_out = (int64_t *)r_second.buf;
    int64_t *r_win_out = (int64_t *)r_wins.buf, *r_loss_out = (int64_t *)r_losses.buf;
    double *low_out = (double *)r_low.buf, *high_out = (double *)r_high.buf;
    double *mean_out = (double *)r_mean.buf, *spread_out = (double *)r_spread.buf;
    Divisors divisors = divisors_of(queries);
    int64_t *won = accumulators, *lost = won + TILE, *r_won = lost + TILE, *r_lost = r_won + TILE;
    uint64_t *square_high = (uint64_t *)(r_lost + TILE);
    double *least = (double *)(square_high + TILE), *most = least + TILE;
    i128 *sum = (i128 *)(most + TILE);
    u128 *square_low = (u128 *)(sum + TILE);
    for (Py_ssize_t start = 0; start < pairs; start += TILE) {
        Py_ssize_t tile = pairs - start < TILE ? pairs - start : TILE;
        const int64_t *a_tile = a_runs + start, *b_tile = b_runs + start;
        for (Py_ssize_t i = 0; i < tile; i++) {
            won[i] = lost[i] = r_won[i] = r_lost[i] = 0;
            sum[i] = 0;
            square_low[i] = 0;
            square_high[i] = 0;
            least[i] = INFINITY;
            most[i] = -INFINITY;
        }
        for (Py_ssize_t q = 0; q < queries; q++) {
            const int64_t *rank_q = rank_t + q * runs, *position_q = position_t + q * runs;
            const int64_t *counts_q = recall ? counts_t + q * runs : NULL, *starts_q = starts_t + q * runs;
            const int64_t *retrieved_q = retrieved_t + q * runs;
            for (Py_ssize_t i = 0; i < tile; i++) {
                int64_t a = a_tile[i], b = b_tile[i];
                int64_t difference = rank_q[b] - rank_q[a];
                won[i] += difference > 0;
                lost[i] += difference < 0;
                if (!reciprocal) continue;
                double value = 0.0;
                if (difference) {
                    int64_t at = deciding_level(mins, queries, width, q, position_q[a], position_q[b], recall,
                                                recall ? counts_q[a] : 0, recall ? counts_q[b] : 0);
                    double from_a = at >= 1 && at <= retrieved_q[a] ? reciprocal_rank[starts_q[a] + at - 1] : 0.0;
                    double from_b = at >= 1 && at <= retrieved_q[b] ? reciprocal_rank[starts_q[b] + at - 1] : 0.0;
                    value = from_a - from_b;
                }
                /* row_moments' grid: |value| <= 1, so value 2**62 is exact, and rint its integer */
                int64_t grid = (int64_t)rint(value * 0x1p62);
                sum[i] += grid;
                u128 square = (u128)((i128)grid * grid), before = square_low[i];
                square_low[i] += square;
                square_high[i] += square_low[i] < before;
                r_won[i] += value > 0;
                r_lost[i] += value < 0;
                least[i] = value < least[i] ? value : least[i];
                most[i] = value > most[i] ? value : most[i];
            }
        }
        for (Py_ssize_t i = 0; i < tile; i++) {
            Py_ssize_t at = slots[start + i];
            win_out[at] = won[i];
            loss_out[at] = lost[i];
            if (!reciprocal) continue;
            i256 squares = {{(uint64_t)square_low[i], (uint64_t)(square_low[i] >> 64), square_high[i], 0}};
            to_limbs(from_i128(sum[i]), first_out + at * 7, 7);
            to_limbs(squares, second_out + at * 10, 10);
            /* the mean and deviation from the same sums (|grid| <= 2**62: below 2**192, see finish_pair) */
            finish_pair(sum[i], u192_of(squares), &divisors, 62, mean_out + at, spread_out + at);
            r_win_out[at] = r_won[i];
            r_loss_out[at] = r_lost[i];
            low_out[at] = least[i];
            high_out[at] = most[i];
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(accumulators);
    result = Py_None;
    Py_INCREF(result);
done:
    release(20, &rank, &position, &table, &first, &second, &slot, &counts, &rel_rank, &rel_starts, &num_rel_ret, &wins,
            &losses, &r_first, &r_second, &r_low, &r_high, &r_wins, &r_losses, &r_mean, &r_spread);
    return result;
}

/* a pair's wins and losses from its two rows of ranks (the compiler makes vectors of the loop: 8 queries at a
 * time in the AVX2 build of it) */
#define COUNT_SIGNS_BODY                                                                                        \
    int32_t won = 0, lost = 0;                                                                                  \
    for (Py_ssize_t q = 0; q < queries; q++) {                                                                 \
        won += of_b[q] > of_a[q];                                                                               \
        lost += of_b[q] < of_a[q];                                                                              \
    }                                                                                                           \
    *wins = won;                                                                                                \
    *losses = lost;

static void count_signs(const int32_t *of_a, const int32_t *of_b, Py_ssize_t queries, int64_t *wins,
                        int64_t *losses) {
    COUNT_SIGNS_BODY
}

#if defined(HAVE_AVX2_PATHS)
__attribute__((target("avx2"))) static void count_signs_avx2(const int32_t *of_a, const int32_t *of_b,
                                                              Py_ssize_t queries, int64_t *wins, int64_t *losses) {
    COUNT_SIGNS_BODY
}
#endif

/* lex_signs(rank, queries, first, second, slot, wins, losses): LP's or LR's wins and losses for k pairs of
 * runs summed over the queries, into rows ``slot`` of wins and losses: the queries where the first run's
 * dense rank (runs x queries, a run's queries together) is better (lower) than the second's, and worse. What
 * lex_moments counts, without its levels: a pair's two rows of ranks are compared side by side. */
static PyObject *lex_signs(PyObject *self, PyObject *args) {
    Py_buffer rank, first, second, slot, wins, losses;
    Py_ssize_t queries;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*w*w*", &rank, &queries, &first, &second, &slot, &wins, &losses))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = first.len / 8, rows = wins.len / 8, runs = queries ? rank.len / 4 / queries : 0;
    if (!queries || !check(&rank, runs * queries, 4, "rank") || !check(&second, pairs, 8, "second") ||
        !check(&slot, pairs, 8, "slot") || !check(&losses, rows, 8, "losses")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "lex_signs: no queries");
        goto done;
    }
    const int64_t *a_runs = (const int64_t *)first.buf, *b_runs = (const int64_t *)second.buf;
    const int64_t *slots = (const int64_t *)slot.buf;
    if (!pairs_in_range(a_runs, b_runs, slots, pairs, runs, rows, "lex_signs")) goto done;
    Py_BEGIN_ALLOW_THREADS
    const int32_t *ranks = (const int32_t *)rank.buf;
    int64_t *win_out = (int64_t *)wins.buf, *loss_out = (int64_t *)losses.buf;
    void (*count)(const int32_t *, const int32_t *, Py_ssize_t, int64_t *, int64_t *) = count_signs;
#if defined(HAVE_AVX2_PATHS)
    if (vectors_on()) count = count_signs_avx2;
#endif
    for (Py_ssize_t i = 0; i < pairs; i++)
        count(ranks + a_runs[i] * queries, ranks + b_runs[i] * queries, queries, win_out + slots[i],
              loss_out + slots[i]);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    release(6, &rank, &first, &second, &slot, &wins, &losses);
    return result;
}

/* vectors(on) -> bool: turns the AVX2 paths on (where the processor has AVX2) or off; returns whether they
 * were on. For the tests, which compare the two. */
static PyObject *vectors(PyObject *self, PyObject *args) {
    int on;
    (void)self;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int before = vectors_on();
    vector_paths = -1;
    if (!on || !vectors_on()) vector_paths = 0;
    return PyBool_FromLong(before);
}

static PyMethodDef methods[] = {
    {"vectors", vectors, METH_VARARGS, "vectors(on) -> bool: the AVX2 paths on or off (for the tests); whether they were on."},
    {"pair_moments", pair_moments, METH_VARARGS,
     "pair_moments(grid, queries, pairs, scale, mean, spread): each pair's mean and standard deviation of its "
     "differences, from the runs' values on the grid (see lexeval.compiled)."},
    {"row_moments", row_moments, METH_VARARGS,
     "row_moments(grid, queries, first, second): exact sums of rows and of their squares, as carried limbs."},
    {"limb_moments", limb_moments, METH_VARARGS,
     "limb_moments(first, first_width, second, second_width, counts, scale, mean, spread): the same from exact "
     "moments as carried limbs."},
    {"lex_decide", lex_decide, METH_VARARGS,
     "lex_decide(rank, position, table, levels, queries, first, second, counts, sign, level): LP's or LR's sign "
     "and deciding level for pairs of runs (see lexeval.compiled)."},
    {"lex_moments", lex_moments, METH_VARARGS,
     "lex_moments(rank, position, table, levels, queries, first, second, slot, counts, rel_rank, rel_starts, "
     "num_rel_ret, reciprocal, wins, losses, r_first, r_second, r_low, r_high, r_wins, r_losses, r_mean, r_spread): "
     "LP's or LR's wins and losses per pair, and rrLP's or rrLR's exact moments, mean and deviation (see "
     "lexeval.compiled)."},
    {"lex_order", lex_order, METH_VARARGS,
     "lex_order(rel_rank, rel_starts, num_rel_ret, runs, queries, first_query, stop_query, recall, no_split, order, "
     "rank, split): LP's or LR's sequences sorted per query, with dense ranks and split levels (see "
     "lexeval.compiled)."},
    {"lex_signs", lex_signs, METH_VARARGS,
     "lex_signs(rank, queries, first, second, slot, wins, losses): LP's or LR's wins and losses per pair (see "
     "lexeval.compiled)."},
    {"lex_run_totals", lex_run_totals, METH_VARARGS,
     "lex_run_totals(order, split, rel_rank, rel_starts, num_rel_ret, runs, queries, reciprocal, no_split, totals): "
     "each run's per-query sum of LP, LR or rrLP over every other run (see lexeval.compiled)."},
    {"reciprocal_difference", reciprocal_difference, METH_VARARGS,
     "reciprocal_difference(rel_rank, rel_starts, num_rel_ret, queries, first, second, level, out): rrLP's and "
     "rrLR's values for pairs of runs (see lexeval.compiled)."},
    {"t_prepare", t_prepare, METH_VARARGS,
     "t_prepare(mean, spread, count, p, index, a, b, x, flip) -> n: the t-test up to the beta function's "
     "transcendental part (see lexeval.compiled.t_test_p)."},
    {"t_finish", t_finish, METH_VARARGS,
     "t_finish(a, b, x, front, flip, index, p): the t-test's p from the beta function's front factor."},
    {"continued_fraction", continued_fraction, METH_VARARGS,
     "continued_fraction(a, b, x, out): the incomplete beta function's continued fraction, value by value."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_exact", "lexeval's compiled statistics kernel", -1,
                                     methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__exact(void) { return PyModule_Create(&module); }
