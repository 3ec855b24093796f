"""--tie-order: the file's line order (input), and every measure's expected
value over every order of tied documents (expected) against the mean over
all those orders, enumerated: for every (run, query) ranking and every
order of each block of tied scores, a query of its own whose scores force
that order, all evaluated in one call in trec_eval's order."""

import itertools
import math
import random

import numpy as np
import pytest
from conftest import write_trec as write

from lexeval import evaluate
from lexeval.errors import UsageError
from lexeval.measures.registry import MEASURES, ORDER_FREE

SHAPES = ["7", "0007", "d1", "D1", "clueweb12-0000tw-00-00012", "a.b:c/d", "dóc-β", "x" * 30, "10", "1e5",
          "-3", "ZZ", "é", "0", "00", "Q0"]

ASKED = [
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "recip_rank", "P.1,2,3,5", "recall.1,3,5",
    "Rprec_mult.0.5,1.5", "utility.1,-1,0,0", "dcg", "ideal_dcg", "ndcg", "nDCG(gains={1:2,2:5})",
    "ndcg_cut.1,3,6", "nDCG(gains={1:1,2:9})@3", "map_cut.2,4", "relative_P.2,4", "success.1,2,4", "set_P",
    "set_recall", "set_map", "set_F", "set_relative_P", "num_nonrel_judged_ret", "unj.2,5", "recip_rank.2",
    "judged.2,5", "judged_ret", "ndcg_burges", "dcg_burges", "dcg_exp.3", "ndcg_exp.2,6", "hits", "hits.2",
    "hit_rate", "dcg_cut.3", "F1.2,4",
]


def collection(seed: int, top_grade: int, fractional: bool = False):
    """(qrels, runs) with runs as {qid: [(docno, score)]}, scores drawn from
    a few values so that many tie; at most about 1,500 orders in all;
    ``fractional``: grades such as 0.5 and 1.25 (io.fractional)."""
    rng = random.Random(seed)
    positive = [0.5, 1, 1.25, 2.5][:top_grade + 2] if fractional else list(range(1, top_grade + 1))
    while True:
        qrels, runs = {}, [{} for _ in range(rng.randint(1, 2))]
        for q in range(rng.randint(1, 3)):
            qid = rng.choice(["q", "301", "1.5"]) + str(q)
            docs = rng.sample(SHAPES, rng.randint(3, 9))
            judged = docs[:rng.randint(1, len(docs))]
            qrels[qid] = {doc: rng.choice([-1, 0, 0] + positive) for doc in judged}
            for run in runs:
                ranked = rng.sample(docs, rng.randint(1, len(docs)))
                run[qid] = [(doc, float(rng.randint(1, 3))) for doc in ranked]
        orders = math.prod(math.factorial(count) for run in runs for ranking in run.values()
                           for count in _block_sizes(ranking))
        if orders <= 1500:
            return qrels, runs


def _block_sizes(ranking):
    scores = [score for _, score in ranking]
    return [scores.count(value) for value in set(scores)]




def every_order(qrels, runs):
    """One query per (run, query, order of its tied blocks), scores forcing that order."""
    new_qrels, new_run, owner = {}, {}, {}
    for index, run in enumerate(runs):
        for qid, ranking in run.items():
            blocks = {}
            for doc, score in ranking:
                blocks.setdefault(score, []).append(doc)
            ordered = sorted(blocks.items(), reverse=True)
            for number, orders in enumerate(itertools.product(*(itertools.permutations(docs)
                                                                for _, docs in ordered))):
                name = f"e{index}_{qid}_{number}"
                docs = [doc for block in orders for doc in block]
                new_qrels[name] = qrels[qid]
                new_run[name] = [(doc, float(len(docs) - place)) for place, doc in enumerate(docs)]
                owner[name] = (f"run{index}", qid)
    return new_qrels, [new_run], owner


@pytest.mark.parametrize("seed,top_grade,options", [(seed, top_grade, options) for seed in range(6)
                                                    for top_grade, options in ((1, {}), (2, {}), (2, {"level": 2}),
                                                                               (1, {"judged_only": True}),
                                                                               (2, {"complete": True}),
                                                                               (2, {"fractional": True}),
                                                                               (2, {"fractional": True,
                                                                                    "level": 1.25}))])
def test_expected_values_are_the_mean_over_every_order(tmp_path, seed, top_grade, options):
    options = dict(options)
    qrels, runs = collection(seed, top_grade, options.pop("fractional", False))
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    ev = evaluate(qrels_path, paths, ASKED, tie_order="expected", **options)
    new_qrels, new_runs, owner = every_order(qrels, runs)
    if options.get("judged_only"):          # -J removes unjudged documents before the orders are drawn
        new_runs = [{q: kept for q, docs in run.items() if (kept := [(d, s) for d, s in docs
                                                                       if d in new_qrels[q] and new_qrels[q][d] >= 0])}
                    for run in new_runs]
        if not new_runs[0]:
            pytest.skip("every ranked document unjudged: -J leaves nothing")
    every_path, every_paths = write(tmp_path, "every", new_qrels, new_runs)
    reference = evaluate(every_path, every_paths, ASKED, **options)
    sums: dict = {}
    for column in reference.columns:
        if not column.measure.per_query or column.measure.text:
            continue
        for position, qid in enumerate(reference.qids):
            if not reference.included[0, position] and not options.get("complete"):
                continue
            key = (column.name, *owner[qid])
            total, count = sums.get(key, (0.0, 0))
            sums[key] = (total + column.values[0, position], count + 1)
    checked = 0
    for column in ev.columns:
        if not column.measure.per_query or column.measure.text:
            continue
        for r, run in enumerate(ev.run_names):
            for q, qid in enumerate(ev.qids):
                if (column.name, run, qid) not in sums:
                    continue
                total, count = sums[(column.name, run, qid)]
                assert column.values[r, q] == pytest.approx(total / count, abs=1e-12), (column.name, run, qid)
                checked += 1
    assert checked > 0


def test_input_order_keeps_the_lines_of_tied_scores_in_file_order(tmp_path):
    qrels, runs = collection(7, 2)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    in_input = evaluate(qrels_path, paths, ASKED, tie_order="input")
    # the same rankings with scores that leave no tie: each line's place in its query
    forced = [{q: [(d, float(len(docs) - place)) for place, (d, _) in
                   enumerate(sorted(docs, key=lambda item: -item[1]))] for q, docs in run.items()} for run in runs]
    forced_path, forced_paths = write(tmp_path, "forced", qrels, forced)
    reference = evaluate(forced_path, forced_paths, ASKED)
    for mine, theirs in zip(in_input.columns, reference.columns):
        assert mine.name == theirs.name
        np.testing.assert_array_equal(mine.values, theirs.values, err_msg=mine.name)


def test_every_measure_says_what_it_is_under_expected():
    for measure in MEASURES:
        assert measure.expected is None or measure.expected == ORDER_FREE or callable(measure.expected)


@pytest.mark.parametrize("asked,message", [(["bpref"], "bpref"), (["map", "LP"], "LP")])
def test_measures_without_an_expected_value_are_refused_by_name(tmp_path, asked, message):
    qrels, runs = collection(1, 1)
    runs = runs + runs
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    with pytest.raises(UsageError, match=message):
        evaluate(qrels_path, paths, asked, tie_order="expected")


def test_expected_with_depth_or_bounds_is_refused(tmp_path):
    qrels, runs = collection(1, 1)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    with pytest.raises(UsageError, match="DEPTH"):
        evaluate(qrels_path, paths, ["map"], tie_order="expected", depth=3)
    with pytest.raises(UsageError, match="bounds"):
        evaluate(qrels_path, paths, ["map"], tie_order="expected", bounds=True)
    with pytest.raises(UsageError):
        evaluate(qrels_path, paths, ["map"], tie_order="random")


@pytest.mark.parametrize("seed", range(4))
def test_the_score_ties_report_gives_the_least_and_greatest_over_every_order(tmp_path, seed):
    from lexeval.reports import ReportOptions, run_reports
    qrels, runs = collection(seed + 20, 2)
    while not any(grade >= 1 for judged in qrels.values() for grade in judged.values()):
        seed += 100
        qrels, runs = collection(seed + 20, 2)
    runs = runs if len(runs) > 1 else runs + [{q: list(reversed(docs)) for q, docs in runs[0].items()}]
    asked = ["map", "P.1,3", "ndcg_cut.3", "recip_rank", "recall.2", "Rprec"]
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    ev = evaluate(qrels_path, paths, asked, warn=lambda _: None)
    lines = run_reports(ev, ["score-ties"], ReportOptions())
    reported = {(line.measure, line.parameter): line.value for line in lines}
    new_qrels, new_runs, owner = every_order(qrels, runs)
    every_path, every_paths = write(tmp_path, "every", new_qrels, new_runs)
    reference = evaluate(every_path, every_paths, asked, warn=lambda _: None)
    for column in reference.columns:
        extremes: dict = {}
        for position, qid in enumerate(reference.qids):
            if reference.included[0, position]:
                key = owner[qid]
                low, high = extremes.get(key, (np.inf, -np.inf))
                value = column.values[0, position]
                extremes[key] = (min(low, value), max(high, value))
        for run in ev.run_names:
            mine = [extremes[key] for key in extremes if key[0] == run]
            assert reported[(column.name, f"low:{run}")] == pytest.approx(np.mean([lo for lo, _ in mine]))
            assert reported[(column.name, f"high:{run}")] == pytest.approx(np.mean([hi for _, hi in mine]))
            assert reported[(column.name, f"queries:{run}")] == sum(lo != hi for lo, hi in mine)
