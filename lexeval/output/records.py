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
import queue
from collections.abc import Iterable, Iterator

import numpy as np

from ..choices import SIGN_PREFERENCES
from ..interface import Result
from ..preferences import pair_rows, pair_signs
from .layout import BYTES_LINES, _interleaved, _write_bytes, batch_bytes, block_bytes, text_chunk
from .lines import (
    FLOAT,
    INTEGER,
    PVALUE,
    QUOTED,
    TEXT,
    Block,
    PairBatch,
    PairKeys,
    Record,
    line_texts,
    without_negative_zero,
)

# the names other modules have always read here (the blocks and the texts of values)
__all__ = ["FLOAT", "INTEGER", "PVALUE", "QUOTED", "TEXT", "Block", "PairBatch", "Record", "all_blocks",
           "batch_bytes", "block_bytes", "records", "report_blocks", "text_chunk", "write", "write_part"]


def _style(column) -> str:
    if column.measure.text:
        return QUOTED if column.measure.per_query else TEXT
    return INTEGER if column.measure.integer else FLOAT


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
# pairs' 'all' lines laid out together: a few megabytes a block, each writer thread holding one or two
_SUMMARY_PAIRS = 2048


def pair_blocks(evaluation: Result, per_query: bool, summary: bool, batched: bool = False
                ) -> Iterator[Block | PairBatch]:
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
            for start in range(0, count, _SUMMARY_PAIRS):
                yield _pair_summary_block(evaluation, range(start, min(start + _SUMMARY_PAIRS, count)))
        return
    pairs = evaluation.pairs.tolist()
    blocks = preferences.blocks(pair_rows(preferences.num_runs, evaluation.pairs)) if preferences else None
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
    chosen = slice(indices.start, indices.stop)
    keys = PairKeys(evaluation.run_names, evaluation.pairs[chosen])
    lines: list[tuple[str, list, str]] = []
    for name in evaluation.preference_names():
        lines.append((name, summary.mean[name][chosen], FLOAT))
        if name in SIGN_PREFERENCES:
            lines += [(f"{name}_win", summary.wins[name][chosen], INTEGER),
                      (f"{name}_loss", summary.losses[name][chosen], INTEGER),
                      (f"{name}_tie", summary.ties[name][chosen], INTEGER)]
        lines += _p_lines(tests, name, chosen) + _bound_lines(evaluation.difference_bounds, name, chosen)
    as_preferences = evaluation.metric_pairs
    for column in evaluation.columns:
        if as_preferences is not None and column.name in as_preferences.mean:
            name = column.name
            lines += [(name, as_preferences.mean[name][chosen], FLOAT),
                      (f"{name}_win", as_preferences.wins[name][chosen], INTEGER),
                      (f"{name}_loss", as_preferences.losses[name][chosen], INTEGER),
                      (f"{name}_tie", as_preferences.ties[name][chosen], INTEGER)]
        lines += _p_lines(tests, column.name, chosen) + _bound_lines(evaluation.difference_bounds, column.name, chosen)
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


def _bound_lines(bounds, name: str, chosen: slice) -> list[tuple[str, list, str]]:
    """--bounds' lines of a measure for some pairs: the least and greatest
    mean difference over the unjudged documents' grades, and (where tested)
    whether a significant difference could reverse."""
    if bounds is None or name not in bounds.low:
        return []
    lines = [(f"{name}_low", bounds.low[name][chosen], FLOAT), (f"{name}_high", bounds.high[name][chosen], FLOAT)]
    if name in bounds.fragile:
        lines.append((f"{name}_fragile", bounds.fragile[name][chosen].astype(np.int64), INTEGER))
    return lines


def all_blocks(evaluation: Result, per_query: bool, summary: bool, batched: bool = False
               ) -> Iterator[Block | PairBatch]:
    """Run blocks, then pair blocks (the order trec_eval users expect: runs
    in command-line order, then pairs); ``batched``: pairs' per-query lines
    as :class:`PairBatch` (for :func:`write`'s text)."""
    yield from run_blocks(evaluation, per_query, summary)
    yield from pair_blocks(evaluation, per_query, summary, batched)


def records(blocks: Iterable[Block | PairBatch]) -> Iterator[Record]:
    """The lines of blocks, one Record each, in output order (a
    :class:`PairBatch` as its blocks)."""
    for each in blocks:
        for block in each.blocks() if isinstance(each, PairBatch) else [each]:
            yield from _block_records(block)


def _block_records(block: Block) -> Iterator[Record]:
    columns = [values.tolist() if isinstance(values, np.ndarray) else values for values in block.values]
    for i, (key, qid) in enumerate(zip(block.keys, block.qids)):
        for name, values, style in zip(block.names, columns, block.styles):
            yield Record(key, name, qid, values[i], style)


def report_blocks(lines) -> Iterator[Block]:
    """Report lines (report, measure, parameter, value) as blocks: counts
    and ranks as integers (text ``379``, JSON and CSV numbers), the rest as
    ``%6.4f`` (a value that would print as -0.0000 is 0)."""
    from .lines import without_negative_zero
    for line in lines:
        integer = getattr(line, "integer", False)
        value = int(line.value) if integer else float(without_negative_zero(line.value))
        yield Block([line.report], [line.parameter], [line.measure], [[value]], [INTEGER if integer else FLOAT])


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


def write(blocks: Iterable[Block | PairBatch], output_format: str, out, with_key: bool, progress=None) -> None:
    """Write blocks to ``out`` as they come, in ``output_format`` (text,
    json or csv); ``progress(blocks written)`` follows them. Blocks are
    laid out on worker threads (as many as lexeval may use, :func:`lexeval.cpus.jobs`),
    a few ahead of the one being written, and written in order: the
    compiled layout of the text lets the interpreter go, so several blocks
    are laid out at once."""
    from ..cpus import jobs
    if output_format == "csv":
        out.write(CSV_HEADER)
    spare: queue.SimpleQueue = queue.SimpleQueue()        # the layouts' buffers, written and free again

    def lay(block):
        if isinstance(block, PairBatch):
            return batch_bytes(block, with_key)
        if output_format == "json":
            return json_chunk(block)
        if output_format == "csv":
            return csv_chunk(block)
        if len(block.qids) * len(block.names) >= BYTES_LINES:
            laid = block_bytes(block, with_key, None if spare.empty() else spare.get())
            if laid is not None:
                return laid
        return text_chunk(block, with_key)

    pending: list[str] = []
    size, done = 0, 0
    for block, laid in _in_order(lay, _expanded(blocks, output_format), jobs()):
        # a batch counts as its blocks
        done += len(block.keys) * (1 + (block.summary is not None)) if isinstance(block, PairBatch) else 1
        if progress and (done % 64 == 0 or isinstance(block, PairBatch)):
            progress(done)
        if isinstance(laid, str):
            pending.append(laid)
            size += len(laid)
            if size > 1 << 20:                  # write in pieces of about a megabyte
                out.write("".join(pending))
                pending, size = [], 0
            continue
        out.write("".join(pending))
        pending, size = [], 0
        if isinstance(laid, tuple):             # a buffer's first bytes: written, then free for another block
            buffer, length = laid
            with memoryview(buffer) as view:
                _write_bytes(out, view[:length])
            spare.put(buffer)
        else:
            _write_bytes(out, laid)
    out.write("".join(pending))


def _in_order(function, items: Iterable, workers: int) -> Iterator[tuple]:
    """(item, function(item)) for each item, in order; with ``workers`` > 1
    made on that many threads, at most ``workers`` items ahead of the one
    handed out (so that memory does not grow with the output)."""
    if workers <= 1:
        for item in items:
            yield item, function(item)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(workers, thread_name_prefix="lexeval-output") as pool:
        ahead: deque = deque()
        for item in items:
            ahead.append((item, pool.submit(function, item)))
            if len(ahead) > workers:
                first, made = ahead.popleft()
                yield first, made.result()
        while ahead:
            first, made = ahead.popleft()
            yield first, made.result()


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
