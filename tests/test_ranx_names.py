"""ranx's and recommender systems' names, and ir_measures' remaining
spellings, parse to the right measure: per query equal to ranx (on runs
without tied scores, since ranx's sort does not break ties) and to
ir_measures."""

from __future__ import annotations

import gzip

import pytest
from conftest import EXAMPLES, write

from lexeval import evaluate
from lexeval.measures.names import output_names

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[:3]

RANX_NAMES = ["map@100", "map@10-l2", "precision@5", "precision@10-l3", "recall@100", "f1@10", "hit_rate@10",
              "hits@10", "r-precision", "mrr@10", "ndcg@10", "ndcg@10-l2", "ndcg_burges@10", "ndcg_burges@20-l3",
              "bpref",
              # without a cutoff: the whole ranking, as ranx means it (recall and P are trec_eval's names)
              "hits", "hit_rate", "precision", "f1", "mrr", "map", "ndcg", "ndcg_burges", "dcg", "dcg_burges",
              "dcg@10", "dcg_burges@10", "dcg@10-l2", "rbp.95", "rbp.80", "hits-l2", "precision-l3"]


@pytest.mark.parametrize("text,printed", [
    ("map@100", "map_cut_100"), ("precision@5", "P_5"), ("f1@10", "F1_10"), ("hit_rate@10", "success_10"),
    ("hits@10", "hits_10"), ("r-precision", "Rprec"), ("ndcg_burges@10", "ndcg_exp_10"),
    ("ndcg@10-l2", "ndcg_cut_10(min_rel=2)"), ("map@10-l2", "map_cut_10(rel=2)"), ("mrr@10", "recip_rank_10"),
    ("hits", "hits"), ("hit_rate", "hit_rate"), ("precision", "set_P"), ("f1", "set_F"), ("dcg@10", "dcg_cut_10"),
    ("dcg_burges", "dcg_burges"), ("dcg_burges@5", "dcg_exp_5"), ("ndcg_burges", "ndcg_burges"),
    ("rbp.95", "rbp_p=0.95,grades=1"), ("hits.5", "hits_5"), ("hits_5", "hits_5"), ("recall", "recall_5"),
    ("HR@10", "success_10"), ("HitRate@5", "success_5"), ("F1@10", "F1_10"), ("MAP", "map"),
    ("Precision@10", "P_10"), ("NumQ", "num_q"), ("SetAP", "set_map"), ("SetRelP", "set_relative_P"),
    ("SetF(beta=0.5)", "set_F_0.5"), ("ERR@20", "err_20"), ("nDCG(dcg=exp-log2)@20", "ndcg_exp_20"),
    ("nDCG(dcg=log2)@10", "ndcg_cut_10"),
])
def test_names_parse(text, printed):
    assert output_names(text)[0] == printed


def untied(path, tmp_path):
    """The run in trec_eval's order with scores 1000 - rank: no ties left."""
    by_query: dict[str, list] = {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        qid, _, docno, _, score = line.split()[:5]
        by_query.setdefault(qid, []).append((float(score), docno))
    lines = []
    for qid, docs in by_query.items():
        for rank, (_, docno) in enumerate(sorted(docs, key=lambda d: (-d[0], [-b for b in d[1].encode()])), 1):
            lines.append(f"{qid} Q0 {docno} {rank} {1000 - rank} t")
    return write(tmp_path / path.name.replace(".gz", ""), "\n".join(lines) + "\n")


RANX_SCORES = """
import json, sys
import ranx
qrels, runs, names = json.load(sys.stdin)
qrels = ranx.Qrels(qrels)
values = []
for run in runs:
    scored = ranx.Run(run)
    ranx.evaluate(qrels, scored, names, make_comparable=True)
    values.append({name: dict(scored.scores[name]) for name in names})
json.dump(values, sys.stdout)
"""


def ranx_scores(qrels: dict, runs: list[dict], names: list[str]) -> list[dict[str, dict[str, float]]]:
    """ranx's per-query values of each run, from ranx run in a process of its own with numba's compiler
    off: ranx's own code, interpreted (its kernels' first compilation costs more than this whole file on a
    fresh install); all runs in one process, which imports ranx (seconds) once."""
    import json
    import os
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", RANX_SCORES], input=json.dumps([qrels, runs, names]),
                          capture_output=True, text=True, env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def ranx_values(tmp_path_factory):
    """(qrels, {run name: (untied run's path, ranx's values)}) for RUNS."""
    pytest.importorskip("ranx")
    folder = tmp_path_factory.mktemp("ranx")
    qrels: dict[str, dict[str, int]] = {}
    for line in gzip.decompress(QRELS.read_bytes()).decode().splitlines():
        qid, _, docno, grade = line.split()
        qrels.setdefault(qid, {})[docno] = int(grade)
    paths, runs = [], []
    for run in RUNS:
        path = untied(run, folder)
        scored: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            qid, _, docno, _, score = line.split()[:5]
            scored.setdefault(qid, {})[docno] = float(score)
        paths.append(path)
        runs.append({qid: docs for qid, docs in scored.items() if qid in qrels})
    values = ranx_scores(qrels, runs, RANX_NAMES)
    return qrels, {run.name: (path, value) for run, path, value in zip(RUNS, paths, values)}


@pytest.mark.parametrize("run", RUNS, ids=lambda path: path.name)
def test_per_query_values_equal_ranx(run, ranx_values):
    qrels_dict, by_run = ranx_values
    path, scores = by_run[run.name]
    ev = evaluate(str(QRELS), [str(path)], RANX_NAMES, warn=lambda text: None)
    for name in RANX_NAMES:
        ours = dict(zip(ev.qids, ev.column(output_names(name)[0]).values[0]))
        theirs = scores[name]
        compared = [qid for qid in theirs if any(g > 0 for g in qrels_dict[qid].values())]
        assert len(compared) > 200
        for qid in compared:
            assert ours[qid] == pytest.approx(theirs[qid], abs=1e-9), (name, qid)


def test_ir_measures_spellings_equal_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    names = ["MAP", "Precision@10", "SetAP", "SetRelP", "SetF(beta=0.5)", "NumQ", "nDCG(judged_only=True)@10",
             "nDCG(gains={0:0,1:1,2:3,3:4,4:5})", "P(judged_only=True,rel=2)@5"]
    qrels = [ir_measures.Qrel(*(line.split()[i] for i in (0, 2)), int(line.split()[3]))
             for line in gzip.decompress(QRELS.read_bytes()).decode().splitlines()]
    run = [ir_measures.ScoredDoc(f[0], f[2], float(f[4]))
           for f in (line.split() for line in gzip.decompress(RUNS[0].read_bytes()).decode().splitlines())]
    # One measure per call: ir_measures hands measures to one pytrec_eval evaluator in set order, and a
    # custom gains map then leaks into nDCG(judged_only=True) under some hash seeds.
    measures = {name: ir_measures.parse_measure(name) for name in names}
    theirs = {name: ir_measures.calc_aggregate([measure], qrels, run)[measure] for name, measure in measures.items()}
    ev = evaluate(str(QRELS), [str(RUNS[0])], names, warn=lambda text: None)
    for name in names:
        column = ev.column(output_names(name)[0])
        assert float(ev.summary(column)[0]) == pytest.approx(theirs[name], abs=1e-9), name
