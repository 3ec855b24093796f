/* The text writer's layout of a block of numbers (lexeval/output/layout.py): trec_eval's lines,
 * ``[key\t]measure\tqid\tvalue\n``, group by group and names within, written as bytes with the interpreter
 * let go, so that the writer's threads lay out several blocks at once.
 *
 * Each value prints as Python's ``%6.4f``, ``%.4g`` or ``%d`` would: the common values (below 10 in size,
 * or p-values in (0, 1), whose next digit is not near a tie) from their digits, the rest by the C library's
 * printf, which rounds the exact binary value as Python does; NaN and the infinities are written as Python
 * writes them (printf may write -nan). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { STYLE_FLOAT = 0, STYLE_P = 1, STYLE_INT = 2 };

#define VALUE_ROOM 32               /* room for a value's text below 1e15 in size, and its newline */
#define HUGE_ROOM 400               /* and for any other's: %6.4f of 1.8e308 is 315 bytes */
#define HUGE 1e15
#define COPY_SLACK 16               /* texts are copied 16 bytes at a time (see copy_text) */

static char *printed(char *out, const char *form, double value) {
    char text[HUGE_ROOM];
    int length = snprintf(text, sizeof text, form, value);
    if (length < 0) length = 0;
    if (length > HUGE_ROOM - 1) length = HUGE_ROOM - 1;
    memcpy(out, text, (size_t)length);
    return out + length;
}

static char *write_digits(char *out, uint64_t value, int width) {
    char reversed[24];
    int count = 0;
    do {
        reversed[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    while (count < width) reversed[count++] = '0';
    while (count) *out++ = reversed[--count];
    return out;
}

static char *write_special(char *out, double value, int width) {
    const char *text = isnan(value) ? "nan" : value < 0 ? "-inf" : "inf";
    int length = (int)strlen(text);
    for (int pad = length; pad < width; pad++) *out++ = ' ';
    memcpy(out, text, (size_t)length);
    return out + length;
}

/* %6.4f */
static char *write_four_decimals(char *out, double value) {
    if (!isfinite(value)) return write_special(out, value, 6);
    double size = fabs(value), scaled = size * 10000.0;
    if (size < 9.99994) {
        uint64_t whole = (uint64_t)scaled;                       /* floor: scaled is not negative */
        double rest = scaled - (double)whole;
        if (fabs(rest - 0.5) > 1e-6) {                           /* far from a tie: rounding it rounds the value */
            uint64_t digits = whole + (rest > 0.5);
            if (signbit(value)) *out++ = '-';
            out = write_digits(out, digits / 10000, 1);
            *out++ = '.';
            return write_digits(out, digits % 10000, 4);
        }
    }
    return printed(out, "%6.4f", value);
}

static double tens[310];            /* tens[k]: 10 to the k, to 10**309's overflow */

void layout_tables(void) {
    for (int k = 0; k < 310; k++) tens[k] = pow(10.0, (double)k);
}

/* %.4g */
static char *write_significant(char *out, double value) {
    if (!isfinite(value)) return write_special(out, value, 0);
    if (value == 1.0) { *out++ = '1'; return out; }
    if (value == 0.0 && !signbit(value)) { *out++ = '0'; return out; }
    if (value > 1e-300 && value < 1.0) {
        /* the power of ten from the power of two: value in [2**k, 2**(k + 1)), floor(k log10 2) is
         * (k 78913) >> 18 for |k| < 1200 (an arithmetic shift), and the decade is that or the next */
        uint64_t bits;
        memcpy(&bits, &value, 8);
        int64_t binary = (int64_t)((bits >> 52) & 0x7ff) - 1023;
        int power = (int)((binary * 78913) >> 18);
        double scaled = value * tens[3 - power];
        if (scaled >= 10000.0) scaled = value * tens[3 - ++power];  /* the power was one short */
        double rest = scaled - (double)(int64_t)scaled;
        /* far from a tie and from the decade's ends, next to the product's rounding error */
        if (fabs(rest - 0.5) > 1e-6 && scaled >= 1000.0 + 1e-6 && scaled < 9999.5 - 1e-6) {
            int digits = (int)scaled + (rest > 0.5), used = 4;
            while (used > 1 && digits % 10 == 0) { digits /= 10; used--; }
            char text[4];
            for (int k = used - 1; k >= 0; k--) { text[k] = (char)('0' + digits % 10); digits /= 10; }
            if (power >= -4) {                                   /* 0.1234 .. 0.0001234 */
                *out++ = '0';
                *out++ = '.';
                for (int zeros = -1 - power; zeros > 0; zeros--) *out++ = '0';
                memcpy(out, text, (size_t)used);
                return out + used;
            }
            *out++ = text[0];                                    /* 1.234e-05 */
            if (used > 1) {
                *out++ = '.';
                memcpy(out, text + 1, (size_t)(used - 1));
                out += used - 1;
            }
            *out++ = 'e';
            *out++ = '-';
            return write_digits(out, (uint64_t)(-power), 2);
        }
    }
    return printed(out, "%.4g", value);
}

static char *write_integer(char *out, int64_t value) {
    if (value < 0) {
        *out++ = '-';
        return write_digits(out, (uint64_t)0 - (uint64_t)value, 1);
    }
    return write_digits(out, (uint64_t)value, 1);
}

typedef struct {            /* texts one after another: text k is data[offsets[k]:offsets[k + 1]] */
    const char *data;
    const int64_t *offsets;
    Py_ssize_t count;
} Texts;

static int texts_of(Py_buffer *data, Py_buffer *offsets, Texts *texts, const char *what) {
    texts->data = data->buf;
    texts->offsets = offsets->buf;
    texts->count = offsets->len / 8 - 1;
    if (offsets->len % 8 || texts->count < 0 || texts->offsets[0] != 0) goto bad;
    for (Py_ssize_t k = 0; k < texts->count; k++)
        if (texts->offsets[k + 1] < texts->offsets[k]) goto bad;
    if (texts->offsets[texts->count] + COPY_SLACK > data->len) goto bad;
    return 1;
bad:
    PyErr_Format(PyExc_ValueError, "layout_block: %s: offsets out of order or past the text and its padding", what);
    return 0;
}

/* 16 bytes at a time: the texts are followed by 16 bytes of padding, and the buffer has COPY_SLACK to spare */
static char *copy_text(char *out, const Texts *texts, Py_ssize_t k) {
    int64_t start = texts->offsets[k], size = texts->offsets[k + 1] - start;
    const char *from = texts->data + start;
    for (int64_t done = 0; done < size; done += 16) memcpy(out + done, from + done, 16);
    return out + size;
}

static int64_t longest_text(const Texts *texts) {
    int64_t most = 0;
    for (Py_ssize_t k = 0; k < texts->count; k++)
        if (texts->offsets[k + 1] - texts->offsets[k] > most) most = texts->offsets[k + 1] - texts->offsets[k];
    return most;
}

/* layout_block(reals, integers, styles, heads, head_offsets, qids, qid_offsets, keys, key_offsets, key_pairs,
 *              into) -> int:
 * ``reals`` (float64) and ``integers`` (int64), each (names x groups) in C order, the value of name j in group
 * i (an int column's in ``integers``, another's in ``reals``); ``styles`` int8 (names): 0 %6.4f, 1 %.4g,
 * 2 %d; ``heads`` each name's "measure\t" (padded), ``qids`` each group's "qid\t" (or one for every group),
 * ``keys`` each group's "key\t" (or one for every group, or none): each texts end to end with int64 offsets
 * (count + 1, from 0), and 16 bytes of padding after the last. With ``key_pairs`` (int64, groups x 2) not empty,
 * ``keys`` are the runs' names and group i's key is "A:B\t", A and B the names its row numbers (a thousand
 * runs have half a million pairs: their keys are not made as Python strings). The lines go to the start of ``into`` (a writable buffer, reused from block to block: a
 * fresh one for every block would cost a page fault per 4 kB); returned, the bytes written, or where ``into``
 * may be too small, minus the size it needs (nothing written). */
PyObject *layout_block(PyObject *self, PyObject *args) {
    Py_buffer reals, integers, styles, heads, head_offsets, qids, qid_offsets, keys, key_offsets, key_pairs, into;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*w*", &reals, &integers, &styles, &heads, &head_offsets, &qids,
                          &qid_offsets, &keys, &key_offsets, &key_pairs, &into))
        return NULL;
    PyObject *result = NULL;
    Texts head, qid, key;
    Py_ssize_t names = styles.len, groups = names ? reals.len / 8 / names : 0;
    if (!texts_of(&heads, &head_offsets, &head, "heads") || !texts_of(&qids, &qid_offsets, &qid, "qids") ||
        !texts_of(&keys, &key_offsets, &key, "keys"))
        goto done;
    const int64_t *pair = key_pairs.buf;
    int paired = key_pairs.len > 0;
    if (reals.len != integers.len || reals.len != (Py_ssize_t)(8 * names * groups) || head.count != names ||
        (qid.count != groups && qid.count != 1) || (!paired && key.count != groups && key.count > 1) ||
        (paired && key_pairs.len != 16 * groups)) {
        PyErr_SetString(PyExc_ValueError, "layout_block: the values, names, qids and keys do not agree");
        goto done;
    }
    for (Py_ssize_t k = 0; paired && k < 2 * groups; k++)
        if (pair[k] < 0 || pair[k] >= key.count) {
            PyErr_SetString(PyExc_IndexError, "layout_block: a pair's run out of range");
            goto done;
        }
    const int8_t *style = styles.buf;
    for (Py_ssize_t j = 0; j < names; j++)
        if (style[j] < STYLE_FLOAT || style[j] > STYLE_INT) {
            PyErr_SetString(PyExc_ValueError, "layout_block: a style is 0, 1 or 2");
            goto done;
        }
    const double *real = reals.buf;
    const int64_t *integer = integers.buf;
    int64_t huge = 0;                 /* %6.4f of a value this large is longer than VALUE_ROOM */
    for (Py_ssize_t k = 0; k < names * groups; k++) huge += fabs(real[k]) >= HUGE;
    int64_t per_line = longest_text(&head) + longest_text(&qid) + (paired ? 2 : 1) * longest_text(&key) + VALUE_ROOM;
    if (per_line > (PY_SSIZE_T_MAX - HUGE_ROOM * huge) / ((int64_t)names * groups + 1)) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t needed = per_line * names * groups + HUGE_ROOM * huge + COPY_SLACK;
    if (needed > into.len) {
        result = PyLong_FromLongLong(-needed);
        goto done;
    }
    char *start = into.buf, *out = start;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < groups; i++) {
        for (Py_ssize_t j = 0; j < names; j++) {
            if (paired) {
                out = copy_text(out, &key, pair[2 * i]);
                *out++ = ':';
                out = copy_text(out, &key, pair[2 * i + 1]);
                *out++ = '\t';
            } else if (key.count) {
                out = copy_text(out, &key, key.count == 1 ? 0 : i);
            }
            out = copy_text(out, &head, j);
            out = copy_text(out, &qid, qid.count == 1 ? 0 : i);
            Py_ssize_t at = j * groups + i;
            out = style[j] == STYLE_FLOAT ? write_four_decimals(out, real[at])
                : style[j] == STYLE_P ? write_significant(out, real[at]) : write_integer(out, integer[at]);
            *out++ = '\n';
        }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(out - start);
done:
    PyBuffer_Release(&reals); PyBuffer_Release(&integers); PyBuffer_Release(&styles);
    PyBuffer_Release(&heads); PyBuffer_Release(&head_offsets); PyBuffer_Release(&qids);
    PyBuffer_Release(&qid_offsets); PyBuffer_Release(&keys); PyBuffer_Release(&key_offsets);
    PyBuffer_Release(&key_pairs); PyBuffer_Release(&into);
    return result;
}
