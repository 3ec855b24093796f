"""The compiled reading kernel against the Python reader, block by block.

The kernel takes the common case of a block and gives anything else back;
whatever it takes must come out exactly as the Python reader reads it: the
same numbers (bit for bit, -0.0 included), the same docnos and hashes, the
same qids where they change, the same last line. Every measure test also
runs through both (the ``reader`` fixture).
"""

import math
import os
import random
import shutil
import struct
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_identity import SCORES, identifiers

from lexeval.io import kernel
from lexeval.io.source import _scanned
from lexeval.io.strings import ByteStrings, ShortStrings
from lexeval.io.textfile import QRELS_LAYOUT, RUN_LAYOUTS, block_columns

pytestmark = pytest.mark.skipif(kernel._kernel is None, reason="the compiled kernel is not built")


def test_the_kernel_is_built_where_a_compiler_is():
    """CI must test both paths: where the package could compile the kernel,
    it did (a silent build failure would leave only the fallback tested)."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler})")
    assert kernel._kernel is not None


def python_read(block: bytes, layouts):
    columns = block_columns(block, 1, "test", layouts, [])
    return None if columns is None else _scanned(columns)


def same_piece(got, want):
    assert got.layout == want.layout
    assert got.number.dtype == want.number.dtype
    np.testing.assert_array_equal(got.number.view(np.int64), want.number.view(np.int64))   # bit for bit
    np.testing.assert_array_equal(got.docno_hash, want.docno_hash)
    assert got.docnos.to_list() == want.docnos.to_list()
    np.testing.assert_array_equal(got.change_lines, want.change_lines)
    assert got.change_qids == want.change_qids
    assert got.last_fields == want.last_fields


def _line(fields, rng):
    text = fields[0]
    for field in fields[1:]:
        text += rng.choice([b" ", b"\t", b"  ", b" \t ", b"\x0b", b"\x0c"]) + field
    return rng.choice([b"", b" ", b"\t"]) + text + rng.choice([b"", b" ", b"\r"])


LONG_SCORES = st.one_of(
    SCORES,
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: "%.17g" % x),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: "%.25e" % x),
    st.tuples(st.integers(0, 10 ** 25), st.integers(-340, 340)).map(lambda z: f"{z[0]}e{z[1]}"),
    st.tuples(st.text("0123456789", min_size=1, max_size=30), st.text("0123456789", max_size=30))
    .map(lambda z: f"{z[0]}.{z[1]}"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(identifiers(b"p" * 50), identifiers(b"q" * 50), LONG_SCORES), min_size=1, max_size=30),
       st.randoms(use_true_random=False), st.booleans())
def test_a_run_block_reads_as_the_python_reader_reads_it(rows, rng, comments):
    lines = []
    for qid, docno, score in rows:
        qid = b"q" + qid
        fields = [qid, b"Q0", docno, b"1", score.encode()] + [b"tag"] * rng.choice([1, 1, 0, 2])
        lines.append(_line(fields, rng))
        if comments and rng.random() < 0.3:
            lines.append(rng.choice([b"", b"# a comment", b"  # indented", b"   ", b"#"]))
    block = b"\n".join(lines) + rng.choice([b"\n", b"\n\n"])     # blocks end with a line feed (iter_blocks)
    want = python_read(block, RUN_LAYOUTS)
    got = kernel.scan(bytearray(block), kernel.RUN_OR_MSMARCO)
    if got is None:      # given back: only for what the kernel leaves to Python
        unusual = any(len(d) > 512 or len(q) + 1 > 512 or any(c in s.lower() for c in "xni") for q, d, s in rows)
        assert unusual, rows
        return
    same_piece(got, want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(identifiers(b"p" * 50), identifiers(b"q" * 50), st.integers(-10 ** 4, 10 ** 4)),
                min_size=1, max_size=30), st.randoms(use_true_random=False))
def test_a_qrels_block_reads_as_the_python_reader_reads_it(rows, rng):
    block = b"\n".join(_line([b"q" + q, b"0", d, str(g).encode()], rng) for q, d, g in rows) + b"\n"
    want = python_read(block, [QRELS_LAYOUT])
    got = kernel.scan(block, kernel.QRELS)
    if got is None:
        assert any(len(d) > 512 or len(q) + 1 > 512 for q, d, _ in rows)
        return
    same_piece(got, want)


def test_ms_marco_lines_and_mixed_layouts():
    block = b"1 d1 1\n1 d2 2\n2 d1 1\n"
    same_piece(kernel.scan(block, kernel.RUN_OR_MSMARCO), python_read(block, RUN_LAYOUTS))
    assert kernel.scan(block, kernel.RUN_OR_MSMARCO).layout == kernel.MSMARCO
    # a line of another layout, a bad byte, a bad number: given back to Python (which names the line)
    for bad in (b"1 Q0 d 1 2.0 t\n1 d 3\n", b"1 Q0 d 1 2.0 t\n1 Q0 e\x00 1 2.0 t\n", b"1 Q0 d 1 2.0\r t\n",
                b"1 Q0 d 1 nan t\n", b"1 Q0 d 1 0x1p3 t\n", b"1 Q0 d 1 1e t\n", b"1 Q0 d\n", b"1 0 d 1\n"):
        assert kernel.scan(bad, kernel.RUN_OR_MSMARCO) is None, bad
    assert kernel.scan(b"1 0 d 10001\n", kernel.QRELS) is None         # a grade out of range: Python's message


@given(st.floats(allow_nan=False))
def test_scores_are_rounded_as_strtod_rounds_them(value):
    for text in (repr(value), "%.17g" % value, "%.20e" % value, "%.6f" % value, "%.30f" % value):
        got = kernel.scan(f"1 Q0 d 1 {text} t\n".encode(), kernel.RUN)
        if got is None:
            assert "inf" in text
            continue
        assert struct.pack("<d", got.number[0]) == struct.pack("<d", float(text)), text


def test_hard_decimal_cases():
    """Halfway cases and the edges of the exact fast path."""
    cases = ["9007199254740993", "9007199254740992", "1e22", "1e23", "123456789012345678901234567890",
             "2.2250738585072011e-308", "4.9e-324", "1.7976931348623157e308", "1.7976931348623159e308",
             "0.1", "-0", "-0.0e5", "00000000000000000000000001", "0." + "0" * 30 + "1", "1" + "0" * 30 + ".",
             "8.98846567431158e307", "1e-400", "1e400", "-1e400", "7.0e-10", "3.14159265358979323846"]
    rng = random.Random(5)
    cases += [f"{rng.randrange(10 ** rng.randrange(1, 25))}e{rng.randrange(-30, 30)}" for _ in range(3000)]
    block = "".join(f"1 Q0 d{i} 1 {text} t\n" for i, text in enumerate(cases)).encode()
    got = kernel.scan(block, kernel.RUN)
    want = np.array([float(text) for text in cases])
    np.testing.assert_array_equal(got.number.view(np.int64), want.view(np.int64))
    assert math.copysign(1, got.number[cases.index("-0")]) == -1


def test_docno_hashes_are_the_python_readers(tmp_path):
    rng = random.Random(2)
    docnos = [bytes(rng.randrange(33, 256) for _ in range(n)) for n in list(range(1, 40)) + [63, 64, 65, 511, 512]]
    docnos = [d.replace(b"#", b"x") for d in docnos]
    block = b"".join(b"1 Q0 " + d + b" 1 1.0 t\n" for d in docnos)
    got = kernel.scan(block, kernel.RUN)
    np.testing.assert_array_equal(got.docno_hash, ByteStrings.from_list(docnos).hash64())
    assert kernel.scan(b"1 Q0 " + b"y" * 513 + b" 1 1.0 t\n", kernel.RUN) is None      # hashed by blake2b: Python


def test_every_byte_position_of_a_field_end_reads_alike():
    """The kernel finds field ends 16 bytes at a time: a separator, a control
    byte inside a field, a CR or a NUL at every offset from a 16-byte window's
    edge, and a block whose last bytes are fewer than 16, read as Python does
    (a CR inside a line or a NUL: given back)."""
    for pad in range(0, 40):
        for separator in (b" ", b"\t", b"\x0b\x0c", b" " * 17):
            docno = b"d" * pad + b"\x01x\x1f"
            line = separator.join([b"q1", b"Q0", docno, b"1", b"2.5", b"t" * (pad % 7 + 1)])
            block = line + b"\n" + line.replace(b"q1", b"q2") + b"\r\n"
            same_piece(kernel.scan(block, kernel.RUN_OR_MSMARCO), python_read(block, RUN_LAYOUTS))
            for bad in (b"\r", b"\x00"):
                broken = block[:pad] + bad + block[pad:]
                if bad == b"\r" and broken[pad + 1:pad + 2] == b"\n":
                    continue
                assert kernel.scan(broken, kernel.RUN_OR_MSMARCO) is None, broken


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=12), min_size=1, max_size=20), st.data())
def test_pieces_gathered_by_number_join_as_python_joins_them(texts, data):
    """The text writer's copy: pieces named by number, any number of times,
    in any order, are the Python join of the same slices; a number or a
    piece outside the text is an error, not a read past it."""
    sizes = np.array([len(text) for text in texts], dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    numbers = data.draw(st.lists(st.integers(0, len(texts) - 1), max_size=60))
    blob = b"".join(texts)
    assert kernel.gather_pieces(blob, starts, sizes, np.array(numbers, dtype=np.int64)) == \
        b"".join(texts[k] for k in numbers)
    with pytest.raises(ValueError):
        kernel.gather_pieces(blob, starts, sizes, np.array([len(texts)]))
    with pytest.raises(ValueError):
        kernel.gather_pieces(blob, starts, sizes + 1, np.array([len(texts) - 1]))


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=60), st.randoms(use_true_random=False))
def test_spans_copied_by_the_kernel_equal_numpys_gather(strings, rng):
    """ByteStrings.from_spans through the kernel's gather and through numpy's: the same bytes and offsets."""
    import os

    from lexeval.io.strings import ByteStrings
    source = ByteStrings.from_list(strings)
    index = np.array(rng.sample(range(len(strings)), rng.randint(1, len(strings))), dtype=np.int64)
    starts, ends = source.offsets[:-1][index].astype(np.int64), source.offsets[1:][index].astype(np.int64)
    before = os.environ.get("LEXEVAL_KERNEL")
    made = []
    try:
        for switch in ("on", "off"):
            os.environ["LEXEVAL_KERNEL"] = switch
            made.append(ByteStrings.from_spans(source.data, starts, ends))
    finally:
        if before is None:
            del os.environ["LEXEVAL_KERNEL"]
        else:
            os.environ["LEXEVAL_KERNEL"] = before
    assert np.array_equal(made[0].data, made[1].data) and np.array_equal(made[0].offsets, made[1].offsets)
    assert [bytes(made[0].data[made[0].offsets[k]:made[0].offsets[k + 1]]) for k in range(len(index))] == \
        [strings[k] for k in index.tolist()]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.binary(max_size=30), max_size=12), min_size=1, max_size=6), st.booleans(), st.data())
def test_strings_taken_from_chunks_by_the_kernel_equal_the_python_take(chunks, wide, data):
    """ChunkedByteStrings.take through the kernel's one pass and through the
    sort and per-chunk copies: the same bytes, offsets and strings, for
    chunks of any sizes (empty ones too), offsets of 4 or 8 bytes, and any
    index, repeated and out of order; an index past the strings is an error."""
    import os

    from lexeval.io._kernel import gather_strings

    from lexeval.io.strings import ChunkedByteStrings
    pieces = [ByteStrings.from_list(chunk) for chunk in chunks]
    if wide:
        pieces = [ByteStrings(piece.data, piece.offsets.astype(np.int64)) for piece in pieces]
    strings = ChunkedByteStrings(pieces)
    flat = [text for chunk in chunks for text in chunk]
    index = np.array(data.draw(st.lists(st.integers(0, max(len(flat) - 1, 0)), max_size=40 if flat else 0)),
                     dtype=np.int64)
    before = os.environ.get("LEXEVAL_KERNEL")
    made = []
    try:
        for switch in ("on", "off"):
            os.environ["LEXEVAL_KERNEL"] = switch
            made.append(strings.take(index))
    finally:
        if before is None:
            del os.environ["LEXEVAL_KERNEL"]
        else:
            os.environ["LEXEVAL_KERNEL"] = before
    assert made[0].to_list() == made[1].to_list() == [flat[k] for k in index.tolist()]
    assert np.array_equal(made[0].offsets, made[1].offsets)
    for taken in made:                  # 16 zero bytes after the strings: 8-byte reads past any end stay in bounds
        assert len(taken.data) == int(taken.offsets[-1]) + 16 and not taken.data[int(taken.offsets[-1]):].any()
    with pytest.raises(ValueError):
        gather_strings(tuple(piece.data for piece in pieces), tuple(piece.offsets for piece in pieces),
                       strings.starts, np.array([len(flat)], dtype=np.int64), 16)


@pytest.mark.skipif(not kernel.enabled(), reason="the reading kernel is not built")
def test_numbering_few_unjudged_documents_stays_within_its_table():
    """A query range with a handful of unjudged documents in all (a table of 16 slots) and one with hundreds (the
    table doubling as it fills), under Python's debug allocator, which stops the process at a write past a block:
    the numbers as counted, and no write out of bounds."""
    import subprocess
    import sys
    script = """
import numpy as np
from lexeval.io import kernel
from lexeval.io.strings import ByteStrings
for holes in (0, 1, 3, 7, 8, 9, 40, 700):
    docnos = [f"d{k % max(holes // 2, 1)}".encode() for k in range(holes)]
    codes = np.full(holes + 2, -1, dtype=np.int16)
    codes[0] = codes[-1] = 1
    ids, counts = kernel.number_holes([ByteStrings.from_list(docnos)], codes, np.array([holes + 2]), 1)
    expected = {doc: number for number, doc in enumerate(dict.fromkeys(docnos))}
    assert ids.tolist() == [-1] + [expected[doc] for doc in docnos] + [-1], holes
    assert counts.tolist() == [len(expected)], holes
print("ok")
"""
    made = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONMALLOC": "debug"}, timeout=120)
    assert made.returncode == 0 and made.stdout.strip() == "ok", made.stderr[-2000:]


@pytest.mark.parametrize("narrow_up_to", [32767, 2])
def test_unjudged_documents_past_int16_are_numbered_in_int32(monkeypatch, narrow_up_to):
    """A query with more distinct unjudged documents than int16 holds (40,000 in one run), beside a small one:
    numbered again in int32, the numbers as counted; and, with the highest int16 number lowered to 2, a query of
    four numbers in int32 the same way, and one of two in int16."""
    monkeypatch.setattr(kernel, "NARROW_IDS_UP_TO", narrow_up_to)
    big = 40_000 if narrow_up_to == 32767 else 4
    docnos = [f"doc-{k}".encode() for k in range(big)] + [b"a", b"b", b"a"]
    codes = np.full(len(docnos) + 1, -1, dtype=np.int16)
    codes[-1] = 2                                               # a judged document: -1
    ids, counts = kernel.number_holes([ByteStrings.from_list(docnos)], codes, np.array([[big, 4]]), 2)
    assert ids.dtype == np.int32
    assert ids.tolist() == list(range(big)) + [0, 1, 0, -1]
    assert counts.tolist() == [big, 2]
    small, counted = kernel.number_holes([ByteStrings.from_list([b"a", b"b", b"a"])], codes[-4:], np.array([[4]]), 1)
    assert small.dtype == np.int16 and small.tolist() == [0, 1, 0, -1] and counted.tolist() == [2]


def strings_of(docnos):
    """ByteStrings of ShortStrings or ByteStrings (indexable: one docno's bytes each)."""
    return docnos.strings() if isinstance(docnos, ShortStrings) else docnos


@pytest.mark.parametrize("hashes,given", [("real", "offsets"), ("all alike", "offsets"), ("real", "lengths"),
                                          ("all alike", "lengths")])
def test_unjudged_documents_are_numbered_by_first_appearance(hashes, given):
    """number_holes against counting in Python: query by query, run by run,
    rank by rank, each new docno the next number: queries of a few, dozens
    and thousands of distinct documents, listed by several runs; every hash
    alike (mask 0) leaves only the bytes to tell documents apart; the docnos
    given by their offsets, or by their lengths (ShortStrings, as the reading
    processes send them)."""
    rng = random.Random(5)
    shapes = ["d", "FBIS3-1008", "LA010189-000", "clueweb12-0000tw-05-1211", "é€文書", "x" * 30, ""]
    runs, queries = 4, 3
    per_query = [2, 40, 3000]                               # distinct documents each query draws from
    pools = [[f"{rng.choice(shapes)}{q}.{i}".encode() for i in range(size)] for q, size in enumerate(per_query)]
    codes, lengths, docnos = [], [], []
    for _run in range(runs):
        own = []
        for q in range(queries):
            ranked = rng.sample(pools[q], min(len(pools[q]), rng.randint(0, 1200)))
            judged = [rng.random() < 0.3 for _ in ranked]
            codes.extend(rng.randint(0, 2) if j else -1 for j in judged)
            lengths.append(len(ranked))
            own.extend(doc for doc, j in zip(ranked, judged) if not j)
        docnos.append(ByteStrings.from_list(own) if given == "offsets" else ShortStrings.of(ByteStrings.from_list(own)))
    codes = np.array(codes, dtype=np.int16)
    expected, counts = np.full(len(codes), -1), np.zeros(queries, dtype=np.int64)
    at = dict.fromkeys(range(runs), 0)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    for q in range(queries):
        seen: dict = {}
        for r in range(runs):
            segment = r * queries + q
            for k in range(starts[segment], starts[segment + 1]):
                if codes[k] < 0:
                    expected[k] = seen.setdefault(strings_of(docnos[r])[at[r]], len(seen))
                    at[r] += 1
        counts[q] = len(seen)
    if hashes == "all alike":
        kernel._kernel.set_hash_mask(0)
    try:
        ids, numbered = kernel.number_holes(docnos, codes, np.array(lengths, dtype=np.int64), queries)
    finally:
        kernel._kernel.set_hash_mask(2 ** 64 - 1)
    np.testing.assert_array_equal(ids, expected)
    np.testing.assert_array_equal(numbered, counts)
    assert counts[2] > 1000
