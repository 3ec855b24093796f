"""--fill-qrels FILE: the documents QRELS leaves unjudged (absent, or graded
below 0) take FILE's grade on QRELS' queries. Every measure equals the same
evaluation of the merged qrels, written out by hand here; judged_qrels and
judged_fill count who judged each run's top k; the note, the provenance,
the library and the cluster say the same."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli

import lexeval

DOCNOS = ["d1", "D-0001", "é", "x" * 30, "a/b.c", "10", "1", "q1d", "__", "Ω9", "d10", "d01"]


def _collection(tmp_path, seed: int, fractional: bool):
    rng = np.random.default_rng(seed)
    qids = ["1", "10", "q-α", "x" * 20]
    first, filler, runs = {}, {}, []
    for qid in qids:
        docs = list(rng.permutation(DOCNOS))
        first[qid] = {d: int(rng.choice([-1, 0, 1, 2])) for d in docs[:int(rng.integers(2, 7))]}
        first[qid][docs[0]] = 2                                        # a relevant document in each
        grades = [0, 0.5, 1, 1.5, 2] if fractional else [0, 1, 2]
        filler[qid] = {d: float(rng.choice(grades)) if fractional else int(rng.choice(grades))
                       for d in rng.permutation(DOCNOS)[:int(rng.integers(3, 10))]}
    filler["only-in-the-filler"] = {"d1": 1}
    for _ in range(2):
        runs.append({qid: list(rng.permutation(DOCNOS)[:int(rng.integers(2, 10))]) for qid in qids})
    merged = {qid: dict(judged) for qid, judged in first.items()}
    for qid, judged in filler.items():
        if qid not in merged:
            continue
        for docno, grade in judged.items():
            if merged[qid].get(docno, -1) < 0 and grade >= 0:
                merged[qid][docno] = grade
    write = lambda name, judged: (tmp_path / name).write_text(  # noqa: E731
        "".join(f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items()), encoding="utf-8")
    write("first", first)
    write("filler", filler)
    write("merged", merged)
    paths = []
    for number, run in enumerate(runs):
        path = tmp_path / f"run{number}"
        path.write_text("".join(f"{q} Q0 {d} {r} {100 - r} t\n" for q, docs in run.items()
                                for r, d in enumerate(docs, 1)), encoding="utf-8")
        paths.append(path)
    return first, filler, merged, runs, paths


@pytest.mark.parametrize("seed,fractional", [(1, False), (2, False), (3, True), (4, True)])
def test_equal_to_the_merged_qrels(tmp_path, seed, fractional):
    first, filler, merged, runs, paths = _collection(tmp_path, seed, fractional)
    measures = ["-m", "map", "-m", "ndcg", "-m", "P.5", "-m", "recall.10", "-m", "bpref", "-m", "ndcg_cut.5",
                "-m", "judged.10", "-m", "LP"]
    filled = run_cli(["-q", "--fill-qrels", tmp_path / "filler", *measures, tmp_path / "first", *paths])
    plain = run_cli(["-q", *measures, tmp_path / "merged", *paths])
    assert filled.code == plain.code == 0, filled.err + plain.err
    keep = [line for line in filled.out.splitlines()
            if not line.split("\t")[1].startswith(("judged_qrels", "judged_fill"))]
    assert keep == plain.out.splitlines()
    assert "--fill-qrels" in filled.err and "its 1 other query is left out" in filled.err


def test_who_judged_each_top_k(tmp_path):
    first, filler, merged, runs, paths = _collection(tmp_path, 5, True)
    result = run_cli(["-q", "--fill-qrels", tmp_path / "filler", "-m", "judged_qrels.3,10", "-m", "judged_fill.3,10",
                      tmp_path / "first", *paths[:1]])
    assert result.code == 0, result.err
    got = {}
    for line in result.out.splitlines():
        name, qid, value = line.split("\t")
        got[(name.strip(), qid)] = float(value)
    for qid, ranking in runs[0].items():
        for k in (3, 10):
            top = ranking[:k]
            by_first = sum(first[qid].get(d, -1) >= 0 for d in top) / min(len(ranking), k)
            by_filler = sum(first[qid].get(d, -1) < 0 and d in merged[qid] and merged[qid][d] >= 0 and
                            d in filler.get(qid, {}) for d in top) / min(len(ranking), k)
            assert got[(f"judged_qrels_{k}", qid)] == pytest.approx(by_first, abs=5e-5), (qid, k)
            assert got[(f"judged_fill_{k}", qid)] == pytest.approx(by_filler, abs=5e-5), (qid, k)


def test_provenance_the_library_and_bad_input(tmp_path):
    first, filler, merged, runs, paths = _collection(tmp_path, 6, False)
    result = run_cli(["--provenance", "--format", "json", "--fill-qrels", tmp_path / "filler", "-m", "map",
                      tmp_path / "first", *paths])
    facts = json.loads(result.out.splitlines()[0])["value"]
    assert [item["role"] for item in facts["inputs"]][:2] == ["qrels", "fill-qrels"]
    count = sum(1 for qid in first for d, g in merged[qid].items() if first[qid].get(d, -1) < 0 and g >= 0)
    assert facts["options"]["fill_qrels"] == str(tmp_path / "filler") and facts["options"]["filled_judgements"] == count
    library = lexeval.evaluate(str(tmp_path / "first"), [str(p) for p in paths], ["map"],
                               fill_qrels=str(tmp_path / "filler"), warn=lambda _: None)
    again = lexeval.evaluate(str(tmp_path / "merged"), [str(p) for p in paths], ["map"], warn=lambda _: None)
    np.testing.assert_allclose(np.nan_to_num(library.values("map")), np.nan_to_num(again.values("map")))
    missing = run_cli(["--fill-qrels", tmp_path / "nope", "-m", "map", tmp_path / "first", *paths])
    assert missing.code == 2 and "nope" in missing.err and not missing.out
    for other in (["--subtopics"], ["-m", "alpha_nDCG@5"], ["-R", "qrels_jg"]):
        refused = run_cli(["--fill-qrels", tmp_path / "filler", *other, tmp_path / "first", *paths])
        assert refused.code == 2 and "--fill-qrels fills ordinary judgements" in refused.err, refused.err
    (tmp_path / "broken").write_text("1 0 d1 1\n1 0 d2 lots\n")
    broken = run_cli(["--fill-qrels", tmp_path / "broken", "-m", "map", tmp_path / "first", *paths])
    assert broken.code == 2 and f"{tmp_path / 'broken'}:2: grade 'lots' is not a number" in broken.err


def test_the_cluster_prints_the_same(tmp_path):
    distributed = pytest.importorskip("distributed")
    first, filler, merged, runs, paths = _collection(tmp_path, 7, True)
    args = ["-q", "--fill-qrels", str(tmp_path / "filler"), "-m", "map", "-m", "ndcg", "-m", "LP",
            str(tmp_path / "first"), *map(str, paths)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as local:
        sharded = run_cli(["--cluster", local.scheduler_address, *args])
    alone = run_cli(args)
    assert sharded.code == alone.code == 0, sharded.err
    assert sharded.out == alone.out and sharded.err == alone.err


def test_reports_that_read_the_runs_again_read_the_filled_judgements(tmp_path):
    """reusability reads the qrels again: with the holes filled, as the
    evaluation did (its 'before' is the evaluation's mean)."""
    first, filler, merged, runs, paths = _collection(tmp_path, 8, False)
    report = run_cli(["--report", "reusability", "--fill-qrels", tmp_path / "filler", "-m", "map", tmp_path / "first",
                      *paths])
    plain = run_cli(["-m", "map", tmp_path / "merged", *paths])
    assert report.code == plain.code == 0, report.err + plain.err
    means = {line.split("\t")[0]: float(line.split("\t")[-1]) for line in plain.out.splitlines()
             if line.split("\t")[1].strip() == "map" and line.split("\t")[2] == "all"}
    before = {line.split("\t")[2].split(":", 1)[1]: float(line.split("\t")[3]) for line in report.out.splitlines()
              if line.split("\t")[2].startswith("before:") and line.split("\t")[1].strip() == "map"}
    assert before and all(before[run] == pytest.approx(means[run], abs=5e-5) for run in before)
