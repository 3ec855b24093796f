"""Diversity measures over subtopics against ndeval (pyndeval, which runs
ndeval.c) per query: a worked example and generated diversity collections
(runs without tied scores: pyndeval breaks ties by docno ascending, lexeval
and ndeval -traditional by docno descending)."""

from __future__ import annotations

import random

import pytest
from conftest import run_cli, write

from lexeval import evaluate

pyndeval = pytest.importorskip("pyndeval")

OURS = {"alpha_ndcg_5": "alpha-nDCG@5", "alpha_ndcg_10": "alpha-nDCG@10", "alpha_ndcg_20": "alpha-nDCG@20",
        "err_ia_5": "ERR-IA@5", "err_ia_20": "ERR-IA@20", "nerr_ia_5": "nERR-IA@5", "nerr_ia_20": "nERR-IA@20",
        "nrbp": "NRBP", "nnrbp": "nNRBP", "p_ia_5": "P-IA@5", "p_ia_20": "P-IA@20", "ap_ia": "MAP-IA",
        "strec_5": "strec@5", "strec_10": "strec@10", "strec_20": "strec@20"}
ASKED = ["alpha_nDCG@5", "alpha_nDCG@10", "alpha_nDCG@20", "ERR_IA@5", "ERR_IA@20", "nERR_IA@5", "nERR_IA@20",
         "NRBP", "nNRBP", "P_IA@5", "P_IA@20", "AP_IA", "StRecall@5", "StRecall@10", "StRecall@20"]


def compare(tmp_path, qrels_lines, run_lines, level=1):
    qrels = write(tmp_path / "qrels", "".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels_lines))
    run = write(tmp_path / "run", "".join(f"{q} Q0 {d} {i} {score} t\n"
                                          for i, (q, d, score) in enumerate(run_lines, 1)))
    evaluator = pyndeval.RelevanceEvaluator([pyndeval.SubtopicQrel(q, s, d, g) for q, s, d, g in qrels_lines],
                                            list(OURS.values()), relevance_level=level)
    expected = evaluator.evaluate([pyndeval.ScoredDoc(q, d, score) for q, d, score in run_lines])
    ev = evaluate(str(qrels), [str(run)], ASKED, level=level, warn=lambda text: None)
    checked = 0
    for ours, theirs in OURS.items():
        values = dict(zip(ev.qids, ev.column(ours).values[0]))
        for qid, measures in expected.items():
            if ev.rankings.subtopics.actual[ev.rankings.qrels.query_of[qid.encode()]] == 0:
                continue                      # no relevant subtopic: ndeval divides 0 by 0
            assert values[qid] == pytest.approx(measures[theirs], abs=1e-9), (ours, qid)
            checked += 1
    return checked


def test_readme_example(tmp_path):
    """pyndeval's own example: A relevant to a, B to b, D to b, C to c."""
    qrels = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1)]
    run = [("0", "A", 9.3), ("0", "D", 8.4), ("0", "E", 8.1), ("0", "B", 7.6)]
    assert compare(tmp_path, qrels, run) == len(OURS)


def generated(seed: int) -> tuple[list, list]:
    """A diversity collection: qrels lines (qid, subtopic, docno, grade) and
    run lines (qid, docno, score) without tied scores."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 6):
        docs = [f"d{q}-{i}" for i in range(rng.randint(3, 30))]
        for subtopic in range(1, rng.randint(2, 6)):
            for doc in rng.sample(docs, rng.randint(1, len(docs))):
                qrels.append((str(q), str(subtopic), doc, rng.choice([0, 0, 1, 1, 2])))
        ranked = rng.sample(docs + [f"x{q}-{i}" for i in range(10)], rng.randint(1, len(docs) + 10))
        run += [(str(q), doc, float(100 - rank)) for rank, doc in enumerate(ranked)]
    return qrels, run


@pytest.mark.parametrize("seed", range(12))
def test_generated_collections(tmp_path, seed):
    qrels, run = generated(seed)
    level = 1 if seed % 3 else 2
    assert compare(tmp_path, qrels, run, level) > 0


def test_ordinary_measures_use_the_highest_grade(tmp_path):
    """A document judged once per subtopic counts once for map, with its highest grade."""
    qrels = write(tmp_path / "qrels", "1 1 a 1\n1 2 a 2\n1 1 b 0\n1 2 c 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    plain = run_cli(["-m", "map", "-m", "num_rel", qrels, run])
    assert plain.code == 2 and "judged twice" in plain.err          # an ordinary qrels never changes meaning
    result = run_cli(["--subtopics", "-m", "map", "-m", "num_rel", "-m", "ndcg", qrels, run])
    assert result.code == 0, result.err
    assert "num_rel               \tall\t2" in result.lines()
    assert "map                   \tall\t0.8333" in result.lines()     # relevant at 1 and 3: (1 + 2/3) / 2
    auto = run_cli(["-m", "alpha_nDCG@5", "-m", "strec.5", qrels, run])
    assert auto.code == 0, auto.err
    assert "strec_5               \tall\t1.0000" in auto.lines()


@pytest.mark.parametrize("alpha,beta", [(0.5, 0.5), (0.25, 0.8), (0.75, 0.3)])
def test_alpha_and_beta_as_ndeval_takes_them(tmp_path, alpha, beta):
    """ir_measures' alpha_nDCG(alpha=)@k, alpha_DCG(alpha=)@k, NRBP(alpha=,beta=) and nNRBP against
    pyndeval run with the same alpha and beta, on generated collections."""
    theirs_names = {f"alpha_ndcg_20(alpha={alpha:g})": "alpha-nDCG@20", f"alpha_dcg_5(alpha={alpha:g})": "alpha-DCG@5",
                    f"alpha_dcg_20(alpha={alpha:g})": "alpha-DCG@20",
                    f"nrbp(alpha={alpha:g},beta={beta:g})": "NRBP", f"nnrbp(alpha={alpha:g},beta={beta:g})": "nNRBP"}
    asked = [f"alpha_nDCG(alpha={alpha})@20", f"alpha_DCG(alpha={alpha})@5", f"alpha_DCG(alpha={alpha})@20",
             f"NRBP(alpha={alpha},beta={beta})", f"nNRBP(beta={beta},alpha={alpha})"]
    checked = 0
    for seed in range(4):
        qrels_lines, run_lines = generated(seed)
        qrels = write(tmp_path / f"qrels{seed}", "".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels_lines))
        run = write(tmp_path / f"run{seed}", "".join(f"{q} Q0 {d} {i} {score} t\n"
                                                     for i, (q, d, score) in enumerate(run_lines, 1)))
        evaluator = pyndeval.RelevanceEvaluator([pyndeval.SubtopicQrel(*line) for line in qrels_lines],
                                                sorted(set(theirs_names.values())), alpha=alpha, beta=beta)
        expected = evaluator.evaluate([pyndeval.ScoredDoc(q, d, score) for q, d, score in run_lines])
        ev = evaluate(str(qrels), [str(run)], asked, warn=lambda text: None)
        for ours, theirs in theirs_names.items():
            values = dict(zip(ev.qids, ev.column(ours).values[0]))
            for qid, measures in expected.items():
                if ev.rankings.subtopics.actual[ev.rankings.qrels.query_of[qid.encode()]] == 0:
                    continue
                assert values[qid] == pytest.approx(measures[theirs], abs=1e-9), (ours, qid)
                checked += 1
    assert checked > 50
