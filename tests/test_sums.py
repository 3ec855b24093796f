"""Sums over queries that any split of the queries adds up to the same, and
draws that do not depend on which queries are drawn with: what makes a
cluster print one machine's digits."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.stats.moments import Moments
from lexeval.stats.sums import (
    GRID_BITS,
    fixed_sums,
    poisson_weights,
    query_keys,
    random_signs,
    uniform_bits,
)

VALUES = st.lists(st.one_of(st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 0.1, 1 / 3, 5e6, -7e7, 1e-300])),
                  min_size=0, max_size=40)


def on_grid(value: float) -> Fraction:
    return Fraction(round(Fraction(value) * (1 << GRID_BITS)), 1 << GRID_BITS)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.data())
def test_sums_are_exact_and_any_split_adds_up_to_them(values, data):
    whole = fixed_sums(np.array([values], dtype=np.float64))
    assert Fraction(whole.units[0], 1 << GRID_BITS) == sum((on_grid(v) for v in values), Fraction(0))
    cut = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=3)))
    bounds = [0, *cut, len(values)]
    parts = [fixed_sums(np.array([values[a:b]], dtype=np.float64)) for a, b in zip(bounds, bounds[1:])]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    assert total.units == whole.units


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=1, max_size=3000))
def test_means_are_the_nearest_float_to_the_exact_mean(counts):
    values = np.array([count / 10 for count in counts])
    mean = fixed_sums(values.reshape(1, -1)).divided(len(values))[0]
    assert mean == float(sum((on_grid(v) for v in values), Fraction(0)) / len(values))


def test_non_finite_values_are_kept_aside():
    sums = fixed_sums(np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 1.0], [0.5, 0.25, 0.0]]))
    totals = sums.totals()
    assert totals[0] == np.inf and np.isnan(totals[1]) and totals[2] == 0.75


def test_moments_of_split_pairs_add_up():
    rng = np.random.default_rng(3)
    differences = np.round(rng.normal(0, 0.3, (7, 500)), 3)
    whole = Moments.of(differences)
    added = Moments.of(differences[:, :123]) + Moments.of(differences[:, 123:])
    assert added.first.units == whole.first.units and added.second.units == whole.second.units
    assert (added.mean() == whole.mean()).all() and (added.spread() == whole.spread()).all()
    np.testing.assert_allclose(whole.spread(), differences.std(axis=1, ddof=1), rtol=1e-12)


def test_a_querys_draws_do_not_depend_on_the_others():
    keys = query_keys([f"q{i}" for i in range(50)])
    every = uniform_bits(7, keys, 0, 300)
    assert (uniform_bits(7, keys[10:20], 0, 300) == every[:, 10:20]).all()
    assert (uniform_bits(7, keys, 100, 50) == every[100:150]).all()
    assert not (uniform_bits(8, keys, 0, 300) == every).any()
    signs = random_signs(7, keys, 0, 20000)
    assert set(np.unique(signs)) == {-1.0, 1.0} and abs(signs.mean()) < 0.01
    weights = poisson_weights(7, keys, 0, 20000)
    assert abs(weights.mean() - 1) < 0.01 and abs(weights.var() - 1) < 0.02
    assert query_keys(["q1"])[0] == query_keys(["q0", "q1"])[1]


def test_a_mean_on_a_tie_prints_as_trec_eval_prints_it_when_its_sum_is_exact():
    """0.25 over 5,000 queries: 0.00005 exactly, a tie at the fifth
    decimal; trec_eval's sum is exact here, and both print the float
    nearest to 1/20000 (just above it): 0.0001."""
    values = np.zeros(5000)
    values[1234] = 0.25
    mean = fixed_sums(values.reshape(1, -1)).divided(5000)[0]
    assert mean == 0.25 / 5000 and "%.4f" % mean == "0.0001"


def test_randomization_and_bootstrap_sums_add_up_over_any_split():
    """Per-draw sums are integers (differences in units of 2**-40): two
    halves of the queries add up to the whole, bit for bit, also where the
    totals outgrow int64 (huge differences)."""
    from lexeval.stats.draws import draw_sums as _draw_sums
    rng = np.random.default_rng(5)
    keys = query_keys([f"q{i}" for i in range(300)])
    for scale in (1.0, 1e7):
        differences = rng.normal(0, 0.3, (4, 300)) * scale
        for draw in (random_signs, poisson_weights):
            whole = _draw_sums(differences, keys, 500, 3, draw)
            halves = _draw_sums(differences[:, :77], keys[:77], 500, 3, draw) + \
                _draw_sums(differences[:, 77:], keys[77:], 500, 3, draw)
            assert (whole == halves).all()
            if scale == 1.0:
                observed = np.rint(differences * 2.0**40).sum(axis=1)
                assert whole[:, 0].tolist() == [int(v) for v in observed.tolist()]


# ---------------------------------------------------------------- limbs and pair moments

INTEGERS = st.one_of(st.integers(-(1 << 200), 1 << 200), st.integers(-(1 << 60), 1 << 60),
                     st.sampled_from([0, 1, -1, (1 << 53) + 1, (1 << 53) + 3, -(1 << 54) - 2, 3 << 70]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(INTEGERS, st.integers(1, (1 << 52) - 1)), min_size=1, max_size=8),
       st.sampled_from([0, 62, 124]))
def test_limb_quotients_are_correctly_rounded(rows, scale):
    """Python's int / int rounds to nearest, ties to even; so must the
    whole-array quotient, including exact halves ((2**53 + 1) / 1)."""
    from lexeval.stats import limbs
    numbers = [number for number, _ in rows]
    divisors = np.array([divisor for _, divisor in rows], dtype=np.int64)
    got = limbs.quotient(limbs.from_ints(numbers), divisors, scale)
    assert got.tolist() == [number / (divisor << scale) for number, divisor in rows]
    assert limbs.to_ints(limbs.carry(limbs.multiply(limbs.from_ints(numbers), limbs.from_ints(numbers)))) \
        == [number * number for number in numbers]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(-(1 << 100), 1 << 100), min_size=1, max_size=6), min_size=1, max_size=4))
def test_carried_sums_added_and_carried_in_place_are_the_numbers_summed(parts):
    """The threads' carried sums (every limb but the top one in [0, 2**21)) added limb by limb and carried in
    place (the pairs' kernels' way) equal the Python sums of the numbers, and :func:`carry`'s own."""
    from lexeval.stats import limbs
    width = max(len(part) for part in parts)
    carried = [limbs.carry(limbs.from_ints(part + [0] * (width - len(part))), 7) for part in parts]
    added = carried[0].copy()
    for part in carried[1:]:
        added += part
    expected = [sum(column) for column in zip(*(part + [0] * (width - len(part)) for part in parts))]
    assert limbs.to_ints(limbs.carry_in_place(added.copy())) == expected
    np.testing.assert_array_equal(limbs.carry_in_place(added.copy()), limbs.carry(added, 7))


VALUE_MATRICES = st.integers(2, 6).flatmap(lambda runs: st.lists(
    st.lists(st.one_of(st.floats(-2, 2), st.sampled_from([0.0, 0.1, 1 / 3, 1e-7, 0.999, 1e5])),
             min_size=runs, max_size=runs), min_size=0, max_size=30))


@settings(max_examples=200, deadline=None)
@given(VALUE_MATRICES, st.data())
def test_pair_moments_from_cross_products_are_exact_and_add_up(columns, data):
    """Moments of every pair of runs from run sums and cross products equal
    the exact sums of the grid values' differences and squares (Fractions),
    and the moments of any split of the queries add up to them."""
    if not columns:
        return
    values = np.array(columns, dtype=np.float64).T                      # (runs, queries)
    runs = len(values)
    pairs = np.array([(a, b) for a in range(runs) for b in range(runs) if a != b])
    whole = Moments.of_pairs(values, pairs)
    for row, (a, b) in enumerate(pairs.tolist()):
        gaps = [on_grid(x) - on_grid(y) for x, y in zip(values[a].tolist(), values[b].tolist())]
        assert whole.first.fractions()[row] == sum(gaps, Fraction(0))
        assert whole.second.fractions()[row] == sum((g * g for g in gaps), Fraction(0))
    counted = Moments.of_pairs(values, pairs, signs=True)
    assert counted.first.units == whole.first.units and counted.second.units == whole.second.units
    assert (counted.wins == (values[pairs[:, 0]] > values[pairs[:, 1]]).sum(axis=1)).all()
    cut = data.draw(st.integers(0, values.shape[1]))
    added = Moments.of_pairs(values[:, :cut], pairs) + Moments.of_pairs(values[:, cut:], pairs)
    assert added.first.units == whole.first.units and added.second.units == whole.second.units
    assert (added.mean() == whole.mean()).all() and (added.spread() == whole.spread()).all()


def test_pair_moments_with_infinite_values_keep_them_aside():
    values = np.array([[1.0, np.inf, 0.5, 0.25], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, np.nan, np.inf]])
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    moments = Moments.of_pairs(values, pairs, signs=True)
    explicit = Moments.of(values[pairs[:, 0]] - values[pairs[:, 1]])
    assert moments.first.units == explicit.first.units and moments.second.units == explicit.second.units
    assert moments.mean()[0] == np.inf and np.isnan(moments.mean()[1])
    assert moments.first.fractions()[0] == Fraction(5, 4)       # the finite differences: 0.5 + 0.5 + 0.25
    assert moments.count().tolist() == [4, 3, 3] and moments.wins.tolist() == [4, 2, 2]
    assert moments.losses.tolist() == [0, 1, 1] and moments.ties.tolist() == [0, 0, 0]


def test_a_spread_is_zero_exactly_when_every_difference_is_equal():
    """(0.7 - 0.6 is not 0.1 - 0.0 in floats: equal differences must be
    equal on the grid, as these quarters are.)"""
    values = np.array([[0.5, 0.25, 0.75, 1.0], [0.25, 0.0, 0.5, 0.75], [0.3, 0.2, 0.1, 0.0]])
    pairs = np.array([[0, 1], [0, 2]])
    spread = Moments.of_pairs(values, pairs).spread()
    assert spread[0] == 0.0 and spread[1] == np.std(values[0] - values[2], ddof=1)


def test_sign_preferences_moments_from_their_counts_equal_the_summed_ones():
    rng = np.random.default_rng(11)
    signs = rng.integers(-1, 2, (40, 77)).astype(np.float64)
    counted, summed = Moments.of(signs, unit=True), Moments.of(signs)
    assert counted.first.units == summed.first.units and counted.second.units == summed.second.units
    assert (counted.spread() == summed.spread()).all() and (counted.wins == summed.wins).all()
    assert counted.first.units[0] == int(signs[0].sum()) << 62
