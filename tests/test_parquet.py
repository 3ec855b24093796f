"""Parquet runs and qrels (ranx and PyTerrier users keep them so): a file
whose first bytes are Parquet's magic number, or a directory of Parquet
files, is read as a table with the columns tables in memory have."""

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import CONFORMANCE, run_cli


def _rows(path):
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def _run_table(rows):
    return pa.table({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows], "score": [float(r[4]) for r in rows]})


def test_a_parquet_run_and_qrels_give_trec_evals_numbers(tmp_path):
    pq.write_table(_run_table(_rows(CONFORMANCE / "results.test")), tmp_path / "results.parquet")
    qrels = _rows(CONFORMANCE / "qrels.test")
    pq.write_table(pa.table({"query_id": [r[0] for r in qrels], "doc_id": [r[2] for r in qrels],
                             "relevance": [int(r[3]) for r in qrels]}), tmp_path / "qrels.parquet")
    want = [line for line in (CONFORMANCE / "out.test").read_text().splitlines() if not line.startswith("runid")]
    for qrels_path in (CONFORMANCE / "qrels.test", tmp_path / "qrels.parquet"):
        result = run_cli([qrels_path, tmp_path / "results.parquet"])
        assert result.code == 0, result.err
        assert [line for line in result.lines() if not line.startswith("runid")] == want


def test_a_directory_of_parquet_files_is_one_run(tmp_path):
    rows = _rows(CONFORMANCE / "results.test")
    folder = tmp_path / "run"
    folder.mkdir()
    half = len(rows) // 2
    pq.write_table(_run_table(rows[:half]), folder / "part-0.parquet")
    pq.write_table(_run_table(rows[half:]), folder / "part-1.parquet")
    text = run_cli(["-q", "-m", "map", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"])
    parquet = run_cli(["-q", "-m", "map", CONFORMANCE / "qrels.test", folder])
    assert parquet.code == 0 and parquet.out == text.out


def test_parquet_errors_name_the_file_and_row(tmp_path):
    pq.write_table(pa.table({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}), tmp_path / "twice.parquet")
    pq.write_table(pa.table({"qid": ["1"], "docid": ["a"]}), tmp_path / "nocol.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 and then not Parquet")
    qrels = CONFORMANCE / "qrels.test"
    for name, message in (("twice", "row 1: document 'a' appears twice for query '1' (first in row 0)"),
                          ("nocol", "no column 'score' (columns: qid, docid)"),
                          ("broken", "not a readable Parquet file")):
        path = tmp_path / f"{name}.parquet"
        result = run_cli(["-m", "map", qrels, path])
        assert result.code == 2 and result.out == "", name
        assert f"lexeval: error: {path}: {message}" in result.err, result.err
