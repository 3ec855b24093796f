"""Hand-computed examples from the seeds (seed 001: AP and nDCG tables)."""

import pytest
from conftest import run_lines, write

from lexeval import evaluate


def evaluate_one(tmp_path, qrels_text, run_text, measures, name="run"):
    qrels = write(tmp_path / "qrels", qrels_text)
    run = write(tmp_path / name, run_text)
    return evaluate(str(qrels), [str(run)], measures)


def ranking(relevant_ranks, depth=10, prefix="d"):
    docs = [f"{prefix}{rank}" for rank in range(1, depth + 1)]
    qrels = "".join(f"1 0 {prefix}{rank} 1\n" for rank in relevant_ranks)
    return docs, qrels


@pytest.mark.parametrize("relevant_ranks,expected", [
    ((1, 3, 4, 5, 6, 10), 0.78),   # seed 001, ranking A
    ((2, 5, 6, 7, 9, 10), 0.52),   # seed 001, ranking B
])
def test_average_precision_of_seed_rankings(tmp_path, relevant_ranks, expected):
    docs, qrels = ranking(relevant_ranks)
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": docs}), ["map"])
    # the seed rounds each precision to 2 decimals before averaging (A is 0.775 exactly)
    assert ev.column("map").values[0, 0] == pytest.approx(expected, abs=0.0051)


def test_unretrieved_relevant_document_counts_zero_precision(tmp_path):
    docs, qrels = ranking((1, 3))
    qrels += "1 0 missing 1\n"
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": docs}), ["map"])
    assert ev.column("map").values[0, 0] == pytest.approx((1 + 2 / 3) / 3)


def test_ndcg_table_of_seed_001(tmp_path):
    """Seed 001's nDCG example uses gains 2^r - 1; as qrels grades 7, 3, 1
    (for r = 3, 2, 1) the grade-gain nDCG of trec_eval gives the same table."""
    grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    gain = {3: 7, 2: 3, 1: 1, 0: 0}
    docs = [f"d{i}" for i in range(1, 11)]
    qrels = "".join(f"1 0 d{i} {gain[g]}\n" for i, g in enumerate(grades, start=1))
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": docs}), ["ndcg_cut.1,2,3,4,5,6,7,8,9,10"])
    got = [float(c.values[0, 0]) for c in ev.columns]
    table = [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90]
    assert got == pytest.approx(table, abs=0.0051)


def test_ndcg_gain_parameters_give_exponential_gains(tmp_path):
    grades = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    docs = [f"d{i}" for i in range(1, 11)]
    qrels = "".join(f"1 0 d{i} {g}\n" for i, g in enumerate(grades, start=1))
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": docs}), ["ndcg.1=1,2=3,3=7"])
    column = ev.columns[0]
    assert column.name == "ndcg_1=1,2=3,3=7"
    assert round(float(column.values[0, 0]), 2) == 0.90


def test_precision_recall_rr_rprec_by_hand(tmp_path):
    docs, qrels = ranking((2, 3, 7))
    qrels += "1 0 x1 1\n"      # 4 relevant, one never retrieved
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": docs}), ["P.1,5,10", "recall.5", "recip_rank", "Rprec"])
    values = {c.name: float(c.values[0, 0]) for c in ev.columns}
    assert values == pytest.approx({"P_1": 0.0, "P_5": 0.4, "P_10": 0.3, "recall_5": 0.5,
                                    "recip_rank": 0.5, "Rprec": 0.5})


def test_bpref_by_hand(tmp_path):
    # ranking: n1 (judged non-rel), r1, u (unjudged), n2, r2; R = 3 (r3 unretrieved), N = 2
    qrels = "1 0 r1 1\n1 0 r2 1\n1 0 r3 1\n1 0 n1 0\n1 0 n2 0\n"
    ev = evaluate_one(tmp_path, qrels, run_lines({"1": ["n1", "r1", "u", "n2", "r2"]}), ["bpref"])
    # r1: 1 - 1/min(2,3); r2: 1 - 2/2; r3: 0  ->  (0.5 + 0 + 0) / 3
    assert ev.column("bpref").values[0, 0] == pytest.approx(0.5 / 3)
