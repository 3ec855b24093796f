"""Exact document identity: identifiers of every length and shape.

qids and docnos are byte strings compared byte for byte. Hypothesis builds
collections whose identifiers mix lengths (1 to 300 bytes), UTF-8 text,
bytes that are not UTF-8, numbers with leading zeros and long shared
prefixes, written with irregular whitespace; every measure and preference
must equal the plain reference in ``reference.py``, whether files are read
through pyarrow or through numpy (lexeval's reader when pyarrow is not
installed). The file reader's fast and line-by-line paths must give the
same columns.
"""

import math
import random

import numpy as np
import reference as ref
from conftest import CONFORMANCE, CRANFIELD, EXAMPLES, colliding_hashes, run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexeval import evaluate
from lexeval.io.blocks import iter_blocks
from lexeval.io.strings import ByteStrings
from lexeval.io.textfile import RUN_LAYOUTS, block_columns

WHITESPACE = set(b" \t\n\r\x0b\x0c\x00")


def _clean(raw: bytes) -> bytes:
    return bytes(b for b in raw if b not in WHITESPACE) or b"x"


def identifiers(prefix: bytes):
    """Byte strings of every shape (no whitespace, no NUL)."""
    return st.one_of(
        st.text("abcXYZ019-_.:/", min_size=1, max_size=8).map(str.encode),
        st.text("abcdefgh0123", min_size=9, max_size=300).map(str.encode),
        st.tuples(st.integers(0, 3), st.integers(0, 120)).map(lambda z: b"0" * z[0] + str(z[1]).encode()),
        st.text(st.characters(min_codepoint=0xA1, max_codepoint=0x2FFF), min_size=1, max_size=60)
        .map(lambda t: _clean(t.encode("utf-8"))[:300]),
        st.binary(min_size=1, max_size=300).map(_clean),
        st.text("ab", min_size=0, max_size=3).map(lambda t: prefix + t.encode()),
    )


@st.composite
def collections(draw):
    prefix = draw(st.binary(min_size=40, max_size=290).map(_clean))
    ident = identifiers(prefix)
    # a '#' starts a comment, and a byte-order mark at the start of a file is no part of its first qid
    qids = draw(st.lists(ident.filter(lambda q: not q.startswith((b"#", b"\xef\xbb\xbf"))), min_size=1, max_size=4,
                         unique=True))
    docs = draw(st.lists(ident, min_size=2, max_size=14, unique=True))
    qrels = {}
    for qid in qids:
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8, unique=True))
        grades = draw(st.lists(st.integers(-1, 3), min_size=len(judged), max_size=len(judged)))
        qrels[qid] = dict(zip(judged, grades))     # some queries may have no relevant document
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        run = {}
        for qid in qids + [draw(ident.filter(lambda q: not q.startswith(b"#")))]:
            if draw(st.booleans()) and draw(st.booleans()):
                continue
            chosen = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True))
            scores = draw(st.lists(st.integers(0, 3), min_size=len(chosen), max_size=len(chosen)))
            run[qid] = list(zip(chosen, [float(s) for s in scores]))
        runs.append(run or {qids[0]: [(docs[0], 1.0)]})
    return qrels, runs, draw(st.randoms(use_true_random=False))


def _line(fields: list[bytes], rng: random.Random) -> bytes:
    separators = [b" ", b"\t", b"  ", b" \t "]
    text = fields[0]
    for field in fields[1:]:
        text += rng.choice(separators) + field
    return rng.choice([b"", b" ", b"\t"]) + text + rng.choice([b"", b" ", b"\r"])


def write_collection(tmp, qrels, runs, rng):
    lines = [_line([q, b"0", d, str(g).encode()], rng) for q, judged in qrels.items() for d, g in judged.items()]
    rng.shuffle(lines)
    (tmp / "qrels").write_bytes(b"\n".join(lines) + b"\n")
    paths = []
    for index, run in enumerate(runs):
        lines = [_line([q, b"Q0", d, b"0", repr(s).encode(), b"tag"], rng)
                 for q, ranked in run.items() for d, s in ranked]
        if rng.random() < 0.5:
            rng.shuffle(lines)
        path = tmp / f"run{index}"
        path.write_bytes(b"\n".join(lines) + b"\n")
        paths.append(str(path))
    return str(tmp / "qrels"), paths


CHECKS = {
    "map": ref.average_precision,
    "P_3": lambda r, j: ref.precision_at(r, j, 3),
    "recall_5": lambda r, j: ref.recall_at(r, j, 5),
    "recip_rank": ref.reciprocal_rank,
    "Rprec": ref.r_precision,
    "bpref": ref.bpref,
    "ndcg_cut_5": lambda r, j: ref.ndcg_at(r, j, 5),
    "set_F": ref.set_f,
    "unj_5": lambda r, j: ref.unjudged_at(r, j, 5),
    "tse": ref.total_search_efficiency,
}
MEASURES = ["map", "P.3", "recall.5", "recip_rank", "Rprec", "bpref", "ndcg_cut.5", "set_F", "unj.5", "tse",
            "lexicographic"]


@settings(max_examples=64, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(collections())
def test_every_identifier_shape_matches_the_reference(tmp_path_factory, reader, collection):
    qrels, runs, rng = collection
    qrels_path, run_paths = write_collection(tmp_path_factory.mktemp("id"), qrels, runs, rng)
    ev = evaluate(qrels_path, run_paths, MEASURES, complete=True)
    assert ev.qids == [q.decode("utf-8", "surrogateescape") for q in sorted(qrels)]
    ordered = sorted(qrels)
    for name, check in CHECKS.items():
        values = ev.column(name).values
        for run_index, run in enumerate(runs):
            for query_index, qid in enumerate(ordered):
                want = check(ref.ranked(run.get(qid, [])), qrels[qid])
                got = values[run_index, query_index]
                assert math.isclose(got, want, abs_tol=1e-12), (name, run_index, qid, got, want)
    compared = [q for q in ordered if ref.num_rel(qrels[q]) > 0]
    assert ev.compared_qids == [q.decode("utf-8", "surrogateescape") for q in compared]
    if len(runs) < 2:
        return
    for row, (a, b) in enumerate(ev.preferences.pairs):
        for column, qid in enumerate(compared):
            m = ref.num_rel(qrels[qid])
            p_a = ref.positions(ref.ranked(runs[a].get(qid, [])), qrels[qid])
            p_b = ref.positions(ref.ranked(runs[b].get(qid, [])), qrels[qid])
            sign, rr = ref.lexiprecision(p_a, p_b, m)
            assert ev.preferences.values["LP"][row, column] == sign
            assert math.isclose(ev.preferences.values["rrLP"][row, column], rr, abs_tol=1e-12)
            sign, rr = ref.lexirecall(p_a, p_b, m)
            assert ev.preferences.values["LR"][row, column] == sign
            assert math.isclose(ev.preferences.values["rrLR"][row, column], rr, abs_tol=1e-12)


# ---------------------------------------------------------------- the two reading paths


SCORES = st.one_of(st.integers(-5, 5).map(str), st.floats(allow_nan=False).map(repr),
                   st.sampled_from(["1e5", "-0", "+1.5", ".5", "5.", "inf", "-Infinity", "0x1p3", "-0x1.8p1",
                                    "0X10", "1E-3", "00012.50"]))


def read_columns(path, fast: bool = True):
    """A small run file's columns through the Python reader, as one block."""
    text = b"".join(bytes(block) for block in iter_blocks(str(path)))
    return block_columns(text, 1, str(path), RUN_LAYOUTS, [], fast)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(identifiers(b"p" * 50), identifiers(b"q" * 50), SCORES), min_size=1, max_size=30),
       st.randoms(use_true_random=False), st.booleans(), st.booleans())
def test_fast_and_line_by_line_paths_read_the_same(tmp_path_factory, reader, rows, rng, comments, bom):
    lines = []
    for qid, docno, score in rows:
        qid = b"q" + qid                                   # never a comment
        lines.append(_line([qid, b"Q0", docno, b"1", score.encode(), b"t"], rng))
        if comments and rng.random() < 0.3:
            lines.append(rng.choice([b"", b"# a comment", b"  # indented comment", b"   "]))
    data = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + rng.choice([b"", b"\n"])
    path = tmp_path_factory.mktemp("paths") / "run"
    path.write_bytes(data)
    fast, slow = read_columns(path, fast=True), read_columns(path, fast=False)
    assert fast.num_rows == slow.num_rows == len(rows)
    assert fast["qid"].to_list() == slow["qid"].to_list() == [b"q" + r[0] for r in rows]
    assert fast["docno"].to_list() == slow["docno"].to_list() == [r[1] for r in rows]
    np.testing.assert_array_equal(fast["score"], slow["score"])
    assert fast.last_fields == slow.last_fields


def test_hex_and_decimal_scores_as_strtod_reads_them(tmp_path):
    path = write(tmp_path / "run", "1 Q0 a 1 0x1p3 t\n1 Q0 b 2 -0x1.8p1 t\n1 Q0 c 3 1e-3 t\n1 Q0 d 4 inf t\n")
    scores = read_columns(path)["score"]
    assert scores.tolist() == [8.0, -3.0, 0.001, math.inf]


# ---------------------------------------------------------------- the cases


def test_one_long_docno_does_not_hide_the_others(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "1 0 d1 1\n1 0 docno-longer-than-8 0\n")
    run = write(tmp_path / "run", "1 Q0 d1 1 1.0 x\n")
    assert run_cli(["-m", "map", qrels, run]).lines() == ["map                   \tall\t1.0000"]


def test_an_unrelated_long_judgement_changes_nothing(tmp_path):
    import gzip
    original = gzip.decompress((EXAMPLES / "cranfield" / "qrels.txt.gz").read_bytes())
    longer = write(tmp_path / "qrels", original.decode() + "999 0 averyverylongdocno 1\n")
    run = EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz"
    before = run_cli(["-m", "map", "-m", "P.10", EXAMPLES / "cranfield" / "qrels.txt.gz", run])
    after = run_cli(["-m", "map", "-m", "P.10", longer, run])
    assert before.out == after.out and "map                   \tall\t0.2842" in before.lines()


def _peak_rss_mb(args) -> float:
    """Peak resident memory of ``lexeval ARGS`` run as its own process."""
    import subprocess
    import sys
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "lexeval", *map(str, args)],
                          capture_output=True, text=True, check=True)
    return int(done.stdout) / 1024


def test_a_ten_megabyte_docno_costs_megabytes(tmp_path):
    """The same 300-line run and qrels with one docno of 10 MB or of 2
    bytes: memory grows by a few copies of the docno, not by its size times
    the lines (which was 17.9 GB with fixed-width rows)."""
    def files(docno, folder):
        folder.mkdir()
        qrels = write(folder / "qrels", "".join(f"{q} 0 d{q} 1\n" for q in range(1, 31)) + f"1 0 {docno} 1\n")
        lines = [f"{q} Q0 d{k} {k} {100 - k} t" for q in range(1, 31) for k in range(10)]
        lines[0] = f"1 Q0 {docno} 0 1000 t"
        return qrels, write(folder / "run", "\n".join(lines) + "\n")
    huge_qrels, huge_run = files("x" * 10_000_000, tmp_path / "huge")
    small_qrels, small_run = files("xx", tmp_path / "small")
    ev = evaluate(str(huge_qrels), [str(huge_run)], ["recip_rank", "num_rel_ret"])
    assert ev.column("recip_rank").values[0, 0] == 1.0          # the huge docno is judged relevant
    assert ev.column("num_rel_ret").values[0, 0] == 2
    growth = _peak_rss_mb(["-m", "recip_rank", huge_qrels, huge_run]) - \
        _peak_rss_mb(["-m", "recip_rank", small_qrels, small_run])
    # measured: about 120 MB, of which 40 MB is importing pyarrow (the small files never need it: the
    # compiled kernel reads them) and the rest a few copies of the docno; 300 lines x 10 MB would be 3 GB
    assert growth < 250, growth


def test_nul_byte_is_an_error_not_a_prefix(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 b 1 2.0 t\n1 Q0 a\x00x 2 1.0 t\n")
    result = run_cli([qrels, run])
    assert result.code == 2 and result.out == ""
    assert f"{run}:2: NUL byte" in result.err


def test_byte_order_mark_is_not_part_of_the_first_qid(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n")
    plain = write(tmp_path / "plain", "1 Q0 a 1 1.0 t\n2 Q0 b 1 1.0 t\n")
    marked = tmp_path / "marked"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    qrels_marked = tmp_path / "qrels_marked"
    qrels_marked.write_bytes(b"\xef\xbb\xbf" + qrels.read_bytes())
    want = ["num_q                 \tall\t2", "map                   \tall\t1.0000"]
    assert run_cli(["-m", "map", "-m", "num_q", qrels, marked]).lines() == want
    assert run_cli(["-m", "map", "-m", "num_q", qrels_marked, plain]).lines() == want


def test_identifiers_that_are_not_utf8_match_and_print(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"q\xff 0 d\xe9 1\nq\xff 0 d\xc3\xa9 0\n")
    run = tmp_path / "run"
    run.write_bytes(b"q\xff Q0 d\xc3\xa9 1 2.0 t\nq\xff Q0 d\xe9 2 1.0 t\n")
    ev = evaluate(str(qrels), [str(run)], ["recip_rank"])
    assert ev.column("recip_rank").values[0, 0] == 0.5
    result = run_cli(["-q", "-m", "recip_rank", qrels, run])
    assert result.code == 0 and len(result.lines()) == 2


def test_same_docno_in_two_queries_is_two_documents(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 d 1\n2 0 d 0\n")
    run = write(tmp_path / "run", "1 Q0 d 1 1.0 t\n2 Q0 d 1 1.0 t\n")
    ev = evaluate(str(qrels), [str(run)], ["num_rel_ret"])
    assert ev.column("num_rel_ret").values.tolist() == [[1, 0]]


def test_byte_strings_hash_alike_wherever_they_sit():
    rng = random.Random(3)
    strings = [bytes(rng.randrange(1, 256) for _ in range(rng.choice([1, 7, 8, 9, 300, 600, 5000])))
               for _ in range(400)]
    alone = ByteStrings.from_list(strings).hash64()
    mixed = ByteStrings.from_list([b"other"] * 3 + strings[::-1]).hash64()[3:][::-1]
    np.testing.assert_array_equal(alone, mixed)
    assert len(set(alone.tolist())) == len(set(strings))


def plain_cranfield(folder, *names):
    """The bundled Cranfield qrels and the named runs, decompressed into FOLDER:
    plain files are read block by block where they lie (no decompressor between)."""
    import gzip
    qrels = folder / "qrels.txt"
    qrels.write_bytes(gzip.decompress((CRANFIELD / "qrels.txt.gz").read_bytes()))
    runs = []
    for name in names:
        (folder / name).write_bytes(gzip.decompress((CRANFIELD / "runs" / f"{name}.gz").read_bytes()))
        runs.append(str(folder / name))
    return qrels, runs


def test_a_hash_that_always_collides_changes_nothing(reader, tmp_path):
    """Hashes only find candidates; the bytes decide. With every hash equal,
    every look-up is a clash, and the numbers must not move."""
    qrels, runs = plain_cranfield(tmp_path, "bm25okapi", "lsi200")
    want = evaluate(str(qrels), runs, ["map", "P.10", "num_rel_ret", "LP"])
    with colliding_hashes():
        got = evaluate(str(qrels), runs, ["map", "P.10", "num_rel_ret", "LP"])
    for a, b in zip(want.columns, got.columns):
        np.testing.assert_array_equal(a.values, b.values, err_msg=a.name)
    np.testing.assert_array_equal(want.preferences.values["LP"], got.preferences.values["LP"])


def test_repeated_documents_are_found_when_hashes_collide(reader, tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n1 0 b 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 a 1 1 t\n1 Q0 b 4 0 t\n")
    judged_twice = write(tmp_path / "qrels2", "1 0 a 1\n1 0 b 1\n1 0 a 0\n")
    with colliding_hashes():
        result = run_cli([qrels, run])
        assert result.code == 2 and f"{run}:5: document 'b' appears twice for query '1' (first on line 2)" \
            in result.err
        result = run_cli([judged_twice, run])
        assert result.code == 2 and f"{judged_twice}:3: document 'a' is judged twice" in result.err


def test_files_read_in_many_blocks_give_the_same_numbers(monkeypatch, tmp_path, reader):
    """Big files are read a block at a time; cut into tiny blocks, every
    number, and every error's line number, must stay the same."""
    import lexeval.io.blocks as blocks
    qrels, runs = plain_cranfield(tmp_path, "bm25okapi", "lsi200", "tfidf_title")
    want = evaluate(str(qrels), runs, ["map", "P.10", "ndcg_cut.10", "LP", "rrLR"])
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 4093)
    got = evaluate(str(qrels), runs, ["map", "P.10", "ndcg_cut.10", "LP", "rrLR"])
    for a, b in zip(want.columns, got.columns):
        np.testing.assert_array_equal(a.values, b.values, err_msg=a.name)
    for name in ("LP", "rrLR"):
        np.testing.assert_array_equal(want.preferences.values[name], got.preferences.values[name])
    lines = (tmp_path / "bm25okapi").read_text().splitlines()
    bad = write(tmp_path / "bad", "\n".join(lines[:5000] + [lines[10]] + lines[5000:]) + "\n")
    result = run_cli([qrels, bad])
    assert result.code == 2 and f"{bad}:5001: document" in result.err and "(first on line 11)" in result.err
    broken = write(tmp_path / "broken", "\n".join(lines[:7000] + ["1 Q0 x 1 1_0 t"] + lines[7000:]) + "\n")
    result = run_cli([qrels, broken])
    assert result.code == 2 and f"{broken}:7001: score '1_0' is not a number" in result.err


def test_text_that_starts_like_gzip_is_text(tmp_path, reader):
    """A first qid made of gzip's magic bytes is a (strange) qid; a real
    gzip file that is damaged is still an error."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"\x1f\x8b\x08\x01 0 d 1\n2 0 e 1\n")
    run.write_bytes(b"\x1f\x8b\x08\x01 Q0 d 1 1.0 t\n2 Q0 x 1 1.0 t\n")
    assert run_cli(["-m", "map", "-m", "num_q", qrels, run]).lines() == \
        ["num_q                 \tall\t2", "map                   \tall\t0.5000"]
    import gzip
    damaged = tmp_path / "damaged.gz"
    damaged.write_bytes(gzip.compress(run.read_bytes() * 50)[:-30])
    result = run_cli([qrels, damaged])
    assert result.code == 2 and "not a valid gzip file" in result.err


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([b"1", b"2", b"10", b"x" * 30]),
                          st.sampled_from([b"a", b"b", b"c", b"d" * 20, b"e", b"f", b"aa", b"\xc3\xa9"]),
                          st.sampled_from([b"1", b"2", b"2.0", b"3"])), min_size=1, max_size=14),
       st.sampled_from([40, 97, 4093]), st.booleans())
def test_repeated_documents_are_found_in_any_block_and_order(monkeypatch, tmp_path_factory, reader, lines,
                                                             block_bytes, sort):
    """A (qid, docno) twice is an error at its second line, and only then:
    lines of one qid together or apart, in one block or across blocks,
    tied scores in any docno order; otherwise trec_eval's order."""
    import lexeval.io.blocks as blocks
    monkeypatch.setattr(blocks, "BLOCK_BYTES", block_bytes)
    if sort:           # grouped by qid, scores descending (the usual run file), ties in any docno order
        lines = sorted(lines, key=lambda line: (line[0], -float(line[2])))
    folder = tmp_path_factory.mktemp("repeats")
    qrels = write(folder / "qrels", "1 0 a 1\n2 0 b 1\n10 0 c 1\n" + "x" * 30 + " 0 " + "d" * 20 + " 2\n")
    run = folder / "run"
    run.write_bytes(b"".join(b"%s Q0 %s 1 %s t\n" % line for line in lines))
    seen, repeat = {}, None
    for number, (qid, docno, _) in enumerate(lines, start=1):
        if (qid, docno) in seen and repeat is None:
            repeat = (number, qid, docno, seen[(qid, docno)])
        seen.setdefault((qid, docno), number)
    result = run_cli(["-q", "-m", "recip_rank", qrels, run])
    if repeat:
        number, qid, docno, first = repeat
        assert result.code == 2 and result.out == ""
        assert f"{run}:{number}: document '{docno.decode()}' appears twice for query '{qid.decode()}' " \
               f"(first on line {first})" in result.err
        return
    assert result.code == 0, result.err
    ranked = {}
    for qid, docno, score in lines:
        ranked.setdefault(qid, []).append((float(score), docno))
    for qid, docs in ranked.items():                    # trec_eval: score descending, then docno descending
        best = max(docs)[1]
        want = {b"1": b"a", b"2": b"b", b"10": b"c", b"x" * 30: b"d" * 20}[qid]
        docs.sort(reverse=True)
        rr = next((1 / (k + 1) for k, (_, d) in enumerate(docs) if d == want), 0.0)
        assert f"recip_rank            \t{qid.decode()}\t{rr:.4f}" in result.lines(), (best, result.out)


def test_a_pipe_is_read_whole(tmp_path):
    """`lexeval qrels <(zcat run.gz)`: a named pipe has no size and can be
    read once; it was read as an empty file (its first byte only). Run as
    a child with a time limit, so that a reader that hangs fails the test."""
    import os
    import subprocess
    import sys
    import threading
    qrels = CONFORMANCE / "qrels.test"
    fifo = tmp_path / "run"
    os.mkfifo(fifo)
    text = (CONFORMANCE / "results.test").read_bytes()
    threading.Thread(target=lambda: fifo.write_bytes(text), daemon=True).start()
    done = subprocess.run([sys.executable, "-m", "lexeval", "-m", "num_ret", str(qrels), str(fifo)],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["num_ret               \tall\t1500"], done.stderr


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=70) | st.sampled_from([b"", b"a", b"a\x00", b"\xff" * 9, b"a" * 64]),
                max_size=60), st.data())
def test_byte_strings_rank_as_strcmp_orders_them(values, data):
    """Tied documents are ordered by docno, byte by byte (a NUL or 0xff
    byte, a prefix, 8-byte boundaries, strings past 64 bytes)."""
    strings = ByteStrings.from_list(values)
    position = {value: rank for rank, value in enumerate(sorted(set(values)))}
    assert strings.rank().tolist() == [position[value] for value in values]
    if values:
        index = np.array(data.draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=30)))
        chosen = [values[i] for i in index]
        position = {value: rank for rank, value in enumerate(sorted(set(chosen)))}
        assert strings.rank(index).tolist() == [position[value] for value in chosen]
