"""pref_eval's words: its metric keys mean what they mean in pref_eval,
its options work (-q, -n, --topk) or say what lexeval does instead."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, run_cli, write

from lexeval.measures.names import output_names

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = [EXAMPLES / "cranfield" / "runs" / name for name in ("bm25okapi.gz", "lsi200.gz")]


@pytest.mark.parametrize("key,printed", [
    ("lexiprecision", "LP"), ("rrlexiprecision", "rrLP"), ("lexirecall", "LR"), ("sgnLP", "LP"), ("sgnLR", "LR"),
    ("rpp", "RPP"), ("invrpp", "invRPP"), ("dcgrpp", "dcgRPP"), ("ap", "map"), ("ap@10", "map_cut_10"),
    ("rr", "recip_rank"), ("rr@5", "recip_rank_5"), ("rp", "Rprec"), ("p@10", "P_10"), ("r@100", "recall_100"),
    ("ndcg", "ndcg"), ("ndcg@10", "ndcg_cut_10"), ("rbp@0.5", "rbp_p=0.5(rel=1)"),
    ("rbp@0.8,10", "rbp_p=0.8,depth=10(rel=1)"), ("rbp", "rbp"),
])
def test_keys_name_the_measures_pref_eval_computes(key, printed):
    assert output_names(key) == [printed]


def test_a_set_name_never_shadows_a_measure():
    """'rpp' is pref_eval's single RPP; the three weightings are the set recall_paired."""
    assert output_names("rpp") == ["RPP"]
    assert output_names("recall_paired") == ["RPP", "invRPP", "dcgRPP"]


def test_preference_keys_print_what_lexevals_names_print():
    by_key = run_cli(["-m", "lexiprecision", "-m", "lexirecall", "-m", "invrpp", "-m", "rrlexiprecision", QRELS, *RUNS])
    by_name = run_cli(["-m", "LP", "-m", "LR", "-m", "invRPP", "-m", "rrLP", QRELS, *RUNS])
    assert by_key.code == 0 and by_key.out == by_name.out
    assert "bm25okapi:lsi200\tinvRPP                \tall\t" in by_key.out


def test_pref_evals_rbp_by_hand(tmp_path):
    """pref_eval's rbp@gamma,k: binary, (1 - gamma) sum over relevant ranks i <= k of gamma^(i-1).
    Relevant at ranks 1, 3, 4: rbp@0.5 = 0.5 (1 + 0.25 + 0.125); rbp@0.5,3 drops rank 4."""
    qrels = write(tmp_path / "qrels", "q 0 a 1\nq 0 c 2\nq 0 d 1\nq 0 b 0\n")
    run = write(tmp_path / "run", "q Q0 a 1 4 t\nq Q0 b 2 3 t\nq Q0 c 3 2 t\nq Q0 d 4 1 t\n")
    result = run_cli(["-m", "rbp@0.5", "-m", "rbp@0.5,3", qrels, run])
    assert result.code == 0, result.err
    values = {line.split("\t")[0].strip(): float(line.split("\t")[2]) for line in result.lines()}
    assert values["rbp_p=0.5(rel=1)"] == pytest.approx(0.5 * (1 + 0.25 + 0.125), abs=5e-5)
    assert values["rbp_p=0.5,depth=3(rel=1)"] == pytest.approx(0.5 * (1 + 0.25), abs=5e-5)


def test_pref_evals_options_that_lexeval_has_work():
    theirs = run_cli(["--query_eval_wanted", "--nosummary", "--topk", "10", "-m", "P.10", QRELS, RUNS[0]])
    ours = run_cli(["-q", "-n", "-M", "10", "-m", "P.10", QRELS, RUNS[0]])
    assert theirs.code == 0 and theirs.out == ours.out and len(ours.lines()) == 225


@pytest.mark.parametrize("options,advice", [
    (["-M", "preferences"], "-m lexicographic"), (["-R", str(QRELS)], "first argument"),
    (["--qrels", str(QRELS)], "first argument"), (["-b", "2"], "-l LEVEL"), (["--relevance_floor", "1"], "-l2"),
    (["--query_fraction", "0.5"], "--report stability"), (["--label_fraction", "0.5"], "--report degradation"),
    (["--label_fraction_policy", "pool"], "--label-policy"), (["--measure_set", "all"], "all_preferences"),
    (["--topk", "5", "-M", "10"], "give one depth"),
])
def test_pref_evals_other_options_say_what_lexeval_does_instead(options, advice):
    result = run_cli([*options, QRELS, *RUNS])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("lexeval: error: ") and advice in result.err
