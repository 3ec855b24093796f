"""The reports as tables: each report lays its figures out (its rows and
columns, :class:`~lexeval.reports.common.ReportLine`'s ``table``, ``row``
and ``column``), and the same grid prints as LaTeX, Markdown, a table for
people or on the page."""

from __future__ import annotations

from typing import NamedTuple

from .tables import LATEX, MARKDOWN, _console, latex_escape, latex_tabular, markdown_table


def report_value(line) -> str:
    """A report figure's text: counts and ranks as integers, others ``%.4f``
    (nothing is -0.0000)."""
    if line.integer:
        return "%d" % line.value
    text = "%.4f" % line.value
    return text[1:] if text == "-0.0000" else text


class ReportGrid(NamedTuple):
    """One table of a report: its cells as printed, and how many leading columns label the rows."""

    report: str
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str
    labels: int


def report_grids(lines) -> list[ReportGrid]:
    """Per table a report's lines fill (each report lays its figures out:
    its rows and columns). Rows are the lines'
    ``row`` (with the measure beside it where two measures share a cell), or
    their measure; columns their ``column``, or their parameter."""
    tables: dict[tuple[str, str], list] = {}
    for line in lines:
        tables.setdefault((line.report, line.table or line.report), []).append(line)
    grids = []
    for (report, title), chosen in tables.items():
        with_rows = all(line.row for line in chosen)
        # rows labelled by the measure too, unless each column is one measure's (LP's ties by recall level)
        owners: dict[str, set] = {}
        for line in chosen:
            owners.setdefault(line.column or line.parameter, set()).add(line.measure)
        by_measure = not with_rows or any(len(measures) > 1 for measures in owners.values())
        keys: dict[tuple, dict[str, str]] = {}
        columns: list[str] = []
        for line in chosen:
            column = line.column or line.parameter
            if column not in columns:
                columns.append(column)
            key = ((line.measure,) if by_measure else ()) + ((line.row,) if with_rows else ())
            keys.setdefault(key, {})[column] = report_value(line)
        row_name = next((line.row_name for line in chosen if line.row_name), "row") if with_rows else None
        header = (["measure"] if by_measure else []) + ([str(row_name)] if with_rows else []) + columns
        rows = [list(key) + [values.get(column, "") for column in columns] for key, values in keys.items()]
        units = {line.unit for line in chosen}
        note = "; ".join(filter(None, ("percentages in 0-100" if "%" in units else "",
                                       "counts and ranks as integers" if units & {"count", "rank"} else "")))
        grids.append(ReportGrid(report, title, header, rows, f"Report: {report}" + (f" ({note})." if note else "."),
                                len(header) - len(columns)))
    return grids


def report_tables(lines, output_format: str) -> str:
    """Every report's tables as LaTeX or Markdown."""
    style = LATEX if output_format == "latex" else MARKDOWN
    out = []
    for _, title, header, rows, note, labels in report_grids(lines):
        header = [style["escape"](cell) for cell in header]
        rows = [[style["escape"](cell) for cell in row] for row in rows]
        out.append(latex_tabular(header, rows, latex_escape(f"{title}. {note}"), labels) if output_format == "latex"
                   else f"### {title}\n\n" + markdown_table(header, rows, note, labels))
    return "\n".join(out)


def screen_report_tables(lines, out, width: int | None = None) -> None:
    """Reports for people: each report's tables, laid out for its figures."""
    from rich.table import Table
    console = _console(out, width)
    for _, title, header, rows, note, labels in report_grids(lines):
        grid = Table(title=title, caption=note)
        for column, name in enumerate(header):
            grid.add_column(name, justify="left" if column < labels else "right", style="bold" if column == 0 else None,
                            no_wrap=True)
        for row in rows:
            grid.add_row(*row)
        console.print(grid)
