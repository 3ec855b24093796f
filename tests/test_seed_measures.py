"""tse and the rareness measures against the naive reference; alpha = 0
reproduces P and map."""

import math

import numpy as np
import reference as ref
from conftest import EXAMPLES, run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import collections, write_files

from lexeval import evaluate

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(collections(max_runs=4), st.sampled_from([0.0, 0.5, 1.0, 0.3]))
def test_seed_measures_match_naive_reference(tmp_path_factory, collection, alpha):
    qrels, runs = collection
    qrels_path, run_paths = write_files(tmp_path_factory.mktemp("r"), qrels, runs)
    ev = evaluate(qrels_path, run_paths, ["tse", "P_rare.1,3", "P_rare_norm.2", "map_rare"],
                  rarity_weight=alpha)
    for query_index, qid in enumerate(ev.qids):
        judgements = qrels[qid]
        rankings = [ref.ranked(run.get(qid, [])) for run in runs]
        for run_index, ranking in enumerate(rankings):
            want = {
                "tse": ref.total_search_efficiency(ranking, judgements),
                "P_rare_1": ref.rare_precision(ranking, judgements, rankings, 1, alpha),
                "P_rare_3": ref.rare_precision(ranking, judgements, rankings, 3, alpha),
                "P_rare_norm_2": ref.rare_precision_bounded(ranking, judgements, rankings, 2, alpha),
                "map_rare": ref.rare_average_precision(ranking, judgements, rankings, alpha),
            }
            for name, value in want.items():
                got = ev.column(name).values[run_index, query_index]
                assert math.isclose(got, value, abs_tol=1e-12), (name, qid, run_index, got, value)


def test_alpha_zero_reproduces_precision_and_map_on_cranfield():
    runs = [str(p) for p in sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))]
    ev = evaluate(str(EXAMPLES / "cranfield" / "qrels.txt.gz"), runs,
                  ["P.5,10,100", "P_rare.5,10,100", "P_rare_norm.5,10,100", "map", "map_rare"],
                  rarity_weight=0.0)
    for k in (5, 10, 100):
        np.testing.assert_array_equal(ev.column(f"P_rare_{k}").values, ev.column(f"P_{k}").values)
        np.testing.assert_array_equal(ev.column(f"P_rare_norm_{k}").values, ev.column(f"P_{k}").values)
    np.testing.assert_array_equal(ev.column("map_rare").values, ev.column("map").values)


def test_rarity_depends_on_the_runs_given_together(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 1\n")
    write(tmp_path / "solo", "1 Q0 a 1 2 s\n1 Q0 b 2 1 s\n")
    write(tmp_path / "other", "1 Q0 a 1 2 o\n")
    alone = run_cli(["-m", "P_rare.2", qrels, tmp_path / "solo"])
    together = run_cli(["-m", "P_rare.2", "--test", "none", qrels, tmp_path / "solo", tmp_path / "other"])
    assert alone.lines() == ["P_rare_2              \tall\t1.0000"]              # S = 1: R(d) = 0
    # with two runs: a is found by both (R = 0), b by solo only (R = 1/2): (1 + 1.25) / 2
    assert "solo\tP_rare_2              \tall\t1.1250" in together.lines()


def test_tse_by_hand(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 1\n2 0 c 1\n2 0 d 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 9 r\n1 Q0 x 2 8 r\n1 Q0 b 3 7 r\n2 Q0 c 1 9 r\n")
    result = run_cli(["-q", "-m", "tse", qrels, run])
    assert result.lines() == ["tse                   \t1\t0.3333", "tse                   \t2\t0.0000",
                              "tse                   \tall\t0.1667"]


def test_rareness_measures_get_tests_and_hsd():
    runs = [str(EXAMPLES / "cranfield" / "runs" / f"{n}.gz") for n in ("bm25okapi", "lsi200", "tfidf_title")]
    result = run_cli(["-m", "P_rare.10", "-m", "map_rare", "-m", "tse", "--hsd", "-c",
                      EXAMPLES / "cranfield" / "qrels.txt.gz", *runs])
    assert result.code == 0
    for name in ("P_rare_10_p", "P_rare_10_hsd_p", "map_rare_p", "tse_hsd_p"):
        assert any(f"\t{name:<22}\t" in line for line in result.lines()), name
