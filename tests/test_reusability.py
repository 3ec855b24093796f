"""--report reusability: a worked example by hand, and on random collections
each run's score without its group's unique relevant documents equals a
fresh evaluation on a qrels file written without them (found here from the
run files, independently of lexeval's rankings)."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from conftest import run_cli
from scipy.stats import kendalltau

import lexeval


def _records(output: str) -> dict[tuple[str, str], float]:
    return {(r["measure"], r["qid"]): r["value"] for r in map(json.loads, output.splitlines())}


@pytest.fixture
def worked(tmp_path):
    """One query; d1 d2 d3 relevant, d4 not. Runs 3 deep, pool depth 2:
    t1-A d1 d4 d2, t1-B d1 d2 d3, t2-C d3 d4 d1."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1\nq1 0 d4 0\n")
    runs = {"t1-A": "d1 d4 d2", "t1-B": "d1 d2 d3", "t2-C": "d3 d4 d1"}
    paths = []
    for name, docs in runs.items():
        path = tmp_path / name
        path.write_text("".join(f"q1 Q0 {doc} {rank} {10 - rank} {name}\n"
                                for rank, doc in enumerate(docs.split(), 1)))
        paths.append(path)
    return tmp_path / "qrels", paths


def test_each_run_alone_by_hand(worked):
    qrels, runs = worked
    result = run_cli(["--report", "reusability", "--pool-depth", "2", "-m", "map", "--format", "json", qrels, *runs])
    assert result.code == 0, result.err
    got = _records(result.out)
    # within depth 2, d2 is only t1-B's and d3 only t2-C's; d1 is both t1-A's and t1-B's
    assert got[("pool", "unique_relevant:t1-A")] == 0
    assert got[("pool", "unique_relevant:t1-B")] == 1
    assert got[("pool", "unique_relevant:t2-C")] == 1
    before = {"t1-A": (1 + 2 / 3) / 3, "t1-B": 1.0, "t2-C": (1 + 2 / 3) / 3}
    # t1-B without d2: d1 and d3 relevant, at ranks 1 and 3; t2-C without d3: d1 at rank 3 of 2 relevant
    after = {"t1-A": before["t1-A"], "t1-B": (1 + 2 / 3) / 2, "t2-C": (1 / 3) / 2}
    for run in before:
        assert got[("map", f"before:{run}")] == pytest.approx(before[run])
        assert got[("map", f"after:{run}")] == pytest.approx(after[run])
        assert got[("map", f"drop:{run}")] == pytest.approx(before[run] - after[run])
    # ties keep the command line's order: A before C
    assert [got[("map", f"rank_before:{run}")] for run in before] == [2, 1, 3]
    assert [got[("map", f"rank_after:{run}")] for run in before] == [2, 1, 3]
    drops = [before[run] - after[run] for run in before]
    assert got[("map", "mean_drop")] == pytest.approx(np.mean(drops))
    assert got[("map", "largest_drop:t2-C")] == pytest.approx(max(drops))
    assert got[("map", "tau_b")] == pytest.approx(kendalltau(list(before.values()), list(after.values())).statistic)


def test_groups_by_name_prefix_by_hand(worked):
    qrels, runs = worked
    result = run_cli(["--report", "reusability", "--group-by", "-", "--pool-depth", "2", "-m", "map",
                      "--format", "json", qrels, *runs])
    assert result.code == 0, result.err
    got = _records(result.out)
    # team t1 alone pooled d1 and d2 (d1 is t2-C's only at rank 3), team t2 alone d3
    assert got[("pool", "unique_relevant:t1")] == 2
    assert got[("pool", "unique_relevant:t2")] == 1
    assert got[("map", "after:t1-A")] == 0.0                       # d3 alone relevant: t1-A has none
    assert got[("map", "after:t1-B")] == pytest.approx(1 / 3)      # d3 at rank 3
    assert got[("map", "after:t2-C")] == pytest.approx((1 / 3) / 2)


def _random_collection(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qids = ["1", "2", "10", "topic-α"]
    pool = {qid: [f"{'d' * (1 + n % 3)}{n}" for n in rng.permutation(60)[:40].tolist()] for qid in qids}
    qrels = {qid: {doc: int(rng.integers(0, 3)) for doc in docs if rng.random() < 0.6} for qid, docs in pool.items()}
    runs = {}
    for name in ["teamA-1", "teamA-2", "teamB-1", "teamC-1", "teamC-2"]:
        runs[name] = {qid: [str(d) for d in rng.permutation(pool[qid])[:25].tolist()] for qid in qids}
    return qrels, runs


def _write(tmp_path, qrels, runs, name="qrels"):
    (tmp_path / name).write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, docs in qrels.items()
                                         for doc, grade in docs.items()), encoding="utf-8")
    paths = []
    for run, ranking in runs.items():
        path = tmp_path / run
        path.write_text("".join(f"{qid} Q0 {doc} {rank} {100 - rank} {run}\n" for qid, docs in ranking.items()
                                for rank, doc in enumerate(docs, 1)), encoding="utf-8")
        paths.append(path)
    return tmp_path / name, paths


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("group_by", [None, "-"])
def test_after_scores_equal_a_fresh_evaluation_without_the_unique_documents(tmp_path, seed, group_by):
    qrels, runs = _random_collection(tmp_path, seed)
    depth = 10
    qrels_path, paths = _write(tmp_path, qrels, runs)
    result = run_cli(["--report", "reusability", "--pool-depth", depth, "-m", "map", "-m", "ndcg_cut.10", "-m", "LP",
                      "--format", "json", *(["--group-by", group_by] if group_by else []), qrels_path, *paths])
    assert result.code == 0, result.err
    got = _records(result.out)
    group = {run: run.split(group_by, 1)[0] if group_by else run for run in runs}
    contributors = defaultdict(set)
    for run, ranking in runs.items():
        for qid, docs in ranking.items():
            for doc in docs[:depth]:
                if qrels[qid].get(doc, 0) >= 1:
                    contributors[(qid, doc)].add(group[run])
    for team in set(group.values()):
        unique = {key for key, teams in contributors.items() if teams == {team}}
        assert got[("pool", f"unique_relevant:{team}")] == len(unique)
        reduced = {qid: {doc: g for doc, g in docs.items() if (qid, doc) not in unique} for qid, docs in qrels.items()}
        folder = tmp_path / f"without-{team}"
        folder.mkdir()
        reduced_path, reduced_paths = _write(folder, reduced, runs)
        fresh = lexeval.evaluate(str(reduced_path), [str(p) for p in reduced_paths], ["map", "ndcg_cut.10", "LP"],
                                 warn=lambda _: None)
        for r, run in enumerate(runs):
            if group[run] != team:
                continue
            assert got[("map", f"after:{run}")] == pytest.approx(np.nanmean(fresh.values("map")[r]), abs=1e-12)
            assert got[("ndcg_cut_10", f"after:{run}")] == pytest.approx(
                np.nanmean(fresh.values("ndcg_cut.10")[r]), abs=1e-12)
            assert got[("LP", f"after:{run}")] == pytest.approx(
                fresh.run_preference_scores("LP")[r].mean(), abs=1e-12)


def test_needs_the_report_for_group_by(worked):
    qrels, runs = worked
    result = run_cli(["--group-by", "-", "-m", "map", qrels, *runs])
    assert result.code == 2 and "add --report reusability" in result.err


def test_the_library_reads_identities_itself(worked):
    """evaluate() keeps no document identities by default: the report reads the runs again, and agrees with
    the command line."""
    from lexeval.reports import ReportOptions, run_reports
    qrels, runs = worked
    evaluation = lexeval.evaluate(str(qrels), [str(r) for r in runs], ["map"], warn=lambda _: None)
    lines = run_reports(evaluation, ["reusability"], ReportOptions(pool_depth=2))
    got = {(line.measure, line.parameter): line.value for line in lines}
    assert got[("map", "after:t2-C")] == pytest.approx((1 / 3) / 2)
    assert got[("pool", "unique_relevant:t1-B")] == 1
