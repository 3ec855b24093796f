"""p-values against scipy's own tests, computed independently; the gate."""

import itertools
import shutil

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli
from scipy import stats

from lexeval import evaluate
from lexeval.stats import significance as sig
from lexeval.stats.conclusions import matrix_hsd, matrix_p_values
from lexeval.stats.pairs import SignificanceOptions


def one_sample_t(values):
    return matrix_p_values("t", values)


def sign_test(signs):
    return matrix_p_values("sign", signs)

RNG = np.random.default_rng(7)


def test_paired_t_matches_scipy():
    a, b = RNG.random((30, 40)), RNG.random((30, 40))
    want = [stats.ttest_rel(x, y).pvalue for x, y in zip(a, b)]
    np.testing.assert_allclose(one_sample_t(a - b), want, rtol=1e-10)


def test_one_sample_t_matches_scipy():
    values = RNG.normal(0.1, 1, (20, 25))
    want = [stats.ttest_1samp(row, 0).pvalue for row in values]
    np.testing.assert_allclose(one_sample_t(values), want, rtol=1e-10)


def test_sign_test_matches_binomtest():
    signs = RNG.integers(-1, 2, (50, 30))
    want = []
    for row in signs:
        wins, losses = int((row > 0).sum()), int((row < 0).sum())
        want.append(stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0)
    np.testing.assert_allclose(sign_test(signs), want, rtol=1e-10)


def test_degenerate_cases_give_one_never_nan():
    zeros = np.zeros((3, 10))
    assert one_sample_t(zeros).tolist() == [1.0] * 3
    assert sign_test(zeros).tolist() == [1.0] * 3
    assert matrix_p_values("randomization", zeros, 100).tolist() == [1.0] * 3
    single = RNG.random((4, 1))
    assert one_sample_t(single).tolist() == [1.0] * 4
    assert not np.isnan(matrix_hsd(np.ones((3, 5)), np.array([[0, 1], [1, 2]]))).any()


def holm_by_hand(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        adjusted[i] = running
    return adjusted


def test_holm_and_bonferroni():
    p = RNG.random(17) ** 3
    np.testing.assert_allclose(sig.correct(p, "holm"), holm_by_hand(list(p)))
    np.testing.assert_allclose(sig.correct(p, "bonferroni"), np.minimum(1, p * 17))
    np.testing.assert_array_equal(sig.correct(p, "none"), p)


def hsd_by_hand(scores, a, b):
    runs, queries = scores.shape
    grand = scores.mean()
    ss_error = sum((scores[r, q] - scores[r].mean() - scores[:, q].mean() + grand) ** 2
                   for r in range(runs) for q in range(queries))
    df = (runs - 1) * (queries - 1)
    q_stat = abs(scores[a].mean() - scores[b].mean()) / np.sqrt(ss_error / df / queries)
    return stats.studentized_range.sf(q_stat, runs, df)


def test_tukey_hsd_two_way_matches_hand_computation():
    scores = RNG.random((5, 12)) + np.linspace(0, 0.3, 5)[:, None]
    pairs = np.array(list(itertools.combinations(range(5), 2)))
    want = [hsd_by_hand(scores, a, b) for a, b in pairs]
    np.testing.assert_allclose(matrix_hsd(scores, pairs), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("groups,df", [(20, 400), (12, 44), (11, 20)])
def test_studentized_range_interpolation_is_accurate(groups, df):
    q = RNG.uniform(0, 9, 300)
    got = sig.StudentizedRange(groups, df).sf(q)          # many values: interpolated
    exact = stats.studentized_range.sf(q[:25], groups, df)
    np.testing.assert_allclose(got[:25], exact, atol=1e-5, rtol=1e-4)


def test_randomization_agrees_with_exact_enumeration():
    differences = RNG.normal(0.2, 1, (3, 10))
    flips = np.array(list(itertools.product([-1, 1], repeat=10)))
    exact = [np.mean(np.abs(flips @ d) >= abs(d.sum()) - 1e-12) for d in differences]
    got = matrix_p_values("randomization", differences, 20_000, seed=3)
    np.testing.assert_allclose(got, exact, atol=0.02)
    again = matrix_p_values("randomization", differences, 500, seed=9)
    assert (again == matrix_p_values("randomization", differences, 500, seed=9)).all()


CRANFIELD_QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"


def test_cli_p_values_equal_scipy_on_real_runs():
    runs = [EXAMPLES / "cranfield" / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200", "tfidf_title")]
    ev = evaluate(str(CRANFIELD_QRELS), [str(r) for r in runs], ["map", "LP", "rrLP"])
    table = ev.column("map").values
    for row, (a, b) in enumerate(ev.pairs):
        assert ev.tests.p["map"][row] == pytest.approx(stats.ttest_rel(table[a], table[b]).pvalue, rel=1e-9)
        lp = ev.preferences.values["LP"][row]
        wins, losses = int((lp > 0).sum()), int((lp < 0).sum())
        assert ev.tests.p["LP"][row] == pytest.approx(stats.binomtest(wins, wins + losses).pvalue, rel=1e-9)
        rr = ev.preferences.values["rrLP"][row]
        assert ev.tests.p["rrLP"][row] == pytest.approx(stats.ttest_1samp(rr, 0).pvalue, rel=1e-9)


def test_correction_covers_the_pairs_printed():
    runs = [str(EXAMPLES / "cranfield" / "runs" / f"{n}.gz") for n in ("bm25okapi", "lsi200", "tfidf_title")]
    plain = evaluate(str(CRANFIELD_QRELS), runs, ["map"])
    holm = evaluate(str(CRANFIELD_QRELS), runs, ["map"], options=SignificanceOptions(correction="holm"))
    np.testing.assert_allclose(holm.tests.p["map"], holm_by_hand(list(plain.tests.p["map"])))
    based = evaluate(str(CRANFIELD_QRELS), runs, ["map"],
                     options=SignificanceOptions(correction="bonferroni", baseline="lsi200"))
    assert based.pairs.tolist() == [[0, 1], [2, 1]]         # run:baseline
    np.testing.assert_allclose(based.tests.p["map"], np.minimum(1, 2 * plain.tests.p["map"][[0, 2]]))


def test_gate_fails_a_clearly_worse_run():
    result = run_cli([CRANFIELD_QRELS, EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz",
                      EXAMPLES / "cranfield" / "runs" / "tfidf_title.gz",
                      "--baseline", "bm25okapi", "--gate", "map", "--gate", "LP", "-m", "P.10"])
    assert result.code == 1
    failures = [line for line in result.err.splitlines() if "gate failed" in line]
    assert len(failures) == 2
    assert "tfidf_title is worse than bm25okapi on map: difference -0.0779" in failures[0]
    assert "on LP" in failures[1]
    assert "\tP_10_p" in result.out and "\tmap_p" in result.out      # gate measures are added


def test_gate_passes_an_identical_run(tmp_path):
    same = tmp_path / "candidate.gz"
    shutil.copy(EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz", same)
    result = run_cli([CRANFIELD_QRELS, EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz", same,
                      "--baseline", "bm25okapi", "--gate", "map", "--gate", "LP"])
    assert result.code == 0, result.err
    assert "candidate:bm25okapi\tmap_p                 \tall\t1" in result.lines()
    assert "candidate:bm25okapi\tLP                    \tall\t0.0000" in result.lines()


@pytest.mark.parametrize("where", [0, 1, 2])
def test_every_baseline_pair_is_run_minus_baseline(where):
    """With --baseline every pair is written run:baseline and every
    difference is run minus baseline, wherever the baseline stands on the
    command line: each line equals the same pair's line with the baseline
    given last, and the pair's line without a baseline, seen the other way
    where the baseline came first (means and intervals negated, wins and
    losses swapped, per query too)."""
    names = ["bm25okapi", "lsi200", "tfidf_title"]
    runs = [str(EXAMPLES / "cranfield" / "runs" / f"{n}.gz") for n in names]
    args = ["-q", "--ci", "--test", "randomization", "--permutations", "200", "--resamples", "50",
            "-m", "map", "-m", "P.10", "-m", "lexicographic", "--pair-metrics", CRANFIELD_QRELS]
    based = run_cli([*args, "--baseline", names[where], *runs])
    last = run_cli([*args, "--baseline", names[where], *runs[:where], *runs[where + 1:], runs[where]])
    plain = run_cli([*args, *runs])
    assert based.code == last.code == plain.code == 0, based.err + last.err + plain.err

    def pair_lines(result):
        lines = {}
        for line in result.lines():
            key, measure, qid, value = line.split("\t")
            if ":" in key:
                lines[(key, measure.strip(), qid)] = value
        return lines
    with_baseline, given_last, every = pair_lines(based), pair_lines(last), pair_lines(plain)
    assert with_baseline == given_last
    keys = {key for key, _, _ in with_baseline}
    assert keys == {f"{name}:{names[where]}" for name in names if name != names[where]}
    swapped = {"_win": "_loss", "_loss": "_win", "_ci_low": "_ci_high", "_ci_high": "_ci_low"}
    checked = 0
    for (key, measure, qid), value in with_baseline.items():
        assert value != "-0.0000", (key, measure, qid)
        run, baseline = key.split(":")
        if (key, measure, qid) in every:
            assert every[(key, measure, qid)] == value, (key, measure, qid)
            continue
        suffix = next((end for end in swapped if measure.endswith(end)), None)
        other = measure[:-len(suffix)] + swapped[suffix] if suffix else measure
        theirs = every[(f"{baseline}:{run}", other, qid)]
        if measure.endswith(("_p", "_tie", "_win", "_loss")):
            assert theirs == value, (key, measure, qid)
        else:
            assert float(theirs) == pytest.approx(-float(value), abs=1e-12), (key, measure, qid)
        checked += 1
    assert checked > 1000 if where < 2 else checked == 0


def test_gate_margin_tolerates_small_drops():
    args = [CRANFIELD_QRELS, EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz",
            EXAMPLES / "cranfield" / "runs" / "tfidf_title.gz", "--baseline", "bm25okapi", "--gate", "map"]
    assert run_cli(args + ["--gate-margin", "0.05"]).code == 1
    assert run_cli(args + ["--gate-margin", "0.1"]).code == 0


def test_gate_needs_a_baseline():
    result = run_cli([CRANFIELD_QRELS, EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz",
                      EXAMPLES / "cranfield" / "runs" / "lsi200.gz", "--gate", "map"])
    assert result.code == 2 and "--gate needs --baseline" in result.err


def run_gate_script(folder, *args):
    import os
    import subprocess
    import sys

    from conftest import ROOT
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(["bash", str(ROOT / "examples" / "ci" / "gate.sh"), *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=folder)


def test_ci_example_passes_a_better_candidate_and_fails_a_worse_one(tmp_path):
    runs = EXAMPLES / "cranfield" / "runs"
    passed = run_gate_script(tmp_path, CRANFIELD_QRELS, runs / "bm25okapi.gz", runs / "bm25plus.gz")
    assert passed.returncode == 0, passed.stderr
    assert passed.stderr.startswith("lexeval: gate passed: 1 run x 3 measures (map, ndcg_cut_10, LP) against "
                                    "bm25okapi")
    failed = run_gate_script(tmp_path, CRANFIELD_QRELS, runs / "bm25okapi.gz", runs / "tfidf_title.gz")
    assert failed.returncode == 1
    assert "gate failed: tfidf_title is worse than bm25okapi on map" in failed.stderr
    assert (tmp_path / "lexeval-gate.xml").exists()


def test_t_and_binomial_tails_equal_scipy():
    """lexeval computes the two tails itself (importing scipy.special costs
    more than a small evaluation); they must equal scipy's."""
    from scipy import special

    from lexeval.stats.distributions import binomial_lower_tail, t_two_sided
    rng = np.random.default_rng(7)
    for df in (2, 3, 5, 10, 24, 99, 224, 1000, 6979):
        t = np.concatenate([rng.normal(0, 4, 500), [0.0, 1e-6, -3.0, 12.0, 35.0, np.inf]])
        want = 2 * special.stdtr(df, -np.abs(t))
        np.testing.assert_allclose(t_two_sided(t, df), want, rtol=1e-11, atol=1e-300)
    for n in (1, 2, 7, 49, 225, 1000, 6980):
        k = np.arange(-1, n + 2)
        want = np.where(k < 0, 0.0, special.bdtr(np.clip(k, 0, n), n, 0.5))
        np.testing.assert_allclose(binomial_lower_tail(k, n), want, rtol=1e-10, atol=1e-300)
    # df = 1 has a closed form (scipy's own value is off by 3e-9 there)
    t = np.array([1e-8, 0.5, 1.0, 3.0, 1e3])
    np.testing.assert_allclose(t_two_sided(t, 1), 2 / np.pi * np.arctan(1 / t), rtol=1e-13)


def test_sign_test_tails_of_many_pairs_equal_one_at_a_time():
    """Half a million pairs over 50 queries have a few hundred (k, n): their
    tails are looked up in a table of every (k, n), not sorted; the same
    floats as computed one value at a time, and scipy's."""
    from scipy import special

    from lexeval.stats.distributions import binomial_lower_tail
    rng = np.random.default_rng(3)
    n = rng.integers(1, 51, 5000).astype(np.float64)
    k = np.floor(rng.random(5000) * (n + 2)) - 1            # -1 .. n: both ends too
    table = binomial_lower_tail(k, n)                         # 5,000 values >= 51 x 51 cells: the table
    one_by_one = np.array([binomial_lower_tail(k[i:i + 1], n[i:i + 1])[0] for i in range(0, 5000, 50)])
    np.testing.assert_array_equal(table[::50], one_by_one)
    counts = np.clip(k, 0, n).astype(np.int64)
    np.testing.assert_allclose(table, np.where(k < 0, 0.0, special.bdtr(counts, n.astype(np.int64), 0.5)), rtol=1e-12)
