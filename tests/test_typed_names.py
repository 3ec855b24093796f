"""Names as users type them: preferences in any case, suggestions for a
typo, several ir_measures names in one -m string."""

import pytest
from conftest import CRANFIELD, run_cli

from lexeval.errors import UsageError
from lexeval.measures.names import output_names, suggestions

QRELS = CRANFIELD / "qrels.txt.gz"
RUNS = [CRANFIELD / "runs" / "bm25okapi.gz", CRANFIELD / "runs" / "lsi200.gz"]


@pytest.mark.parametrize("typed,printed", [("lp", ["LP"]), ("Lp", ["LP"]), ("rrlp", ["rrLP"]), ("RRLP", ["rrLP"]),
                                           ("rrlr", ["rrLR"]), ("RRLR", ["rrLR"]), ("lr", ["LR"]),
                                           ("LEXIPRECISION", ["LP"]), ("InvRPP", ["invRPP"]),
                                           ("Lexicographic", ["LP", "rrLP", "LR", "rrLR"])])
def test_preferences_in_any_case(typed, printed):
    assert output_names(typed) == printed


def test_preferences_in_any_case_on_the_command_line():
    lower = run_cli(["-m", "lp", "-m", "rrlr", QRELS, *RUNS])
    exact = run_cli(["-m", "LP", "-m", "rrLR", QRELS, *RUNS])
    assert lower.code == exact.code == 0, lower.err
    assert lower.out == exact.out and "bm25okapi:lsi200\tLP_win" in lower.out


def test_measure_names_keep_their_case():
    """trec_eval's names are case-sensitive: only preferences are read in any case."""
    assert output_names("P.5") == ["P_5"]
    with pytest.raises(UsageError):
        output_names("MAP_CUT.5")


@pytest.mark.parametrize("typed,suggested", [("ndgc_cut.10", "ndcg_cut.10"), ("mapp", "map"),
                                             ("recip_rnk", "recip_rank"), ("nDGC@10", "nDCG@10"),
                                             ("bperf", "bpref"), ("Rprc", "Rprec"), ("lexiprecisoin", "lexiprecision")])
def test_a_typo_gets_suggestions(typed, suggested):
    close = suggestions(typed)
    assert suggested in close and len(close) <= 3
    with pytest.raises(UsageError, match=f"did you mean {suggested}"):
        output_names(typed)


def test_a_typo_on_the_command_line_names_the_fix():
    result = run_cli(["-m", "ndgc_cut.10", QRELS, RUNS[0]])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("lexeval: error: unknown measure 'ndgc_cut.10' (did you mean ndcg_cut.10")


def test_nothing_close_gets_no_suggestion():
    assert suggestions("xyzzy") == []
    with pytest.raises(UsageError) as caught:
        output_names("xyzzy")
    assert "did you mean" not in str(caught.value)


def test_one_string_of_several_ir_measures_names():
    assert output_names("nDCG@10 P@5 AP") == ["ndcg_cut_10", "P_5", "map"]
    assert output_names("nDCG(judged_only=True, dcg=log2)@10  RR") == ["ndcg_cut_10(judged_only)", "recip_rank"]
    together = run_cli(["-m", "nDCG@10 P@5", QRELS, RUNS[0]])
    apart = run_cli(["-m", "nDCG@10", "-m", "P@5", QRELS, RUNS[0]])
    assert together.code == 0 and together.out == apart.out
    assert together.out.splitlines()[-1] == "ndcg_cut_10           \tall\t0.3524"


def test_an_empty_name_is_an_error():
    with pytest.raises(UsageError, match="empty"):
        output_names("   ")
