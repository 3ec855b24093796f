"""Every parameter set asked is computed and printed on a line of its own
(ir_measures prints SetF(rel=1), SetF(rel=1,beta=0.5) and SetF(rel=3)
as three lines); in trec_eval's own words a measure keeps trec_eval's one
set, the first given, and stderr names the set left out."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexeval.evaluation import compute_columns, load
from lexeval.measures.names import parameter_notes, select_measures

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = [EXAMPLES / "cranfield" / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200", "tfidf_title")]


@pytest.fixture(scope="module")
def rankings():
    return load(str(QRELS), [str(path) for path in RUNS], warn=lambda text: None)


def _columns(rankings, names) -> dict[str, np.ndarray]:
    return {column.name: column.values for column in compute_columns(rankings, select_measures(names).metrics)}


# one family of measures, and how to write one of its parameter sets in another tool's words
rel = st.sampled_from(["", "rel=1", "rel=2", "rel=3"])
FAMILIES = {
    "SetF": st.builds(lambda level, beta: "SetF(" + ",".join(filter(None, (level, beta))) + ")", rel,
                      st.sampled_from(["", "beta=0.5", "beta=2.0", "beta=1", "beta=0.25"])),
    "nDCG": st.builds(lambda gains, judged: "nDCG(" + ",".join(filter(None, (gains, judged))) + ")",
                      st.sampled_from(["", "gains={0:1,1:4}", "gains={0:0,1:1,2:3,3:7,4:15}", "gains={1:2}"]),
                      st.sampled_from(["", "judged_only=True"])),
    "nDCG@k": st.builds(lambda gains, cutoff: f"nDCG({gains})@{cutoff}",
                        st.sampled_from(["", "gains={0:1,1:4}", "dcg='exp-log2'", "judged_only=True"]),
                        st.sampled_from([5, 10, 20])),
    "RBP": st.builds(lambda p, level: "RBP(" + ",".join(filter(None, (p, level))) + ")",
                     st.sampled_from(["", "p=0.5", "p=0.8", "p=0.95"]), rel),
    "P": st.builds(lambda level, cutoff: f"P({level})@{cutoff}", rel, st.sampled_from([1, 5, 10, 30])),
    "Judged": st.builds(lambda cutoff, spelled: f"Judged(cutoff={cutoff})" if spelled else f"Judged@{cutoff}",
                        st.sampled_from([5, 10, 100]), st.booleans()),
    "IPrec": st.builds(lambda recall: f"IPrec(recall={recall})", st.sampled_from([0.0, 0.2, 0.4, 0.9])),
    "INST": st.builds(lambda t: f"INST(T={t})", st.sampled_from([1, 2, 3])),
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(FAMILIES)).flatmap(lambda family: st.lists(FAMILIES[family], min_size=2, max_size=4)))
def test_each_parameter_set_prints_as_it_does_alone(rankings, names):
    together = _columns(rankings, names)
    for name in names:
        alone = _columns(rankings, [name])
        for printed, values in alone.items():
            assert printed in together, (name, printed, list(together))
            np.testing.assert_array_equal(together[printed], values)
    wanted = {printed for name in names for printed in _columns(rankings, [name])}
    assert set(together) == wanted                  # nothing else, nothing dropped
    assert parameter_notes(names) == []


@pytest.mark.parametrize("names,printed", [
    (["SetF(rel=1)", "SetF(rel=1,beta=0.5)", "SetF(rel=1,beta=2.0)", "SetF(rel=3)"],
     ["set_F(rel=1)", "set_F_0.5(rel=1)", "set_F_2.0(rel=1)", "set_F(rel=3)"]),
    (["nDCG", "nDCG(gains={0:1,1:4})"], ["ndcg", "ndcg_0=1,1=4"]),
    (["Judged(cutoff=1000)", "nDCG(dcg='exp-log2', cutoff=20)", "nDCG(dcg='exp-log2')"],
     ["judged_1000", "ndcg_burges", "ndcg_exp_20"]),          # in the table's order
    (["nDCG@10", "nDCG(judged_only=True)@10"], ["ndcg_cut_10", "ndcg_cut_10(judged_only)"]),
])
def test_the_issues_examples(rankings, names, printed):
    assert list(_columns(rankings, names)) == printed


@pytest.mark.parametrize("names,kept,left_out", [
    (["set_F", "set_F.0.5"], ["set_F_0.5"], "set_F not computed"),
    (["rbp", "rbp.p=0.5"], ["rbp_p=0.5"], "rbp not computed"),
    (["utility", "utility.2,-1,0,0"], ["utility_2,-1,0,0"], "utility not computed"),
    (["ndcg.0=1,1=4", "ndcg"], ["ndcg_0=1,1=4"], "ndcg not computed"),
])
def test_trec_evals_words_keep_trec_evals_one_set(rankings, names, kept, left_out):
    """trec_eval's output byte for byte (the first explicit set), and one line on stderr."""
    args = [arg for name in names for arg in ("-m", name)]
    result = run_cli([*args, QRELS, RUNS[0]])
    assert result.code == 0
    assert [line.split("\t")[0].strip() for line in result.lines()] == kept
    notes = result.err.strip().splitlines()
    assert len(notes) == 1 and left_out in notes[0] and notes[0].startswith("lexeval: ")
    assert "-m 'SetF' -m 'SetF(beta=0.5)'" in notes[0] if names[0] == "set_F" else True


def test_both_sets_asked_in_two_words_print_both(rankings):
    """trec_eval's words beside ir_measures': each set prints, no note."""
    assert list(_columns(rankings, ["set_F", "SetF(beta=0.5)"])) == ["set_F", "set_F_0.5"]
    assert parameter_notes(["set_F", "SetF(beta=0.5)"]) == []


def test_a_contradiction_names_both_values():
    result = run_cli(["-m", "IPrec(recall=0.4)@0.2", QRELS, RUNS[0]])
    assert result.code == 2 and result.out == ""
    assert "recall=0.4 and @0.2 contradict each other" in result.err
    result = run_cli(["-m", "Judged(cutoff=10)@20", QRELS, RUNS[0]])
    assert result.code == 2 and "cutoff=10 and @20" in result.err
