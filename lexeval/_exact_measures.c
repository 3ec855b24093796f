/* lexeval's compiled statistics kernel: per-run measures that numpy computes in several passes over every
 * document, here in one (see lexeval/measures/incomplete.py, the reference: the same arithmetic, in the
 * same order, so the same floats) */
#include "_exact.h"

/* whether every segment (first document, length) lies within the documents; else an IndexError naming ``who`` */
static int segments_in_range(const char *who, const int64_t *first, const int64_t *size, Py_ssize_t segments,
                             Py_ssize_t documents) {
    for (Py_ssize_t s = 0; s < segments; s++)
        if (first[s] < 0 || size[s] < 0 || first[s] + size[s] > documents) {
            PyErr_Format(PyExc_IndexError, "%s: a segment out of range", who);
            return 0;
        }
    return 1;
}

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
    if (!segments_in_range("bpref_sums", first, size, segments, documents)) goto done;
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

/* relevant_within(codes, starts, lengths, level, depth, counts): per segment how many of its documents at rank <=
 * depth (0 for none) are relevant (code >= level), and rank of its first relevant one (0 if none) where depth
 * is -1; codes int16 (documents), starts/lengths/counts int64 (segments). Reads only the top ``depth`` of each
 * ranking (the first relevant's rank: up to it), not every document's place, as locating them would. */
PyObject *relevant_within(PyObject *self, PyObject *args) {
    Py_buffer codes, starts, lengths, counts;
    int level;
    Py_ssize_t depth;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*inw*", &codes, &starts, &lengths, &level, &depth, &counts))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t segments = starts.len / 8, documents = codes.len / 2;
    if (!check(&lengths, segments, 8, "lengths") || !check(&counts, segments, 8, "counts"))
        goto done;
    const int64_t *first = starts.buf, *size = lengths.buf;
    const int16_t *code = codes.buf;
    int64_t *out = counts.buf;
    if (!segments_in_range("relevant_within", first, size, segments, documents)) goto done;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < segments; s++) {
        const int16_t *c = code + first[s];
        int64_t count = 0;
        if (depth < 0) {
            while (count < size[s] && c[count] < level) count++;
            out[s] = count < size[s] ? count + 1 : 0;
            continue;
        }
        for (int64_t i = 0, upto = depth < size[s] ? depth : size[s]; i < upto; i++) count += c[i] >= level;
        out[s] = count;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&codes); PyBuffer_Release(&starts); PyBuffer_Release(&lengths); PyBuffer_Release(&counts);
    return result;
}

/* uniform_codes(codes, starts, lengths, grade, out, counts): the codes with every unjudged document's (code < 0)
 * judged ``grade``, into out (int16, documents), and per segment how many it has (int64); starts/lengths int64
 * (segments), out written only within them. One pass, where numpy's takes a mask, a copy and a count. */
PyObject *uniform_codes(PyObject *self, PyObject *args) {
    Py_buffer codes, starts, lengths, out, counts;
    int grade;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*iw*w*", &codes, &starts, &lengths, &grade, &out, &counts))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t segments = starts.len / 8, documents = codes.len / 2;
    if (!check(&lengths, segments, 8, "lengths") || !check(&out, documents, 2, "out") ||
        !check(&counts, segments, 8, "counts"))
        goto done;
    const int64_t *first = starts.buf, *size = lengths.buf;
    const int16_t *code = codes.buf;
    int16_t *assigned = out.buf, given = (int16_t)grade;
    int64_t *count_out = counts.buf;
    if (!segments_in_range("uniform_codes", first, size, segments, documents)) goto done;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < segments; s++) {
        int64_t count = 0;
        for (int64_t i = first[s]; i < first[s] + size[s]; i++) {
            int16_t c = code[i];
            count += c < 0;
            assigned[i] = c < 0 ? given : c;
        }
        count_out[s] = count;
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&codes); PyBuffer_Release(&starts); PyBuffer_Release(&lengths); PyBuffer_Release(&out);
    PyBuffer_Release(&counts);
    return result;
}

