/* lexeval's compiled statistics kernel: LP's, LR's, rrLP's and rrLR's sorted sequences,
 * decisions, values and sums over the queries (see _exact.h) */
#include "_exact.h"

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
PyObject *lex_decide(PyObject *self, PyObject *args) {
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
PyObject *lex_run_totals(PyObject *self, PyObject *args) {
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
                            gain += child_size[other] * (int64_t)nearbyint(ldexp(label[c] - label[other], DRAW_BITS));
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
    double unit = reciprocal ? ldexp(1.0, -DRAW_BITS) : 1.0;
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
PyObject *lex_order(PyObject *self, PyObject *args) {
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
PyObject *reciprocal_difference(PyObject *self, PyObject *args) {
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
PyObject *lex_moments(PyObject *self, PyObject *args) {
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
                int64_t grid = (int64_t)rint(ldexp(value, GRID_BITS));
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
            to_limbs(from_i128(sum[i]), first_out + at * FIRST_LIMBS, FIRST_LIMBS);
            to_limbs(squares, second_out + at * SECOND_LIMBS, SECOND_LIMBS);
            /* the mean and deviation from the same sums (|grid| <= 2**62: below 2**192, see finish_pair) */
            finish_pair(sum[i], u192_of(squares), &divisors, GRID_BITS, mean_out + at, spread_out + at);
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
PyObject *lex_signs(PyObject *self, PyObject *args) {
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
