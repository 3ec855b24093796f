"""lexeval's single-run output against trec_eval 10.0's own test outputs,
with either file reader (pyarrow's, and numpy's when pyarrow is missing)."""

import pytest
from conftest import CONFORMANCE, run_cli

CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    "out.test.meas_params": [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
        "qrels.test", "results.test"],
    "out.test.aqZ": ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"],
}


@pytest.mark.parametrize("expected", sorted(CASES))
def test_matches_trec_eval(expected, reader):
    args = [a if not a.startswith(("qrels", "results", "zscores")) else str(CONFORMANCE / a)
            for a in CASES[expected]]
    result = run_cli(args)
    assert result.code == 0, result.err
    want = (CONFORMANCE / expected).read_text()
    assert result.lines() == want.splitlines()


def test_default_output_is_byte_identical():
    result = run_cli([CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    assert result.out == (CONFORMANCE / "out.test").read_text()


def test_unsorted_and_sorted_copies_agree(tmp_path):
    """results.test is not in score order; the same lines sorted must give
    the same numbers (the fast in-order path and the sorting path agree)."""
    lines = (CONFORMANCE / "results.test").read_text().splitlines()
    def key(line):
        f = line.split()
        return (f[0], -float(f[4]), tuple(-b for b in f[2].encode()) + (0,))
    ordered = tmp_path / "results.test"
    ordered.write_text("\n".join(sorted(lines, key=key)) + "\n")
    a = run_cli(["-m", "all_trec", "-q", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    b = run_cli(["-m", "all_trec", "-q", CONFORMANCE / "qrels.test", ordered])
    assert a.out == b.out


def test_complete_num_rel_summary_counts_every_positive_grade():
    """With -c, trec_eval's num_rel summary counts every judgement above 0
    whatever -l says (m_num_rel.c); per-query lines follow -l."""
    args = ["-c", "-q", "-l2", "-m", "num_rel", CONFORMANCE / "qrels.rel_level", CONFORMANCE / "results.test"]
    lines = run_cli(args).lines()
    grades = [int(line.split()[3]) for line in (CONFORMANCE / "qrels.rel_level").read_text().splitlines()]
    assert lines == ["num_rel               \t301\t12", "num_rel               \t302\t77",
                     "num_rel               \t303\t8", f"num_rel               \tall\t{sum(g > 0 for g in grades)}"]
    assert lines[-1].endswith("\t559")
    plain = run_cli(["-q", "-l2", "-m", "num_rel", CONFORMANCE / "qrels.rel_level", CONFORMANCE / "results.test"])
    assert plain.lines()[-1] == "num_rel               \tall\t97"      # as out.test.aql


def _rbp_residual(codes, p):
    """trec_eval's m_rbp_resid.c loop, written plainly."""
    total, power, unjudged = 0.0, 1.0, 0
    for code in codes:
        if code < 0:
            unjudged += 1
            total += power
        power *= p
    return power + (1 - p) * total if unjudged else 0.0


def test_rbp_resid_takes_trec_evals_p_parameter():
    import reference as ref
    qrels, run = {}, {}
    for line in (CONFORMANCE / "qrels.test").read_text().splitlines():
        qid, _, docno, grade = line.split()
        qrels.setdefault(qid, {})[docno] = int(grade)
    for line in (CONFORMANCE / "results.test").read_text().splitlines():
        qid, _, docno, _, score, _ = line.split()
        run.setdefault(qid, []).append((docno, float(score)))
    result = run_cli(["-q", "-m", "rbp_resid.p=0.8", "-m", "rbp_resid",
                      CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    values = {line.split("\t")[1]: float(line.split("\t")[2]) for line in result.lines()}
    assert list(dict.fromkeys(line.split("\t")[0].strip() for line in result.lines())) == ["rbp_resid_p=0.8"]
    for qid, docs in run.items():
        codes = [qrels[qid].get(doc, -1) for doc in ref.ranked(docs)]
        assert values[qid] == pytest.approx(_rbp_residual(codes, 0.8), abs=5e-5)
    assert any(values[qid] > 0 for qid in run)


def test_zscores_with_several_runs_and_missing_references(tmp_path):
    """-Z with two runs: Z<measure> lines per run, z-scores tested between
    runs; a (query, measure) the file lacks prints trec_eval's -1000000; no
    measure name starts with Z, so the prefix cannot be misread."""
    from lexeval.measures.registry import MEASURES
    assert not [measure.name for measure in MEASURES if measure.name.startswith("Z")]
    reference = tmp_path / "z"
    reference.write_text("301 map 0.2 0.1\n302 map 0.2 0.1\n303 map 0.2 0\n")
    results = str(CONFORMANCE / "results.test")
    copy = tmp_path / "copy"
    copy.write_text((CONFORMANCE / "results.test").read_text())
    result = run_cli(["-q", "-m", "map", "-m", "P.5", "-Z", reference, CONFORMANCE / "qrels.test", results, copy])
    assert result.code == 0, result.err
    assert "results.test\tZP_5                   \t301\t-1000000.0000" in result.lines()   # Z + name padded to 22
    lines = [[field.strip() for field in line.split("\t")] for line in result.lines()]
    assert ["results.test", "ZP_5", "all", "-1000000.0000"] in lines
    assert ["results.test:copy", "Zmap_p", "all", "1"] in lines
    plain = run_cli(["-q", "-m", "map", CONFORMANCE / "qrels.test", results])
    raw = {line.split("\t")[1]: float(line.split("\t")[2]) for line in plain.lines()}
    zmap = {q: float(v) for key, name, q, v in lines if key == "results.test" and name.strip() == "Zmap"}
    assert zmap["301"] == pytest.approx((raw["301"] - 0.2) / 0.1, abs=2e-3)
    assert zmap["303"] == -1000000.0                      # sd 0 and the value is not the mean


def test_num_docs_and_trec_eval_options():
    """-N adds the collection's size to utility's fourth term (trec_eval's
    m_utility.c); -R/-T/-D/-o are accepted or refused with what to use."""
    qrels, results = CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"
    plain = run_cli(["-q", "-m", "utility.1,-1,0,1", qrels, results])
    sized = run_cli(["-q", "-N", "2000", "-o", "-T", "trec_results", "-R", "qrels", "-m", "utility.1,-1,0,1",
                     qrels, results])
    assert plain.code == sized.code == 0, sized.err
    for before, after in zip(plain.lines(), sized.lines()):
        assert float(after.split("\t")[2]) == pytest.approx(float(before.split("\t")[2]) + 2000)
    for args, message in ((["-R", "prefs"], "qrels.test:1: expected 5 columns"), (["-R", "xml"], "'xml'"),
                          (["-T", "xml"], "-T xml"),
                          (["-D", "1"], "-D: lexeval has no debug levels"), (["-N", "-1"], "-N")):
        refused = run_cli(args + [qrels, results])
        assert refused.code == 2 and refused.out == "" and message in refused.err, refused.err
