/* lexeval's compiled statistics kernel: the exact bounds of AP, map_cut, Rprec and Rprec_mult over the
 * grades of the unjudged documents (see lexeval/bounds/sweeps.py, which does the same with numpy and says
 * why the sweeps are exact) */
#include "_exact.h"

/* one segment's sweeps: ``holes`` and ``judged`` hold the ranks of its unjudged and judged relevant
 * documents, ``above`` (per hole) the judged relevant above it; returns the chosen numbers of relevant
 * holes, from the top for the greatest (*top) and from the bottom for the least (*bottom) */
static void average_precision_sweep(const int64_t *holes, int64_t count, const int64_t *judged, int64_t found,
                                    const int64_t *above, double cutoff, int64_t relevant, int64_t *top,
                                    int64_t *bottom) {
    double within_total = 0.0, base_sum = 0.0;
    for (int64_t k = 0; k < found; k++)
        if ((double)judged[k] <= cutoff) {
            within_total += 1.0 / (double)judged[k];
            base_sum += (double)(k + 1) / (double)judged[k];
        }
    double base = relevant > 0 ? base_sum / (double)relevant : 0.0;
    /* the judged relevant documents' reciprocal ranks (within the cutoff) before each hole, by prefix */
    double best = base, sum = base_sum, prefix = 0.0;
    int64_t pointer = 0;
    *top = 0;
    for (int64_t o = 0; o < count; o++) {
        double rank = (double)holes[o];
        while (pointer < above[o]) {
            if ((double)judged[pointer] <= cutoff) prefix += 1.0 / (double)judged[pointer];
            pointer++;
        }
        if (rank <= cutoff) sum += (double)(above[o] + o + 1) / rank + (within_total - prefix);
        double value = sum / (double)(relevant + o + 1);
        if (value > best) { best = value; *top = o + 1; }
    }
    /* from the bottom: each new relevant hole also raises every relevant hole below it */
    best = base; sum = base_sum;
    double below = 0.0;
    *bottom = 0;
    pointer = found;
    prefix = within_total;
    for (int64_t m = 1; m <= count; m++) {
        int64_t o = count - m;
        double rank = (double)holes[o];
        while (pointer > above[o]) {
            pointer--;
            if ((double)judged[pointer] <= cutoff) prefix -= 1.0 / (double)judged[pointer];
        }
        if (rank <= cutoff) {
            sum += (double)(above[o] + 1) / rank + (within_total - prefix) + below;
            below += 1.0 / rank;
        }
        double value = sum / (double)(relevant + m);
        if (value < best) { best = value; *bottom = m; }
    }
}

/* AP counted to ``cutoff`` of a segment were ``chosen`` of its holes relevant (their ranks ascending, ``holes``):
 * the numpy kernel's operations in its order (precision ordinal / rank at each relevant document, summed down
 * the ranking, over R), read from the judged relevant ranks and the chosen holes' merged */
static double average_precision_at(const int64_t *judged, int64_t found, const int64_t *holes, int64_t chosen,
                                   double cutoff, int64_t relevant) {
    double sum = 0.0;
    int64_t ordinal = 0;
    for (int64_t j = 0, h = 0; j < found || h < chosen;) {
        int64_t rank = h == chosen || (j < found && judged[j] < holes[h]) ? judged[j++] : holes[h++];
        ordinal++;
        if ((double)rank <= cutoff) sum += (double)ordinal / (double)rank;
    }
    int64_t total = relevant + chosen;
    return total > 0 ? sum / (double)total : 0.0;
}

/* Rprec's (fraction < 0) or Rprec_mult.fraction's depth for R relevant documents, as the numpy kernel */
static double depth_for(int64_t relevant, double fraction) {
    return fraction < 0 ? (double)relevant : floor(fraction * (double)relevant + 0.9);
}

/* bounds(codes, starts, lengths, num_rel, level, cutoff, fraction, low, high): for every segment the least
 * and greatest value over the grades of its unjudged documents (codes < 0) of AP counted to ``cutoff``
 * (fraction = nan), or of precision at Rprec's depth (fraction < 0) or Rprec_mult's (fraction >= 0, cutoff
 * unused). codes int16 (N,), the rest int64 (S,); level >= 1 and some grade reaches it; outputs float64 (S,). */
PyObject *precision_bounds(PyObject *self, PyObject *args) {
    Py_buffer codes, starts, lengths, num_rel, low, high;
    int level;
    double cutoff, fraction;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iddw*w*", &codes, &starts, &lengths, &num_rel, &level, &cutoff, &fraction,
                          &low, &high))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t segments = starts.len / 8, documents = codes.len / 2;
    int64_t *hole_ranks = NULL, *judged_ranks = NULL, *above = NULL;
    if (!check(&lengths, segments, 8, "lengths") || !check(&num_rel, segments, 8, "num_rel") ||
        !check(&low, segments, 8, "low") || !check(&high, segments, 8, "high"))
        goto done;
    const int64_t *first = (const int64_t *)starts.buf, *size = (const int64_t *)lengths.buf;
    int64_t longest = 0;
    for (Py_ssize_t s = 0; s < segments; s++) {
        if (first[s] < 0 || size[s] < 0 || first[s] + size[s] > documents) {
            PyErr_SetString(PyExc_IndexError, "precision_bounds: a segment out of range");
            goto done;
        }
        if (size[s] > longest) longest = size[s];
    }
    hole_ranks = PyMem_RawMalloc((size_t)(longest + 1) * 8);
    judged_ranks = PyMem_RawMalloc((size_t)(longest + 1) * 8);
    above = PyMem_RawMalloc((size_t)(longest + 1) * 8);
    if (!hole_ranks || !judged_ranks || !above) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    const int16_t *all = (const int16_t *)codes.buf;
    const int64_t *relevant = (const int64_t *)num_rel.buf;
    double *least = (double *)low.buf, *greatest = (double *)high.buf;
    int depth_mode = !isnan(fraction);
    for (Py_ssize_t s = 0; s < segments; s++) {
        const int16_t *c = all + first[s];
        int64_t count = 0, found = 0, n = size[s], r = relevant[s];
        if (!depth_mode) {
            for (int64_t i = 0; i < n; i++) {       /* written each time, kept where counted: no branch */
                above[count] = found;
                hole_ranks[count] = judged_ranks[found] = i + 1;
                count += c[i] < 0;
                found += c[i] >= level;
            }
            int64_t top, bottom;
            average_precision_sweep(hole_ranks, count, judged_ranks, found, above, cutoff, r, &top, &bottom);
            greatest[s] = average_precision_at(judged_ranks, found, hole_ranks, top, cutoff, r);
            least[s] = average_precision_at(judged_ranks, found, hole_ranks + count - bottom, bottom, cutoff, r);
            continue;
        }
        /* per depth d (0 .. n), the holes and the judged relevant within it (past n, n's) */
        int64_t *holes_upto = hole_ranks, *judged_upto = judged_ranks;
        holes_upto[0] = judged_upto[0] = 0;
        for (int64_t i = 0; i < n; i++) {
            count += c[i] < 0;
            found += c[i] >= level;
            holes_upto[i + 1] = count;
            judged_upto[i + 1] = found;
        }
        /* every m from 0 to the holes: depth d(R + m), the judged relevant and the holes within it (looked up:
         * the loops that counted them, a branch per rank, cost as much as all else); the extremes kept as fractions
         * (numerator, depth: 0 / 1 at depth 0) and compared by cross products, exact and with no division per m,
         * each divided once at the end (rounding keeps the order: the larger fraction's double is never the
         * smaller) */
        int64_t high_num = -1, high_den = 1, low_num = 2, low_den = 1;
        for (int64_t m = 0; m <= count; m++) {
            int64_t depth = (int64_t)depth_for(r + m, fraction);      /* a whole number, at least 0 */
            int64_t within = depth < n ? depth : n;
            int64_t judged_within = judged_upto[within], holes_within = holes_upto[within];
            int64_t on_top = judged_within + (m < holes_within ? m : holes_within);
            int64_t at_bottom = judged_within + (m - (count - holes_within) > 0 ? m - (count - holes_within) : 0);
            int64_t over = depth != 0 ? depth : 1;
            on_top = depth != 0 ? on_top : 0;
            at_bottom = depth != 0 ? at_bottom : 0;
            int higher = on_top * high_den > high_num * over, lower = at_bottom * low_den < low_num * over;
            high_num = higher ? on_top : high_num; high_den = higher ? over : high_den;
            low_num = lower ? at_bottom : low_num; low_den = lower ? over : low_den;
        }
        greatest[s] = (double)high_num / (double)high_den;
        least[s] = (double)low_num / (double)low_den;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_RawFree(hole_ranks);
    PyMem_RawFree(judged_ranks);
    PyMem_RawFree(above);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&num_rel);
    PyBuffer_Release(&low);
    PyBuffer_Release(&high);
    return result;
}
