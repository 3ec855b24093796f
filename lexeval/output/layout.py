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
    _four_decimal_index,
    _four_decimal_texts,
    _integer_texts,
    _significant_parts,
    _significant_texts,
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


def _byte_tables() -> tuple[bytes, np.ndarray, dict[str, int]]:
    """(blob, lengths, where): every looked-up value text of the text
    writer, one after another (``%6.4f`` texts, %.4g's fixed texts and
    mantissas, counts 0 .. 65535, the p-values 1 and 0, then %.4g's
    exponents after an empty text), and where each kind starts."""
    if not _BYTE_TABLES:
        fixed, mantissa, exponent = _significant_texts("\n")
        kinds = {"float": _four_decimal_texts("\n").tolist(), "fixed": fixed.ravel().tolist(),
                 "mantissa": mantissa.tolist(), "int": _integer_texts(65535)[:65536].tolist(),
                 "one": ["1\n", "0\n"], "exponent": [""] + exponent.tolist()[1:]}
        where = np.cumsum([0] + [len(kind) for kind in kinds.values()]).tolist()
        blob, lengths = _pieces([text for kind in kinds.values() for text in kind])
        _BYTE_TABLES[:] = [blob, lengths, dict(zip(kinds, where))]
    return tuple(_BYTE_TABLES)


def block_bytes(block: Block, with_key: bool) -> bytes | None:
    """:func:`text_chunk`'s text of a block of numbers as UTF-8 bytes: each
    value's text is looked up by index (see :func:`four_decimals`,
    :func:`four_significant`), and every line's key, head and value are
    copied out in one call of the compiled reading kernel, not joined as
    Python strings (a thousand runs' default call prints 18 million
    lines). None without the kernel, or for a block with text values or
    counts beyond the table: :func:`text_chunk` takes those."""
    from ..io import kernel
    if not kernel.enabled() or block.texts is not None or \
            any(style not in (FLOAT, PVALUE, INTEGER) for style in block.styles):
        return None
    blob, lengths, where = _byte_tables()
    groups, names = len(block.qids), len(block.names)
    value = np.empty((names, groups), dtype=np.int64)             # a piece of the table (or of the extra texts)
    exponent = np.full((names, groups), where["exponent"], dtype=np.int64)       # "" or e-05 ...
    extra: list[str] = []
    for j, (column, style) in enumerate(zip(block.values, block.styles)):
        values = np.asarray(column)
        if style == INTEGER:
            if values.dtype.kind not in "iu" or (len(values) and (values.min() < 0 or values.max() > 65535)):
                return None
            value[j] = where["int"] + values
            continue
        values = values.astype(np.float64)
        if style == FLOAT:
            index, plain = _four_decimal_index(values)
            value[j] = where["float"] + index
            form = "%6.4f\n"
        else:
            plain, power, digits = _significant_parts(values)
            near = power >= -4
            value[j] = np.where(near, where["fixed"] + (-1 - np.where(near, power, -1)) * 9000,
                                where["mantissa"]) + digits
            exponent[j] = np.where(plain & ~near, where["exponent"] - power, where["exponent"])
            zero = (values == 0.0) & ~np.signbit(values)
            value[j][values == 1.0] = where["one"]               # p = 1 (ties) and 0: not looked up above
            value[j][zero] = where["one"] + 1
            plain = plain | (values == 1.0) | zero
            form = "%.4g\n"
        for i in np.flatnonzero(~plain).tolist():
            value[j, i] = len(lengths) + len(extra)
            extra.append(form % values[i])
    # the pieces: the table, the texts printed one by one, the measures (padded), the qids, the keys
    # one qid for every group (the pairs' 'all' lines): its text once
    one_qid = groups > 1 and block.qids.count(block.qids[0]) == groups
    qids = block.qids[:1] if one_qid else block.qids
    parts = [(blob, lengths), _pieces(extra), _pieces([f"{_padded(name)}\t" for name in block.names]),
             _pieces([f"{qid}\t" for qid in qids])] + \
        ([_pieces([f"{key}\t" for key in block.keys])] if with_key else [])
    first_name = len(lengths) + len(extra)
    group = np.repeat(np.arange(groups), names)            # line by line: group by group, names within
    qid_of_line = np.zeros_like(group) if one_qid else group
    order = [first_name + np.tile(np.arange(names), groups), first_name + names + qid_of_line,
             value.T.ravel(), exponent.T.ravel()]
    if with_key:
        order.insert(0, first_name + names + len(qids) + group)
    return _gathered(parts, np.stack(order, axis=1).ravel())


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
    blob, lengths, where = _byte_tables()
    pairs, groups, names = len(batch.keys), len(batch.qids), len(batch.names)
    values = np.stack([np.asarray(v, dtype=np.float64).reshape(pairs, groups) for v in batch.values], axis=2) \
        if names else np.zeros((pairs, groups, 0))
    index, plain = _four_decimal_index(values)                  # (pairs, groups, names): lines in order
    value = where["float"] + index
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
