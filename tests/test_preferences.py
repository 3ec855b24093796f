"""Lexiprecision and lexirecall: worked example, naive reference, invariants."""

import math
from itertools import combinations

import numpy as np
import pytest
import reference as ref
from conftest import run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import collections, write_files

from lexeval import evaluate
from lexeval.preferences import RangeMinimum, lexicographic_order


def run_with_relevant_at(positions, depth, name):
    docs = []
    relevant = iter(f"r{i}" for i in range(1, 100))
    for rank in range(1, depth + 1):
        docs.append(next(relevant) if rank in positions else f"{name}-n{rank}")
    return docs


def test_figure_4_style_example(tmp_path):
    """m = 5 relevant items; both runs find one at rank 2 (reciprocal rank
    ties), run A's second is higher, so lexiprecision prefers A; lexirecall
    looks from the bottom, where B's last relevant item is higher."""
    qrels = write(tmp_path / "qrels", "".join(f"1 0 r{i} 1\n" for i in range(1, 6)))
    a = run_with_relevant_at({2, 4, 7, 10, 12}, 12, "a")
    b = run_with_relevant_at({2, 5, 6, 9, 11}, 12, "b")
    lines = "".join(f"1 Q0 {d} {i} {100 - i} A\n" for i, d in enumerate(a, 1))
    write(tmp_path / "A", lines)
    write(tmp_path / "B", "".join(f"1 Q0 {d} {i} {100 - i} B\n" for i, d in enumerate(b, 1)))
    result = run_cli(["-m", "recip_rank", "-m", "lexicographic", qrels, tmp_path / "A", tmp_path / "B"])
    values = {tuple(line.split("\t")[:2]): line.split("\t")[3] for line in result.lines()}
    key = "A:B"
    assert values[("A", "recip_rank            ")] == values[("B", "recip_rank            ")] == "0.5000"
    assert values[(key, "LP                    ")] == "1.0000"
    assert float(values[(key, "rrLP                  ")]) == pytest.approx(1 / 4 - 1 / 5, abs=5e-5)
    assert values[(key, "LR                    ")] == "-1.0000"
    assert float(values[(key, "rrLR                  ")]) == pytest.approx(1 / 12 - 1 / 11, abs=5e-5)
    assert values[(key, "LP_win                ")] == "1" and values[(key, "LP_tie                ")] == "0"
    assert values[("A", "LP_rank               ")] == "1" and values[("B", "LP_rank               ")] == "2"
    assert values[("A", "LP_score              ")] == "1.0000"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections(max_runs=6))
def test_preferences_match_naive_reference(tmp_path_factory, collection):
    qrels, runs = collection
    if len(runs) < 2:
        runs = runs + [{}]                   # a run with no lines for any query
        runs[-1] = {"1": [("d00", 1.0)]}
    tmp = tmp_path_factory.mktemp("p")
    qrels_path, run_paths = write_files(tmp, qrels, runs)
    ev = evaluate(qrels_path, run_paths, ["lexicographic"])
    prefs = ev.preferences
    assert prefs.pairs == list(combinations(range(len(runs)), 2))
    for pair_index, (a, b) in enumerate(prefs.pairs):
        for query_index, qid in enumerate(ev.qids):
            judgements = qrels[qid]
            m = ref.num_rel(judgements)
            p_a = ref.positions(ref.ranked(runs[a].get(qid, [])), judgements)
            p_b = ref.positions(ref.ranked(runs[b].get(qid, [])), judgements)
            lp, rrlp = ref.lexiprecision(p_a, p_b, m)
            lr, rrlr = ref.lexirecall(p_a, p_b, m)
            got = {name: prefs.values[name][pair_index, query_index] for name in prefs.values}
            assert got["LP"] == lp and got["LR"] == lr, (qid, p_a, p_b, got)
            assert math.isclose(got["rrLP"], rrlp, abs_tol=1e-15), (p_a, p_b, got)
            assert math.isclose(got["rrLR"], rrlr, abs_tol=1e-15), (p_a, p_b, got)
            # invariants of the contract
            rr_a, rr_b = (1 / p_a[0] if p_a else 0), (1 / p_b[0] if p_b else 0)
            if rr_a != rr_b:
                assert got["LP"] == np.sign(rr_a - rr_b)
                assert got["rrLP"] == pytest.approx(rr_a - rr_b)
            assert (got["LP"] == 0) == (p_a == p_b) == (got["LR"] == 0)
            if len(p_a) != len(p_b):
                assert got["LR"] == np.sign(len(p_a) - len(p_b))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections())
def test_preferences_are_antisymmetric(tmp_path_factory, collection):
    qrels, runs = collection
    tmp = tmp_path_factory.mktemp("s")
    qrels_path, run_paths = write_files(tmp, qrels, runs + [runs[0]] if len(runs) == 1 else runs)
    forward = evaluate(qrels_path, run_paths[:2], ["lexicographic"]).preferences
    backward = evaluate(qrels_path, run_paths[:2][::-1], ["lexicographic"]).preferences
    for name in forward.values:
        np.testing.assert_array_equal(forward.values[name], -backward.values[name])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.lists(st.integers(1, 6), max_size=5)), min_size=1, max_size=40))
def test_lexicographic_order_against_sorted_tuples(items):
    """The refinement sort equals Python's tuple sort (pad = 99 forever)."""
    group = np.array([g for g, _ in items])
    lengths = np.array([len(seq) for _, seq in items])
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    values = np.array([v for _, seq in items for v in seq], dtype=np.int64)
    lex = lexicographic_order(group, values, starts, lengths, 99)
    longest = max(lengths.max(), 1) + 1
    keys = [(g, tuple(seq) + (99,) * (longest - len(seq))) for g, seq in items]
    # order: sorted by key (ties in original order)
    assert [keys[i] for i in lex.order] == sorted(keys)
    # dense rank within the group
    for i, (g, key) in enumerate(keys):
        better = {k for h, k in keys if h == g and k < key}
        assert lex.rank[i] == len(better)
    # split: first differing element (1-based) between neighbours of a group
    for position in range(len(items) - 1):
        (g1, k1), (g2, k2) = keys[lex.order[position]], keys[lex.order[position + 1]]
        if g1 != g2 or k1 == k2:
            assert lex.split[position] == np.iinfo(np.int64).max
        else:
            first = next(j for j, (x, y) in enumerate(zip(k1, k2)) if x != y) + 1
            assert lex.split[position] == first


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=8, max_size=8), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 7), st.integers(1, 8)), min_size=1, max_size=20))
def test_range_minimum_against_brute_force(rows, spans):
    matrix = np.array(rows)
    table = RangeMinimum(matrix)
    row = np.array([i % len(rows) for i in range(len(spans))])
    start = np.array([min(a, b - 1) if a < b else b - 1 for a, b in spans])
    stop = np.array([b if a < b else a + 1 for a, b in spans])
    start, stop = np.minimum(start, stop - 1), np.minimum(stop, 8)
    start = np.minimum(start, stop - 1)
    got = table.query(row, start, stop)
    want = [matrix[r, s:e].min() for r, s, e in zip(row, start, stop)]
    assert got.tolist() == want


def test_pairs_computed_in_small_blocks_print_the_same(monkeypatch):
    """Preferences are computed a block of pairs at a time (bounded memory
    for thousands of runs); tiny blocks must print exactly the same."""
    from conftest import EXAMPLES

    from lexeval.preferences import Preferences
    qrels = EXAMPLES / "cranfield" / "qrels.txt.gz"
    runs = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[:5]
    args = ["-q", "-m", "map", "-m", "lexicographic", "--hsd", qrels, *runs]
    want = run_cli(args)
    baseline = run_cli(args + ["--baseline", runs[2].name[:-3]])
    monkeypatch.setattr(Preferences, "BLOCK_CELLS", 300)          # 1 pair per block with 225 queries
    assert run_cli(args).out == want.out
    assert run_cli(args + ["--baseline", runs[2].name[:-3]]).out == baseline.out
    assert want.code == 0 and "LP_score" in want.out and "rrLR" in want.out
