"""The ``lexeval`` click command: options in, one library call, output out.

Its options are made from their one declaration (:mod:`lexeval.options`),
in the order of :data:`HELP_ORDER`. Everything heavier than click (numpy,
pyarrow, scipy) is imported inside the command, so that ``--help``
answers at once.
"""

from __future__ import annotations

import sys
from typing import Any, cast

import click

from .. import __version__
from .. import options as declared
from ..choices import TABLE_FORMATS
from ..errors import OutputError, UsageError
from .help import HELP, progress_reporter
from .options import Call, click_option, collect

G = declared
#: --help's order of the options (each declared once, in its group).
HELP_ORDER = (
    (G.Measuring, "measures"), (G.Output, "per_query"), (G.Output, "no_summary"), (G.Reading, "level"),
    (G.Reading, "depth"), (G.Reading, "complete"), (G.Reading, "judged_only"), (G.Reading, "zscores"),
    (G.Reading, "num_docs"), (G.Reading, "rel_format"), (G.Measuring, "bounds"), (G.Reading, "tie_order"),
    (G.Reading, "fill_qrels"), (G.Compatibility, "results_format"),
    (G.Compatibility, "debug_level"), (G.Compatibility, "per_query_pref_eval"),
    (G.Compatibility, "no_summary_pref_eval"), (G.Compatibility, "topk"), (G.Compatibility, "pref_eval_qrels"),
    (G.Compatibility, "pref_eval_measure_set"), (G.Compatibility, "pref_eval_binary"),
    (G.Compatibility, "pref_eval_floor"), (G.Compatibility, "pref_eval_query_fraction"),
    (G.Compatibility, "pref_eval_label_fraction"), (G.Compatibility, "pref_eval_label_policy"),
    (G.Compatibility, "obsolete_o"), (G.Reading, "subtopics"), (G.Output, "format"), (G.Significance, "test"),
    (G.Significance, "permutations"), (G.Significance, "seed"), (G.Significance, "correction"),
    (G.Significance, "alpha"), (G.Significance, "ci"), (G.Significance, "confidence"),
    (G.Significance, "resamples"), (G.Measuring, "aggregate"), (G.Measuring, "pair_metrics"),
    (G.Significance, "hsd"), (G.Significance, "baseline"), (G.Gate, "gates"), (G.Gate, "gate_margin"),
    (G.Gate, "gate_test"), (G.Gate, "gate_report"), (G.Reports, "reports"), (G.Reports, "reference"),
    (G.Reports, "trials"), (G.Reports, "fractions"), (G.Reports, "samples"), (G.Reports, "label_policy"),
    (G.Reports, "deltas"), (G.Reports, "power"), (G.Reports, "original"), (G.Reports, "reproduced"),
    (G.Reports, "replication_qrels"), (G.Reports, "cutoffs"), (G.Reports, "rbo_p"), (G.Reports, "compare_qrels"),
    (G.Reports, "judged_at"), (G.Reports, "top_runs"),
    (G.Reports, "run_groups"), (G.Reports, "group_by"), (G.Reports, "pool_depth"), (G.Actions, "list_reports"),
    (G.Output, "plot_dir"), (G.Measuring, "rarity_weight"), (G.Reading, "jobs"), (G.Cluster, "cluster"),
    (G.Cluster, "output_dir"), (G.Reading, "verbose"), (G.Output, "timings"), (G.Output, "provenance"),
    (G.Actions, "list_measures"), (G.Actions, "cite"), (G.Actions, "version"),
)


def _with_options(function):
    """``function`` with every option of :data:`HELP_ORDER` (click applies decorators bottom up)."""
    for group, name in reversed(HELP_ORDER):
        function = click_option(name, declared.specs(group)[name])(function)
    return function


@click.command(help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                            "max_content_width": 100})
@click.argument("qrels", metavar="QRELS", required=False)
@click.argument("runs", nargs=-1, metavar="RUN...")
@_with_options
def command(**params):
    if params.pop("cite"):
        from ..citations import bibtex, keys_for
        runs = len(params["runs"]) + (params["qrels"] is not None)
        click.echo(bibtex(keys_for(params["measures"], max(runs - 1, 2) if runs else 2), __version__), nl=False)
        return
    # QRELS and RUN are required but for --cite: click's own message where they are missing
    context = click.get_current_context()
    if params["qrels"] is None:
        raise click.MissingParameter(ctx=context, param=_parameter(context, "qrels"))
    if not params["runs"]:
        raise click.MissingParameter(ctx=context, param=_parameter(context, "runs"))
    import shlex
    typed = (click.get_current_context().obj or {}).get("argv")
    command_line = shlex.join(typed) if typed else None
    if params["provenance"] and params["format"] != "json":
        raise UsageError("--provenance is a JSON record: add --format json (the HTML page always shows it)")
    try:
        call = collect(params)
        from ..cpus import from_environment, limited
        from_environment()                  # a bad LEXEVAL_JOBS is said at once
        with limited(call.reading.jobs):    # every thread and process of the call within --jobs
            run(call, command_line)
    except BrokenPipeError:
        # click's main turns an EPIPE into exit 1, the status of a failed
        # gate; a reader that stops early (| head) is a success
        raise PipeClosed() from None


def _parameter(context, name: str):
    return next(param for param in context.command.params if param.name == name)


#: Reports of their own inputs (other runs' roles, other judgements): they read no --reference measure
INPUT_REPORTS = ("reproduction", "judges", "reusability")


def run(call: Call, command_line: str | None = None) -> None:
    """Evaluate, then print; a failed gate raises :class:`GateFailed`.
    ``command_line``: the command as typed (the page's provenance)."""
    from dataclasses import replace

    from ..api import run_evaluation
    from ..io.runs import keep_freed_memory
    from ..measures.names import output_names
    from ..options import Evaluating, Hooks, Options
    from ..timings import Timings, timed
    keep_freed_memory(largest=256 << 20)       # a command's process is short-lived: its freed arrays are reused
    reading, tests, reports, printing = call.reading, call.significance, call.reports, call.output
    timings = Timings() if printing.timings else None
    bar, stop = progress_reporter()
    client = None
    report_options = None
    if reports.reports:
        from ..reports import ReportOptions
        reference = ("Z" if reading.zscores else "") + output_names(reports.reference)[0]
        report_options = ReportOptions(reference=reference, trials=reports.trials,
                                       fractions=reports.fractions, samples=reports.samples, seed=cast(int, tests.seed),
                                       alpha=tests.alpha, test="t" if tests.test == "none" else tests.test,
                                       permutations=tests.permutations, correction=tests.correction,
                                       label_policy=reports.label_policy,
                                       degradation="degradation" in reports.reports, deltas=reports.deltas,
                                       power=reports.power, original=reports.original,
                                       reproduced=reports.reproduced, replication_qrels=reports.replication_qrels,
                                       cutoffs=reports.cutoffs, rbo_p=reports.rbo_p,
                                       compare_qrels=reports.compare_qrels, judged_at=reports.judged_at,
                                       top_runs=reports.top_runs, run_groups=reports.run_groups,
                                       group_by=reports.group_by, pool_depth=reports.pool_depth,
                                       per_query=printing.per_query, runs=call.runs, reading=reading, warn=_note)
    # what one machine and a cluster both read and compute
    asked = Evaluating(call.measuring.measures or None, Options(reading, call.measuring, tests),
                       extra_measures=tuple(call.gate.gates) +
                       ((reports.reference,) if set(reports.reports) - set(INPUT_REPORTS) else ()),
                       keep_rows=bool({"degradation", "reusability"} & set(reports.reports)))
    try:
        if call.cluster.cluster:
            from ..cluster import connect
            client = connect(call.cluster.cluster)
        hooks = Hooks(warn=_note, timings=timings,
                      progress=bar and (lambda done, total: bar("partitions" if client else "reading runs", done,
                                                                total)),
                      phases=bar if bar and client is None else None)
        # the page shows per-query differences: a cluster brings them back for it
        cluster = replace(call.cluster, per_query=(printing.per_query and not call.cluster.output_dir) or
                          printing.format == "html",
                          output_format=printing.format if printing.format in ("text", "json", "csv") else None)
        evaluation = run_evaluation(call.qrels, list(call.runs), asked, client=client, cluster=cluster, hooks=hooks,
                                    # a cluster brings back the reports' matrices (and the degradation's counts,
                                    # made where the rankings are)
                                    for_reports=report_options if client is not None and reports.reports else None)
        report_source = evaluation
        if client is not None and set(reports.reports) & set(INPUT_REPORTS):
            # judges, reusability and reproduction read runs and judgements again from one machine's
            # rankings: that evaluation is made here (its notes were said once already)
            from ..io.runs import check_rereadable
            check_rereadable([call.qrels, *call.runs], f"--report {'/'.join(INPUT_REPORTS)} with --cluster")
            report_source = run_evaluation(call.qrels, list(call.runs), asked, hooks=Hooks(warn=lambda _: None))
        gate_names = [name for gate in call.gate.gates for name in output_names(gate)]
        verdicts = evaluation.gate_verdicts(gate_names, call.gate.gate_margin, call.gate.gate_test) \
            if gate_names else []
        report_lines = []
        if reports.reports:
            from ..reports import run_reports
            with timed(timings, "reports"):
                report_lines = run_reports(report_source, list(reports.reports), cast(Any, report_options), bar)
    finally:
        stop()
        if client is not None:
            _close(client)
    if verdicts:            # CI's reports first: a report that cannot be written leaves stdout empty
        _write_gate_reports(verdicts, call.gate.gate_report)
    pipe_closed = False
    summary = not printing.no_summary
    try:
        with timed(timings, "output"):
            if printing.provenance:
                _write_provenance(evaluation, command_line)
            if reports.reports:
                _write_reports(evaluation, report_lines, printing.format, printing.plot_dir, command_line)
            elif call.cluster.output_dir:
                _write_measures(evaluation, printing.format, False, summary, command_line=command_line)
                _write_parts(evaluation, printing.format, call.cluster.output_dir)
            else:
                _write_measures(evaluation, printing.format, printing.per_query, summary, verdicts, command_line)
    except BrokenPipeError:
        # the reader stopped early (| head): the gate still decides the status
        pipe_closed = True
    if timings is not None:
        click.echo(f"lexeval: {timings.line()}", err=True)
    if verdicts:
        from ..output.gate_report import failure_line, passed_line, power_warning, reversal_warnings
        warning = power_warning(verdicts)
        if warning:
            click.echo(f"lexeval: {warning}", err=True)
        for line in reversal_warnings(verdicts):
            click.echo(f"lexeval: {line}", err=True)
        failed = [verdict for verdict in verdicts if not verdict.passed]
        for verdict in failed:
            click.echo(f"lexeval: {failure_line(verdict)}", err=True)
        if failed:
            raise GateFailed()
        click.echo(f"lexeval: {passed_line(verdicts)}", err=True)
    if pipe_closed:
        raise PipeClosed()


def _write_gate_reports(verdicts, junit_path: str | None) -> None:
    """--gate-report's JUnit XML (to a temporary name, then renamed: whole or
    absent), and GitHub's job summary where GITHUB_STEP_SUMMARY names one."""
    import os

    from ..output.gate_report import junit_xml, markdown_summary
    if junit_path:
        partial = f"{junit_path}.partial"
        try:
            with open(partial, "w", encoding="utf-8") as out:
                out.write(junit_xml(verdicts))
            os.replace(partial, junit_path)
        except OSError as exc:
            raise OutputError(f"--gate-report {junit_path}: cannot write ({exc.strerror or exc})") from None
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as out:
                out.write(markdown_summary(verdicts))
        except OSError as exc:
            raise OutputError(f"GITHUB_STEP_SUMMARY {summary}: cannot append the gate's summary "
                              f"({exc.strerror or exc})") from None


def _note(text: str) -> None:
    """The command's notes go to standard error (the library's are warnings)."""
    click.echo(f"lexeval: {text}", err=True)


def _write_parts(evaluation, output_format: str, folder: str) -> None:
    """--output: the per-query lines as part files (the cluster's partitions
    wrote theirs; one machine writes one)."""
    parts = evaluation.parts
    if parts is None:                   # one machine: it writes its one part here
        from ..output.records import write_part
        try:
            parts = [write_part(evaluation, folder, 0, output_format)]
        except OSError as exc:
            raise OutputError(f"--output {folder}: cannot write ({exc.strerror or exc})") from None
    click.echo(f"lexeval: wrote {len(parts)} part file{'s' * (len(parts) != 1)} of per-query lines to "
               f"{folder}", err=True)


def _close(client) -> None:
    """Close the client, and the LocalCluster that --cluster local started."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def _write_provenance(evaluation, command_line: str | None) -> None:
    """--provenance: one JSON record before the others."""
    import json

    from ..output.provenance import provenance
    record = {"key": "provenance", "measure": "lexeval", "qid": "all", "value": provenance(evaluation, command_line)}
    _emit(lambda out: out.write(json.dumps(record, ensure_ascii=False) + "\n"))


def _write_measures(evaluation, output_format: str, per_query: bool, summary: bool, verdicts=(),
                    command_line: str | None = None) -> None:
    """Runs' and pairs' lines (text, json, csv: written as produced; json and
    csv end with the gate's verdicts), a table of summary values (table,
    latex, markdown), or the page (html, made whole before a byte is
    written)."""
    if output_format == "html":
        page = evaluation.to_html(command=command_line)
        _emit(lambda out: out.write(page))
        return
    if output_format in TABLE_FORMATS:
        from ..output.tables import latex, markdown, screen_tables, summary_table
        table = summary_table(evaluation, for_paper=output_format != "table", with_lists=output_format != "table")
        if output_format == "table":
            _emit(lambda out: screen_tables(table, out))
        else:
            _emit(lambda out: out.write((latex if output_format == "latex" else markdown)(table)))
        return
    from itertools import chain

    from ..output.records import all_blocks, write
    blocks = all_blocks(evaluation, per_query, summary, batched=output_format == "text")
    if verdicts and output_format in ("json", "csv"):
        from ..output.gate_report import verdict_blocks
        blocks = chain(blocks, verdict_blocks(verdicts))
    # a bar for long outputs, where the output goes to a file or a pipe (not over the bar)
    bar, stop = progress_reporter() if sys.stdout is not None and not sys.stdout.isatty() else (None, lambda: None)
    pairs = 0 if evaluation.pairs is None else len(evaluation.pairs)
    total = len(evaluation.run_names) * (1 + per_query) + (pairs * (1 + summary) if per_query else -(-pairs // 4096))
    try:
        _emit(lambda out: write(blocks, output_format, out, len(evaluation.run_names) > 1,
                                bar and (lambda done: bar("output", min(done, total), total))))
    finally:
        stop()


def _write_reports(evaluation, lines, output_format: str, plot_dir: str | None,
                   command_line: str | None = None) -> None:
    """Reports as four-column records (report, measure, parameter, value),
    as tables, or on the page (html)."""
    if plot_dir:
        from ..output.plots import write_plots
        for path in write_plots(lines, plot_dir):
            click.echo(f"lexeval: wrote {path}", err=True)
    if output_format == "html":
        page = evaluation.to_html(lines, command=command_line)
        _emit(lambda out: out.write(page))
    elif output_format == "table":
        from ..output.report_tables import screen_report_tables
        _emit(lambda out: screen_report_tables(lines, out))
    elif output_format in TABLE_FORMATS:
        from ..output.report_tables import report_tables
        _emit(lambda out: out.write(report_tables(lines, output_format)))
    else:
        from ..output.records import report_blocks, write
        _emit(lambda out: write(report_blocks(lines), output_format, out, True))


def _emit(produce) -> None:
    """Run ``produce(stdout)``; a full disk or a closed stdout is an
    OutputError (exit 2), a pipe closed by the reader is not."""
    out = sys.stdout
    if out is None:
        raise OutputError("standard output is closed; nothing can be printed")
    try:
        produce(out)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write the output: {exc.strerror or exc}") from None


class GateFailed(Exception):
    """At least one run failed the --gate: exit status 1."""


class PipeClosed(Exception):
    """The reader of standard output went away (``| head``): exit status 0."""
