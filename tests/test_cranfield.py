"""Real runs: per-query MAP, P@10 and nDCG@10 against pytrec_eval's values
(printed with 6 decimals) for all twelve Cranfield systems."""

import csv

import numpy as np
import pytest
from conftest import CRANFIELD

from lexeval import evaluate


def reference(variant):
    values = {}
    with open(CRANFIELD / "eval" / f"pytrec_eval-{variant}.tsv") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            values[(row["runid"], row["measure"], row["qid"])] = float(row["value"])
    return values


@pytest.mark.parametrize("variant,suffix,limit", [("runs-100", "", None), ("runs-full", ".gz", 3)])
def test_agrees_with_pytrec_eval(variant, suffix, limit):
    ref = reference(variant)
    runs = sorted({key[0] for key in ref})[:limit]
    ev = evaluate(str(CRANFIELD / "qrels.txt"), [str(CRANFIELD / variant / (r + suffix)) for r in runs],
                  ["map", "P.10", "ndcg_cut.10"])
    assert len(ev.qids) == 225
    for column in ev.columns:
        want = np.array([[ref[(run, column.name, q)] for q in ev.qids] for run in runs])
        np.testing.assert_allclose(column.values, want, atol=5.1e-7, rtol=0)
        summary = np.array([ref[(run, column.name, "all")] for run in runs])
        np.testing.assert_allclose(ev.summary(column), summary, atol=5.1e-7, rtol=0)
