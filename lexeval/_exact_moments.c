/* lexeval's compiled statistics kernel: the pairs' exact moments, and their correctly rounded
 * means and standard deviations (see _exact.h) */
#include "_exact.h"

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
    u128 low = (u128)level[0] + ((u128)level[1] << LIMB_BITS) + ((u128)level[2] << (2 * LIMB_BITS)) +
        ((u128)level[3] << (3 * LIMB_BITS));
    u192 cross = {low, 0}, top = {(u128)(level[4] << (4 * LIMB_BITS - 64)) << 64, level[4] >> (128 - 4 * LIMB_BITS)};
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
PyObject *pair_moments(PyObject *self, PyObject *args) {
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
                    limbs[(3 * r + k) * width + q] = (shifted[r * queries + q] >> (LIMB_BITS * k)) & LIMB_MASK;
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


/* row_moments(grid, queries, first, second): the exact sums of each row of ``grid`` (int64, rows x
 * queries: values on the grid, the caller checks |value| <= 2**62) and of their squares, as carried
 * 21-bit limbs: first (int64, rows x 7), second (rows x 10). */
PyObject *row_moments(PyObject *self, PyObject *args) {
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
        to_limbs(from_i128(sum), firsts + row * FIRST_LIMBS, FIRST_LIMBS);
        to_limbs(squares, seconds + row * SECOND_LIMBS, SECOND_LIMBS);
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
    for (Py_ssize_t k = count < 6 ? count - 1 : 5; k >= 0; k--) low = low * (1 << LIMB_BITS) + limbs[k];
    if (count <= 6) return from_i128(low);
    for (Py_ssize_t k = count - 1; k >= 6; k--) high = high * (1 << LIMB_BITS) + limbs[k];
    return add256(from_i128(low), shift_left256(from_i128(high), 6 * LIMB_BITS));
}

/* limb_moments(first, first_width, second, second_width, counts, scale, mean, spread):
 * the same from exact moments already summed: 21-bit limbs (int64, P x
 * width, each below 2**21 in size), the first in units of 2**-scale, the
 * second of 2**-(2 scale); counts (int64, P). The caller checks that they
 * fit (first below 2**127, n S2 and S1**2 below 2**254). */
PyObject *limb_moments(PyObject *self, PyObject *args) {
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
