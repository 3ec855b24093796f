"""Run names as users give them: file names without `input.` and compression
or Parquet suffixes, compressed files known by their first bytes, pipes named
by their tag column, NAME=PATH on the command line, and one name per run."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import subprocess
import sys

import pytest
from conftest import EXAMPLES, run_lines, write

from lexeval.io.source import run_name

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
BM25 = EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz"
LSI = EXAMPLES / "cranfield" / "runs" / "lsi200.gz"


@pytest.mark.parametrize("path,name", [
    ("runs/bm25.gz", "bm25"), ("input.bm25.gz", "bm25"), ("bm25.bz2", "bm25"), ("bm25.xz", "bm25"),
    ("bm25.zst", "bm25"), ("a/b/bm25.parquet", "bm25"), ("bm25.parquet.gz", "bm25"), ("input.bm25", "bm25"),
    ("bm25.txt.gz", "bm25.txt"), ("bm25.run", "bm25.run"), ("-", "stdin"), ("dataset/bm25.parquet/", "bm25"),
    (".gz", ".gz"), ("input.", "input."), ("run.tar", "run.tar"),
])
def test_run_names_leave_out_input_and_compression_suffixes(path, name):
    assert run_name(path) == name


def _map(result) -> str:
    return next(line.split("\t")[-1] for line in result.lines() if line.startswith("map") or "\tmap " in line)


@pytest.mark.parametrize("compress,suffix", [(gzip.compress, ".gz"), (bz2.compress, ".bz2"),
                                             (lzma.compress, ".xz")])
def test_compressed_runs_are_read_by_their_first_bytes(cli, tmp_path, compress, suffix):
    text = gzip.decompress(BM25.read_bytes())
    plain = cli(["-m", "map", QRELS, BM25])
    named = tmp_path / f"bm25okapi{suffix}"
    named.write_bytes(compress(text))
    unnamed = tmp_path / "bm25okapi.dat"           # the suffix says nothing: the bytes do
    unnamed.write_bytes(compress(text))
    for path, runid in ((named, "bm25okapi"), (unnamed, "bm25okapi.dat")):
        result = cli(["-m", "map", QRELS, path])
        assert result.code == 0, result.err
        assert _map(result) == _map(plain) == "0.2842"
        assert f"runid                 \tall\t{runid}" in result.out or result.out.startswith("map")


def test_zstd_runs_are_read_by_their_first_bytes(cli, tmp_path):
    zstandard = pytest.importorskip("zstandard")
    text = gzip.decompress(BM25.read_bytes())
    run = tmp_path / "bm25okapi.zst"
    # several frames, as zstd -c run1 run2 > runs.zst writes them
    run.write_bytes(zstandard.ZstdCompressor().compress(text[:len(text) // 2]) +
                    zstandard.ZstdCompressor().compress(text[len(text) // 2:]))
    result = cli(["-m", "map", "-m", "runid", QRELS, run])
    assert result.code == 0, result.err
    assert result.lines() == ["runid                 \tall\tbm25okapi", "map                   \tall\t0.2842"]


def test_compressed_qrels_and_small_files_too(cli, tmp_path):
    qrels = tmp_path / "qrels.xz"
    qrels.write_bytes(lzma.compress(gzip.decompress(QRELS.read_bytes())))
    assert _map(cli(["-m", "map", qrels, BM25])) == "0.2842"


def test_a_text_run_that_starts_like_bzip2_is_still_text(cli, tmp_path):
    qrels = write(tmp_path / "qrels", "BZh91AY 0 d1 1\nBZh91AY 0 d2 0\n")
    run = write(tmp_path / "run", run_lines({"BZh91AY": ["d2", "d1"]}))
    result = cli(["-m", "recip_rank", qrels, run])
    assert result.code == 0, result.err
    assert result.lines()[-1].endswith("\t0.5000")


def test_a_broken_compressed_run_is_an_error_with_the_file(cli, tmp_path):
    broken = tmp_path / "run.xz"
    broken.write_bytes(lzma.compress(b"1 Q0 d 1 1 t\n" * 1000)[:60])
    result = cli([QRELS, broken])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"lexeval: error: {broken}: not a valid xz file")


def test_zstd_runs_need_zstandard_or_say_so(cli, tmp_path):
    frame = bytes.fromhex("28b52ffd") + b"\x00" * 20   # a zstd magic number
    run = tmp_path / "run.zst"
    run.write_bytes(frame)
    result = cli([QRELS, run])
    assert result.code == 2 and result.out == ""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        assert "needs the Python package 'zstandard'" in result.err
    else:
        assert "not a valid zstd file" in result.err


def test_named_on_the_command_line(cli):
    result = cli(["-m", "map", "--baseline", "bm25", QRELS, f"bm25={BM25}", f"latent={LSI}"])
    assert result.code == 0, result.err
    assert "bm25\tmap                   \tall\t0.2842" in result.lines()
    assert "latent\tmap                   \tall\t0.3043" in result.lines()
    assert any(line.startswith("latent:bm25\tmap_p") for line in result.lines())


def test_a_file_whose_name_has_an_equals_sign_is_a_file(cli, tmp_path):
    run = tmp_path / "k=10"
    run.write_bytes(gzip.decompress(BM25.read_bytes()))
    result = cli(["-m", "map", QRELS, run])
    assert result.code == 0, result.err
    assert _map(result) == "0.2842"


def test_two_runs_with_one_name_say_how_to_name_them(cli, tmp_path):
    other = tmp_path / "bm25okapi.xz"
    other.write_bytes(lzma.compress(gzip.decompress(BM25.read_bytes())))
    result = cli(["-m", "map", QRELS, BM25, other])
    assert result.code == 2 and result.out == ""
    assert "two runs named 'bm25okapi'" in result.err and "NAME=PATH" in result.err
    assert cli(["-m", "map", QRELS, BM25, f"again={other}"]).code == 0


def test_a_parquet_run_is_named_without_parquet(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa
    lines = [line.split() for line in gzip.decompress(LSI.read_bytes()).decode().splitlines()]
    table = pa.table({"qid": [f[0] for f in lines], "docno": [f[2] for f in lines],
                      "score": [float(f[4]) for f in lines]})
    pq.write_table(table, tmp_path / "lsi.parquet")
    result = cli(["-m", "map", "--baseline", "lsi", QRELS, tmp_path / "lsi.parquet", BM25])
    assert result.code == 0, result.err
    assert "lsi\tmap                   \tall\t0.3043" in result.lines()


@pytest.mark.skipif(shutil.which("bash") is None, reason="process substitution needs bash")
def test_runs_from_pipes_are_named_by_their_tag(tmp_path):
    # the tags are bm25okapi and lsi200; the pipes' names are /dev/fd/NN
    script = (f"{sys.executable} -m lexeval -m map --baseline lsi200 {QRELS} "
              f"<(zcat {BM25}) <(zcat {LSI}) mine=<(zcat {BM25}) && zcat {LSI} | "
              f"{sys.executable} -m lexeval -m map {QRELS} -")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "bm25okapi\tmap                   \tall\t0.2842" in lines
    assert "lsi200\tmap                   \tall\t0.3043" in lines
    assert "mine\tmap                   \tall\t0.2842" in lines
    assert "runid                 \tall\tlsi200" in lines or "map                   \tall\t0.3043" in lines
    twice = subprocess.run(["bash", "-c", f"{sys.executable} -m lexeval {QRELS} <(zcat {BM25}) <(zcat {BM25})"],
                           capture_output=True, text=True, timeout=120)
    assert twice.returncode == 2 and twice.stdout == ""
    assert "two runs named 'bm25okapi'" in twice.stderr
