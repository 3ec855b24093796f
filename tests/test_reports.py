"""The analysis reports against plain computations, reproducibility, plots."""

import itertools
import math

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli
from scipy import stats
from test_significance import hsd_by_hand

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = [EXAMPLES / "cranfield" / "runs" / f"{n}.gz" for n in ("bm25okapi", "lsi200", "tfidf_title", "pisa_qld")]
MEASURES = ["-m", "recip_rank", "-m", "map", "-m", "LP", "-m", "rrLP"]


def report(*names, extra=()):
    args = [a for name in names for a in ("--report", name)]
    result = run_cli(args + MEASURES + list(extra) + [QRELS, *RUNS])
    assert result.code == 0, result.err
    lines = {}
    for line in result.lines():
        key, measure, parameter, value = line.split("\t")
        lines[(key, measure.strip(), parameter)] = float(value)
    return lines, result


@pytest.fixture(scope="module")
def evaluation():
    from lexeval import evaluate
    return evaluate(str(QRELS), [str(r) for r in RUNS], ["recip_rank", "map", "LP", "rrLP"])


def differences(ev):
    """Per measure, a list over pairs of per-query differences (plain loops)."""
    out = {}
    for name in ("recip_rank", "map"):
        values = ev.column(name).values
        out[name] = [[values[a, q] - values[b, q] for q in range(len(ev.qids))] for a, b in ev.pairs]
    for name in ("LP", "rrLP"):
        out[name] = [list(row) for row in ev.preferences.values[name]]
    return out


def test_ties_and_agreement_by_hand(evaluation):
    lines, _ = report("ties", "agreement")
    diffs = differences(evaluation)
    for name, rows in diffs.items():
        cases = [d for row in rows for d in row]
        assert lines[("ties", name, "all")] == pytest.approx(100 * sum(d == 0 for d in cases) / len(cases), abs=5e-5)
        if name == "recip_rank":
            continue
        agree = total = 0
        for row, reference_row in zip(rows, diffs["recip_rank"]):
            for d, r in zip(row, reference_row):
                if r != 0:
                    total += 1
                    agree += np.sign(d) == np.sign(r)
        assert lines[("agreement", name, "ranking")] == pytest.approx(100 * agree / total, abs=5e-5)
        means = [(np.mean(row), np.mean(r)) for row, r in zip(rows, diffs["recip_rank"]) if np.mean(r) != 0]
        system = 100 * sum(np.sign(a) == np.sign(b) for a, b in means) / len(means)
        assert lines[("agreement", name, "system")] == pytest.approx(system, abs=5e-5)
    assert lines[("agreement", "LP", "ranking")] == 100.0     # LP never contradicts a reciprocal-rank preference


def test_lp_ties_by_level_and_deciding_level_by_hand(evaluation):
    lines, _ = report("ties")
    r = evaluation.rankings
    vectors = [[list(r.rel_rank[r.rel_starts[s]:r.rel_starts[s] + r.num_rel_ret[s]])
                for s in range(run * r.num_queries, (run + 1) * r.num_queries)] for run in range(r.num_runs)]
    m = r.num_rel_per_query
    tied_at, cases_at, decided = {}, {}, {}
    for a, b in itertools.combinations(range(r.num_runs), 2):
        for q in range(r.num_queries):
            pa = vectors[a][q] + [math.inf] * (m[q] - len(vectors[a][q]))
            pb = vectors[b][q] + [math.inf] * (m[q] - len(vectors[b][q]))
            for level in range(1, m[q] + 1):
                cases_at[level] = cases_at.get(level, 0) + 1
                tied_at[level] = tied_at.get(level, 0) + (pa[level - 1] == pb[level - 1])
            first = next((i for i, (x, y) in enumerate(zip(pa, pb), 1) if x != y), None)
            if first:
                decided[first] = decided.get(first, 0) + 1
    for level in cases_at:
        expected = 100 * tied_at[level] / cases_at[level]
        assert lines[("ties", "LP_level", str(level))] == pytest.approx(expected, abs=5e-5)
    total = sum(decided.values())
    for level, count in decided.items():
        assert lines[("ties", "LP_decided_at", str(level))] == pytest.approx(100 * count / total, abs=5e-5)


def test_discrimination_by_hand(evaluation):
    lines, _ = report("discrimination")
    diffs = differences(evaluation)
    pairs = evaluation.pairs
    for name, rows in diffs.items():
        if name == "LP":
            p = [stats.binomtest(sum(d > 0 for d in row), sum(d != 0 for d in row)).pvalue for row in rows]
        else:
            p = [stats.ttest_1samp(row, 0).pvalue for row in rows]
        assert lines[("discrimination", name, "test")] == pytest.approx(100 * np.mean(np.array(p) < 0.05), abs=5e-5)
        scores = evaluation.column(name).values if name in ("recip_rank", "map") else \
            evaluation.run_preference_scores(name)
        hsd = [hsd_by_hand(scores, a, b) for a, b in pairs]
        assert lines[("discrimination", name, "hsd")] == pytest.approx(100 * np.mean(np.array(hsd) < 0.05), abs=5e-5)


def test_stability_by_hand(evaluation):
    lines, _ = report("stability", extra=["--trials", "50", "--seed", "4"])
    diffs = {name: np.array(rows) for name, rows in differences(evaluation).items()}
    queries = len(evaluation.qids)
    rng = np.random.default_rng(4)
    samples = [rng.choice(queries, size=queries // 2, replace=False) for _ in range(50)]
    for name, d in diffs.items():
        agree = [np.mean([np.sign(row[sample].sum()) == np.sign(row.sum()) for sample in samples]) for row in d]
        assert lines[("stability", name, "all")] == pytest.approx(np.mean(agree), abs=5e-5)
    rr = evaluation.column("recip_rank").values.mean(axis=1)
    tau = stats.kendalltau(evaluation.column("map").values.mean(axis=1), rr).statistic
    assert lines[("stability", "map", "tau")] == pytest.approx(tau, abs=5e-5)


def test_degradation_is_reproducible_and_full_labels_change_nothing():
    args = ("--fractions", "1,0.5", "--samples", "3", "--seed", "11")
    first, _ = report("degradation", "ties", extra=args)
    second, _ = report("degradation", extra=args)
    for key, value in second.items():
        assert first[key] == value
    assert first[("degradation", "LP_ties_mean", "1")] == first[("ties", "LP", "all")]
    assert first[("degradation", "LP_agreement_mean", "1")] == 100.0
    assert first[("degradation", "LP_ties_sd", "1")] == 0.0
    assert first[("degradation", "map_agreement_mean", "0.5")] < 100.0
    other, _ = report("degradation", extra=("--fractions", "0.5", "--samples", "3", "--seed", "13"))
    assert other[("degradation", "map_agreement_mean", "0.5")] != first[("degradation", "map_agreement_mean", "0.5")]


def test_degraded_rankings_keep_at_least_one_label(evaluation):
    from lexeval import load
    from lexeval.reports.degradation import degraded
    rankings = load(str(QRELS), [str(r) for r in RUNS], keep_rows=True)
    thin = degraded(rankings, rankings.qrels, 0.01, 0, 0)
    assert (thin.num_rel_per_query == 1).all()
    assert (thin.codes >= 1).sum() < (rankings.codes >= 1).sum()


def test_reports_need_two_runs():
    result = run_cli(["--report", "ties", QRELS, RUNS[0]])
    assert result.code == 2 and "two or more" in result.err


def test_plot_writes_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_cli(["--report", "ties", "--report", "degradation", "--samples", "2", "--plot", tmp_path]
                     + MEASURES + [QRELS, *RUNS])
    assert result.code == 0, result.err
    names = sorted(p.name for p in tmp_path.iterdir())
    for stem in ("ties_by_level", "deciding_level_ecdf", "degradation_ties", "degradation_agreement"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names


def test_plot_without_matplotlib_says_how_to_get_it(monkeypatch, tmp_path):
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    result = run_cli(["--report", "ties", "--plot", tmp_path, QRELS, *RUNS])
    assert result.code == 2 and "pip install 'lexeval[plot]'" in result.err
