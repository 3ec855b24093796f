"""Turning results into text: the only module that knows about output.

Everything becomes a stream of :class:`Record` (key, measure, qid, value);
renderers write records as trec_eval text, JSON lines, CSV, or a rich table.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from .evaluation import Evaluation
from .preferences import SIGN_PREFERENCES

FLOAT, INTEGER, TEXT, QUOTED = "float", "int", "text", "quoted"


@dataclass(frozen=True)
class Record:
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
    for run_index, run in enumerate(evaluation.run_names):
        if per_query:
            query_columns = [c for c in evaluation.columns if c.measure.per_query]
            for query_index in np.flatnonzero(evaluation.included[run_index]):
                qid = qids[query_index]
                for column in query_columns:
                    yield Record(run, column.name, qid, column.values[run_index, query_index],
                                 _style(column))
        if summary:
            for column in evaluation.columns:
                if column.measure.summary == "none":
                    continue
                value = evaluation.summary(column)[run_index]
                style = TEXT if column.measure.text else _style(column)
                yield Record(run, column.name, "all", value, style)
            for name in evaluation.preference_names():
                score, rank = evaluation.run_preference_summary(name)
                yield Record(run, f"{name}_score", "all", score[run_index])
                yield Record(run, f"{name}_rank", "all", rank[run_index], INTEGER)


def pair_records(evaluation: Evaluation, per_query: bool, summary: bool) -> Iterator[Record]:
    """Pair blocks, A:B in command-line order: per-query preferences, then
    the mean over queries and, for LP and LR, wins, losses and ties."""
    preferences = evaluation.preferences
    if preferences is None:
        return
    names = evaluation.run_names
    qids = evaluation.qids
    for pair_index, (a, b) in enumerate(preferences.pairs):
        key = f"{names[a]}:{names[b]}"
        if per_query:
            for query_index, qid in enumerate(qids):
                for name, values in preferences.values.items():
                    yield Record(key, name, qid, values[pair_index, query_index])
        if summary:
            for name, values in preferences.values.items():
                row = values[pair_index]
                mean = np.cumsum(row)[-1] / len(row) if len(row) else 0.0
                yield Record(key, name, "all", mean)
                if name in SIGN_PREFERENCES:
                    yield Record(key, f"{name}_win", "all", int((row > 0).sum()), INTEGER)
                    yield Record(key, f"{name}_loss", "all", int((row < 0).sum()), INTEGER)
                    yield Record(key, f"{name}_tie", "all", int((row == 0).sum()), INTEGER)


def all_records(evaluation: Evaluation, per_query: bool, summary: bool) -> Iterator[Record]:
    """Run blocks, then pair blocks (CONTRACT section 4 order)."""
    yield from run_records(evaluation, per_query, summary)
    yield from pair_records(evaluation, per_query, summary)


def write_text(records: Iterable[Record], out, with_key: bool) -> None:
    """trec_eval's lines: ``%-22s\\t%s\\t%s``, preceded by ``key\\t`` for
    several runs."""
    write = out.write
    if with_key:
        for r in records:
            write(f"{r.key}\t{r.measure:<22}\t{r.qid}\t{r.text_value()}\n")
    else:
        for r in records:
            write(f"{r.measure:<22}\t{r.qid}\t{r.text_value()}\n")


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


def write_table(records: Iterable[Record], out, title: str = "lexeval") -> None:
    """A rich table for people: one row per key (run or pair), one column
    per measure, summary values only."""
    from rich.console import Console
    from rich.table import Table

    rows: dict[str, dict[str, str]] = {}
    measures: list[str] = []
    for r in records:
        if r.qid != "all":
            continue
        if r.measure not in measures:
            measures.append(r.measure)
        rows.setdefault(r.key, {})[r.measure] = r.text_value().strip()
    table = Table(title=title)
    table.add_column("run", style="bold")
    for name in measures:
        table.add_column(name, justify="right")
    for key, values in rows.items():
        table.add_row(key, *[values.get(name, "") for name in measures])
    Console(file=out, width=max(100, 12 * (len(measures) + 1))).print(table)
