"""lexeval in a Python where a dependency is missing.

pyarrow makes reading fast, but reading must not depend on it: without it
files are read through numpy, and give trec_eval's numbers to the digit. A
missing package that some option needs is an error message, not a
traceback. The identity tests run both readers (the ``reader`` fixture);
here the packages are really absent from a child process.
"""

import subprocess
import sys

import pytest
from conftest import CONFORMANCE, run_cli, write

BLOCKED = "import sys\nfor name in {names!r}: sys.modules[name] = None\n" \
          "from lexeval.__main__ import main\nsys.argv[0] = 'lexeval'\nmain()\n"


def lexeval_without(names: list[str], args) -> subprocess.CompletedProcess:
    """``lexeval ARGS`` in a child Python where importing ``names`` fails."""
    return subprocess.run([sys.executable, "-c", BLOCKED.format(names=names), *map(str, args)],
                          capture_output=True, text=True)


ARROW = ["pyarrow", "pyarrow.csv", "pyarrow.compute"]


def test_trec_eval_output_without_pyarrow():
    """(Every trec_eval case runs with both readers in test_conformance.)"""
    done = lexeval_without(ARROW, [CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == (CONFORMANCE / "out.test").read_text()


def test_exact_identity_and_errors_without_pyarrow(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 d1 1\n1 0 docno-longer-than-8 0\n")
    run = write(tmp_path / "run", "1 Q0 d1 1 1.0 x\n")
    done = lexeval_without(ARROW, ["-m", "map", qrels, run])
    assert done.returncode == 0 and done.stdout == "map                   \tall\t1.0000\n"
    bad = write(tmp_path / "bad", "1 Q0 d1 1 1.0 x\n1 Q0 d2 2 1_0 x\n")
    done = lexeval_without(ARROW, [qrels, bad])
    assert done.returncode == 2 and done.stdout == ""
    assert f"{bad}:2: score '1_0' is not a number" in done.stderr


def test_tables_in_memory_say_they_need_pyarrow(reader):
    import pandas as pd

    from lexeval import evaluate
    qrels = pd.DataFrame({"qid": ["1"], "docno": ["a"], "relevance": [1]})
    run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    if reader != "numpy":
        assert evaluate(qrels, {"r": run}, ["map"]).column("map").values[0, 0] == 1.0
    else:
        from lexeval.errors import UsageError
        with pytest.raises(UsageError, match="pyarrow, which is not installed"):
            evaluate(qrels, {"r": run}, ["map"])


def test_a_missing_package_is_an_error_message(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 x\n")
    done = lexeval_without(["rich", "rich.console", "rich.table"], ["--format", "table", qrels, run])
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert "needs the Python package 'rich'" in done.stderr
    assert run_cli(["--format", "table", qrels, run]).code == 0     # with rich installed it works
