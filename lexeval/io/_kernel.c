/* lexeval's compiled reading kernel: one pass over a block of a run or qrels
 * file's text, line by line, that splits the fields, parses the number,
 * hashes the docno, finds its judgement (hash, then bytes compared exactly)
 * and copies the docno out.
 *
 * It takes only the common case: anything unusual in a block (a bad byte, a
 * wrong column count, a number strtod reads but this parser does not, a
 * docno of more than 512 bytes) makes it give the block back, and the
 * Python reader (textfile.py, inputs.py) reads that block instead, with
 * its exact error messages. Both give the same arrays; the tests compare
 * them. Optional: without a compiler the package installs without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* GCC's and Clang's builtins, in MSVC's words (its intrinsics), so the kernel builds there too */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#include <stdlib.h>
#define __builtin_bswap64 _byteswap_uint64
static __inline int lexeval_ctz(unsigned int x) {
    unsigned long index;
    _BitScanForward(&index, x);
    return (int)index;
}
#define __builtin_ctz lexeval_ctz
#define __builtin_prefetch(...) ((void)0)
#endif

#define MAX_GRADE 10000
#define HASHED_WORDWISE 512
#define MAX_FIELDS 5                /* fields of a line kept (all are counted) */
#define GOLDEN 0x9E3779B97F4A7C15ULL
#define MIX1 0xBF58476D1CE4E5B9ULL
#define MIX2 0x94D049BB133111EBULL

enum { RUN = 1, MSMARCO = 2, QRELS = 3 };   /* layouts, as inputs.py numbers them */
enum { NORMAL = 0, SEPARATOR = 1, NEWLINE = 2, BAD = 3 };
/* what a block's flags tell (kernel.py reads them) */
enum { MAY_REPEAT = 1, TIE_RISES = 2, TIE_FALLS = 4 };

static unsigned char byte_class[256];
static uint64_t hash_mask = ~0ULL;      /* tests set 0: every hash collides, the bytes must decide */

static inline uint64_t load_le(const unsigned char *p, Py_ssize_t n, const unsigned char *limit) {
    /* the first min(n, 8) bytes at p as a little-endian word, zero above;
     * bytes up to ``limit`` may be read */
    uint64_t word = 0;
    if (p + 8 <= limit) {
        memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        return n >= 8 ? word : word & ((1ULL << (8 * n)) - 1);
    }
    for (Py_ssize_t i = (n < 8 ? n : 8) - 1; i >= 0; i--)
        word = (word << 8) | p[i];
    return word;
}

static inline uint64_t finalise(uint64_t x) {
    x = (x ^ (x >> 30)) * MIX1;
    x = (x ^ (x >> 27)) * MIX2;
    return x ^ (x >> 31);
}

/* hash_bytes given the string's first two words (load_le at p and p + 8, 0 past its end): number_holes keeps them */
static inline uint64_t hash_words(uint64_t w0, uint64_t w1, const unsigned char *p, Py_ssize_t n,
                                  const unsigned char *limit) {
    uint64_t h = (uint64_t)n * GOLDEN + MIX2;
    h = (h ^ w0) * MIX1;
    h = (h ^ w1) * MIX1;
    for (Py_ssize_t at = 16; at < n; at += 8)
        h = (h ^ load_le(p + at, n - at, limit)) * MIX1;
    return finalise(h) & hash_mask;
}

/* ByteStrings.hash64, for strings of at most 512 bytes */
static inline uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n, const unsigned char *limit) {
    return hash_words(load_le(p, n, limit), n > 8 ? load_le(p + 8, n - 8, limit) : 0, p, n, limit);
}

/* Whether n bytes at a and b are equal: inline, a word at a time (most
 * identifiers are short, and a call to memcmp costs more than comparing). */
static inline int same_bytes(const unsigned char *a, const unsigned char *b, Py_ssize_t n) {
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
    }
    for (; n > 0; a++, b++, n--)
        if (*a != *b) return 0;
    return 1;
}

/* Split one line into its fields (up to MAX_FIELDS kept, all counted).
 * Returns the line's line feed, or NULL for a byte the Python reader must
 * see (a NUL, a CR inside the line). Every byte that can end a field is at
 * most 0x20, so the line is tested 16 bytes at a time for those, and only
 * they are looked up (fields are mostly shorter than 16 bytes: a test per
 * field costs more than this, a byte loop more still). The block's last
 * bytes, fewer than 16, go byte by byte: its last byte is a line feed. */
#define FIELD_ENDS_AT(p)                                                           \
    do {                                                                           \
        if ((p) > start) {                                                         \
            if (count < MAX_FIELDS) { fields[count] = start; lengths[count] = (p) - start; } \
            count++;                                                               \
        }                                                                          \
    } while (0)

static inline const unsigned char *split_line(const unsigned char *line, const unsigned char *end,
                                              const unsigned char **fields, Py_ssize_t *lengths, int *counted) {
    int count = 0;
    const unsigned char *start = line, *s = line;      /* start: where the next field may begin */
#if defined(__SSE2__)
    const __m128i limit = _mm_set1_epi8(0x20);
    for (; end - s >= 16; s += 16) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)s);
        unsigned low = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(bytes, limit), bytes));
        for (; low; low &= low - 1) {
            const unsigned char *p = s + __builtin_ctz(low);
            unsigned char kind = byte_class[*p];
            if (kind == NORMAL) continue;              /* a control byte inside a field */
            FIELD_ENDS_AT(p);
            if (kind == SEPARATOR) { start = p + 1; continue; }
            *counted = count;
            if (kind == NEWLINE) return p;
            return *p == '\r' && p[1] == '\n' ? p + 1 : NULL;      /* CRLF, or a byte for Python */
        }
    }
#endif
    for (;; s++) {
        unsigned char kind = byte_class[*s];
        if (kind == NORMAL) continue;
        FIELD_ENDS_AT(s);
        if (kind == SEPARATOR) { start = s + 1; continue; }
        *counted = count;
        if (kind == NEWLINE) return s;
        return *s == '\r' && s[1] == '\n' ? s + 1 : NULL;
    }
}

static inline int64_t item(const Py_buffer *b, Py_ssize_t i) {
    /* element i of an int32 or int64 array */
    return b->itemsize == 4 ? ((const int32_t *)b->buf)[i] : ((const int64_t *)b->buf)[i];
}

static const double POWERS[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A decimal field ([+-]digits[.digits][e[+-]digits], as the README's input
 * rules allow) as the correctly rounded double. Returns 0 when the field is
 * something else (hexadecimal, inf, nan, a bad number): the Python reader
 * takes the block. Up to 19 significant digits with a power of ten up to 22
 * are computed exactly in one rounding (Clinger's fast path); longer ones go
 * through Python's own correctly rounded conversion. */
static int parse_decimal(const unsigned char *p, Py_ssize_t n, double *out) {
    const unsigned char *s = p, *end = p + n;
    int negative = 0, digits = 0, significant = 0, dropped = 0;
    uint64_t mantissa = 0;
    int64_t exponent = 0;
    if (s < end && (*s == '+' || *s == '-')) negative = *s++ == '-';
    for (; s < end && *s == '0'; s++) digits++;                     /* leading zeros */
    for (; s < end && *s >= '0' && *s <= '9'; s++, digits++) {
        if (significant < 19) { mantissa = mantissa * 10 + (*s - '0'); significant++; }
        else { dropped = 1; exponent++; }
    }
    if (s < end && *s == '.') {
        s++;
        if (!significant)
            for (; s < end && *s == '0'; s++, digits++) exponent--;
        for (; s < end && *s >= '0' && *s <= '9'; s++, digits++) {
            if (significant < 19) { mantissa = mantissa * 10 + (*s - '0'); significant++; exponent--; }
            else dropped = 1;
        }
    }
    if (!digits) return 0;
    if (s < end && (*s == 'e' || *s == 'E')) {
        int minus = 0, exp_digits = 0;
        int64_t value = 0;
        s++;
        if (s < end && (*s == '+' || *s == '-')) minus = *s++ == '-';
        for (; s < end && *s >= '0' && *s <= '9'; s++, exp_digits++)
            if (value < 100000) value = value * 10 + (*s - '0');
        if (!exp_digits) return 0;
        exponent += minus ? -value : value;
    }
    if (s != end) return 0;
    if (!dropped && mantissa <= (1ULL << 53) && exponent >= -22 && exponent <= 22) {
        double value = (double)mantissa;
        value = exponent < 0 ? value / POWERS[-exponent] : value * POWERS[exponent];
        *out = negative ? -value : value;
        return 1;
    }
    if (n > 400) return 0;
    char copy[401];
    memcpy(copy, p, n);
    copy[n] = 0;
    char *stop = NULL;
    double value = PyOS_string_to_double(copy, &stop, NULL);
    if (PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (stop != copy + n) return 0;
    *out = value;
    return 1;
}

static int parse_integer(const unsigned char *p, Py_ssize_t n, int64_t *out) {
    const unsigned char *s = p, *end = p + n;
    int negative = 0;
    int64_t value = 0;
    if (s < end && (*s == '+' || *s == '-')) negative = *s++ == '-';
    if (s == end || end - s > 18) return 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return 0;
        value = value * 10 + (*s - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

typedef struct {
    /* the block, and what each data line gives */
    Py_buffer text, row, code, number, hash, docno_data, docno_offsets, change_line, change_start, change_length,
        change_query;
    /* the qrels' queries (by hash) and judgements (by bucket), for runs */
    Py_buffer qid_hash, qid_query, qid_data, qid_offsets, base, shift, starts, row_hash, row_data, row_offsets,
        row_codes;
} Buffers;

static void release(Buffers *b) {
    Py_buffer *all = (Py_buffer *)b;
    for (size_t i = 0; i < sizeof(Buffers) / sizeof(Py_buffer); i++)
        if (all[i].obj) PyBuffer_Release(&all[i]);
}

/* The qrels query of a qid (its index), or -1: binary search on the hash,
 * then the bytes of every entry with that hash. */
static int32_t find_query(const Buffers *b, const unsigned char *qid, Py_ssize_t n) {
    Py_ssize_t count = b->qid_hash.len / 8, low = 0, high = count;
    if (!count) return -1;
    uint64_t h = hash_bytes(qid, n, qid + n);
    const uint64_t *hashes = b->qid_hash.buf;
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        if (hashes[middle] < h) low = middle + 1; else high = middle;
    }
    for (; low < count && hashes[low] == h; low++) {
        int32_t query = ((const int32_t *)b->qid_query.buf)[low];
        int64_t start = item(&b->qid_offsets, query), stop = item(&b->qid_offsets, query + 1);
        if (stop - start == n && same_bytes((const unsigned char *)b->qid_data.buf + start, qid, n)) return query;
    }
    return -1;
}

static inline int64_t bucket_of(const Buffers *b, int32_t query, uint64_t h) {
    return ((const int64_t *)b->base.buf)[query] + (int64_t)(h >> ((const uint64_t *)b->shift.buf)[query]);
}

/* The judgement row of (query, docno), or -1 (see inputs.JudgementIndex);
 * row r's docno is at row_offsets[r] in row_data (rows in row order). */
static inline int32_t find_row(const Buffers *b, int32_t query, uint64_t h, const unsigned char *docno, Py_ssize_t n) {
    int64_t bucket = bucket_of(b, query, h);
    int64_t first = item(&b->starts, bucket), last = item(&b->starts, bucket + 1);
    const uint64_t *hashes = b->row_hash.buf;
    for (int64_t r = first; r < last; r++) {
        if (hashes[r] != h) continue;
        int64_t start = item(&b->row_offsets, r), stop = item(&b->row_offsets, r + 1);
        if (stop - start == n && same_bytes((const unsigned char *)b->row_data.buf + start, docno, n)) return (int32_t)r;
    }
    return -1;
}

/* Each line's judgement row and its relevance code: ``rows`` holds each
 * line's query on entry (-1: not in the qrels) and its row (or -1) on
 * return. A second loop over the lines, not the text, in stages: for the
 * line 64 ahead its bucket is fetched from memory, for the line 32 ahead
 * the bucket's first hash and docno offset, for the line 16 ahead that
 * docno's bytes; so the chains of loads of many look-ups overlap instead of
 * each waiting in turn (a third less time than 16, 8 and 4 ahead). */
#define AHEAD 64
static void find_rows(const Buffers *b, Py_ssize_t lines, int32_t *rows, const uint64_t *hashes,
                      const unsigned char *docnos, const int32_t *offsets, int16_t *codes) {
    const char *starts = b->starts.buf;
    Py_ssize_t size = b->starts.itemsize;
    const int16_t *row_codes = b->row_codes.buf;
    int16_t none = row_codes[b->row_codes.len / 2 - 1];   /* the last code: not in the qrels */
    if (!b->row_hash.len) {                           /* nothing judged */
        for (Py_ssize_t i = 0; i < lines; i++) { rows[i] = -1; codes[i] = none; }
        return;
    }
    for (Py_ssize_t i = 0; i < lines; i++) {
        Py_ssize_t far = i + AHEAD, near = i + AHEAD / 2;
        if (far < lines && rows[far] >= 0)
            __builtin_prefetch(starts + size * bucket_of(b, rows[far], hashes[far]));
        if (near < lines && rows[near] >= 0) {
            int64_t first = item(&b->starts, bucket_of(b, rows[near], hashes[near]));
            __builtin_prefetch((const uint64_t *)b->row_hash.buf + first);
            __builtin_prefetch((const char *)b->row_offsets.buf + b->row_offsets.itemsize * first);
        }
        Py_ssize_t close = i + AHEAD / 4;
        if (close < lines && rows[close] >= 0) {
            int64_t first = item(&b->starts, bucket_of(b, rows[close], hashes[close]));
            if (first < item(&b->starts, bucket_of(b, rows[close], hashes[close]) + 1))
                __builtin_prefetch((const char *)b->row_data.buf + item(&b->row_offsets, first));
        }
        if (rows[i] >= 0)
            rows[i] = find_row(b, rows[i], hashes[i], docnos + offsets[i], offsets[i + 1] - offsets[i]);
        codes[i] = rows[i] >= 0 ? row_codes[rows[i]] : none;     /* while the row is at hand */
    }
}

/* Whether two of n hashes are equal (so the lines may repeat a docno; the
 * Python reader then decides on the bytes): an open-addressing set, cleared
 * for each qid's lines. */
typedef struct { uint64_t *slots; Py_ssize_t size; } Seen;

static int repeats(Seen *seen, const uint64_t *hashes, Py_ssize_t n) {
    if (n < 2) return 0;
    if (n <= 8) {
        for (Py_ssize_t i = 1; i < n; i++)
            for (Py_ssize_t j = 0; j < i; j++)
                if (hashes[i] == hashes[j]) return 1;
        return 0;
    }
    Py_ssize_t size = 16;
    while (size < 2 * n) size *= 2;
    if (size > seen->size) {
        PyMem_Free(seen->slots);
        seen->slots = PyMem_Malloc(size * sizeof(uint64_t));
        seen->size = seen->slots ? size : 0;
        if (!seen->slots) return 1;                  /* no memory: let Python check */
    }
    memset(seen->slots, 0, size * sizeof(uint64_t));
    int zero = 0;                                    /* 0 marks an empty slot: a zero hash is counted apart */
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t h = hashes[i];
        if (!h) {
            if (zero++) return 1;
            continue;
        }
        for (Py_ssize_t j = h & (size - 1);; j = (j + 1) & (size - 1)) {
            if (!seen->slots[j]) { seen->slots[j] = h; break; }
            if (seen->slots[j] == h) return 1;
        }
    }
    return 0;
}


static PyObject *scan(PyObject *self, PyObject *args) {
    Buffers b;
    (void)self;
    int layout;
    memset(&b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*iw*w*w*w*w*w*w*w*w*w*y*y*y*y*y*y*y*y*y*y*y*", &b.text, &layout,
                          &b.row, &b.code, &b.number, &b.hash, &b.docno_data, &b.docno_offsets,
                          &b.change_line, &b.change_start, &b.change_length, &b.change_query,
                          &b.qid_hash, &b.qid_query, &b.qid_data, &b.qid_offsets, &b.base, &b.shift, &b.starts,
                          &b.row_hash, &b.row_data, &b.row_offsets, &b.row_codes)) {
        release(&b);
        return NULL;
    }
    const unsigned char *text = b.text.buf, *end = text + b.text.len;
    int32_t *row_out = b.row.buf, *change_line = b.change_line.buf;
    int32_t *change_length = b.change_length.buf, *docno_offsets = b.docno_offsets.buf;
    int64_t *change_start = b.change_start.buf;
    int32_t *change_query = b.change_query.buf;
    int flags = 0;
    Py_ssize_t group_start = 0;                    /* the first line of the current qid's lines */
    Seen seen = {NULL, 0};
    uint64_t *hash_out = b.hash.buf;
    unsigned char *docno_data = b.docno_data.buf;
    Py_ssize_t capacity = b.hash.len / 8, lines = 0, changes = 0, copied = 0, last_line = -1;
    const unsigned char *previous_qid = NULL;
    Py_ssize_t previous_length = -1;
    int32_t query = -1, ok = 1;
    int with_lookup = b.row_codes.len > 0;           /* runs: the qrels' tables are given */
    docno_offsets[0] = 0;

    if (text == end || end[-1] != '\n') { release(&b); Py_RETURN_NONE; }    /* lines must end with LF */
    Py_ssize_t newlines = 0;
    for (const unsigned char *line = text; line < end && ok; newlines++) {
        const unsigned char *fields[MAX_FIELDS];
        Py_ssize_t lengths[MAX_FIELDS];
        int count = 0;
        const unsigned char *s = split_line(line, end, fields, lengths, &count);
        if (!s) { ok = 0; break; }
        const unsigned char *next = s + 1;
        if (count == 0 || fields[0][0] == '#') { line = next; continue; }
        if (!layout) layout = count == 3 ? MSMARCO : count >= 5 ? RUN : 0;   /* a run file's first line decides */
        int docno_at = layout == MSMARCO ? 1 : 2, number_at = layout == RUN ? 4 : layout == QRELS ? 3 : 2;
        if ((layout == RUN && count < 5) || (layout == MSMARCO && count != 3) || (layout == QRELS && count != 4)
                || !layout || lines >= capacity) { ok = 0; break; }
        const unsigned char *qid = fields[0], *docno = fields[docno_at];
        Py_ssize_t qid_length = lengths[0], docno_length = lengths[docno_at];
        if (docno_length > HASHED_WORDWISE || qid_length > HASHED_WORDWISE) { ok = 0; break; }
        if (layout == RUN) {
            if (!parse_decimal(fields[number_at], lengths[number_at], &((double *)b.number.buf)[lines])) {
                ok = 0;
                break;
            }
        } else {
            int64_t value;
            if (!parse_integer(fields[number_at], lengths[number_at], &value)
                    || (layout == QRELS && (value > MAX_GRADE || value < -MAX_GRADE))) { ok = 0; break; }
            if (layout == MSMARCO) ((double *)b.number.buf)[lines] = -(double)value;   /* score = -rank */
            else ((int64_t *)b.number.buf)[lines] = value;
        }
        int same_qid = qid_length == previous_length && same_bytes(qid, previous_qid, qid_length);
        if (!same_qid) {
            if (repeats(&seen, hash_out + group_start, lines - group_start)) flags |= MAY_REPEAT;
            group_start = lines;
            change_line[changes] = (int32_t)lines;
            change_start[changes] = qid - text;
            change_length[changes] = (int32_t)qid_length;
            query = with_lookup ? find_query(&b, qid, qid_length) : -1;
            change_query[changes] = query;
            changes++;
            previous_qid = qid;
            previous_length = qid_length;
        } else if (layout != QRELS && ((double *)b.number.buf)[lines] == ((double *)b.number.buf)[lines - 1]) {
            /* a tie with the line before: in which docno order? */
            const unsigned char *before = docno_data + docno_offsets[lines - 1];
            Py_ssize_t before_length = docno_offsets[lines] - docno_offsets[lines - 1];
            int order = memcmp(docno, before, docno_length < before_length ? docno_length : before_length);
            if (order == 0) order = docno_length < before_length ? -1 : docno_length > before_length;
            flags |= order > 0 ? TIE_RISES : order < 0 ? TIE_FALLS : 0;
        }
        uint64_t h = hash_bytes(docno, docno_length, end);
        hash_out[lines] = h;
        if (with_lookup) row_out[lines] = query;     /* the row, found below */
        memcpy(docno_data + copied, docno, docno_length);
        copied += docno_length;
        docno_offsets[lines + 1] = (int32_t)copied;
        last_line = line - text;
        lines++;
        line = next;
    }
    if (ok && repeats(&seen, hash_out + group_start, lines - group_start)) flags |= MAY_REPEAT;
    PyMem_Free(seen.slots);
    if (ok && with_lookup) {                          /* each line's judgement row, and its relevance code */
        find_rows(&b, lines, row_out, hash_out, docno_data, docno_offsets, b.code.buf);
    }
    release(&b);
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(nninin)", lines, changes, layout, last_line, flags, newlines);
}

/* The cluster's split of a piece of text: its lines in runs of one
 * bucket, bucket k holding the lines whose first field (the qid) q has
 * bisect_right(bounds, q) == k, bounds compared as bytes (Python's order).
 * With ``by_qid`` a run also ends where the qid changes. A blank line (only
 * whitespace: space, \t..\r) belongs to no run. The qid is placed once per
 * change of qid, not per line. Returns (records, lines): records packs
 * int64 x 7 per run: bucket, byte start, byte stop (after its last line
 * feed), first line (0-based), line count, qid start, qid length; lines
 * counts the text's lines (a last line without a line feed too). */
#define RECORD 7
static inline int is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static Py_ssize_t bucket_of_qid(const unsigned char *qid, Py_ssize_t n, const unsigned char *bounds,
                                const int64_t *offsets, Py_ssize_t count) {
    Py_ssize_t low = 0, high = count;               /* bounds[low..high) may be <= qid */
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        const unsigned char *bound = bounds + offsets[middle];
        Py_ssize_t length = offsets[middle + 1] - offsets[middle];
        int order = memcmp(qid, bound, n < length ? n : length);
        if (order == 0) order = n < length ? -1 : n > length;
        if (order >= 0) low = middle + 1;           /* bound <= qid */
        else high = middle;
    }
    return low;
}

static PyObject *split_lines(PyObject *self, PyObject *args) {
    Py_buffer text, bounds, offsets;
    int by_qid;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*p", &text, &bounds, &offsets, &by_qid)) return NULL;
    const unsigned char *start = text.buf, *end = start + text.len;
    Py_ssize_t count = offsets.len / 8 ? offsets.len / 8 - 1 : 0;
    Py_ssize_t capacity = 1024, runs = 0, line_number = 0;
    int64_t *records = PyMem_Malloc(capacity * RECORD * sizeof(int64_t));
    const unsigned char *previous_qid = NULL;
    Py_ssize_t previous_length = -1, bucket = -1;
    int open = 0;                                   /* whether the last run may take the next line */
    if (!records) goto no_memory;
    for (const unsigned char *line = start; line < end; line_number++) {
        const unsigned char *stop = memchr(line, '\n', end - line);
        stop = stop ? stop + 1 : end;
        const unsigned char *qid = line;
        while (qid < stop && is_space(*qid)) qid++;
        if (qid == stop) { open = 0; line = stop; continue; }        /* blank: in no run */
        const unsigned char *qid_end = qid;
        while (qid_end < stop && !is_space(*qid_end)) qid_end++;
        Py_ssize_t length = qid_end - qid;
        int same_qid = length == previous_length && memcmp(qid, previous_qid, length) == 0;
        if (!same_qid) {
            bucket = bucket_of_qid(qid, length, bounds.buf, offsets.buf, count);
            previous_qid = qid;
            previous_length = length;
        }
        int64_t *last = records + (runs - 1) * RECORD;
        if (open && last[0] == bucket && (same_qid || !by_qid)) {
            last[2] = stop - start;
            last[4]++;
        } else {
            if (runs == capacity) {
                int64_t *grown = PyMem_Realloc(records, 2 * capacity * RECORD * sizeof(int64_t));
                if (!grown) goto no_memory;
                records = grown;
                capacity *= 2;
            }
            int64_t *run = records + runs * RECORD;
            run[0] = bucket; run[1] = line - start; run[2] = stop - start; run[3] = line_number; run[4] = 1;
            run[5] = qid - start; run[6] = length;
            runs++;
        }
        open = 1;
        line = stop;
    }
    PyBuffer_Release(&text); PyBuffer_Release(&bounds); PyBuffer_Release(&offsets);
    PyObject *packed = PyBytes_FromStringAndSize((const char *)records, runs * RECORD * sizeof(int64_t));
    PyMem_Free(records);
    if (!packed) return NULL;
    return Py_BuildValue("(Nn)", packed, line_number);
no_memory:
    PyMem_Free(records);
    PyBuffer_Release(&text); PyBuffer_Release(&bounds); PyBuffer_Release(&offsets);
    return PyErr_NoMemory();
}

/* gather_pieces(text, starts, sizes, pieces) -> bytes: text piece k is text[starts[k]:starts[k] + sizes[k]];
 * the pieces numbered ``pieces`` (int64), one after another: the text writer's lines (a few thousand
 * distinct texts, values, names and keys, laid out by number millions of times) and a cluster bucket's
 * lines of a piece whose queries are scattered (a Python join costs a call per range). */
static PyObject *gather_pieces(PyObject *self, PyObject *args) {
    Py_buffer text, start_buffer, size_buffer, piece_buffer;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &text, &start_buffer, &size_buffer, &piece_buffer)) return NULL;
    const int64_t *starts = start_buffer.buf, *sizes = size_buffer.buf, *pieces = piece_buffer.buf;
    Py_ssize_t count = start_buffer.len / 8, wanted = piece_buffer.len / 8, total = 0;
    PyObject *joined = NULL;
    const char *problem = size_buffer.len != start_buffer.len ? "starts and sizes of different lengths" : NULL;
    for (Py_ssize_t k = 0; k < count && !problem; k++)
        if (starts[k] < 0 || sizes[k] < 0 || starts[k] + sizes[k] > text.len) problem = "a piece outside the text";
    for (Py_ssize_t i = 0; i < wanted && !problem; i++) {
        if (pieces[i] < 0 || pieces[i] >= count) problem = "a piece number out of range";
        else total += sizes[pieces[i]];
    }
    if (problem) {
        PyErr_SetString(PyExc_ValueError, problem);
    } else if ((joined = PyBytes_FromStringAndSize(NULL, total))) {
        char *out = PyBytes_AS_STRING(joined);
        const char *from = text.buf;
        Py_BEGIN_ALLOW_THREADS          /* the writer's other threads make their blocks meanwhile */
        for (Py_ssize_t i = 0; i < wanted; i++) {
            int64_t k = pieces[i];
            memcpy(out, from + starts[k], (size_t)sizes[k]);
            out += sizes[k];
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&text);
    PyBuffer_Release(&start_buffer);
    PyBuffer_Release(&size_buffer);
    PyBuffer_Release(&piece_buffer);
    return joined;
}

static PyObject *set_hash_mask(PyObject *self, PyObject *args) {
    unsigned long long mask;
    (void)self;
    if (!PyArg_ParseTuple(args, "K", &mask)) return NULL;
    hash_mask = mask;
    Py_RETURN_NONE;
}

/* a run's docno offset k (int32, or int64 where ``wide``) */
static inline int64_t offset_at(const Py_buffer *offsets, int wide, int64_t k) {
    return wide ? ((const int64_t *)offsets->buf)[k] : ((const int32_t *)offsets->buf)[k];
}

/* whether ``count`` strings' offsets (count + 1 of them) rise from 0 or more and stay within ``size`` bytes */
static int offsets_within(const Py_buffer *offsets, int wide, int64_t count, Py_ssize_t size) {
    for (int64_t k = 0, before = 0; k <= count; k++) {
        int64_t here = offset_at(offsets, wide, k);
        if (here < before || here > size) return 0;
        before = here;
    }
    return 1;
}

/* gather_strings(datas, offsets, starts, index, pad) -> (bytes, bytes): the strings at ``index`` (int64) of byte
 * strings held in chunks, end to end in one pass: chunk c holds strings starts[c] .. starts[c + 1] - 1 (int64,
 * rising), string i of it datas[c][offsets[c][i]:offsets[c][i + 1]] (offsets int32 or int64, told by their
 * size). Returns the bytes followed by ``pad`` zero bytes, and the offsets (int32, int64 from 2**31 - 64 bytes
 * on): lexeval.io.strings.ChunkedByteStrings.take without its sort and its two copies. */
static PyObject *gather_strings(PyObject *self, PyObject *args) {
    PyObject *data_tuple, *offset_tuple, *result = NULL, *joined = NULL, *placed = NULL;
    Py_buffer start_buffer, index_buffer;
    Py_ssize_t pad;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!y*y*n", &PyTuple_Type, &data_tuple, &PyTuple_Type, &offset_tuple,
                          &start_buffer, &index_buffer, &pad))
        return NULL;
    Py_ssize_t chunks = PyTuple_GET_SIZE(data_tuple), taken = 0, wanted = index_buffer.len / 8;
    const int64_t *starts = start_buffer.buf, *index = index_buffer.buf;
    Py_buffer *datas = PyMem_RawCalloc((size_t)chunks + 1, sizeof(Py_buffer));
    Py_buffer *offsets = PyMem_RawCalloc((size_t)chunks + 1, sizeof(Py_buffer));
    int *wide = PyMem_RawCalloc((size_t)chunks + 1, sizeof(int));
    const char *problem = NULL;
    if (!datas || !offsets || !wide) { PyErr_NoMemory(); goto done; }
    if (PyTuple_GET_SIZE(offset_tuple) != chunks || start_buffer.len != 8 * (chunks + 1) || pad < 0) {
        PyErr_SetString(PyExc_ValueError, "gather_strings: chunks and starts of different lengths");
        goto done;
    }
    for (; taken < chunks; taken++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(data_tuple, taken), &datas[taken], PyBUF_SIMPLE) < 0) goto done;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(offset_tuple, taken), &offsets[taken], PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&datas[taken]);
            goto done;
        }
    }
    for (Py_ssize_t c = 0; c < chunks && !problem; c++) {
        int64_t count = starts[c + 1] - starts[c];
        if (count < 0 || (c == 0 && starts[0] != 0)) { problem = "gather_strings: starts not rising from 0"; break; }
        wide[c] = offsets[c].len == 8 * (count + 1);
        if (!wide[c] && offsets[c].len != 4 * (count + 1)) { problem = "gather_strings: offsets of another length"; break; }
        if (!offsets_within(&offsets[c], wide[c], count, datas[c].len)) problem = "gather_strings: a string out of range";
    }
    /* each wanted string's chunk (the indices mostly rise: the last chunk is tried first), and the total size */
    int64_t total = 0, *chunk_of = PyMem_RawMalloc((size_t)wanted * 8 + 8);
    if (!chunk_of) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0, c = 0; i < wanted && !problem; i++) {
        int64_t at = index[i];
        if (at < 0 || at >= starts[chunks]) { problem = "gather_strings: an index out of range"; break; }
        if (at < starts[c] || at >= starts[c + 1]) {
            Py_ssize_t lo = 0, hi = chunks - 1;
            while (lo < hi) { Py_ssize_t mid = (lo + hi + 1) / 2; if (starts[mid] <= at) lo = mid; else hi = mid - 1; }
            c = lo;
        }
        chunk_of[i] = c;
        int64_t k = at - starts[c];
        total += offset_at(&offsets[c], wide[c], k + 1) - offset_at(&offsets[c], wide[c], k);
    }
    if (problem) { PyMem_RawFree(chunk_of); PyErr_SetString(PyExc_ValueError, problem); goto done; }
    int narrow = total < ((int64_t)1 << 31) - 64;
    joined = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total + pad));
    placed = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((wanted + 1) * (narrow ? 4 : 8)));
    if (joined && placed) {
        unsigned char *out = (unsigned char *)PyBytes_AS_STRING(joined);
        int32_t *at32 = (int32_t *)PyBytes_AS_STRING(placed);
        int64_t *at64 = (int64_t *)PyBytes_AS_STRING(placed);
        Py_BEGIN_ALLOW_THREADS
        int64_t written = 0;
        for (Py_ssize_t i = 0; i < wanted; i++) {
            Py_ssize_t c = chunk_of[i];
            int64_t k = index[i] - starts[c];
            int64_t from = offset_at(&offsets[c], wide[c], k), size = offset_at(&offsets[c], wide[c], k + 1) - from;
            if (narrow) at32[i] = (int32_t)written; else at64[i] = written;
            memcpy(out + written, (const unsigned char *)datas[c].buf + from, (size_t)size);
            written += size;
        }
        if (narrow) at32[wanted] = (int32_t)written; else at64[wanted] = written;
        memset(out + written, 0, (size_t)pad);
        Py_END_ALLOW_THREADS
        result = PyTuple_Pack(2, joined, placed);
    }
    PyMem_RawFree(chunk_of);
done:
    Py_XDECREF(joined);
    Py_XDECREF(placed);
    for (Py_ssize_t c = 0; c < taken; c++) { PyBuffer_Release(&datas[c]); PyBuffer_Release(&offsets[c]); }
    PyMem_RawFree(datas); PyMem_RawFree(offsets); PyMem_RawFree(wide);
    PyBuffer_Release(&start_buffer);
    PyBuffer_Release(&index_buffer);
    return result;
}

/* a slot of number_holes' table: a docno's first two words (zero past its end), its length and number, and where
 * its bytes are (run << 40 | their place in the run's bytes; -1: an empty slot) */
typedef struct { uint64_t w0, w1; int64_t hole; int32_t length, number; } HoleSlot;

#define LENGTHS 2           /* number_holes: a run's docnos given by their lengths (uint8), not offsets */

/* where a slot's hash would place it in a table of ``size`` (a power of 2) */
static inline size_t slot_of(uint64_t hash, size_t size) { return (size_t)(hash ^ (hash >> 29)) & (size - 1); }

/* a query's table doubled (``size``, ``slots`` to it), each of its docnos placed again by its hash (its bytes where
 * its slot says), through ``moved`` (room for them) */
static void table_doubled(HoleSlot *slots, size_t *size, HoleSlot *moved, const Py_buffer *docnos) {
    int64_t kept = 0;
    for (size_t k = 0; k < *size; k++)
        if (slots[k].hole >= 0) moved[kept++] = slots[k];
    *size *= 2;
    for (size_t k = 0; k < *size; k++) slots[k].hole = -1;
    for (int64_t e = 0; e < kept; e++) {
        Py_ssize_t run = (Py_ssize_t)(moved[e].hole >> 40);
        int64_t place = moved[e].hole & (((int64_t)1 << 40) - 1);
        const unsigned char *bytes = docnos[run].buf;
        const unsigned char *text = bytes + place;
        uint64_t hash = hash_words(moved[e].w0, moved[e].w1, text, moved[e].length, bytes + docnos[run].len);
        size_t slot = slot_of(hash, *size);
        while (slots[slot].hole >= 0) slot = (slot + 1) & (*size - 1);
        slots[slot] = moved[e];
    }
}

/* number_holes(docnos, offsets, codes, lengths, queries, from, to, ids, per_query) -> bool: every unjudged document
 * (code < 0) of every ranking of queries [from, to) numbered among its query's unjudged documents, equal docnos
 * alike, by first appearance (query by query, then run by run, then rank by rank); -1 for a judged one (see
 * lexeval.rankings.hole_identities). Per run (tuples of R): its unjudged documents' docnos, bytes (with 8 bytes of
 * padding after) and offsets (int32 or int64) or lengths (uint8, a byte each), in its order; codes int16 (N: the runs' rankings end to end, each
 * run's queries in order); lengths int64 (R x Q) each ranking's length; ids int16 or int32 (N) and per_query int64
 * (Q) written. False where the ids are int16 and a query has more than 32,767 distinct unjudged documents (its
 * numbers and the later queries' then unfinished: the caller numbers them again in int32). */
static PyObject *number_holes(PyObject *self, PyObject *args) {
    PyObject *docno_tuple, *offset_tuple;
    Py_buffer codes_buffer, length_buffer, id_buffer, count_buffer;
    Py_ssize_t queries, from, to;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!y*y*nnnw*w*", &PyTuple_Type, &docno_tuple, &PyTuple_Type, &offset_tuple,
                          &codes_buffer, &length_buffer, &queries, &from, &to, &id_buffer, &count_buffer))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t runs = PyTuple_GET_SIZE(docno_tuple), taken = 0;
    Py_buffer *docnos = PyMem_RawCalloc((size_t)runs + 1, sizeof(Py_buffer));
    Py_buffer *offsets = PyMem_RawCalloc((size_t)runs + 1, sizeof(Py_buffer));
    int64_t *hole_base = NULL, *doc_base = NULL, *byte_base = NULL, *first = NULL;
    HoleSlot *slots_of = NULL, *moved = NULL;
    int64_t *where = NULL;
    int *wide = NULL;
    const int16_t *codes = codes_buffer.buf;
    const int64_t *lengths = length_buffer.buf;
    int16_t *narrow_ids = id_buffer.buf;          /* 2 bytes a number (half the fresh pages) where they fit */
    int32_t *ids = id_buffer.buf;
    int64_t *per_query = count_buffer.buf;
    Py_ssize_t n = codes_buffer.len / 2, segments = runs * queries;
    int narrow = n > 0 && id_buffer.len == 2 * n, overflow = 0;
    const char *problem = NULL;
    if (!docnos || !offsets) {
        PyErr_NoMemory();
        goto done;
    }
    if (PyTuple_GET_SIZE(offset_tuple) != runs || queries < 0 || length_buffer.len != 8 * segments ||
        (id_buffer.len != 4 * n && id_buffer.len != 2 * n) || count_buffer.len != 8 * queries || from < 0 ||
        to < from || to > queries) {
        PyErr_SetString(PyExc_ValueError, "number_holes: arrays of different lengths");
        goto done;
    }
    for (; taken < runs; taken++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(docno_tuple, taken), &docnos[taken], PyBUF_SIMPLE) < 0)
            goto done;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(offset_tuple, taken), &offsets[taken], PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&docnos[taken]);
            goto done;
        }
    }
    hole_base = PyMem_RawMalloc((size_t)(segments + 1) * 8);       /* a segment's first hole within its run */
    doc_base = PyMem_RawMalloc((size_t)(segments + 1) * 8);        /* its first document in codes */
    byte_base = PyMem_RawMalloc((size_t)(segments + 1) * 8);       /* its first hole's bytes within its run's */
    first = PyMem_RawCalloc((size_t)queries + 1, 8);               /* the holes of each query, all runs */
    wide = PyMem_RawCalloc((size_t)runs + 1, sizeof(int));         /* per run: offsets of 4 or 8 bytes, or lengths */
    if (!hole_base || !doc_base || !byte_base || !first || !wide) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t at = 0, most = 0;
    for (Py_ssize_t r = 0; r < runs && !problem; r++) {
        int64_t holes = 0;
        for (Py_ssize_t q = 0; q < queries && !problem; q++) {
            Py_ssize_t sg = r * queries + q;
            if (lengths[sg] < 0 || at + lengths[sg] > n) { problem = "number_holes: rankings past the codes"; break; }
            hole_base[sg] = holes;
            doc_base[sg] = at;
            int64_t own = 0;
            for (int64_t k = at; k < at + lengths[sg]; k++) own += codes[k] < 0;
            holes += own;
            first[q] += own;
            at += lengths[sg];
        }
        if (problem) break;
        /* the run's docnos: one per hole, by offsets of 4 or 8 bytes, rising, within the bytes (the padding
         * after), or end to end by their lengths, a byte each (LENGTHS: as the reading processes send them) */
        Py_ssize_t size = offsets[r].len;
        wide[r] = size == 8 * (holes + 1) ? 1 : size == 4 * (holes + 1) ? 0 : size == holes ? LENGTHS : -1;
        if (wide[r] < 0) { problem = "number_holes: a run's docnos are not one per hole"; break; }
        if (wide[r] != LENGTHS) {
            if (!offsets_within(&offsets[r], wide[r], holes, docnos[r].len))
                problem = "number_holes: a docno out of range";
            for (Py_ssize_t q = 0; q < queries && !problem; q++)
                byte_base[r * queries + q] = offset_at(&offsets[r], wide[r], hole_base[r * queries + q]);
            continue;
        }
        const uint8_t *own_lengths = offsets[r].buf;
        int64_t bytes_at = 0;
        for (Py_ssize_t q = 0; q < queries; q++) {
            Py_ssize_t sg = r * queries + q;
            int64_t end = q + 1 < queries ? hole_base[sg + 1] : holes;
            byte_base[sg] = bytes_at;
            for (int64_t h = hole_base[sg]; h < end; h++) bytes_at += own_lengths[h];
        }
        if (bytes_at > docnos[r].len) problem = "number_holes: a docno out of range";
    }
    if (!problem && at != n) problem = "number_holes: rankings shorter than the codes";
    if (problem) {
        PyErr_SetString(PyExc_ValueError, problem);
        goto done;
    }
    for (Py_ssize_t q = from; q < to; q++) most = first[q] > most ? first[q] : most;
    size_t slots = 16;
    while (slots < 2 * (size_t)most) slots *= 2;
    /* room for the largest table a query could need (every hole a docno of its own), and for its docnos moved
     * when it grows; a query's table starts small and doubles as it fills: sized for all its holes at once
     * (sixty thousand on the Robust04 shape, a tenth of them distinct), it spread over megabytes, a cache miss a
     * look-up, and each query cleared it all */
    int64_t longest = 0;
    for (Py_ssize_t k = 0; k < segments; k++) longest = lengths[k] > longest ? lengths[k] : longest;
    slots_of = PyMem_RawMalloc(slots * sizeof(HoleSlot));
    moved = PyMem_RawMalloc((size_t)(most + 1) * sizeof(HoleSlot));
    where = PyMem_RawMalloc(((size_t)longest + 1) * sizeof(int64_t));    /* a ranking's unjudged documents */
    if (!slots_of || !moved || !where) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = from; q < to && !overflow; q++) {
        int64_t numbered = 0;
        size_t size = slots < 64 ? slots : 64;                       /* within the room made: 16 at the least */
        for (size_t k = 0; k < size; k++) slots_of[k].hole = -1;  /* a slot's hole: (run, its bytes' place) */
        for (Py_ssize_t r = 0; r < runs && !overflow; r++) {
            Py_ssize_t sg = r * queries + q;
            const unsigned char *bytes = docnos[r].buf, *limit = bytes + docnos[r].len;
            const uint8_t *own_lengths = offsets[r].buf;
            int64_t hole = hole_base[sg], found = 0, bytes_at = byte_base[sg];
            /* the ranking's unjudged documents located first, without a branch on the code (half the documents are
             * unjudged: a guess per document missed every other one), the judged ones' -1 written meanwhile */
            if (narrow)
                for (int64_t k = doc_base[sg], end = doc_base[sg] + lengths[sg]; k < end; k++) {
                    narrow_ids[k] = -1;
                    where[found] = k;
                    found += codes[k] < 0;
                }
            else
                for (int64_t k = doc_base[sg], end = doc_base[sg] + lengths[sg]; k < end; k++) {
                    ids[k] = -1;
                    where[found] = k;
                    found += codes[k] < 0;
                }
            for (int64_t j = 0; j < found; j++) {
                int64_t k = where[j], start = bytes_at;
                Py_ssize_t length;
                if (wide[r] == LENGTHS) {
                    length = own_lengths[hole];
                } else {
                    start = offset_at(&offsets[r], wide[r], hole);
                    length = offset_at(&offsets[r], wide[r], hole + 1) - start;
                }
                bytes_at = start + length;
                hole++;
                const unsigned char *text = bytes + start;
                /* the first two words kept: the slot holds them, so that a docno of up to 16 bytes is told from
                 * the others there (the first of its bytes, in another run, was a cache miss or two) */
                uint64_t w0 = load_le(text, length, limit), w1 = length > 8 ? load_le(text + 8, length - 8, limit) : 0;
                uint64_t hash = hash_words(w0, w1, text, length, limit);
                if (2 * (size_t)(numbered + 1) > size) table_doubled(slots_of, &size, moved, docnos);
                size_t slot = slot_of(hash, size);
                while (1) {
                    HoleSlot *here = &slots_of[slot];
                    if (here->hole < 0) {                 /* the first of its bytes: a new number */
                        here->hole = (int64_t)((uint64_t)r << 40 | (uint64_t)start);
                        here->w0 = w0;
                        here->w1 = w1;
                        here->length = (int32_t)length;
                        here->number = (int32_t)numbered;
                        if (narrow) {
                            overflow |= numbered > INT16_MAX;
                            narrow_ids[k] = (int16_t)numbered;
                        } else {
                            ids[k] = (int32_t)numbered;
                        }
                        numbered++;
                        break;
                    }
                    if (here->length == length && here->w0 == w0 && here->w1 == w1) {
                        int same = length <= 16;         /* past 16 bytes, the rest against the first's */
                        if (!same) {
                            Py_ssize_t other_run = (Py_ssize_t)(here->hole >> 40);
                            int64_t other_start = here->hole & (((int64_t)1 << 40) - 1);
                            same = same_bytes((const unsigned char *)docnos[other_run].buf + other_start + 16, text + 16,
                                              length - 16);
                        }
                        if (same) {
                            if (narrow) narrow_ids[k] = (int16_t)here->number;
                            else ids[k] = here->number;
                            break;
                        }
                    }
                    slot = (slot + 1) & (size - 1);
                }
            }
        }
        per_query[q] = numbered;
    }
    Py_END_ALLOW_THREADS
    result = PyBool_FromLong(!overflow);
done:
    for (Py_ssize_t r = 0; r < taken; r++) { PyBuffer_Release(&docnos[r]); PyBuffer_Release(&offsets[r]); }
    PyMem_RawFree(docnos); PyMem_RawFree(offsets);
    PyMem_RawFree(hole_base); PyMem_RawFree(doc_base); PyMem_RawFree(byte_base); PyMem_RawFree(first);
    PyMem_RawFree(wide); PyMem_RawFree(slots_of); PyMem_RawFree(moved); PyMem_RawFree(where);
    PyBuffer_Release(&codes_buffer); PyBuffer_Release(&length_buffer);
    PyBuffer_Release(&id_buffer); PyBuffer_Release(&count_buffer);
    return result;
}

PyObject *layout_block(PyObject *self, PyObject *args);     /* _layout.c */
void layout_tables(void);

static PyMethodDef methods[] = {
    {"set_hash_mask", set_hash_mask, METH_VARARGS,
     "set_hash_mask(mask): hashes are ANDed with mask (tests: 0 makes every look-up a clash)."},
    {"gather_pieces", gather_pieces, METH_VARARGS,
     "gather_pieces(text, starts, sizes, pieces) -> bytes: the text's pieces (start, size: int64) numbered by "
     "pieces (int64), joined."},
    {"gather_strings", gather_strings, METH_VARARGS,
     "gather_strings(datas, offsets, starts, index, pad) -> (bytes, offsets): the strings at index of byte strings "
     "held in chunks, end to end, followed by pad zero bytes (see lexeval.io.strings.ChunkedByteStrings.take)."},
    {"number_holes", number_holes, METH_VARARGS,
     "number_holes(docnos, offsets, codes, lengths, queries, from, to, ids, per_query) -> bool: each unjudged "
     "document's number among its query's (queries [from, to)), by first appearance, in int16 or int32 ids (False: "
     "a query's numbers past int16; see lexeval.rankings.hole_identities)."},
    {"layout_block", layout_block, METH_VARARGS,
     "layout_block(reals, integers, styles, heads, head_offsets, qids, qid_offsets, keys, key_offsets, key_pairs, "
     "into) -> int: "
     "the text writer's lines of a block of numbers written into a buffer (see lexeval/io/_layout.c)."},
    {"split_lines", split_lines, METH_VARARGS,
     "split_lines(text, bounds, bound_offsets, by_qid) -> (records, lines): a piece's lines in runs of one bucket "
     "(see lexeval.cluster.pieces)."},
    {"scan", scan, METH_VARARGS,
     "scan(text, layout, row, code, number, hash, docno_data, docno_offsets, change_line, change_start, "
     "change_length, change_query, qid_hash, qid_query, qid_data, qid_offsets, base, shift, starts, row_hash, "
     "row_data, row_offsets, row_codes) -> (lines, changes, layout, last line's offset, flags, lines of text), or None to leave the block to Python. "
     "See lexeval.io.kernel."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", "lexeval's compiled reading kernel", -1,
                                     methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kernel(void) {
    byte_class[' '] = byte_class['\t'] = byte_class['\v'] = byte_class['\f'] = SEPARATOR;
    byte_class['\n'] = NEWLINE;
    byte_class['\r'] = byte_class[0] = BAD;
    layout_tables();
    return PyModule_Create(&module);
}
