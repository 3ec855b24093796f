"""--report judges: TREC AutoJudge's figures and what studies of machine
judgements add to them, against references written here from their
definitions (Urbano and Marrero's tau_AP,b; Gao and Oard's tau_GAP;
AutoJudge's per-topic qrels agreement, each figure by scikit-learn,
scipy or krippendorff on the topic's documents), against AutoJudge's own
modules where ``autojudge-evaluate`` is installed, and by enumeration for
the run groups' permutation test."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from conftest import CRANFIELD, EXAMPLES, run_cli
from test_judges import RUN_NAMES, per_query, read_qrels, read_run

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")
from scipy import stats  # noqa: E402

from lexeval.reports.judges_groups import permutation_p  # noqa: E402
from lexeval.stats import similarity as sim  # noqa: E402

OTHER = EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz"
SET = "qrels-perturbed.txt"


# ---------------------------------------------------------------- references from the definitions


def tau_ap_b_given(x: list[float], y: list[float]) -> float:
    """tau_AP,b(x | y), Urbano and Marrero (ICTIR 2017), item by item: each
    item with p > 0 items strictly above it in y scores the share of those
    that are strictly above it in x too."""
    total, counted = 0.0, 0
    for i in range(len(x)):
        above = [j for j in range(len(x)) if y[j] > y[i]]
        if above:
            total += sum(x[j] > x[i] for j in above) / len(above)
            counted += 1
    return 2 * total / counted - 1 if counted else 0.0


def tau_ap_b_reference(x, y) -> float:
    return (tau_ap_b_given(x, y) + tau_ap_b_given(y, x)) / 2


def tau_gap_reference(truth: list[float], predicted: list[float], names: list[str]) -> float:
    """tau_GAP (Gao and Oard, SIGIR 2015) down the predicted order, ties
    broken by name."""
    order = sorted(range(len(truth)), key=lambda k: (-predicted[k], names[k]))
    shares = []
    for i in range(1, len(order)):
        above = [truth[order[j]] - truth[order[i]] for j in range(i)]
        mass = sum(abs(gap) for gap in above)
        if mass > 0:
            shares.append(sum(gap for gap in above if gap > 0) / mass)
    return 2 * sum(shares) / len(shares) - 1 if shares else math.nan


def topic_agreement(first: dict[str, int], second: dict[str, int], level: int) -> dict[str, float]:
    """AutoJudge's per-topic figures: every document either set judges, one
    left out by a set counting as grade 0 there."""
    docs = sorted(set(first) | set(second))
    a = np.array([max(first.get(d, 0), 0) for d in docs])
    b = np.array([max(second.get(d, 0), 0) for d in docs])
    ra, rb = a >= level, b >= level
    tp, fp, fn = int((ra & rb).sum()), int((~ra & rb).sum()), int((ra & ~rb).sum())
    out = {}
    if tp + fp + fn:
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        out.update(precision=precision, recall=recall,
                   f1=2 * precision * recall / (precision + recall) if precision + recall else 0.0,
                   jaccard=tp / (tp + fp + fn))
    if len(set(ra)) > 1 or len(set(rb)) > 1:
        out["cohen_kappa"] = sklearn_metrics.cohen_kappa_score(ra, rb)
    top = 4
    if len(set(a)) > 1 or len(set(b)) > 1:
        out["kappa_linear"] = sklearn_metrics.cohen_kappa_score(a, b, weights="linear", labels=list(range(top + 1)))
    if len(set(a) | set(b)) > 1:
        out["krippendorff_alpha"] = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal")
    out["ari"] = sklearn_metrics.adjusted_rand_score(ra, rb)
    return out


def records(output: str) -> dict[tuple[str, str], float]:
    got = {}
    for line in output.splitlines():
        record = json.loads(line)
        got[(record["measure"], record["qid"])] = math.nan if record["value"] is None else float(record["value"])
    return got


# ---------------------------------------------------------------- the coefficients


def test_the_bundled_machine_judgements_are_the_scripts_output():
    import gzip
    import subprocess
    import sys
    made = subprocess.run([sys.executable, str(EXAMPLES / "perturb_qrels.py"), str(CRANFIELD / "qrels.txt.gz"),
                           "--seed", "2", "--flip", "0.1", "--drop", "0.05", "--lenient", "0.3"],
                          capture_output=True, check=True).stdout
    assert made == gzip.decompress((CRANFIELD / "qrels-llm.txt.gz").read_bytes())


def test_tau_ap_b_and_tau_gap_equal_their_definitions_with_ties():
    rng = np.random.default_rng(7)
    for trial in range(300):
        runs = int(rng.integers(3, 11))
        x = rng.integers(0, 4, runs).astype(float) if trial % 2 else rng.random(runs)
        y = rng.integers(0, 4, runs).astype(float) if trial % 3 else rng.random(runs)
        names = [f"r{k}" for k in range(runs)]
        assert sim.tau_ap_b(x[None], y[None])[0] == pytest.approx(tau_ap_b_reference(list(x), list(y)), abs=1e-12)
        assert sim.tau_gap(x[None], y[None])[0] == pytest.approx(tau_gap_reference(list(x), list(y), names),
                                                                 abs=1e-12, nan_ok=True)
    assert sim.tau_ap_b(np.ones((1, 4)), np.ones((1, 4)))[0] == 0.0        # every run ties at the top
    assert np.isnan(sim.tau_gap(np.ones((1, 4)), np.arange(4.0)[None])[0])   # no gap anywhere


def _autojudge_module(name: str):
    """One of autojudge-evaluate's modules, loaded from its file (its
    package's import reaches for NLTK data over the network)."""
    spec = importlib.util.find_spec("autojudge_evaluate")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("autojudge-evaluate is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / f"{name}.py"
    module_spec = importlib.util.spec_from_file_location(f"autojudge_{name}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def test_the_coefficients_equal_autojudge_evaluate_where_installed():
    ircore, gap = _autojudge_module("pyircore"), _autojudge_module("tau_gap")
    rng = np.random.default_rng(8)
    for trial in range(200):
        runs = int(rng.integers(3, 12))
        x = rng.integers(0, 5, runs).astype(float) if trial % 2 else rng.random(runs)
        y = rng.integers(0, 5, runs).astype(float) if trial % 3 else rng.random(runs)
        assert sim.tau_ap_b(x[None], y[None])[0] == pytest.approx(ircore.tauap_b(x, y), abs=1e-12)
        assert sim.tau_gap(x[None], y[None])[0] == pytest.approx(gap.tau_gap(list(x), list(y)), abs=1e-12,
                                                                 nan_ok=True)


def test_average_ranks_equal_scipy():
    rng = np.random.default_rng(10)
    for trial in range(100):
        x = rng.integers(0, 4, (6, int(rng.integers(1, 9)))).astype(float)
        if trial % 4 == 0:
            x[2, 0] = np.nan
        np.testing.assert_allclose(sim.average_ranks(x), stats.rankdata(x, axis=1), equal_nan=True)


def test_bootstrap_rows_equal_row_by_row():
    """Whole-array coefficients over many leaderboards (bootstrap draws, or
    queries) equal each row alone, chunked or not."""
    rng = np.random.default_rng(9)
    x, y = rng.integers(0, 3, (50, 7)).astype(float), rng.random((50, 7))
    for function in (sim.tau_ap_b, sim.tau_gap, sim.kendall_tau_b):
        whole = function(x, y)
        for row in range(0, 50, 7):
            assert whole[row] == pytest.approx(function(x[row:row + 1], y[row:row + 1])[0], nan_ok=True)


# ---------------------------------------------------------------- the report on the bundled runs


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory):
    folder = tmp_path_factory.mktemp("groups")
    groups = {name: ("bm25" if name.startswith("bm25") else "vector") for name in RUN_NAMES}
    (folder / "groups.tsv").write_text("# run\tgroup\n" + "".join(f"{r}\t{g}\n" for r, g in groups.items()))
    runs = [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES]
    result = run_cli(["--report", "judges", "--compare-qrels", OTHER, "--run-groups", folder / "groups.tsv",
                      "--top-runs", "4", "-m", "map", "-m", "P.10", "-q", "--format", "json",
                      CRANFIELD / "qrels.txt.gz", *runs])
    assert result.code == 0, result.err
    return records(result.out), read_qrels(CRANFIELD / "qrels.txt.gz"), read_qrels(OTHER), \
        [read_run(r) for r in runs], groups


def _boards(first, second, runs, measure):
    common = sorted(set(first) & set(second))
    per_run = [[per_query({q: qrels[q] for q in common}, run, measure) for run in runs] for qrels in (first, second)]
    boards = [[float(np.mean(list(values.values()))) for values in each] for each in per_run]
    return common, per_run, boards


@pytest.mark.parametrize("measure,trec_name", [("map", "map"), ("P_10", "P_10")])
def test_every_correlation_and_its_top_k(cranfield, measure, trec_name):
    got, first, second, runs, _ = cranfield
    _, _, (x, y) = _boards(first, second, runs, trec_name)
    top = sorted(sorted(range(len(x)), key=lambda r: -x[r])[:4])
    for suffix, chosen in (("", list(range(len(x)))), ("@4", top)):
        a, b = [x[r] for r in chosen], [y[r] for r in chosen]
        names = [RUN_NAMES[r] for r in chosen]
        assert got[(measure, f"tau_b{suffix}:{SET}")] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
        assert got[(measure, f"spearman{suffix}:{SET}")] == pytest.approx(stats.spearmanr(a, b).statistic,
                                                                          abs=1e-12)
        assert got[(measure, f"pearson{suffix}:{SET}")] == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
        assert got[(measure, f"tau_ap_b{suffix}:{SET}")] == pytest.approx(tau_ap_b_reference(a, b), abs=1e-12)
        assert got[(measure, f"tau_gap{suffix}:{SET}")] == pytest.approx(tau_gap_reference(a, b, names), abs=1e-12)


def test_per_query_leaderboards_equal_scipy(cranfield):
    got, first, second, runs, _ = cranfield
    common, (values_a, values_b), _ = _boards(first, second, runs, "map")
    taus = []
    for qid in common:
        a = [values.get(qid, 0.0) for values in values_a]
        b = [values.get(qid, 0.0) for values in values_b]
        if len(set(a)) < 2 or len(set(b)) < 2:
            assert ("map", f"query_tau_b:{SET}:{qid}") not in got         # undefined: left out, not NaN
            continue
        tau = stats.kendalltau(a, b).statistic
        taus.append(tau)
        assert got[("map", f"query_tau_b:{SET}:{qid}")] == pytest.approx(tau, abs=1e-12)
        assert got[("map", f"query_spearman:{SET}:{qid}")] == pytest.approx(stats.spearmanr(a, b).statistic,
                                                                            abs=1e-12)
    assert got[("map", f"query_tau_b_mean:{SET}")] == pytest.approx(np.mean(taus), abs=1e-12)
    assert got[("map", f"query_tau_b_below_0.5:{SET}")] == pytest.approx(np.mean(np.array(taus) < 0.5), abs=1e-12)


def test_per_topic_qrels_agreement_equals_autojudge_definitions(cranfield):
    got, first, second, _, _ = cranfield
    figures = defaultdict(list)
    for qid in sorted(set(first) & set(second)):
        for name, value in topic_agreement(first[qid], second[qid], 1).items():
            figures[name].append(value)
            assert got[("documents", f"{name}:{SET}:{qid}")] == pytest.approx(value, abs=1e-12), (qid, name)
    for name, values in figures.items():
        assert got[("documents", f"{name}_mean:{SET}")] == pytest.approx(np.mean(values), abs=1e-12), name
    assert set(figures) == {"precision", "recall", "f1", "jaccard", "cohen_kappa", "kappa_linear",
                            "krippendorff_alpha", "ari"}


def test_leniency_and_every_threshold_from_the_files(cranfield):
    got, first, second, _, _ = cranfield
    pairs = [(g, second[q][d]) for q in first if q in second for d, g in first[q].items()
             if d in second[q] and g >= 0 and second[q][d] >= 0]
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    assert got[("documents", f"mean_grade_difference:{SET}")] == pytest.approx((b - a).mean(), abs=1e-12)
    assert got[("documents", f"graded_up:{SET}")] == pytest.approx((b > a).mean(), abs=1e-12)
    assert got[("documents", f"graded_down:{SET}")] == pytest.approx((b < a).mean(), abs=1e-12)
    for grade in np.unique(a).tolist():
        assert got[("documents", f"mean_grade_given_{grade}:{SET}")] == pytest.approx(b[a == grade].mean(),
                                                                                       abs=1e-12)
    for threshold in range(1, int(max(a.max(), b.max())) + 1):
        x, y = a >= threshold, b >= threshold
        assert got[("documents", f"relevant_both_relevant_at_{threshold}:{SET}")] == (x & y).sum()
        assert got[("documents", f"relevant_only_first_at_{threshold}:{SET}")] == (x & ~y).sum()
        assert got[("documents", f"relevant_only_compared_at_{threshold}:{SET}")] == (~x & y).sum()
        assert got[("documents", f"relevant_neither_at_{threshold}:{SET}")] == (~x & ~y).sum()


def test_significance_errors_as_rates(cranfield):
    got = cranfield[0]
    for measure in ("map", "P_10"):
        counts = {name: got[(measure, f"{name}:{SET}")] for name in
                  ("same_significant", "opposite_significant", "only_first", "only_compared", "neither")}
        significant = counts["same_significant"] + counts["opposite_significant"] + counts["only_first"]
        assert got[(measure, f"false_positive_rate:{SET}")] == pytest.approx(
            counts["only_compared"] / (counts["only_compared"] + counts["neither"]))
        assert got[(measure, f"false_negative_rate:{SET}")] == pytest.approx(counts["only_first"] / significant)
        assert got[(measure, f"reversal_rate:{SET}")] == pytest.approx(counts["opposite_significant"] / significant)


def permutation_reference(values: list[float], first: list[bool]) -> float:
    """Every split of the values into groups of the same sizes."""
    size = sum(first)
    observed = abs(np.mean([v for v, f in zip(values, first) if f]) - np.mean([v for v, f in zip(values, first)
                                                                                if not f]))
    extreme = total = 0
    for chosen in itertools.combinations(range(len(values)), size):
        inside = [values[k] for k in chosen]
        outside = [values[k] for k in range(len(values)) if k not in chosen]
        extreme += abs(np.mean(inside) - np.mean(outside)) >= observed - 1e-12
        total += 1
    return extreme / total


def test_run_groups_changes_and_their_permutation_test(cranfield):
    got, first, second, runs, groups = cranfield
    _, _, (x, y) = _boards(first, second, runs, "map")
    change = np.subtract(y, x)
    place = lambda board: {r: k for k, r in enumerate(sorted(range(len(board)), key=lambda r: -board[r]))}  # noqa
    before, after = place(x), place(y)
    moves = [after[r] - before[r] for r in range(len(x))]
    in_bm25 = [groups[name] == "bm25" for name in RUN_NAMES]
    for group, inside in (("bm25", in_bm25), ("vector", [not f for f in in_bm25])):
        chosen = [r for r in range(len(x)) if inside[r]]
        assert got[("map", f"group_score_change:{SET}:{group}")] == pytest.approx(change[chosen].mean(), abs=1e-12)
        assert got[("map", f"group_rank_change:{SET}:{group}")] == pytest.approx(np.mean([moves[r] for r in chosen]))
        assert got[("map", f"group_runs:{SET}:{group}")] == len(chosen)
    assert got[("map", f"group_score_change_p:{SET}:bm25:vector")] == pytest.approx(
        permutation_reference(list(change), in_bm25), abs=1e-12)


def test_permutation_p_enumerates_or_draws():
    rng = np.random.default_rng(3)
    for _ in range(30):
        values = rng.normal(size=int(rng.integers(3, 9)))
        first = np.zeros(len(values), bool)
        first[rng.choice(len(values), int(rng.integers(1, len(values))), replace=False)] = True
        assert permutation_p(values, first, 10_000, 0) == pytest.approx(permutation_reference(list(values),
                                                                                              list(first)))
    values, first = np.arange(30.0), np.arange(30) < 15                    # too many splits: drawn
    drawn = permutation_p(values, first, 2000, 1)
    assert drawn == permutation_p(values, first, 2000, 1) and 0 < drawn < 0.01


def test_group_by_equals_the_same_groups_in_a_file(tmp_path):
    runs = [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES]
    (tmp_path / "groups").write_text("".join(f"{name}\t{name.split('_')[0]}\n" for name in RUN_NAMES))
    common = ["--report", "judges", "--compare-qrels", OTHER, "-m", "map", CRANFIELD / "qrels.txt.gz", *runs]
    by_name = run_cli([*common, "--group-by", "_"])
    by_file = run_cli([*common, "--run-groups", tmp_path / "groups"])
    assert by_name.code == by_file.code == 0, by_name.err + by_file.err
    assert by_name.out == by_file.out and "group_score_change_p" in by_name.out
    assert "-0.0000" not in by_name.out and "\t0.0000" in by_name.out     # a difference of nothing is not negative


def test_bad_run_groups_and_a_short_top(tmp_path):
    runs = [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES[:3]]
    common = ["--report", "judges", "--compare-qrels", OTHER, "-m", "map", CRANFIELD / "qrels.txt.gz", *runs]
    (tmp_path / "unknown").write_text("bm25okapi\ta\nnot_a_run\tb\nalso_not\tb\n")
    unknown = run_cli([*common, "--run-groups", tmp_path / "unknown"])
    assert unknown.code == 2 and "not_a_run, also_not" in unknown.err and not unknown.out
    (tmp_path / "bad").write_text("bm25okapi\ta\nlsi200\n")
    bad = run_cli([*common, "--run-groups", tmp_path / "bad"])
    assert bad.code == 2 and f"{tmp_path / 'bad'}:2" in bad.err
    (tmp_path / "twice").write_text("bm25okapi\ta\nbm25okapi\tb\n")
    assert run_cli([*common, "--run-groups", tmp_path / "twice"]).code == 2
    stray = run_cli(["--run-groups", tmp_path / "bad", "-m", "map", CRANFIELD / "qrels.txt.gz", *runs])
    assert stray.code == 2 and "add --report judges" in stray.err
    short = run_cli([*common, "--top-runs", "2"])
    assert short.code == 0 and "fewer than 3" in short.err
    assert "@2" not in short.out and "tau_ap_b:" in short.out
    (tmp_path / "partial").write_text("bm25okapi\ta\nlsi200\tb\n")
    partial = run_cli([*common, "--run-groups", tmp_path / "partial"])
    assert partial.code == 0 and "does not name tfidf_title" in partial.err


def test_measures_of_document_identities_and_diversity_under_other_judgements(tmp_path):
    """Found by the random option combinations: the other set is read as the
    first was, with documents' identities (the rareness measures) kept."""
    runs = [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES[:3]]
    result = run_cli(["--report", "judges", "--compare-qrels", OTHER, "-m", "P_rare.5", "-m", "map",
                      CRANFIELD / "qrels.txt.gz", *runs])
    assert result.code == 0, result.err
    assert "P_rare_5" in result.out and "tau_ap_b:" in result.out
