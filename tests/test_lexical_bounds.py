"""LP's, rrLP's, LR's and rrLR's bounds under one assignment of grades shared by two
runs (lexeval.bounds.lexical and the compiled kernel's lex_bounds), against
every assignment enumerated, with the preferences written here from the
contract's definitions (relevant positions, the unretrieved below every
retrieved one)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval import compiled
from lexeval.bounds import kernel
from lexeval.bounds.lexical import BOUNDED_PREFERENCES, lex_bounds

UNRETRIEVED = float("inf")


def positions(ranking, relevant, m):
    """The relevant positions p_1 < ... < p_m, the unretrieved last."""
    found = [rank for rank, doc in enumerate(ranking, start=1) if doc in relevant]
    return found + [UNRETRIEVED] * (m - len(found))


def lp(a, b, m):
    for x, y in zip(a, b):
        if x != y:
            return (1.0 if x < y else -1.0), (0.0 if x == UNRETRIEVED else 1 / x) - (0.0 if y == UNRETRIEVED else 1 / y)
    return 0.0, 0.0


def lr(a, b):
    ka, kb = sum(x != UNRETRIEVED for x in a), sum(y != UNRETRIEVED for y in b)
    if ka != kb:
        return 1.0 if ka > kb else -1.0
    for x, y in zip(reversed(a[:ka]), reversed(b[:kb])):
        if x != y:
            return 1.0 if x < y else -1.0
    return 0.0


def reciprocal(position):
    return 0.0 if position == UNRETRIEVED else 1 / position


def rrlr(a, b):
    """1/p_A - 1/p_B at lexirecall's deciding level: the larger count where the counts differ, else the lowest
    level (from the bottom up) where the positions differ."""
    ka, kb = sum(x != UNRETRIEVED for x in a), sum(y != UNRETRIEVED for y in b)
    levels = [max(ka, kb) - 1] if ka != kb else [j for j in reversed(range(ka)) if a[j] != b[j]][:1]
    return reciprocal(a[levels[0]]) - reciprocal(b[levels[0]]) if levels else 0.0


def enumerated(case):
    """{name: (least, greatest)} over every grade of every unjudged document of either ranking."""
    judged, run_a, run_b, level, top = case
    holes = sorted({d for d in run_a + run_b if judged.get(d, -1) < 0})
    found = {name: [] for name in BOUNDED_PREFERENCES}
    for grades in itertools.product(range(top + 1), repeat=len(holes)):
        grade = {**judged, **dict(zip(holes, grades))}
        relevant = {d for d, g in grade.items() if g >= level}
        m = len(relevant)
        a, b = positions(run_a, relevant, m), positions(run_b, relevant, m)
        sign, reciprocal = lp(a, b, m)
        found["LP"].append(sign)
        found["rrLP"].append(reciprocal)
        found["LR"].append(lr(a, b))
        found["rrLR"].append(rrlr(a, b))
    return {name: (min(values), max(values)) for name, values in found.items()}


def arrays(case):
    """Each ranking's (codes, unjudged documents' numbers), as the rankings hold them."""
    judged, run_a, run_b, _, _ = case
    holes = sorted({d for d in run_a + run_b if judged.get(d, -1) < 0})
    number = {d: k for k, d in enumerate(holes)}
    out = []
    for ranking in (run_a, run_b):
        codes = np.array([judged[d] if judged.get(d, -1) >= 0 else -1 for d in ranking], dtype=np.int16)
        ids = np.array([number.get(d, -1) for d in ranking], dtype=np.int32)
        out.append((codes, ids))
    return out, len(holes)


@st.composite
def cases(draw):
    docs = [f"d{k}" for k in range(draw(st.integers(2, 9)))]
    top = draw(st.integers(1, 2))
    judged = {}
    for doc in docs:
        state = draw(st.sampled_from(["hole", "hole", "minus", "judged", "judged", "judged"]))
        if state != "hole":
            judged[doc] = -1 if state == "minus" else draw(st.integers(0, top))
    holes = [d for d in docs if judged.get(d, -1) < 0]
    if len(holes) > 7:                     # at most 3^7 assignments
        for doc in holes[7:]:
            judged[doc] = 0
    run_a = draw(st.permutations(docs))[:draw(st.integers(0, len(docs)))]
    run_b = draw(st.permutations(docs))[:draw(st.integers(0, len(docs)))]
    level = draw(st.sampled_from([1, 1, 2, 0, 3]))
    return judged, list(run_a), list(run_b), level, top


@settings(max_examples=600, deadline=None)
@given(cases())
def test_the_reference_equals_every_shared_assignment_enumerated(case):
    expected = enumerated(case)
    (a, b), _ = arrays(case)
    for name in BOUNDED_PREFERENCES:
        assert lex_bounds(name, a, b, case[3], case[4]) == pytest.approx(expected[name], abs=1e-15), name


@pytest.mark.skipif(not compiled.enabled(), reason="the compiled kernel is not built")
@settings(max_examples=600, deadline=None)
@given(cases())
def test_the_kernel_equals_the_reference_bit_for_bit(case):
    (a, b), most = arrays(case)
    level, top = case[3], case[4]
    codes = np.concatenate([a[0], b[0]])
    ids = np.concatenate([a[1], b[1]])
    starts = np.array([0, len(a[0])], dtype=np.int64)
    lengths = np.array([len(a[0]), len(b[0])], dtype=np.int64)
    pairs = np.array([[0, 1], [1, 0]], dtype=np.int64)
    relevance = (level, top >= level > 0, level <= 0 and top >= level)
    for name, which in BOUNDED_PREFERENCES.items():
        low, high = kernel.lex_bounds((codes, ids, starts, lengths, 1), pairs, np.array([0]), which,
                                        relevance, most)
        assert (low[0, 0], high[0, 0]) == lex_bounds(name, a, b, level, top), name
        assert (low[1, 0], high[1, 0]) == lex_bounds(name, b, a, level, top), name
    # all four in one pass (LR's shared holes counted there), in another order: the same values
    names = ["rrLR", "LP", "LR", "rrLP"]
    together = kernel.lex_bounds((codes, ids, starts, lengths, 1), pairs, np.array([0]),
                                   [BOUNDED_PREFERENCES[name] for name in names], relevance, most)
    for name, (low, high) in zip(names, together):
        assert (low[0, 0], high[0, 0]) == lex_bounds(name, a, b, level, top), name
        assert (low[1, 0], high[1, 0]) == lex_bounds(name, b, a, level, top), name


@pytest.mark.parametrize("run_a,run_b,expected", [
    # h only A's, g only B's: h 1, g 0 wins A more relevant; h 0 loses (B's d0 higher, or B more); both 1: a tie
    (["h", "d0"], ["d0", "g"], (-1.0, 1.0)),
    # h in both: relevant, a tie (ranks 1 and 2 each); not, the counts equal and B's d0 higher
    (["h", "d0"], ["d0", "h"], (-1.0, 0.0)),
    # B holds two judged relevant: A's only x must be relevant to equal the counts, and then every rank is alike
    (["x", "d0"], ["d0", "d1"], (-1.0, 0.0)),
    # x must be relevant again, and then A's lowest relevant (3) is under B's (2): B wins whatever x's grade
    (["d0", "e", "x"], ["d0", "d1", "e"], (-1.0, -1.0)),
    # x relevant: A has more; not: every rank alike
    (["d0", "d1", "x"], ["d0", "d1", "e"], (0.0, 1.0)),
])
def test_lr_bounds_worked_by_hand(run_a, run_b, expected):
    judged = {"d0": 1, "d1": 1, "e": 0}
    case = (judged, run_a, run_b, 1, 1)
    assert enumerated(case)["LR"] == expected
    (a, b), _ = arrays(case)
    assert lex_bounds("LR", a, b, 1, 1) == expected


def test_rrlp_bounds_worked_by_hand():
    """A = (x, d0), B = (d0, y), x and y unjudged: x and y relevant, a tie; x relevant and y not, A wins at
    rank 2 and B has no relevant below: 1/2 - 0; x not, B wins at rank 1 and A's next is d0 at 2: 1/2 - 1."""
    case = ({"d0": 1}, ["x", "d0"], ["d0", "y"], 1, 1)
    assert enumerated(case)["rrLP"] == (-0.5, 0.5)
    (a, b), _ = arrays(case)
    assert lex_bounds("rrLP", a, b, 1, 1) == (-0.5, 0.5)


def test_rrlr_bounds_worked_by_hand():
    """A = (d0, h), B = (h, d0), h unjudged in both: h relevant, both hold relevant documents at ranks 1 and 2 (a
    tie); not, the counts are equal (1) and from the bottom A's d0 at 1 beats B's at 2: 1/1 - 1/2. A = (d0, x),
    B = (d0, y), x and y each one run's only: x alone relevant, A retrieves more and its lowest relevant is at 2."""
    judged = {"d0": 1}
    for run_a, run_b, expected in ((["d0", "h"], ["h", "d0"], (0.0, 0.5)),
                                   (["d0", "x"], ["d0", "y"], (-0.5, 0.5))):
        case = (judged, run_a, run_b, 1, 1)
        assert enumerated(case)["rrLR"] == expected
        (a, b), _ = arrays(case)
        assert lex_bounds("rrLR", a, b, 1, 1) == expected


@pytest.mark.skipif(not compiled.enabled(), reason="the compiled kernel is not built")
@pytest.mark.parametrize("where", ["ranked", "negative"])
def test_the_kernel_refuses_a_hole_number_out_of_range(where):
    """An unjudged document's number past the query's count (or below 0): an IndexError, not a read out of
    bounds (the check has no branches, and runs on every call; each query's lists are made from these numbers)."""
    codes = np.array([1, -1, 0, -1, -1], dtype=np.int16)
    ids = np.array([-1, 0, -1, 1, 0], dtype=np.int32)
    if where == "ranked":
        ids[3] = 2
    else:
        ids[1] = -3
    starts, lengths = np.array([0, 3], dtype=np.int64), np.array([3, 2], dtype=np.int64)
    with pytest.raises(IndexError, match="number out of range"):
        kernel.lex_bounds((codes, ids, starts, lengths, 1), np.array([[0, 1]]), np.array([0]), 1,
                            (1, False, False), 2)
