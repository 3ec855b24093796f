"""Turning results into text: the record stream and its writers.

Results become a stream of :class:`Block`: consecutive lines that share a
key (a run, or a pair ``A:B``), laid out query by query, measure by measure
within a query, as trec_eval prints them. Writers format a whole block at
once and write it straight away (``-q`` on a hundred runs is millions of
lines, never held in memory): trec_eval text, JSON lines, CSV. The table
for people reads the same blocks as :class:`Record` lines.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import NamedTuple

import numpy as np

from ..choices import SIGN_PREFERENCES
from ..interface import Result
from ..preferences import pair_rows, pair_signs

FLOAT, INTEGER, TEXT, QUOTED, PVALUE = "float", "int", "text", "quoted", "p"


class Block(NamedTuple):
    """Output lines by group: for each group i (a key and a qid) in turn,
    one line per name, ``values[j][i]`` being measure ``names[j]`` there."""

    keys: list[str]           # per group: a run name, or "A:B" for a pair
    qids: list[str]           # per group: a query id, or "all"
    names: list[str]
    values: list              # (names) x (groups): a list or an array per name
    styles: list[str]         # per name: FLOAT, INTEGER, TEXT or QUOTED
    texts: list[list] | None = None     # (names) x (groups) the text writer's values, made already ("...\n")


class PairBatch(NamedTuple):
    """Consecutive pairs' per-query blocks (``-q``), each followed by its
    'all' lines if any, as arrays: for the text writer to lay out together
    (:func:`batch_bytes`); :meth:`blocks` gives the same lines as blocks."""

    keys: list[str]               # per pair: "A:B"
    qids: list[str]
    names: list[str]
    values: list[np.ndarray]      # per name: (pairs, queries) floats
    summary: Block | None         # the pairs' 'all' lines, a group per pair (the same keys), texts made

    def blocks(self) -> Iterator[Block]:
        for k, key in enumerate(self.keys):
            yield Block([key] * len(self.qids), self.qids, self.names, [values[k] for values in self.values],
                        [FLOAT] * len(self.names))
            if self.summary is not None:
                every = self.summary
                yield Block([every.keys[k]], ["all"], every.names, [v[k:k + 1] for v in every.values],
                            every.styles, [[texts[k]] for texts in every.texts])


class Record(NamedTuple):
    """One output line (for the table, and for reports)."""

    key: str
    measure: str
    qid: str
    value: object
    style: str = FLOAT

def formatted(values: list, style: str, end: str = "") -> list[str]:
    """trec_eval's text of each value: ``%6.4f`` floats, ``%d`` counts,
    quoted relstrings, plain text; each followed by ``end``."""
    if style == FLOAT:
        return ["%6.4f%s" % (value, end) for value in values]
    if style == PVALUE:         # small p-values stay readable: 1.581e-10, not 0.0000
        return ["%.4g%s" % (value, end) for value in values]
    if style == INTEGER:
        return ["%d%s" % (value, end) for value in values]
    if style == QUOTED:
        return [f"'{value}'{end}" for value in values]
    return [f"{value}{end}" for value in values]


_FOUR_DECIMALS: dict[str, np.ndarray] = {}


def four_decimals(values: np.ndarray, end: str = "") -> np.ndarray:
    """``%6.4f`` of each value (an object array of str, same shape),
    exactly as Python and trec_eval's C print them. Values below 10 in size
    whose fifth decimal is not near a tie are looked up among the 200,000
    possible texts; the others are printed one by one. Printing millions of
    per-query values one by one is most of ``-q``'s time. Each text is
    followed by ``end``."""
    values = np.asarray(values, dtype=np.float64)
    index, plain = _four_decimal_index(values)
    texts = _four_decimal_texts(end)[index]
    for i in zip(*np.nonzero(~plain)):
        texts[i] = "%6.4f%s" % (values[i], end)
    return texts


def _four_decimal_texts(end: str) -> np.ndarray:
    """(200000,) ``%6.4f`` of 0.0000 .. 9.9999, then of their negatives, each followed by ``end``."""
    if end not in _FOUR_DECIMALS:
        plus = np.array(["%d.%04d%s" % (*divmod(k, 10000), end) for k in range(100000)], dtype=object)
        _FOUR_DECIMALS[end] = np.concatenate([plus, "-" + plus])
    return _FOUR_DECIMALS[end]


def _four_decimal_index(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's place among :func:`_four_decimal_texts`, and whether it
    may be looked up (else 0 and False: printed one by one)."""
    size = np.abs(values)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = size * 10000.0
        # far from a tie next to the product's rounding error: rounding it rounds the exact value
        plain = (size < 9.99994) & (np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6)
        index = np.where(plain, np.rint(scaled), 0).astype(np.int64) + 100000 * np.signbit(values)
    return index, plain


_SIGNIFICANT: dict[str, tuple] = {}
_POWERS_OF_TEN = 10.0 ** np.arange(305)             # 10**304 is the last a float holds


def four_significant(values, end: str = "") -> np.ndarray:
    """``%.4g`` of each value (an object array of str), exactly as Python
    prints it: p-values, most of a thousand runs' output. Values in (0, 1)
    whose fifth significant digit is not near a tie are looked up (the
    mantissa's text, then the exponent's); 0, 1 and the others are printed
    one by one. Each text is followed by ``end``."""
    fixed, mantissa, exponent = _significant_texts(end)
    values = np.asarray(values, dtype=np.float64).ravel()
    plain, power, digits = _significant_parts(values)
    texts = np.empty(len(values), dtype=object)
    near = plain & (power >= -4)                              # 0.1234, 0.01234, ..., 0.0001234
    texts[near] = fixed[-1 - power[near], digits[near]]
    far = plain & (power < -4)                                # 1.234e-05
    texts[far] = mantissa[digits[far]] + exponent[-power[far]]
    for i in np.flatnonzero(~plain).tolist():
        texts[i] = "%.4g%s" % (values[i], end)
    return texts


def _significant_texts(end: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """%.4g's pieces: (4, 9000) ``0.1234`` .. ``0.0001234`` by leading zeros
    and four digits (trailing zeros dropped), then ``end``; (9000,)
    mantissas ``1.234``; (400,) exponents ``e-05``, then ``end``."""
    if end not in _SIGNIFICANT:
        digits = [str(m).rstrip("0") for m in range(1000, 10000)]            # 1200 -> "12"
        fixed = np.array([["0." + "0" * zeros + d + end for d in digits] for zeros in range(4)], dtype=object)
        mantissa = np.array([d[0] + ("." + d[1:] if len(d) > 1 else "") for d in digits], dtype=object)
        exponent = np.array(["e-%02d%s" % (k, end) for k in range(400)], dtype=object)
        _SIGNIFICANT[end] = fixed, mantissa, exponent
    return _SIGNIFICANT[end]


def _significant_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(plain, power, digits) of each value (n,): whether its %.4g may be
    looked up, its power of ten (-1 for 0.1 .. 0.99) and its four digits
    less 1000."""
    inside = (values > 1e-300) & (values < 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        power = np.floor(np.log10(np.where(inside, values, 0.5))).astype(np.int64)    # -1 for 0.1 .. 0.99
        scaled = values * _POWERS_OF_TEN[3 - power]            # in [1000, 10000): the four digits and the rest
        rest = scaled - np.floor(scaled)
        # far from a tie and from the decade's ends next to the product's rounding error
        plain = inside & (np.abs(rest - 0.5) > 1e-6) & (scaled >= 1000.0 + 1e-6) & (scaled < 9999.5 - 1e-6)
        digits = np.where(plain, np.rint(scaled), 1000).astype(np.int64) - 1000
    return plain, power, digits


def without_negative_zero(values) -> np.ndarray:
    """``values`` (an array) with those that print as -0.0000 made 0.0: a
    difference of nothing is no drop (trec_eval's own measures keep their
    text; this is for lexeval's pair lines)."""
    values = np.asarray(values, dtype=np.float64)
    near = (values <= 0.0) & (values > -0.0000501)
    if not near.any():
        return values
    flat = values.ravel().copy()
    for i in np.flatnonzero(near).tolist():
        if "%6.4f" % flat[i] == "-0.0000" or flat[i] == 0.0:
            flat[i] = 0.0
    return flat.reshape(values.shape)


def _style(column) -> str:
    if column.measure.text:
        return QUOTED if column.measure.per_query else TEXT
    return INTEGER if column.measure.integer else FLOAT


# ---------------------------------------------------------------- blocks


def run_blocks(evaluation: Result, per_query: bool, summary: bool) -> Iterator[Block]:
    """Per-run blocks in command-line order: per-query lines (trec_eval's
    query order), then the summary under qid 'all'."""
    qids = evaluation.qids
    query_columns = [c for c in evaluation.columns if c.measure.per_query] if per_query else []
    summaries = [(column, evaluation.summary(column)) for column in evaluation.columns
                 if column.measure.summary != "none"] if summary else []
    preference_summaries = [(name, *evaluation.run_preference_summary(name))
                            for name in evaluation.preference_names()] if summary else []
    for run_index, run in enumerate(evaluation.run_names):
        if query_columns:
            chosen = np.flatnonzero(evaluation.included[run_index])
            yield Block([run] * len(chosen), [qids[q] for q in chosen.tolist()], [c.name for c in query_columns],
                        [c.values[run_index, chosen].tolist() for c in query_columns],
                        [_style(c) for c in query_columns])
        if summaries or preference_summaries:
            names, values, styles = [], [], []
            for column, summary_values in summaries:
                names.append(column.name)
                values.append([summary_values[run_index]])
                styles.append(TEXT if column.measure.text else _style(column))
            for name, score, rank in preference_summaries:
                names += [f"{name}_score", f"{name}_rank"]
                values += [[float(without_negative_zero(score[run_index]))], [int(rank[run_index])]]
                styles += [FLOAT, INTEGER]
            yield Block([run], ["all"], names, values, styles)


_BATCH_LINES = 1 << 17            # -q's per-query lines of pairs laid out together


def pair_blocks(evaluation: Result, per_query: bool, summary: bool, batched: bool = False) -> Iterator[Block]:
    """Pair blocks, A:B in command-line order (only pairs with the baseline,
    if there is one): per-query preferences (and, with --pair-metrics, metric
    differences), then their means (with wins, losses and ties for LP and LR,
    and for the metrics) and p-values, then every metric's p.
    Per-query preferences are computed again a block of pairs at a time,
    so that millions of pairs never sit in memory at once; ``batched``:
    consecutive pairs' per-query lines come as :class:`PairBatch` (for the
    text writer)."""
    if evaluation.pairs is None:
        return
    names, qids = evaluation.run_names, evaluation.compared_qids
    preferences = evaluation.preferences
    preference_names = evaluation.preference_names()
    metric_columns = [column for column in evaluation.columns if evaluation.metric_pairs is not None
                      and column.name in evaluation.metric_pairs.mean]
    with_queries = per_query and bool(preference_names or metric_columns) and bool(qids)
    if not with_queries:                        # summaries only: many pairs per block
        if summary:
            count = len(evaluation.pairs)
            for start in range(0, count, 4096):
                yield _pair_summary_block(evaluation, range(start, min(start + 4096, count)))
        return
    pairs = evaluation.pairs.tolist()
    blocks = preferences.blocks(pair_rows(preferences.rankings.num_runs, evaluation.pairs)) if preferences else None
    compared_values = [evaluation.compared_values(column) for column in metric_columns]
    signs = pair_signs(evaluation.pairs)        # run:baseline pairs (b, a) have their preferences negated
    if summary:     # every pair's 'all' lines made at once, handed out pair by pair
        every = _pair_summary_block(evaluation, range(len(pairs)))
        every_texts = line_texts(every.values, every.styles, len(pairs))
    line_names = preference_names + [column.name for column in metric_columns]
    step = max(1, _BATCH_LINES // max(len(qids) * max(len(line_names), 1), 1))
    values: dict[str, np.ndarray] = {}
    first_in_block, block_length = 0, 0
    start = 0
    while start < len(pairs):
        if blocks is not None and start >= first_in_block + block_length:         # the next block of pairs
            rows, values, _ = next(blocks)
            first_in_block, block_length = start, len(rows)
        stop = min(start + step, len(pairs)) if blocks is None else \
            min(start + step, first_in_block + block_length)
        chosen = evaluation.pairs[start:stop]
        rows = slice(start - first_in_block, stop - first_in_block)
        batch = PairBatch([f"{names[a]}:{names[b]}" for a, b in pairs[start:stop]], qids, line_names,
                          [without_negative_zero(values[name][rows] * signs[start:stop])
                           for name in preference_names] +
                          [without_negative_zero(matrix[chosen[:, 0]] - matrix[chosen[:, 1]])
                           for matrix in compared_values],
                          Block(every.keys[start:stop], ["all"] * (stop - start), every.names,
                                [v[start:stop] for v in every.values], every.styles,
                                [t[start:stop] for t in every_texts]) if summary else None)
        if batched:
            yield batch
        else:
            yield from batch.blocks()
        start = stop


def _pair_summary_block(evaluation: Result, indices: range) -> Block:
    """The 'all' lines of the pairs ``indices`` (into ``evaluation.pairs``):
    each preference's mean (with wins, losses and ties for LP and LR) and
    p-values, then every metric's p."""
    summary, tests = evaluation.pair_summary, evaluation.tests
    names = evaluation.run_names
    chosen = slice(indices.start, indices.stop)
    firsts, seconds = evaluation.pairs[chosen].T.tolist()     # ints: an array's rows are slow to walk
    keys = [f"{names[a]}:{names[b]}" for a, b in zip(firsts, seconds)]
    lines: list[tuple[str, list, str]] = []
    for name in evaluation.preference_names():
        lines.append((name, summary.mean[name][chosen], FLOAT))
        if name in SIGN_PREFERENCES:
            lines += [(f"{name}_win", summary.wins[name][chosen], INTEGER),
                      (f"{name}_loss", summary.losses[name][chosen], INTEGER),
                      (f"{name}_tie", summary.ties[name][chosen], INTEGER)]
        lines += _p_lines(tests, name, chosen)
    as_preferences = evaluation.metric_pairs
    for column in evaluation.columns:
        if as_preferences is not None and column.name in as_preferences.mean:
            name = column.name
            lines += [(name, as_preferences.mean[name][chosen], FLOAT),
                      (f"{name}_win", as_preferences.wins[name][chosen], INTEGER),
                      (f"{name}_loss", as_preferences.losses[name][chosen], INTEGER),
                      (f"{name}_tie", as_preferences.ties[name][chosen], INTEGER)]
        lines += _p_lines(tests, column.name, chosen)
    return Block(keys, ["all"] * len(keys), [n for n, _, _ in lines],
                 [without_negative_zero(v) if style == FLOAT else v for _, v, style in lines],
                 [style for _, _, style in lines])


def _p_lines(tests, name: str, chosen: slice) -> list[tuple[str, list, str]]:
    """A measure's test lines for some pairs: p, HSD p, and with --ci the
    interval of the mean difference and the standardized effect size."""
    if tests is None or name not in tests.p:
        return []
    lines = [(f"{name}_p", tests.p[name][chosen], PVALUE)]
    if name in tests.hsd_p:
        lines.append((f"{name}_hsd_p", tests.hsd_p[name][chosen], PVALUE))
    if name in tests.effect:
        lines += [(f"{name}_ci_low", tests.ci_low[name][chosen], FLOAT),
                  (f"{name}_ci_high", tests.ci_high[name][chosen], FLOAT),
                  (f"{name}_effect", tests.effect[name][chosen], FLOAT)]
    return lines


def all_blocks(evaluation: Result, per_query: bool, summary: bool, batched: bool = False) -> Iterator[Block]:
    """Run blocks, then pair blocks (the order trec_eval users expect: runs
    in command-line order, then pairs); ``batched``: pairs' per-query lines
    as :class:`PairBatch` (for :func:`write`'s text)."""
    yield from run_blocks(evaluation, per_query, summary)
    yield from pair_blocks(evaluation, per_query, summary, batched)


def records(blocks: Iterable[Block]) -> Iterator[Record]:
    """The lines of blocks, one Record each, in output order."""
    for block in blocks:
        columns = [values.tolist() if isinstance(values, np.ndarray) else values for values in block.values]
        for i, (key, qid) in enumerate(zip(block.keys, block.qids)):
            for name, values, style in zip(block.names, columns, block.styles):
                yield Record(key, name, qid, values[i], style)


def report_blocks(lines) -> Iterator[Block]:
    """Report lines (report, measure, parameter, value) as blocks: counts
    and ranks as integers (text ``379``, JSON and CSV numbers), the rest as
    ``%6.4f``."""
    for line in lines:
        integer = getattr(line, "integer", False)
        yield Block([line.report], [line.parameter], [line.measure], [[int(line.value) if integer else line.value]],
                    [INTEGER if integer else FLOAT])


# ---------------------------------------------------------------- writers


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


def line_texts(values: list[list], styles: list[str], groups: int) -> list[list[str]]:
    """Per name, each value's text and the line's end (see :func:`formatted`)."""
    floats = [j for j, style in enumerate(styles) if style == FLOAT]
    p_values = [j for j, style in enumerate(styles) if style == PVALUE]
    printed = {}
    _FLOATS_SEEN[0] += (len(floats) + len(p_values)) * groups
    # many floats: printed together, looked up in a table that costs as much to make as 100,000 printed
    if _FOUR_DECIMALS or _FLOATS_SEEN[0] > 100_000:
        if len(floats) * groups >= 256:
            printed.update(zip(floats, four_decimals(np.array([values[j] for j in floats]), "\n").tolist()))
        if len(p_values) * groups >= 256:
            texts = four_significant(np.array([values[j] for j in p_values]), "\n").reshape(len(p_values), groups)
            printed.update(zip(p_values, texts.tolist()))
    for j, style in enumerate(styles):       # counts (wins, losses, ties): small integers, looked up
        if style == INTEGER and j not in printed and groups >= 256:
            column = np.asarray(values[j])
            if column.dtype.kind in "iu" and len(column) and column.min() >= 0 and column.max() < 1 << 16:
                printed[j] = _integer_texts(int(column.max()))[column].tolist()
    return [printed[j] if j in printed else formatted(column, style, "\n")
            for j, (column, style) in enumerate(zip(values, styles))]


_INTEGERS: list[np.ndarray] = []


def _integer_texts(largest: int) -> np.ndarray:
    """``%d\n`` of 0 .. largest at least, made once."""
    if not _INTEGERS or len(_INTEGERS[0]) <= largest:
        _INTEGERS[:] = [np.array(["%d\n" % k for k in range(max(largest + 1, 1024))], dtype=object)]
    return _INTEGERS[0]


_FLOATS_SEEN = [0]                   # floats printed by this process so far

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


def _number(value, style: str) -> str | None:
    """A numeric value's exact text for JSON and CSV (None: not finite);
    text values are returned as they are."""
    if style in (FLOAT, PVALUE):
        value = float(value)
        return repr(value) if math.isfinite(value) else None
    if style == INTEGER:
        return str(int(value))
    return str(value)


def _json_value(value, style: str) -> str:
    text = _number(value, style)
    if style in (TEXT, QUOTED):
        return json.dumps(text)
    return "null" if text is None else text


def _chunk(block: Block, quote, value_text, line) -> str:
    """A block as JSON or CSV lines: ``quote`` encodes identifiers and names
    (once each), ``value_text(value, style)`` the values, ``line(key,
    name, qid, value)`` makes a line."""
    keys = [quote(key) for key in block.keys]
    qids = [quote(qid) for qid in block.qids]
    texts = []
    for name, values, style in zip(block.names, block.values, block.styles):
        name_text = quote(name)
        texts.append([line(key, name_text, qid, value_text(value, style))
                      for key, qid, value in zip(keys, qids, values)])
    return _interleaved(texts)


def json_chunk(block: Block) -> str:
    """One JSON object per line: key, measure, qid, value."""
    def line(key, name, qid, value):
        return f'{{"key": {key}, "measure": {name}, "qid": {qid}, "value": {value}}}\n'
    return _chunk(block, json.dumps, _json_value, line)


def _csv_field(text: str) -> str:
    if any(char in text for char in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_value(value, style: str) -> str:
    text = _number(value, style)
    return "" if text is None else _csv_field(text)


CSV_HEADER = "key,measure,qid,value\n"


def csv_chunk(block: Block) -> str:
    """The same four columns as CSV (the header is written first, once)."""
    return _chunk(block, _csv_field, _csv_value, lambda key, name, qid, value: f"{key},{name},{qid},{value}\n")


def write(blocks: Iterable[Block], output_format: str, out, with_key: bool, progress=None) -> None:
    """Write blocks to ``out`` as they come, in ``output_format`` (text,
    json or csv); ``progress(blocks written)`` follows them."""
    if output_format == "csv":
        out.write(CSV_HEADER)
    pending, size, done = [], 0, 0
    for block in _expanded(blocks, output_format):
        # a batch counts as its blocks
        done += len(block.keys) * (1 + (block.summary is not None)) if isinstance(block, PairBatch) else 1
        if progress and (done % 64 == 0 or isinstance(block, PairBatch)):
            progress(done)
        if isinstance(block, PairBatch):
            out.write("".join(pending))
            pending, size = [], 0
            _write_bytes(out, batch_bytes(block, with_key))
            continue
        if output_format == "json":
            chunk = json_chunk(block)
        elif output_format == "csv":
            chunk = csv_chunk(block)
        else:
            chunk = block_bytes(block, with_key) if len(block.qids) * len(block.names) >= BYTES_LINES else None
            if chunk is not None:
                out.write("".join(pending))
                pending, size = [], 0
                _write_bytes(out, chunk)
                continue
            chunk = text_chunk(block, with_key)
        pending.append(chunk)
        size += len(chunk)
        if size > 1 << 20:                      # write in pieces of about a megabyte
            out.write("".join(pending))
            pending, size = [], 0
    out.write("".join(pending))


def _expanded(blocks: Iterable, output_format: str) -> Iterator:
    """The blocks, with each :class:`PairBatch` kept whole for the text
    writer where the compiled kernel lays it out, else as its blocks."""
    from ..io import kernel
    whole = output_format == "text" and kernel.enabled()
    for block in blocks:
        if isinstance(block, PairBatch) and not whole:
            yield from block.blocks()
        else:
            yield block


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
             _pieces([texts[k] for k in range(pairs) for texts in (every.texts if totals else [])]),
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


PART_SUFFIX = {"text": "txt", "json": "jsonl", "csv": "csv"}


def write_part(evaluation, directory: str, part: int, output_format: str) -> str:
    """Write the per-query lines (-q) of ``evaluation`` to
    ``directory/part-NNNNN.<txt|jsonl|csv>`` (a local folder or an fsspec
    URL): to a temporary name first, then renamed, so that a part file is
    whole or absent. Returns its path."""
    name = f"part-{part:05d}.{PART_SUFFIX[output_format]}"
    blocks = all_blocks(evaluation, per_query=True, summary=False)
    with_key = len(evaluation.run_names) > 1
    if "://" not in directory:
        final = os.path.join(directory, name)
        with open(final + ".partial", "w", encoding="utf-8", errors="surrogateescape") as out:
            write(blocks, output_format, out, with_key)
        os.replace(final + ".partial", final)
        return final
    import fsspec
    fs, root = fsspec.core.url_to_fs(directory)
    final = f"{root.rstrip('/')}/{name}"
    with fs.open(final + ".partial", "w", encoding="utf-8", errors="surrogateescape") as out:
        write(blocks, output_format, out, with_key)
    fs.mv(final + ".partial", final)
    return fs.unstrip_protocol(final)
