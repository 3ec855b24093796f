"""--cluster: the same call sharded by query on a Dask cluster (a
LocalCluster of 2 worker processes here) prints what one machine prints,
to the last character, from text, gzip and Parquet, through local paths,
file:// and fsspec's in-memory filesystem; errors name the original file
and line; a partition sends back sums, not per-query values."""

from __future__ import annotations

import gzip
import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import CONFORMANCE, DL19, DLHARD, EXAMPLES, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_identity import MEASURES, collections, write_collection

from lexeval.errors import InputError
from lexeval.options import Evaluating

distributed = pytest.importorskip("distributed")

CRAN_QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
CRAN = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))


def _without_when_and_how(output: str) -> str:
    """A page's provenance less what differs between two calls of the same evaluation: the date, and the
    command (one has --cluster ADDRESS)."""
    import re
    return re.sub(r'"(date|command|reproduce)":"(?:[^"\\]|\\.)*"', r'"\1":""', output)


def same_on_cluster(address: str, args: list) -> None:
    """stdout, stderr and exit status of the call equal with --cluster."""
    alone = run_cli(args)
    sharded = run_cli(["--cluster", address, *args])
    assert sharded.code == alone.code, sharded.err
    assert sharded.err == alone.err
    assert _without_when_and_how(sharded.out) == _without_when_and_how(alone.out)


@pytest.mark.parametrize("options", [
    [],
    ["-q"],
    ["-q", "--test", "randomization", "--permutations", "120", "--ci", "--hsd", "--aggregate", "borda",
     "--pair-metrics"],
    ["--format", "json", "-m", "all_trec", "-m", "lexicographic", "--baseline", "lsi200", "--correction", "holm"],
    ["-c", "-q", "-M", "20", "-J", "-m", "official", "-m", "LR", "--aggregate", "mc4", "--ci"],
    ["--format", "markdown", "-m", "map", "-m", "P.10", "-m", "LP", "--ci", "--baseline", "bm25l"],
    ["--format", "csv", "-m", "P_rare.10", "-m", "map_rare", "-m", "RPP", "--baseline", "bm25l", "--gate", "map"],
    ["-q", "--bounds", "-M", "30", "-m", "P.5,20", "-m", "map", "-m", "Rprec", "-m", "recip_rank", "-m", "LP",
     "-m", "recall.10", "-m", "ndcg_cut.10", "--baseline", "bm25l", "--gate", "P_5"],
    ["-q", "--tie-order", "expected", "-m", "map", "-m", "P.5", "-m", "ndcg_cut.10", "-m", "recip_rank"],
    ["--tie-order", "input", "--format", "json"],
])
def test_cranfield_prints_the_same(cluster, options):
    same_on_cluster(cluster.scheduler_address, [*options, CRAN_QRELS, *CRAN[:4]])


def test_real_trec_runs_print_the_same(cluster):
    dl19 = sorted((DL19 / "runs").iterdir())[:4]
    same_on_cluster(cluster.scheduler_address, ["-l", "2", "-q", "-m", "official", "-m", "nDCG@10", "-m", "LP",
                                                "-m", "LR", "--hsd", DL19 / "qrels.txt", *dl19])
    dlhard = sorted((DLHARD / "runs").iterdir())[:3]
    same_on_cluster(cluster.scheduler_address, ["-M", "100", "-J", "-m", "official", "-m", "ndcg_cut.10",
                                                "--test", "randomization", "--permutations", "200",
                                                DLHARD / "qrels.txt", *dlhard])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(collections())
def test_identity_collections_print_the_same(cluster, tmp_path_factory, collection):
    qrels, runs, rng = collection
    qrels_path, run_paths = write_collection(tmp_path_factory.mktemp("cl"), qrels, runs, rng)
    same_on_cluster(cluster.scheduler_address, ["-q", "-c", *sum((["-m", m] for m in MEASURES), []),
                                                qrels_path, *run_paths])


def _generated(folder, queries: int = 20_000, runs: int = 3, depth: int = 10, seed: int = 5):
    """A collection of many short queries (the recommender shape), with
    qids of several lengths and tied scores."""
    rng = np.random.default_rng(seed)
    qids = [f"u{q}" if q % 3 else f"user-{q:07d}" for q in range(queries)]
    qrels_lines = []
    for qid in qids:
        for item in rng.choice(40, size=int(rng.integers(1, 6)), replace=False).tolist():
            qrels_lines.append(f"{qid} 0 i{item} {int(rng.integers(0, 3))}\n")
    (folder / "qrels.txt").write_text("".join(qrels_lines))
    paths = []
    for run in range(runs):
        lines = []
        for qid in qids:
            items = rng.choice(40, size=depth, replace=False)
            scores = np.round(rng.random(depth), 2)
            lines += [f"{qid} Q0 i{item} 0 {score!r} r{run}\n" for item, score in zip(items.tolist(), scores.tolist())]
        path = folder / f"run{run}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return folder / "qrels.txt", paths


def _to_parquet(text_path, target, kind: str):
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = [line.split() for line in text_path.read_text().splitlines()]
    if kind == "run":
        table = pa.table({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                          "score": [float(r[4]) for r in rows]})
    else:
        table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                          "relevance": [int(r[3]) for r in rows]})
    pq.write_table(table, target, row_group_size=50_000)
    return target


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return _generated(tmp_path_factory.mktemp("gen"))


@pytest.fixture(scope="module")
def generated_smaller(tmp_path_factory):
    """3,000 users: still many partitions, row groups and buckets, for the test that reads it five ways."""
    return _generated(tmp_path_factory.mktemp("gen-smaller"), queries=3_000)


def test_a_generated_3000_query_collection_prints_the_same_from_text_gzip_and_parquet(cluster, generated_smaller,
                                                                                      tmp_path):
    qrels, runs = generated_smaller
    # (--hsd over partitions: test_cranfield_prints_the_same; here it would cost seconds of scipy per call)
    args = ["-m", "official", "-m", "P.10", "-m", "lexicographic", "--ci"]
    alone = run_cli([*args, qrels, *runs])
    assert alone.code == 0, alone.err
    address = cluster.scheduler_address
    # text through file:// URLs, one run gzipped
    zipped = tmp_path / "run0.txt.gz"
    zipped.write_bytes(gzip.compress(runs[0].read_bytes()))
    text = run_cli(["--cluster", address, *args, f"file://{qrels}", zipped, *(f"file://{r}" for r in runs[1:])])
    assert text.code == 0, text.err
    assert text.out == alone.out.replace("\trun0.txt\t", "\trun0.txt\t")
    # Parquet: the qrels and the runs, written in row groups
    parquet = [_to_parquet(qrels, tmp_path / "qrels.parquet", "qrels")] + \
              [_to_parquet(run, tmp_path / f"{run.stem}.parquet", "run") for run in runs]
    alone_parquet = run_cli([*args, *parquet])
    sharded = run_cli(["--cluster", address, *args, *parquet])
    assert sharded.code == 0, sharded.err
    assert sharded.out == alone_parquet.out
    # the numbers are the text call's (only the run names and runid lines say where they came from)
    assert [line.split("\t", 1)[1] for line in sharded.lines() if "runid" not in line] == \
           [line.split("\t", 1)[1] for line in alone.lines() if "runid" not in line]


def test_fsspec_memory_filesystem(tmp_path):
    """memory:// lives in one process: a cluster of threads shares it."""
    import fsspec
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address="127.0.0.1:0", silence_logs=40)
    try:
        memory = fsspec.filesystem("memory")
        for path in [CRAN_QRELS, *CRAN[:3]]:
            memory.pipe(f"/lexeval-test/{path.name}", path.read_bytes())
        alone = run_cli(["-q", "-m", "map", "-m", "LP", CRAN_QRELS, *CRAN[:3]])
        sharded = run_cli(["--cluster", local.scheduler_address, "-q", "-m", "map", "-m", "LP",
                           f"memory://lexeval-test/{CRAN_QRELS.name}",
                           *(f"memory://lexeval-test/{p.name}" for p in CRAN[:3])])
        assert sharded.code == 0, sharded.err
        assert sharded.out == alone.out
    finally:
        local.close()


def test_errors_name_the_original_file_and_line(cluster, generated, tmp_path):
    qrels, runs = generated
    broken = tmp_path / "broken.txt"
    lines = runs[1].read_text().splitlines(keepends=True)
    lines[123_456] = "u77 Q0 i1 0 notanumber r1\n"
    broken.write_text("".join(lines))
    alone = run_cli(["-m", "map", qrels, runs[0], broken])
    sharded = run_cli(["--cluster", cluster.scheduler_address, "-m", "map", qrels, runs[0], broken])
    assert alone.code == sharded.code == 2
    assert f"{broken}:123457:" in alone.err
    assert sharded.err == alone.err and sharded.out == ""


def test_parquet_errors_name_the_row(cluster, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"qid": ["1"] * 3, "docid": ["a", "b", "c"]}), tmp_path / "nocol.parquet")
    result = run_cli(["--cluster", cluster.scheduler_address, "-m", "map", CRAN_QRELS, tmp_path / "nocol.parquet"])
    assert result.code == 2 and result.out == ""
    assert f"lexeval: error: {tmp_path / 'nocol.parquet'}: no column 'score'" in result.err


def test_a_partition_sends_back_sums_and_its_memory_follows_its_share(cluster, generated):
    """Without -q a partition's result has no per-query arrays: its size
    does not grow with its queries. The memory a partition's evaluation
    allocates (tracemalloc's peak, numpy's arrays included) is a fraction of
    what the whole collection's evaluation allocates in one process."""
    from dask.distributed import Client

    from lexeval import evaluate
    from lexeval.cluster.pieces import partition_bounds, pieces_of, split_piece
    from lexeval.cluster.run import bucket
    qrels, runs = generated
    files = [str(qrels), *(str(r) for r in runs)]
    measures = ["official", "lexicographic"]
    whole = _traced(lambda: evaluate(files[0], files[1:], measures, warn=lambda text: None))[1]
    with Client(cluster.scheduler_address) as client:
        bounds = partition_bounds(client, pieces_of(files[0], 1 << 20, "qrels"), 8)
        assert len(bounds) == 7
        split = [[client.submit(split_piece, piece, bounds, pure=False)
                  for piece in pieces_of(path, 1 << 20, "qrels" if i == 0 else "run")] for i, path in enumerate(files)]
        results = client.gather([client.submit(_partition_traced, k, [[client.submit(bucket, f, k) for f in per_file]
                                                                      for per_file in split],
                                               files, ["a", "b", "c"], measures, pure=False) for k in (0, 1)])
    sizes = [size for size, _ in results]
    peaks = [peak for _, peak in results]
    assert max(sizes) < 100_000, sizes          # sums: a few kB per measure, whatever the queries
    assert max(peaks) < whole / 3, (peaks, whole)


def _traced(call):
    import tracemalloc
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _partition_traced(k, split, files, names, measures):
    from lexeval.cluster.partition import PartitionJob, evaluate_partition
    (result, _), peak = _traced(lambda: evaluate_partition(k, split, PartitionJob(files, names, Evaluating(measures))))
    return len(pickle.dumps(result)), peak


def test_cluster_errors_are_usage_errors(cluster):
    result = run_cli(["--cluster", "tcp://127.0.0.1:9", "-m", "map", CRAN_QRELS, CRAN[0]])
    assert result.code == 2 and "cannot reach the scheduler" in result.err


def test_one_machine_does_not_import_dask():
    done = subprocess.run([sys.executable, "-c", "import sys; from lexeval.cli import main\n"
                           "try:\n    main(['-m', 'map', sys.argv[1], sys.argv[2]])\nexcept SystemExit: pass\n"
                           "assert 'dask' not in sys.modules and 'distributed' not in sys.modules",
                           str(CRAN_QRELS), str(CRAN[0])], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


random.seed(0)


def test_a_repeated_document_is_named_at_both_lines_and_rows(cluster, tmp_path):
    """The error names the line (Parquet: row) of the repeat and of the first
    occurrence, counted from the start of the file, as on one machine."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    lines = [f"{q} Q0 d{d} 0 {1.0 / (d + 1)!r} t\n" for q in range(1, 200) for d in range(30)]
    lines.insert(5000, "77 Q0 d3 0 0.5 t\n")
    text = tmp_path / "repeat.txt"
    text.write_text("".join(lines))
    rows = [line.split() for line in lines]
    folder = tmp_path / "repeat"
    folder.mkdir()
    for part, chunk in enumerate((rows[:3000], rows[3000:])):
        pq.write_table(pa.table({"qid": [r[0] for r in chunk], "docno": [r[2] for r in chunk],
                                 "score": [float(r[4]) for r in chunk]}), folder / f"part-{part}.parquet",
                       row_group_size=700)
    for run in (text, folder):
        alone = run_cli(["-m", "map", CRAN_QRELS, run])
        sharded = run_cli(["--cluster", cluster.scheduler_address, "-m", "map", CRAN_QRELS, run])
        assert alone.code == sharded.code == 2, alone.err
        assert "appears twice" in alone.err
        assert sharded.err == alone.err and sharded.out == ""


@pytest.mark.parametrize("output_format", ["text", "json", "csv"])
def test_output_folder_holds_the_per_query_lines_as_part_files(cluster, tmp_path, output_format):
    """--output DIR: the summary on standard output as without -q; the
    per-query lines in part files (one per partition), together the -q
    call's per-query lines; one machine writes one part."""
    args = ["--format", output_format, "-m", "map", "-m", "P.10", "-m", "LP", CRAN_QRELS, *CRAN[:3]]
    whole = run_cli(["-q", *args])
    summary = run_cli(args)
    header = ["key,measure,qid,value"] if output_format == "csv" else []
    per_query = sorted(line for line in whole.lines() if line not in summary.lines())
    for cluster_args, folder in (([], tmp_path / "alone"), (["--cluster", cluster.scheduler_address],
                                                             tmp_path / "sharded")):
        result = run_cli([*cluster_args, "-q", "--output", folder, *args])
        assert result.code == 0, result.err
        assert result.out == summary.out
        parts = sorted(folder.iterdir())
        assert len(parts) == (1 if not cluster_args else 4)
        assert all(part.name.startswith("part-") and not part.name.endswith(".partial") for part in parts)
        lines = [line for part in parts for line in part.read_text().splitlines() if line not in header]
        assert sorted(lines) == per_query


def test_output_needs_per_query_lines(tmp_path):
    result = run_cli(["--output", tmp_path, "-m", "map", CRAN_QRELS, CRAN[0]])
    assert result.code == 2 and "add -q" in result.err


# qids that differ only in the 8th, 9th, 15th or 16th byte: numpy's split compares each line's first 16 bytes
# as two 8-byte words
EDGE_QIDS = ["1234567x", "1234567y", "12345678x", "12345678y", "abcdefghijklmnX", "abcdefghijklmnY",
             "abcdefghijklmnoX", "abcdefghijklmnoY"]
LINE = st.tuples(st.sampled_from(["q1", "q1", "q2", "a" * 23, "a" * 24, "a" * 40, "b" * 30, "\u00e9t\u00e9", "#c", "",
                                  *EDGE_QIDS]),
                 st.sampled_from(["", " ", "\t", "  "]), st.sampled_from(["\n", "\r\n"]))


def _split_both_ways(text: bytes, bounds: list[bytes], blocksize: int = 1 << 20):
    """(buckets' text, their lines' numbers in the file, lines) of
    the text split as bytes and as a local file's pieces, each by the
    kernel and by numpy: the four must agree."""
    import tempfile

    import lexeval.cluster.pieces as module
    from lexeval.cluster.pieces import Piece, pieces_of, split_piece
    results = []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run")
        with open(path, "wb") as handle:
            handle.write(text)
        for kernel, scattered in (("on", False), ("off", False), ("on", True), ("off", True)):
            os.environ["LEXEVAL_KERNEL"] = kernel
            # scattered: a local file's pieces send their text, as when its queries' lines are far apart
            module.IN_PLACE_RUNS, module.IN_PLACE_RUN_LINES = (0, 1 << 40) if scattered else (1024, 32)
            try:
                for pieces in ([Piece("x", 0, block=text)], pieces_of(path, blocksize, "run")):
                    texts, numbers, before = [b""] * (len(bounds) + 1), [[] for _ in range(len(bounds) + 1)], 0
                    for piece in pieces:
                        buckets, segments, lines, piece = split_piece(piece, bounds)
                        assert piece.start < 0 or not scattered or not any(map(len, segments))
                        for k, (data, segment) in enumerate(zip(buckets, segments)):
                            assert segment.shape[1] == (4 if piece.start >= 0 else 2)
                            if piece.start >= 0:          # a local file's piece: its bytes where they lie
                                texts[k] += b"".join(text[piece.start + a:piece.start + b]
                                                     for a, b in segment[:, 2:].tolist()) + (data or b"")
                            else:
                                texts[k] += data
                            numbers[k] += [before + first + i for first, count in segment[:, :2].tolist()
                                           for i in range(count)]
                        before += lines
                    results.append((texts, numbers, before))
            finally:
                del os.environ["LEXEVAL_KERNEL"]
                module.IN_PLACE_RUNS, module.IN_PLACE_RUN_LINES = 1024, 32
    assert all(result == results[0] for result in results[1:]), results
    return results[0]


@settings(max_examples=100, deadline=None)
@given(st_lines=st.lists(LINE, min_size=1, max_size=60), last_ended=st.booleans(),
       bounds=st.lists(st.sampled_from([b"a", b"a" * 24, b"b", b"q1", b"q2", b"z", b"\xc3", b"12345678y",
                                         b"1234567y", b"abcdefghijklmnY", b"abcdefghijklmnoY"]), max_size=3)
       .map(lambda cut: sorted(set(cut))), blocksize=st.sampled_from([16, 100, 1 << 20]))
def test_split_sends_each_line_to_its_qids_range(st_lines, last_ended, bounds, blocksize):
    """Every non-blank line lands, once and in file order, in the bucket of
    its qid's range (byte order), and its segment gives its line number:
    from bytes and from a local file's pieces (read where they lie), by the
    kernel and by numpy; a last line without its line feed gets one."""
    from bisect import bisect_right
    text = "".join(f"{lead}{qid} Q0 d 1 1.0 t{end}" if qid else f"{lead}{end}" for qid, lead, end in st_lines)
    if not last_ended:
        text = text[:-1]
    texts, numbers, lines = _split_both_ways(text.encode(), bounds, blocksize)
    assert lines == text.count("\n") + (text != "" and not text.endswith("\n")) and len(texts) == len(bounds) + 1
    want: dict[int, list] = {k: [] for k in range(len(bounds) + 1)}
    for number, (qid, lead, end) in enumerate(st_lines, 1):
        if qid:      # a last line without its line feed gets it back
            want[bisect_right(bounds, qid.encode())].append((number, f"{lead}{qid} Q0 d 1 1.0 t{end}"))
    for k in want:
        got = texts[k].decode().splitlines(keepends=True)
        assert list(zip(numbers[k], got)) == want[k]


@pytest.mark.parametrize("low, high", [("1234567x", "1234567y"), ("12345678x", "12345678y"),
                                       ("abcdefghijklmnX", "abcdefghijklmnY"),
                                       ("abcdefghijklmnoX", "abcdefghijklmnoY")])
def test_split_tells_apart_qids_that_differ_in_one_late_byte(low, high):
    """Adjacent lines whose qids differ only in their 8th, 9th, 15th or 16th
    byte are two runs of lines, each in its own range's bucket."""
    text = f"{low} Q0 d 1 1.0 t\n{high} Q0 d 1 1.0 t\n{low} Q0 e 2 0.5 t\n".encode()
    texts, numbers, lines = _split_both_ways(text, [high.encode()])
    assert lines == 3
    assert texts[0] == f"{low} Q0 d 1 1.0 t\n{low} Q0 e 2 0.5 t\n".encode()
    assert texts[1] == f"{high} Q0 d 1 1.0 t\n".encode()
    assert numbers[0] == [1, 3] and numbers[1] == [2]


def test_the_library_call_takes_a_client(cluster):
    """evaluate(..., client=...) returns the one-machine summaries, pair
    means, p-values and gate decisions."""
    from dask.distributed import Client

    from lexeval import SignificanceOptions, evaluate
    options = SignificanceOptions(baseline="bm25l", hsd=True)
    args = (str(CRAN_QRELS), [str(run) for run in CRAN[:4]], ["map", "P.10", "LP", "rrLP"])
    alone = evaluate(*args, options=options, warn=lambda text: None)
    with Client(cluster.scheduler_address) as client:
        sharded = evaluate(*args, options=options, warn=lambda text: None, client=client)
    for name in ("map", "P_10"):
        assert (sharded.summary(sharded.column(name)) == alone.summary(alone.column(name))).all()
    for name in ("map", "P_10", "LP", "rrLP"):
        assert (sharded.tests.p[name] == alone.tests.p[name]).all()
        assert (sharded.tests.hsd_p[name] == alone.tests.hsd_p[name]).all()
    assert (sharded.pair_summary.mean["LP"] == alone.pair_summary.mean["LP"]).all()
    assert sharded.gate_failures(["map", "LP"]) == alone.gate_failures(["map", "LP"])


def test_means_add_as_trec_eval_adds_across_partitions(cluster, generated):
    """trec_eval adds per-query values left to right in qid order: on 20,000
    queries some means sit on a rounding edge, where only that order gives
    trec_eval's digit. The cluster folds its ranges in that order, so its
    full-precision means (json) equal one machine's, bit for bit."""
    qrels, runs = generated
    args = ["--format", "json", "-m", "all_trec", qrels, runs[0]]
    alone = run_cli(args)
    sharded = run_cli(["--cluster", cluster.scheduler_address, *args])
    assert alone.code == 0 and sharded.out == alone.out




@pytest.mark.parametrize("args", [
    ["-R", "prefs", "-m", "all_prefs", "-q", CONFORMANCE / "prefs.test", CONFORMANCE / "prefs.results.test"],
    ["-R", "qrels_prefs", "-m", "all_prefs", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"],
    ["-R", "qrels_jg", "-q", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"],
    ["-Z", CONFORMANCE / "zscores_file", "-q", CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"],
    ["-N", "2000", "-m", "utility", "-m", "map", CRAN_QRELS, *CRAN[:2]],
], ids=["prefs", "qrels_prefs", "qrels_jg", "zscores", "num_docs"])
def test_trec_evals_formats_and_options_print_the_same(cluster, args):
    same_on_cluster(cluster.scheduler_address, args)


def test_diversity_prints_the_same(cluster, tmp_path):
    from test_diversity import generated
    qrels, run = generated(5)
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in qrels))
    runs = []
    for tag, shift in (("a", 0), ("b", 7)):
        path = tmp_path / f"run_{tag}"
        path.write_text("".join(f"{q} Q0 {d} {i} {score + (shift if i % 3 else 0)} {tag}\n"
                                for i, (q, d, score) in enumerate(run, 1)))
        runs.append(path)
    same_on_cluster(cluster.scheduler_address, ["-q", "-m", "map", "-m", "alpha_nDCG@10", "-m", "NRBP(beta=0.8)",
                                                "-m", "P_IA@5", "-m", "LP", qrels_path, *runs])
    same_on_cluster(cluster.scheduler_address, ["--subtopics", "-m", "ERR_IA@20", qrels_path, *runs])


def test_standard_input_is_read_by_the_client(cluster):
    run, qrels = gzip.decompress(CRAN[1].read_bytes()), gzip.decompress(CRAN_QRELS.read_bytes())
    for args, data in ((["-m", "map", "-m", "LP", CRAN_QRELS, CRAN[0], "-"], run),    # a run: named by its tag
                       (["-q", "-m", "map", "-", CRAN[0], CRAN[1]], qrels)):
        alone = run_cli(args, stdin=data)
        sharded = run_cli(["--cluster", cluster.scheduler_address, *args], stdin=data)
        assert sharded.code == alone.code == 0, sharded.err
        assert sharded.out == alone.out and sharded.err == alone.err
    broken = run + b"1 Q0 x 1 nan t\n"                       # the error names standard input's line
    alone = run_cli([CRAN_QRELS, "-"], stdin=broken)
    sharded = run_cli(["--cluster", cluster.scheduler_address, CRAN_QRELS, "-"], stdin=broken)
    assert sharded.code == alone.code == 2 and sharded.err == alone.err and sharded.out == ""


def test_the_html_page_is_one_machines(cluster):
    for extra in ([], ["--baseline", "bm25plus", "--ci"]):
        alone = run_cli(["--format", "html", *extra, CRAN_QRELS, *CRAN[:4]])
        assert alone.code == 0 and alone.out.startswith("<!DOCTYPE html>"), alone.err
        same_on_cluster(cluster.scheduler_address, ["--format", "html", *extra, CRAN_QRELS, *CRAN[:4]])


@pytest.mark.parametrize("options", [
    ["--report", "ties", "--report", "agreement", "--report", "discrimination"],
    ["--report", "stability", "--trials", "40", "-m", "recip_rank", "-m", "LP", "-m", "map", "--format", "markdown"],
    ["--report", "ties", "--report", "discrimination", "--test", "randomization", "--permutations", "200",
     "-m", "LP", "-m", "rrLP", "-m", "RPP", "-m", "P.10", "--format", "html"],
    ["--report", "degradation", "--samples", "3", "--fractions", "1,0.5,0.2"],          # label draws keyed per label
    ["--report", "degradation", "--label-policy", "pool", "--samples", "2", "-m", "map", "-m", "LP"],
    ["--report", "power", "--delta", "0.05", "-m", "map", "-m", "LR", "--format", "csv"],
    # the reports that read runs and judgements again
    ["--report", "judges", "--compare-qrels", CRAN_QRELS.parent / "qrels-perturbed.txt.gz", "-m", "map", "-m", "LP"],
    ["--report", "reusability", "--pool-depth", "20", "-m", "map", "-m", "LP"],
    ["--report", "reproduction", "--original", "bm25l,bm25okapi", "--reproduced", "bm25plus,bm25s_atire",
     "--cutoffs", "10", "-m", "map", "--format", "json"],
])
def test_reports_print_the_same(cluster, options):
    same_on_cluster(cluster.scheduler_address, [*options, CRAN_QRELS, *CRAN[:4]])


def test_report_figures_are_the_same(cluster, tmp_path):
    pytest.importorskip("matplotlib")
    args = ["--report", "ties", "-m", "LP", CRAN_QRELS, *CRAN[:3]]
    alone = run_cli([*args, "--plot", tmp_path / "alone"])
    sharded = run_cli(["--cluster", cluster.scheduler_address, *args, "--plot", tmp_path / "sharded"])
    assert alone.code == sharded.code == 0, sharded.err
    assert sharded.out == alone.out
    drawn = [sorted(path.name for path in (tmp_path / name).iterdir()) for name in ("alone", "sharded")]
    assert drawn[0] == drawn[1] and drawn[0]


def test_a_partition_reads_local_files_where_they_lie(monkeypatch, tmp_path):
    """A partition reads a local file's ranges in place (no copy), and only
    bad input has it write them out (to name the line as one machine does)."""
    import lexeval.cluster.partition as partition
    from lexeval.cluster.pieces import pieces_of, split_piece
    from lexeval.cluster.run import bucket
    ways = []
    local_files = partition._local_files
    monkeypatch.setattr(partition, "_local_files",
                        lambda *args, in_place: ways.append(in_place) or local_files(*args, in_place=in_place))
    plain = []
    for index, path in enumerate([CRAN_QRELS, CRAN[0], CRAN[1], CRAN[1]]):
        plain.append(tmp_path / f"{index}.txt")
        plain[-1].write_bytes(gzip.decompress(path.read_bytes()))
    lines = plain[3].read_text().splitlines(keepends=True)
    lines[40] = " ".join(lines[40].split()[:4] + ["notanumber", "run"]) + "\n"
    plain[3].write_text("".join(lines))
    for runs, want in ((plain[1:3], [True]), ([plain[1], plain[3]], [True, False])):
        ways.clear()
        files = [str(path) for path in [plain[0], *runs]]
        split = [[split_piece(piece, []) for piece in pieces_of(path, 1 << 14, "run")] for path in files]
        assert len(split[2]) > 3 and all(piece.start >= 0 for *_, piece in split[2])
        parts = [[bucket(result, 0) for result in per_file] for per_file in split]
        try:
            job = partition.PartitionJob(files, ["a", "b"], Evaluating(["map"]))
            result, _ = partition.evaluate_partition(0, parts, job)
            assert result.totals is not None
        except InputError as exc:                          # the piece and its line that the client counts from
            piece, line = exc.located[1][0]
            assert exc.located[0] == 2 and "notanumber" in exc.message
            assert sum(lines for _, _, lines, _ in split[2][:piece]) + line == 41
        assert ways == want


def test_local_files_of_every_shape_print_the_same(cluster, tmp_path):
    """Local files read where they lie: a byte-order mark, a last line
    without its line feed, CRLF lines, blank lines; a gzipped run without
    its suffix (read through fsspec), a run in no order (its text sent),
    and an empty run."""
    qrels = gzip.decompress(CRAN_QRELS.read_bytes())
    runs = [gzip.decompress(path.read_bytes()) for path in CRAN[:3]]
    (tmp_path / "qrels").write_bytes(b"\xef\xbb\xbf" + qrels)
    (tmp_path / "bom").write_bytes(b"\xef\xbb\xbf" + runs[0][:-1])
    (tmp_path / "crlf").write_bytes(runs[1].replace(b"\n", b"\r\n").replace(b"\r\n", b"\r\n\n", 7))
    (tmp_path / "zipped").write_bytes(gzip.compress(runs[2]))
    lines = runs[0].splitlines(keepends=True)
    random.Random(7).shuffle(lines)                   # queries scattered: the piece sends its text
    (tmp_path / "shuffled").write_bytes(b"".join(lines))
    files = [str(tmp_path / name) for name in ("qrels", "bom", "crlf", "zipped", "shuffled")]
    same_on_cluster(cluster.scheduler_address, ["-q", "-m", "map", "-m", "LP", *files])
    (tmp_path / "empty").write_bytes(b"")
    same_on_cluster(cluster.scheduler_address, ["-m", "map", files[0], files[1], str(tmp_path / "empty")])


@pytest.mark.parametrize("change", ["removed", "truncated"])
def test_a_file_changed_after_its_split_is_bad_input(tmp_path, change):
    """A local file read where it lies that is removed or cut short between
    the split and its partition is the user's error (exit 2), naming it."""
    from lexeval.cluster.partition import PartitionJob, evaluate_partition
    from lexeval.cluster.pieces import pieces_of, split_piece
    from lexeval.cluster.run import bucket
    files = []
    for index, path in enumerate([CRAN_QRELS, CRAN[0]]):
        files.append(str(tmp_path / f"{index}.txt"))
        (tmp_path / f"{index}.txt").write_bytes(gzip.decompress(path.read_bytes()))
    split = [[split_piece(piece, []) for piece in pieces_of(path, None, "run")] for path in files]
    parts = [[bucket(result, 0) for result in per_file] for per_file in split]
    if change == "removed":
        (tmp_path / "1.txt").unlink()
    else:
        (tmp_path / "1.txt").write_bytes(b"1 Q0 d 1 1 t\n")
    with pytest.raises(InputError) as raised:
        evaluate_partition(0, parts, PartitionJob(files, ["a"], Evaluating(["map"])))
    assert raised.value.path == files[1]
    assert ("no such file" if change == "removed" else "changed while it was read") in raised.value.message



def test_fractional_grades_print_the_same(cluster, tmp_path):
    """Probabilities as grades (io.fractional): the workers read the codes and the grades they stand for."""
    lines = gzip.decompress(CRAN_QRELS.read_bytes()).decode().splitlines()
    rng = np.random.default_rng(11)
    fractional = tmp_path / "probabilities.qrels"
    fractional.write_text("".join(f"{q} {i} {d} {0 if g == '0' else round(int(g) * rng.random(), 2)}\n"
                                  for q, i, d, g in (line.split() for line in lines)))
    same_on_cluster(cluster.scheduler_address, ["-q", "-l", "0.5", "-m", "ndcg_cut.10", "-m", "map", "-m", "LP",
                                                "-m", "P.10", fractional, *CRAN[:3]])
    same_on_cluster(cluster.scheduler_address, ["--report", "judges", "--compare-qrels", fractional, "-m", "map",
                                                CRAN_QRELS, *CRAN[:4]])
