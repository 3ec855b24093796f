"""The compiled statistics kernel (lexeval/_exact.c) and the text
writer's byte path against the numpy code they stand in for, bit for bit.

Every function of the kernel has a numpy twin that gives the same floats
(the exact moments are integers, divided once and rounded correctly; the
continued fraction does numpy's operations in numpy's order). Each test
runs both on the same input, with ``LEXEVAL_KERNEL=off`` for the numpy
path, and compares bits; the moments are also checked against Python's
fractions. The whole command line is compared too, at a size where every
fast path is taken.
"""

import math
import os
import shutil
import sysconfig
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_identity import identifiers

from lexeval import compiled, evaluate
from lexeval.stats.moments import Moments
from lexeval.stats.sums import GRID_BITS

pytestmark = pytest.mark.skipif(compiled._exact is None, reason="the compiled statistics kernel is not built")


def test_the_kernel_is_built_where_a_compiler_is():
    """Where the package could compile the kernel, it did: a silent build
    failure would leave only the numpy path tested."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler})")
    assert compiled._exact is not None


def bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.int64)


def numpy_path(make):
    """``make()`` with the kernel turned off."""
    os.environ["LEXEVAL_KERNEL"] = "off"
    try:
        return make()
    finally:
        del os.environ["LEXEVAL_KERNEL"]


# values as measures give them: ties, exact 0 and 1, short decimals, tiny and negative values
VALUE = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.1, 0.3, 1 / 3, 2 / 3, 1e-300, 5e-324, -0.0]),
                  st.floats(0, 1), st.floats(-1.5, 1.5))


def matrices(min_rows=2, max_rows=12, max_columns=40):
    return st.integers(min_rows, max_rows).flatmap(lambda rows: st.integers(0, max_columns).flatmap(
        lambda columns: hnp.arrays(np.float64, (rows, columns), elements=VALUE)))


def on_grid(values: list[float]) -> list[int]:
    return [round(Fraction(v) * (1 << GRID_BITS)) for v in values]


def exact_mean_spread(differences: list[float], minus: list[float] | None = None) -> tuple[float, float]:
    """The mean and sample deviation of the values (less those of ``minus``)
    on the 2**-62 grid, from fractions, rounded once."""
    grid = on_grid(differences)
    if minus is not None:
        grid = [g - h for g, h in zip(grid, on_grid(minus))]
    n = len(grid)
    if n == 0:
        return 0.0, 0.0
    first, second = sum(grid), sum(g * g for g in grid)
    mean = float(Fraction(first, n << GRID_BITS))
    if n < 2:
        return mean, 0.0
    variance = Fraction(n * second - first * first, (n * (n - 1)) << (2 * GRID_BITS))
    return mean, math.sqrt(float(variance)) if variance > 0 else 0.0


@settings(max_examples=150, deadline=None)
@given(matrices())
def test_pair_moments_equal_numpy_and_fractions(values):
    runs = len(values)
    pairs = np.array([(a, b) for a in range(runs) for b in range(runs) if a != b], dtype=np.int64)
    made = Moments.of_pairs(values, pairs)
    if values.shape[1] and np.abs(values).max() <= 1 and np.ptp(values) < 2:
        assert made._first is None           # the kernel made it: the sums are made when asked
    want = numpy_path(lambda: Moments.of_pairs(values, pairs))
    assert want._runs is None
    np.testing.assert_array_equal(bits(made.mean()), bits(want.mean()))
    np.testing.assert_array_equal(bits(made.spread()), bits(want.spread()))
    # the sums made when asked (a cluster adds them) are numpy's
    assert made.first.units == want.first.units and made.second.units == want.second.units
    for (a, b), mean, spread in zip(pairs.tolist()[:6], made.mean().tolist(), made.spread().tolist()):
        assert (mean, spread) == exact_mean_spread(values[a].tolist(), values[b].tolist())


@pytest.mark.parametrize("queries", [4, 7, 1001, 4099])
def test_pair_moments_with_many_queries_and_the_largest_values(queries):
    """Thousands of queries of values at the grid's extremes (every 21-bit
    limb full: the vector path's level sums at their largest), and counts
    that leave a tail after the last four queries."""
    rng = np.random.default_rng(queries)
    values = rng.choice([0.0, 1.0, 1 - 2**-53, 2**-62, 0.5, 1 / 3], size=(5, queries))
    values[0] = 1 - 2**-53
    values[1] = 0.0
    pairs = np.array([(a, b) for a in range(5) for b in range(5) if a != b], dtype=np.int64)
    made = Moments.of_pairs(values, pairs)
    want = numpy_path(lambda: Moments.of_pairs(values, pairs))
    np.testing.assert_array_equal(bits(made.mean()), bits(want.mean()))
    np.testing.assert_array_equal(bits(made.spread()), bits(want.spread()))
    assert (made.mean()[0], made.spread()[0]) == exact_mean_spread(values[0].tolist(), values[1].tolist())


def scalar_path(make):
    """``make()`` with the kernel's AVX2 paths turned off (its scalar code,
    which processors without AVX2 run)."""
    before = compiled._exact.vectors(False)
    try:
        return make()
    finally:
        compiled._exact.vectors(before)


@settings(max_examples=60, deadline=None)
@given(matrices(), st.data())
def test_scalar_and_vector_paths_agree(values, data):
    """The pairs' moments (cross products of 21-bit limbs four queries to a
    vector, or 64-bit products one query at a time) and the continued
    fraction (four lanes to a vector or one value at a time): the same
    bits, in any order of the pairs."""
    runs = len(values)
    pairs = np.array(data.draw(st.permutations([(a, b) for a in range(runs) for b in range(runs) if a != b])),
                     dtype=np.int64)
    vector = compiled.pair_moments(values, pairs, GRID_BITS)
    scalar = scalar_path(lambda: compiled.pair_moments(values, pairs, GRID_BITS))
    assert (vector is None) == (scalar is None)
    if vector is not None:
        np.testing.assert_array_equal(bits(vector[0]), bits(scalar[0]))
        np.testing.assert_array_equal(bits(vector[1]), bits(scalar[1]))
        for (a, b), mean, spread in zip(pairs.tolist()[:4], vector[0].tolist(), vector[1].tolist()):
            assert (mean, spread) == exact_mean_spread(values[a].tolist(), values[b].tolist())
    a = np.array(data.draw(st.lists(st.floats(0.5, 5000), min_size=20, max_size=40)))
    b = np.resize(np.array(data.draw(st.lists(st.floats(0.5, 200), min_size=1, max_size=40))), len(a))
    x = np.minimum(np.resize(values.ravel() % 1.0 if values.size else [0.5], len(a)), (a + 1.0) / (a + b + 2.0))
    np.testing.assert_array_equal(bits(compiled.continued_fraction(a, b, x)),
                                  bits(scalar_path(lambda: compiled.continued_fraction(a, b, x))))


@settings(max_examples=150, deadline=None)
@given(matrices(1, 30))
def test_row_moments_equal_numpy(differences):
    made = Moments.of(differences)
    want = numpy_path(lambda: Moments.of(differences))
    assert made.first.units == want.first.units and made.second.units == want.second.units
    np.testing.assert_array_equal(bits(made.mean()), bits(want.mean()))
    np.testing.assert_array_equal(bits(made.spread()), bits(want.spread()))
    for row, mean, spread in zip(differences.tolist(), made.mean().tolist(), made.spread().tolist()):
        assert (mean, spread) == exact_mean_spread(row)


@settings(max_examples=100, deadline=None)
@given(matrices(1, 10), matrices(1, 10))
def test_added_moments_divide_as_numpy(one, other):
    """limb_moments: sums of two partitions (a cluster's), divided by the kernel and by numpy."""
    rows = min(len(one), len(other))
    total = Moments.of(one[:rows]) + Moments.of(other[:rows])
    copy = Moments(total.first, total.second, total.queries)
    assert compiled.limb_moments(total.first.limbs, total.second.limbs, total.queries, GRID_BITS) is not None
    want = numpy_path(lambda: (copy.mean(), copy.spread()))
    np.testing.assert_array_equal(bits(total.mean()), bits(want[0]))
    np.testing.assert_array_equal(bits(total.spread()), bits(want[1]))
    joined = np.concatenate([one[:rows], other[:rows]], axis=1)
    for row, mean, spread in zip(joined.tolist(), total.mean().tolist(), total.spread().tolist()):
        assert (mean, spread) == exact_mean_spread(row)


def test_the_kernel_steps_aside_beyond_its_bounds():
    """Values whose differences leave int64 on the grid, NaN and huge sums: numpy's path."""
    assert compiled.pair_moments(np.array([[1.5, 0.0], [-1.5, 0.0]]), np.array([[0, 1]]), GRID_BITS) is None
    assert compiled.pair_moments(np.array([[np.nan], [0.0]]), np.array([[0, 1]]), GRID_BITS) is None
    assert compiled.row_moments(np.array([[1.0 + 2**-52]]), GRID_BITS) is None
    huge = np.array([[0] * 9 + [1]], dtype=np.int64)          # 2**189 and more: ten limbs
    assert compiled.limb_moments(huge[:, :2], huge, np.array([3]), GRID_BITS) is None
    values = np.array([[1.5, 0.0, 1e6], [-1.5, 0.0, -1e6]])
    made = Moments.of_pairs(values, np.array([[0, 1], [1, 0]]))
    assert made._runs is None
    assert made.mean().tolist() == [exact_mean_spread([3.0, 0.0, 2e6])[0], exact_mean_spread([-3.0, 0.0, -2e6])[0]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.5, 5000), st.floats(0.5, 200), st.floats(0, 1)), min_size=1, max_size=50))
def test_continued_fraction_equals_numpy(cases):
    from lexeval.stats.distributions import _continued_fraction
    a, b, x = (np.array(column) for column in zip(*cases))
    x = np.minimum(x, (a + 1.0) / (a + b + 2.0))           # where the fraction is used
    np.testing.assert_array_equal(bits(compiled.continued_fraction(a, b, x)), bits(_continued_fraction(a, b, x)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=60))
def test_sign_test_tails_looked_up_once_per_count(cases):
    from lexeval.stats.distributions import betainc, binomial_lower_tail
    k, n = (np.array(column, dtype=np.float64) for column in zip(*cases))
    got = binomial_lower_tail(k, n)
    for kk, nn, p in zip(k.tolist(), n.tolist(), got.tolist()):
        want = 1.0 if kk >= nn else float(betainc(np.array([nn - kk]), np.array([kk + 1.0]), np.array([0.5]))[0])
        assert p == want


def test_t_tails_with_one_shared_beta_equal_one_by_one():
    """One log B for every value when they share (a, b): the same floats as per distinct pair."""
    from lexeval.stats import distributions
    rng = np.random.default_rng(3)
    t, df = rng.normal(0, 3, 500), np.full(500, 49.0)
    together = distributions.t_two_sided(t, df)
    apart = np.array([distributions.t_two_sided(t[i:i + 1], df[i:i + 1])[0] for i in range(0, 500, 7)])
    np.testing.assert_array_equal(bits(together[::7]), bits(apart))


# ---------------------------------------------------------------- preferences and the whole command


def write_collection(folder, rng, runs: int, queries: int, depth: int, names=None):
    qids = [f"q{q}" for q in range(queries)]
    with open(folder / "qrels", "w") as out:
        for qid in qids:
            for d in range(depth):
                grade = int(rng.choice([0, 0, 1, 2]))
                if grade or rng.random() < 0.3:
                    out.write(f"{qid} 0 d{d} {grade}\n")
    paths = []
    for r in range(runs):
        path = folder / (names[r] if names else f"run{r:03d}")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as out:
            for number, qid in enumerate(qids):
                if number and rng.random() < 0.1:           # a query the run lacks (never all)
                    continue
                docs = rng.permutation(depth)[:int(rng.integers(1, depth))]
                scores = np.round(rng.random(len(docs)), 1)       # ties
                for doc, score in zip(docs.tolist(), scores.tolist()):
                    out.write(f"{qid} Q0 d{doc} 0 {score} tag{r}\n")
        paths.append(str(path))
    return str(folder / "qrels"), paths


@pytest.mark.parametrize("options", [[], ["-m", "all_trec", "-m", "LP", "-m", "rrLP", "-m", "LR", "-m", "rrLR"],
                                     ["--format", "json", "-m", "map", "-m", "LP"], ["-q", "-m", "map", "-m", "rrLR"],
                                     ["--baseline", "run007"], ["--baseline", "run000", "--aggregate", "borda"]])
def test_command_line_equals_numpy_path(tmp_path, cli, options):
    """The whole output, kernel on and off: 40 runs, so that the pair
    summaries go through the byte writer (blocks of 4,096 lines and more)."""
    qrels, runs = write_collection(tmp_path, np.random.default_rng(7), 40, 12, 30)
    fast = cli([*options, qrels, *runs])
    slow = numpy_path(lambda: cli([*options, qrels, *runs]))
    assert fast.code == 0, fast.err
    assert fast.out == slow.out
    assert "--baseline" in options or fast.out.count("\n") > 4096       # pair summaries as bytes


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(1, 8))
def test_preferences_equal_numpy_path(tmp_path_factory, seed, runs, queries):
    """LP, LR, rrLP and rrLR (the range-minimum decisions and reciprocal
    differences) on random rankings with ties and missing queries."""
    from conftest import run_cli
    qrels, paths = write_collection(tmp_path_factory.mktemp("prefs"), np.random.default_rng(seed), runs, queries, 12)
    args = ["-q", "-m", "LP", "-m", "rrLP", "-m", "LR", "-m", "rrLR", "-m", "P.5", qrels, *paths]
    fast, slow = run_cli(args), numpy_path(lambda: run_cli(args))
    assert fast.code == 0 and fast.out == slow.out


# ---------------------------------------------------------------- the byte writer


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 300), st.lists(st.sampled_from(["float", "int", "p"]), min_size=1, max_size=6),
       st.lists(identifiers(b"r").map(lambda name: name.decode("utf-8", "surrogateescape")), min_size=1, max_size=4),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_block_bytes_equal_text_chunk(groups, styles, keys, with_key, seed):
    """Values of every kind (ties at the fifth digit, 0, 1, NaN, negative,
    subnormal, large), counts, and keys and qids of any shape."""
    from lexeval.output import records
    rng = np.random.default_rng(seed)
    special = np.array([0.0, 1.0, -0.0, 0.00005, 0.12345, 1e-5, 9.99995, 12.5, -3.25, np.nan, np.inf, 5e-324,
                        1e-300, 0.99995, 0.099995, 2.5e-7])
    values, kinds = [], []
    for style in styles:
        if style == "int":
            values.append(rng.integers(0, 70000 if rng.random() < 0.2 else 60, groups))
            kinds.append(records.INTEGER)
            continue
        column = np.where(rng.random(groups) < 0.3, rng.choice(special, groups),
                          rng.random(groups) * (10.0 ** -rng.integers(0, 12, groups)))
        values.append(column)
        kinds.append(records.FLOAT if style == "float" else records.PVALUE)
    block = records.Block([keys[i % len(keys)] for i in range(groups)], [f"q{i % 7}" for i in range(groups)],
                          [f"m{j}" for j in range(len(styles))], values, kinds)
    made = records.block_bytes(block, with_key, bytearray(8) if seed % 2 else None)   # a small buffer grows
    want = records.text_chunk(block, with_key).encode("utf-8", "surrogateescape")
    assert made is not None               # counts of any size
    buffer, length = made
    assert bytes(buffer[:length]) == want


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.integers(0, 4), st.integers(0, 3),
       st.lists(identifiers(b"r").map(lambda name: name.decode("utf-8", "surrogateescape")), min_size=1, max_size=5),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_pair_batches_equal_their_blocks(pairs, groups, names, totals, keys, with_key, seed):
    """-q's batches of pairs (per-query lines then each pair's 'all' lines)
    laid out at once equal the text writer's lines of their blocks: values
    of every kind and keys and qids of any shape."""
    from lexeval.output import records
    rng = np.random.default_rng(seed)
    special = np.array([0.0, 1.0, -0.0, 0.00005, 0.12345, 9.99995, 12.5, -3.25, np.nan, np.inf, -np.inf, 5e-324,
                        0.99995, -0.099995, 2.5e-7, -1.0])
    values = [np.where(rng.random((pairs, groups)) < 0.3, rng.choice(special, (pairs, groups)),
                       rng.random((pairs, groups)) * 2 - 1) for _ in range(names)]
    summary = None
    pair_keys = [f"{keys[k % len(keys)]}:{keys[-1 - k % len(keys)]}" for k in range(pairs)]
    if totals:
        texts = [[f"{rng.random():.4f}\n" for _ in range(pairs)] for _ in range(totals)]
        summary = records.Block(pair_keys, ["all"] * pairs, [f"t{j}" for j in range(totals)],
                                [[0.0] * pairs] * totals, [records.FLOAT] * totals, texts)
    batch = records.PairBatch(pair_keys,
                              [f"q{i % 9}\udcff" if i % 5 == 4 else f"q{i}" for i in range(groups)],
                              [f"m{j}" for j in range(names)], values, summary)
    want = "".join(records.text_chunk(block, with_key) for block in batch.blocks())
    assert bytes(records.batch_bytes(batch, with_key)) == want.encode("utf-8", "surrogateescape")


@settings(max_examples=150, deadline=None)
@given(matrices(1, 30))
def test_t_test_p_equals_numpy(differences):
    """The kernel's t-test arithmetic around numpy's logarithms: numpy's p, bit for bit (ties, equal
    differences, a single query, huge t included)."""
    from lexeval.stats.conclusions import t_tests
    extra = np.array([[1e-300, 1e-300 * (1 + 2**-50)], [0.5, 0.5], [0.25, -0.25]])
    differences = differences if differences.shape[1] != 2 else np.concatenate([differences, extra])
    made = t_tests([Moments.of(differences), Moments.of(differences[:, :1])])
    want = numpy_path(lambda: t_tests([Moments.of(differences), Moments.of(differences[:, :1])]))
    for got, expected in zip(made, want):
        np.testing.assert_array_equal(bits(got), bits(expected))


@settings(max_examples=100, deadline=None)
@given(matrices(1, 8), matrices(1, 8))
def test_stacked_blocks_divide_as_numpy(one, other):
    """Blocks of pairs stacked (a preference's): limbs widened, not carried, of either sign."""
    queries = min(one.shape[1], other.shape[1])
    stacked = Moments.stack([Moments.of(one[:, :queries] * 1e-9), Moments.of(other[:, :queries])])
    copy = Moments(stacked.first, stacked.second, stacked.queries)
    want = numpy_path(lambda: (copy.mean(), copy.spread()))
    np.testing.assert_array_equal(bits(stacked.mean()), bits(want[0]))
    np.testing.assert_array_equal(bits(stacked.spread()), bits(want[1]))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(1, 6))
def test_run_totals_from_sorted_sequences_equal_the_pairs_added_up(tmp_path_factory, seed, runs, queries):
    """Each run's sum of LP, LR and rrLP over all other runs, from the trie
    of sorted sequences, equals the pairs' blocks added up on the grid."""
    from lexeval import evaluate
    from lexeval.stats.totals import _add_run_scores
    qrels, paths = write_collection(tmp_path_factory.mktemp("totals"), np.random.default_rng(seed), runs, queries, 10)
    preferences = evaluate(qrels, paths, ["LP", "rrLP", "LR"], warn=lambda text: None).preferences
    r = preferences.rankings
    added = {name: np.zeros((r.num_runs, r.num_queries)) for name in preferences.names}
    for rows, values, _ in preferences.blocks():
        _add_run_scores(added, preferences, rows, values)
    for name in ("LP", "rrLP", "LR"):
        np.testing.assert_array_equal(preferences.run_totals(name), added[name])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 7),
       st.sampled_from([("LP", "rrLP", "LR", "rrLR"), ("LP", "LR"), ("rrLP", "LR")]), st.booleans(), st.data())
def test_summed_preferences_equal_the_blocks_moments(tmp_path_factory, seed, runs, queries, names, vectors, data):
    """LP's, LR's, rrLP's and rrLR's moments summed by the kernel over the
    queries (no pairs x queries matrices) equal those of the blocks' values,
    for pairs in any order (the kernel reads them a square of runs at a
    time): sums, extremes, wins, losses and ties; and the means and
    deviations the kernel divided as it summed are those of the sums. LP
    or LR without its rr preference takes the counting path (lex_signs),
    with it the levels' (lex_moments); both with and without AVX2."""
    from lexeval import evaluate
    from lexeval.choices import SIGN_PREFERENCES
    from lexeval.preferences import pair_rows, pairs_of_rows
    from lexeval.stats import totals
    qrels, paths = write_collection(tmp_path_factory.mktemp("summed"), np.random.default_rng(seed), runs, queries, 10)
    preferences = evaluate(qrels, paths, list(names), warn=lambda text: None).preferences
    count = preferences.num_pairs
    rows = np.array(data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=3 * count)), dtype=np.int64)
    made = (lambda make: make() if vectors else scalar_path(make))(
        lambda: totals._summed_preferences(preferences, pairs_of_rows(runs, rows)))
    assert made is not None
    values, _ = preferences.block(rows)
    for name in names:
        want = Moments.of(values[name], unit=name in SIGN_PREFERENCES)
        got = made[name]
        assert got.first.units == want.first.units and got.second.units == want.second.units, name
        for field in ("queries", "low", "high", "wins", "losses", "ties"):
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=f"{name} {field}")
        if name not in SIGN_PREFERENCES:
            assert got._mean is not None and got._spread is not None      # made by the kernel, not from limbs
        from_sums = numpy_path(lambda want=want: (want.mean(), want.spread()))
        np.testing.assert_array_equal(bits(got.mean()), bits(from_sums[0]), err_msg=name)
        np.testing.assert_array_equal(bits(got.spread()), bits(from_sums[1]), err_msg=name)
    np.testing.assert_array_equal(pair_rows(runs, pairs_of_rows(runs, rows)), rows)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 70), st.integers(1, 4), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_compiled_lex_order_equals_the_refinement_sort(runs, queries, longest, seed):
    """The kernel's merge sort per query gives numpy's refinement sort's
    order (ties in run order), dense ranks and split levels, for LP's
    sequences and LR's, with ties, shared prefixes, empty sequences and
    more runs than its insertion runs of 16 (then merged); the queries in
    one thread or shared between threads."""
    from lexeval.preferences import NO_SPLIT, RelevantRanks, lexicographic_order, lexirecall_sequences
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, size=runs * queries)
    # few values: many runs tie, or share a prefix, or one's sequence is another's prefix
    ranks = rng.integers(1, 4, size=int(lengths.sum())).astype(np.int64)
    relevant = RelevantRanks(ranks, (np.cumsum(lengths) - lengths).astype(np.int64), lengths, runs, queries, 99)
    group = np.arange(runs * queries) % queries
    for recall in (False, True):
        sequences = lexirecall_sequences(relevant) if recall else (ranks, relevant.starts, lengths)
        want = lexicographic_order(group, *sequences, 99)
        least = compiled._PART_LEAST
        for split_from in (least, 1):           # 1: every size shares its queries between the threads
            compiled._PART_LEAST = split_from
            try:
                got = compiled.lex_order(relevant.arrays, (runs, queries), recall, int(NO_SPLIT))
            finally:
                compiled._PART_LEAST = least
            for name, made in zip(("order", "rank", "split"), got):
                np.testing.assert_array_equal(made, getattr(want, name), err_msg=f"{name} recall={recall}")


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_sign_moments_from_counts_equal_those_of_the_signs(rows, queries, seed):
    """LP's and LR's moments from their wins and losses alone (the mean and
    deviation by one float division, the sums when asked) equal those of the
    -1, 0, 1 matrix, also taken, stacked, added and pickled."""
    import pickle
    signs = np.random.default_rng(seed).choice([-1.0, 0.0, 1.0], size=(rows, queries), p=[0.3, 0.3, 0.4])
    want = Moments.of(signs, unit=True)
    got = Moments.of_signs((signs > 0).sum(axis=1), (signs < 0).sum(axis=1), queries)
    order = np.arange(rows)[::-1]
    for made, expected in ((got, want), (got.take(order), want.take(order)),
                           (Moments.stack([got, got]), Moments.stack([want, want])), (got + got, want + want),
                           (pickle.loads(pickle.dumps(got)), want)):
        plain = Moments(expected.first, expected.second, expected.queries)       # from the sums, in numpy
        np.testing.assert_array_equal(bits(made.mean()), bits(numpy_path(plain.mean)))
        np.testing.assert_array_equal(bits(made.spread()), bits(numpy_path(plain.spread)))
        assert made.first.units == expected.first.units and made.second.units == expected.second.units
        for field in ("low", "high", "wins", "losses", "ties"):
            np.testing.assert_array_equal(getattr(made, field), getattr(expected, field))
    # the extremes and counts against the matrix itself (of(unit=True) takes the counts too)
    np.testing.assert_array_equal(got.low, signs.min(axis=1))
    np.testing.assert_array_equal(got.high, signs.max(axis=1))
    np.testing.assert_array_equal(got.ties, (signs == 0).sum(axis=1))
    assert got.first.units == [int(row.sum()) << GRID_BITS for row in signs]
    assert got.second.units == [int((row * row).sum()) << (2 * GRID_BITS) for row in signs]


@given(st.integers(0, 3000), st.data())
def test_pairs_of_rows_inverts_pair_rows(runs, data):
    from lexeval.preferences import pair_rows, pairs_of_rows, run_pairs
    count = runs * (runs - 1) // 2
    if runs <= 60:
        np.testing.assert_array_equal(pairs_of_rows(runs, np.arange(count)),
                                      np.array(run_pairs(runs), dtype=np.int64).reshape(-1, 2))
    if count:
        rows = np.array(data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=50)))
        pairs = pairs_of_rows(runs, rows)
        assert ((pairs[:, 0] < pairs[:, 1]) & (pairs[:, 1] < runs)).all()
        np.testing.assert_array_equal(pair_rows(runs, pairs), rows)


@pytest.mark.parametrize("options", [["--hsd", "--ci"], ["--test", "randomization", "--permutations", "300", "--ci",
                                                         "--resamples", "200", "-m", "map", "-m", "LP", "-m", "P.10"],
                                     ["-m", "map"], ["-m", "num_q"], ["-m", "num_q", "-m", "LP"]])
def test_threads_print_what_one_thread_prints(tmp_path, cli, monkeypatch, options):
    """The pairs' totals are made a measure per thread, beside the
    preferences': the same output as one thread (scratch buffers, draws and
    sums are each thread's own); one measure's pairs shared between the
    threads; no tested measure at all."""
    qrels, runs = write_collection(tmp_path, np.random.default_rng(11), 12, 15, 25)
    for module in ("totals", "conclusions"):                               # threads, however small the work
        monkeypatch.setattr(f"lexeval.stats.{module}.THREADED_CELLS", 0)
    monkeypatch.setattr("lexeval.compiled._PART_LEAST", 4)                  # a measure's pairs split, however few
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    threaded = cli([*options, qrels, *runs])
    for module in ("totals", "conclusions"):                               # one thread
        monkeypatch.setattr(f"lexeval.stats.{module}.THREADED_CELLS", 1 << 62)
    alone = cli([*options, qrels, *runs])
    assert threaded.code == 0, threaded.err
    assert threaded.out == alone.out


def test_a_measures_pairs_shared_between_threads_give_the_same_floats():
    """Fewer measures than cores: one measure's pairs are split between
    threads (moments and t-tests), each pair's floats its own."""
    from lexeval.stats.distributions import _log_beta
    rng = np.random.default_rng(5)
    values = rng.choice([0.0, 0.1, 0.25, 1 / 3, 0.5, 1.0], size=(300, 7)) + rng.random((300, 7)) * 1e-3
    pairs = np.array([(a, b) for a in range(300) for b in range(a + 1, 300)], dtype=np.int64)
    assert len(pairs) >= 2 * compiled._PART_LEAST                  # enough pairs to split
    whole = compiled.pair_moments(values, pairs, GRID_BITS)
    split = compiled.pair_moments(values, pairs, GRID_BITS, parts=3)
    for one, other in zip(whole, split):
        np.testing.assert_array_equal(bits(one), bits(other))
    count = np.broadcast_to(np.int64(7), (len(pairs),))
    p = compiled.t_test_p(*whole, count, _log_beta)
    np.testing.assert_array_equal(bits(p), bits(compiled.t_test_p(*whole, count, _log_beta, parts=3)))
    assert 0 < (p < 0.05).mean() < 1


def _relevant_ranks(runs: int, queries: int, longest: int, seed: int):
    """Random relevant ranks of ``runs`` x ``queries`` segments, with ties
    and shared prefixes (few rank values), empty segments among them."""
    from lexeval.preferences import RelevantRanks
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, size=runs * queries)
    ranks = np.concatenate([np.sort(rng.choice(np.arange(1, 3 * longest + 3), size=k, replace=False))
                            for k in lengths.tolist()] or [np.zeros(0)]).astype(np.int64)
    return rng, RelevantRanks(ranks, (np.cumsum(lengths) - lengths).astype(np.int64), lengths, runs, queries,
                              3 * longest + 3)


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 40), st.integers(1, 5), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_lex_decide_equals_its_numpy_reference(runs, queries, longest, seed):
    """The kernel's LP and LR signs and deciding levels, array for array,
    equal the numpy reference's (decide_reference) on the same structures:
    pairs either way round, a run with itself, empty sequences, ties."""
    from lexeval.preferences import Lex, decide_reference, lexicographic_order, lexirecall_sequences
    rng, relevant = _relevant_ranks(runs, queries, longest, seed)
    first, second = rng.integers(0, runs, size=50), rng.integers(0, runs, size=50)
    for recall in (False, True):
        sequences = lexirecall_sequences(relevant) if recall else relevant.arrays
        lex = Lex(relevant, lexicographic_order(relevant.segment_query, *sequences, relevant.pad))
        counts = relevant.retrieved if recall else None
        got = compiled.lex_decide((lex.rank, lex.position, lex.table.stacked), first, second,
                                  None if counts is None else counts.reshape(runs, queries))
        want = decide_reference(lex.rank, lex.position, lex.table, (first, second), counts)
        for name, made, reference in zip(("sign", "level"), got, want):
            np.testing.assert_array_equal(made, reference, err_msg=f"{name} recall={recall}")
        assert (want[1][want[0] == 0] == 0).all()


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 40), st.integers(1, 5), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_reciprocal_difference_equals_its_numpy_reference(runs, queries, longest, seed):
    """rrLP's and rrLR's values from deciding levels, the kernel's and the
    numpy reference's bit for bit: levels 0 (a tie), within and beyond a
    run's retrieved relevant documents (1/unretrieved = 0)."""
    from lexeval.preferences import reciprocal_difference_reference
    rng, relevant = _relevant_ranks(runs, queries, longest, seed)
    first, second = rng.integers(0, runs, size=40), rng.integers(0, runs, size=40)
    level = rng.integers(0, longest + 2, size=(40, queries))
    got = compiled.reciprocal_difference(relevant.arrays, queries, first, second, level)
    want = reciprocal_difference_reference(relevant, first, second, level)
    np.testing.assert_array_equal(bits(got), bits(want))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 6), st.sampled_from([1, 2, 0, 3]))
def test_bpref_in_one_pass_equals_its_numpy_reference(tmp_path_factory, seed, runs, queries, level):
    """bpref's compiled pass over the documents against the numpy reference
    (counts of judged non-relevant documents above each relevant one): the
    same floats, at every relevance level, with unjudged documents and
    queries a run lacks."""
    from lexeval.measures.incomplete import bpref, bpref_reference
    qrels, paths = write_collection(tmp_path_factory.mktemp("bpref"), np.random.default_rng(seed), runs, queries, 25)
    rankings = evaluate(qrels, paths, "bpref", level=level, warn=lambda _: None).rankings
    assert np.array_equal(bpref(rankings), bpref_reference(rankings))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=12), st.integers(-2, 3), st.integers(0, 40),
       st.integers(0, 2 ** 32 - 1))
def test_per_ranking_passes_equal_their_numpy_references(lengths, level, depth, seed):
    """The one-pass kernels --bounds reads rankings with (relevant documents within a depth, the first relevant
    rank and every unjudged document judged alike, split between the threads), against numpy
    on the same codes, empty rankings and depths past every ranking included."""
    rng = np.random.default_rng(seed)
    lengths = np.array(lengths, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    codes = rng.integers(-2, 4, int(lengths.sum())).astype(np.int16)
    segments = [codes[start:start + length] for start, length in zip(starts, lengths)]
    within = compiled.relevant_within(codes, starts, lengths, level, depth)
    assert within.tolist() == [int(np.count_nonzero(c[:depth] >= level)) for c in segments]
    first = compiled.relevant_within(codes, starts, lengths, level, None)
    assert first.tolist() == [int(np.flatnonzero(c >= level)[0]) + 1 if (c >= level).any() else 0 for c in segments]
    grade = int(rng.integers(0, 4))
    assigned, holes_per_segment = compiled.uniform_codes(codes, starts, lengths, grade)
    assert assigned.tolist() == np.where(codes < 0, grade, codes).tolist()
    assert holes_per_segment.tolist() == [int(np.count_nonzero(c < 0)) for c in segments]
