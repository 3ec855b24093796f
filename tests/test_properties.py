"""Property tests: lexeval's vectorised measures against the naive reference
on random qrels and runs (ties, negative grades, unjudged documents,
queries missing from runs)."""

import math
from pathlib import Path

import numpy as np
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexeval import evaluate

DOCS = [f"d{i:02d}" for i in range(14)] + ["x", "y1", "y10"]


@st.composite
def collections(draw, max_runs=3):
    num_queries = draw(st.integers(1, 4))
    qrels = {}
    for q in range(1, num_queries + 1):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        grades = draw(st.lists(st.integers(-1, 3), min_size=len(judged), max_size=len(judged)))
        if not any(g >= 1 for g in grades):
            grades[0] = draw(st.integers(1, 3))
        qrels[str(q)] = dict(zip(judged, grades))
    runs = []
    for _ in range(draw(st.integers(1, max_runs))):
        run = {}
        for q in qrels:
            if draw(st.booleans()) and draw(st.booleans()):
                continue                       # query missing from this run (1 in 4)
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
            scores = draw(st.lists(st.integers(0, 4), min_size=len(docs), max_size=len(docs)))
            run[q] = list(zip(docs, [float(s) for s in scores]))
        if run:
            runs.append(run)
    if not runs:
        runs.append({"1": [("d00", 1.0)]})
    return qrels, runs


def write_files(tmp: Path, qrels, runs):
    (tmp / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()))
    paths = []
    for index, run in enumerate(runs):
        lines = [f"{q} Q0 {d} 0 {s} r" for q, docs in run.items() for d, s in docs]
        path = tmp / f"run{index}"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(tmp / "qrels"), paths


CHECKS = {
    "map": ref.average_precision,
    "P_1": lambda r, j: ref.precision_at(r, j, 1),
    "P_5": lambda r, j: ref.precision_at(r, j, 5),
    "recall_3": lambda r, j: ref.recall_at(r, j, 3),
    "recip_rank": ref.reciprocal_rank,
    "Rprec": ref.r_precision,
    "bpref": ref.bpref,
    "success_2": lambda r, j: ref.success_at(r, j, 2),
    "ndcg_cut_3": lambda r, j: ref.ndcg_at(r, j, 3),
    "ndcg_cut_10": lambda r, j: ref.ndcg_at(r, j, 10),
    "ndcg": lambda r, j: ref.ndcg_at(r, j, 10 ** 6),
    "iprec_at_recall_0.00": lambda r, j: ref.interpolated_precision_at(r, j, 0.0),
    "iprec_at_recall_0.50": lambda r, j: ref.interpolated_precision_at(r, j, 0.5),
    "iprec_at_recall_1.00": lambda r, j: ref.interpolated_precision_at(r, j, 1.0),
    "set_F": ref.set_f,
    "unj_5": lambda r, j: ref.unjudged_at(r, j, 5),
}
MEASURES = ["map", "P.1,5", "recall.3", "recip_rank", "Rprec", "bpref", "success.2",
            "ndcg_cut.3,10", "ndcg", "iprec_at_recall.0,0.5,1", "set_F", "unj.5"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections())
def test_measures_match_naive_reference(tmp_path_factory, collection):
    qrels, runs = collection
    qrels_path, run_paths = write_files(tmp_path_factory.mktemp("c"), qrels, runs)
    ev = evaluate(qrels_path, run_paths, MEASURES, complete=True)
    evaluated = [q for q in sorted(qrels) if ref.num_rel(qrels[q]) > 0]
    assert ev.qids == evaluated
    for column in ev.columns:
        check = CHECKS[column.name]
        for run_index, run in enumerate(runs):
            for query_index, qid in enumerate(evaluated):
                ranking = ref.ranked(run.get(qid, []))
                want = check(ranking, qrels[qid])
                got = column.values[run_index, query_index]
                assert math.isclose(got, want, abs_tol=1e-12), (column.name, run_index, qid, got, want)
        # with -c every query counts, so the summary is the plain mean
        np.testing.assert_allclose(ev.summary(column), column.values.mean(axis=1), atol=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections())
def test_order_of_lines_in_file_does_not_matter(tmp_path_factory, collection):
    qrels, runs = collection
    qrels_path, run_paths = write_files(tmp_path_factory.mktemp("o"), qrels, runs)
    forward = evaluate(qrels_path, run_paths, ["all_trec"])
    for path in run_paths:
        lines = Path(path).read_text().splitlines()
        Path(path).write_text("\n".join(reversed(lines)) + "\n")
    backward = evaluate(qrels_path, run_paths, ["all_trec"])
    for a, b in zip(forward.columns, backward.columns):
        if a.measure.text:
            continue
        np.testing.assert_array_equal(a.values, b.values, err_msg=a.name)
