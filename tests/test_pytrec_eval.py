"""Every measure trec_eval 9.x and 10.0 define alike, against pytrec_eval
(trec_eval's C code) on all twelve Cranfield runs, per query.

iprec_at_recall and 11pt_avg are left out: trec_eval 10.0 rounds the
recall cutoff (lround) where 9.x, which pytrec_eval wraps, added 0.9 and
truncated; lexeval follows 10.0 (see test_conformance.py).
"""

import gzip

import numpy as np
import pytest
from conftest import EXAMPLES

from lexeval import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["map", "Rprec", "bpref", "recip_rank", "P", "recall", "infAP", "Rprec_mult", "utility",
            "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
            "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
            "num_ret", "num_rel", "num_rel_ret"]
QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"


def read(path, grade_type):
    table = {}
    with gzip.open(path, "rt") as handle:
        for line in handle:
            fields = line.split()
            table.setdefault(fields[0], {})[fields[2]] = grade_type(fields[3] if grade_type is int else fields[4])
    return table


@pytest.mark.parametrize("run", sorted(p.name for p in (EXAMPLES / "cranfield" / "runs").glob("*.gz")))
def test_per_query_values_equal_pytrec_eval(run):
    path = EXAMPLES / "cranfield" / "runs" / run
    expected = pytrec_eval.RelevanceEvaluator(read(QRELS, int), set(MEASURES)).evaluate(read(path, float))
    ours = evaluate(str(QRELS), [str(path)], MEASURES)
    compared = 0
    for column in ours.columns:
        want = np.array([expected[qid][column.name] for qid in ours.qids])
        np.testing.assert_allclose(column.values[0], want, rtol=0, atol=1e-9, err_msg=column.name)
        compared += 1
    assert compared == 78        # every output column of the measures above


@pytest.mark.parametrize("level", [2, 4])
def test_queries_without_relevant_documents_as_trec_eval(level):
    """At -l 4, 158 of Cranfield's 225 queries have no relevant document:
    trec_eval evaluates them (and counts them in num_q); so must we, for
    every query and every summary (gm_map's floor included)."""
    path = EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz"
    judgements = read(QRELS, int)
    expected = pytrec_eval.RelevanceEvaluator(judgements, set(MEASURES) | {"gm_map", "gm_bpref"},
                                              relevance_level=level).evaluate(read(path, float))
    ours = evaluate(str(QRELS), [str(path)], MEASURES + ["gm_map", "gm_bpref", "num_q"], level=level)
    without = [qid for qid, docs in judgements.items() if max(docs.values()) < level]
    assert len(without) == (158 if level == 4 else 3)
    assert set(ours.qids) == set(expected) == set(judgements)
    for column in ours.columns:
        if column.measure.per_query:
            want = np.array([expected[qid][column.name] for qid in ours.qids])
            np.testing.assert_allclose(column.values[0], want, rtol=0, atol=1e-9, err_msg=column.name)
    num_q = ours.summary(ours.column("num_q"))[0]
    assert num_q == 225
    for name in ("gm_map", "gm_bpref"):   # pytrec_eval gives log values per query
        logs = [expected[qid][name] for qid in ours.qids]
        np.testing.assert_allclose(ours.summary(ours.column(name))[0], np.exp(np.mean(logs)), rtol=1e-12)
    assert ours.compared.sum() == 225 - len(without)
