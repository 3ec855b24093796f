"""lexeval's single-run output against trec_eval 10.0's own test outputs."""

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
}


@pytest.mark.parametrize("expected", sorted(CASES))
def test_matches_trec_eval(expected):
    args = [a if not a.startswith(("qrels", "results")) else str(CONFORMANCE / a) for a in CASES[expected]]
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
