"""trec_eval's judgement formats beyond qrels (-R prefs, qrels_prefs,
qrels_jg): its own test outputs line for line, a plain loop-by-loop
reference on random collections, and the errors bad files get."""

from __future__ import annotations

import math

import pytest
from conftest import CONFORMANCE, EXAMPLES, run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import prefs_ranking, trec_prefs

from lexeval import evaluate
from lexeval.measures.prefs import NAMES

CASES = {
    "prefs": ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    "prefs-comments": ("out.test.prefs",
                       ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    "qrels_prefs": ("out.test.qrels_prefs",
                    ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
    "qrels_jg": ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    "qrels_jg-comments": ("out.test.qrels_jg",
                          ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_trec_eval(case):
    expected, args = CASES[case]
    result = run_cli([str(CONFORMANCE / a) if "." in a and not a.startswith("-") else a for a in args])
    assert result.code == 0, result.err
    assert result.out == (CONFORMANCE / expected).read_text()


def test_default_measures_follow_the_format():
    """No -m: trec_eval's 'prefs' set with -R prefs, 'qrels_jg' with -R qrels_jg."""
    prefs = run_cli(["-R", "prefs", CONFORMANCE / "prefs.test", CONFORMANCE / "prefs.results.test"]).lines()
    assert [line.split("\t")[0].strip() for line in prefs] == [
        "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg"]
    expected = [line for line in (CONFORMANCE / "out.test.prefs").read_text().splitlines()
                if "\tall\t" in line and line.split("\t")[0].strip() in
                ("runid", "num_q", "prefs_simp", "prefs_pair", "prefs_avgjg")]
    assert [line for line in prefs if line.split("\t")[0].strip() in
            ("runid", "num_q", "prefs_simp", "prefs_pair", "prefs_avgjg")] == expected
    groups = run_cli(["-R", "qrels_jg", CONFORMANCE / "qrels.123", CONFORMANCE / "results.test"]).lines()
    summary = [line for line in (CONFORMANCE / "out.test.qrels_jg").read_text().splitlines() if "\tall\t" in line]
    assert groups == summary


def test_all_prefs_is_trec_eval_set_and_lexicographic_is_lexevals(tmp_path):
    args = [CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"]
    refused = run_cli(["-m", "all_prefs", *args])
    assert refused.code == 2 and "-R prefs" in refused.err and "'lexicographic'" in refused.err
    runs = [write(tmp_path / "A", "1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n"), write(tmp_path / "B", "1 Q0 b 1 3 B\n")]
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 1\n")
    names = {line.split("\t")[1].strip() for line in run_cli(["-m", "lexicographic", qrels, *runs]).lines()}
    assert {"LP", "rrLP", "LR", "rrLR"} <= names


def test_avgjg_measures_need_qrels_jg():
    result = run_cli(["-m", "map_avgjg", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    assert result.code == 2 and "-R qrels_jg" in result.err and result.out == ""


# ---------------------------------------------------------------- random collections against the reference

DOCNOS = ["a", "b", "B", "ab", "a1", "a#1", "zz-9", "doc-0001", "doc-001", "Ä", "x" * 40, "x" * 39 + "y"]


@st.composite
def prefs_collections(draw):
    """Preference judgements (consistent within each group: a group's
    documents have one hidden level each, its subgroups see subsets) and
    runs with tied scores."""
    lines, queries = [], ["q1", "q10", "q2"][:draw(st.integers(1, 3))]
    for qid in queries:
        for group in range(draw(st.integers(1, 3))):
            docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=7, unique=True))
            level = {d: draw(st.sampled_from([0, 0, 1, 2, 3, 0.5, -1])) for d in docs}
            subgroups = draw(st.integers(1, 3))
            for sub in range(subgroups):
                members = docs if subgroups == 1 else draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
                for d in members:
                    lines.append((qid, f"g{group}", f"s{sub}", d, level[d]))
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        run = {}
        for qid in queries:
            if draw(st.integers(0, 4)) == 0:
                continue
            docs = draw(st.lists(st.sampled_from(DOCNOS + ["u1", "u2"]), min_size=1, max_size=8, unique=True))
            run[qid] = [(d, draw(st.integers(0, 3))) for d in docs]
        runs.append(run or {queries[0]: [("u1", 1.0)]})
    return lines, runs


def _write_prefs(tmp_path, lines, runs):
    prefs = write(tmp_path / "prefs", "".join(f"{q} {g} {s} {d} {v}\n" for q, g, s, d, v in lines))
    paths = [write(tmp_path / f"run{i}", "".join(f"{q} Q0 {d} 0 {s} r{i}\n" for q, docs in run.items()
                                                  for d, s in docs)) for i, run in enumerate(runs)]
    return prefs, paths


@settings(max_examples=160, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_prefs_measures_equal_a_plain_reading_of_trec_eval(tmp_path_factory, data):
    lines, runs = data.draw(prefs_collections())
    depth = data.draw(st.sampled_from([None, 1, 3]))
    tmp = tmp_path_factory.mktemp("prefs")
    prefs, paths = _write_prefs(tmp, lines, runs)
    ev = evaluate(str(prefs), [str(p) for p in paths], ["all_prefs"], rel_format="prefs", complete=True,
                  depth=depth, warn=lambda _: None)
    for r, run in enumerate(runs):
        for q, qid in enumerate(ev.qids):
            ranking = prefs_ranking(run.get(qid, []))[:depth]
            want = trec_prefs([(g, s, d, v) for lq, g, s, d, v in lines if lq == qid], ranking)
            for name in NAMES:
                got = ev.column(name).values[r, q]
                assert math.isclose(got, want[name], abs_tol=1e-12), (name, qid, r, got, want[name])


def test_prefs_with_ties_follow_docno_ascending(tmp_path):
    """trec_eval orders tied scores by docno ascending for preferences (its
    other measures use descending): with a > b, tied a and b fulfil it."""
    prefs = write(tmp_path / "prefs", "1 u s a 2\n1 u s b 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 5 r\n1 Q0 b 2 5 r\n")
    ev = evaluate(str(prefs), [str(run)], ["prefs_simp"], rel_format="prefs")
    assert ev.column("prefs_simp").values[0, 0] == 1.0
    swapped = write(tmp_path / "swapped", "1 u s b 2\n1 u s a 1\n")
    assert evaluate(str(swapped), [str(run)], ["prefs_simp"], rel_format="prefs").column("prefs_simp").values[0, 0] \
        == 0.0


def test_qrels_prefs_is_prefs_with_one_subgroup(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 2\n1 0 b 0\n1 1 c 1\n1 1 a 0\n2 0 d 1\n2 0 e 0\n")
    prefs = write(tmp_path / "prefs", "1 0 0 a 2\n1 0 0 b 0\n1 1 0 c 1\n1 1 0 a 0\n2 0 0 d 1\n2 0 0 e 0\n")
    run = write(tmp_path / "run", "1 Q0 b 1 3 r\n1 Q0 c 2 2 r\n1 Q0 a 3 1 r\n2 Q0 e 1 1 r\n")
    a = run_cli(["-q", "-m", "all_prefs", "-R", "qrels_prefs", qrels, run])
    b = run_cli(["-q", "-m", "all_prefs", "-R", "prefs", prefs, run])
    assert a.code == 0 and a.out == b.out


# ---------------------------------------------------------------- judgement groups

@st.composite
def group_collections(draw):
    judgements = {}
    for qid in ["1", "2", "3"][:draw(st.integers(1, 3))]:
        for group in draw(st.lists(st.sampled_from(["A", "B", "C10"]), min_size=1, max_size=3, unique=True)):
            for d in draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=6, unique=True)):
                judgements[(qid, group, d)] = draw(st.integers(-1, 2))
    queries = sorted({q for q, _, _ in judgements})
    run = {q: [(d, draw(st.integers(0, 4))) for d in draw(st.lists(st.sampled_from(DOCNOS + ["u"]), min_size=1,
                                                                     max_size=8, unique=True))]
           for q in queries}
    return judgements, run


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_avgjg_is_the_mean_over_groups_of_ordinary_measures(tmp_path_factory, data):
    """map_avgjg, P_avgjg, Rprec_mult_avgjg: each group's qrels evaluated
    on its own (lexeval's map, P, Rprec_mult, checked against trec_eval
    elsewhere), averaged over the groups that judge the query."""
    judgements, run = data.draw(group_collections())
    judged_only = data.draw(st.booleans())
    tmp = tmp_path_factory.mktemp("jg")
    qrels = write(tmp / "qrels", "".join(f"{q} {g} {d} {v}\n" for (q, g, d), v in judgements.items()))
    run_path = write(tmp / "run", "".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items() for d, s in docs))
    ev = evaluate(str(qrels), [str(run_path)], ["qrels_jg"], rel_format="qrels_jg", judged_only=judged_only)
    groups = sorted({g for _, g, _ in judgements})
    per_group = {}
    for g in groups:
        lines = "".join(f"{q} 0 {d} {v}\n" for (q, gg, d), v in judgements.items() if gg == g)
        path = write(tmp / f"qrels.{g}", lines)
        per_group[g] = evaluate(str(path), [str(run_path)], ["map", "P", "Rprec_mult"], judged_only=judged_only,
                                complete=True, warn=lambda _: None)
    for column in ev.columns:
        if column.measure.compute is None:
            continue
        plain = column.name.replace("_avgjg", "")
        for q, qid in enumerate(ev.qids):
            values = [per_group[g].column(plain).values[0, per_group[g].qids.index(qid)]
                      for g in groups if qid in per_group[g].qids]
            assert math.isclose(column.values[0, q], sum(values) / len(values), abs_tol=1e-12), (column.name, qid)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("text, format, message", [
    ("1 g s a 1\n1 g a 1\n", "prefs", "prefs:2: expected 5 columns"),
    ("1 g s a high\n", "prefs", "prefs:1: 'high' is not a number"),
    ("1 g s a 1\n1 g s a 2\n", "prefs", "prefs:2: document 'a' of query '1' is judged twice"),
    ("1 g a 1.5\n", "qrels_jg", "prefs:1: '1.5' is not an integer grade"),
    ("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 a 1\n", "prefs", "inconsistent preferences"),
    ("1 g s1 a 0\n1 g s1 b 1\n1 g s2 a 2\n1 g s2 c 1\n", "prefs", "both level 0"),
    ("# only a comment\n\n", "prefs", "no judgements"),
])
def test_bad_judgements_are_errors_with_file_and_line(tmp_path, text, format, message):
    prefs = write(tmp_path / "prefs", text)
    run = write(tmp_path / "run", "1 Q0 a 1 1 r\n")
    result = run_cli(["-R", format, prefs, run])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("lexeval: error:") and message in result.err, result.err


def test_grouped_judgements_come_from_a_file():
    import pandas as pd
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "relevance": [1]})
    run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    with pytest.raises(Exception, match="read from a file"):
        evaluate(qrels, run, rel_format="prefs")


def test_readme_example_by_hand():
    """examples/toy/prefs.txt: user1's six preferences fulfilled, user2's
    three (r5 > r4, r4 > r1 and the transitive r5 > r1) not."""
    ev = evaluate(str(EXAMPLES / "toy" / "prefs.txt"), [str(EXAMPLES / "toy" / "runA")], ["all_prefs"],
                  rel_format="prefs")
    values = {name: ev.column(name).values[0, 0] for name in NAMES}
    assert values["prefs_num_prefs_poss"] == 9 and values["prefs_num_prefs_ful"] == 6
    assert values["prefs_simp"] == pytest.approx(6 / 9) and values["prefs_pair"] == pytest.approx(6 / 9)
    assert values["prefs_avgjg"] == pytest.approx(0.5)
    assert values["prefs_num_prefs_ful_ret"] == 3            # r1 > r2, r1 > r3, r2 > r3: n1 is not retrieved


def test_rnonrel_recount_with_groups_judging_different_documents(tmp_path):
    """Found by the property test: g1 judges five of the query's seven
    documents; its recount compares ranks across the whole query (g0: 0/1,
    g1: 3/10, so (0 + 0.3) / 2)."""
    prefs = write(tmp_path / "prefs", "".join(f"q g0 s1 {d} 0\n" for d in ("a", "b", "B", "ab", "a1", "a#1"))
                  + "q g0 s0 a 0\nq g0 s1 zz-9 1\nq g1 s0 a 1\nq g1 s0 b 0\nq g1 s0 B 0\nq g1 s0 ab 0\nq g1 s0 a1 1\n")
    run = write(tmp_path / "run", "".join(f"q Q0 {d} 0 0 r\n" for d in ("a", "b", "B", "ab", "a1", "a#1")))
    ev = evaluate(str(prefs), [str(run)], ["prefs_avgjg_Rnonrel"], rel_format="prefs")
    assert ev.column("prefs_avgjg_Rnonrel").values[0, 0] == pytest.approx(0.15)


#: Every measure in trec_eval 10.0's table (measures.c) and its sets.
TREC_EVAL_NAMES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
    "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj", "official",
    "set", "all_trec", "all_prefs", "prefs", "qrels_jg",
)


@pytest.mark.parametrize("name", TREC_EVAL_NAMES)
def test_every_trec_eval_name_is_accepted(name):
    from lexeval.measures.names import parse_measure
    assert parse_measure(name)



@pytest.mark.parametrize("format, judgements, measures", [
    ("prefs", "1 g s a 2\n1 g s b 1\n2 g s c 0\n3 g s d 1\n3 g s e 0\n", ["all_prefs"]),
    ("qrels_jg", "1 A a 1\n1 B b 1\n2 A c 0\n3 A d 1\n3 B d 0\n", ["qrels_jg"]),
])
def test_measures_on_fewer_queries_follow_the_qids(tmp_path, format, judgements, measures):
    """Query 2 has no relevant document, so comparisons use queries 1 and 3
    only; measures computed there equal the full values at those queries
    (the judgements are looked up by qid, not position)."""
    from lexeval.evaluation import evaluate_rankings
    path = write(tmp_path / "judgements", judgements)
    runs = [write(tmp_path / "r1", "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n2 Q0 c 1 1 x\n3 Q0 d 1 1 x\n"),
            write(tmp_path / "r2", "1 Q0 b 1 3 y\n1 Q0 a 2 2 y\n2 Q0 c 1 1 y\n3 Q0 e 1 1 y\n3 Q0 d 2 0 y\n")]
    ev = evaluate(str(path), [str(r) for r in runs], measures, rel_format=format)
    assert ev.compared.tolist() == [True, False, True]
    fewer = evaluate_rankings(ev.comparison, ev.requests)
    for column, restricted in zip(ev.columns, fewer.columns):
        assert restricted.values.tolist() == column.values[:, ev.compared].tolist(), column.name
    refused = run_cli(["-R", format, "-m", measures[0], "--report", "degradation", path, *runs])
    assert refused.code == 2 and "--report degradation" in refused.err and refused.out == ""
