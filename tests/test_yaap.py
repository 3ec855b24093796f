"""yaap (trec_eval's m_yaap.c): log((1 + S) / (1 + R - S)), S the sum of
the precision at every relevant retrieved document (AP x R), on trec_eval's
conformance inputs, with AP checked against trec_eval's own output."""

import math

import pytest
from conftest import CONFORMANCE, run_cli

from lexeval import evaluate


def test_yaap_is_robertsons_formula():
    printed = {}
    for line in (CONFORMANCE / "out.test.aq").read_text().splitlines():
        measure, qid, value = (field.strip() for field in line.split("\t"))
        printed.setdefault(qid, {})[measure] = value
    ev = evaluate(str(CONFORMANCE / "qrels.test"), [str(CONFORMANCE / "results.test")], ["yaap", "map", "num_rel"])
    for index, qid in enumerate(ev.qids):
        ap, relevant = ev.column("map").values[0, index], ev.column("num_rel").values[0, index]
        assert f"{ap:6.4f}" == printed[qid]["map"]                        # AP is trec_eval's
        total = ap * relevant
        assert ev.column("yaap").values[0, index] == pytest.approx(math.log((1 + total) / (1 + relevant - total)),
                                                                    rel=1e-12)
    result = run_cli(["-q", "-m", "yaap", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    assert [line.split("\t")[1] for line in result.lines()] == ["301", "302", "303", "all"]
    assert "yaap" not in run_cli(["-m", "all_trec", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"]).out
