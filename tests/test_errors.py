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
    ("1 Q0 x 3 nan t", "score is NaN"),
    ("1 Q0 a 3 0.5 t", "document 'a' appears twice for query '1' (first on line 1)"),
])
def test_bad_run_line_names_file_and_line(tmp_path, bad_line, message):
    qrels = write(tmp_path / "qrels", QRELS)
    run = write(tmp_path / "runs" / "b.txt", RUN + bad_line + "\n")
    result = run_cli([qrels, run])
    assert_input_error(result, f"{run}:4", message)


@pytest.mark.parametrize("bad_line,message", [
    ("1 0 x", "expected 4 columns (qid iter docno grade), found 3"),
    ("1 0 x 1 extra", "expected 4 columns (qid iter docno grade), found 5"),
    ("1 0 x 1.5", "grade '1.5' is not an integer"),
    ("1 0 x high", "grade 'high' is not an integer"),
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
    (["-M", "0"], "-M (depth) must be at least 1"),
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
