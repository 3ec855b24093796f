"""Degenerate but valid inputs, each found crashing once: the value the
measure's definition gives, or a usage error that says why; an unexpected
error is exit status 3, never a traceback, never 1."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, write


@pytest.fixture
def no_relevant(tmp_path):
    """One query whose only judgement has grade 0, two runs."""
    qrels = write(tmp_path / "qrels", "1 0 a 0\n1 0 b 0\n")
    runs = [write(tmp_path / name, "1 Q0 a 1 2 t\n1 Q0 c 2 1 t\n") for name in ("run0", "run1")]
    return qrels, runs


@pytest.fixture
def binary(tmp_path):
    """Grades 0 and 1 only: nothing is relevant at -l 2."""
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 a 0\n")
    run0 = write(tmp_path / "run0", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n2 Q0 c 2 1 t\n")
    run1 = write(tmp_path / "run1", "1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n2 Q0 c 1 3 t\n")
    return qrels, [run0, run1]


def values(result, measure: str) -> list[str]:
    return [line.rsplit("\t", 1)[1] for line in result.lines() if line.split("\t")[-3].strip() == measure]


@pytest.mark.parametrize("options", [["-m", "G"], ["-m", "all_trec"]])
def test_g_without_any_positive_grade_is_zero(no_relevant, options):
    """trec_eval prints G 0.0000 when no judged document has a gain."""
    qrels, runs = no_relevant
    single = run_cli(options + [qrels, runs[0]])
    assert single.code == 0, single.err
    assert "G                     \tall\t0.0000" in single.lines()
    several = run_cli(options + [qrels, *runs])
    assert several.code == 0, several.err
    assert values(several, "G") == ["0.0000", "0.0000"]


@pytest.mark.parametrize("options", [["-l", "2", "-m", "G"], ["-c", "-l", "2", "-m", "G", "-m", "ndcg_rel"]])
def test_g_at_a_level_above_every_grade(binary, options):
    """G's gains are the grades, whatever -l says: pytrec_eval gives 1.0 and
    0.6309 for the two queries at -l 1 and at -l 2 (mean 0.8155)."""
    qrels, runs = binary
    result = run_cli(options + [qrels, *runs])
    assert result.code == 0, result.err
    assert values(result, "G") == ["0.8155", "0.8155"]


@pytest.mark.parametrize("gate", [["--gate", "rrLP"], ["--gate", "ndcg", "-J"],
                                  ["--gate", "LP", "--test", "randomization", "-n"]])
def test_gate_with_a_single_run_is_a_usage_error(binary, gate):
    qrels, runs = binary
    result = run_cli(["--baseline", "run0", *gate, qrels, runs[0]])
    assert result.code == 2 and result.out == ""
    assert "lexeval: error: --gate compares runs with the baseline: give two or more runs" in result.err


@pytest.mark.parametrize("gate", [["--gate", "rrLP"], ["--gate", "ndcg", "-J"],
                                  ["--gate", "LP", "--test", "randomization", "-n"]])
def test_gate_without_compared_queries_passes(no_relevant, gate):
    """No query has a relevant document: every run ties, p = 1, no failure."""
    qrels, runs = no_relevant
    result = run_cli(["--baseline", "run0", *gate, qrels, *runs])
    assert result.code == 0, result.err


def test_a_baseline_that_is_not_a_run_is_refused_with_one_run(binary):
    qrels, runs = binary
    result = run_cli(["--baseline", "bm25", qrels, runs[0]])
    assert result.code == 2 and "--baseline 'bm25' is not one of the runs: run0" in result.err


@pytest.mark.parametrize("options", [
    ["--report", "ties", "-l", "4", "-M", "1"],
    ["--report", "ties", "-l", "4", "-M", "1", "--hsd"],
    ["--report", "stability", "-l", "3", "-m", "infAP", "--hsd"],
    ["--report", "degradation", "-l", "2", "-M", "4"],
])
def test_reports_without_compared_queries_say_why(binary, options):
    qrels, runs = binary
    result = run_cli(options + [qrels, *runs])
    assert result.code == 2 and result.out == ""
    assert "lexeval: error: --report compares runs on the queries with a relevant document" in result.err


@pytest.mark.parametrize("options", [
    ["--report", "degradation", "-M", "4", "--samples", "2"],
    ["--report", "degradation", "-M", "4", "-m", "set_F", "--hsd", "--ci", "--baseline", "run0", "--samples", "2"],
    ["--report", "stability", "-m", "infAP", "--hsd", "--trials", "10"],
    ["--report", "ties", "-M", "1", "--hsd"],
])
def test_reports_on_few_queries(binary, options):
    qrels, runs = binary
    result = run_cli(options + [qrels, *runs])
    assert result.code == 0, result.err
    assert result.out


def test_stability_with_one_compared_query(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    runs = [write(tmp_path / "r0", "1 Q0 a 1 2 t\n"), write(tmp_path / "r1", "1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")]
    result = run_cli(["--report", "stability", "-m", "recip_rank", "-m", "LP", "--trials", "10", qrels, *runs])
    assert result.code == 0, result.err
    assert "stability\tLP                    \tall\t1.0000" in result.lines()


def test_effect_size_of_constant_differences_is_nan(tmp_path):
    """Every per-query difference equal and not 0: the standard deviation is
    0 and the standardized effect is undefined (nan), as documented."""
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 a 1\n")
    run0 = write(tmp_path / "r0", "1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n")
    run1 = write(tmp_path / "r1", "1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n2 Q0 b 1 2 t\n2 Q0 a 2 1 t\n")
    result = run_cli(["--ci", "-m", "recip_rank", "--format", "json", qrels, run0, run1])
    assert result.code == 0, result.err
    records = {r["measure"]: r["value"] for r in map(json.loads, result.lines()) if r["key"] == "r0:r1"}
    assert records["recip_rank_effect"] is None or records["recip_rank_effect"] != records["recip_rank_effect"]
    assert records["recip_rank_p"] == 0.0 or records["recip_rank_p"] <= 1


def test_an_unexpected_error_is_exit_status_3(binary, monkeypatch):
    import lexeval.evaluation

    def broken(*args, **kwargs):
        raise ZeroDivisionError("something no one expected")
    monkeypatch.setattr(lexeval.evaluation, "evaluate_rankings", broken)
    qrels, runs = binary
    result = run_cli(["--format", "table", qrels, *runs])
    assert result.code == 3
    assert result.out == ""
    assert "Traceback" not in result.err
    assert "lexeval: internal error: ZeroDivisionError: something no one expected" in result.err
    assert "please report it" in result.err


def test_click_usage_errors_read_like_every_other_error(binary):
    qrels, runs = binary
    result = run_cli(["--no-such-option", qrels, *runs])
    assert result.code == 2 and result.out == ""
    assert "lexeval: error: No such option '--no-such-option'" in result.err
    result = run_cli(["--format", "yaml", qrels, *runs])
    assert result.code == 2 and "lexeval: error: Invalid value for '--format'" in result.err


def test_many_runs_lacking_queries_are_summed_up(tmp_path):
    """110 runs, each lacking 1-7 of 20 queries: two lines, not 110; the
    classic padded-qid run still gets its own line; --verbose lists all."""
    qids = [str(q) for q in range(1, 21)]
    qrels = write(tmp_path / "qrels", "".join(f"{q} 0 d{q} 1\n" for q in qids))
    runs = []
    for index in range(110):
        lacking = 1 + index % 7
        lines = "".join(f"{q} Q0 d{q} 1 1.0 t\n" for q in qids[lacking:])
        runs.append(write(tmp_path / "runs" / f"run{index:03d}", lines))
    padded = write(tmp_path / "runs" / "padded", "".join(f"0{q} Q0 d{q} 1 1.0 t\n" for q in qids))
    result = run_cli(["-m", "map", "--test", "none", qrels, *runs, padded])
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert lines == [
        f"lexeval: {padded}: warning: none of its queries is in the qrels (first: \"01\"): it scores 0",
        f"lexeval: warning: 110 of 111 runs lack qrels queries (most: {runs[6]} lacks 7 of the 20, "
        "first: \"1\"); --verbose lists every run",
        "lexeval: note: a query a run lacks is left out of that run's averages (-c counts it) "
        "and is an empty ranking in comparisons",
        "lexeval: note: 1 qrels query with relevant documents in none of the runs (first: \"1\"): every run "
        "ties there in comparisons"]
    verbose = run_cli(["-m", "map", "--test", "none", "--verbose", qrels, *runs, padded])
    assert len(verbose.err.splitlines()) == 111 + 2
