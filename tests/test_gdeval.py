"""ERR@k and exponential-gain nDCG@k against gdeval (ir_measures' gdeval
provider runs the TREC Web track's gdeval.pl) per query, on the Cranfield
runs (grades 0-4) and on a collection with tied scores."""

from __future__ import annotations

import gzip
import shutil

import pytest
from conftest import EXAMPLES, write

from lexeval import evaluate

ir_measures = pytest.importorskip("ir_measures")
if shutil.which("perl") is None:
    pytest.skip("gdeval needs perl", allow_module_level=True)

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[:4]


def read(path, kind):
    lines = gzip.decompress(path.read_bytes()).decode().splitlines() if str(path).endswith(".gz") \
        else path.read_text().splitlines()
    if kind == "qrels":
        return [ir_measures.Qrel(q, d, int(g)) for q, _, d, g in (line.split() for line in lines)]
    return [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in (line.split() for line in lines)]


def compare(qrels_path, run_path, cutoff):
    measures = [ir_measures.ERR @ cutoff, ir_measures.nDCG(dcg="exp-log2") @ cutoff]
    expected = {}
    for metric in ir_measures.gdeval.iter_calc(measures, read(qrels_path, "qrels"), read(run_path, "run")):
        expected[(str(metric.measure), metric.query_id)] = metric.value
    ev = evaluate(str(qrels_path), [str(run_path)], [f"ERR@{cutoff}", f"nDCG(dcg=exp-log2)@{cutoff}"],
                  warn=lambda text: None)
    checked = 0
    for ours, theirs in ((f"err_{cutoff}", str(measures[0])), (f"ndcg_exp_{cutoff}", str(measures[1]))):
        values = ev.column(ours).values[0]
        for qid, value in zip(ev.qids, values):
            if (theirs, qid) in expected:          # gdeval prints queries with a positive grade
                assert value == pytest.approx(expected[(theirs, qid)], abs=6e-6), (ours, qid)
                checked += 1
    return checked


@pytest.mark.parametrize("run", RUNS, ids=lambda path: path.name)
def test_cranfield_equals_gdeval(run):
    assert compare(QRELS, run, 20) > 300
    assert compare(QRELS, run, 5) > 300


def test_tied_scores_equal_gdeval(tmp_path):
    """gdeval orders ties by docno descending, as trec_eval: the same values."""
    qrels = write(tmp_path / "qrels", "1 0 a 3\n1 0 b 1\n1 0 c 4\n1 0 d 0\n2 0 e 2\n2 0 f -1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 1.0 t\n1 Q0 d 4 2.0 t\n"
                                  "2 Q0 f 1 5 t\n2 Q0 e 2 5 t\n2 Q0 x 3 5 t\n")
    assert compare(qrels, run, 20) == 4
    assert compare(qrels, run, 2) == 4
