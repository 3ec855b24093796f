"""Output formats, line order, and input conveniences."""

import csv
import gzip
import io
import json
import re

import numpy as np
import pytest
from conftest import CONFORMANCE, run_cli, write
from hypothesis import given, settings
from hypothesis import strategies as st

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n3 0 e 0\n"
RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 x 1 1.0 A\n"
RUN_B = "1 Q0 b 1 3.0 B\n1 Q0 c 2 2.0 B\n2 Q0 d 1 1.0 B\n"


@pytest.fixture
def files(tmp_path):
    return (write(tmp_path / "qrels", QRELS), write(tmp_path / "runA", RUN_A),
            write(tmp_path / "runB", RUN_B))


def test_single_run_is_trec_eval_text(files):
    qrels, run_a, _ = files
    result = run_cli(["-m", "map", "-m", "num_q", qrels, run_a])
    assert result.lines() == ["num_q                 \tall\t2", "map                   \tall\t0.4167"]


def test_several_runs_gain_a_key_column_in_command_line_order(files):
    qrels, run_a, run_b = files
    result = run_cli(["-m", "map", "-q", qrels, run_b, run_a])
    metric_lines = [line for line in result.lines() if line.split("\t")[1].strip() == "map"]
    assert metric_lines == [
        "runB\tmap                   \t1\t0.2500", "runB\tmap                   \t2\t1.0000",
        "runB\tmap                   \tall\t0.6250",
        "runA\tmap                   \t1\t0.8333", "runA\tmap                   \t2\t0.0000",
        "runA\tmap                   \tall\t0.4167"]
    from scipy.stats import ttest_rel
    p = ttest_rel([0.25, 1.0], [5 / 6, 0.0]).pvalue                   # pair block comes last
    assert result.lines()[-1] == f"runB:runA\tmap_p                 \tall\t{p:6.4f}"


def test_query_without_relevant_documents_is_evaluated_but_not_compared(files):
    """trec_eval evaluates a qrels query with no relevant document (num_q
    counts it); comparisons leave it out, since every run ties there."""
    qrels, run_a, run_b = files
    (qrels.parent / "runD").write_text(RUN_A + "3 Q0 e 1 1.0 A\n3 Q0 y 2 0.5 A\n")
    single = run_cli(["-q", "-m", "num_rel", "-m", "num_ret", "-m", "map", "-m", "num_q", qrels, qrels.parent / "runD"])
    assert "num_ret               \t3\t2" in single.lines()
    assert "map                   \t3\t0.0000" in single.lines()
    assert "num_q                 \tall\t3" in single.lines()
    assert "map                   \tall\t0.2778" in single.lines()          # (5/6 + 0 + 0) / 3
    pair = run_cli(["-q", "-m", "map", "-m", "LP", qrels, run_b, qrels.parent / "runD"])
    lp_queries = [line.split("\t")[2] for line in pair.lines() if line.split("\t")[1].strip() == "LP"]
    assert lp_queries == ["1", "2", "all"]


def test_complete_gives_missing_queries_their_own_lines(files):
    qrels, _, run_b = files
    (qrels.parent / "runC").write_text("1 Q0 a 1 1.0 C\n")
    plain = run_cli(["-q", "-m", "map", "-m", "num_q", qrels, qrels.parent / "runC"])
    assert [line.split("\t")[1] for line in plain.lines()] == ["1", "all", "all"]
    complete = run_cli(["-q", "-c", "-m", "map", "-m", "num_q", qrels, qrels.parent / "runC"])
    assert complete.lines() == ["map                   \t1\t0.5000", "map                   \t2\t0.0000",
                                "map                   \t3\t0.0000",
                                "num_q                 \tall\t3", "map                   \tall\t0.1667"]


def test_no_summary(files):
    qrels, run_a, _ = files
    result = run_cli(["-n", "-q", "-m", "map", qrels, run_a])
    assert all("\tall\t" not in line for line in result.lines())
    assert len(result.lines()) == 2


def test_json_lines(files):
    qrels, run_a, run_b = files
    result = run_cli(["--format", "json", "-m", "map", "-m", "num_ret", qrels, run_a, run_b])
    records = [json.loads(line) for line in result.lines()]
    assert {"key": "runA", "measure": "map", "qid": "all", "value": pytest.approx(0.41666, abs=1e-4)} in records
    assert {"key": "runB", "measure": "num_ret", "qid": "all", "value": 3} in records
    assert all(set(r) == {"key", "measure", "qid", "value"} for r in records)


def test_csv_has_header_and_four_columns(files):
    qrels, run_a, _ = files
    result = run_cli(["--format", "csv", "-q", "-m", "P.1", qrels, run_a])
    rows = list(csv.reader(io.StringIO(result.out)))
    assert rows[0] == ["key", "measure", "qid", "value"]
    assert ["runA", "P_1", "1", "1.0"] in rows and ["runA", "P_1", "all", "0.5"] in rows


def test_table_for_people(files):
    qrels, run_a, run_b = files
    result = run_cli(["--format", "table", "-m", "map", "-m", "P.1", qrels, run_a, run_b])
    assert result.code == 0
    assert "runA" in result.out and "runB" in result.out and "P_1" in result.out and "0.4167" in result.out


def test_stdin_and_gzip_and_run_names(files, tmp_path):
    qrels, run_a, _ = files
    gz = tmp_path / "input.sys.gz"
    gz.write_bytes(gzip.compress(RUN_A.encode()))
    result = run_cli(["-m", "map", "--test", "none", qrels, "-", gz], stdin=RUN_B.encode())
    # standard input is named by its tag column (trec_eval's runid), a file by its name
    assert result.lines() == ["B\tmap                   \tall\t0.6250",
                              "sys\tmap                   \tall\t0.4167"]


def test_comments_extra_columns_and_missing_tag(files, tmp_path):
    qrels, run_a, _ = files
    odd = write(tmp_path / "odd", "# a comment\n1 Q0 a 1 3.0 A junk junk\n\n1\tQ0   b 2  2.0\r\n"
                                  "  # another\n1 Q0 c 3 1.0 A\n2 Q0 x 1 1.0 A\n")
    assert run_cli(["-m", "all_trec", "-q", qrels, odd]).out == \
        run_cli(["-m", "all_trec", "-q", qrels, run_a]).out


def test_runid_is_the_tag_of_the_last_line(files):
    qrels, run_a, _ = files
    assert run_cli(["-m", "runid", qrels, run_a]).lines() == ["runid                 \tall\tA"]


@pytest.mark.parametrize("spelling,name", [("P.10", "P_10"), ("P_10", "P_10"), ("P@10", "P_10"),
                                           ("nDCG@10", "ndcg_cut_10"), ("AP", "map"), ("MRR", "recip_rank"),
                                           ("R@5", "recall_5"), ("iprec_at_recall_0.50", "iprec_at_recall_0.50")])
def test_measure_spellings(files, spelling, name):
    qrels, run_a, _ = files
    lines = run_cli(["-m", spelling, qrels, run_a]).lines()
    assert [line.split("\t")[0].strip() for line in lines] == [name]


def test_repeated_cutoffs_are_united(files):
    qrels, run_a, _ = files
    names = [line.split("\t")[0].strip() for line in run_cli(["-m", "P.5", "-m", "P.1", qrels, run_a]).lines()]
    assert names == ["P_1", "P_5"]


def test_depth_limits_every_ranking(files):
    qrels, run_a, _ = files
    result = run_cli(["-M", "1", "-m", "num_ret", "-m", "map", qrels, run_a])
    assert result.lines() == ["num_ret               \tall\t2", "map                   \tall\t0.2500"]


def test_help_and_list_measures():
    help_text = run_cli(["--help"])
    assert help_text.code == 0 and "QRELS" in help_text.out and "-m, --measure" in help_text.out
    listing = run_cli(["--list-measures"])
    assert listing.code == 0 and "ndcg_cut" in listing.out and "LP" in listing.out


def test_python_dash_m_entry_point():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "lexeval", str(CONFORMANCE / "qrels.test"),
                           str(CONFORMANCE / "results.test")], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout == (CONFORMANCE / "out.test").read_text()


def test_timings_go_to_stderr_and_leave_the_output_alone(files, tmp_path):
    qrels, run_a, run_b = files
    plain = run_cli([qrels, run_a, run_b])
    timed = run_cli(["--timings", qrels, run_a, run_b])
    assert timed.code == 0 and timed.out == plain.out
    line = [text for text in timed.err.splitlines() if "timings:" in text]
    assert len(line) == 1
    size = (len(QRELS) + len(RUN_A) + len(RUN_B)) / 1e6
    phases = re.findall(r"(\w+) [0-9.]+ s\b", line[0])
    assert phases == ["reading", "measures", "pairs", "output", "total"]
    assert f"({size:.1f} MB, " in line[0]
    # a compressed input has no size to divide by: seconds only
    gz = tmp_path / "runA.gz"
    gz.write_bytes(gzip.compress(RUN_A.encode()))
    single = run_cli(["--timings", qrels, gz])
    assert "timings: reading " in single.err and "MB" not in single.err and "pairs" not in single.err


def test_timings_in_the_library(files):
    from lexeval import Timings, evaluate
    qrels, run_a, run_b = files
    timings = Timings()
    evaluate(qrels, [run_a, run_b], ["map", "LP"], timings=timings, warn=lambda text: None)
    assert set(timings.seconds) == {"reading", "measures", "pairs"}
    assert all(seconds >= 0 for seconds in timings.seconds.values())
    assert timings.bytes_read == len(QRELS) + len(RUN_A) + len(RUN_B)


@given(st.lists(st.one_of(st.floats(), st.floats(-12, 12), st.integers(-200000, 200000).map(lambda k: k / 20000),
                          st.integers(-99999, 99999).map(lambda k: (k + 0.5) / 10000)), min_size=1, max_size=300))
def test_per_query_values_print_as_printf(values):
    """-q's values are looked up among printed texts, not printed one by one:
    each must be printf's %6.4f, ties, signs, zeros and edges included."""
    from lexeval.output.lines import four_decimals
    assert four_decimals(np.array(values)).tolist() == ["%6.4f" % value for value in values]


def test_four_significant_digits_print_as_python_prints_them():
    """The p-values' lookup prints every value as '%.4g' does: log-uniform
    values down to subnormals, ties of the fifth digit, decade edges."""
    from lexeval.output.lines import four_significant
    rng = np.random.default_rng(0)
    edges = [0.0, 1.0, 0.5, 0.05, 0.00012345, 0.12345, 0.99995, 0.999949, 9.9995e-5, 0.1, 1e-5, 1.5e-5,
             0.09999, 0.099995, 5e-324, 1e-300, 2.2e-308, np.nan, np.inf, 1e-4, 0.0001]
    values = np.concatenate([10 ** rng.uniform(-320, 0, 200_000), rng.random(100_000), np.array(edges),
                             np.round(rng.random(20_000), 5), np.round(rng.random(20_000), 4) * 1e-7])
    assert four_significant(values, "\n").tolist() == ["%.4g\n" % value for value in values.tolist()]


def _laid_out(reals, integers, styles, keys=("a:b\t",), qids=("all\t",)):
    from lexeval.io import kernel
    names = len(styles)
    buffer, length = kernel.layout_block(np.asarray(reals, dtype=np.float64).reshape(names, -1),
                                         np.asarray(integers, dtype=np.int64).reshape(names, -1),
                                         np.array(styles, dtype=np.int8), [f"m{j}\t" for j in range(names)],
                                         list(qids), list(keys))
    return bytes(buffer[:length]).decode()


@pytest.mark.skipif(not __import__("lexeval.io.kernel", fromlist=["enabled"]).enabled(),
                    reason="the compiled reading kernel is not built")
@settings(max_examples=300)
@given(st.lists(st.one_of(st.floats(), st.floats(-12, 12), st.integers(-200000, 200000).map(lambda k: k / 20000),
                          st.integers(-99999, 99999).map(lambda k: (k + 0.5) / 10000), st.floats(0, 1),
                          st.floats(1e-320, 1e-3), st.integers(-10000, 10000).map(lambda k: (k + 0.5) * 1e-8)),
                min_size=1, max_size=200),
       st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), min_size=1, max_size=20))
def test_the_kernels_layout_prints_as_python_prints(values, counts):
    """The text writer's compiled layout: every value as Python's %6.4f and
    %.4g print it (ties of the fifth digit, signs, zeros, NaN, the
    infinities, huge and subnormal values) and every count as %d, each line
    key, measure, qid and value."""
    text = _laid_out([values, values], np.zeros((2, len(values))), [0, 1], ["k\t"] * len(values),
                     [f"q{i}\t" for i in range(len(values))])
    expected = "".join(f"k\tm0\tq{i}\t{'%6.4f' % value}\nk\tm1\tq{i}\t{'%.4g' % value}\n"
                       for i, value in enumerate(values))
    assert text == expected
    text = _laid_out(np.zeros(len(counts)), counts, [2])
    assert text == "".join(f"a:b\tm0\tall\t{count}\n" for count in counts)


@pytest.mark.skipif(not __import__("lexeval.io.kernel", fromlist=["enabled"]).enabled(),
                    reason="the compiled reading kernel is not built")
def test_the_kernels_layout_of_many_values_prints_as_python_prints():
    rng = np.random.default_rng(1)
    values = np.concatenate([10 ** rng.uniform(-320, 0, 100_000), rng.random(50_000) * 20 - 10,
                             np.round(rng.random(20_000), 5), np.round(rng.random(20_000), 4) * 1e-7,
                             [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 1e300, -1e300, 5e-324]])
    text = _laid_out([values, values], np.zeros((2, len(values))), [0, 1], ["k\t"], ["q\t"])
    assert text == "".join(f"k\tm0\tq\t{'%6.4f' % value}\nk\tm1\tq\t{'%.4g' % value}\n"
                           for value in values.tolist())


@pytest.mark.skipif(not __import__("lexeval.io.kernel", fromlist=["enabled"]).enabled(),
                    reason="the compiled reading kernel is not built")
def test_the_kernels_layout_grows_a_small_buffer_and_refuses_bad_offsets():
    from lexeval.io import _kernel, kernel
    buffer, length = kernel.layout_block(np.full((1, 5000), 1e300), np.zeros((1, 5000), dtype=np.int64),
                                         np.array([0], dtype=np.int8), ["m\t"], ["q\t"], [], bytearray(10))
    assert bytes(buffer[:length]).decode() == ("m\tq\t%6.4f\n" % 1e300) * 5000
    with pytest.raises(ValueError, match="padding"):
        _kernel.layout_block(np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int8), b"m\t",
                             np.array([0, 2]), b"q\t" + bytes(16), np.array([0, 2]), bytes(16), np.array([0]),
                             np.zeros(0, dtype=np.int64), bytearray(100))
    with pytest.raises(IndexError, match="pair"):
        kernel.layout_block(np.zeros((1, 1)), np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int8), ["m\t"],
                            ["q\t"], ["a", "b"], None, np.array([[0, 2]]))


@pytest.mark.skipif(not __import__("lexeval.io.kernel", fromlist=["enabled"]).enabled(),
                    reason="the compiled reading kernel is not built")
@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\t\n\r"), min_size=1,
                        max_size=40), min_size=2, max_size=6, unique=True), st.integers(0, 2 ** 32 - 1))
def test_pairs_keys_laid_out_by_the_kernel_are_the_keys(names, seed):
    """A:B from the runs' names and the pairs' row numbers (names of any
    length and script, colons included) as the Python writer makes them."""
    from lexeval.output.layout import block_bytes, text_chunk
    from lexeval.output.lines import FLOAT, Block, PairKeys
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, len(names), (7, 2))
    keys = PairKeys(names, pairs)
    assert list(keys) == [f"{names[a]}:{names[b]}" for a, b in pairs.tolist()] and keys[1:3] == list(keys)[1:3]
    block = Block(keys, ["all"] * 7, ["LP", "map_p"], [rng.random(7), rng.random(7) - 0.5], [FLOAT, FLOAT])
    buffer, length = block_bytes(block, True)
    assert bytes(buffer[:length]).decode("utf-8", "surrogateescape") == text_chunk(block._replace(keys=list(keys)),
                                                                               True)
