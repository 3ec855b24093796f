/* lexeval's compiled statistics kernel: the module (its functions are in the three parts) (see _exact.h) */
#include "_exact.h"

int vector_paths = -1;

/* vectors(on, widest=2) -> bool: turns the vector paths on (up to ``widest``: 1 AVX2's, 2 AVX-512's too, where
 * the processor has them) or off; returns whether they were on. For the tests, which compare them. */
static PyObject *vectors(PyObject *self, PyObject *args) {
    int on, widest = 2;
    (void)self;
    if (!PyArg_ParseTuple(args, "p|i", &on, &widest)) return NULL;
    int before = vectors_on();
    vector_paths = -1;
    int level = vectors_on();
    vector_paths = !on ? 0 : level < widest ? level : widest < 0 ? 0 : widest;
    return PyBool_FromLong(before);
}

static PyMethodDef methods[] = {
    {"vectors", vectors, METH_VARARGS,
     "vectors(on, widest=2) -> bool: the vector paths on (1: AVX2's only; 2: AVX-512's too) or off (for the tests); "
     "whether they were on."},
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
    {"relevant_within", relevant_within, METH_VARARGS,
     "relevant_within(codes, starts, lengths, level, depth, counts): each segment's relevant documents in its top "
     "depth, or its first relevant rank (depth -1) (see lexeval.compiled.relevant_within)."},
    {"uniform_codes", uniform_codes, METH_VARARGS,
     "uniform_codes(codes, starts, lengths, grade, out, counts): the codes with every unjudged document judged "
     "grade, and each segment's count of them (see lexeval.compiled.uniform_codes)."},
    {"bpref_sums", bpref_sums, METH_VARARGS,
     "bpref_sums(codes, starts, lengths, level, num_rel, num_judged_nonrel, sums): each segment's sum of bpref's "
     "per relevant document scores (see lexeval.compiled.bpref_sums)."},
    {"precision_bounds", precision_bounds, METH_VARARGS,
     "precision_bounds(codes, starts, lengths, num_rel, level, cutoff, fraction, low, high): AP's, map_cut's, "
     "Rprec's or Rprec_mult's least and greatest value over the unjudged documents' grades, per segment (see "
     "lexeval.compiled)."},
    {"difference_bounds", difference_bounds, METH_VARARGS,
     "difference_bounds(hole_ids, codes, first, lengths, queries, compared, pairs, kind, variant, depth, phi_low, "
     "phi_high, base, level, variable, all_relevant, num_rel, steps, ideal, ideal_before, most_holes, budget, low, "
     "high, shared, sums, counter): on each compared query, each pair of runs' least "
     "and greatest difference under one shared assignment, for several measures, or (sums given) their sums over "
     "the queries on the exact grid; False where a value is off the grid (see lexeval.bounds.kernel)."},
    {"lex_bounds", lex_bounds, METH_VARARGS,
     "lex_bounds(codes, hole_ids, starts, lengths, queries, compared, pairs, which, level, variable, all_relevant, "
     "most_holes, shared, low, high, sums, counter): the least and greatest of each "
     "of LP (which 0), LR (1), rrLP (2) and rrLR (3) asked for, of pairs of runs on each compared query under one "
     "shared assignment, or their sums over the queries (see lexeval.bounds.kernel)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_exact", "lexeval's compiled statistics kernel", -1,
                                     methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__exact(void) { return PyModule_Create(&module); }
