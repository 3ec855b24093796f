"""The ``lexeval`` click command: options in, one library call, output out.

Everything heavier than click (numpy, pyarrow, scipy) is imported inside the
command, so that ``--help`` answers at once.
"""

from __future__ import annotations

import sys

import click

from .. import __version__
from ..choices import (
    AGGREGATES,
    CORRECTIONS,
    FORMATS,
    GATE_TESTS,
    LABEL_POLICIES,
    REL_FORMATS,
    REPORTS,
    TABLE_FORMATS,
    TESTS,
)
from ..errors import OutputError, UsageError
from .help import HELP, list_measures, list_reports, progress_reporter
from .options import Call, Depth, JudgementFormat, Real, collect, cutoffs_option, fractions_option, run_pair_option


@click.command(help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                            "max_content_width": 100})
@click.argument("qrels", metavar="QRELS", required=False)
@click.argument("runs", nargs=-1, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME[.PARAMS]",
              help="Measure to compute (repeatable): trec_eval names and parameters "
                   "(P.5,10  ndcg_cut.10  ndcg.1=3,2=9  recip_rank.10), ir_measures' names (nDCG@10  AP  "
                   "RR@10  P(rel=2)@10  Judged@10), sets (official, all_trec, set, seeds, lexicographic; "
                   "trec_eval's all_prefs and qrels_jg with -R), preferences (LP, rrLP, LR, rrLR). Default: official "
                   "(+ LP, rrLP, LR with 2+ runs); with -R prefs or qrels_prefs: prefs; with -R qrels_jg: qrels_jg. "
                   "--list-measures shows them all.")
@click.option("-q", "per_query", is_flag=True, help="Also print a line per query.")
@click.option("-n", "no_summary", is_flag=True, help="No summary ('all') lines.")
@click.option("-l", "level", type=int, default=1, show_default=True, metavar="LEVEL",
              help="A document is relevant iff its grade >= LEVEL.")
@click.option("-M", "depth", type=Depth(), default=None, metavar="DEPTH",
              help="Use only the top DEPTH documents of every ranking.")
@click.option("-c", "complete", is_flag=True,
              help="Average over every qrels query; a query missing from a run scores as an "
                   "empty ranking (and gets per-query lines with -q).")
@click.option("-J", "judged_only", is_flag=True,
              help="Judged documents only: unjudged documents are removed from every ranking "
                   "(after -M) before anything is computed, as trec_eval's -J.")
@click.option("-Z", "--zscores", "zscores", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Print every measure as a z-score, Z<measure>: (value - mean) / sd with the mean and sd of "
                   "each query and measure from FILE (lines 'qid measure mean sd'), as trec_eval's -Z; "
                   "-1000000 where FILE has none.")
@click.option("-N", "num_docs", type=click.IntRange(min=0), default=0, show_default=True, metavar="NUM",
              help="Documents in the collection (trec_eval's -N), for utility's non-relevant unretrieved term.")
@click.option("-R", "rel_format", default="qrels", show_default=True, metavar="FORMAT",
              type=JudgementFormat(REL_FORMATS),
              help="trec_eval's judgement format of QRELS: qrels; prefs ('qid group subgroup docno level', "
                   "preference judgements, for the prefs_* measures); qrels_prefs (a qrels read as preferences, "
                   "its second column the judgement group); qrels_jg (a qrels whose second column names the "
                   "judgement group, e.g. the assessor, for map_avgjg, P_avgjg, Rprec_mult_avgjg). Other measures "
                   "read each document's highest grade over the groups (prefs: 1 if some level is above 0). "
                   "Diversity judgements: --subtopics.")
@click.option("-T", "results_format", default="trec_results", show_default=True, metavar="FORMAT",
              help="trec_eval's results format: trec_results (MS MARCO run files are recognised by themselves).")
@click.option("-D", "debug_level", default=None, metavar="LEVEL", hidden=True)
# pref_eval's options: the ones lexeval has work, the others say what lexeval offers instead
@click.option("--query_eval_wanted", "per_query_pref_eval", is_flag=True, hidden=True)
@click.option("--nosummary", "no_summary_pref_eval", is_flag=True, hidden=True)
@click.option("--topk", "topk", type=click.IntRange(min=1), default=None, hidden=True)
@click.option("--qrels", "pref_eval_qrels", default=None, hidden=True)
@click.option("--measure_set", "pref_eval_measure_set", default=None, hidden=True)
@click.option("-b", "--binary_relevance", "pref_eval_binary", default=None, hidden=True)
@click.option("-f", "--relevance_floor", "pref_eval_floor", default=None, hidden=True)
@click.option("--query_fraction", "pref_eval_query_fraction", default=None, hidden=True)
@click.option("--label_fraction", "pref_eval_label_fraction", default=None, hidden=True)
@click.option("--label_fraction_policy", "pref_eval_label_policy", default=None, hidden=True)
@click.option("-o", "obsolete_o", is_flag=True, hidden=True)
@click.option("--subtopics", is_flag=True,
              help="QRELS holds diversity judgements, 'qid subtopic docno grade' (a docno once per subtopic); "
                   "ordinary measures use each document's highest grade. Implied by a diversity measure "
                   "(alpha_nDCG@k, ERR_IA@k, nERR_IA@k, NRBP, nNRBP, P_IA@k, AP_IA, StRecall@k).")
@click.option("--format", "output_format", type=click.Choice(FORMATS),
              default="text", show_default=True,
              help="Output format: text (trec_eval's), json and csv (four columns); table (for people, "
                   "fitted to the terminal), latex and markdown (a table of summary values for a paper); html "
                   "(one self-contained page: summary table, pair matrices, per-query differences, reports).")
@click.option("--test", "test", type=click.Choice(TESTS), default="t",
              show_default=True, help="Paired test for per-run metrics (none: no p-values).")
@click.option("--permutations", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Sign flips for --test randomization.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of --test randomization and of the reports' sampling.")
@click.option("--correction", type=click.Choice(CORRECTIONS), default="none",
              show_default=True, help="Adjust each measure's p-values over all pairs printed.")
@click.option("--alpha", type=Real(0, 1), default=0.05, show_default=True,
              help="Significance level for the gate and the table's markers.")
@click.option("--ci", "intervals", is_flag=True,
              help="Also confidence intervals of every tested difference (<measure>_ci_low, _ci_high) and "
                   "standardized effect sizes (<measure>_effect: mean difference over its standard deviation); "
                   "t-based with --test t, percentile bootstrap over queries otherwise and for preferences.")
@click.option("--confidence", type=Real(0, 1), default=0.95, show_default=True, metavar="C",
              help="Confidence level of --ci.")
@click.option("--resamples", type=click.IntRange(min=10), default=2000, show_default=True, metavar="N",
              help="Bootstrap resamples of the queries for --ci (seeded by --seed).")
@click.option("--aggregate", type=click.Choice(AGGREGATES), default="mean", show_default=True,
              help="How <pref>_score and <pref>_rank rank the runs from per-query preferences: mean preference, "
                   "borda (Borda count over the per-query orders), mc4 (Markov-chain aggregation).")
@click.option("--pair-metrics", is_flag=True,
              help="Also every metric as a preference: per pair, the mean difference (<measure>), "
                   "<measure>_win, _loss and _tie over the queries (per query with -q).")
@click.option("--hsd", is_flag=True,
              help="Also Tukey HSD p-values (<measure>_hsd_p), two-way ANOVA over runs and queries.")
@click.option("--baseline", metavar="RUN", default=None,
              help="Compare (and test) every run with this run only (its name, e.g. 'bm25').")
@click.option("--gate", "gates", multiple=True, metavar="MEASURE",
              help="With --baseline: exit 1 if a run is significantly worse than the baseline "
                   "on MEASURE (repeatable, e.g. --gate map --gate LP).")
@click.option("--gate-margin", type=Real(0, None), default=0.0, show_default=True,
              metavar="D", help="Tolerate drops smaller than D on gate measures.")
@click.option("--gate-test", "gate_test", type=click.Choice(GATE_TESTS), default="worse", show_default=True,
              help="The gate's rule: worse (fail where a run is significantly worse than the baseline by more than "
                   "the margin) or non-inferiority (pass only where a one-sided t-test shows a run is not worse "
                   "by --gate-margin D or more). Either way a warning says where the gate's power to see a drop "
                   "of D is below 0.8, and how many queries would give 0.8.")
@click.option("--gate-report", "gate_report", metavar="FILE", default=None,
              help="With --gate: write the verdicts as a JUnit XML report to FILE (a test case per candidate run "
                   "and gate measure; GitHub, GitLab and Jenkins read it). Where GITHUB_STEP_SUMMARY is set, the "
                   "gate also appends a Markdown table to that file.")
@click.option("--report", "reports", multiple=True, type=click.Choice(REPORTS),
              help="Print an analysis instead of the measures (repeatable): ties, agreement, "
                   "discrimination, stability, degradation, power (queries needed to see --delta), "
                   "reproduction (repro_eval's measures of --original against --reproduced), judges (other judgements, "
                   "--compare-qrels), reusability (leave-one-run/group-out). --list-reports says more. "
                   "Needs 2+ runs.")
@click.option("--reference", default="recip_rank", show_default=True, metavar="MEASURE",
              help="Reference measure of the agreement and stability reports.")
@click.option("--trials", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Random halves of the queries for the stability report.")
@click.option("--fractions", default="1,0.8,0.6,0.4,0.2", show_default=True, callback=fractions_option,
              help="Fractions of relevant labels kept, for the degradation report.")
@click.option("--samples", type=click.IntRange(min=1), default=10, show_default=True,
              help="Random label removals per fraction, for the degradation report.")
@click.option("--label-policy", type=click.Choice(LABEL_POLICIES), default="random", show_default=True,
              help="Which relevant labels the degradation report keeps: random, or pool (those of the documents "
                   "most runs retrieve, as pref_eval's pool policy).")
@click.option("--delta", "deltas", multiple=True, type=Real(0, None), metavar="D",
              help="The power report's minimum detectable difference (repeatable; default: a quarter, a half and "
                   "one standard deviation of a paired difference, per measure).")
@click.option("--power", type=Real(0, 1), default=0.8, show_default=True, metavar="P",
              help="The power the power report asks for (the gate's warning is at 0.8).")
@click.option("--original", type=str, default=None, callback=run_pair_option, metavar="BASE,ADV",
              help="The reproduction report's original baseline and advanced runs (run names).")
@click.option("--reproduced", type=str, default=None, callback=run_pair_option, metavar="BASE,ADV",
              help="The reproduction report's reproduced baseline and advanced runs (run names).")
@click.option("--replication-qrels", "replication_qrels", metavar="FILE", default=None,
              help="Evaluate the --reproduced runs on these judgements (another collection): the reproduction "
                   "report then measures replicability (ER, DeltaRI, unpaired t-test).")
@click.option("--cutoffs", default="5,10,20,50,100,1000", show_default=True, callback=cutoffs_option,
              metavar="K,...", help="Ranks of the reproduction report's KTU@k and RBO@k.")
@click.option("--rbo-p", "rbo_p", type=Real(0, 1), default=None, metavar="P",
              help="Persistence of rank-biased overlap, in (0, 1) (default: 0.95 in the reproduction report, "
                   "as repro_eval; 0.9 in the judges report).")
@click.option("--compare-qrels", "compare_qrels", multiple=True, metavar="FILE",
              help="The judges report's other judgement sets (repeatable; any qrels format lexeval reads): each "
                   "one's leaderboards, significance and grades against QRELS'.")
@click.option("--judged-at", "judged_at", type=click.IntRange(min=1), default=10, show_default=True, metavar="K",
              help="The judges report's depth for each run's share of judged documents.")
@click.option("--group-by", "group_by", metavar="SEPARATOR", default=None,
              help="The reusability report takes runs out by group: the run name up to SEPARATOR (a team's "
                   "runs, as TREC does); default: each run alone.")
@click.option("--pool-depth", "pool_depth", type=click.IntRange(min=1), default=100, show_default=True,
              metavar="K", help="The depth the reusability report's pool was made to.")
@click.option("--list-reports", is_flag=True, expose_value=False, is_eager=True, callback=list_reports,
              help="List the reports with one line each, and exit.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write the reports' figures (PNG and SVG) to DIR; needs lexeval[plot].")
@click.option("--rarity-weight", type=Real(0, 1), default=0.5, show_default=True, metavar="W",
              help="alpha of the rareness measures P_rare, P_rare_norm, map_rare (0: P and map).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes for reading runs (default: all cores).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Evaluate on a Dask cluster, sharded by query: a scheduler's address (tcp://host:8786), or "
                   "'local' for this machine's cores. Inputs are paths or fsspec URLs (s3://, gs://, file://) the "
                   "workers read themselves, or '-' (read here); the output is the same as on one machine. Needs "
                   "lexeval[dask] here; workers need Dask and lexeval's dependencies.")
@click.option("--output", "output_dir", metavar="DIR", default=None,
              help="With -q: write the per-query lines to DIR (a folder or fsspec URL) as part files "
                   "(part-00000.txt ..., one per --cluster partition, else one), whole or not at all; the summary "
                   "lines still go to standard output.")
@click.option("-v", "--verbose", is_flag=True,
              help="List every run's dropped queries on standard error (with many runs they are summed up "
                   "in one line).")
@click.option("--timings", is_flag=True,
              help="After the output, print on standard error the seconds spent reading (with MB/s), "
                   "on measures, on pairs and on output; with --cluster, the workers' processor seconds "
                   "and peak memory.")
@click.option("--provenance", is_flag=True,
              help="With --format json: a first record (key 'provenance') naming the command as typed, each "
                   "input's size and SHA-256 prefix, the options that change numbers, lexeval's version and the "
                   "date (the HTML page always shows them).")
@click.option("--list-measures", is_flag=True, expose_value=False, is_eager=True,
              callback=list_measures, help="List every measure with its syntax, defaults and a description, "
                                            "and exit.")
@click.option("--cite", is_flag=True,
              help="Print BibTeX entries for lexeval and the papers and tools behind the measures asked with -m "
                   "(or behind the default call), and exit; QRELS and RUN may be left out.")
@click.version_option(__version__, "--version", prog_name="lexeval")
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
    provenance = params.pop("provenance")
    if provenance and params["output_format"] != "json":
        raise UsageError("--provenance is a JSON record: add --format json (the HTML page always shows it)")
    try:
        run(collect(params), command_line, provenance)
    except BrokenPipeError:
        # click's main turns an EPIPE into exit 1, the status of a failed
        # gate; a reader that stops early (| head) is a success
        raise PipeClosed() from None


def _parameter(context, name: str):
    return next(param for param in context.command.params if param.name == name)


#: Reports of their own inputs (other runs' roles, other judgements): they read no --reference measure
INPUT_REPORTS = ("reproduction", "judges", "reusability")


def run(call: Call, command_line: str | None = None, provenance: bool = False) -> None:
    """Evaluate, then print; a failed gate raises :class:`GateFailed`.
    ``command_line``: the command as typed (the page's provenance);
    ``provenance``: a first JSON record of where the result came from."""
    from ..api import run_evaluation
    from ..measures.names import output_names
    from ..timings import Timings, timed
    reading, tests, reports = call.reading, call.tests, call.reports
    timings = Timings() if call.printing.timings else None
    bar, stop = progress_reporter()
    client = None
    report_options = None
    if reports.names:
        from ..reports import ReportOptions
        reference = ("Z" if reading.zscores else "") + output_names(reports.reference)[0]
        report_options = ReportOptions(reference=reference, trials=reports.trials,
                                       fractions=reports.fractions, samples=reports.samples, seed=tests.seed,
                                       alpha=tests.alpha, test="t" if tests.test == "none" else tests.test,
                                       permutations=tests.permutations, correction=tests.correction,
                                       label_policy=reports.label_policy,
                                       degradation="degradation" in reports.names, deltas=reports.deltas,
                                       power=reports.power, original=reports.original,
                                       reproduced=reports.reproduced, replication_qrels=reports.replication_qrels,
                                       cutoffs=reports.cutoffs, rbo_p=reports.rbo_p,
                                       compare_qrels=reports.compare_qrels, judged_at=reports.judged_at,
                                       group_by=reports.group_by, pool_depth=reports.pool_depth,
                                       per_query=call.printing.per_query, runs=reading.runs,
                                       reading={"depth": reading.depth, "judged_only": reading.judged_only,
                                                "jobs": reading.jobs},
                                       warn=_note)
    try:
        if reading.cluster:
            from ..cluster import connect
            client = connect(reading.cluster)
        # what one machine and a cluster both read and compute
        common = {"level": reading.level, "depth": reading.depth, "complete": reading.complete,
                      "judged_only": reading.judged_only, "options": tests, "rarity_weight": reading.rarity_weight,
                      "aggregate": call.aggregate, "pair_metrics": call.pair_metrics, "subtopics": reading.subtopics,
                      "zscores": reading.zscores, "num_docs": reading.num_docs, "rel_format": reading.rel_format,
                      "extra_measures": list(call.gate.measures) +
                      ([reports.reference] if set(reports.names) - set(INPUT_REPORTS) else []),
                      "keep_rows": bool({"degradation", "reusability"} & set(reports.names)), "jobs": reading.jobs}
        evaluation = run_evaluation(reading.qrels, list(reading.runs), reading.measures or None, **common,
                              progress=bar and (lambda done, total: bar("partitions" if client else "reading runs",
                                                                        done, total)),
                              timings=timings, verbose=reading.verbose, client=client, warn=_note,
                              **({"phases": bar} if bar and client is None else {}),
                              # the page shows per-query differences: a cluster brings them back for it
                              per_query=(call.printing.per_query and not call.printing.output_dir) or
                              call.printing.format == "html",
                              # a cluster brings back the reports' matrices (and the degradation's counts, made
                              # where the rankings are)
                              for_reports=report_options if client is not None and reports.names else None,
                              output_dir=call.printing.output_dir, output_format=call.printing.format)
        report_source = evaluation
        if client is not None and set(reports.names) & set(INPUT_REPORTS):
            # judges, reusability and reproduction read runs and judgements again from one machine's
            # rankings: that evaluation is made here (its notes were said once already)
            from ..io.runs import check_rereadable
            check_rereadable([reading.qrels, *reading.runs], f"--report {'/'.join(INPUT_REPORTS)} with --cluster")
            report_source = run_evaluation(reading.qrels, list(reading.runs), reading.measures or None, **common,
                                           warn=lambda _: None)
        gate_names = [name for gate in call.gate.measures for name in output_names(gate)]
        verdicts = evaluation.gate_verdicts(gate_names, call.gate.margin, call.gate.test) if gate_names else []
        report_lines = []
        if reports.names:
            from ..reports import run_reports
            with timed(timings, "reports"):
                report_lines = run_reports(report_source, list(reports.names), report_options, bar)
    finally:
        stop()
        if client is not None:
            _close(client)
    printing = call.printing
    if verdicts:            # CI's reports first: a report that cannot be written leaves stdout empty
        _write_gate_reports(verdicts, call.gate.report)
    pipe_closed = False
    try:
        with timed(timings, "output"):
            if provenance:
                _write_provenance(evaluation, command_line)
            if reports.names:
                _write_reports(evaluation, report_lines, printing.format, printing.plot_dir, command_line)
            elif printing.output_dir:
                _write_measures(evaluation, printing.format, False, printing.summary, command_line=command_line)
                _write_parts(evaluation, printing)
            else:
                _write_measures(evaluation, printing.format, printing.per_query, printing.summary, verdicts,
                                command_line)
    except BrokenPipeError:
        # the reader stopped early (| head): the gate still decides the status
        pipe_closed = True
    if timings is not None:
        click.echo(f"lexeval: {timings.line()}", err=True)
    if verdicts:
        from ..output.gate_report import failure_line, passed_line, power_warning
        warning = power_warning(verdicts)
        if warning:
            click.echo(f"lexeval: {warning}", err=True)
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


def _write_parts(evaluation, printing) -> None:
    """--output: the per-query lines as part files (the cluster's partitions
    wrote theirs; one machine writes one)."""
    parts = evaluation.parts
    if parts is None:                   # one machine: it writes its one part here
        from ..output.records import write_part
        try:
            parts = [write_part(evaluation, printing.output_dir, 0, printing.format)]
        except OSError as exc:
            raise OutputError(f"--output {printing.output_dir}: cannot write ({exc.strerror or exc})") from None
    click.echo(f"lexeval: wrote {len(parts)} part file{'s' * (len(parts) != 1)} of per-query lines to "
               f"{printing.output_dir}", err=True)


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
        from ..output.tables import screen_report_tables
        _emit(lambda out: screen_report_tables(lines, out))
    elif output_format in TABLE_FORMATS:
        from ..output.tables import report_tables
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
