/* lexeval's compiled statistics kernel: the bounds of two runs' difference under one assignment of grades to
 * the unjudged documents shared by both (see lexeval/bounds/pairs.py, the reference, which says why each kind
 * is exact). Each (pair, query) reads the two rankings' unjudged documents only: the judged part of every
 * difference comes from per-run values and first relevant ranks made once, and per-depth counts made from the
 * codes once per query. */
#include "_exact.h"

enum { LINEAR = 0, FIRST = 1, RECALL = 2, DEPTH = 3, GAIN = 4 };

typedef struct {
    int64_t *rank_a, *stamp_a, *stamp_b, *parent, *parent_stamp;   /* rank_a: a hole's place in A's list */
    int64_t *partner_a, *partner_b;   /* per hole of A (of B), its rank in B (in A), 0 if absent */
    double *values;
    int64_t *coefficient, *coefficient_stamp, *undo;   /* rrLR: per class its coefficient; the links to undo */
    int64_t *only_above;              /* rrLR: A's only unjudged documents at or above each rank */
    double *prefix, *best_upto;       /* nDCG: the sums of the largest weights; a layer's best chain so far */
    double *ideals;                   /* nDCG: per layer l and count t, the ideal's discounts of J_l + t */
    double *discount;                 /* nDCG: 1 / log2(r + 1) of each rank r */
    double *merged;                   /* nDCG: the weights' three sorted lists, before they are merged */
    int64_t *chosen;                  /* nDCG: per layer and count, the next layer's best count */
    int64_t *counts;                  /* nDCG: a chain's counts, one per layer */
    int64_t longest, now;
} Scratch;

/* Every pair's runs in [0, runs) and every compared query in [0, queries); else an IndexError naming ``who``. */
static int pairs_and_queries_in_range(const char *who, const int64_t *pair, Py_ssize_t count_pairs, Py_ssize_t runs,
                                      const int64_t *chosen, Py_ssize_t count_compared, Py_ssize_t queries) {
    for (Py_ssize_t k = 0; k < 2 * count_pairs; k++)
        if (pair[k] < 0 || pair[k] >= runs) {
            PyErr_Format(PyExc_IndexError, "%s: a run out of range", who);
            return 0;
        }
    for (Py_ssize_t k = 0; k < count_compared; k++)
        if (chosen[k] < 0 || chosen[k] >= queries) {
            PyErr_Format(PyExc_IndexError, "%s: a query out of range", who);
            return 0;
        }
    return 1;
}

/* the documents' numbers among their query's unjudged documents (-1: judged), int16 where every query's fit (half
 * the memory), else int32 (``wide``) */
typedef struct { const void *at; int wide; } Ids;

/* the numbers from the document at ``offset`` on */
static inline Ids ids_at(Ids ids, int64_t offset) {
    Ids from = {ids.wide ? (const void *)((const int32_t *)ids.at + offset)
                         : (const void *)((const int16_t *)ids.at + offset), ids.wide};
    return from;
}

/* whether every number of the unjudged documents (code < 0) is in [0, most): a loop per
 * case, each without a branch, in a function of its own, that the compiler makes vector instructions of (a test
 * inside the loop, or the loop inlined in a kernel, kept it scalar, and the check, made on every call over every
 * ranked document, cost more than a third of LP's bounds); and without the GIL, so that the calls on other threads
 * go on meanwhile */
static __attribute__((noinline)) int holes_numbered(const int16_t *codes, Ids ids, Py_ssize_t count, int64_t most) {
    /* read as uint32, a negative number is 2**31 or more: past ``limit`` however large ``most`` is */
    uint32_t bad = 0, limit = most > INT32_MAX ? (uint32_t)1 << 31 : (uint32_t)(most < 0 ? 0 : most);
    const int32_t *wide = ids.at;
    const int16_t *narrow = ids.at;
    Py_BEGIN_ALLOW_THREADS
    if (ids.wide)
        for (Py_ssize_t k = 0; k < count; k++) bad |= (uint32_t)(codes[k] < 0) & (uint32_t)((uint32_t)wide[k] >= limit);
    else
        for (Py_ssize_t k = 0; k < count; k++)
            bad |= (uint32_t)(codes[k] < 0) & (uint32_t)((uint32_t)(int32_t)narrow[k] >= limit);
    Py_END_ALLOW_THREADS
    return !bad;
}

/* a buffer of the documents' numbers among their query's unjudged documents (``hole_ids``): int16 or int32 (two
 * or four bytes a document), else 0 with ValueError set */
static int ids_of(Py_buffer *b, Py_ssize_t documents, const char *who, Ids *ids) {
    ids->at = b->buf;
    ids->wide = b->len == 4 * documents;
    if (b->len != 4 * documents && b->len != 2 * documents) {
        PyErr_Format(PyExc_ValueError, "%s: hole_ids of %zd bytes, expected int16 or int32 for %zd documents", who,
                     b->len, documents);
        return 0;
    }
    return 1;
}

static double linear_weight(int variant, int64_t rank, int64_t length, double depth) {
    if (rank == 0 || (double)rank > depth) return 0.0;
    switch (variant) {
    case 0: return 1.0 / depth;                              /* P.k */
    case 1: return length ? 1.0 / (double)length : 0.0;      /* set_P */
    case 2: return 1.0;                                       /* hits */
    default: return 1.0 / log2((double)rank + 1.0);           /* the DCGs */
    }
}

static double first_value(int variant, int64_t rank, double depth) {
    if (rank == 0 || (double)rank > depth) return 0.0;
    return variant == 0 ? 1.0 / (double)rank : 1.0;
}

static int64_t earlier(int64_t x, int64_t y) { return x == 0 ? y : y == 0 ? x : (x < y ? x : y); }

/* x[0 .. n) ascending (doubles, no NaN; equal ones are equal bits here): runs of 16 by insertion, then merged
 * pairwise through tmp (room for n) */
static void sort_doubles(double *x, int64_t n, double *tmp) {
    for (int64_t start = 0; start < n; start += 16) {
        int64_t end = start + 16 < n ? start + 16 : n;
        for (int64_t i = start + 1; i < end; i++) {
            double v = x[i];
            int64_t k = i;
            for (; k > start && x[k - 1] > v; k--) x[k] = x[k - 1];
            x[k] = v;
        }
    }
    double *from = x, *to = tmp;
    for (int64_t width = 16; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, k = mid, at = lo;
            while (i < mid && k < hi) to[at++] = from[k] < from[i] ? from[k++] : from[i++];
            while (i < mid) to[at++] = from[i++];
            while (k < hi) to[at++] = from[k++];
        }
        double *swap = from; from = to; to = swap;
    }
    if (from != x) memcpy(x, from, (size_t)n * sizeof(double));
}

typedef struct {           /* one ranking's unjudged documents: ranks and numbers, in rank order */
    const int32_t *rank;
    const int32_t *id;
    int64_t count, length;
    const int16_t *codes;    /* its documents' relevance codes, in rank order */
    int64_t first;           /* its first judged relevant rank, 0 if none */
    const int64_t *partner;  /* per hole, its rank in the other ranking (0: absent) */
} Side;

/* one pair's unjudged documents per depth d (0 .. longest: the longer ranking's length, or the deepest a column
 * reads): each ranking's within d (holes_a, holes_b) and those both hold within d in both (shared). A hole raises
 * the difference at depth d where it is in A's top d and not B's, and lowers it the other way round */
typedef struct {
    const int32_t *shared, *holes_a, *holes_b;
    const int32_t *judged_a, *judged_b;   /* per depth (0 .. cap), each ranking's judged relevant documents within it */
    int64_t stride;          /* shared: d's count at shared[d * stride] (a group's pairs side by side) */
    int64_t longest, cap;
    const int32_t *scanned;  /* R-precision's greatest and least (numerator, depth each), where scanned */
    /* where the group's pass (fused_scan) counted the shared holes: only at the ``saved`` depths (P's, hits'), a
     * row of ``stride`` each, and ``total`` (every shared hole: the count from the pair's longest on) */
    const int32_t *saved;
    const int64_t *saved_depth;
    int64_t saved_count, total;
} Depths;

static int64_t shared_within(const Depths *t, int64_t d) {
    if (!t->saved) return t->shared[d * t->stride];
    if (d >= t->longest) return t->total;
    for (int64_t k = 0; k < t->saved_count; k++)
        if (t->saved_depth[k] == d) return t->saved[k * t->stride];
    return d <= 0 ? 0 : -1;         /* every depth a column reads is saved (difference_bounds' fused): never reached */
}
static int64_t raising(const Depths *t, int64_t d) { return (int64_t)t->holes_a[d] - shared_within(t, d); }
static int64_t lowering(const Depths *t, int64_t d) { return (int64_t)t->holes_b[d] - shared_within(t, d); }

/* whether a column reads the Depths: R-precision's, and P's and hits' (equal weights in both runs) */
static int reads_sides(int kind, int variant) { return kind == DEPTH || (kind == LINEAR && (variant == 0 || variant == 2)); }

/* nDCG's layers of gain on one query: the steps v_l - v_(l-1) between the distinct positive gains, and the
 * qrels' documents of gain at least v_l (see lexeval/bounds/pairs.py) */
typedef struct {
    int64_t count;
    const double *step;
    const int64_t *judged;       /* judged[l * stride] */
    Py_ssize_t stride;
} Layers;

/* the ideal DCG's discounts of the first ``reach`` ranks, within the depth */
static double ideal_discounts(const double *ideal_before, int64_t ideal_size, int64_t reach, double depth) {
    if ((double)reach > depth) reach = (int64_t)depth;
    if (reach >= ideal_size) reach = ideal_size - 1;
    return ideal_before[reach];
}

typedef struct {             /* what a chain (T_1 >= ... >= T_L) of nDCG's layers is scored with */
    const Layers *layers;
    const double *prefix;    /* the sums of the t largest weights, t = 0 .. holes */
    int64_t holes;
    double base, depth;
    const double *ideal_before;
    int64_t ideal_size;
} Chains;

/* the difference (base + sum of step_l W(T_l)) over the ideal (sum of step_l D(J_l + T_l)), 0 where that is 0 */
static double chain_value(const Chains *c, const int64_t *counts) {
    double numerator = c->base, ideal = 0.0;
    for (int64_t l = 0; l < c->layers->count; l++) {
        double step = c->layers->step[l];
        numerator += step * c->prefix[counts[l]];
        ideal += step * ideal_discounts(c->ideal_before, c->ideal_size,
                                        c->layers->judged[l * c->layers->stride] + counts[l], c->depth);
    }
    return ideal > 0 ? numerator / ideal : 0.0;
}

/* the chain (into counts) of the greatest numerator - lambda ideal: from the last layer up, each count's best
 * with the next layers' counts at most it (a running best), then the first layer's best at or above ``least`` */
static void best_chain(Scratch *s, const Chains *c, double lambda, int64_t least, int64_t *counts) {
    int64_t layers = c->layers->count, n = c->holes;
    double *value = s->merged + 2 * (n + 1);        /* each count's, a loop of its own (vector instructions) */
    for (int64_t l = layers - 1; l >= 0; l--) {
        double step = c->layers->step[l];
        const double *ideal = s->ideals + l * (n + 1);
        int64_t *chosen = s->chosen + l * (n + 1);
        for (int64_t t = 0; t <= n; t++) value[t] = step * (c->prefix[t] - lambda * ideal[t]);
        if (l + 1 < layers)
            for (int64_t t = 0; t <= n; t++) value[t] += s->best_upto[t];
        if (l == 0)
            for (int64_t t = 0; t < least && t <= n; t++) value[t] = -INFINITY;
        double running = -INFINITY;
        int64_t at = 0;
        for (int64_t t = 0; t <= n; t++) {
            if (value[t] > running) { running = value[t]; at = t; }
            s->best_upto[t] = running;
            chosen[t] = at;
        }
    }
    counts[0] = s->chosen[n];
    for (int64_t l = 1; l < layers; l++) counts[l] = s->chosen[l * (n + 1) + counts[l - 1]];
}

/* the greatest chain_value over every chain. One layer: every count tried. More: Dinkelbach's iteration (the
 * best chain for the ratio so far, until its ratio is no larger), exact on a finite set; where no document of the
 * qrels has a positive gain, the chain of no relevant hole (value 0) is kept aside and the rest start at 1 */
static double best_ratio(Scratch *s, const Chains *c) {
    int64_t *counts = s->counts, layers = c->layers->count, n = c->holes;
    for (int64_t l = 0; l < layers; l++)       /* the ideal's discounts per layer and count, once */
        for (int64_t t = 0; t <= n; t++)
            s->ideals[l * (n + 1) + t] = ideal_discounts(c->ideal_before, c->ideal_size,
                                                         c->layers->judged[l * c->layers->stride] + t, c->depth);
    int64_t least = c->layers->judged[0] > 0 ? 0 : 1;
    double best = least ? 0.0 : -INFINITY;
    if (n < least) return best;
    /* every chain of one grade for every relevant hole (chain_value's operations in its order, in loops of their
     * own: vector divisions); with one layer, those are every chain */
    double *numerator = s->merged, *ideal = s->merged + (n + 1), lambda = -INFINITY;
    for (int64_t t = 0; t <= n; t++) { numerator[t] = c->base; ideal[t] = 0.0; }
    for (int64_t l = 0; l < layers; l++) {
        double step = c->layers->step[l];
        const double *discounts = s->ideals + l * (n + 1);
        for (int64_t t = 0; t <= n; t++) {
            numerator[t] += step * c->prefix[t];
            ideal[t] += step * discounts[t];
        }
    }
    for (int64_t t = 0; t <= n; t++)
        numerator[t] = ideal[t] > 0 ? numerator[t] / (ideal[t] > 0 ? ideal[t] : 1.0) : 0.0;
    for (int64_t t = least; t <= n; t++) lambda = numerator[t] > lambda ? numerator[t] : lambda;
    if (layers == 1) return lambda > best ? lambda : best;
    /* more layers: Dinkelbach's iteration from there */
    for (int round = 0; round < 200; round++) {
        best_chain(s, c, lambda, least, counts);
        double value = chain_value(c, counts);
        if (!(value > lambda)) break;
        lambda = value;
    }
    return lambda > best ? lambda : best;
}

/* R-precision (Rprec_mult) with ``many`` relevant holes: its depth (reach; over: at least 1), the greatest (top)
 * and least (bottom) count of A's relevant documents less B's (0 at depth 0), and the holes within reach that
 * raise (plus) and lower (minus) it */
typedef struct { int64_t reach, over, top, bottom, plus, minus; } Point;

static void depth_point(const Depths *t, const Side *a, const Side *b, double depth, int64_t num_rel,
                        int64_t union_count, int variable, int all_relevant, int64_t many, Point *x) {
    int64_t total = num_rel + many;
    x->reach = depth < 0 ? total : (int64_t)floor(depth * (double)total + 0.9);
    x->over = x->reach >= 1 ? x->reach : 1;
    x->plus = x->minus = 0;
    if (x->reach < 1) { x->top = x->bottom = 0; return; }                      /* the value is 0 */
    int64_t upto = x->reach < t->longest ? x->reach : t->longest;     /* past it, no count changes */
    int64_t plus = x->plus = raising(t, upto), minus = x->minus = lowering(t, upto);
    int64_t judged = (int64_t)t->judged_a[upto] - t->judged_b[upto];
    int64_t zero = union_count - plus - minus;
    if (variable) {
        x->top = judged + (many < plus ? many : plus) - (many - plus - zero > 0 ? many - plus - zero : 0);
        x->bottom = judged - (many < minus ? many : minus) + (many - minus - zero > 0 ? many - minus - zero : 0);
    } else {
        x->top = x->bottom = judged + (all_relevant ? plus - minus : 0);
    }
}

/* R-precision's (Rprec: the depth R + m with m relevant holes) greatest and least difference for n pairs of one A
 * (slots) side by side, over every m from 0 to each pair's unjudged documents u: a full scan, each depth's counts
 * read once, in rows (the loop over the slots becomes vector instructions; a slot whose u is -1 is never in range,
 * so that a caller pads the slots to whole vectors and the loop has no scalar tail). The counts at depth d, clamped at
 * ``longest`` (deeper, none changes): the shared holes shared[d * shared_stride + slot], A's holes and judged
 * relevant holes_a[d] and judged_a[d], B's holes_b[d * b_stride + slot] and judged_b[d * b_stride + slot]; each
 * extreme, as depth_point makes it, kept as a fraction (numerator, depth) and compared by cross products in
 * ``product``: int32 while the squares of the depths fit it (the caller chooses) */
typedef struct {
    const int32_t *shared, *holes_a, *judged_a, *holes_b, *judged_b;
    int64_t shared_stride, b_stride, longest, num_rel;
} Rows;

#define RPREC_SCAN(name, product, target)                                                                          \
target static void name(const Rows *r, int64_t n, const int32_t *restrict u, int64_t most_u,                       \
                        int32_t *restrict top, int32_t *restrict top_over, int32_t *restrict bottom,               \
                        int32_t *restrict bottom_over) {                                                           \
    int32_t num_rel = (int32_t)r->num_rel, longest = (int32_t)r->longest;                                          \
    for (int64_t s = 0; s < n; s++) {   /* depth 0 (no relevant document at all) scores 0; else none seen yet */   \
        top[s] = num_rel ? -1 : 0; bottom[s] = num_rel ? 1 : 0; top_over[s] = bottom_over[s] = num_rel ? 0 : 1;    \
    }                                                                                                              \
    for (int32_t m = num_rel ? 0 : 1; m <= most_u; m++) {                                                          \
        int32_t d = num_rel + m, e = d < longest ? d : longest;                                                    \
        const int32_t *restrict shared = r->shared + e * r->shared_stride;                                         \
        const int32_t *restrict holes_b = r->holes_b + e * r->b_stride;                                            \
        const int32_t *restrict judged_b = r->judged_b + e * r->b_stride;                                          \
        int32_t holes_a = r->holes_a[e], judged_a = r->judged_a[e];                                                \
        for (int64_t s = 0; s < n; s++) {                                                                          \
            int32_t plus = holes_a - shared[s], minus = holes_b[s] - shared[s], judged = judged_a - judged_b[s];   \
            int32_t zero = u[s] - plus - minus;                                                                    \
            int32_t raised = m - plus - zero, lowered = m - minus - zero;                                          \
            int32_t high = judged + (m < plus ? m : plus) - (raised > 0 ? raised : 0);                             \
            int32_t low = judged - (m < minus ? m : minus) + (lowered > 0 ? lowered : 0);                          \
            int in_range = m <= u[s];                                                                              \
            int higher = in_range & ((product)high * top_over[s] > (product)top[s] * d);                           \
            int lower = in_range & ((product)low * bottom_over[s] < (product)bottom[s] * d);                       \
            top[s] = higher ? high : top[s];                                                                       \
            top_over[s] = higher ? d : top_over[s];                                                                \
            bottom[s] = lower ? low : bottom[s];                                                                   \
            bottom_over[s] = lower ? d : bottom_over[s];                                                           \
        }                                                                                                          \
    }                                                                                                              \
}
RPREC_SCAN(rprec_scan_narrow, int32_t, )
RPREC_SCAN(rprec_scan_wide, int64_t, )
#if defined(HAVE_AVX2_PATHS)
RPREC_SCAN(rprec_scan_narrow_avx2, int32_t, __attribute__((target("avx2"))))
#endif

static void rprec_scan(const Rows *r, int64_t n, const int32_t *u, int32_t *top, int32_t *top_over, int32_t *bottom,
                       int32_t *bottom_over) {
    int64_t most_u = 0;
    for (int64_t s = 0; s < n; s++) most_u = u[s] > most_u ? u[s] : most_u;
    /* |numerator| <= depth <= R + most_u: int32 products while its square is below 2^31 */
#if defined(HAVE_AVX2_PATHS)
    if (r->num_rel + most_u <= 46340 && vectors_on())
        rprec_scan_narrow_avx2(r, n, u, most_u, top, top_over, bottom, bottom_over);
    else
#endif
    if (r->num_rel + most_u <= 46340) rprec_scan_narrow(r, n, u, most_u, top, top_over, bottom, bottom_over);
    else rprec_scan_wide(r, n, u, most_u, top, top_over, bottom, bottom_over);
}

/* R-precision's scan for a group in one pass down the depths, where every count fits 16 bits (difference_bounds'
 * ``fused``): the shared holes come per depth as meet_holes counted them (``hist``: a row per depth, each hole at the
 * deeper of its two ranks, in 8 bits: at most two a cell, since no ranking holds a document twice), are added up as
 * the pass goes down and the rows zeroed behind it (for the next group: no clearing and no second pass over the
 * table), and their running counts are kept at the ``saved`` depths, the only ones P and hits read. Per slot (a pair;
 * ``lanes`` of them, the group rounded up to 16, those past it with u = -1: never in range) as rprec_scan: every m
 * from 0 to u, at depth d = R + m (rows clamped at ``longest``), each extreme kept as a fraction (numerator, depth). */
typedef struct {
    int8_t *hist;                       /* (longest + 1) rows of ``lanes`` */
    const int32_t *holes_a, *judged_a;  /* A's per depth */
    const int16_t *holes_b, *judged_b;  /* B's per depth, a row of ``b_stride`` (runs side by side) per depth */
    int64_t lanes, b_stride, longest, num_rel;
    const int64_t *saved_depth;         /* ascending */
    int64_t saved_count;
    int32_t *saved;                     /* a row of ``lanes`` per saved depth */
} Fused;

/* the depths the pass visits, and where it starts scanning: every row (each is zeroed), and m from 0 (from 1
 * where R is 0: depth 0 scores 0) to the largest u */
static int64_t fused_last(const Fused *f, int64_t most_u) {
    return f->num_rel + most_u > f->longest ? f->num_rel + most_u : f->longest;
}

static void fused_saved(const Fused *f, const int16_t *running, int64_t d, int64_t *next) {
    for (; *next < f->saved_count && f->saved_depth[*next] <= d; ++*next)
        for (int64_t slot = 0; slot < f->lanes; slot++)
            f->saved[*next * f->lanes + slot] = f->saved_depth[*next] < d ? 0 : running[slot];
}

/* the portable pass: int32 arithmetic on the 16-bit counts (state: the running counts and the four extremes) */
static void fused_scan_plain(const Fused *f, const int16_t *restrict u, int64_t most_u, int16_t *restrict running,
                             int32_t *restrict top, int32_t *restrict top_over, int32_t *restrict bottom,
                             int32_t *restrict bottom_over) {
    int32_t num_rel = (int32_t)f->num_rel;
    int64_t lanes = f->lanes, next = 0, last = fused_last(f, most_u);
    for (int64_t slot = 0; slot < lanes; slot++) {
        running[slot] = 0;
        top[slot] = num_rel ? -1 : 0; bottom[slot] = num_rel ? 1 : 0;
        top_over[slot] = bottom_over[slot] = num_rel ? 0 : 1;
    }
    fused_saved(f, running, 0, &next);
    for (int64_t d = 1; d <= last; d++) {
        if (d <= f->longest) {
            int8_t *restrict row = f->hist + d * lanes;
            for (int64_t slot = 0; slot < lanes; slot++) { running[slot] += row[slot]; row[slot] = 0; }
        }
        fused_saved(f, running, d, &next);
        int32_t m = (int32_t)(d - num_rel);
        if (m < (num_rel ? 0 : 1) || m > most_u) continue;
        int64_t e = d < f->longest ? d : f->longest;
        const int16_t *restrict holes_b = f->holes_b + e * f->b_stride;
        const int16_t *restrict judged_b = f->judged_b + e * f->b_stride;
        int32_t holes_a = f->holes_a[e], judged_a = f->judged_a[e], depth = (int32_t)d;
        for (int64_t slot = 0; slot < lanes; slot++) {
            int32_t shared = running[slot], plus = holes_a - shared, minus = holes_b[slot] - shared;
            int32_t judged = judged_a - judged_b[slot], zero = u[slot] - plus - minus;
            int32_t raised = m - plus - zero, lowered = m - minus - zero;
            int32_t high = judged + (m < plus ? m : plus) - (raised > 0 ? raised : 0);
            int32_t low = judged - (m < minus ? m : minus) + (lowered > 0 ? lowered : 0);
            int in_range = m <= u[slot];
            int higher = in_range & (high * top_over[slot] > top[slot] * depth);
            int lower = in_range & (low * bottom_over[slot] < bottom[slot] * depth);
            top[slot] = higher ? high : top[slot];
            top_over[slot] = higher ? depth : top_over[slot];
            bottom[slot] = lower ? low : bottom[slot];
            bottom_over[slot] = lower ? depth : bottom_over[slot];
        }
    }
}

#if defined(HAVE_AVX2_PATHS)
/* the same, 16 slots a vector: the fractions compared by one multiply-add of 16-bit pairs per 8 slots (numerator
 * x the best's depth - the best's numerator x depth: |each product| <= depth**2, so that the sum fits 32 bits for
 * depths up to 32,767), packed back to 16 bits with their signs (saturated). Two versions: AVX2's masks are vectors
 * and its blends three operations each; AVX-512's (BW and VL, on the same 256-bit vectors) are mask registers and
 * their blends one; ``in_range``, ``beats`` and ``pick`` say which */
/* one extreme kept per slot of a vector: the kept fraction (at ``numbers``, ``depths``: ``kept``, ``kept_over``)
 * replaced by (value, at) where the multiply-add of the pairs (a, b) and (c, e) is above 0 */
#define FUSED_KEEP(mask_t, beats, pick, numbers, depths, a, b, c, e, value, at)                                    \
    {                                                                                                              \
        __m256i kept = _mm256_loadu_si256((const __m256i *)(numbers + slot));                                      \
        __m256i kept_over = _mm256_loadu_si256((const __m256i *)(depths + slot));                                  \
        mask_t better = beats(within, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), _mm256_unpacklo_epi16(c, e)), \
                              _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), _mm256_unpackhi_epi16(c, e)));        \
        _mm256_storeu_si256((__m256i *)(numbers + slot), pick(kept, value, better));                               \
        _mm256_storeu_si256((__m256i *)(depths + slot), pick(kept_over, at, better));                              \
    }

#define FUSED_SCAN(name, target, mask_t, in_range, beats, pick)                                                    \
target static void name(const Fused *f, const int16_t *u, int64_t most_u, int16_t *running, int16_t *state,      \
                        int32_t *top, int32_t *top_over, int32_t *bottom, int32_t *bottom_over) {                   \
    int16_t num_rel = (int16_t)f->num_rel;                                                                         \
    int64_t lanes = f->lanes, next = 0, last = fused_last(f, most_u);                                              \
    /* per slot: the greatest (numerator, depth) and the least (numerator, minus its depth: the products' sign) */ \
    int16_t *best = state, *best_over = state + lanes, *worst = state + 2 * lanes, *worst_under = state + 3 * lanes; \
    for (int64_t slot = 0; slot < lanes; slot++) {                                                                 \
        running[slot] = 0;                                                                                         \
        best[slot] = num_rel ? -1 : 0; worst[slot] = num_rel ? 1 : 0;                                              \
        best_over[slot] = num_rel ? 0 : 1; worst_under[slot] = num_rel ? 0 : -1;                                   \
    }                                                                                                              \
    fused_saved(f, running, 0, &next);                                                                             \
    const __m256i none = _mm256_setzero_si256();                                                                   \
    for (int64_t d = 1; d <= last; d++) {                                                                          \
        /* the depth's row (row 0, never written, past the longest ranking), added up and zeroed as it is read */  \
        int8_t *row = f->hist + (d <= f->longest ? d : 0) * lanes;                                                 \
        int64_t m = d - num_rel;                                                                                   \
        if (m < (num_rel ? 0 : 1) || m > most_u) {                                                                 \
            for (int64_t slot = 0; slot < lanes; slot += 16) {                                                     \
                __m256i sum = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(running + slot)),              \
                                               _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + slot)))); \
                _mm256_storeu_si256((__m256i *)(running + slot), sum);                                             \
                _mm_storeu_si128((__m128i *)(row + slot), _mm_setzero_si128());                                    \
            }                                                                                                      \
            fused_saved(f, running, d, &next);                                                                     \
            continue;                                                                                              \
        }                                                                                                          \
        int64_t e = d < f->longest ? d : f->longest;                                                               \
        const int16_t *holes_b = f->holes_b + e * f->b_stride, *judged_b = f->judged_b + e * f->b_stride;          \
        const __m256i many = _mm256_set1_epi16((int16_t)m), depth = _mm256_set1_epi16((int16_t)d);                 \
        const __m256i minus_depth = _mm256_set1_epi16((int16_t)-d);                                                \
        const __m256i holes_a = _mm256_set1_epi16((int16_t)f->holes_a[e]);                                         \
        const __m256i judged_a = _mm256_set1_epi16((int16_t)f->judged_a[e]);                                       \
        for (int64_t slot = 0; slot < lanes; slot += 16) {                                                         \
            __m256i shared = _mm256_add_epi16(_mm256_loadu_si256((const __m256i *)(running + slot)),               \
                                              _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + slot)))); \
            _mm256_storeu_si256((__m256i *)(running + slot), shared);                                              \
            _mm_storeu_si128((__m128i *)(row + slot), _mm_setzero_si128());                                        \
            __m256i plus = _mm256_sub_epi16(holes_a, shared);                                                      \
            __m256i minus = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(holes_b + slot)), shared);       \
            __m256i judged = _mm256_sub_epi16(judged_a, _mm256_loadu_si256((const __m256i *)(judged_b + slot)));   \
            __m256i past = _mm256_sub_epi16(many, _mm256_loadu_si256((const __m256i *)(u + slot)));   /* m - u */ \
            /* raised = m - plus - zero = m - u + minus; lowered = m - u + plus */                                 \
            __m256i high = _mm256_sub_epi16(_mm256_add_epi16(judged, _mm256_min_epi16(many, plus)),                \
                                            _mm256_max_epi16(_mm256_add_epi16(past, minus), none));                \
            __m256i low = _mm256_add_epi16(_mm256_sub_epi16(judged, _mm256_min_epi16(many, minus)),                \
                                           _mm256_max_epi16(_mm256_add_epi16(past, plus), none));                  \
            mask_t within = in_range(past);                                                                        \
            /* the greatest: high x best_over - best x d > 0; the least: worst x d - low x worst_over > 0 */       \
            FUSED_KEEP(mask_t, beats, pick, best, best_over, high, kept, kept_over, minus_depth, high, depth)      \
            FUSED_KEEP(mask_t, beats, pick, worst, worst_under, kept, low, depth, kept_over, low, minus_depth)     \
        }                                                                                                          \
        fused_saved(f, running, d, &next);                                                                         \
    }                                                                                                              \
    for (int64_t slot = 0; slot < lanes; slot++) {                                                                 \
        top[slot] = best[slot]; top_over[slot] = best_over[slot];                                                  \
        bottom[slot] = worst[slot]; bottom_over[slot] = -(int32_t)worst_under[slot];                               \
    }                                                                                                              \
}

/* AVX2: m <= u as a vector; a product's sign, packed, compared with 0 (0 or -1 per slot); a byte blend */
#define AVX2_IN_RANGE(past) _mm256_cmpgt_epi16(_mm256_set1_epi16(1), past)
#define AVX2_BEATS(within, lo, hi) _mm256_and_si256(within, _mm256_cmpgt_epi16(_mm256_packs_epi32(lo, hi), none))
#define AVX2_PICK(old, new, mask) _mm256_blendv_epi8(old, new, mask)
FUSED_SCAN(fused_scan_avx2, __attribute__((target("avx2"))), __m256i, AVX2_IN_RANGE, AVX2_BEATS, AVX2_PICK)

/* AVX-512: the same as mask registers, and a masked move */
#define AVX512_IN_RANGE(past) _mm256_cmple_epi16_mask(past, none)
#define AVX512_BEATS(within, lo, hi) _mm256_mask_cmpgt_epi16_mask(within, _mm256_packs_epi32(lo, hi), none)
#define AVX512_PICK(old, new, mask) _mm256_mask_blend_epi16(mask, old, new)
FUSED_SCAN(fused_scan_avx512, __attribute__((target("avx2,avx512f,avx512bw,avx512vl"))), __mmask16, AVX512_IN_RANGE,
           AVX512_BEATS, AVX512_PICK)
#endif

/* per slot, the shared holes: the rows 1 .. longest of ``hist`` added up (16 bits: at most 2 x 16,383). Not
 * inlined: inlined, the compiler kept the loop scalar */
static __attribute__((noinline)) void fused_totals_plain(const Fused *f, int16_t *restrict totals) {
    const int64_t lanes = f->lanes, longest = f->longest;     /* in locals: the stores could alias the fields */
    const int8_t *restrict hist = f->hist;
    for (int64_t slot = 0; slot < lanes; slot++) totals[slot] = 0;
    for (int64_t d = 1; d <= longest; d++)
        for (int64_t slot = 0; slot < lanes; slot++) totals[slot] += hist[d * lanes + slot];
}

#if defined(HAVE_AVX2_PATHS)
/* the same, 64 slots at a time in four registers down every row (a load and an add per 16 cells: the plain
 * loop's load, add and store per 8 took a quarter of the scan's time) */
__attribute__((target("avx2"))) static void fused_totals_avx2(const Fused *f, int16_t *totals) {
    const int64_t lanes = f->lanes, longest = f->longest;
    for (int64_t slot = 0; slot < lanes; slot += 64) {
        int64_t width = lanes - slot < 64 ? lanes - slot : 64;   /* 16, 32, 48 or 64 */
        const int8_t *column = f->hist + slot;
        __m256i t0 = _mm256_setzero_si256(), t1 = t0, t2 = t0, t3 = t0;
        for (int64_t d = 1; d <= longest; d++) {
            const __m128i *row = (const __m128i *)(column + d * lanes);      /* 16 cells each */
            t0 = _mm256_add_epi16(t0, _mm256_cvtepi8_epi16(_mm_loadu_si128(row)));
            if (width > 16) t1 = _mm256_add_epi16(t1, _mm256_cvtepi8_epi16(_mm_loadu_si128(row + 1)));
            if (width > 32) t2 = _mm256_add_epi16(t2, _mm256_cvtepi8_epi16(_mm_loadu_si128(row + 2)));
            if (width > 48) t3 = _mm256_add_epi16(t3, _mm256_cvtepi8_epi16(_mm_loadu_si128(row + 3)));
        }
        _mm256_storeu_si256((__m256i *)(totals + slot), t0);
        if (width > 16) _mm256_storeu_si256((__m256i *)(totals + slot + 16), t1);
        if (width > 32) _mm256_storeu_si256((__m256i *)(totals + slot + 32), t2);
        if (width > 48) _mm256_storeu_si256((__m256i *)(totals + slot + 48), t3);
    }
}
#endif

static void fused_totals(const Fused *f, int16_t *totals) {
#if defined(HAVE_AVX2_PATHS)
    if (vectors_on()) {
        fused_totals_avx2(f, totals);
        return;
    }
#endif
    fused_totals_plain(f, totals);
}

/* fused_scan_plain or fused_scan_avx2 over a group's ``lanes`` slots; ``state``: 5 x lanes 16-bit cells */
static void fused_scan(const Fused *f, const int16_t *u, int16_t *state, int32_t *top, int32_t *top_over,
                       int32_t *bottom, int32_t *bottom_over) {
    int64_t most_u = 0;
    for (int64_t slot = 0; slot < f->lanes; slot++) most_u = u[slot] > most_u ? u[slot] : most_u;
#if defined(HAVE_AVX2_PATHS)
    if (vectors_on() >= 2) {
        fused_scan_avx512(f, u, most_u, state, state + f->lanes, top, top_over, bottom, bottom_over);
        return;
    }
    if (vectors_on()) {
        fused_scan_avx2(f, u, most_u, state, state + f->lanes, top, top_over, bottom, bottom_over);
        return;
    }
#endif
    fused_scan_plain(f, u, most_u, state, top, top_over, bottom, bottom_over);
}

/* P's and hits' (least, greatest) difference on one query with relevance 0 or 1 (``phi_low``, ``phi_high``): an
 * integer over k, returned as it is (P's too: the caller divides the sum over the queries by k once, so that a mean
 * bound of 0 is 0, not a rounding either side of it) */
static void whole_bounds(const Depths *t, double depth, int64_t saved_at, int64_t phi_low, int64_t phi_high,
                         const int32_t *at_a, const int32_t *at_b, int64_t *least, int64_t *most) {
    int64_t upto = depth < (double)t->longest ? (int64_t)depth : t->longest;
    /* the shared holes within upto: where the fused pass kept them, at the column's own place among its depths
     * (``saved_at``; shared_within searched them, for every column of every pair), or all past the longest */
    int64_t shared = t->saved && saved_at >= 0 ? (upto < t->longest ? (int64_t)t->saved[saved_at * t->stride] : t->total)
                                               : shared_within(t, upto);
    /* each ranking's holes and judged relevant within upto: read where the query's table of them at the column's
     * depth has them (``at_a``, ``at_b``: the same counts, constant past each ranking's length; each pair's
     * reads of its B's tables, a column's depth apart, were cache misses), else in the tables */
    int64_t holes_a = at_a ? at_a[0] : t->holes_a[upto], judged_a = at_a ? at_a[1] : t->judged_a[upto];
    int64_t holes_b = at_b ? at_b[0] : t->holes_b[upto], judged_b = at_b ? at_b[1] : t->judged_b[upto];
    int64_t up = holes_a - shared, down = holes_b - shared, judged = judged_a - judged_b;
    *most = judged + up * phi_high - down * phi_low;
    *least = judged + up * phi_low - down * phi_high;
}

/* the (least, greatest) difference of one column on one query */
static void column_bounds(Scratch *s, int kind, int variant, double depth, double phi_low, double phi_high,
                          double base, int variable, int all_relevant, int64_t num_rel, const Layers *layers,
                          const double *ideal_before, int64_t ideal_size, const Side *a, const Side *b,
                          const Depths *t, int64_t both, double *low, double *high) {
    int64_t union_count = a->count + b->count - both;
    if (kind == LINEAR && (variant == 0 || variant == 2)) {
        /* P.k and hits weigh each document of the top k alike in both runs: a hole weighs w where it raises
         * the difference, -w where it lowers it, 0 in both tops or neither (with relevance 0 or 1 the caller
         * takes whole_bounds instead) */
        int64_t upto = depth < (double)t->longest ? (int64_t)depth : t->longest;
        int64_t up = raising(t, upto), down = lowering(t, upto);
        double w = linear_weight(variant, 1, a->length, depth);
        *high = base + ((double)up * (w * phi_high) - (double)down * (w * phi_low));
        *low = base + ((double)up * (w * phi_low) - (double)down * (w * phi_high));
        return;
    }
    if (kind == LINEAR) {
        double l = base, h = base;
        for (int64_t k = 0; k < a->count && (double)a->rank[k] <= depth; k++) {
            int64_t rb = a->partner[k];
            double c = linear_weight(variant, a->rank[k], a->length, depth) - linear_weight(variant, rb, b->length, depth);
            double x = c * phi_low, y = c * phi_high;
            l += x < y ? x : y;
            h += x < y ? y : x;
        }
        for (int64_t k = 0; k < b->count && (double)b->rank[k] <= depth; k++) {
            int64_t ra = b->partner[k];
            if (ra != 0 && (double)ra <= depth) continue;                  /* counted with A's */
            double c = -linear_weight(variant, b->rank[k], b->length, depth);
            double x = c * phi_low, y = c * phi_high;
            l += x < y ? x : y;
            h += x < y ? y : x;
        }
        *low = l; *high = h;
        return;
    }
    if (kind == FIRST) {
        double best = first_value(variant, a->first, depth) - first_value(variant, b->first, depth), worst = best;
        if (!variable) {
            if (all_relevant) {
                int64_t fa = earlier(a->first, a->count ? a->rank[0] : 0), fb = earlier(b->first, b->count ? b->rank[0] : 0);
                best = worst = first_value(variant, fa, depth) - first_value(variant, fb, depth);
            }
            *low = worst; *high = best;
            return;
        }
        for (int side = 0; side < 2; side++) {
            const Side *own = side ? b : a;
            for (int64_t k = 0; k < own->count && (own->first == 0 || own->rank[k] < own->first) &&
                                (double)own->rank[k] <= depth; k++) {
                int64_t ra = side ? own->partner[k] : own->rank[k];
                int64_t rb = side ? own->rank[k] : own->partner[k];
                double value = first_value(variant, earlier(a->first, ra), depth) -
                               first_value(variant, earlier(b->first, rb), depth);
                if (value > best) best = value;
                if (value < worst) worst = value;
            }
        }
        *low = worst; *high = best;
        return;
    }
    if (kind == RECALL) {
        int64_t upto = depth < 1 ? 0 : depth < (double)t->cap ? (int64_t)depth : t->cap;
        int64_t judged = (int64_t)t->judged_a[upto] - t->judged_b[upto];
        int64_t plus = 0, minus = 0;
        for (int64_t k = 0; k < a->count && (double)a->rank[k] <= depth; k++) {
            int64_t rb = a->partner[k];
            plus += !(rb != 0 && (double)rb <= depth);
        }
        for (int64_t k = 0; k < b->count && (double)b->rank[k] <= depth; k++) {
            int64_t ra = b->partner[k];
            minus += !(ra != 0 && (double)ra <= depth);
        }
        int64_t zero = union_count - plus - minus;
        if (!variable) {
            int64_t many = all_relevant ? union_count : 0, numerator = judged + (all_relevant ? plus - minus : 0);
            *low = *high = num_rel + many ? (double)numerator / (double)(num_rel + many) : 0.0;
            return;
        }
        int64_t n = judged + plus, d = num_rel + plus;
        if (n < 0) d += zero;
        *high = d ? (double)n / (double)d : 0.0;
        n = judged - minus; d = num_rel + minus;
        if (n > 0) d += zero;
        *low = d ? (double)n / (double)d : 0.0;
        return;
    }
    if (kind == DEPTH) {       /* depth < 0: Rprec's R; else Rprec_mult's fraction */
        int64_t smallest = variable ? 0 : (all_relevant ? union_count : 0), largest = variable ? union_count : smallest;
        /* the greatest and least values kept as fractions (numerator, denominator >= 1), compared by cross
         * products: exact, and no division per number of relevant holes; each divided once at the end, as
         * the measure divides (the larger fraction's double is never the smaller) */
        int64_t best_top = 0, best_reach = 0, worst_bottom = 0, worst_reach = 0;
        Point x;
        if (variable && depth < 0) {    /* R-precision: scanned for the whole group (rprec_scan) */
            best_top = t->scanned[0]; best_reach = t->scanned[1];
            worst_bottom = t->scanned[2]; worst_reach = t->scanned[3];
        }
        else for (int64_t many = smallest; many <= largest; many++) {
            depth_point(t, a, b, depth, num_rel, union_count, variable, all_relevant, many, &x);
            if (!best_reach || x.top * best_reach > best_top * x.over) { best_top = x.top; best_reach = x.over; }
            if (!worst_reach || x.bottom * worst_reach < worst_bottom * x.over) {
                worst_bottom = x.bottom; worst_reach = x.over;
            }
        }
        *low = (double)worst_bottom / (double)worst_reach;
        *high = (double)best_top / (double)best_reach;
        return;
    }
    /* GAIN: each hole's discount difference (0 for the holes below the depth in both, counted, not sorted);
     * the greatest and least over the chains of layers */
    if (layers->count == 0) { *low = *high = base; return; }
    /* three lists, each sorted ascending, merged: A's only holes (d(rA), falling with the rank: taken from the
     * bottom up), B's only (-d(rB), rising with it) and the shared (any order: sorted) */
    double *only_a = s->merged, *only_b = s->merged + a->count, *shared = s->merged + a->count + b->count;
    int64_t count_a = 0, count_b = 0, count_shared = 0;
    for (int64_t k = 0; k < a->count && (double)a->rank[k] <= depth; k++) {
        int64_t rb = a->partner[k];
        double da = s->discount[a->rank[k]], db = rb != 0 && (double)rb <= depth ? s->discount[rb] : 0.0;
        if (rb == 0) only_a[count_a++] = da;
        else if (da != db) shared[count_shared++] = da - db;
    }
    for (int64_t k = 0; k < b->count && (double)b->rank[k] <= depth; k++) {
        int64_t ra = b->partner[k];
        if (ra == 0) only_b[count_b++] = -s->discount[b->rank[k]];
        else if ((double)ra > depth) shared[count_shared++] = -s->discount[b->rank[k]];
    }
    sort_doubles(shared, count_shared, s->values);     /* s->values is written after, by the merge */
    int64_t count = count_a + count_b + count_shared;
    for (int64_t i = 0, ia = count_a - 1, ib = 0, is = 0; i < count; i++) {
        double x = ia >= 0 ? only_a[ia] : INFINITY, y = ib < count_b ? only_b[ib] : INFINITY;
        double z = is < count_shared ? shared[is] : INFINITY;
        if (x <= y && x <= z) { s->values[i] = x; ia--; }
        else if (y <= z) { s->values[i] = y; ib++; }
        else { s->values[i] = z; is++; }
    }
    int64_t negative = 0, zeros = union_count - count;
    while (negative < count && s->values[negative] < 0) negative++;
    int64_t positive = count - negative;
    /* Past the depth's ideal (every layer's J_l + t at the depth) and the weights that raise it, a chain's
     * numerator can only fall and its ideal stays: no count need go past that */
    int64_t judged_last = layers->judged[(layers->count - 1) * layers->stride];
    int64_t saturated = depth < (double)(union_count + judged_last) ? (int64_t)depth - judged_last : union_count;
    if (saturated < 0) saturated = 0;
    Chains chains = {layers, s->prefix, 0, base, depth, ideal_before, ideal_size};
    /* the greatest: the weights largest first (the positive, the zeros, the negative) */
    chains.holes = positive > saturated ? positive : saturated;
    s->prefix[0] = 0.0;
    for (int64_t t = 1; t <= chains.holes; t++) {
        int64_t i = t - 1;
        double w = i < positive ? s->values[count - t] : i < positive + zeros ? 0.0
                                                      : s->values[negative - 1 - (i - positive - zeros)];
        s->prefix[t] = s->prefix[t - 1] + w;
    }
    *high = best_ratio(s, &chains);
    /* the least: the greatest of the negated weights, the smallest first */
    chains.holes = negative > saturated ? negative : saturated;
    for (int64_t t = 1; t <= chains.holes; t++) {
        int64_t i = t - 1;
        double w = i < negative ? s->values[i] : i < negative + zeros ? 0.0 : s->values[i - zeros];
        s->prefix[t] = s->prefix[t - 1] - w;
    }
    chains.base = -base;
    *low = -best_ratio(s, &chains);
}

/* One query's unjudged documents listed per hole number, for the runs on the B side of some pair: the runs
 * holding each (in increasing order) and its rank in each. A run A's holes then meet every pair (A, B) holding
 * them, in work that grows with the runs holding each hole, not with pairs x holes */
typedef struct {
    int64_t *start;      /* per hole number (most + 1), its first listing */
    int64_t *cursor;     /* per hole number, its first listing of a run after the A being read (pairs in order) */
    int32_t *run, *rank;
    int64_t last;        /* the highest run listed */
} Postings;

/* the runs on the B side of some pair (``listed``) and on either (``used``, where given), the most documents (so
 * holes at most) of a query the listed runs rank (``most``; ``size``: each ranking's length), and whether the pairs come in order (A < B, A never falling: a hole's
 * listings of runs up to A are then passed once for good) */
static int plan_lists(const int64_t *pair, Py_ssize_t count_pairs, Py_ssize_t runs, Py_ssize_t queries,
                      const int64_t *size, char *listed, char *used, int64_t *most) {
    int ordered = 1;
    for (Py_ssize_t p = 0; p < count_pairs; p++) {
        listed[pair[2 * p + 1]] = 1;
        if (used) used[pair[2 * p + 1]] = used[pair[2 * p]] = 1;
        if (pair[2 * p] >= pair[2 * p + 1] || (p && pair[2 * p] < pair[2 * p - 2])) ordered = 0;
    }
    *most = 0;
    for (Py_ssize_t q = 0; q < queries; q++) {
        int64_t count = 0;
        for (Py_ssize_t r = 0; r < runs; r++) count += listed[r] ? size[r * queries + q] : 0;
        *most = count > *most ? count : *most;
    }
    return ordered;
}

/* One query's unjudged documents (code < 0), run by run, from the codes and each document's number: each run's
 * ranks (1-based) and numbers in rank order, and its first place and count in them; the runs not ``used`` (where
 * given) hold none. Made per query into tables that stay in the cache: every ranking's lists, made beforehand,
 * took 120 MB of fresh pages on the Robust04 shape */
typedef struct { int32_t *rank, *id; int64_t *start, *count; } QueryHoles;

static void query_holes(QueryHoles *h, const int16_t *codes, Ids ids, const int64_t *first,
                        const int64_t *size, Py_ssize_t runs, Py_ssize_t queries, Py_ssize_t q, const char *used) {
    int64_t at = 0;
    for (Py_ssize_t r = 0; r < runs; r++) {
        h->start[r] = at;
        if (used && !used[r]) { h->count[r] = 0; continue; }
        Py_ssize_t sg = r * queries + q;
        const int16_t *restrict code = codes + first[sg];
        int32_t *restrict rank = h->rank, *restrict number = h->id;
        /* without a branch on the code (half the documents are holes: a guess missed every other one): each
         * document written at the next place, which only a hole keeps (room for every document of the query) */
        if (ids.wide) {
            const int32_t *restrict id = (const int32_t *)ids.at + first[sg];
            for (int64_t i = 0, n = size[sg]; i < n; i++) {
                rank[at] = (int32_t)(i + 1);
                number[at] = id[i];
                at += code[i] < 0;
            }
        } else {
            const int16_t *restrict id = (const int16_t *)ids.at + first[sg];
            for (int64_t i = 0, n = size[sg]; i < n; i++) {
                rank[at] = (int32_t)(i + 1);
                number[at] = id[i];
                at += code[i] < 0;
            }
        }
        h->count[r] = at - h->start[r];
    }
}

static void list_holes(Postings *o, const QueryHoles *h, Py_ssize_t runs, const char *listed, int64_t most,
                       int with_ranks) {
    memset(o->start, 0, (size_t)(most + 1) * 8);
    o->last = -1;
    for (Py_ssize_t r = 0; r < runs; r++) {
        if (!listed[r]) continue;
        o->last = r;
        const int32_t *own = h->id + h->start[r];
        for (int64_t j = 0, n = h->count[r]; j < n; j++) o->start[own[j] + 1]++;
    }
    for (int64_t id = 0; id < most; id++) o->start[id + 1] += o->start[id];
    memcpy(o->cursor, o->start, (size_t)most * 8);
    for (Py_ssize_t r = 0; r < runs; r++) {          /* the runs in increasing order: each list sorted by run */
        if (!listed[r]) continue;
        const int32_t *own = h->id + h->start[r], *ranks = h->rank + h->start[r];
        for (int64_t j = 0, n = h->count[r]; j < n; j++) {
            int64_t at = o->cursor[own[j]]++;
            o->run[at] = (int32_t)r;
            if (with_ranks) o->rank[at] = ranks[j];
        }
    }
    memcpy(o->cursor, o->start, (size_t)most * 8);
}

/* row += above, n apart (a loop the compiler makes vector instructions of) */
static __attribute__((noinline)) void add_row(int32_t *restrict row, const int32_t *restrict above, int64_t n) {
    for (int64_t k = 0; k < n; k++) row[k] += above[k];
}

/* how many pairs from ``p`` on make a group (A, B0 .. B0 + n - 1): at most ``group``, B never A */
static int64_t group_at(const int64_t *pair, Py_ssize_t count_pairs, Py_ssize_t p, int64_t group) {
    int64_t n = 1, first_run = pair[2 * p], b0 = pair[2 * p + 1];
    while (p + n < count_pairs && n < group && pair[2 * (p + n)] == first_run && pair[2 * (p + n) + 1] == b0 + n &&
           b0 + n != first_run)
        n++;
    return n;
}

/* what a group's pairs share, per pair (slot): how many unjudged documents (shared; where shared_at is given,
 * counted there only, each at the deeper of its two ranks: row min(rank, cap + 1), a column per slot; the caller
 * adds them up); A's first ``reach`` holes' ranks in B (partners, a row of ``stride`` per slot) */
typedef struct {
    int64_t *shared;
    int32_t *shared_at;
    int64_t cap, *partners, stride, reach;
    /* or, for fused_scan: each shared hole at the deeper of its ranks (at most ``cap``) in ``hist`` (a row of
     * ``lanes`` per depth, all zero on entry), and ``shared`` left alone */
    int8_t *hist;
    int64_t lanes;
} Meeting;

/* each of A's holes (ids in rank order; ranks where shared_at or partners are asked for) with every B of the group
 * (B0 .. B0 + n - 1) holding it. ``ordered``: the pairs come with A < B and A never falling, so a hole's listings
 * of runs up to A are passed once for good (the cursor) */
static void meet_holes(Postings *o, const int32_t *a_rank, const int32_t *a_id, int64_t a_count, int64_t first_run,
                       int64_t b0, int64_t n, int ordered, Meeting *m) {
    /* the tables and bounds in locals: the stores into the counts could otherwise alias them, and each would be
     * read again per listing */
    int32_t *restrict shared_at = m->shared_at;
    int64_t *restrict shared = m->shared, *restrict partners = m->partners;
    const int32_t *restrict runs = o->run, *restrict ranks = o->rank;
    const int64_t *restrict start = o->start;
    int64_t *restrict cursor = o->cursor;
    const int64_t cap = m->cap, stride = m->stride, reach = m->reach < a_count ? m->reach : a_count;
    int8_t *restrict hist = m->hist;
    const int64_t lanes = m->lanes;
    /* the group is every run after A (the pairs in order): each listing past A's is a B of it, none deeper than
     * the group's longest ranking (``cap``, the fused pass's: its rows are the ranks) */
    const int every_later = ordered && hist && b0 == first_run + 1 && b0 + n > o->last;
    if (shared_at) memset(shared_at, 0, (size_t)(n * (cap + 2)) * 4);
    else memset(shared, 0, (size_t)n * 8);
    if (m->reach) memset(partners, 0, (size_t)(n * stride) * 8);
    for (int64_t j = 0; j < a_count; j++) {
        int64_t id = a_id[j], at = start[id], end = start[id + 1];
        if (ordered) {
            at = cursor[id];
            while (at < end && runs[at] <= first_run) at++;
            cursor[id] = at;
        }
        if (hist) {
            /* as below, counted in 16 bits at the deeper rank (their sums are the shared holes: fused_totals);
             * the lists of the holes a few ahead fetched meanwhile (each a jump elsewhere in the query's lists) */
            if (ordered && j + 6 < a_count) {
                int64_t ahead = cursor[a_id[j + 6]];
                __builtin_prefetch(runs + ahead);
                __builtin_prefetch(ranks + ahead);
            }
            const int32_t own = a_rank[j];
            if (j < reach)
                for (; at < end; at++) {
                    int64_t slot = (int64_t)runs[at] - b0;
                    if ((uint64_t)slot >= (uint64_t)n) { if (ordered && slot >= n) break; continue; }
                    int32_t deeper = own > ranks[at] ? own : ranks[at];
                    hist[(deeper <= cap ? deeper : cap) * lanes + slot]++;
                    partners[slot * stride + j] = ranks[at];
                }
            else if (every_later)
                /* the common case: every listing left is a B of the group, at most ``cap`` deep (the group's
                 * longest ranking) */
                for (; at < end; at++) {
                    int32_t rank = ranks[at], deeper = own > rank ? own : rank;
                    hist[deeper * lanes + (runs[at] - b0)]++;
                }
            else
                for (; at < end; at++) {
                    int64_t slot = (int64_t)runs[at] - b0;
                    if ((uint64_t)slot >= (uint64_t)n) { if (ordered && slot >= n) break; continue; }
                    int32_t deeper = own > ranks[at] ? own : ranks[at];
                    hist[(deeper <= cap ? deeper : cap) * lanes + slot]++;
                }
            continue;
        }
        if (ordered && shared_at && j >= reach) {
            /* the common case: no partners to note; a B past the group ends the list (in run order), one
             * before it (a later group of the same A) is passed */
            const int32_t own = a_rank[j];
            for (; at < end; at++) {
                int64_t slot = (int64_t)runs[at] - b0;
                if ((uint64_t)slot >= (uint64_t)n) { if (slot >= n) break; continue; }
                int32_t deeper = own > ranks[at] ? own : ranks[at];
                shared_at[(deeper <= cap ? deeper : cap + 1) * n + slot]++;
            }
            continue;
        }
        for (; at < end; at++) {
            int64_t slot = (int64_t)runs[at] - b0;
            if (slot < 0 || slot >= n) { if (ordered && slot >= n) break; continue; }
            if (shared_at) {
                int64_t deeper = a_rank[j] > ranks[at] ? a_rank[j] : ranks[at];
                shared_at[(deeper <= cap ? deeper : cap + 1) * n + slot]++;
            }
            else shared[slot]++;
            if (j < reach) partners[slot * stride + j] = ranks[at];
        }
    }
}

/* per depth d (0 .. cap), a ranking's unjudged documents (code < 0) and judged relevant ones (code >= level)
 * within d, from its codes in one pass without branches (past its length, the counts stay) */
static void fill_tables(int32_t *restrict holes, int32_t *restrict judged, const int16_t *restrict codes,
                        int64_t length, int level, int64_t cap) {
    int32_t h = 0, j = 0;
    int64_t upto = length < cap ? length : cap;
    holes[0] = judged[0] = 0;
    for (int64_t d = 1; d <= upto; d++) {
        int code = codes[d - 1];
        h += code < 0;
        j += code >= level;
        holes[d] = h;
        judged[d] = j;
    }
    for (int64_t d = upto + 1; d <= cap; d++) { holes[d] = h; judged[d] = j; }
}

/* how many of a ranking's holes (ranks ascending) are at or above ``reach`` */
static int64_t holes_above(const int32_t *rank, int64_t count, double reach) {
    int64_t lo = 0, hi = count;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((double)rank[mid] <= reach) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* the deepest rank at which the columns read the holes' partners (each hole's rank in the other ranking) in a
 * ranking whose first judged relevant rank is ``first`` (0: none): the first relevant's above it, the others'
 * within their depth, R-precision's and P's none (they read the Depths) */
static double partner_reach(const int64_t *kinds, const int64_t *variants, const double *depths, Py_ssize_t columns,
                            int variable, int64_t first) {
    double reach = 0.0;
    for (Py_ssize_t c = 0; c < columns; c++) {
        int kind = (int)kinds[c];
        double r = depths[c];
        if (reads_sides(kind, (int)variants[c])) continue;
        if (kind == FIRST) r = !variable ? 0.0 : first && (double)(first - 1) < r ? (double)(first - 1) : r;
        if (r > reach) reach = r;
    }
    return reach;
}

/* ``value`` added to ``total`` on the exact grid, rint(value x 2**GRID_BITS) as lexeval.stats.sums places it: its
 * whole part (exact in int64 below 2**22) and its fraction's grid units (exact: both parts are doubles, and a whole
 * number of units plus the fraction's rounded units is the whole value's rounding); 0 where it is off the grid's
 * range (|value| >= 2**22, NaN, infinite). */
static inline __attribute__((always_inline)) int on_grid(double value, i128 *total) {
    if (!(fabs(value) < 0x1p22)) return 0;
    int64_t whole = (int64_t)value;
    double placed = (value - (double)whole) * (double)(1ULL << GRID_BITS);
    if (fabs(placed) < 0x1p52) placed = rint(placed);   /* from 2**52 up a double is an integer already */
    *total += (i128)whole * ((i128)1 << GRID_BITS) + (int64_t)placed;
    return 1;
}

/* a (least, greatest) kept: at ``at`` of lows and highs, or added to ``totals`` (pair and column ``column``'s two
 * sums on the grid) where given; 0 where a value is off the grid's range */
static inline int kept(double low, double high, double *lows, double *highs, Py_ssize_t at, i128 *totals,
                       Py_ssize_t column) {
    if (totals) return on_grid(low, totals + 2 * column) & on_grid(high, totals + 2 * column + 1);
    lows[at] = low;
    highs[at] = high;
    return 1;
}

/* difference_bounds(hole_ids, codes, first, lengths, queries, compared, pairs, kind, variant, depth, phi_low,
 * phi_high, base, level, variable, all_relevant, num_rel, steps, ideal, ideal_before, most_holes, budget, low, high,
 * shared, sums, counter): for pairs (first, second) of runs and C columns of measures at
 * one relevance level, on each of the ``compared`` queries the least and greatest difference under one shared
 * assignment. Per segment (runs x queries, int64): its length and first judged relevant rank; per document
 * (segments end to end, offsets from the lengths), ``codes`` (int16) its relevance code (< 0: unjudged; judged
 * relevant: at least ``level``) and ``hole_ids`` (int32) an unjudged one's number in its query (each query's
 * lists of them are made as the query comes: query_holes). Per column
 * (int64 or float64, C): kind, variant, depth (inf: none), phi_low, phi_high; base (float64, C x segments):
 * each run's value with the holes not relevant (linear) or its DCG (gain); nDCG's layers of gain: steps
 * (float64, C x L; 0 past a column's own) and ideal (int64, C x L x queries) the qrels' documents of gain at
 * least each layer's. num_rel int64 (queries); ideal_before float64; budget: the cells of scratch a
 * group of pairs and the per-query table may take; low, high float64 (P x C x compared queries), or empty where
 * ``sums`` is given; shared (int64, P x compared queries, or empty): where given, each pair's unjudged documents both
 * runs hold (for LR); sums (int64, P x C x 2 x FIRST_LIMBS, or empty): where given, the least's and the greatest's
 * sums over the compared queries on the exact grid (each value rint(x 2**GRID_BITS), as lexeval.stats.sums places
 * it), in carried limbs, and no per-query values; counter (int64, 1, or empty): where given, the compared queries
 * are taken one at a time from it, shared with the other threads' calls over the same queries (each writes its own
 * queries' values; its sums are of those). Returns False, with sums unfinished, where a value is off the
 * grid's range (|x| >= 2**22, or not finite: the caller sums the per-query values instead), else True. */
PyObject *difference_bounds(PyObject *self, PyObject *args) {
    Py_buffer hole_id, codes, first, lengths, compared, pairs;
    Py_buffer kind, variant, depth, phi_low, phi_high, base, num_rel, steps, ideal, ideal_before, low, high, shared_out;
    Py_buffer sums, counter;
    Py_ssize_t queries, most, budget;
    int level, variable, all_relevant;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*y*y*y*y*y*iiiy*y*y*y*nnw*w*w*w*w*", &hole_id, &codes, &first,
                          &lengths, &queries, &compared, &pairs, &kind, &variant, &depth, &phi_low, &phi_high, &base, &level, &variable, &all_relevant, &num_rel,
                          &steps, &ideal, &ideal_before, &most, &budget, &low, &high, &shared_out, &sums, &counter))
        return NULL;
    PyObject *result = NULL;
    Scratch s = {0};
    Py_ssize_t segments = lengths.len / 8, count_pairs = pairs.len / 16;
    Py_ssize_t columns = kind.len / 8, count_compared = compared.len / 8, ideal_size = ideal_before.len / 8;
    Py_ssize_t documents = codes.len / 2, layer_width = columns ? steps.len / 8 / columns : 0;
    Ids ids;
    if (!queries || !ids_of(&hole_id, documents, "difference_bounds", &ids) || !check(&first, segments, 8, "first") ||
        !check(&variant, columns, 8, "variant") || !check(&depth, columns, 8, "depth") ||
        !check(&phi_low, columns, 8, "phi_low") || !check(&phi_high, columns, 8, "phi_high") ||
        !check(&base, columns * segments, 8, "base") || !check(&num_rel, queries, 8, "num_rel") ||
        !check(&steps, columns * layer_width, 8, "steps") ||
        !check(&ideal, columns * layer_width * queries, 8, "ideal"))
        goto done;
    int summing = sums.len > 0;
    Py_ssize_t per_query_cells = summing ? 0 : columns * count_pairs * count_compared;
    if (!check(&low, per_query_cells, 8, "low") || !check(&high, per_query_cells, 8, "high") ||
        (summing && !check(&sums, count_pairs * columns * 2 * FIRST_LIMBS, 8, "sums")))
        goto done;
    if ((shared_out.len && !check(&shared_out, count_pairs * count_compared, 8, "shared_out")) ||
        (counter.len && !check(&counter, 1, 8, "counter")))
        goto done;
    if (ideal_size < 1 || most < 0 || budget < 1) {
        PyErr_SetString(PyExc_ValueError, "difference_bounds: ideal_before empty, or most or budget out of range");
        goto done;
    }
    const int64_t *size = (const int64_t *)lengths.buf, *chosen = (const int64_t *)compared.buf;
    const int64_t *pair = (const int64_t *)pairs.buf;
    Py_ssize_t runs = segments / queries, total_length = 0;
    for (Py_ssize_t k = 0; k < segments; k++) {
        if (size[k] < 0 || size[k] > INT32_MAX) {
            PyErr_SetString(PyExc_IndexError, "difference_bounds: a segment out of range");
            goto done;
        }
        total_length += size[k];
    }
    if (!holes_numbered((const int16_t *)codes.buf, ids, documents, most)) {
        PyErr_SetString(PyExc_IndexError, "difference_bounds: a hole's number out of range");
        goto done;
    }
    if (total_length != documents) {
        PyErr_SetString(PyExc_ValueError, "difference_bounds: codes of another length");
        goto done;
    }
    if (!pairs_and_queries_in_range("difference_bounds", pair, count_pairs, runs, chosen, count_compared, queries))
        goto done;
    size_t room = (size_t)(most + 2);
    int64_t deepest = 0, listed_most = 0;
    for (Py_ssize_t k = 0; k < segments; k++) deepest = size[k] > deepest ? size[k] : deepest;
    int64_t widest = deepest;         /* the most holes a ranking can hold */
    const int64_t *kinds = (const int64_t *)kind.buf, *variants = (const int64_t *)variant.buf;
    const double *depths = (const double *)depth.buf;
    /* sided: a column reads the shared holes per depth (and so each ranking's holes and judged relevant per depth,
     * the tables); judging: a column reads the tables (recall: the judged relevant, at its depth) */
    int sided = 0, judging = 0, partnered = 0, ordered = 0;
    double deepest_read = 0.0;        /* the deepest rank a column reads the Depths at (R-precision: any) */
    for (Py_ssize_t c = 0; c < columns; c++) {
        int reads_depths = reads_sides((int)kinds[c], (int)variants[c]);
        if (!reads_depths) partnered = 1;
        if (!reads_depths && kinds[c] != RECALL) continue;
        sided |= reads_depths;
        judging = 1;
        double reads = kinds[c] == DEPTH ? INFINITY : depths[c];
        if (reads > deepest_read) deepest_read = reads;
    }
    int64_t cap = deepest_read < (double)deepest ? (int64_t)deepest_read : deepest;   /* the deepest Depths row */
    char *listed = PyMem_RawCalloc((size_t)runs + 1, 1), *used = PyMem_RawCalloc((size_t)runs + 1, 1);
    if (listed && used) ordered = plan_lists(pair, count_pairs, runs, queries, size, listed, used, &listed_most);
    /* a group is the pairs (A, B0 .. B0 + n - 1), n at most ``group`` (the shared holes per depth: cap + 2 rows of
     * n, a column per pair; their partners: n rows of ``widest``), within ``budget`` cells; each run's holes per depth made
     * once per query where that table fits the budget, else per pair */
    int64_t group = budget / (cap + 2);
    if (partnered && widest && group > budget / widest) group = budget / widest;
    if (group > runs) group = runs;
    if (group < 1) group = 1;
    int tabled = judging && (double)runs * (double)(cap + 1) <= (double)budget;
    int scanning = 0;         /* R-precision with grades to assign: a scan per group (rprec_scan) */
    for (Py_ssize_t c = 0; c < columns; c++) scanning |= variable && kinds[c] == DEPTH && depths[c] < 0;
    /* fused: that scan and the shared holes' counts in one pass (fused_scan), where the other columns reading
     * the shared holes are P's and hits' (at their depths: ``saved``) and every count fits 16 bits (R + u at most
     * R + 2 x cap); else the counts per depth added up in a table of their own */
    int fused = scanning && tabled && cap == deepest && cap <= 16383;
    int64_t saved_count = 0, most_relevant = 0;
    for (Py_ssize_t k = 0; k < count_compared; k++) {
        int64_t relevant_here = ((const int64_t *)num_rel.buf)[chosen[k]];
        most_relevant = relevant_here > most_relevant ? relevant_here : most_relevant;
    }
    fused &= most_relevant + 2 * cap <= 32767;
    for (Py_ssize_t c = 0; c < columns; c++)
        if (reads_sides((int)kinds[c], (int)variants[c]) && !(kinds[c] == DEPTH && depths[c] < 0)) {
            fused &= kinds[c] == LINEAR;
            saved_count += depths[c] < (double)deepest;
        }
    Postings o = {PyMem_RawCalloc(room, 8), PyMem_RawCalloc(room, 8), PyMem_RawCalloc((size_t)listed_most + 1, 4),
                  PyMem_RawCalloc((size_t)listed_most + 1, 4)};
    int32_t *within = PyMem_RawCalloc(judging ? (tabled ? (size_t)runs : 2) * (size_t)(cap + 1) : 1, 4);
    int32_t *judged_upto = PyMem_RawCalloc(judging ? (tabled ? (size_t)runs : 2) * (size_t)(cap + 1) : 1, 4);
    int32_t *shared_at = PyMem_RawCalloc(sided && !fused ? (size_t)group * (size_t)(cap + 2) + 8 : 1, 4);
    int64_t *shared = PyMem_RawCalloc((size_t)group, 8);
    int64_t *partners = PyMem_RawCalloc(partnered ? (size_t)group * (size_t)(widest + 1) : 1, 8);
    /* the scan's B sides: each run's holes and judged relevant per depth again, a row per depth (runs side by
     * side); each pair's unjudged documents, and its four extremes (rprec_scan's top .. bottom_over) */
    /* the group's scan runs over whole vectors of slots (``lanes``, the group rounded up to 16): the slots past it
     * have no unjudged documents (-1: never in range), and their reads stay in these tables (8 cells more) */
    int64_t lanes = (group + 15) & ~(int64_t)15;
    int32_t *across = PyMem_RawCalloc(scanning && tabled && !fused ? 2 * (size_t)runs * (size_t)(cap + 1) + 8 : 1, 4);
    /* fused: the same rows in 16 bits (16 cells more: a group's last vector reads past the runs), the pass's state
     * (5 x lanes) and each pair's unjudged documents (lanes); the shared holes per depth in 8 bits (cap + 1 rows of
     * lanes, zero between groups: at most two a cell, as no ranking holds a document twice, which the readers
     * make sure of); the saved depths (ascending) and their counts, a row of lanes each */
    size_t narrow_cells = fused ? 2 * (size_t)runs * (size_t)(cap + 1) + 16 + 6 * (size_t)lanes : 1;
    int16_t *narrow = PyMem_RawCalloc(narrow_cells, 2);
    int64_t *saved_depth = PyMem_RawCalloc((size_t)saved_count + 1, 8);
    int32_t *saved = PyMem_RawCalloc(((size_t)saved_count + 1) * (size_t)lanes, 4);
    int8_t *hist = PyMem_RawCalloc(fused ? (size_t)(cap + 1) * (size_t)lanes : 1, 1);
    int16_t *across16 = narrow, *state16 = narrow + (fused ? 2 * (size_t)runs * (size_t)(cap + 1) + 16 : 0);
    int16_t *unions16 = state16 + 5 * lanes;
    saved_count = 0;
    for (Py_ssize_t c = 0; c < columns && saved_depth; c++)
        if (reads_sides((int)kinds[c], (int)variants[c]) && kinds[c] == LINEAR && depths[c] < (double)deepest) {
            int64_t d = (int64_t)depths[c], at = saved_count++;
            for (; at > 0 && saved_depth[at - 1] > d; at--) saved_depth[at] = saved_depth[at - 1];
            saved_depth[at] = d;
        }
    /* each column's place among the saved depths (-1: none) */
    int64_t *saved_at = PyMem_RawMalloc(((size_t)columns + 1) * 8);
    for (Py_ssize_t c = 0; c < columns && saved_at; c++) {
        saved_at[c] = -1;
        for (int64_t k = 0; k < saved_count && saved_depth && kinds[c] == LINEAR && depths[c] < (double)deepest; k++)
            if (saved_depth[k] == (int64_t)depths[c]) { saved_at[c] = k; break; }
    }
    int32_t *unions = PyMem_RawCalloc((size_t)lanes, 4), *extremes = PyMem_RawCalloc(4 * (size_t)lanes, 4);
    /* per query, each run's base values side by side (the columns' rows are a segment apart: a cache miss per
     * column and pair) and its holes whose partners the columns read (the same in every pair it is in) */
    double *base_of = PyMem_RawCalloc((size_t)runs * (size_t)columns + 1, 8);
    int64_t *reach_of = PyMem_RawCalloc((size_t)runs + 1, 8);
    s.rank_a = PyMem_RawCalloc(room, 8);
    s.stamp_a = PyMem_RawCalloc(room, 8);
    s.values = PyMem_RawCalloc(2 * room, 8);
    s.partner_b = PyMem_RawCalloc((size_t)widest + 1, 8);
    s.prefix = PyMem_RawCalloc(room + 1, 8);
    s.best_upto = PyMem_RawCalloc(room + 1, 8);
    s.ideals = PyMem_RawCalloc((size_t)(layer_width + 1) * (room + 1), 8);
    s.chosen = PyMem_RawCalloc((size_t)(layer_width + 1) * (room + 1), 8);
    s.counts = PyMem_RawCalloc((size_t)layer_width + 1, 8);
    s.discount = PyMem_RawCalloc((size_t)deepest + 2, 8);
    s.merged = PyMem_RawCalloc(3 * room, 8);     /* each ranking's holes, and the shared again */
    i128 *totals = PyMem_RawCalloc(summing ? (size_t)count_pairs * (size_t)columns * 2 : 1, sizeof(i128));
    /* the columns whose bounds are whole numbers (P's and hits' with relevance 0 or 1: column_bounds' first case),
     * made here and summed in 64 bits (``counted``, each pair's and column's two): the grid's 128-bit sums of
     * the others, a pair's row of them, were a cache miss or two per column and query */
    char *whole = PyMem_RawCalloc((size_t)columns + 1, 1);
    int64_t *counted = PyMem_RawCalloc(summing ? (size_t)count_pairs * (size_t)columns * 2 : 1, 8);
    int off_grid = 0;
    int64_t *offsets = PyMem_RawMalloc((size_t)(segments + 1) * 8);
    int64_t *layer_counts = PyMem_RawCalloc((size_t)columns + 1, 8);
    int32_t *whole_at = PyMem_RawCalloc(2 * (size_t)runs * (size_t)columns + 2, 4);   /* per run and column */
    QueryHoles qh = {PyMem_RawMalloc(((size_t)runs * (size_t)deepest + 1) * 4),
                     PyMem_RawMalloc(((size_t)runs * (size_t)deepest + 1) * 4), PyMem_RawCalloc((size_t)runs + 1, 8),
                     PyMem_RawCalloc((size_t)runs + 1, 8)};
    if (!qh.rank || !qh.id || !qh.start || !qh.count ||
        !s.rank_a || !s.stamp_a || !s.values || !s.partner_b || !listed || !used || !o.start || !o.cursor ||
        !o.run || !o.rank || !within || !judged_upto || !shared_at || !shared || !partners || !across || !unions ||
        !extremes || !base_of || !reach_of || !narrow || !hist || !saved_depth || !saved ||
        !offsets || !s.prefix || !s.best_upto || !s.ideals || !s.chosen || !s.counts || !s.discount || !s.merged ||
        !layer_counts || !whole_at || !totals || !whole || !counted || !saved_at) {
        PyMem_RawFree(totals); PyMem_RawFree(whole); PyMem_RawFree(counted); PyMem_RawFree(offsets);
        PyMem_RawFree(saved_at); PyMem_RawFree(layer_counts); PyMem_RawFree(whole_at); PyMem_RawFree(listed);
        PyMem_RawFree(used);
        PyMem_RawFree(qh.rank); PyMem_RawFree(qh.id); PyMem_RawFree(qh.start); PyMem_RawFree(qh.count);
        PyMem_RawFree(o.start); PyMem_RawFree(o.cursor); PyMem_RawFree(o.run); PyMem_RawFree(o.rank);
        PyMem_RawFree(within); PyMem_RawFree(shared_at); PyMem_RawFree(shared); PyMem_RawFree(partners);
        PyMem_RawFree(judged_upto); PyMem_RawFree(across); PyMem_RawFree(unions); PyMem_RawFree(extremes);
        PyMem_RawFree(base_of); PyMem_RawFree(reach_of); PyMem_RawFree(narrow); PyMem_RawFree(hist);
        PyMem_RawFree(saved_depth);
        PyMem_RawFree(saved);
        PyErr_NoMemory();
        goto done;
    }
    offsets[0] = 0;
    for (Py_ssize_t k = 0; k < segments; k++) offsets[k + 1] = offsets[k] + size[k];
    for (int64_t r = 1; r <= deepest; r++) s.discount[r] = 1.0 / log2((double)r + 1.0);
    const double *step_of = (const double *)steps.buf;
    for (Py_ssize_t c = 0; c < columns; c++)              /* a column's layers: its positive steps, first */
        while (layer_counts[c] < layer_width && step_of[c * layer_width + layer_counts[c]] > 0) layer_counts[c]++;
    for (Py_ssize_t c = 0; c < columns; c++) {
        double phi_l = ((const double *)phi_low.buf)[c], phi_h = ((const double *)phi_high.buf)[c];
        whole[c] = kinds[c] == LINEAR && (variants[c] == 0 || variants[c] == 2) && (phi_l == 0.0 || phi_l == 1.0) &&
                   (phi_h == 0.0 || phi_h == 1.0);
    }
    Py_BEGIN_ALLOW_THREADS
    const int64_t *firsts = (const int64_t *)first.buf;
    const int16_t *code = (const int16_t *)codes.buf;
    const double *lows_phi = (const double *)phi_low.buf;
    const double *highs_phi = (const double *)phi_high.buf, *bases = (const double *)base.buf;
    const int64_t *relevant = (const int64_t *)num_rel.buf, *ideals = (const int64_t *)ideal.buf;
    double *lows = (double *)low.buf, *highs = (double *)high.buf;
    int64_t *next = counter.len ? (int64_t *)counter.buf : NULL;     /* shared with other threads' calls, or none */
    for (Py_ssize_t k = next ? next_shared(next) : 0; k < count_compared; k = next ? next_shared(next) : k + 1) {
        Py_ssize_t q = chosen[k];
        query_holes(&qh, code, ids, offsets, size, runs, queries, q, used);
        list_holes(&o, &qh, runs, listed, most, 1);
        for (Py_ssize_t r = 0; r < runs; r++) {
            if (used && !used[r]) continue;
            Py_ssize_t sg = r * queries + q;
            for (Py_ssize_t c = 0; c < columns; c++) base_of[r * columns + c] = bases[c * segments + sg];
            reach_of[r] = partnered ? holes_above(qh.rank + qh.start[r], qh.count[r],
                                                  partner_reach(kinds, variants, depths, columns, variable,
                                                                firsts[sg])) : 0;
        }
        if (tabled)
            for (Py_ssize_t r = 0; r < runs; r++)
                if (used[r]) {
                    Py_ssize_t sg = r * queries + q;
                    fill_tables(within + r * (cap + 1), judged_upto + r * (cap + 1), code + offsets[sg], size[sg],
                                level, cap);
                    /* the counts at each whole column's depth (at most cap: past a ranking's length they stay),
                     * side by side */
                    for (Py_ssize_t c = 0; c < columns; c++) {
                        if (!whole[c]) continue;
                        int64_t at = depths[c] < (double)cap ? (int64_t)depths[c] : cap;
                        whole_at[2 * (r * columns + c)] = within[r * (cap + 1) + at];
                        whole_at[2 * (r * columns + c) + 1] = judged_upto[r * (cap + 1) + at];
                    }
                }
        /* the scan's rows: the tables turned, 16 depths at a time (their rows stay in the cache while every run's
         * cells are written; a depth at a time, each write was a line of its own) */
        for (int64_t d0 = 0; tabled && scanning && d0 <= cap; d0 += 16) {
            int64_t d1 = d0 + 16 <= cap + 1 ? d0 + 16 : cap + 1;
            for (Py_ssize_t r = 0; r < runs; r++) {
                if (!used[r]) continue;
                if (fused)
                    for (int64_t d = d0; d < d1; d++) {
                        across16[d * runs + r] = (int16_t)within[r * (cap + 1) + d];
                        across16[(cap + 1 + d) * runs + r] = (int16_t)judged_upto[r * (cap + 1) + d];
                    }
                else
                    for (int64_t d = d0; d < d1; d++) {
                        across[d * runs + r] = within[r * (cap + 1) + d];
                        across[(cap + 1 + d) * runs + r] = judged_upto[r * (cap + 1) + d];
                    }
            }
        }
        for (Py_ssize_t p = 0; p < count_pairs;) {
            int64_t first_run = pair[2 * p], b0 = pair[2 * p + 1], n = group_at(pair, count_pairs, p, group);
            Py_ssize_t sa = first_run * queries + q;
            Side a = {qh.rank + qh.start[first_run], qh.id + qh.start[first_run], qh.count[first_run], size[sa],
                      code + offsets[sa], firsts[sa], NULL};
            int64_t a_reach = reach_of[first_run];
            if (partnered) {
                s.now++;          /* A's holes marked (their place in A's list): B's find their rank in A */
                for (int64_t j = 0; j < a.count; j++) { s.stamp_a[a.id[j]] = s.now; s.rank_a[a.id[j]] = j; }
            }
            int64_t group_longest = a.length;      /* the longest ranking, at most cap deep: past it no count changes */
            for (int64_t slot = 0; slot < n; slot++)
                group_longest = size[(b0 + slot) * queries + q] > group_longest ? size[(b0 + slot) * queries + q]
                                                                                 : group_longest;
            group_longest = group_longest < cap ? group_longest : cap;
            /* the group's own slots, rounded up to whole vectors: a row of the counts per depth and of the saved
             * counts each (groups are smaller than the largest, the last As' much smaller: with rows that wide,
             * the scan passed over twice the slots it needed) */
            int64_t group_lanes = (n + 15) & ~(int64_t)15;
            Meeting m = {shared, sided && !fused ? shared_at : NULL, fused ? group_longest : cap, partners, widest + 1,
                         a_reach, fused ? hist : NULL, group_lanes};
            meet_holes(&o, a.rank, a.id, a.count, first_run, b0, n, ordered, &m);
            const int32_t *within_a = tabled ? within + first_run * (cap + 1) : within;
            if (judging && !tabled) fill_tables(within, judged_upto, a.codes, a.length, level, cap);
            if (fused) {
                Fused f = {hist, within_a, judged_upto + first_run * (cap + 1), across16 + b0,
                           across16 + (cap + 1) * runs + b0, group_lanes, runs, group_longest, relevant[q],
                           saved_depth, saved_count, saved};
                fused_totals(&f, unions16);          /* the shared holes, then the unjudged documents in all */
                for (int64_t slot = 0; slot < group_lanes; slot++) {
                    if (slot < n) shared[slot] = unions16[slot];
                    unions16[slot] = slot < n ? (int16_t)(a.count + qh.count[b0 + slot] - shared[slot])
                                              : -1;
                }
                fused_scan(&f, unions16, state16, extremes, extremes + lanes, extremes + 2 * lanes,
                           extremes + 3 * lanes);
            }
            else if (sided) {
                /* the shared holes within each depth: rows (a depth's counts of the group's pairs) added up */
                int64_t longest = group_longest;
                for (int64_t d = 1; d <= longest; d++) add_row(shared_at + d * n, shared_at + (d - 1) * n, n);
                /* every shared hole: those within the longest ranking (rows past it hold none) and past cap */
                for (int64_t slot = 0; slot < n; slot++)
                    shared[slot] = (int64_t)shared_at[longest * n + slot] + shared_at[(cap + 1) * n + slot];
                for (int64_t slot = 0; slot < n && scanning; slot++)
                    unions[slot] = (int32_t)(a.count + qh.count[b0 + slot] - shared[slot]);
                if (scanning && tabled) {
                    Rows rows = {shared_at, within_a, judged_upto + first_run * (cap + 1), across + b0,
                                 across + (cap + 1) * runs + b0, n, runs, longest, relevant[q]};
                    int64_t whole = (n + 7) & ~(int64_t)7;
                    for (int64_t slot = n; slot < whole; slot++) unions[slot] = -1;
                    rprec_scan(&rows, whole, unions, extremes, extremes + lanes, extremes + 2 * lanes,
                               extremes + 3 * lanes);
                }
            }
            for (int64_t slot = 0; slot < n; slot++, p++) {
                Py_ssize_t sb = (b0 + slot) * queries + q;
                Side b = {qh.rank + qh.start[b0 + slot], qh.id + qh.start[b0 + slot], qh.count[b0 + slot], size[sb],
                          code + offsets[sb], firsts[sb], s.partner_b};
                if (shared_out.len) ((int64_t *)shared_out.buf)[p * count_compared + k] = shared[slot];
                a.partner = partners + slot * (widest + 1);
                Depths t = {NULL, NULL, NULL, NULL, NULL, n, 0, cap, NULL};
                int32_t scanned[4];
                if (judging) {
                    int64_t longest = a.length > b.length ? a.length : b.length;
                    t.longest = longest < cap ? longest : cap;
                    t.holes_a = within_a;
                    t.judged_a = judged_upto + (tabled ? first_run * (cap + 1) : 0);
                    Py_ssize_t row = tabled ? (b0 + slot) * (cap + 1) : cap + 1;
                    if (!tabled) fill_tables(within + row, judged_upto + row, b.codes, b.length, level, cap);
                    t.holes_b = within + row;
                    t.judged_b = judged_upto + row;
                }
                if (fused) {          /* the shared holes at P's and hits' depths, and in all */
                    t.saved = saved + slot;
                    t.saved_depth = saved_depth;
                    t.saved_count = saved_count;
                    t.stride = group_lanes;
                    t.total = shared[slot];
                }
                if (sided) {
                    t.shared = shared_at + slot;
                    if (scanning && !tabled) {     /* one pair, from its own tables */
                        Rows rows = {shared_at + slot, t.holes_a, t.judged_a, t.holes_b, t.judged_b, n, 1,
                                     group_longest, relevant[q]};
                        rprec_scan(&rows, 1, unions + slot, extremes + slot, extremes + lanes + slot,
                                   extremes + 2 * lanes + slot, extremes + 3 * lanes + slot);
                    }
                    for (int e = 0; e < 4; e++) scanned[e] = extremes[e * lanes + slot];
                    t.scanned = scanned;
                }
                if (partnered) {
                    int64_t b_reach = reach_of[b0 + slot];
                    for (int64_t j = 0; j < b_reach; j++) {
                        int64_t id = b.id[j];
                        s.partner_b[j] = s.stamp_a[id] == s.now ? a.rank[s.rank_a[id]] : 0;
                    }
                }
                for (Py_ssize_t c = 0; c < columns; c++) {
                    double l, h;
                    if (whole[c]) {           /* P's and hits' with relevance 0 or 1: whole numbers */
                        int64_t least, most;
                        whole_bounds(&t, depths[c], saved_at[c], (int64_t)lows_phi[c], (int64_t)highs_phi[c],
                                     tabled ? whole_at + 2 * (first_run * columns + c) : NULL,
                                     tabled ? whole_at + 2 * ((b0 + slot) * columns + c) : NULL, &least, &most);
                        if (summing) {
                            int64_t *sum = counted + 2 * (p * columns + c);
                            sum[0] += least;
                            sum[1] += most;
                            off_grid |= (least <= -(1 << 22)) | (most >= (1 << 22));   /* on_grid's range */
                            continue;
                        }
                        l = (double)least;
                        h = (double)most;
                        lows[(p * columns + c) * count_compared + k] = l;
                        highs[(p * columns + c) * count_compared + k] = h;
                        continue;
                    }
                    Layers layers = {layer_counts[c], step_of + c * layer_width, ideals + c * layer_width * queries + q,
                                     queries};
                    column_bounds(&s, (int)kinds[c], (int)variants[c], depths[c], lows_phi[c], highs_phi[c],
                                  base_of[first_run * columns + c] - base_of[(b0 + slot) * columns + c], variable,
                                  all_relevant,
                                  relevant[q], &layers, (const double *)ideal_before.buf, ideal_size,
                                  &a, &b, &t, shared[slot], &l, &h);
                    if (summing) {
                        i128 *total = totals + 2 * (p * columns + c);
                        off_grid |= !on_grid(l, total) | !on_grid(h, total + 1);
                    } else {
                        lows[(p * columns + c) * count_compared + k] = l;
                        highs[(p * columns + c) * count_compared + k] = h;
                    }
                }
            }
        }
    }
    for (Py_ssize_t i = 0; summing && !off_grid && i < count_pairs * columns * 2; i++) {
        if (whole[(i / 2) % columns]) totals[i] = (i128)counted[i] * ((i128)1 << GRID_BITS);   /* on the grid */
        to_limbs(from_i128(totals[i]), (int64_t *)sums.buf + i * FIRST_LIMBS, FIRST_LIMBS);
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(totals); PyMem_RawFree(whole); PyMem_RawFree(counted); PyMem_RawFree(saved_at);
    PyMem_RawFree(qh.rank); PyMem_RawFree(qh.id); PyMem_RawFree(qh.start); PyMem_RawFree(qh.count);
    PyMem_RawFree(offsets); PyMem_RawFree(layer_counts); PyMem_RawFree(whole_at); PyMem_RawFree(listed);
    PyMem_RawFree(used);
    PyMem_RawFree(o.start); PyMem_RawFree(o.cursor); PyMem_RawFree(o.run); PyMem_RawFree(o.rank);
    PyMem_RawFree(within); PyMem_RawFree(shared_at); PyMem_RawFree(shared); PyMem_RawFree(partners);
    PyMem_RawFree(judged_upto); PyMem_RawFree(across); PyMem_RawFree(unions); PyMem_RawFree(extremes);
    PyMem_RawFree(base_of); PyMem_RawFree(reach_of); PyMem_RawFree(narrow); PyMem_RawFree(hist);
    PyMem_RawFree(saved_depth);
    PyMem_RawFree(saved);
    result = PyBool_FromLong(!off_grid);
done:
    PyMem_RawFree(s.rank_a); PyMem_RawFree(s.stamp_a);
    PyMem_RawFree(s.values); PyMem_RawFree(s.partner_a); PyMem_RawFree(s.partner_b);
    PyMem_RawFree(s.prefix); PyMem_RawFree(s.best_upto); PyMem_RawFree(s.ideals); PyMem_RawFree(s.chosen);
    PyMem_RawFree(s.counts);
    PyMem_RawFree(s.discount); PyMem_RawFree(s.merged);
    PyBuffer_Release(&hole_id); PyBuffer_Release(&codes); PyBuffer_Release(&first); PyBuffer_Release(&lengths);
    PyBuffer_Release(&compared); PyBuffer_Release(&pairs); PyBuffer_Release(&kind); PyBuffer_Release(&variant);
    PyBuffer_Release(&depth); PyBuffer_Release(&phi_low); PyBuffer_Release(&phi_high); PyBuffer_Release(&base);
    PyBuffer_Release(&num_rel); PyBuffer_Release(&steps); PyBuffer_Release(&ideal); PyBuffer_Release(&ideal_before);
    PyBuffer_Release(&low); PyBuffer_Release(&high); PyBuffer_Release(&shared_out); PyBuffer_Release(&sums);
    PyBuffer_Release(&counter);
    return result;
}

/* lex_bounds(codes, hole_ids, starts, lengths, queries, compared, pairs, which, level, variable, all_relevant,
 * most_holes, shared, low, high, sums, counter): the least and greatest of each preference ``which`` names (int64, W: LP 0, LR 1, rrLP 2, rrLR 3; all in one pass, so that the arguments are checked, and a
 * query's rankings read, once for all) of pairs of runs on each compared query (P x W x Q) under one shared
 * assignment, or, where ``sums`` (int64, P x W x 2 x FIRST_LIMBS) is given, the least's and greatest's sums over
 * the queries on the exact grid, as difference_bounds sums (False where a value is off it). Going down (LP, rrLP)
 * or up (LR) both rankings the
 * documents at each rank are made alike in relevance: a union-find over the unjudged documents' numbers and
 * the two constants (see lexeval/bounds/lexical.py, the reference, which says why each is exact). Per segment
 * (runs x queries, int64) its first document and length in codes (int16) and hole_ids (int32, each unjudged
 * document's number in its query; each query's lists of them are made as the query comes: query_holes); shared
 * (int64, P x compared queries, or empty): LR's unjudged documents both runs hold, as difference_bounds counted them
 * (else counted here); low and high float64 (P x W x compared queries, or empty where summed); counter (int64, 1, or
 * empty): as difference_bounds', the compared queries taken one at a time, shared with other threads' calls. */
static int64_t find(Scratch *s, int64_t x) {
    while (1) {
        int64_t p = s->parent_stamp[x] == s->now ? s->parent[x] : x;
        if (p == x) return x;
        int64_t grand = s->parent_stamp[p] == s->now ? s->parent[p] : p;
        s->parent[x] = grand;
        s->parent_stamp[x] = s->now;
        x = p;
    }
}

typedef struct {           /* one ranking: its relevance codes and unjudged documents' numbers */
    const int16_t *codes;
    Ids ids;
    int64_t length;
} Ranking;

typedef struct {
    Scratch *s;
    int level, variable, all_relevant;
    int64_t zero, one;     /* the constants' nodes */
} Alike;

/* the node of a ranking's document at ``i`` (0-based): a constant where it is judged (or every unjudged document
 * has one relevance) or past the end, else its number */
static int64_t node(const Alike *u, const Ranking *r, int64_t i) {
    if (i >= r->length) return u->zero;
    int16_t code = r->codes[i];
    if (code >= 0 || !u->variable) return (code >= u->level || (code < 0 && u->all_relevant)) ? u->one : u->zero;
    return r->ids.wide ? ((const int32_t *)r->ids.at)[i] : ((const int16_t *)r->ids.at)[i];
}

/* whether x can be relevant and y not, given what is joined */
static int can(const Alike *u, int64_t x, int64_t y) {
    int64_t fx = find(u->s, x), fy = find(u->s, y);
    return fx != find(u->s, u->zero) && fy != find(u->s, u->one) && fx != fy;
}

/* x and y made alike; 0 (nothing joined) where they cannot be */
static int join(const Alike *u, int64_t x, int64_t y) {
    int64_t fx = find(u->s, x), fy = find(u->s, y);
    if (fx == fy) return 1;
    int64_t f0 = find(u->s, u->zero), f1 = find(u->s, u->one);
    if ((fx == f0 && fy == f1) || (fx == f1 && fy == f0)) return 0;
    u->s->parent[fx] = fy;
    u->s->parent_stamp[fx] = u->s->now;
    return 1;
}

static int64_t longer(const Ranking *a, const Ranking *b) { return a->length > b->length ? a->length : b->length; }

/* whether every rank can be made alike (a tie) */
static int tie_possible(const Alike *u, const Ranking *a, const Ranking *b) {
    u->s->now++;
    for (int64_t i = 0; i < longer(a, b); i++)
        if (!join(u, node(u, a, i), node(u, b, i))) return 0;
    return 1;
}

/* LP's (least, greatest) in one pass down: A (B) can win at a rank given those above, or a tie */
static void lp_pair(const Alike *u, const Ranking *a, const Ranking *b, double *low, double *high) {
    int a_wins = 0, b_wins = 0, tie = 1;
    u->s->now++;
    for (int64_t i = 0; i < longer(a, b) && !(a_wins && b_wins); i++) {
        int64_t x = node(u, a, i), y = node(u, b, i);
        if (x == y) continue;
        a_wins |= can(u, x, y);
        b_wins |= can(u, y, x);
        if (!join(u, x, y)) { tie = 0; break; }
    }
    *high = a_wins ? 1.0 : tie ? 0.0 : -1.0;
    *low = b_wins ? -1.0 : tie ? 0.0 : 1.0;
}

/* rrLP's greatest for A over B */
static double rrlp_high(const Alike *u, const Ranking *a, const Ranking *b) {
    Scratch *s = u->s;
    int found = 0;
    double best = 0.0;
    s->now++;
    for (int64_t i = 0; i < longer(a, b); i++) {
        double rank = (double)(i + 1);
        if (found && 1.0 / rank <= best) return best;
        int64_t x = node(u, a, i), y = node(u, b, i);
        if (x == y) continue;
        if (can(u, x, y)) {         /* B's next relevant: its first document forced relevant below */
            int64_t fx = find(s, x), f1 = find(s, u->one);
            double next = 0.0;
            for (int64_t t = i + 1; t < b->length; t++) {
                int64_t f = find(s, node(u, b, t));
                if (f == f1 || f == fx) { next = 1.0 / (double)(t + 1); break; }
            }
            double value = 1.0 / rank - next;
            if (!found || value > best) { best = value; found = 1; }
        }
        if (!join(u, x, y)) break;
    }
    if (found) return best;
    if (tie_possible(u, a, b)) return 0.0;
    s->now++;
    for (int64_t i = 0; i < longer(a, b); i++) {
        double rank = (double)(i + 1);
        int64_t x = node(u, a, i), y = node(u, b, i);
        if (x == y) continue;
        if (can(u, y, x)) {         /* A's next relevant: its first document that can be relevant below */
            int64_t fx = find(s, x), f0 = find(s, u->zero);
            double next = 0.0;
            for (int64_t t = i + 1; t < a->length; t++) {
                int64_t f = find(s, node(u, a, t));
                if (f != f0 && f != fx) { next = 1.0 / (double)(t + 1); break; }
            }
            double value = next - 1.0 / rank;
            if (!found || value > best) { best = value; found = 1; }
        }
        if (!join(u, x, y)) break;
    }
    return found ? best : 0.0;
}

/* how many documents of a ranking are judged relevant (or always relevant): node(u, r, i) == u->one, without a
 * branch (a pass over every ranking of every pair's query) */
static int64_t judged_relevant(const Alike *u, const Ranking *r) {
    int64_t count = 0;
    int fixed = !u->variable, level = u->level, all_relevant = u->all_relevant;
    for (int64_t i = 0; i < r->length; i++) {
        int code = r->codes[i];
        count += ((code >= 0) | fixed) & ((code >= level) | ((code < 0) & all_relevant));
    }
    return count;
}

typedef struct {           /* one ranking's unjudged documents' numbers, in rank order (none unless variable) */
    const int32_t *ids;
    int64_t count;
} HoleList;

/* A's (B's) unjudged documents marked in stamp_a (stamp_b) with a new stamp, returned; ``both``: how many both hold */
static int64_t mark_holes(Scratch *s, const HoleList *ha, const HoleList *hb, int64_t *both) {
    int64_t stamp = ++s->now;
    *both = 0;
    for (int64_t k = 0; k < hb->count; k++) s->stamp_b[hb->ids[k]] = stamp;
    for (int64_t k = 0; k < ha->count; k++) { s->stamp_a[ha->ids[k]] = stamp; *both += s->stamp_b[ha->ids[k]] == stamp; }
    return stamp;
}

/* LR's greatest for A over B (+1, 0 or -1): ``judged`` each ranking's judged relevant documents, ``both`` the
 * unjudged documents both hold, with stamp_a (stamp_b) marking A's (B's) at the current stamp */
static int lr_high(const Alike *u, const Ranking *a, const Ranking *b, const HoleList *ha, const HoleList *hb,
                   const int64_t *judged, int64_t both, const int64_t *mark_a, const int64_t *mark_b, int64_t stamp) {
    int64_t most = judged[0] - judged[1] + ha->count - both;
    if (most > 0) return 1;
    if (most == 0) {
        /* equal counts only with A's only documents relevant and B's only not; then from the bottom up */
        u->s->now++;
        for (int64_t k = 0; k < ha->count; k++)
            if (mark_b[ha->ids[k]] != stamp) join(u, ha->ids[k], u->one);
        for (int64_t k = 0; k < hb->count; k++)
            if (mark_a[hb->ids[k]] != stamp) join(u, hb->ids[k], u->zero);
        for (int64_t i = longer(a, b) - 1; i >= 0; i--) {
            int64_t x = node(u, a, i), y = node(u, b, i);
            if (x == y) continue;
            if (can(u, y, x)) return 1;
            if (!join(u, x, y)) break;
        }
    }
    /* below 0 the counts can be neither more nor equal (a tie has equal counts) */
    return most >= 0 && tie_possible(u, a, b) ? 0 : -1;
}

/* LR's (least, greatest): the unjudged documents both hold counted once for the two (``known``: how many, where
 * already counted; else -1) */
static void lr_pair(const Alike *u, const Ranking *a, const Ranking *b, const HoleList *ha, const HoleList *hb,
                    const int64_t *judged, int64_t known, double *low, double *high) {
    Scratch *s = u->s;
    int64_t base = judged[0] - judged[1], fewer = ha->count < hb->count ? ha->count : hb->count;
    int64_t shared = known >= 0 ? known : fewer;
    /* each side's only documents are its holes less the shared (at least its holes less the fewer): decided
     * without matching where both sides' counts can be more */
    if (base + ha->count - shared > 0 && -base + hb->count - shared > 0) { *low = -1.0; *high = 1.0; return; }
    int64_t both, stamp = mark_holes(s, ha, hb, &both);
    int64_t other[2] = {judged[1], judged[0]};
    *high = (double)lr_high(u, a, b, ha, hb, judged, both, s->stamp_a, s->stamp_b, stamp);
    *low = -(double)lr_high(u, b, a, hb, ha, other, both, s->stamp_b, s->stamp_a, stamp);
}

/* rrLR. The counts of relevant documents retrieved are equal iff A's only unjudged documents made relevant less
 * B's only ones equal J_B - J_A (the documents both hold count once for each). Each class of documents made alike
 * takes one grade, with a coefficient: +1 per A's only document in it, -1 per B's only. Going up from the bottom,
 * each rank joins one document of A and one of B, and each document is in each ranking once, so a class is a path
 * whose ends alone can be only one side's: its coefficient is between -2 and 2, and the sums the free classes can
 * make are every integer from the negative coefficients' sum to the positive ones' where one is odd, else the even
 * ones (see lexeval/bounds/lexical.py, the reference). */
typedef struct {
    int64_t fixed;          /* the coefficients of the class made relevant */
    int64_t plus, minus;    /* the free classes' positive coefficients' sum, and negative ones' */
    int64_t odd;            /* how many free classes have an odd coefficient */
    int64_t mark;           /* the stamp of A's (stamp_a) and B's (stamp_b) unjudged documents of this pair */
} Tally;

/* whether node x is an unjudged document only the first run (stamp_a) holds */
static int only_first(const Alike *u, int64_t mark, int64_t x) {
    return x != u->zero && x != u->one && u->s->stamp_a[x] == mark && u->s->stamp_b[x] != mark;
}

static int64_t coefficient(const Alike *u, const Tally *t, int64_t root) {
    Scratch *s = u->s;
    if (s->coefficient_stamp[root] == s->now) return s->coefficient[root];
    if (root == u->zero || root == u->one) return 0;
    return (s->stamp_a[root] == t->mark) - (s->stamp_b[root] == t->mark);
}

static void free_class(Tally *t, int64_t c, int64_t sign) {
    if (c > 0) t->plus += sign * c; else t->minus += sign * c;
    t->odd += sign * (c & 1);
}

static int sum_possible(const Tally *t, int64_t target) {
    return target >= t->minus && target <= t->plus && (t->odd > 0 || (target & 1) == 0);
}

/* x and y made alike for good, the tally kept: 0 (nothing joined) where they cannot be */
static int join_counted(const Alike *u, Tally *t, int64_t x, int64_t y) {
    Scratch *s = u->s;
    int64_t fx = find(s, x), fy = find(s, y);
    if (fx == fy) return 1;
    int64_t f0 = find(s, u->zero), f1 = find(s, u->one);
    if ((fx == f0 && fy == f1) || (fx == f1 && fy == f0)) return 0;
    if (fx == f0 || fx == f1) { int64_t swap = fx; fx = fy; fy = swap; }   /* a constant's class stays the root */
    int64_t cx = coefficient(u, t, fx);
    free_class(t, cx, -1);
    if (fy == f1) {
        t->fixed += cx;
    } else if (fy != f0) {
        int64_t cy = coefficient(u, t, fy);
        free_class(t, cy, -1);
        free_class(t, cx + cy, 1);
        s->coefficient[fy] = cx + cy;
        s->coefficient_stamp[fy] = s->now;
    }
    s->parent[fx] = fy;
    s->parent_stamp[fx] = s->now;
    return 1;
}

/* the root of x without shortening paths: the links made for one rank q are undone after it */
static int64_t root_of(Scratch *s, int64_t x) {
    while (1) {
        int64_t p = s->parent_stamp[x] == s->now ? s->parent[x] : x;
        if (p == x) return x;
        x = p;
    }
}

/* x's class made relevant (to_one) or not for one rank q, logged; 0 where it is forced the other way */
static int force(const Alike *u, Tally *t, int64_t x, int to_one, int64_t *logged) {
    Scratch *s = u->s;
    int64_t fx = root_of(s, x), f0 = root_of(s, u->zero), f1 = root_of(s, u->one);
    if (fx == (to_one ? f1 : f0)) return 1;
    if (fx == (to_one ? f0 : f1)) return 0;
    int64_t c = coefficient(u, t, fx);
    free_class(t, c, -1);
    if (to_one) t->fixed += c;
    s->parent[fx] = to_one ? f1 : f0;
    s->parent_stamp[fx] = s->now;
    s->undo[(*logged)++] = fx;
    return 1;
}

/* whether x can be relevant with the counts equal, given what is joined and forced */
static int relevant_with_equal_counts(const Alike *u, const Tally *t, int64_t x, int64_t need) {
    Scratch *s = u->s;
    int64_t fx = root_of(s, x), f0 = root_of(s, u->zero), f1 = root_of(s, u->one);
    if (fx == f0) return 0;
    if (fx == f1) return sum_possible(t, need - t->fixed);
    Tally with = *t;
    int64_t c = coefficient(u, t, fx);
    free_class(&with, c, -1);
    return sum_possible(&with, need - t->fixed - c);
}

/* A's wins with equal counts: B relevant at q, the lowest rank where they differ (every rank below alike), A's
 * lowest relevant above it at r (A's documents between not relevant); each value 1/(r+1) - 1/(q+1) (0-based ranks).
 * ``least``: the least of them (for each q the first r going up), else the greatest, found above ``*best`` (where
 * ``*found``): ranks q whose greatest cannot beat it (its r at or below A's lowest judged relevant document above q)
 * are passed over. Returns whether one was found; ``t`` the tally before any join. */
static int equal_count_wins(const Alike *u, const Ranking *a, const Ranking *b, int64_t need, Tally t, int least,
                            int found, double *best) {
    Scratch *s = u->s;
    s->now++;
    /* A's only documents at or above each rank: the counts are equal only if those at or above r and those below
     * q (the ones between are not relevant) reach ``need``, so r is at least where they can */
    int64_t *only_above = s->only_above, counted = 0;     /* counted once a q reads them */
    int64_t judged_above = a->length - 1;       /* A's lowest judged relevant rank above q (-1: none) */
    int64_t only_below = 0, reach = a->length;  /* A's only documents below q; the highest r they allow */
    for (int64_t q = longer(a, b) - 1; q >= 0; q--) {
        int64_t x = node(u, a, q), y = node(u, b, q);
        while (judged_above >= q || (judged_above >= 0 && node(u, a, judged_above) != u->one)) judged_above--;
        int64_t short_of = need - only_below;
        if (short_of > 0 && !counted) {
            for (int64_t i = 0, running = 0; i < a->length; i++) {
                running += only_first(u, t.mark, node(u, a, i));
                only_above[i] = running;
            }
            counted = 1;
        }
        if (short_of <= 0) reach = 0;
        else while (reach > 0 && only_above[reach - 1] >= short_of) reach--;
        int64_t lowest = judged_above > reach ? judged_above : reach;     /* r's least, where one can be */
        /* the best this q can give: r = q - 1 (least), else r at ``lowest`` */
        double ceiling = q == 0 ? 0.0 : least ? 1.0 / (double)q - 1.0 / (double)(q + 1)
                                      : 1.0 / (double)(lowest < 0 ? 1 : lowest + 1) - 1.0 / (double)(q + 1);
        int hopeless = reach >= q;              /* too few of A's only documents above q to equal the counts */
        if (x != y && q > 0 && !hopeless && can(u, y, x) &&
            !(found && (least ? ceiling >= *best : ceiling <= *best))) {
            Tally above = t;
            int64_t logged = 0;
            force(u, &above, y, 1, &logged);
            force(u, &above, x, 0, &logged);
            for (int64_t r = q - 1; r >= 0; r--) {
                /* each document forced not relevant takes its class's coefficient out of what the free classes can
                 * sum to: once the counts cannot be equal, they cannot above either */
                if (need - above.fixed > above.plus || need - above.fixed < above.minus) break;
                int64_t at = node(u, a, r);
                if (relevant_with_equal_counts(u, &above, at, need)) {
                    double value = 1.0 / (double)(r + 1) - 1.0 / (double)(q + 1);
                    if (!found || (least ? value < *best : value > *best)) { *best = value; found = 1; }
                    if (least) break;
                }
                if (!force(u, &above, at, 0, &logged)) break;
            }
            for (int64_t k = 0; k < logged; k++) s->parent_stamp[s->undo[k]] = 0;
        }
        if (!join_counted(u, &t, x, y)) break;
        only_below += q < a->length && only_first(u, t.mark, x);
    }
    return found;
}

/* rrLR's greatest for A over B: ``judged`` each ranking's judged relevant documents; ha, hb their unjudged ones */
static double rrlr_high(const Alike *u, const Ranking *a, const Ranking *b, const HoleList *ha, const HoleList *hb,
                        const int64_t *judged) {
    Scratch *s = u->s;
    int64_t both, mark = mark_holes(s, ha, hb, &both), only_a = ha->count - both, only_b = hb->count - both;
    Tally t = {0, only_a, -only_b, only_a + only_b, mark};
    int found = 0;
    double best = 0.0;
    /* A wins by counts: its lowest relevant as high as it can be, at or below its lowest judged relevant */
    int64_t lowest_judged = -1, ahead = judged[0] - judged[1];
    for (int64_t r = a->length - 1; r >= 0 && lowest_judged < 0; r--)
        if (node(u, a, r) == u->one) lowest_judged = r;
    for (int64_t r = 0; r < a->length; r++) {
        int64_t x = node(u, a, r);
        ahead += only_first(u, mark, x);
        if (r >= lowest_judged && x != u->zero && ahead > 0) { best = 1.0 / (double)(r + 1); found = 1; break; }
    }
    int64_t need = judged[1] - judged[0];
    found = equal_count_wins(u, a, b, need, t, 0, found, &best);
    if (found) return best;
    if (tie_possible(u, a, b)) return 0.0;
    /* B wins whatever the grades: by counts with its lowest rank that can be relevant, or with equal counts */
    if (need + only_b > 0) {
        for (int64_t r = b->length - 1; r >= 0 && !found; r--)
            if (node(u, b, r) != u->zero) { best = 1.0 / (double)(r + 1); found = 1; }
    }
    Tally swapped = {0, only_b, -only_a, only_a + only_b, mark};
    int64_t *stamps = s->stamp_a;             /* B's side now: its only documents count +1 */
    s->stamp_a = s->stamp_b;
    s->stamp_b = stamps;
    found = equal_count_wins(u, b, a, -need, swapped, 1, found, &best);
    s->stamp_b = s->stamp_a;
    s->stamp_a = stamps;
    return -best;
}

PyObject *lex_bounds(PyObject *self, PyObject *args) {
    Py_buffer codes, hole_ids, starts, lengths, compared, pairs, whiches, low, high;
    Py_buffer given, sums, counter;
    Py_ssize_t queries, most;
    int level, variable, all_relevant;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*iiiny*w*w*w*w*", &codes, &hole_ids, &starts, &lengths, &queries,
                          &compared, &pairs, &whiches, &level, &variable, &all_relevant, &most, &given, &low, &high,
                          &sums, &counter))
        return NULL;
    PyObject *result = NULL;
    Scratch s = {0};
    int64_t *tallies = NULL, *shared = NULL;
    i128 *totals = NULL;
    int off_grid = 0;
    char *b_side = NULL, *used = NULL;
    Postings o = {NULL, NULL, NULL, NULL};
    QueryHoles qh = {NULL, NULL, NULL, NULL};
    Py_ssize_t documents = codes.len / 2, segments = starts.len / 8, count_pairs = pairs.len / 16;
    Py_ssize_t count_compared = compared.len / 8, count_which = whiches.len / 8;
    Py_ssize_t cells = count_pairs * count_compared;          /* each preference's values: P x compared Q */
    Ids all_ids;
    if (!queries || !ids_of(&hole_ids, documents, "lex_bounds", &all_ids) || !check(&lengths, segments, 8, "lengths") ||
        !check(&low, sums.len ? 0 : count_which * cells, 8, "low") ||
        !check(&high, sums.len ? 0 : count_which * cells, 8, "high") || most < 0 ||
        (sums.len && !check(&sums, count_pairs * count_which * 2 * FIRST_LIMBS, 8, "sums")) ||
        (given.len && !check(&given, cells, 8, "shared")) || (counter.len && !check(&counter, 1, 8, "counter")))
        goto done;
    const int64_t *which_of = (const int64_t *)whiches.buf;
    int64_t lr_at = -1;                   /* LR's place among the preferences, if asked for */
    int listing = 0;                      /* LR's and rrLR's read each ranking's unjudged documents, listed */
    for (Py_ssize_t w = 0; w < count_which; w++) {
        listing |= variable && (which_of[w] == 1 || which_of[w] == 3);
        if (which_of[w] < 0 || which_of[w] > 3) {
            PyErr_SetString(PyExc_ValueError, "lex_bounds: which is 0 (LP), 1 (LR), 2 (rrLP) or 3 (rrLR)");
            goto done;
        }
        if (which_of[w] == 1) lr_at = w;
    }
    const int64_t *first = (const int64_t *)starts.buf, *size = (const int64_t *)lengths.buf;
    const int64_t *pair = (const int64_t *)pairs.buf, *chosen = (const int64_t *)compared.buf;
    const int16_t *all_codes = (const int16_t *)codes.buf;
    Py_ssize_t runs = segments / queries;
    for (Py_ssize_t k = 0; k < segments; k++)
        if (first[k] < 0 || size[k] < 0 || first[k] + size[k] > documents || size[k] > INT32_MAX) {
            PyErr_SetString(PyExc_IndexError, "lex_bounds: a segment out of range");
            goto done;
        }
    if (!holes_numbered(all_codes, all_ids, documents, most)) {
        PyErr_SetString(PyExc_IndexError, "lex_bounds: a hole's number out of range");
        goto done;
    }
    if (!pairs_and_queries_in_range("lex_bounds", pair, count_pairs, runs, chosen, count_compared, queries))
        goto done;
    size_t room = (size_t)(most + 2);
    s.parent = PyMem_RawCalloc(room, 8);
    s.parent_stamp = PyMem_RawCalloc(room, 8);
    s.stamp_a = PyMem_RawCalloc(room, 8);
    s.stamp_b = PyMem_RawCalloc(room, 8);
    s.coefficient = PyMem_RawCalloc(room, 8);
    s.coefficient_stamp = PyMem_RawCalloc(room, 8);
    s.undo = PyMem_RawCalloc(room, 8);
    int64_t deepest = 0;
    for (Py_ssize_t k = 0; k < segments; k++) deepest = size[k] > deepest ? size[k] : deepest;
    s.only_above = PyMem_RawCalloc((size_t)deepest + 1, 8);
    tallies = PyMem_RawMalloc((size_t)(segments + 1) * 8);
    /* LR: each query's holes listed per hole number, for the runs on the B side (see difference_bounds) */
    int counted = lr_at >= 0 && variable && !given.len, ordered = 0;
    int64_t listed_most = 0;
    b_side = PyMem_RawCalloc((size_t)runs + 1, 1);
    used = PyMem_RawCalloc((size_t)runs + 1, 1);
    if (b_side && used) ordered = plan_lists(pair, count_pairs, runs, queries, size, b_side, used, &listed_most);
    size_t listing_room = listing || counted ? (size_t)runs * (size_t)deepest + 1 : 1;
    qh.rank = PyMem_RawMalloc(listing_room * 4);
    qh.id = PyMem_RawMalloc(listing_room * 4);
    qh.start = PyMem_RawCalloc((size_t)runs + 1, 8);
    qh.count = PyMem_RawCalloc((size_t)runs + 1, 8);
    o.start = PyMem_RawCalloc(counted ? room : 1, 8);
    o.cursor = PyMem_RawCalloc(counted ? room : 1, 8);
    o.run = PyMem_RawCalloc(counted ? (size_t)listed_most + 1 : 1, 4);
    shared = PyMem_RawCalloc((size_t)runs + 1, 8);
    totals = PyMem_RawCalloc(sums.len ? (size_t)count_pairs * (size_t)count_which * 2 : 1, sizeof(i128));
    if (!s.parent || !s.parent_stamp || !s.stamp_a || !s.stamp_b || !s.coefficient || !s.coefficient_stamp ||
        !s.undo || !s.only_above || !tallies || !b_side || !used || !o.start || !o.cursor || !o.run || !shared ||
        !totals || !qh.rank || !qh.id || !qh.start || !qh.count) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    double *lows = (double *)low.buf, *highs = (double *)high.buf;
    i128 *summed = sums.len ? totals : NULL;
    Alike u = {&s, level, variable, all_relevant, most, most + 1};
    for (Py_ssize_t k = 0; k < segments; k++) tallies[k] = -1;
    /* LR: A's greatest is 1 wherever its judged relevant documents and the unjudged ones B lacks outnumber B's
     * judged relevant ones (lr_high), and B's likewise: the unjudged documents both hold are counted for every
     * pair of a query at once, from each hole's list of runs (meet_holes); the pairs left go one by one */
    /* query by query (taken one at a time from ``counter`` where it is given, shared with other threads' calls):
     * the rankings of a query (a hundred runs' take a few hundred kB) stay in the cache for all its pairs and
     * preferences, where pair by pair each of a pair's rankings was a miss or two */
    int64_t *next = counter.len ? (int64_t *)counter.buf : NULL;
    for (Py_ssize_t k = next ? next_shared(next) : 0; k < count_compared; k = next ? next_shared(next) : k + 1) {
        if (listing || counted) query_holes(&qh, all_codes, all_ids, first, size, runs, queries, chosen[k], used);
        if (counted) list_holes(&o, &qh, runs, b_side, most, 0);
        for (Py_ssize_t p = 0; p < count_pairs && counted;) {
            Py_ssize_t q = chosen[k];
            int64_t first_run = pair[2 * p], b0 = pair[2 * p + 1], n = group_at(pair, count_pairs, p, runs);
            Py_ssize_t sa = first_run * queries + q;
            Meeting m = {shared, NULL, 0, NULL, 0, 0};
            meet_holes(&o, NULL, qh.id + qh.start[first_run], qh.count[first_run], first_run, b0, n, ordered, &m);
            Ranking a = {all_codes + first[sa], ids_at(all_ids, first[sa]), size[sa]};
            if (tallies[sa] < 0) tallies[sa] = judged_relevant(&u, &a);
            for (int64_t slot = 0; slot < n; slot++, p++) {
                Py_ssize_t sb = (b0 + slot) * queries + q;
                Ranking b = {all_codes + first[sb], ids_at(all_ids, first[sb]), size[sb]};
                if (tallies[sb] < 0) tallies[sb] = judged_relevant(&u, &b);
                int64_t judged[2] = {tallies[sa], tallies[sb]};
                HoleList ha = {qh.id + qh.start[first_run], qh.count[first_run]};
                HoleList hb = {qh.id + qh.start[b0 + slot], qh.count[b0 + slot]};
                double l, h;
                lr_pair(&u, &a, &b, &ha, &hb, judged, shared[slot], &l, &h);
                off_grid |= !kept(l, h, lows, highs, (p * count_which + lr_at) * count_compared + k, summed,
                                  p * count_which + lr_at);
            }
        }
        /* the other preferences (LR's too, where not counted above) */
        for (Py_ssize_t p = 0; p < count_pairs; p++) {
            Py_ssize_t q = chosen[k], sa = pair[2 * p] * queries + q, sb = pair[2 * p + 1] * queries + q;
            Ranking a = {all_codes + first[sa], ids_at(all_ids, first[sa]), size[sa]};
            Ranking b = {all_codes + first[sb], ids_at(all_ids, first[sb]), size[sb]};
            for (Py_ssize_t w = 0; w < count_which; w++) {
                int which = (int)which_of[w];
                if (which == 1 && counted) continue;
                double low_value, high_value, *l = &low_value, *h = &high_value;
                if (which == 0) {
                    lp_pair(&u, &a, &b, l, h);
                } else if (which == 2) {
                    *h = rrlp_high(&u, &a, &b);
                    *l = -rrlp_high(&u, &b, &a);
                } else {
                    if (tallies[sa] < 0) tallies[sa] = judged_relevant(&u, &a);
                    if (tallies[sb] < 0) tallies[sb] = judged_relevant(&u, &b);
                    int64_t judged[2] = {tallies[sa], tallies[sb]};
                    HoleList ha = {qh.id + qh.start[pair[2 * p]], variable ? qh.count[pair[2 * p]] : 0};
                    HoleList hb = {qh.id + qh.start[pair[2 * p + 1]], variable ? qh.count[pair[2 * p + 1]] : 0};
                    if (which == 1) {       /* the shared holes as difference_bounds counted them, where given */
                        lr_pair(&u, &a, &b, &ha, &hb, judged,
                                variable && given.len ? ((const int64_t *)given.buf)[p * count_compared + k] : -1, l,
                                h);
                    } else {
                        int64_t other[2] = {judged[1], judged[0]};
                        *h = rrlr_high(&u, &a, &b, &ha, &hb, judged);
                        *l = -rrlr_high(&u, &b, &a, &hb, &ha, other);
                    }
                }
                off_grid |= !kept(low_value, high_value, lows, highs, (p * count_which + w) * count_compared + k,
                                  summed, p * count_which + w);
            }
        }
    }
    for (Py_ssize_t i = 0; summed && !off_grid && i < count_pairs * count_which * 2; i++)
        to_limbs(from_i128(totals[i]), (int64_t *)sums.buf + i * FIRST_LIMBS, FIRST_LIMBS);
    Py_END_ALLOW_THREADS
    result = PyBool_FromLong(!off_grid);
done:
    PyMem_RawFree(totals);
    PyMem_RawFree(s.parent);
    PyMem_RawFree(s.parent_stamp);
    PyMem_RawFree(s.stamp_a);
    PyMem_RawFree(s.stamp_b);
    PyMem_RawFree(s.coefficient);
    PyMem_RawFree(s.coefficient_stamp);
    PyMem_RawFree(s.undo);
    PyMem_RawFree(s.only_above);
    PyMem_RawFree(tallies);
    PyMem_RawFree(qh.rank); PyMem_RawFree(qh.id); PyMem_RawFree(qh.start); PyMem_RawFree(qh.count);
    PyMem_RawFree(used);
    PyMem_RawFree(b_side); PyMem_RawFree(o.start); PyMem_RawFree(o.cursor); PyMem_RawFree(o.run);
    PyMem_RawFree(shared);
    PyBuffer_Release(&codes); PyBuffer_Release(&hole_ids); PyBuffer_Release(&starts); PyBuffer_Release(&lengths);
    PyBuffer_Release(&compared); PyBuffer_Release(&pairs); PyBuffer_Release(&whiches); PyBuffer_Release(&low);
    PyBuffer_Release(&high); PyBuffer_Release(&given); PyBuffer_Release(&sums); PyBuffer_Release(&counter);
    return result;
}
