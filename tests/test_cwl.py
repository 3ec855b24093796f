"""cwl_eval's C/W/L measures by ir_measures' names (INST, INSQ, BPM, SDCG,
NERR8-11): per query equal to ir_measures with its cwl_eval provider, on
runs without tied scores (ir_measures keeps a file's order for ties), and a
hand-computed example."""

from __future__ import annotations

import gzip
import math

import pytest
from conftest import DL19, EXAMPLES, write
from test_ranx_names import untied

from lexeval import evaluate
from lexeval.measures.names import output_names

CRANFIELD_QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
CRANFIELD_RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))[:1]

NAMES = ["INST(max_rel={top})", "INST(T=3,max_rel={top})", "INSQ(T=2,max_rel={top})", "BPM(T=1,max_rel={top})@10",
         "BPM(T=2,max_rel={top})@20", "SDCG(max_rel={top})@10", "SDCG(min_rel=1,max_rel={top})@5",
         "NERR8(max_rel={top})@10", "NERR9(max_rel={top})@10", "NERR10(p=0.8,max_rel={top})",
         "NERR11(T=2,max_rel={top})"]


def _lines(path):
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode().splitlines()


def _compare(qrels_path, run_path, top, tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    names = [name.format(top=top) for name in NAMES]
    qrels = [ir_measures.Qrel(f[0], f[2], int(f[3])) for f in (line.split() for line in _lines(qrels_path))]
    path = untied(run_path, tmp_path) if run_path.suffix == ".gz" else run_path
    run = [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in (line.split() for line in _lines(path))]
    ev = evaluate(str(qrels_path), [str(path)], names, warn=lambda text: None)
    judged = {qrel.query_id for qrel in qrels}
    for name in names:
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}
        ours = dict(zip(ev.qids, ev.column(output_names(name)[0]).values[0]))
        assert len(theirs) > 40
        for qid, value in theirs.items():
            if qid in judged:
                assert ours[qid] == pytest.approx(value, abs=1e-9), (name, qid)


@pytest.mark.parametrize("run", CRANFIELD_RUNS, ids=lambda path: path.name)
def test_cranfield_equals_cwl_eval(run, tmp_path):
    _compare(CRANFIELD_QRELS, run, 4, tmp_path)


def test_dl19_graded_equals_cwl_eval(tmp_path):
    run = sorted((DL19 / "runs").glob("*.gz"))[0]
    _compare(DL19 / "qrels.txt", run, 3, tmp_path)


def test_hand_computed_insq_and_sdcg(tmp_path):
    """One query, grades 0..2 (max_rel 2): gains 1, 0, 0.5 at ranks 1-3.
    SDCG@2: (1/log2 2 + 0) / (1 + 1/log2 3). INSQ(T=1): C_i = ((i+1)/(i+2))^2,
    so prod_{j<i} C_j = (2/(i+1))^2 and INSQ = sum g_i (2/(i+1))^2 / sum_{i<=1000} (2/(i+1))^2."""
    qrels = write(tmp_path / "qrels", "q 0 a 2\nq 0 b 0\nq 0 c 1\n")
    run = write(tmp_path / "run", "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n")
    ev = evaluate(str(qrels), [str(run)], ["SDCG@2", "INSQ"])
    assert ev.column("sdcg_k=2").values[0, 0] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-12)
    reached = [(2 / (i + 1)) ** 2 for i in range(1, 1001)]
    expected = (1 * reached[0] + 0.5 * reached[2]) / sum(reached)
    assert ev.column("insq").values[0, 0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("text,message", [
    ("BPM", "needs a cutoff"), ("SDCG(max_rel=3)", "needs a cutoff"), ("INST(k=3)", "does not know the parameter"),
    ("inst.foo=1", "no parameter 'foo'"), ("INST@10", "takes no cutoff"), ("SDCG@0", "positive"),
])
def test_bad_parameters_are_usage_errors(text, message, tmp_path):
    from lexeval.errors import UsageError
    with pytest.raises(UsageError, match=message):
        output_names(text)


def test_max_rel_must_be_above_min_rel(tmp_path):
    from conftest import run_cli
    qrels = write(tmp_path / "qrels", "q 0 a 1\n")
    run = write(tmp_path / "run", "q Q0 a 1 3 t\n")
    result = run_cli(["-m", "INST(min_rel=1,max_rel=1)", qrels, run])
    assert result.code == 2 and result.out == "" and "max_rel (1) must be above min_rel (1)" in result.err
