"""The text writer's byte layouts: trec_eval's lines of a block
(``key<TAB>measure<TAB>qid<TAB>value``) as UTF-8 bytes, each value's text
looked up by index and every line's pieces copied out by the compiled
reading kernel in one call (a thousand runs' default call prints 18 million
lines), or joined as Python strings where the kernel is not there."""

from __future__ import annotations

from itertools import chain

import numpy as np

from .lines import (
    FLOAT,
    INTEGER,
    PVALUE,
    Block,
    PairBatch,
    PairKeys,
    _four_decimal_index,
    _four_decimal_texts,
    line_texts,
)


def _interleaved(texts: list[list[str]]) -> str:
    """Lines of a block in output order: group by group, names within."""
    return "".join(chain.from_iterable(zip(*texts)))


def _padded(name: str) -> str:
    """The measure padded to 22 characters; a -Z name (no measure starts
    with Z otherwise) is Z before the padded name, as trec_eval prints it."""
    return "Z" + f"{name[1:]:<22}" if name.startswith("Z") else f"{name:<22}"


def text_chunk(block: Block, with_key: bool) -> str:
    """trec_eval's lines, ``%-22s\t%s\t%s``, preceded by ``key\t`` for
    several runs. Each line is two or three pieces (key, measure and qid,
    value), joined once: ``-q`` prints millions of lines."""
    shown = block.texts if block.texts is not None else line_texts(block.values, block.styles, len(block.qids))
    names, groups = len(block.names), len(block.qids)
    lines = names * groups
    width = 3 if with_key else 2
    # the pieces laid out by strided slice assignment (copies of pointers), then one join
    pieces: list = [None] * (width * lines)
    if with_key:
        if groups and block.keys.count(block.keys[0]) == groups:
            pieces[0::3] = [f"{block.keys[0]}\t"] * lines
        else:
            pieces[0::3] = np.repeat(np.array([f"{key}\t" for key in block.keys], dtype=object), names).tolist()
    pieces[width - 2::width] = _line_heads(tuple(block.names), tuple(block.qids))
    for j, texts in enumerate(shown):
        pieces[width - 1 + width * j::width * names] = texts
    return "".join(pieces)


BYTES_LINES = 4096          # blocks of this many lines or more are laid out as bytes, by the reading kernel


_BYTE_TABLES: list = []


def _pieces(texts: list[str]) -> tuple[bytes, np.ndarray]:
    """Texts as one UTF-8 blob (surrogates as the bytes they stand for) and each one's length."""
    encoded = [text.encode("utf-8", "surrogateescape") for text in texts]
    return b"".join(encoded), np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))


def _byte_tables() -> tuple[bytes, np.ndarray]:
    """(blob, lengths): the ``%6.4f`` texts of 0.0000 .. 9.9999 and of
    their negatives, each with its newline, one after another (the
    per-query values of :func:`batch_bytes` are looked up among them)."""
    if not _BYTE_TABLES:
        _BYTE_TABLES[:] = _pieces(_four_decimal_texts("\n").tolist())
    return _BYTE_TABLES[0], _BYTE_TABLES[1]


def block_bytes(block: Block, with_key: bool, into: bytearray | None = None) -> tuple[bytearray, int] | None:
    """:func:`text_chunk`'s text of a block of numbers as UTF-8 bytes, laid
    out by the compiled reading kernel (:func:`lexeval.io.kernel.layout_block`)
    with the interpreter let go, so that the writer's threads lay out
    several blocks at once (a thousand runs' default call prints 18 million
    lines): (the buffer, ``into`` where it was large enough, and the bytes
    written to its start). None without the kernel, or for a block with
    text values or counts that are not integers: :func:`text_chunk` takes
    those."""
    from ..io import kernel
    if not kernel.enabled() or block.texts is not None or \
            any(style not in (FLOAT, PVALUE, INTEGER) for style in block.styles):
        return None
    groups, names = len(block.qids), len(block.names)
    reals, integers = np.zeros((names, groups)), np.zeros((names, groups), dtype=np.int64)
    for j, (column, style) in enumerate(zip(block.values, block.styles)):
        values = np.asarray(column)
        if style == INTEGER:
            if values.dtype.kind not in "iu" or (values.dtype.kind == "u" and len(values) and
                                                 values.max() >= 1 << 63):
                return None
            integers[j] = values
        else:
            reals[j] = values
    one_qid = groups > 1 and block.qids.count(block.qids[0]) == groups
    styles = np.array([_STYLES[style] for style in block.styles], dtype=np.int8)
    heads = [f"{_padded(name)}\t" for name in block.names]
    qids = [f"{qid}\t" for qid in (block.qids[:1] if one_qid else block.qids)]
    if with_key and isinstance(block.keys, PairKeys):       # "A:B" made by the kernel from the row numbers
        return kernel.layout_block(reals, integers, styles, heads, qids, list(block.keys.names), into,
                                   block.keys.pairs)
    one_key = groups > 1 and with_key and block.keys.count(block.keys[0]) == groups
    keys = [f"{key}\t" for key in (block.keys[:1] if one_key else block.keys)] if with_key else []
    return kernel.layout_block(reals, integers, styles, heads, qids, keys, into)


_STYLES = {FLOAT: 0, PVALUE: 1, INTEGER: 2}     # the kernel's numbers for them


def _gathered(parts: list[tuple[bytes, np.ndarray]], pieces: np.ndarray) -> bytes:
    """The texts numbered ``pieces`` (in the order of ``parts``' texts, one
    after another), copied out one after another by the reading kernel."""
    from ..io import kernel
    sizes = np.concatenate([part[1] for part in parts])
    return kernel.gather_pieces(b"".join(part[0] for part in parts), np.cumsum(sizes) - sizes, sizes, pieces)


_HEADS: dict[tuple, list[str]] = {}


def _line_heads(names: tuple, qids: tuple) -> list[str]:
    """``measure (padded)\tqid\t`` of each line of a block, group by group;
    kept for the next blocks (every pair's per-query block has the same)."""
    heads = _HEADS.get((names, qids))
    if heads is None:
        if len(_HEADS) > 16:
            _HEADS.clear()
        padded = [f"{_padded(name)}\t" for name in names]
        heads = _HEADS[names, qids] = [f"{head}{qid}\t" for qid in qids for head in padded]
    return heads


def batch_bytes(batch: PairBatch, with_key: bool) -> bytes:
    """The text writer's lines of a :class:`PairBatch` as UTF-8 bytes, all
    pairs at once (see :func:`block_bytes`): per pair its per-query lines,
    group by group, then its 'all' lines; each per-query value's ``%6.4f``
    text looked up, the 'all' lines' texts made already."""
    blob, lengths = _byte_tables()
    pairs, groups, names = len(batch.keys), len(batch.qids), len(batch.names)
    values = np.stack([np.asarray(v, dtype=np.float64).reshape(pairs, groups) for v in batch.values], axis=2) \
        if names else np.zeros((pairs, groups, 0))
    index, plain = _four_decimal_index(values)                  # (pairs, groups, names): lines in order
    value = index
    extra = ["%6.4f\n" % v for v in values[~plain].tolist()]
    value[~plain] = len(lengths) + np.arange(len(extra))
    every = batch.summary
    totals = [] if every is None else every.names
    parts = [(blob, lengths), _pieces(extra),
             _pieces(_line_heads(tuple(batch.names), tuple(batch.qids))),
             _pieces([f"{_padded(name)}\tall\t" for name in totals]),
             _pieces([texts[k] for k in range(pairs) for texts in ((every.texts or []) if every is not None else [])]),
             _pieces([f"{key}\t" for key in batch.keys])]
    heads = len(lengths) + len(extra)
    total_heads = heads + groups * names
    total_texts = total_heads + len(totals)
    keys = total_texts + pairs * len(totals)
    width = 3 if with_key else 2
    lines = groups * names + len(totals)
    pieces = np.empty((pairs, lines, width), dtype=np.int64)
    pieces[:, :groups * names, -2] = heads + np.arange(groups * names)
    pieces[:, :groups * names, -1] = value.reshape(pairs, groups * names)
    pieces[:, groups * names:, -2] = total_heads + np.arange(len(totals))
    pieces[:, groups * names:, -1] = total_texts + np.arange(pairs * len(totals)).reshape(pairs, len(totals))
    if with_key:
        pieces[:, :, 0] = keys + np.arange(pairs)[:, None]
    return _gathered(parts, pieces.ravel())


def _write_bytes(out, data) -> None:
    """UTF-8 bytes to a text stream: to its byte stream underneath where
    the text is UTF-8 too, else decoded as the text writer would have
    encoded it."""
    import codecs
    underneath = getattr(out, "buffer", None)
    try:
        utf8 = codecs.lookup(getattr(out, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        utf8 = False
    if underneath is not None and utf8:
        out.flush()
        underneath.write(data)
    else:
        out.write(bytes(data).decode("utf-8", "surrogateescape"))
