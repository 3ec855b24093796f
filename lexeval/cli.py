"""The ``lexeval`` command: a thin layer over :mod:`lexeval.evaluate`."""

from __future__ import annotations

import sys

import click

from . import __version__
from .errors import InputError, OutputError, UsageError
from .names import CORRECTIONS, FORMATS, PREFERENCE_NAMES, REPORTS, TESTS

# Everything heavier (numpy, pyarrow, scipy) is imported inside the command,
# so that --version and --help answer at once.

TABLE_FORMATS = ("table", "latex", "markdown")

HELP = """Evaluate retrieval runs against relevance judgements, like trec_eval,
and compare every pair of runs with lexiprecision and lexirecall.

\b
QRELS  judgements: qid iter docno grade
RUN    results:    qid iter docno rank score [tag], or MS MARCO's qid docid rank
       (one or more; '-' = stdin, .gz ok; identifiers compared byte for byte)

\b
Examples:
  lexeval qrels.txt run.txt                 trec_eval's default measures
  lexeval -q -m map -m P.5,10 qrels run     per-query lines, chosen measures
  lexeval -m nDCG@10 -m RR@10 qrels run     ir_measures' names work too
  lexeval -m all_trec qrels run             every trec_eval measure
  lexeval qrels bm25 dense                  both runs, plus LP/rrLP/LR per pair
  lexeval --format table qrels runs/*       a table for people
  lexeval --format latex --baseline bm25 --ci qrels bm25 dense   a table for a paper

With one RUN the output is trec_eval's own text (measure, qid, value).
With two or more, each line starts with the run name, or 'A:B' for a pair,
and every difference is tested: <measure>_p lines (paired t-test, or
--test randomization; sign test for LP/LR; one-sample t-test for rrLP/rrLR).

\b
CI gate:
  lexeval qrels base.run new.run --baseline base --gate map --gate LP
fails (exit 1, one line per failure on stderr) when new.run is worse than
base on a gate measure with p < --alpha.

Exit status: 0 success, 1 a --gate failed, 2 bad usage or bad input,
3 an internal error (a bug in lexeval: please report it).
"""


PREFERENCE_HELP = {
    "LP": "lexiprecision: the first recall level where two runs' relevant ranks differ decides (+1 A, -1 B).",
    "rrLP": "1/p_A - 1/p_B at lexiprecision's deciding level (1/missing = 0).",
    "LR": "lexirecall: more relevant retrieved wins; equal counts: compare from the lowest relevant up.",
    "rrLR": "1/p_A - 1/p_B at lexirecall's deciding level.",
}
SYNTAX = {"utility": "utility.1,-1,0,0", "set_F": "set_F.0.5", "relstring": "relstring.20",
          "11pt_avg": "11pt_avg.0.25,0.5,0.75", "rbp": "rbp.p=0.95", "rbp_resid": "rbp_resid.p=0.95"}


def measure_syntax(measure) -> str:
    """How to ask for a measure with parameters, e.g. P.5,10 or ndcg.1=3,2=9."""
    if measure.name in SYNTAX:
        return SYNTAX[measure.name]
    if measure.params in ("cutoffs", "fractions"):
        shown = measure.defaults[:2] if len(measure.defaults) > 1 else (measure.defaults or (10,))
        return f"{measure.stem}." + ",".join(f"{v:g}" for v in shown)
    if measure.params == "gains":
        return f"{measure.name}.1=3,2=9"
    return measure.name


def measure_description(measure) -> str:
    """The measure's description: its help, or its function's docstring's
    first paragraph, without the leading 'name:'."""
    text = " ".join(measure.help.split())
    if measure.compute is not None and measure.compute.__doc__ and not measure.help_is_set:
        paragraph = measure.compute.__doc__.strip().split("\n\n")[0]
        text = " ".join(paragraph.replace("``", "").split())
    head, colon, rest = text.partition(": ")
    if colon and head.split(".")[0].split(" ")[0] in (measure.name, measure.stem):
        starts_a_word = rest[:2].isalpha() and rest[:2].islower()        # not "a*relret", not "nDCG"
        text = rest[:1].upper() + rest[1:] if starts_a_word else rest
    if measure.defaults and measure.params in ("cutoffs", "fractions", "values"):
        text += " Default: " + ",".join(f"{v:g}" for v in measure.defaults) + "."
    return text


def _list_measures(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    import shutil
    import textwrap
    from .measures import MEASURE_SETS, MEASURES
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))

    def entry(name: str, description: str) -> list[str]:
        return textwrap.wrap(description, width, initial_indent=f"  {name:<24}  ", subsequent_indent=" " * 28)
    lines = ["Per-run measures: -m NAME, or with parameters as shown (trec_eval's syntax):"]
    for measure in MEASURES:
        lines += entry(measure_syntax(measure), measure_description(measure))
    lines += ["", "ir_measures' names work too: nDCG@10, AP, AP@100, RR@10, R@1000, P(rel=2)@10,",
              "Judged@10, Success@1, Rprec, Bpref, infAP, NumRet, NumRel, NumRelRet, RBP(p=0.8);",
              "output keeps trec_eval's names (README: \"Measure names\").", "",
              "Pair preferences (two or more runs): -m NAME"]
    for name in PREFERENCE_NAMES:
        lines += entry(name, PREFERENCE_HELP[name])
    lines += ["", "Sets: " + ", ".join(list(MEASURE_SETS) + ["all_prefs"])
              + " (default: official, plus LP, rrLP, LR with two or more runs)"]
    click.echo("\n".join(lines))
    ctx.exit(0)


def _progress_reporter():
    """A progress callback ``(label, done, total)`` drawing bars on stderr,
    only for a person at a terminal."""
    if not sys.stderr.isatty():
        return None, lambda: None
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:                     # bars are a comfort, not a reason to fail
        return None, lambda: None
    progress = Progress(transient=True, console=Console(stderr=True))
    tasks: dict[str, int] = {}

    def report(label, done, total):
        if not tasks:
            progress.start()
        if label not in tasks:
            tasks[label] = progress.add_task(label, total=total)
        progress.update(tasks[label], completed=done)
    return report, lambda: progress.stop()


class Real(click.ParamType):
    """A real number in [low, high] (either end may be open-ended); NaN is
    refused, since every comparison with it is false and would silently
    turn a check off."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(value)
            except ValueError:
                self.fail(f"'{value}' is not a number", param, ctx)
        import math
        if math.isnan(number) or (self.low is not None and number < self.low) or \
                (self.high is not None and number > self.high):
            low = "-inf" if self.low is None else f"{self.low:g}"
            high = "inf" if self.high is None else f"{self.high:g}"
            self.fail(f"{value} is not in [{low}, {high}]", param, ctx)
        return number


def _fractions(_ctx, _param, value):
    try:
        fractions = tuple(float(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("give fractions like 1,0.8,0.6") from None
    if not all(0 < f <= 1 for f in fractions):
        raise click.BadParameter("fractions must be in (0, 1]")
    return fractions


@click.command(help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                            "max_content_width": 100})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME[.PARAMS]",
              help="Measure to compute (repeatable): trec_eval names and parameters "
                   "(P.5,10  ndcg_cut.10  ndcg.1=3,2=9  recip_rank.10), ir_measures' names (nDCG@10  AP  "
                   "RR@10  P(rel=2)@10  Judged@10), sets (official, all_trec, set, seeds, all_prefs), "
                   "preferences (LP, rrLP, LR, rrLR). Default: official (+ LP, rrLP, LR with 2+ runs). "
                   "--list-measures shows them all.")
@click.option("-q", "per_query", is_flag=True, help="Also print a line per query.")
@click.option("-n", "no_summary", is_flag=True, help="No summary ('all') lines.")
@click.option("-l", "level", type=int, default=1, show_default=True, metavar="LEVEL",
              help="A document is relevant iff its grade >= LEVEL.")
@click.option("-M", "depth", type=int, default=None, metavar="DEPTH",
              help="Use only the top DEPTH documents of every ranking.")
@click.option("-c", "complete", is_flag=True,
              help="Average over every qrels query; a query missing from a run scores as an "
                   "empty ranking (and gets per-query lines with -q).")
@click.option("-J", "judged_only", is_flag=True,
              help="Judged documents only: unjudged documents are removed from every ranking "
                   "(after -M) before anything is computed, as trec_eval's -J.")
@click.option("--format", "output_format", type=click.Choice(FORMATS),
              default="text", show_default=True,
              help="Output format: text (trec_eval's), json and csv (four columns); table (for people, "
                   "fitted to the terminal), latex and markdown (a table of summary values for a paper).")
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
@click.option("--hsd", is_flag=True,
              help="Also Tukey HSD p-values (<measure>_hsd_p), two-way ANOVA over runs and queries.")
@click.option("--baseline", metavar="RUN", default=None,
              help="Compare (and test) every run with this run only (its name, e.g. 'bm25').")
@click.option("--gate", "gates", multiple=True, metavar="MEASURE",
              help="With --baseline: exit 1 if a run is significantly worse than the baseline "
                   "on MEASURE (repeatable, e.g. --gate map --gate LP).")
@click.option("--gate-margin", type=Real(0, None), default=0.0, show_default=True,
              metavar="D", help="Tolerate drops smaller than D on gate measures.")
@click.option("--report", "reports", multiple=True, type=click.Choice(REPORTS),
              help="Print an analysis instead of the measures (repeatable): ties, agreement, "
                   "discrimination, stability, degradation. Needs 2+ runs.")
@click.option("--reference", default="recip_rank", show_default=True, metavar="MEASURE",
              help="Reference measure of the agreement and stability reports.")
@click.option("--trials", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Random halves of the queries for the stability report.")
@click.option("--fractions", default="1,0.8,0.6,0.4,0.2", show_default=True, callback=_fractions,
              help="Fractions of relevant labels kept, for the degradation report.")
@click.option("--samples", type=click.IntRange(min=1), default=10, show_default=True,
              help="Random label removals per fraction, for the degradation report.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Write the reports' figures (PNG and SVG) to DIR; needs lexeval[plot].")
@click.option("--rarity-weight", type=Real(0, 1), default=0.5, show_default=True, metavar="W",
              help="alpha of the rareness measures P_rare, P_rare_norm, map_rare (0: P and map).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes for reading runs (default: all cores).")
@click.option("-v", "--verbose", is_flag=True,
              help="List every run's dropped queries on standard error (with many runs they are summed up "
                   "in one line).")
@click.option("--timings", is_flag=True,
              help="After the output, print on standard error the seconds spent reading (with MB/s), "
                   "on measures, on pairs and on output.")
@click.option("--list-measures", is_flag=True, expose_value=False, is_eager=True,
              callback=_list_measures, help="List every measure with its syntax, defaults and a description, "
                                            "and exit.")
@click.version_option(__version__, "--version", prog_name="lexeval")
def command(qrels, runs, measures, per_query, no_summary, level, depth, complete, judged_only,
            output_format, test, permutations, seed, correction, alpha, intervals, confidence, resamples, hsd,
            baseline, gates,
            gate_margin, reports, reference, trials, fractions, samples, plot_dir, rarity_weight, jobs, verbose, timings):
    from .evaluation import SignificanceOptions, Timings, evaluate, gate_failures, timed
    from .names import output_names
    _check_usage(runs, test, gates, baseline, reports, plot_dir, output_format, per_query, no_summary,
                 intervals, confidence)
    options = SignificanceOptions(test=test, permutations=permutations, seed=seed, correction=correction,
                                  hsd=hsd, alpha=alpha, baseline=baseline, ci=intervals, confidence=confidence,
                                  resamples=resamples)
    timings = Timings() if timings else None
    bar, stop = _progress_reporter()
    try:
        evaluation = evaluate(qrels, list(runs), measures or None, level, depth, complete, jobs, options,
                              rarity_weight, extra_measures=list(gates) + ([reference] if reports else []),
                              keep_rows="degradation" in reports, judged_only=judged_only,
                              progress=bar and (lambda done, total: bar("reading runs", done, total)),
                              timings=timings, verbose=verbose)
        gate_names = [name for gate in gates for name in output_names(gate)]
        failures = gate_failures(evaluation, gate_names, gate_margin) if gates else []
        report_lines = []
        if reports:
            from .reports import ReportOptions, run_reports
            report_options = ReportOptions(reference=output_names(reference)[0], trials=trials,
                                           fractions=fractions, samples=samples, seed=seed, alpha=alpha,
                                           test="t" if test == "none" else test,
                                           permutations=permutations, correction=correction)
            with timed(timings, "reports"):
                report_lines = run_reports(evaluation, list(reports), report_options, bar)
    finally:
        stop()
    with timed(timings, "output"):
        if reports:
            _write_reports(report_lines, output_format, plot_dir)
        else:
            _write_measures(evaluation, output_format, per_query, not no_summary)
    if timings is not None:
        click.echo(f"lexeval: {timings.line()}", err=True)
    if reports:
        return
    for failure in failures:
        click.echo(f"lexeval: gate failed: {failure.run} is worse than {baseline} on {failure.measure}: "
                   f"difference {failure.difference:+.4f}, p = {failure.p:.4g}", err=True)
    if failures:
        raise GateFailed()


def _check_usage(runs, test, gates, baseline, reports, plot_dir, output_format, per_query, no_summary,
                 intervals, confidence) -> None:
    """Option combinations that cannot work, before any file is read."""
    if output_format in TABLE_FORMATS and per_query:
        raise UsageError(f"-q with --format {output_format}: the table shows summary values; "
                         "use text, json or csv for per-query lines")
    if output_format in TABLE_FORMATS and no_summary:
        raise UsageError(f"-n with --format {output_format}: the table is made of summary values")
    if intervals and test == "none":
        raise UsageError("--ci needs the tests: use --test t or --test randomization")
    if confidence <= 0 or confidence >= 1:
        raise UsageError("--confidence must be between 0 and 1 (e.g. 0.95)")
    if gates and not baseline:
        raise UsageError("--gate needs --baseline RUN (the run to compare with)")
    if gates and len(runs) < 2:
        raise UsageError("--gate compares runs with the baseline: give two or more runs")
    if gates and test == "none":
        raise UsageError("--gate needs p-values: use --test t or --test randomization")
    if reports and len(runs) < 2:
        raise UsageError("--report compares runs: give two or more")
    if plot_dir and not reports:
        raise UsageError("--plot draws the reports' figures: add --report")
    if plot_dir:
        from .plots import check_matplotlib, make_directory
        check_matplotlib()
        make_directory(plot_dir)


def _write_measures(evaluation, output_format: str, per_query: bool, summary: bool) -> None:
    """Runs' and pairs' lines (text, json, csv: written as produced), or a
    table of summary values (table, latex, markdown)."""
    if output_format in TABLE_FORMATS:
        from .tables import latex, markdown, screen_tables, summary_table
        table = summary_table(evaluation, for_paper=output_format != "table")
        if output_format == "table":
            _emit(lambda out: screen_tables(table, out))
        else:
            _emit(lambda out: out.write((latex if output_format == "latex" else markdown)(table)))
        return
    from .formatting import all_blocks, write
    _emit(lambda out: write(all_blocks(evaluation, per_query, summary), output_format, out,
                            len(evaluation.run_names) > 1))


def _write_reports(lines, output_format: str, plot_dir: str | None) -> None:
    """Reports as four-column records (report, measure, parameter, value),
    or as tables."""
    if plot_dir:
        from .plots import write_plots
        for path in write_plots(lines, plot_dir):
            click.echo(f"lexeval: wrote {path}", err=True)
    if output_format == "table":
        from .tables import screen_report_tables
        _emit(lambda out: screen_report_tables(lines, out))
    elif output_format in TABLE_FORMATS:
        from .tables import report_tables
        _emit(lambda out: out.write(report_tables(lines, output_format)))
    else:
        from .formatting import report_blocks, write
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


def main(argv=None) -> None:
    """Entry point: run the command, turning input errors into exit 2."""
    # identifiers that are not UTF-8 are held as surrogates: print their bytes
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape" if stream is sys.stdout else "backslashreplace")
    try:
        command.main(args=argv, prog_name="lexeval", standalone_mode=False)
    except (InputError, UsageError, OutputError) as error:
        click.echo(f"lexeval: error: {error}", err=True)
        sys.exit(2)
    except GateFailed:
        sys.exit(1)
    except ModuleNotFoundError as error:
        # a dependency missing from this Python (e.g. rich for --format table)
        package = (error.name or "?").split(".")[0]
        if package == "lexeval":
            _internal_error(error)
        click.echo(f"lexeval: error: this needs the Python package '{package}', which is not installed "
                   f"here (pip install {package}, or reinstall lexeval)", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.UsageError as error:
        # click's own usage errors (an unknown option, a bad value) read like
        # every other usage error: "lexeval: error: ...", exit 2
        if error.ctx is not None:
            click.echo(error.ctx.get_usage(), err=True)
            click.echo("Try 'lexeval -h' for help.", err=True)
        click.echo(f"lexeval: error: {error.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"lexeval: error: {error.format_message()}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        # output piped into head: not an error. Point stdout at /dev/null so
        # that the interpreter's final flush does not complain either.
        import os
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        sys.exit(0)
    except Exception as error:                  # a bug: never a traceback, never exit 1
        _internal_error(error)
    sys.exit(0)


INTERNAL_ERROR_STATUS = 3


def _internal_error(error: Exception) -> None:
    """Report an unexpected exception as lexeval's bug, exit status 3.

    Set LEXEVAL_TRACEBACK=1 to see the traceback as well."""
    import os
    import traceback
    from . import __version__
    if os.environ.get("LEXEVAL_TRACEBACK"):
        traceback.print_exc()
    package = os.path.dirname(os.path.abspath(__file__))
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(frame.filename).startswith(package)]
    where = f" (at {os.path.relpath(frames[-1].filename, os.path.dirname(package))}:{frames[-1].lineno})" \
        if frames else ""
    click.echo(f"lexeval: internal error: {type(error).__name__}: {error}{where}", err=True)
    click.echo(f"lexeval: this is a bug in lexeval {__version__}; please report it with the command "
               "that caused it (LEXEVAL_TRACEBACK=1 shows the traceback)", err=True)
    sys.exit(INTERNAL_ERROR_STATUS)
