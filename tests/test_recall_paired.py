"""Recall-paired preference (RPP, invRPP, dcgRPP) and its graded form:
hand-computed values, a plain reference on random collections, the real
TREC runs, and every place a preference goes (summaries, tests, gate)."""

from __future__ import annotations

import math
from itertools import combinations

import pytest
import reference as ref
from conftest import DL19, run_cli, write
from hypothesis import HealthCheck, given, settings
from test_properties import collections, write_files

from lexeval import evaluate

RPP_NAMES = ["RPP", "invRPP", "dcgRPP", "gRPP", "ginvRPP", "gdcgRPP"]


def values_by_key(result) -> dict[tuple[str, str, str], str]:
    return {(line.split("\t")[0], line.split("\t")[1].strip(), line.split("\t")[2]): line.split("\t")[3]
            for line in result.lines()}


@pytest.fixture
def two_runs(tmp_path):
    """m = 5; A finds relevant documents at 1, 3, 4; B at 2, 3, 4, 5."""
    qrels = write(tmp_path / "qrels", "".join(f"q1 0 d{i} 1\n" for i in range(1, 6)))
    a = write(tmp_path / "A", "q1 Q0 d1 1 10 a\nq1 Q0 x 2 9 a\nq1 Q0 d2 3 8 a\nq1 Q0 d3 4 7 a\n")
    b = write(tmp_path / "B", "q1 Q0 x 1 10 b\nq1 Q0 d1 2 9 b\nq1 Q0 d2 3 8 b\nq1 Q0 d3 4 7 b\nq1 Q0 d4 5 6 b\n")
    return qrels, a, b


def test_hand_computed(two_runs):
    """Level 1: A higher (+w1); levels 2-3 equal; level 4: only A's missing
    (-w4); level 5: both missing, the walk stops.
    RPP = (1 - 1)/5 = 0; invRPP = (1 - 1/4) / H_5; dcgRPP = (1 - 1/log2 5) / sum 1/log2(i+1)."""
    qrels, a, b = two_runs
    result = run_cli(["-q", "-m", "recall_paired", "--test", "none", qrels, a, b])
    assert result.code == 0, result.err
    got = values_by_key(result)
    harmonic = sum(1 / i for i in range(1, 6))
    dcg_mass = sum(1 / math.log2(i + 1) for i in range(1, 6))
    assert got[("A:B", "RPP", "q1")] == "0.0000"
    assert float(got[("A:B", "invRPP", "q1")]) == pytest.approx((1 - 1 / 4) / harmonic, abs=5e-5)
    assert float(got[("A:B", "dcgRPP", "q1")]) == pytest.approx((1 - 1 / math.log2(5)) / dcg_mass, abs=5e-5)
    assert got[("A:B", "invRPP", "q1")] == "0.3285" and got[("A:B", "dcgRPP", "q1")] == "0.1931"


def test_graded_rpp_differs_from_pref_evals_output(tmp_path):
    """Grades 1 and 2. At grade >= 1 (m = 3): A at 1, 2, 5; B at 1, 2, 3:
    RPP = -1/3 (level 3). At grade >= 2 (m = 1, the document B ranks 3rd):
    A has it at 1, B at 3: RPP = +1. gRPP = (3 (-1/3) + 1 (+1)) / 4 = 0.
    pref_eval's released code returns the grade >= 1 value (-1/3) for every
    grade (its vector cache), which is what lexeval's RPP at -l 1 gives."""
    qrels = write(tmp_path / "qrels", "q1 0 a 2\nq1 0 b 1\nq1 0 c 1\n")
    run_a = write(tmp_path / "A", "q1 Q0 a 1 9 x\nq1 Q0 b 2 8 x\nq1 Q0 n1 3 7 x\nq1 Q0 n2 4 6 x\nq1 Q0 c 5 5 x\n")
    run_b = write(tmp_path / "B", "q1 Q0 b 1 9 x\nq1 Q0 c 2 8 x\nq1 Q0 a 3 7 x\n")
    got = values_by_key(run_cli(["-q", "-m", "RPP", "-m", "gRPP", "--test", "none", qrels, run_a, run_b]))
    assert got[("A:B", "RPP", "q1")] == "-0.3333"
    assert got[("A:B", "gRPP", "q1")] == "0.0000"
    at_two = values_by_key(run_cli(["-q", "-l", "2", "-m", "RPP", "--test", "none", qrels, run_a, run_b]))
    assert at_two[("A:B", "RPP", "q1")] == "1.0000"


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(collections(max_runs=4))
def test_rpp_matches_the_plain_reference(tmp_path_factory, collection):
    qrels, runs = collection
    if len(runs) < 2:
        runs = runs + [{"1": [("d00", 1.0)]}]
    tmp = tmp_path_factory.mktemp("rpp")
    qrels_path, run_paths = write_files(tmp, qrels, runs)
    for level in (1, 2):
        ev = evaluate(qrels_path, run_paths, ["all_preferences"], level=level, warn=lambda text: None)
        prefs = ev.preferences
        compared = [qid for qid in ev.qids if ref.num_rel(qrels[qid], level) > 0]
        assert prefs.pairs == list(combinations(range(len(runs)), 2))
        for pair_index, (a, b) in enumerate(prefs.pairs):
            for query_index, qid in enumerate(compared):
                judgements = qrels[qid]
                m = ref.num_rel(judgements, level)
                rank_a, rank_b = ref.ranked(runs[a].get(qid, [])), ref.ranked(runs[b].get(qid, []))
                p_a, p_b = ref.positions(rank_a, judgements, level), ref.positions(rank_b, judgements, level)
                for name, weighting in (("RPP", "uniform"), ("invRPP", "inverse"), ("dcgRPP", "dcg")):
                    want = ref.recall_paired(p_a, p_b, m, weighting)
                    got = prefs.values[name][pair_index, query_index]
                    assert got == pytest.approx(want, abs=1e-12), (name, qid, p_a, p_b)
                    graded = ref.graded_recall_paired(rank_a, rank_b, judgements, level, weighting)
                    got = prefs.values["g" + name][pair_index, query_index]
                    assert got == pytest.approx(graded, abs=1e-12), ("g" + name, qid, rank_a, rank_b)


def test_real_runs_against_the_reference():
    """DL 2019 passage runs (graded 0-3, top 20): every pair and query at -l 2."""
    real = DL19
    runs = sorted((real / "runs").glob("*.gz"))[:4]
    qrels, rankings = ref.read_collection(real / "qrels.txt", runs)
    ev = evaluate(str(real / "qrels.txt"), [str(p) for p in runs], ["recall_paired", "graded_rpp"], level=2,
                  warn=lambda text: None)
    compared = [qid for qid in ev.qids if ref.num_rel(qrels[qid], 2) > 0]
    checked = 0
    for pair_index, (a, b) in enumerate(ev.preferences.pairs):
        for query_index, qid in enumerate(compared):
            rank_a, rank_b = rankings[a].get(qid, []), rankings[b].get(qid, [])
            p_a, p_b = ref.positions(rank_a, qrels[qid], 2), ref.positions(rank_b, qrels[qid], 2)
            m = ref.num_rel(qrels[qid], 2)
            assert ev.preferences.values["invRPP"][pair_index, query_index] == \
                pytest.approx(ref.recall_paired(p_a, p_b, m, "inverse"), abs=1e-12)
            assert ev.preferences.values["gRPP"][pair_index, query_index] == \
                pytest.approx(ref.graded_recall_paired(rank_a, rank_b, qrels[qid], 2), abs=1e-12)
            checked += 1
    assert checked == 6 * len(compared)


def test_rpp_goes_everywhere_lp_goes(two_runs, tmp_path):
    """Summaries, _score/_rank lines, one-sample t-test, the gate, reports, formats."""
    qrels, a, b = two_runs
    result = run_cli(["-m", "invRPP", qrels, a, b])
    got = values_by_key(result)
    assert got[("A:B", "invRPP", "all")] == "0.3285"
    assert ("A:B", "invRPP_p", "all") in got and ("A:B", "invRPP_win", "all") not in got
    assert got[("A", "invRPP_rank", "all")] == "1" and got[("B", "invRPP_rank", "all")] == "2"
    assert got[("A", "invRPP_score", "all")] == "0.3285"
    gate = run_cli(["-m", "map", "--baseline", "A", "--gate", "invRPP", qrels, a, b])
    assert gate.code == 0, gate.err           # one query: p = 1
    for output_format in ("json", "csv", "table", "markdown", "latex"):
        done = run_cli(["--format", output_format, "-m", "all_preferences", qrels, a, b])
        assert done.code == 0, (output_format, done.err)
    report = run_cli(["--report", "ties", "--report", "discrimination", "-m", "recall_paired", qrels, a, b])
    assert report.code == 0 and "ties\tRPP" in report.out
