"""Random combinations of every documented option on small valid collections,
degenerate ones included, through the command line in this process: never a
traceback, and each exit status means what the contract says it means.

0: success; 1: only with a ``lexeval: gate failed`` line; 2: only with a
``lexeval: error:`` line; anything else (3: internal error) fails the test.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DOCS = ["d1", "d2", "d3", "d4", "d5", "d6", "x", "y10"]

MEASURES = ["map", "P.5,10", "recall.3", "recip_rank", "Rprec", "bpref", "ndcg", "ndcg_cut.3",
            "G", "binG", "Rndcg", "infAP", "set_F", "set_P", "utility", "11pt_avg", "iprec_at_recall",
            "relstring", "num_rel", "num_ret", "num_q", "runid", "gm_map", "gm_bpref", "rbp", "rbp_resid",
            "unj.5", "success.1", "judged.5", "Rprec_mult", "map_cut.5", "relative_P.5", "tse",
            "P_rare.5", "P_rare_norm.5", "map_rare", "nDCG@10", "RR@10", "P(rel=2)@5", "RBP(p=0.8)",
            "official", "all_trec", "set", "seeds", "lexicographic", "LP", "rrLP", "LR", "rrLR", "RPP", "invRPP",
            "dcgRPP", "gRPP", "rpp", "graded_rpp", "all_preferences", "ERR@20", "nDCG(dcg=exp-log2)@10",
            "ndcg@10-l2", "f1@5", "hits@5", "alpha_nDCG@5", "ERR_IA@10", "nERR_IA@5", "NRBP", "nNRBP", "P_IA@5",
            "AP_IA", "StRecall@10", "MAP-IA", "all_prefs", "prefs", "prefs_avgjg_Rnonrel", "prefs_pair_imp",
            "qrels_jg", "map_avgjg", "P_avgjg.5", "Rprec_mult_avgjg", "yaap",
            # other tools' words: ranx without a cutoff, pref_eval's keys, ir_measures' registry
            "hits", "hit_rate", "precision", "f1", "dcg@3", "dcg_burges", "ndcg_burges", "rbp.95", "rbp.80-l2",
            "lexiprecision", "invrpp", "rp", "p@5", "rbp@0.5,3", "recall_paired", "INST", "INSQ(T=2)",
            "BPM(T=1)@3", "SDCG@5", "NERR8@3", "NERR9@3", "NERR10(p=0.8)", "NERR11", "Compat", "Compat(p=0.5)",
            "Accuracy", "Accuracy@3", "alpha_DCG@5", "alpha_nDCG(alpha=0.75)@5", "NRBP(beta=0.8)", "MAP_IA",
            "nDCG(gains={0:0,1:1,2:3})@5", "RBP(p=0.5)@3"]
REPORTS = ["ties", "agreement", "discrimination", "stability", "degradation"]
FORMATS = ["text", "json", "csv", "table", "latex", "markdown", "html"]
GATES = ["map", "LP", "rrLP", "LR", "rrLR", "ndcg", "P.10", "recip_rank", "num_ret", "relstring", "gm_map",
         "invRPP", "gRPP"]


@st.composite
def collections(draw):
    """Qrels and 1-3 runs over few queries, shaped to hit the corners: one
    query, one document, every grade 0, negative grades, runs sharing
    nothing, identical runs, queries missing from some runs."""
    num_queries = draw(st.integers(1, 3))
    max_grade = draw(st.sampled_from([0, 1, 2, 3]))
    fractional = draw(st.integers(0, 4)) == 0                 # grades such as 0.5 (io.fractional)
    grade = st.sampled_from([-1, 0, 0.25, 0.5, 1, 1.5, 2.75]) if fractional else st.integers(-1, max_grade)
    qrels = {}
    for q in range(1, num_queries + 1):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
        # the second column: a judgement group for -R qrels_jg and qrels_prefs
        qrels[str(q)] = {d: (draw(grade), draw(st.sampled_from("001"))) for d in judged}
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        if runs and draw(st.integers(0, 4)) == 0:
            runs.append(dict(runs[-1]))                      # identical to the previous run
            continue
        run = {}
        pool = draw(st.sampled_from([DOCS, ["z1", "z2", "z3"]]))   # or sharing nothing with the qrels
        for q in qrels:
            if draw(st.integers(0, 3)) == 0:
                continue                                     # query missing from this run
            docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6, unique=True))
            run[q] = [(d, draw(st.integers(0, 3))) for d in docs]
        if not run:
            run["1"] = [(pool[0], 1)]
        runs.append(run)
    return qrels, runs


@st.composite
def option_lists(draw, num_runs: int):
    args: list[str] = []
    for flag in ("-q", "-n", "-c", "-J", "--hsd", "--ci", "--subtopics", "-o"):
        if draw(st.integers(0, 3)) == 0:
            args.append(flag)
    if draw(st.booleans()):
        args += ["-l", str(draw(st.sampled_from([0, 1, 2, 3, 4, 0.5, 1.25])))]
    if draw(st.integers(0, 2)) == 0:
        args += ["-M", str(draw(st.integers(1, 4)))]
    for name in draw(st.lists(st.sampled_from(MEASURES), max_size=3)):
        args += ["-m", name]
    if draw(st.booleans()):
        args += ["--test", draw(st.sampled_from(["t", "randomization", "none"])), "--permutations", "50"]
    if draw(st.booleans()):
        args += ["--correction", draw(st.sampled_from(["none", "holm", "holm-sidak", "bonferroni", "bh"]))]
    if draw(st.booleans()):
        args += ["--format", draw(st.sampled_from(FORMATS))]
    if draw(st.integers(0, 3)) == 0:
        args += ["--aggregate", draw(st.sampled_from(["mean", "borda", "mc4"]))]
    if draw(st.integers(0, 3)) == 0:
        args.append("--pair-metrics")
    if draw(st.integers(0, 3)) == 0:
        for report in draw(st.lists(st.sampled_from(REPORTS), min_size=1, max_size=2, unique=True)):
            args += ["--report", report]
        args += ["--trials", "5", "--samples", "2", "--fractions", draw(st.sampled_from(["1,0.5", "0.3", "1"])),
                 "--label-policy", draw(st.sampled_from(["random", "pool"]))]
        if draw(st.integers(0, 3)) == 0:
            args += ["--reference", draw(st.sampled_from(["recip_rank", "map", "LP", "P.5", "RPP", "num_ret"]))]
    if draw(st.integers(0, 2)) == 0:
        args += ["--baseline", f"run{draw(st.integers(0, num_runs - 1))}"]
        for gate in draw(st.lists(st.sampled_from(GATES), max_size=2)):
            args += ["--gate", gate]
    if "--ci" in args:
        args += ["--resamples", "20"]
    if draw(st.integers(0, 9)) == 0:
        args += ["--plot", "PLOTDIR"]
    if draw(st.integers(0, 7)) == 0:
        args += ["-Z", "ZFILE"]
    if draw(st.integers(0, 7)) == 0:
        args += ["-N", str(draw(st.integers(0, 50)))]
    if draw(st.integers(0, 7)) == 0:          # pref_eval's options: -q, -n, -M under its names, or refused
        args += draw(st.sampled_from([["--topk", "3"], ["--query_eval_wanted"], ["--nosummary"], ["-b", "1"],
                                      ["-M", "preferences"], ["--label_fraction", "0.5"]]))
    if draw(st.integers(0, 5)) == 0:
        args.append("--bounds")
    if draw(st.integers(0, 5)) == 0:
        args += ["--tie-order", draw(st.sampled_from(["trec_eval", "input", "expected"]))]
    if draw(st.integers(0, 5)) == 0:
        args += ["--fill-qrels", "FILLFILE"]
    if draw(st.integers(0, 5)) == 0:          # the judges report: another set, its groups and top runs
        args += ["--report", "judges", "--compare-qrels", "OTHERFILE", "--top-runs", str(draw(st.integers(1, 4)))]
        args += draw(st.sampled_from([[], ["--run-groups", "GROUPFILE"], ["--group-by", "n"]]))
    if draw(st.integers(0, 3)) == 0:
        args += draw(st.sampled_from([["-R", "qrels"], ["-R", "prefs"], ["-R", "qrels_prefs"], ["-R", "qrels_jg"],
                                      ["-T", "trec_results"], ["-D", "2"]]))
    return args


def write_collection(tmp: Path, qrels, runs) -> tuple[str, list[str]]:
    (tmp / "qrels").write_text("".join(f"{q} {group} {d} {g}\n" for q, j in qrels.items()
                                       for d, (g, group) in j.items()))
    paths = []
    for index, run in enumerate(runs):
        path = tmp / f"run{index}"
        path.write_text("".join(f"{q} Q0 {d} 0 {s} r{index}\n" for q, docs in run.items() for d, s in docs))
        paths.append(str(path))
    return str(tmp / "qrels"), paths


def check_numbers(values: list[str]) -> None:
    """Every number printed is finite, or a documented nan."""
    for value in values:
        try:
            number = float(value)
        except ValueError:
            continue                          # runid, relstring
        assert not math.isinf(number), value


def check_output(out: str, output_format: str) -> None:
    if output_format == "json":
        records = [json.loads(line) for line in out.splitlines()]
        for record in records:
            assert set(record) == {"key", "measure", "qid", "value"}, record
        check_numbers([str(r["value"]) for r in records if r["value"] is not None])
    elif output_format == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows and rows[0] == ["key", "measure", "qid", "value"], rows[:1]
        assert all(len(row) == 4 for row in rows)
        check_numbers([row[3] for row in rows[1:]])
    elif output_format == "html":               # one whole page, its data JSON without NaN
        assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>"), out[:80]
        data = out.split('<script type="application/json" id="data">', 1)[1].split("</script>", 1)[0]
        json.loads(data)
    elif output_format == "text":
        for line in out.splitlines():
            assert line.count("\t") in (2, 3), line
        check_numbers([line.rsplit("\t", 1)[-1] for line in out.splitlines()])


def check_call(tmp: Path, qrels, runs, args: list[str]) -> None:
    qrels_path, run_paths = write_collection(tmp, qrels, runs)
    (tmp / "zscores").write_text("1 map 0.5 0.25\n1 P_5 0.2 0\n2 num_ret 3 1\n")
    (tmp / "fill").write_text("1 0 d1 0.5\n1 0 x 2\n2 0 d3 1\n9 0 d1 1\n")          # fractional, a query of its own
    (tmp / "other").write_text("".join(f"{q} 0 {d} {abs(g) if isinstance(g, int) else 1}\n"
                                       for q, j in qrels.items() for d, (g, _) in j.items()))
    (tmp / "groups").write_text("".join(f"run{k}\t{'ab'[k % 2]}\n" for k in range(len(runs))))
    files = {"PLOTDIR": tmp / "plots", "ZFILE": tmp / "zscores", "FILLFILE": tmp / "fill", "OTHERFILE": tmp / "other",
             "GROUPFILE": tmp / "groups"}
    args = [str(files[a]) if a in files else a for a in args]
    result = run_cli(args + [qrels_path] + run_paths)
    call = "lexeval " + " ".join(args)
    assert "Traceback" not in result.err, call + "\n" + result.err
    assert "lexeval: internal error:" not in result.err, call + "\n" + result.err
    assert "Warning:" not in result.err, call + "\n" + result.err          # numpy's RuntimeWarnings
    if result.code == 0:
        output_format = args[args.index("--format") + 1] if "--format" in args else "text"
        check_output(result.out, output_format)
    elif result.code == 1:
        assert "lexeval: gate failed:" in result.err, call + "\n" + result.err
    elif result.code == 2:
        assert "lexeval: error:" in result.err, call + "\n" + result.err
        assert result.out == "", call + "\n" + result.out
    else:
        raise AssertionError(f"{call}: exit status {result.code}\n{result.err}")


EXAMPLES = int(os.environ.get("LEXEVAL_FUZZ_EXAMPLES", "200"))     # more by hand: LEXEVAL_FUZZ_EXAMPLES=5000


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_option_combinations(tmp_path_factory, data):
    qrels, runs = data.draw(collections())
    args = data.draw(option_lists(len(runs)))
    check_call(tmp_path_factory.mktemp("fuzz"), qrels, runs, args)
