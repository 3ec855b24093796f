"""Rank aggregation of per-query preferences (--aggregate mean|borda|mc4)
against plain references written from the definitions, and metric
preferences (--pair-metrics) against per-query differences."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.evaluation import evaluate as evaluate_here
from lexeval.options import Hooks, Options
from lexeval.stats.aggregation import borda, mc4


def plain_borda(scores):
    runs, queries = len(scores), len(scores[0])
    points = [0.0] * runs
    for q in range(queries):
        for r in range(runs):
            for s in range(runs):
                if s != r:
                    points[r] += 1.0 if scores[r][q] > scores[s][q] else 0.5 if scores[r][q] == scores[s][q] else 0
    return [p / (queries * (runs - 1)) for p in points]


def plain_mc4(scores, steps=20000):
    """The dense transition matrix from the per-query orders, and the
    distribution after many single steps from the uniform start."""
    runs, queries = len(scores), len(scores[0])
    above = [[0] * runs for _ in range(runs)]           # above[i][j]: queries where j ranks above i
    for q in range(queries):
        for i in range(runs):
            for j in range(runs):
                if scores[j][q] > scores[i][q]:
                    above[i][j] += 1
                elif scores[j][q] < scores[i][q]:
                    above[i][j] -= 1
    matrix = np.zeros((runs, runs))
    for i in range(runs):
        for j in range(runs):
            if i != j and above[i][j] > 0:
                matrix[i][j] = 1.0 / runs
        matrix[i][i] = 1.0 - matrix[i].sum()
    state = np.full(runs, 1.0 / runs)
    for _ in range(steps):
        state = state @ matrix
    return state


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6).flatmap(lambda runs: st.lists(
    st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=1, max_size=6).map(tuple),
    min_size=runs, max_size=runs)))
def test_borda_and_mc4_match_the_plain_references(rows):
    width = min(len(row) for row in rows)
    scores = np.array([row[:width] for row in rows])
    assert borda(scores) == pytest.approx(plain_borda(scores.tolist()), abs=1e-12)
    assert mc4(scores) == pytest.approx(plain_mc4(scores.tolist()), abs=1e-9)
    assert mc4(scores).sum() == pytest.approx(1.0)


def test_mc4_puts_a_condorcet_winner_first():
    """Run 0 beats every run in a majority of queries: all the mass ends on it."""
    scores = np.array([[1.0, 1.0, -1.0], [0.0, -1.0, 1.0], [-1.0, 0.0, 0.0]])
    assert mc4(scores).tolist() == [1.0, 0.0, 0.0]


def test_aggregates_on_the_command_line():
    qrels = EXAMPLES / "cranfield" / "qrels.txt.gz"
    runs = [EXAMPLES / "cranfield" / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200", "tfidf_title")]
    ev = evaluate(str(qrels), [str(r) for r in runs], ["LP"], aggregate="borda", warn=lambda text: None)
    scores = ev.run_preference_scores("LP")
    want = plain_borda(scores.tolist())
    result = run_cli(["--aggregate", "borda", "-m", "LP", qrels, *runs])
    got = {line.split("\t")[0]: float(line.split("\t")[3]) for line in result.lines() if "LP_score" in line}
    assert list(got.values()) == pytest.approx(want, abs=5e-5)
    mc = run_cli(["--aggregate", "mc4", "-m", "LP", "--format", "markdown", qrels, *runs])
    assert mc.code == 0 and "LP_score" in mc.out
    assert run_cli(["--aggregate", "median", "-m", "LP", qrels, *runs]).code == 2


def test_metric_preferences_are_per_query_differences():
    runs = [EXAMPLES / "cranfield" / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200")]
    result = run_cli(["-q", "--pair-metrics", "-m", "map", "-m", "P.10", "-m", "num_ret", "--test", "none",
                      EXAMPLES / "cranfield" / "qrels.txt.gz", *runs])
    assert result.code == 0, result.err
    ev = evaluate(str(EXAMPLES / "cranfield" / "qrels.txt.gz"), [str(r) for r in runs], ["map", "P.10"],
                  warn=lambda text: None)
    lines = {(line.split("\t")[0], line.split("\t")[1].strip(), line.split("\t")[2]): line.split("\t")[3]
             for line in result.lines()}
    for name in ("map", "P_10"):
        values = ev.compared_values(ev.column(name))
        differences = values[0] - values[1]
        for qid, difference in zip(ev.compared_qids, differences):
            assert float(lines[("bm25okapi:lsi200", name, qid)]) == pytest.approx(difference, abs=5e-5)
        assert float(lines[("bm25okapi:lsi200", name, "all")]) == pytest.approx(differences.mean(), abs=5e-5)
        assert int(lines[("bm25okapi:lsi200", f"{name}_win", "all")]) == (differences > 0).sum()
        assert int(lines[("bm25okapi:lsi200", f"{name}_loss", "all")]) == (differences < 0).sum()
        assert int(lines[("bm25okapi:lsi200", f"{name}_tie", "all")]) == (differences == 0).sum()
    assert ("bm25okapi:lsi200", "num_ret", "all") not in lines          # counts are not preferences


def test_pool_policy_keeps_the_labels_most_runs_retrieve(tmp_path):
    """a is retrieved by three runs, b by one, c by none: keeping one label
    of three keeps a's, whatever the seed; random keeps any of them."""
    from conftest import write

    from lexeval.reports.degradation import degraded
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 1\n1 0 c 1\n")
    runs = [write(tmp_path / "r1", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n"), write(tmp_path / "r2", "1 Q0 a 1 3 t\n"),
            write(tmp_path / "r3", "1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n")]
    ev = evaluate(str(qrels), [str(r) for r in runs], ["LP"], keep_rows=True, warn=lambda text: None)
    for seed in range(5):
        kept = degraded(ev.comparison, ev.rankings.qrels, 1 / 3, seed, 0, "pool")
        assert kept.num_rel_per_query.tolist() == [1]
        assert kept.rel_rank.tolist() == [1, 1, 2]          # a, in each run
    result = run_cli(["--report", "degradation", "--label-policy", "pool", "--fractions", "0.4", "--samples", "3",
                      "-m", "LP", qrels, *runs])
    assert result.code == 0, result.err
    assert "degradation\tLP_agreement_sd       \t0.4\t0.0000" in result.lines()


# pref_eval's metric preferences, written from its definitions on a position
# vector x (relevant documents' ranks, None when missing), binary relevance
def pref_eval_metrics(x: list, m: int) -> dict[str, float]:
    found = sorted(p for p in x if p is not None)
    return {
        "ap": sum((i + 1) / p for i, p in enumerate(found)) / m,
        "rbp": 0.5 * sum(0.5 ** (p - 1) for p in found),
        "rr": 1 / found[0] if found else 0.0,
        "ndcg": sum(1 / np.log2(p + 1) for p in found) / sum(1 / np.log2(i + 2) for i in range(m)),
        "rp": sum(p <= m for p in found) / m,
        "p@10": sum(p <= 10 for p in found) / 10,
        "r@10": sum(p <= 10 for p in found) / m,
    }


LEXEVAL_NAMES = {"ap": "map", "rbp": "rbp_p=0.5(rel=2)", "rr": "recip_rank", "ndcg": "ndcg_0=0,1=0,2=1,3=1",
                 "rp": "Rprec", "p@10": "P_10", "r@10": "recall_10"}


def test_metric_preferences_equal_pref_evals_on_real_runs():
    """DL 2019 passage runs at binary relevance grade >= 2 (pref_eval -b 2):
    every pair's per-query metric differences and their means."""
    import reference as ref
    from conftest import DL19 as real
    paths = sorted((real / "runs").glob("*.gz"))[:3]
    qrels, rankings = ref.read_collection(real / "qrels.txt", paths)
    # ndcg with gains 0/1 at grade 2: pref_eval -b 2 makes the grades binary
    measures = ["map", "RBP(p=0.5,rel=2)", "recip_rank", "ndcg.0=0,1=0,2=1,3=1", "Rprec", "P.10", "recall.10"]
    ev = evaluate(str(real / "qrels.txt"), [str(p) for p in paths], measures, level=2, pair_metrics=True,
                  warn=lambda text: None)
    for pair_index, (a, b) in enumerate(ev.pairs.tolist()):
        for name, lexeval_name in LEXEVAL_NAMES.items():
            differences = []
            for qid in ev.compared_qids:
                m = ref.num_rel(qrels[qid], 2)
                x = ref.positions(rankings[a].get(qid, []), qrels[qid], 2)
                y = ref.positions(rankings[b].get(qid, []), qrels[qid], 2)
                differences.append(pref_eval_metrics(x, m)[name] - pref_eval_metrics(y, m)[name])
            values = ev.compared_values(ev.column(lexeval_name))
            assert values[a] - values[b] == pytest.approx(differences, abs=1e-12), name
            assert ev.metric_pairs.mean[lexeval_name][pair_index] == pytest.approx(np.mean(differences), abs=1e-12)
            assert ev.metric_pairs.wins[lexeval_name][pair_index] == sum(d > 0 for d in differences)


def evaluate(qrels, runs, measures, *, keep_rows=False, warn=None, **keywords):
    """The evaluation of this machine, with the library's keywords (and keep_rows)."""
    return evaluate_here(qrels, runs, measures, Options.of(**keywords), keep_rows=keep_rows, hooks=Hooks(warn=warn))
