/* lexeval's compiled statistics kernel: per-run measures that numpy computes in several passes over every
 * document, here in one (see lexeval/measures/incomplete.py, the reference: the same arithmetic, in the
 * same order, so the same floats) */
#include "_exact.h"

/* bpref_sums(codes, starts, lengths, level, num_rel, num_judged_nonrel, sums): per segment the sum over its
 * relevant documents (code >= level), in rank order, of 1 - min(n, R) / min(N, R) where n judged non-relevant
 * documents (0 <= code < level) rank above it (1 where none does); R its query's relevant documents, N its
 * judged non-relevant ones. codes int16 (documents), starts/lengths/num_rel/num_judged_nonrel int64 and sums
 * float64 (segments). */
PyObject *bpref_sums(PyObject *self, PyObject *args) {
    Py_buffer codes, starts, lengths, num_rel, num_nonrel, sums;
    int level;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*iy*y*w*", &codes, &starts, &lengths, &level, &num_rel, &num_nonrel, &sums))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t segments = starts.len / 8, documents = codes.len / 2;
    if (!check(&lengths, segments, 8, "lengths") || !check(&num_rel, segments, 8, "num_rel") ||
        !check(&num_nonrel, segments, 8, "num_judged_nonrel") || !check(&sums, segments, 8, "sums"))
        goto done;
    const int64_t *first = starts.buf, *size = lengths.buf, *relevant = num_rel.buf, *nonrel = num_nonrel.buf;
    const int16_t *code = codes.buf;
    double *out = sums.buf;
    for (Py_ssize_t s = 0; s < segments; s++)
        if (first[s] < 0 || size[s] < 0 || first[s] + size[s] > documents) {
            PyErr_SetString(PyExc_IndexError, "bpref_sums: a segment out of range");
            goto done;
        }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < segments; s++) {
        int64_t r = relevant[s], limit = nonrel[s] < r ? nonrel[s] : r, above = 0;
        double sum = 0.0;
        const int16_t *c = code + first[s];
        for (int64_t i = 0; i < size[s]; i++) {
            if (c[i] >= level) {
                if (above > 0) {
                    double penalty = (double)(above < r ? above : r) / (double)limit;
                    sum += 1.0 - penalty;
                } else {
                    sum += 1.0;
                }
            } else if (c[i] >= 0) {
                above++;
            }
        }
        out[s] = sum;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&codes); PyBuffer_Release(&starts); PyBuffer_Release(&lengths);
    PyBuffer_Release(&num_rel); PyBuffer_Release(&num_nonrel); PyBuffer_Release(&sums);
    return result;
}
