"""Every bad input is an error naming file and line, exit 2, nothing on stdout."""

import builtins
import gzip

import pytest
from conftest import run_cli, write

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n"


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "qrels", QRELS), write(tmp_path / "run", RUN)


def assert_input_error(result, where, message):
    assert result.code == 2
    assert result.out == ""
    assert f"{where}: " in result.err
    assert message in result.err


@pytest.mark.parametrize("bad_line,message", [
    ("1 Q0 x 3", "expected 6 columns, found 4"),
    ("1 Q0 x 3 high t", "score 'high' is not a number"),
    ("1 Q0 x 3 1_0 t", "score '1_0' is not a number"),
    ("1 Q0 x 3 1e t", "score '1e' is not a number"),
    ("1 Q0 x 3 NA t", "score 'NA' is not a number"),
    ("1 Q0 x 3 nan t", "score is NaN"),
    ("1 Q0 x 3 -NaN t", "score is NaN"),
    ("1 Q0 a 3 0.5 t", "document 'a' appears twice for query '1' (first on line 1)"),
])
def test_bad_run_line_names_file_and_line(tmp_path, bad_line, message):
    qrels = write(tmp_path / "qrels", QRELS)
    run = write(tmp_path / "runs" / "b.txt", RUN + bad_line + "\n")
    result = run_cli([qrels, run])
    assert_input_error(result, f"{run}:4", message)


@pytest.mark.parametrize("bad_line,message", [
    ("1 0 x", "expected 4 columns, found 3 (qid iter docno grade)"),
    ("1 0 x 1 extra", "expected 4 columns, found 5 (qid iter docno grade)"),
    ("1 0 x 1_0", "grade '1_0' is not a number"),
    ("1 0 x high", "grade 'high' is not a number"),
    ("1 0 x nan", "grade 'nan' is not a finite number"),
    ("1 0 x -inf", "grade '-inf' is not a finite number"),
    ("1 0 a 0", "document 'a' is judged twice for query '1' (first on line 1)"),
])
def test_bad_qrels_line_names_file_and_line(tmp_path, bad_line, message):
    qrels = write(tmp_path / "qrels", QRELS + bad_line + "\n")
    run = write(tmp_path / "run", RUN)
    assert_input_error(run_cli([qrels, run]), f"{qrels}:4", message)


def test_empty_run(files, tmp_path):
    qrels, _ = files
    empty = write(tmp_path / "empty", "\n\n")
    assert_input_error(run_cli([qrels, empty]), str(empty), "empty run")


def test_missing_file(files, tmp_path):
    qrels, run = files
    assert_input_error(run_cli([qrels, run, tmp_path / "nope"]), str(tmp_path / "nope"), "no such file")
    assert_input_error(run_cli([tmp_path / "nope", run]), str(tmp_path / "nope"), "no such file")


def test_unreadable_file(files, monkeypatch):
    qrels, run = files
    real_open = builtins.open

    def guarded(path, *args, **kwargs):
        if str(path) == str(run):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(builtins, "open", guarded)
    assert_input_error(run_cli([qrels, run]), str(run), "cannot read: permission denied")


def test_directory_is_not_a_run(files, tmp_path):
    qrels, _ = files
    assert_input_error(run_cli([qrels, tmp_path]), str(tmp_path), "is a directory")


def test_corrupt_gzip(files, tmp_path):
    qrels, _ = files
    broken = tmp_path / "run.gz"
    broken.write_bytes(gzip.compress(RUN.encode())[:-10])
    assert_input_error(run_cli([qrels, broken]), str(broken), "not a valid gzip file")


def test_two_runs_with_one_name(files, tmp_path):
    qrels, run = files
    other = write(tmp_path / "input.run.gz".replace(".gz", ""), RUN)   # input.run -> name "run"
    result = run_cli([qrels, run, other])
    assert result.code == 2 and result.out == ""
    assert "two runs named 'run'" in result.err


def test_stdin_only_once(files):
    qrels, run = files
    result = run_cli([qrels, "-", "-"], stdin=RUN.encode())
    assert result.code == 2 and "standard input" in result.err
    result = run_cli(["-", "-"], stdin=QRELS.encode())
    assert result.code == 2 and "standard input" in result.err
    result = run_cli(["-m", "num_q", "-", run], stdin=QRELS.encode())      # qrels from stdin is fine
    assert result.code == 0 and result.lines() == ["num_q                 \tall\t2"]


def test_run_without_any_judged_query_warns(files, tmp_path):
    qrels, run = files
    stranger = write(tmp_path / "stranger", "9 Q0 a 1 1.0 t\n")
    result = run_cli([qrels, run, stranger])
    assert result.code == 0
    assert "warning" in result.err and "stranger" in result.err
    assert "stranger\tnum_q                 \tall\t0" in result.lines()


@pytest.mark.parametrize("args,message", [
    (["-m", "nonsense"], "unknown measure 'nonsense'"),
    (["-m", "P.0"], "cutoffs must be positive"),
    (["-m", "P.5,5"], "duplicate cutoffs"),
    (["-m", "P.x"], "cannot read parameters"),
    (["-m", "utility.1,2"], "exactly 4 coefficients"),
    (["-m", "ndcg.1"], "level=gain pairs"),
    (["-M", "0"], "-M must be 1 or more, got 0"),
])
def test_bad_options(files, args, message):
    qrels, run = files
    result = run_cli(args + [qrels, run])
    assert result.code == 2 and result.out == ""
    assert message in result.err


def test_click_usage_errors_exit_2(files):
    qrels, _ = files
    result = run_cli([qrels])            # no run
    assert result.code == 2 and result.out == ""
    result = run_cli(["--format", "xml", qrels, qrels])
    assert result.code == 2


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_cr_only_line_endings_are_named(tmp_path, which):
    qrels = write(tmp_path / "qrels", QRELS)
    run = write(tmp_path / "run", RUN)
    target = qrels if which == "qrels" else run
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r"))
    result = run_cli([qrels, run])
    assert_input_error(result, f"{target}:1", "carriage return inside the line (CR-only line endings?")


def test_crlf_line_endings_are_fine(tmp_path):
    qrels = write(tmp_path / "qrels", QRELS)
    run = write(tmp_path / "run", RUN)
    plain = run_cli(["-m", "map", qrels, run])
    for path in (qrels, run):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert run_cli(["-m", "map", qrels, run]).out == plain.out


def test_nul_byte_in_qrels_is_named(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"1 0 a 1\n1 0 b\x00 0\n")
    run = write(tmp_path / "run", RUN)
    assert_input_error(run_cli([qrels, run]), f"{qrels}:2", "NUL byte")


def test_same_file_given_twice(files, tmp_path):
    qrels, run = files
    result = run_cli([qrels, run, run])
    assert result.code == 2 and result.out == ""
    assert "the same file is given twice" in result.err
    link = tmp_path / "sub" / "other-name"
    link.parent.mkdir()
    link.symlink_to(run)
    result = run_cli([qrels, run, link])
    assert result.code == 2 and "the same file is given twice" in result.err


@pytest.mark.parametrize("args,message", [
    (["--alpha", "nan"], "'--alpha': nan is not in [0, 1]"),
    (["--alpha", "1.5"], "'--alpha': 1.5 is not in [0, 1]"),
    (["--gate-margin", "nan"], "'--gate-margin': nan is not in [0, inf]"),
    (["--gate-margin", "-0.1"], "'--gate-margin': -0.1 is not in [0, inf]"),
    (["--rarity-weight", "1.5"], "'--rarity-weight': 1.5 is not in [0, 1]"),
    (["--rarity-weight", "-1"], "'--rarity-weight': -1 is not in [0, 1]"),
    (["--rarity-weight", "nan"], "'--rarity-weight': nan is not in [0, 1]"),
    (["--jobs", "0"], "'--jobs': 0 is not in the range x>=1"),
])
def test_options_that_would_disable_a_check_are_refused(files, args, message):
    qrels, run = files
    result = run_cli(args + [qrels, run])
    assert result.code == 2 and result.out == ""
    assert message in result.err


def test_negative_relevance_level_is_a_usage_error(files):
    qrels, run = files
    result = run_cli(["-l", "-1", qrels, run])
    assert result.code == 2 and result.out == ""
    assert "lexeval: error: -l must be 0 or more, got -1" in result.err


@pytest.mark.parametrize("value", ["inf", "1e999", "-inf"])
def test_an_infinite_relevance_level_is_a_usage_error(files, value):
    """-l inf ended in an internal error (exit 3: the level's code is an integer)."""
    qrels, run = files
    result = run_cli(["-l", value, qrels, run])
    assert result.code == 2 and result.out == ""
    assert "lexeval: error: -l must be a finite number 0 or more, got " in result.err


def test_dropped_queries_are_said_once_per_run(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    padded = write(tmp_path / "padded", "01 Q0 a 1 1.0 t\n02 Q0 b 1 1.0 t\n1 Q0 a 1 1.0 t\n")
    full = write(tmp_path / "full", "1 Q0 a 1 1.0 t\n2 Q0 b 1 1.0 t\n")
    result = run_cli(["-m", "map", qrels, padded, full])
    assert result.code == 0
    lines = result.err.splitlines()
    assert lines == [
        f"lexeval: {padded}: warning: 2 queries not in the qrels, ignored (first: \"01\"); "
        "lacks 2 of the 3 qrels queries (first: \"2\")",
        f"lexeval: {full}: warning: lacks 1 of the 3 qrels queries (first: \"3\")",
        "lexeval: note: a query a run lacks is left out of that run's averages (-c counts it) "
        "and is an empty ranking in comparisons",
        "lexeval: note: 1 qrels query with relevant documents in none of the runs (first: \"3\"): "
        "every run ties there in comparisons"]


def test_output_to_a_full_disk_is_an_error(files):
    import os
    import subprocess
    import sys
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    qrels, run = files
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "lexeval", str(qrels), str(run)], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == "lexeval: error: cannot write the output: No space left on device\n"


def test_closed_stdout_is_an_error(files):
    import subprocess
    import sys
    qrels, run = files
    done = subprocess.run([sys.executable, "-m", "lexeval", str(qrels), str(run)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: __import__("os").close(1))
    assert done.returncode == 2
    assert "lexeval: error: standard output is closed" in done.stderr


def test_output_into_a_closed_pipe_is_quiet():
    """lexeval -q ... | head -1: stdout closes early; no traceback, exit 0."""
    import subprocess
    import sys

    from conftest import EXAMPLES
    cranfield = EXAMPLES / "cranfield"
    pipeline = (f"{sys.executable} -m lexeval -q {cranfield / 'qrels.txt.gz'} {cranfield / 'runs' / 'bm25l.gz'} "
                f"{cranfield / 'runs' / 'lsi200.gz'} 2>&1 | head -1; exit ${{PIPESTATUS[0]}}")
    done = subprocess.run(["bash", "-c", pipeline], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout == "bm25l\tnum_ret               \t1\t100\n"


def test_plot_into_a_directory_that_cannot_be_made(files, tmp_path):
    pytest.importorskip("matplotlib")
    qrels, run = files
    blocker = write(tmp_path / "a-file", "not a directory\n")
    other = write(tmp_path / "run2", RUN)
    result = run_cli(["--report", "ties", "--plot", blocker / "figures", qrels, run, other])
    assert result.code == 2 and result.out == ""
    assert f"lexeval: error: --plot: cannot create the directory '{blocker / 'figures'}'" in result.err


# ---------------------------------------------------------------- first contact: messages that say what to do


def test_diversity_qrels_without_subtopics_say_how_to_read_them(tmp_path):
    qrels = write(tmp_path / "qrels.div", "1 1 a 1\n1 2 a 0\n1 2 b 1\n")
    run = write(tmp_path / "run", RUN)
    result = run_cli([qrels, run])
    assert_input_error(result, f"{qrels}:2", "document 'a' is judged twice for query '1' (first on line 1)")
    assert "--subtopics" in result.err and "-R qrels_jg" in result.err
    assert run_cli(["--subtopics", "-m", "map", qrels, run]).code == 0


def test_the_note_on_missing_queries_follows_minus_c(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n")
    averaged = run_cli(["-m", "map", qrels, run])
    complete = run_cli(["-c", "-m", "map", qrels, run])
    assert "left out of that run's averages (-c counts it)" in averaged.err
    assert "left out" not in complete.err
    assert "lexeval: note: a query a run lacks scores as an empty ranking in that run's averages (-c)" in complete.err
    assert averaged.lines()[-1].endswith("1.0000") and complete.lines()[-1].endswith("0.5000")


def test_a_truncated_parquet_run_is_called_so(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"qid": ["1"] * 40, "docno": [f"d{i}" for i in range(40)], "score": [1.0] * 40}), whole)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole.read_bytes()[:-30])
    result = run_cli([write(tmp_path / "qrels", QRELS), cut])
    assert_input_error(result, str(cut), "truncated or damaged")
    assert "NUL" not in result.err


def test_a_set_that_needs_other_judgements_is_named_as_typed(files):
    qrels, run = files
    for typed in ("all_prefs", "prefs", "qrels_jg"):
        result = run_cli(["-m", typed, qrels, run])
        assert result.code == 2 and result.out == ""
        assert result.err.startswith(f"lexeval: error: {typed} is computed from trec_eval's "), result.err
