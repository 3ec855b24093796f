"""ir_measures' own measures (Compat, Accuracy) and its parameter syntax
(nDCG(gains=...)@k): per query equal to ir_measures itself, on runs without
tied scores (ir_measures orders ties its own way), real graded collections."""

from __future__ import annotations

import gzip

import pytest
from conftest import DL19, EXAMPLES, write
from test_ranx_names import untied

from lexeval import evaluate
from lexeval.measures.names import output_names

CRANFIELD_QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
CRANFIELD_RUN = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[0]

ir_measures = pytest.importorskip("ir_measures")


def _lines(path):
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode().splitlines()


def _per_query(qrels_path, run_path, names, provider, tmp_path, skip=lambda qid: False):
    qrels = [ir_measures.Qrel(f[0], f[2], int(f[3])) for f in (line.split() for line in _lines(qrels_path))]
    path = untied(run_path, tmp_path)
    run = [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in (line.split() for line in _lines(path))]
    ev = evaluate(str(qrels_path), [str(path)], names, warn=lambda text: None)
    judged = {qrel.query_id for qrel in qrels}
    compared = 0
    for name in names:
        measure = ir_measures.parse_measure(name)
        ours = dict(zip(ev.qids, ev.column(output_names(name)[0]).values[0]))
        for metric in provider.iter_calc([measure], qrels, run):
            if metric.query_id in judged and not skip(metric.query_id):
                assert ours[metric.query_id] == pytest.approx(metric.value, abs=1e-9), (name, metric.query_id)
                compared += 1
    return compared


@pytest.mark.parametrize("collection", ["cranfield", "dl19"])
def test_compat_equals_ir_measures(collection, tmp_path):
    qrels, run = (CRANFIELD_QRELS, CRANFIELD_RUN) if collection == "cranfield" else \
        (DL19 / "qrels.txt", sorted((DL19 / "runs").glob("*.gz"))[1])
    names = ["Compat", "Compat(p=0.8)", "Compat(p=0.99,normalize=False)"]
    assert _per_query(qrels, run, names, ir_measures.compat, tmp_path) > 100


def test_accuracy_equals_ir_measures_where_it_is_defined(tmp_path):
    names = ["Accuracy", "Accuracy@10", "Accuracy(rel=2)@20", "Accuracy(rel=3)"]
    assert _per_query(CRANFIELD_QRELS, CRANFIELD_RUN, names, ir_measures.accuracy, tmp_path) > 400


def test_accuracy_where_ir_measures_is_silent(tmp_path):
    """No relevant document in the top k: 0 (ir_measures leaves the query
    out); no non-relevant one: 1 (ir_measures divides by zero)."""
    qrels = write(tmp_path / "qrels", "a 0 r1 1\na 0 n1 0\nb 0 r2 1\nc 0 r3 1\n")
    run = write(tmp_path / "run", "a Q0 n1 1 9 t\na Q0 x 2 8 t\na Q0 r1 3 7 t\nb Q0 r2 1 9 t\nc Q0 y 1 9 t\n")
    ev = evaluate(str(qrels), [str(run)], ["Accuracy", "Accuracy@2"])
    assert dict(zip(ev.qids, ev.column("accuracy").values[0])) == {"a": 0.0, "b": 1.0, "c": 0.0}
    assert ev.column("accuracy_2").values[0].tolist() == [0.0, 1.0, 0.0]


def test_compat_by_hand(tmp_path):
    """Ideal (a, b): run (b, x, a), p = 0.5, depth 3. Overlaps at depth 1..3:
    0, 1, 2; RBO = (0 + 0.5 * 1/2 + 0.25 * 2/3) / 1.75; the ideal with itself:
    (1 + 0.5 + 0.25 * 2/3) / 1.75."""
    qrels = write(tmp_path / "qrels", "q 0 a 2\nq 0 b 1\nq 0 c 0\n")
    run = write(tmp_path / "run", "q Q0 b 1 3 t\nq Q0 x 2 2 t\nq Q0 a 3 1 t\n")
    ev = evaluate(str(qrels), [str(run)], ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"])
    raw = 0.5 * 1 / 2 + 0.25 * 2 / 3
    assert ev.column("compat_p=0.5").values[0, 0] == pytest.approx(raw / (1 + 0.5 + 0.25 * 2 / 3), abs=1e-12)
    assert ev.column("compat_p=0.5,normalize=0").values[0, 0] == pytest.approx(raw / 1.75, abs=1e-12)


def test_ndcg_with_gains_and_a_cutoff_equals_ir_measures(tmp_path):
    names = ["nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10", "nDCG(gains={1:0,2:1,3:2,4:5})@5"]
    assert _per_query(CRANFIELD_QRELS, CRANFIELD_RUN, names, ir_measures.pytrec_eval, tmp_path) > 400


def test_every_name_in_ir_measures_registry_is_known():
    """Each registered name (with a cutoff where it needs one) parses; ir_measures' own
    cwl_eval measures need max_rel, lexeval defaults it to the highest grade."""
    needs_cutoff = {"BPM", "ERR", "ERR_IA", "IPrec", "Judged", "NERR8", "NERR9", "P_IA", "Precision", "SDCG",
                    "StRecall", "Success", "alpha_DCG", "alpha_nDCG", "nERR_IA", "α_DCG", "α_nDCG"}
    names = sorted(ir_measures.measures.registry)
    assert len(names) > 45
    for name in names:
        text = f"{name}@10" if name in needs_cutoff else name
        assert output_names(text), name
