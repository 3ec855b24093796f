"""The power report against statsmodels on random inputs: V_E as the
residual mean square of the two-way additive model, queries for a paired
t-test (TTestPower) and a one-way ANOVA (FTestAnovaPower), the minimum
detectable difference, each pair's achieved power."""

import numpy as np
import pytest
from conftest import CRANFIELD, run_cli

from lexeval.reports.power import minimum_detectable, residual_variance
from lexeval.stats.power import anova_power, smallest, t_power

power_module = pytest.importorskip("statsmodels.stats.power")

QRELS = CRANFIELD / "qrels.txt.gz"
RUNS = [CRANFIELD / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200", "tfidf_title")]


@pytest.mark.parametrize("seed", range(5))
def test_residual_variance_is_the_additive_models(seed):
    smf = pytest.importorskip("statsmodels.formula.api")
    pandas = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    runs, queries = int(rng.integers(2, 6)), int(rng.integers(3, 30))
    scores = rng.random((runs, queries)) + rng.random((runs, 1))
    frame = pandas.DataFrame({"y": scores.ravel(), "run": np.repeat(np.arange(runs), queries),
                              "query": np.tile(np.arange(queries), runs)})
    fitted = smf.ols("y ~ C(run) + C(query)", data=frame).fit()
    assert residual_variance(scores) == pytest.approx(fitted.mse_resid, rel=1e-10)


@pytest.mark.parametrize("seed", range(12))
def test_queries_and_detectable_differences_equal_statsmodels(seed):
    rng = np.random.default_rng(100 + seed)
    variance = rng.uniform(0.002, 0.1)
    sd = np.sqrt(2 * variance)
    delta = sd * rng.uniform(0.1, 1.2)
    alpha, wanted = float(rng.choice([0.01, 0.05, 0.1])), float(rng.choice([0.7, 0.8, 0.9]))
    runs, queries = int(rng.integers(2, 20)), int(rng.integers(10, 300))
    t_analysis, f_analysis = power_module.TTestPower(), power_module.FTestAnovaPower()
    # statsmodels' power functions (not its numeric solvers, whose tolerance differs between versions): the
    # queries found are the first whose power reaches the wish, and the detectable difference has that power
    def t_powered(n, effect=delta / sd):
        return t_analysis.power(effect_size=effect, nobs=n, alpha=alpha, alternative="two-sided")
    needed = smallest(lambda n: t_power(delta, sd, n, alpha), wanted)
    assert t_powered(needed) >= wanted and (needed <= 2 or t_powered(needed - 1) < wanted)
    effect = delta / np.sqrt(2 * runs * variance)

    def f_powered(n):
        return f_analysis.power(effect_size=effect, nobs=runs * n, alpha=alpha, k_groups=runs)
    groups = smallest(lambda n: anova_power(delta, variance, runs, n, alpha), wanted)
    assert f_powered(groups) >= wanted and (groups <= 2 or f_powered(groups - 1) < wanted)
    assert anova_power(delta, variance, runs, queries, alpha) == pytest.approx(f_powered(queries), abs=1e-9)
    detectable = minimum_detectable(sd, queries, alpha, wanted)
    assert t_powered(queries, detectable / sd) == pytest.approx(wanted, abs=1e-7)


def test_the_report_on_cranfield():
    result = run_cli(["--report", "power", "-m", "map", "-m", "LP", "--delta", "0.05", "--power", "0.9", QRELS, *RUNS])
    assert result.code == 0, result.err
    lines = {(f[1].strip(), f[2]): float(f[3]) for f in (line.split("\t") for line in result.out.splitlines())}
    assert {(name, "V_E") for name in ("map", "LP", "recip_rank")} <= set(lines)
    from lexeval import evaluate
    ev = evaluate(str(QRELS), [str(r) for r in RUNS], ["map"])
    scores = ev.column("map").values[:, ev.compared]
    variance = residual_variance(scores)
    assert lines[("map", "V_E")] == pytest.approx(round(variance, 4), abs=5e-5)
    sd = np.sqrt(2 * variance)
    exact = power_module.TTestPower().solve_power(effect_size=0.05 / sd, power=0.9, alpha=0.05)
    assert lines[("map", "queries_t@0.05")] == np.ceil(exact)
    differences = scores[0] - scores[1]
    achieved = power_module.TTestPower().power(effect_size=abs(differences.mean()) / differences.std(ddof=1),
                                               nobs=len(differences), alpha=0.05)
    assert lines[("map", "achieved:bm25okapi:lsi200")] == pytest.approx(achieved, abs=5e-5)


@pytest.mark.parametrize("args,message", [(["--delta", "0"], "--delta is a difference to detect"),
                                          (["--delta", "-0.1"], "--delta"),
                                          (["--power", "1"], "--power must be in (0, 1)"),
                                          (["--power", "0"], "--power must be in (0, 1)")])
def test_bad_power_options(args, message):
    result = run_cli(["--report", "power", *args, QRELS, *RUNS[:2]])
    assert result.code == 2 and result.out == "" and message in result.err


def test_the_power_figure(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_cli(["--report", "power", "--plot", tmp_path / "figures", "-m", "map", QRELS, *RUNS[:2]])
    assert result.code == 0, result.err
    for suffix in ("png", "svg"):
        figure = tmp_path / "figures" / f"power_queries.{suffix}"
        assert figure.stat().st_size > 5000
    assert "queries needed" in (tmp_path / "figures" / "power_queries.svg").read_text()
