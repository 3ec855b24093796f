"""Real runs: per-query MAP, P@10 and nDCG@10 for all twelve bundled Cranfield
systems against pytrec_eval's values, computed here from the same files."""

import gzip

import numpy as np
import pytest
from conftest import CRANFIELD

from lexeval import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

# pytrec_eval's names for the measures asked, by lexeval's output name
PYTREC_NAMES = {"map": "map", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10"}


def read_trec(path, columns):
    """{qid: {docno: value}} from a gzipped qrels (grade) or run (score) file."""
    table = {}
    with gzip.open(path, "rt") as handle:
        for line in handle:
            fields = line.split()
            value = int(fields[3]) if columns == "qrels" else float(fields[4])
            table.setdefault(fields[0], {})[fields[2]] = value
    return table


def test_agrees_with_pytrec_eval():
    qrels_path = CRANFIELD / "qrels.txt.gz"
    runs = sorted((CRANFIELD / "runs").glob("*.gz"))
    assert len(runs) == 12
    evaluator = pytrec_eval.RelevanceEvaluator(read_trec(qrels_path, "qrels"), set(PYTREC_NAMES.values()))
    ev = evaluate(str(qrels_path), [str(r) for r in runs], ["map", "P.10", "ndcg_cut.10"])
    assert len(ev.qids) == 225
    references = [evaluator.evaluate(read_trec(run, "run")) for run in runs]
    for column in ev.columns:
        name = PYTREC_NAMES[column.name]
        want = np.array([[reference[q][name] for q in ev.qids] for reference in references])
        np.testing.assert_allclose(column.values, want, atol=1e-12, rtol=0)
        np.testing.assert_allclose(ev.summary(column), want.mean(axis=1), atol=1e-12, rtol=0)
