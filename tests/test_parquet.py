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
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 and then not Parquet" + (4).to_bytes(4, "little") + b"PAR1")
    qrels = CONFORMANCE / "qrels.test"
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"qid": ["1"] * 50, "docno": [f"d{i}" for i in range(50)], "score": [1.0] * 50}), whole)
    (tmp_path / "truncated.parquet").write_bytes(whole.read_bytes()[:len(whole.read_bytes()) // 2])
    # rows count from 1, as lines do
    for name, message in (("twice", "row 2: document 'a' appears twice for query '1' (first in row 1)"),
                          ("truncated", "starts as a Parquet file but does not end as one"),
                          ("nocol", "no column 'score' (columns: qid, docid)"),
                          ("broken", "not a readable Parquet file")):
        path = tmp_path / f"{name}.parquet"
        result = run_cli(["-m", "map", qrels, path])
        assert result.code == 2 and result.out == "", name
        assert f"lexeval: error: {path}: {message}" in result.err, result.err


def test_a_text_file_whose_first_qid_is_the_magic_number_is_text(tmp_path):
    """Parquet has PAR1 at both ends and a footer that fits; "PAR1" as a
    first qid (found by the identity property test) is read as text."""
    (tmp_path / "qrels").write_text("PAR1 0 d1 1\nPAR1 0 d2 0\n")
    (tmp_path / "run").write_text("PAR1 Q0 d2 1 2.0 t\nPAR1 Q0 d1 2 1.0 PAR1")
    result = run_cli(["-q", "-m", "recip_rank", tmp_path / "qrels", tmp_path / "run"])
    assert result.code == 0, result.err
    assert "recip_rank            \tPAR1\t0.5000" in result.out
