"""--bounds against enumeration: on small random collections every bound
equals the least and the greatest value over every assignment of grades to
the unjudged documents a ranking holds.

The reference builds, for every (run, query) ranking and every assignment
of grades 0..G to its unjudged documents, a query of its own whose qrels are
the query's plus that assignment, and evaluates them all in one call without
--bounds: only the measures' kernels, never the bounds' code, make it."""

import itertools
import random
import sys

import numpy as np
import pytest
from conftest import write_trec as write

from lexeval import evaluate
from lexeval.errors import UsageError
from lexeval.measures.registry import BOUNDS_FIXED, MEASURES

#: document identifiers of every shape: numbers with and without leading zeros, long, dotted, unicode
SHAPES = ["7", "0007", "d1", "D1", "clueweb12-0000tw-00-00012", "a.b:c/d", "dóc-β", "x" * 40, "10", "1e5",
          "-3", "doc_with_under", "ZZ", "é", "0", "00", "q1", "Q0"]

#: every measure with bounds, with parameters that reach past the rankings and stay inside them
ASKED = [
    "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "recip_rank", "P.1,3,5", "recall.2,5,20",
    "Rprec_mult.0.5,1.5", "utility.1,-1,0,0", "dcg", "ideal_dcg", "ndcg", "nDCG(gains={1:2,2:5})",
    "nDCG(gains={1:2,3:1})@4", "ndcg_cut.2,4,30", "map_cut.2,4,30", "relative_P.2,5", "success.1,3", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "SetF(beta=0.5)", "num_nonrel_judged_ret", "recip_rank.3",
    "err.3,10", "ndcg_burges", "dcg_burges", "dcg_exp.3", "ndcg_exp.3,10", "hits", "hits.3", "hit_rate", "dcg_cut.3",
    "F1.2,5",
]


def collection(seed: int, top_grade: int, max_holes: int):
    """(qrels {qid: {docno: grade}}, runs [{qid: [docno...]}]) with up to
    ``max_holes`` unjudged documents per ranking, some judged -1."""
    rng = random.Random(seed)
    qrels, runs = {}, [{} for _ in range(rng.randint(1, 3))]
    for q in range(rng.randint(1, 3)):
        qid = rng.choice(["q", "Q", "301", "1.5"]) + str(q)
        docs = rng.sample(SHAPES, rng.randint(4, len(SHAPES)))
        judged = docs[:rng.randint(1, len(docs) - 1)]
        qrels[qid] = {doc: rng.choice([-1] + list(range(top_grade + 1)) * 3) for doc in judged}
        if rng.random() < 0.2:
            qrels[qid] = {doc: min(grade, 0) for doc, grade in qrels[qid].items()}   # nothing relevant yet
        for run in runs:
            if rng.random() < 0.15:
                continue                                            # the run lacks the query
            unjudged = [doc for doc in docs if doc not in qrels[qid] or qrels[qid][doc] < 0]
            holes = rng.sample(unjudged, min(len(unjudged), rng.randint(0, max_holes)))
            judged_ranked = rng.sample([doc for doc in docs if doc not in unjudged],
                                       rng.randint(0, len(docs) - len(unjudged)))
            ranking = holes + judged_ranked
            rng.shuffle(ranking)
            if ranking:
                run[qid] = ranking
    return qrels, [run for run in runs if run] or [{next(iter(qrels)): [SHAPES[0]]}]




def enumerated(qrels, runs):
    """One query per (run, query, assignment): its qrels the query's with the
    ranking's unjudged documents graded 0 up to the qrels' highest grade as
    the assignment says."""
    top_grade = max(0, *(grade for judged in qrels.values() for grade in judged.values()))
    new_qrels, new_run, owner = {}, {}, {}
    for index, run in enumerate(runs):
        for qid, docs in run.items():
            holes = [doc for doc in docs if doc not in qrels[qid] or qrels[qid][doc] < 0]
            for number, grades in enumerate(itertools.product(range(top_grade + 1), repeat=len(holes))):
                name = f"e{index}_{qid}_{number}"
                new_qrels[name] = {**qrels[qid], **dict(zip(holes, grades))}
                new_run[name] = docs
                owner[name] = (f"run{index}", qid)
    return new_qrels, [new_run], owner


def extremes(tmp, qrels, runs, asked, options):
    new_qrels, new_runs, owner = enumerated(qrels, runs)
    qrels_path, paths = write(tmp, "enumerated", new_qrels, new_runs)
    ev = evaluate(qrels_path, paths, asked, **options)
    out = {}
    for column in ev.columns:
        if not column.measure.per_query:
            continue
        for position, qid in enumerate(ev.qids):
            key = (column.name, *owner[qid])
            value = column.values[0, position]
            low, high = out.get(key, (np.inf, -np.inf))
            out[key] = (min(low, value), max(high, value))
    return out


CASES = [(seed, top_grade, options) for seed in range(8) for top_grade, options in
         ((1, {}), (2, {}), (2, {"level": 2}), (1, {"depth": 3}), (2, {"complete": True}))]


@pytest.mark.parametrize("seed,top_grade,options", CASES)
def test_bounds_equal_the_extremes_over_every_assignment(tmp_path, seed, top_grade, options):
    qrels, runs = collection(seed, top_grade, max_holes=7 if top_grade == 1 else 5)
    if "depth" in options:                                  # -M: only the top documents' holes count
        runs = [{q: docs[:options["depth"]] for q, docs in run.items()} for run in runs]
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    ev = evaluate(qrels_path, paths, ASKED, bounds=True, **options)
    expected = extremes(tmp_path, qrels, runs, ASKED, {k: v for k, v in options.items()
                                                                  if k == "level"})
    checked = 0
    for column in ev.columns:
        if not column.name.endswith(("_low", "_high")) or not column.measure.per_query:
            continue
        name, side = column.name.rsplit("_", 1)
        for r, run in enumerate(ev.run_names):
            for q, qid in enumerate(ev.qids):
                if qid not in runs[r]:
                    continue                                # an empty ranking: no holes, the value itself
                low, high = expected[(name, run, qid)]
                assert column.values[r, q] == pytest.approx(low if side == "low" else high, abs=1e-12), \
                    (column.name, run, qid)
                checked += 1
    assert checked > 0


def test_every_bound_brackets_the_value_and_the_mean_is_the_mean_of_bounds(tmp_path):
    qrels, runs = collection(3, 2, 5)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    ev = evaluate(qrels_path, paths, ASKED, bounds=True)
    for column in ev.columns:
        if column.name.endswith("_low") and column.measure.per_query:
            name = column.name[:-4]
            value, low, high = ev.values(name), ev.values(name + "_low"), ev.values(name + "_high")
            assert np.all((low <= value + 1e-12) | np.isnan(value))
            assert np.all((value <= high + 1e-12) | np.isnan(value))
            if column.measure.summary == "mean":
                assert ev.summary_of(name + "_low") == pytest.approx(np.nanmean(low, axis=1))


def test_rankings_judged_only_refuse_bounds(tmp_path):
    qrels, runs = collection(1, 1, 4)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    with pytest.raises(UsageError, match="unjudged"):
        evaluate(qrels_path, paths, ["map"], bounds=True, judged_only=True)


def test_a_measure_without_exact_bounds_is_refused_by_name(tmp_path):
    qrels, runs = collection(1, 1, 4)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    with pytest.raises(UsageError, match="bpref"):
        evaluate(qrels_path, paths, ["map", "bpref"], bounds=True)


def test_the_table_says_how_every_measure_that_reads_judgements_is_bounded():
    for measure in MEASURES:
        assert measure.bounds in ("", BOUNDS_FIXED) or measure.compute is not None, measure.name


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_sweeps_equal_numpys(tmp_path, monkeypatch, seed):
    """AP's, map_cut's, Rprec's and Rprec_mult's bounds: the compiled kernel
    and the numpy sweeps with the measures' kernels give the same floats."""
    qrels, runs = collection(seed + 100, 2, 12)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    asked = ["map", "map_cut.2,5,1000", "Rprec", "Rprec_mult.0.2,1.4"]
    compiled = evaluate(qrels_path, paths, asked, bounds=True, level=seed % 2 + 1)
    monkeypatch.setenv("LEXEVAL_KERNEL", "off")
    reference = evaluate(qrels_path, paths, asked, bounds=True, level=seed % 2 + 1)
    for mine, theirs in zip(compiled.columns, reference.columns):
        assert mine.name == theirs.name
        np.testing.assert_array_equal(mine.values, theirs.values, err_msg=mine.name)


# ---------------------------------------------------------------- the command line, the page, the gate

def _shallow(*options):
    from conftest import EXAMPLES, run_cli
    return run_cli([*options, EXAMPLES / "shallow" / "qrels.txt", EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz",
                    EXAMPLES / "cranfield" / "runs" / "lsi200.gz"])


def test_a_shallow_pools_win_is_fragile_in_text_json_and_the_table():
    text = _shallow("--bounds", "-m", "P.10", "-m", "LP")
    assert text.code == 0
    lines = dict(line.rsplit("\t", 1) for line in text.out.splitlines())
    pair = "bm25okapi:lsi200\t"
    assert lines[pair + "P_10_fragile          \tall"] == "1"
    low, high = float(lines[pair + "P_10_low              \tall"]), float(lines[pair + "P_10_high             \tall"])
    assert low < 0 < high
    assert "no exact bounds" not in text.err or "LP" not in text.err.split("two runs for")[-1]
    records = [__import__("json").loads(line) for line in _shallow("--bounds", "-m", "P.10", "--format",
                                                                      "json").out.splitlines()]
    assert any(r["key"] == "bm25okapi:lsi200" and r["measure"] == "P_10_fragile" and r["value"] == 1
               for r in records)
    table = _shallow("--bounds", "-m", "P.10", "--format", "table")
    assert "▲1 ?1" in table.out and "unjudged documents judged" in " ".join(table.out.split())


def test_the_gate_warns_where_its_verdict_could_reverse():
    done = _shallow("--bounds", "-m", "P.10", "--baseline", "lsi200", "--gate", "P_10")
    assert done.code == 0
    assert "the gate's verdict on bm25okapi for P_10 could reverse were the unjudged documents judged" in done.err


def test_the_page_draws_the_bounds_as_whiskers():
    import json
    import re
    page = _shallow("--bounds", "-m", "P.10", "--baseline", "lsi200", "--format", "html").out
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
    entry = data["forest"]["measures"]["P_10"]
    assert {"bound_low", "bound_high", "difference_bound_low", "difference_bound_high", "fragile"} <= set(entry)


@pytest.mark.parametrize("options,message", [(["--bounds", "-J"], "unjudged"), (["--tie-order", "random"], "tie"),
                                             (["--bounds", "-Z", "zscores.txt"], "z-scores")])
def test_bad_combinations_are_usage_errors(options, message):
    done = _shallow(*options)
    assert done.code == 2 and "lexeval: error:" in done.err and message in done.err


@pytest.mark.parametrize("kernel", ["on", "off"])
def test_documents_whose_hashes_collide_are_told_apart_by_their_bytes(tmp_path, monkeypatch, kernel):
    """The unjudged documents' numbers (the compiled kernel's hash table per
    query, or numpy's sort of hashes), with every hash alike."""
    from conftest import colliding_hashes

    from lexeval.io import kernel as reading_kernel
    from lexeval.io import strings
    if kernel == "on" and reading_kernel._kernel is None:
        pytest.skip("the compiled reading kernel is not built")
    monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
    qrels, runs = collection(11, 1, 8)
    runs = runs + [{q: list(reversed(docs)) for q, docs in runs[0].items()}]
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    honest = evaluate(qrels_path, paths, ["P.3", "LP"], bounds=True).rankings
    original = strings.ByteStrings.hash64

    def colliding_in_numbering(self):          # every unjudged docno of a query hashes alike
        if sys._getframe(1).f_code.co_name == "hole_identities":
            return np.zeros(len(self), dtype=np.uint64)
        return original(self)
    monkeypatch.setattr(strings.ByteStrings, "hash64", colliding_in_numbering)
    if kernel == "on":
        with colliding_hashes():
            colliding = evaluate(qrels_path, paths, ["P.3", "LP"], bounds=True).rankings
    else:
        colliding = evaluate(qrels_path, paths, ["P.3", "LP"], bounds=True).rankings
    np.testing.assert_array_equal(honest.hole_counts, colliding.hole_counts)
    # the same documents share a number, whatever the numbers are
    same = honest.hole_ids[:, None] == honest.hole_ids[None, :]
    queries = np.repeat(np.tile(np.arange(honest.num_queries), honest.num_runs), honest.lengths)
    within = queries[:, None] == queries[None, :]
    np.testing.assert_array_equal(same & within, (colliding.hole_ids[:, None] == colliding.hole_ids[None, :]) & within)
