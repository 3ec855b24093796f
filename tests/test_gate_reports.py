"""A gate any CI can read: JUnit XML, GitHub's job summary, one line when it
passes, the verdicts in JSON and CSV, and examples/ci/ run as a user would."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from conftest import CRANFIELD, EXAMPLES, ROOT, run_cli

from lexeval import evaluate

QRELS = CRANFIELD / "qrels.txt.gz"
BASE, WORSE, BETTER = (CRANFIELD / "runs" / f"{name}.gz" for name in ("bm25okapi", "tfidf_title", "bm25plus"))
GATE = ["-m", "map", "-m", "ndcg_cut.10", "-m", "LP", "--baseline", "bm25okapi", "--gate", "map",
        "--gate", "ndcg_cut.10", "--gate", "LP", "--correction", "holm"]


def _evaluate():
    from lexeval.stats.pairs import SignificanceOptions
    return evaluate(str(QRELS), [str(BASE), str(WORSE), str(BETTER)], ["map", "ndcg_cut.10", "LP"],
                    options=SignificanceOptions(baseline="bm25okapi", correction="holm"))


@pytest.fixture(scope="module")
def verdicts():
    return {(v.run, v.measure): v for v in _evaluate().gate_verdicts(["map", "ndcg_cut_10", "LP"])}


def test_junit_report(tmp_path, verdicts):
    report = tmp_path / "gate.xml"
    result = run_cli([*GATE, "--gate-report", report, QRELS, BASE, WORSE, BETTER])
    assert result.code == 1
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "6" and root.get("failures") == "3"
    suite = root.find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties == {"baseline": "bm25okapi", "gate test": "worse",
                          "test": "map, ndcg_cut_10 by t test; LP by sign test", "alpha": "0.05",
                          "correction": "holm", "margin": "0", "confidence": "0.95"}
    cases = {(case.get("name"), case.get("classname")): case for case in suite.findall("testcase")}
    assert len(cases) == 6
    failed = cases[("tfidf_title", "lexeval.gate.map")].find("failure")
    want = verdicts[("tfidf_title", "map")]
    assert want.difference == pytest.approx(0.2064 - 0.2842, abs=1e-4) and not want.passed
    message = failed.get("message")
    for part in ("tfidf_title", "bm25okapi", "map", f"{want.difference:+.4f}", f"[{want.ci_low:.4f}, "
                 f"{want.ci_high:.4f}]", f"p = {want.p:.4g}", "alpha 0.05", "correction holm", "margin 0"):
        assert part in message, part
    assert "run value: 0.2064" in failed.text and "baseline value: 0.2842" in failed.text
    passed = cases[("bm25plus", "lexeval.gate.map")]
    assert passed.find("failure") is None and "verdict: pass" in passed.find("system-out").text
    # each verdict names its own test: LP and LR by the sign test
    lp = cases[("tfidf_title", "lexeval.gate.LP")].find("failure").text
    assert "test: sign" in lp and "test: t" in failed.text
    assert "(0.5 sd of the differences, Cohen's medium effect" in failed.text


def test_the_interval_is_the_t_interval_of_the_difference(verdicts):
    """Without --ci the gate still reports the difference's 95% t interval:
    the same as --ci prints for the pair."""
    from scipy import stats
    ev = _evaluate()
    values = ev.column("map").values[:, ev.compared]
    differences = values[1] - values[0]
    low, high = stats.t.interval(0.95, len(differences) - 1, loc=differences.mean(),
                                 scale=stats.sem(differences))
    verdict = verdicts[("tfidf_title", "map")]
    assert (verdict.ci_low, verdict.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_github_step_summary(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier steps' text\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli([*GATE, QRELS, BASE, WORSE, BETTER])
    assert result.code == 1
    text = summary.read_text()
    assert text.startswith("earlier steps' text\n### lexeval gate: FAILED, 3 of 6")
    rows = [line for line in text.splitlines() if line.startswith("| bm25okapi |")]
    assert len(rows) == 6
    assert rows[0].startswith("| bm25okapi | tfidf_title | map | 0.2842 | 0.2064 | -0.0779 |")
    assert rows[0].endswith("| **fail** |") and rows[1].endswith("| pass |")


def test_a_passing_gate_says_so_in_one_line():
    result = run_cli([*GATE, "--alpha", "0.01", QRELS, BASE, BETTER])
    assert result.code == 0
    lines = result.err.splitlines()
    assert lines == ["lexeval: gate passed: 1 run x 3 measures (map, ndcg_cut_10, LP) against bm25okapi: none worse "
                     "by more than margin 0 with p < alpha 0.01 (map, ndcg_cut_10 by t test; LP by sign test, "
                     "correction holm)"]


def test_a_failure_names_margin_and_alpha():
    result = run_cli([*GATE, "--gate-margin", "0.01", QRELS, BASE, WORSE])
    assert result.code == 1
    warning, first = result.err.splitlines()[:2]           # a margin this small is beyond the gate's power
    assert warning.startswith("lexeval: warning: the gate's power is below 0.8")
    assert first.startswith("lexeval: gate failed: tfidf_title is worse than bm25okapi on map: difference -0.0779 "
                            "(95% CI [")
    assert first.endswith("< alpha 0.05 (correction holm), margin 0.01")


@pytest.mark.parametrize("output_format", ["json", "csv"])
def test_json_and_csv_carry_the_verdicts(output_format):
    result = run_cli([*GATE, "--format", output_format, QRELS, BASE, WORSE, BETTER])
    assert result.code == 1
    if output_format == "json":
        records = [json.loads(line) for line in result.out.splitlines()]
    else:
        records = list(csv.DictReader(io.StringIO(result.out)))
    gate = [(r["key"], r["measure"], r["qid"], r["value"]) for r in records if r["measure"].startswith("gate_")]
    assert gate == [("tfidf_title", "gate_map", "all", "fail"), ("bm25plus", "gate_map", "all", "pass"),
                    ("tfidf_title", "gate_ndcg_cut_10", "all", "fail"), ("bm25plus", "gate_ndcg_cut_10", "all", "pass"),
                    ("tfidf_title", "gate_LP", "all", "fail"), ("bm25plus", "gate_LP", "all", "pass")]


def test_text_output_is_unchanged_by_the_gate():
    gated = run_cli([*GATE, QRELS, BASE, BETTER])
    plain = run_cli([*GATE[:-8], "--correction", "holm", QRELS, BASE, BETTER])
    assert gated.out == plain.out


@pytest.mark.parametrize("where", ["folder", "missing", "read-only"])
def test_a_report_that_cannot_be_written_is_an_error_before_any_output(tmp_path, where):
    if where == "folder":
        target = tmp_path
    elif where == "missing":
        target = tmp_path / "no" / "such" / "gate.xml"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes anywhere")
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "gate.xml"
    result = run_cli([*GATE, "--gate-report", target, QRELS, BASE, WORSE])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"lexeval: error: --gate-report {target}: ")


@pytest.mark.parametrize("mistake", [["--baseline", "bm25"], ["--baseline", "bm25okapi", "--alpha", "2"],
                                     ["--baseline", "bm25okapi", "--no-such-option"]])
def test_a_gate_that_cannot_decide_still_reports_to_ci(tmp_path, mistake):
    """Exit 2 (a wrong baseline, a bad value, an unknown option) still leaves
    a JUnit report: one error test case naming the message."""
    report = tmp_path / "gate.xml"
    result = run_cli(["--gate", "map", "--gate-report", report, *mistake, QRELS, BASE, WORSE])
    assert result.code == 2 and result.out == ""
    message = result.err.strip().splitlines()[-1].removeprefix("lexeval: error: ")
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("1", "1", "0")
    error = root.find("testsuite/testcase/error")
    assert error.get("message") == message and message in error.text


def test_a_report_without_a_gate_is_a_usage_error(tmp_path):
    result = run_cli(["--gate-report", tmp_path / "x.xml", QRELS, BASE, WORSE])
    assert result.code == 2 and "--gate-report" in result.err and not (tmp_path / "x.xml").exists()


def _workflow_command(path: Path) -> str:
    """The lexeval command of a CI example (the step that runs lexeval)."""
    import yaml
    document = yaml.safe_load(path.read_text())
    if "jobs" in document:
        steps = [step.get("run", "") for job in document["jobs"].values() for step in job["steps"]]
    else:
        steps = [line for job in document.values() for line in job["script"]]
    return next(step for step in steps if step.strip().startswith("lexeval "))


@pytest.mark.parametrize("example", ["github-actions.yml", "gitlab-ci.yml"])
def test_the_ci_examples_run_on_another_repositorys_files(example, tmp_path):
    """The examples' lexeval command, run in a folder of 'another repository'
    with its own paths, as the CI job would: the report and summary appear."""
    import yaml
    document = yaml.safe_load((EXAMPLES / "ci" / example).read_text())
    variables = document["env"] if "env" in document else document["retrieval-gate"]["variables"]
    assert {"LEXEVAL_SOURCE", "QRELS", "BASELINE", "CANDIDATE"} <= set(variables)
    repo = tmp_path / "their-repo"
    for key in ("QRELS", "BASELINE", "CANDIDATE"):
        (repo / variables[key]).parent.mkdir(parents=True, exist_ok=True)
    (repo / variables["QRELS"]).write_bytes(gzip.decompress(QRELS.read_bytes()))
    (repo / variables["BASELINE"]).write_bytes(BASE.read_bytes())
    (repo / variables["CANDIDATE"]).write_bytes(WORSE.read_bytes())
    environment = {**os.environ, **{k: str(v) for k, v in variables.items()},
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    done = subprocess.run(["bash", "-c", _workflow_command(EXAMPLES / "ci" / example)], cwd=repo,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "gate failed: candidate is worse than baseline on map" in done.stderr
    assert ET.parse(repo / "lexeval-gate.xml").getroot().get("failures") == "3"
    assert "| baseline | candidate | map |" in (tmp_path / "summary.md").read_text()


def test_gate_sh_from_another_folder_on_bz2_copies(tmp_path):
    """gate.sh QRELS BASELINE CANDIDATE... from any folder, any names and
    compressions; two candidates with one file name are told apart."""
    elsewhere = tmp_path / "work"
    (elsewhere / "new").mkdir(parents=True)
    (elsewhere / "old").mkdir()
    (elsewhere / "judgements.bz2").write_bytes(bz2.compress(gzip.decompress(QRELS.read_bytes())))
    for folder, run in (("old", BASE), ("new", WORSE)):
        (elsewhere / folder / "input.system.run.bz2").write_bytes(bz2.compress(gzip.decompress(run.read_bytes())))
    (elsewhere / "better.trec.bz2").write_bytes(bz2.compress(gzip.decompress(BETTER.read_bytes())))
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   "GATE_MEASURES": "map LP", "GATE_REPORT": "reports.xml"}
    environment.pop("GITHUB_STEP_SUMMARY", None)
    script = shlex.quote(str(ROOT / "examples" / "ci" / "gate.sh"))
    done = subprocess.run(["bash", "-c", f"{script} judgements.bz2 old/input.system.run.bz2 "
                           "new/input.system.run.bz2 better.trec.bz2"],
                          cwd=elsewhere, env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "gate failed: system.run-2 is worse than system.run on map" in done.stderr
    cases = ET.parse(elsewhere / "reports.xml").getroot().find("testsuite").findall("testcase")
    assert sorted((c.get("name"), c.get("classname"), c.find("failure") is None) for c in cases) == [
        ("better.trec", "lexeval.gate.LP", True), ("better.trec", "lexeval.gate.map", True),
        ("system.run-2", "lexeval.gate.LP", False), ("system.run-2", "lexeval.gate.map", False)]
    usage = subprocess.run(["bash", str(ROOT / "examples" / "ci" / "gate.sh"), "only-qrels"],
                           capture_output=True, text=True)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: gate.sh QRELS BASELINE CANDIDATE")


# ---------------------------------------------------------------- non-inferiority and power


def _differences(ev, measure: str, run: int, baseline: int = 0):
    values = ev.column(measure).values[:, ev.compared]
    return values[run] - values[baseline]


def test_non_inferiority_p_is_the_one_sided_t_test():
    from scipy import stats
    ev = _evaluate()
    verdicts = {(v.run, v.measure): v for v in ev.gate_verdicts(["map", "ndcg_cut_10"], 0.01, "non-inferiority")}
    raw = {}
    for measure in ("map", "ndcg_cut_10"):
        for run, index in (("tfidf_title", 1), ("bm25plus", 2)):
            raw[run] = stats.ttest_1samp(_differences(ev, measure, index) + 0.01, 0.0, alternative="greater").pvalue
        holm = sorted(raw.values())
        want = {run: min(1.0, max(holm[0] * 2, holm[1])) if p == holm[1] else min(1.0, holm[0] * 2)
                for run, p in raw.items()}
        for run in raw:
            assert verdicts[(run, measure)].p == pytest.approx(want[run], rel=1e-9, abs=1e-300)
    assert not verdicts[("tfidf_title", "map")].passed and verdicts[("bm25plus", "map")].passed


@pytest.mark.parametrize("seed", range(8))
def test_gate_power_equals_statsmodels(seed):
    """The power of the gate's test and the queries 0.8 needs, against
    statsmodels' TTestPower on random effects, sizes and levels."""
    power_module = pytest.importorskip("statsmodels.stats.power")
    from lexeval.stats.gate import gate_power
    rng = np.random.default_rng(seed)
    spread, queries, alpha = rng.uniform(0.05, 0.4), int(rng.integers(5, 400)), float(rng.choice([0.01, 0.05, 0.1]))
    drop = spread * rng.uniform(0.05, 0.8)
    for gate_test, alternative in (("worse", "two-sided"), ("non-inferiority", "larger")):
        power, needed = gate_power(drop, spread, queries, alpha, gate_test)
        analysis = power_module.TTestPower()
        want = analysis.power(effect_size=drop / spread, nobs=queries, alpha=alpha, alternative=alternative)
        if np.isnan(want):              # scipy's noncentral t fails far in its tail (both tools use it)
            assert power > 0.999
            continue
        assert power == pytest.approx(want, abs=1e-9)
        # the queries 0.8 needs, whether more or fewer than those at hand: the smallest n whose power reaches it
        # (statsmodels' power of n, not its numeric solver, whose tolerance varies between versions)
        at_needed, below = (analysis.power(effect_size=drop / spread, nobs=n, alpha=alpha, alternative=alternative)
                            for n in (needed, max(needed - 1, 2)))
        assert at_needed >= 0.8 - 1e-12
        assert needed == 2 or below < 0.8 + 1e-12
        exact = analysis.solve_power(effect_size=drop / spread, power=0.8, alpha=alpha, alternative=alternative)
        assert abs(needed - exact) <= 1.01


def test_a_weak_gate_warns_how_many_queries_it_needs():
    result = run_cli(["-m", "map", "--baseline", "bm25okapi", "--gate", "map", "--gate-margin", "0.002", QRELS, BASE,
                      BETTER])
    assert result.code == 0
    warning, passed = result.err.splitlines()
    assert warning.startswith("lexeval: warning: the gate's power is below 0.8 for 1 of 1 run and measure pairs; "
                              "lowest 0.")
    assert warning.endswith("queries would give 0.8") and passed.startswith("lexeval: gate passed:")


def test_non_inferiority_on_the_command_line(tmp_path):
    report = tmp_path / "gate.xml"
    result = run_cli(["-m", "map", "--baseline", "bm25okapi", "--gate", "map", "--gate-test", "non-inferiority",
                      "--gate-margin", "0.01", "--gate-report", report, QRELS, BASE, WORSE, BETTER])
    assert result.code == 1
    assert "gate failed: tfidf_title is not shown non-inferior to bm25okapi on map within margin 0.01" in result.err
    suite = ET.parse(report).getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["gate test"] == "non-inferiority" and properties["margin"] == "0.01"
    passed = [case for case in suite.findall("testcase") if case.get("name") == "bm25plus"][0]
    assert "gate test: non-inferiority" in passed.find("system-out").text
    assert "power: " in passed.find("system-out").text
    no_margin = run_cli(["--baseline", "bm25okapi", "--gate", "map", "--gate-test", "non-inferiority", QRELS, BASE,
                         BETTER])
    assert no_margin.code == 2 and "needs --gate-margin D > 0" in no_margin.err and no_margin.out == ""
