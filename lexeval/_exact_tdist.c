/* lexeval's compiled statistics kernel: the t and binomial tails' continued fraction, four
 * lanes to a vector where the processor has AVX2, and the t-test around it (see _exact.h) */
#include "_exact.h"

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
PyObject *t_prepare(PyObject *self, PyObject *args) {
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
PyObject *t_finish(PyObject *self, PyObject *args) {
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
PyObject *continued_fraction(PyObject *self, PyObject *args) {
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
