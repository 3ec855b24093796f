"""Turning results into text: the only module that knows about output.

Everything becomes a stream of :class:`Record` (key, measure, qid, value);
renderers write records as trec_eval text, JSON lines, CSV, or a rich table.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Iterable, Iterator, NamedTuple

import numpy as np

from .evaluation import Evaluation
from .preferences import SIGN_PREFERENCES

FLOAT, INTEGER, TEXT, QUOTED = "float", "int", "text", "quoted"


class Record(NamedTuple):
    """One output line. A NamedTuple: millions are made with -q."""

    key: str          # run name, or "A:B" for a pair
    measure: str
    qid: str          # query id or "all"
    value: object
    style: str = FLOAT

    def text_value(self) -> str:
        if self.style == FLOAT:
            return "%6.4f" % self.value
        if self.style == INTEGER:
            return "%d" % self.value
        if self.style == QUOTED:
            return f"'{self.value}'"
        return str(self.value)

    def plain_value(self):
        """The value for JSON/CSV: a number where it is one."""
        if self.style == FLOAT:
            value = float(self.value)
            return value if math.isfinite(value) else None
        if self.style == INTEGER:
            return int(self.value)
        return str(self.value)


def _style(column) -> str:
    if column.measure.text:
        return QUOTED if column.measure.per_query else TEXT
    return INTEGER if column.measure.integer else FLOAT


def run_records(evaluation: Evaluation, per_query: bool, summary: bool) -> Iterator[Record]:
    """Per-run blocks in command-line order: per-query lines (trec_eval's
    query order), then the summary under qid 'all'."""
    qids = evaluation.qids
    summaries = [(column, evaluation.summary(column)) for column in evaluation.columns
                 if column.measure.summary != "none"] if summary else []
    preference_summaries = [(name, *evaluation.run_preference_summary(name))
                            for name in evaluation.preference_names()] if summary else []
    for run_index, run in enumerate(evaluation.run_names):
        if per_query:
            query_columns = [(c.name, c.values[run_index].tolist(), _style(c))
                             for c in evaluation.columns if c.measure.per_query]
            for query_index in np.flatnonzero(evaluation.included[run_index]).tolist():
                qid = qids[query_index]
                for name, values, style in query_columns:
                    yield Record(run, name, qid, values[query_index], style)
        for column, values in summaries:
            style = TEXT if column.measure.text else _style(column)
            yield Record(run, column.name, "all", values[run_index], style)
        for name, score, rank in preference_summaries:
            yield Record(run, f"{name}_score", "all", score[run_index])
            yield Record(run, f"{name}_rank", "all", rank[run_index], INTEGER)


def pair_records(evaluation: Evaluation, per_query: bool, summary: bool) -> Iterator[Record]:
    """Pair blocks, A:B in command-line order (only pairs with the baseline,
    if there is one): per-query preferences, then their means (with wins,
    losses and ties for LP and LR) and p-values, then every metric's p."""
    if evaluation.pairs is None:
        return
    names, qids = evaluation.run_names, evaluation.compared_qids
    preferences = evaluation.preferences
    tests = evaluation.tests
    rows = {pair: row for row, pair in enumerate(preferences.pairs)} if preferences else {}
    for pair_index, (a, b) in enumerate(evaluation.pairs.tolist()):
        key = f"{names[a]}:{names[b]}"
        values = {name: v[rows[(a, b)]] for name, v in preferences.values.items()} if preferences else {}
        if per_query:
            listed = [(name, row.tolist()) for name, row in values.items()]
            for query_index, qid in enumerate(qids):
                for name, row in listed:
                    yield Record(key, name, qid, row[query_index])
        if not summary:
            continue
        for name, row in values.items():
            yield Record(key, name, "all", np.cumsum(row)[-1] / len(row) if len(row) else 0.0)
            if name in SIGN_PREFERENCES:
                yield Record(key, f"{name}_win", "all", int((row > 0).sum()), INTEGER)
                yield Record(key, f"{name}_loss", "all", int((row < 0).sum()), INTEGER)
                yield Record(key, f"{name}_tie", "all", int((row == 0).sum()), INTEGER)
            yield from _p_records(tests, key, name, pair_index)
        for column in evaluation.columns:
            yield from _p_records(tests, key, column.name, pair_index)


def _p_records(tests, key: str, name: str, pair_index: int) -> Iterator[Record]:
    if tests is None or name not in tests.p:
        return
    yield Record(key, f"{name}_p", "all", tests.p[name][pair_index])
    if name in tests.hsd_p:
        yield Record(key, f"{name}_hsd_p", "all", tests.hsd_p[name][pair_index])


def all_records(evaluation: Evaluation, per_query: bool, summary: bool) -> Iterator[Record]:
    """Run blocks, then pair blocks (CONTRACT section 4 order)."""
    yield from run_records(evaluation, per_query, summary)
    yield from pair_records(evaluation, per_query, summary)


def write_text(records: Iterable[Record], out, with_key: bool) -> None:
    """trec_eval's lines: ``%-22s\t%s\t%s``, preceded by ``key\t`` for
    several runs. The loop is inlined: with -q it runs millions of times."""
    lines = []
    append = lines.append
    for key, measure, qid, value, style in records:
        if style == FLOAT:
            text = "%6.4f" % value
        elif style == INTEGER:
            text = "%d" % value
        elif style == QUOTED:
            text = f"'{value}'"
        else:
            text = str(value)
        if with_key:
            append(f"{key}\t{measure:<22}\t{qid}\t{text}\n")
        else:
            append(f"{measure:<22}\t{qid}\t{text}\n")
        if len(lines) >= 100_000:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


def write_json(records: Iterable[Record], out) -> None:
    """One JSON object per line: key, measure, qid, value."""
    for r in records:
        out.write(json.dumps({"key": r.key, "measure": r.measure, "qid": r.qid,
                              "value": r.plain_value()}) + "\n")


def write_csv(records: Iterable[Record], out) -> None:
    """The same four columns as CSV, with a header."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["key", "measure", "qid", "value"])
    for r in records:
        value = r.plain_value()
        writer.writerow([r.key, r.measure, r.qid, "" if value is None else value])


def significance_markers(evaluation: Evaluation) -> dict[tuple[str, str], str]:
    """Markers for the table, per (run, column): with a baseline, '▲'/'▼'
    when the run is significantly better/worse than it; otherwise '▲k ▼j':
    significantly better than k runs, worse than j (p < alpha)."""
    tests, pairs = evaluation.tests, evaluation.pairs
    if tests is None or pairs is None:
        return {}
    names = evaluation.run_names
    alpha = evaluation.options.alpha
    baseline = evaluation.options.baseline
    markers = {}
    for measure, p in tests.p.items():
        column = f"{measure}_score" if evaluation.preferences and measure in evaluation.preferences.values \
            else measure
        better = np.zeros(len(names), dtype=int)
        worse = np.zeros(len(names), dtype=int)
        significant = p < alpha
        ahead = tests.mean_difference[measure] > 0                       # A better than B
        for (a, b), sig, a_ahead in zip(pairs.tolist(), significant, ahead):
            if not sig:
                continue
            winner, loser = (a, b) if a_ahead else (b, a)
            better[winner] += 1
            worse[loser] += 1
        for index, run in enumerate(names):
            if baseline is not None:
                text = "" if run == baseline else ("▲" if better[index] else "▼" if worse[index] else "")
            else:
                text = " ".join(part for part in (f"▲{better[index]}" if better[index] else "",
                                                  f"▼{worse[index]}" if worse[index] else "") if part)
            if text:
                markers[(run, column)] = text
    return markers


def write_table(records: Iterable[Record], out, markers: dict | None = None,
                run_names: list[str] | None = None, note: str = "") -> None:
    """A rich table for people: one row per run, one column per measure,
    summary values with significance markers."""
    from rich.console import Console
    from rich.table import Table

    markers = markers or {}
    rows: dict[str, dict[str, str]] = {}
    measures: list[str] = []
    for r in records:
        if r.qid != "all" or (run_names is not None and r.key not in run_names):
            continue
        if r.measure not in measures:
            measures.append(r.measure)
        mark = markers.get((r.key, r.measure), "")
        rows.setdefault(r.key, {})[r.measure] = r.text_value().strip() + (f" {mark}" if mark else "")
    table = Table(title="lexeval", caption=note or None)
    table.add_column("run", style="bold")
    for name in measures:
        table.add_column(name, justify="right")
    for key, values in rows.items():
        table.add_row(key, *[values.get(name, "") for name in measures])
    Console(file=out, width=max(100, 14 * (len(measures) + 1))).print(table)


def write_report_table(records: Iterable[Record], out) -> None:
    """Reports for people: one table per report, measures as rows and
    parameters as columns. Per-level rows (many columns) are left to the
    text output and --plot."""
    from rich.console import Console
    from rich.table import Table

    by_report: dict[str, dict[str, dict[str, str]]] = {}
    for r in records:
        by_report.setdefault(r.key, {}).setdefault(r.measure, {})[r.qid] = r.text_value().strip()
    console = Console(file=out, width=120)
    for report, rows in by_report.items():
        compact = {measure: values for measure, values in rows.items() if len(values) <= 12}
        parameters: list[str] = []
        for values in compact.values():
            parameters += [p for p in values if p not in parameters]
        table = Table(title=report)
        table.add_column("measure", style="bold")
        for parameter in parameters:
            table.add_column(parameter, justify="right")
        for measure, values in compact.items():
            table.add_row(measure, *[values.get(p, "") for p in parameters])
        console.print(table)
        skipped = [measure for measure in rows if measure not in compact]
        if skipped:
            console.print(f"  ({', '.join(skipped)}: one value per recall level; see the text output or --plot)")


def render(records: Iterable[Record], output_format: str, with_key: bool, draw_table) -> str:
    """All records as one string in ``output_format`` (text, json, csv or
    table); ``draw_table(records, out)`` draws the table. Rendered whole so
    that nothing is half-written if anything fails."""
    buffer = io.StringIO()
    if output_format == "json":
        write_json(records, buffer)
    elif output_format == "csv":
        write_csv(records, buffer)
    elif output_format == "table":
        draw_table(records, buffer)
    else:
        write_text(records, buffer, with_key)
    return buffer.getvalue()
