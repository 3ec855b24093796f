"""The ``lexeval`` command: a thin layer over :mod:`lexeval.evaluate`."""

from __future__ import annotations

import io
import sys

import click

from . import __version__
from .errors import InputError, UsageError
from .evaluation import evaluate_rankings, load, select_measures
from .formatting import all_records, write_csv, write_json, write_table, write_text
from .measures import MEASURE_SETS, MEASURES
from .preferences import PREFERENCE_NAMES

HELP = """Evaluate retrieval runs against relevance judgements, like trec_eval,
and compare every pair of runs with lexiprecision and lexirecall.

\b
QRELS  judgements: qid iter docno grade
RUN    results:    qid iter docno rank score [tag]   (one or more; '-' = stdin, .gz ok)

\b
Examples:
  lexeval qrels.txt run.txt                 trec_eval's default measures
  lexeval -q -m map -m P.5,10 qrels run     per-query lines, chosen measures
  lexeval -m all_trec qrels run             every trec_eval measure
  lexeval qrels bm25 dense                  both runs, plus LP/rrLP/LR per pair
  lexeval --format table qrels runs/*       a table for people

With one RUN the output is trec_eval's own text (measure, qid, value).
With two or more, each line starts with the run name, or 'A:B' for a pair.
Exit status: 0 success, 2 bad usage or bad input (file and line named on stderr).
"""


def _list_measures(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    lines = ["Per-run measures (trec_eval names; -m NAME or -m NAME.PARAMS):"]
    for measure in MEASURES:
        params = ""
        if measure.defaults:
            params = "." + ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in measure.defaults)
        elif measure.params == "gains":
            params = "[.level=gain,...]"
        lines.append(f"  {measure.name + params:<42} {measure.help}")
    lines.append("Pair preferences (two or more runs):")
    lines.append("  " + ", ".join(PREFERENCE_NAMES))
    lines.append("Sets: " + ", ".join(list(MEASURE_SETS) + ["all_prefs"]))
    click.echo("\n".join(lines))
    ctx.exit(0)


def _progress_reporter():
    """A progress callback drawing a bar on stderr, only for a person."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import Progress
    progress = Progress(transient=True, console=None)
    task = None

    def report(done, total):
        nonlocal task
        if task is None:
            progress.start()
            task = progress.add_task("reading runs", total=total)
        progress.update(task, completed=done)
    return report, lambda: progress.stop()


@click.command(help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                            "max_content_width": 100})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME[.PARAMS]",
              help="Measure to compute (repeatable): trec_eval names and parameters "
                   "(P.5,10  ndcg_cut.10  ndcg.1=3,2=9), sets (official, all_trec, set, all_prefs), "
                   "preferences (LP, rrLP, LR, rrLR). Default: official (+ LP, rrLP, LR with 2+ runs).")
@click.option("-q", "per_query", is_flag=True, help="Also print a line per query.")
@click.option("-n", "no_summary", is_flag=True, help="No summary ('all') lines.")
@click.option("-l", "level", type=int, default=1, show_default=True, metavar="LEVEL",
              help="A document is relevant iff its grade >= LEVEL.")
@click.option("-M", "depth", type=int, default=None, metavar="DEPTH",
              help="Use only the top DEPTH documents of every ranking.")
@click.option("-c", "complete", is_flag=True,
              help="Average over every qrels query; a query missing from a run scores as an "
                   "empty ranking (and gets per-query lines with -q).")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "csv", "table"]),
              default="text", show_default=True, help="Output format (table: for people).")
@click.option("--jobs", type=int, default=None, metavar="N",
              help="Processes for reading runs (default: all cores).")
@click.option("--list-measures", is_flag=True, expose_value=False, is_eager=True,
              callback=_list_measures, help="List every measure with its defaults and exit.")
@click.version_option(__version__, "--version", prog_name="lexeval")
def command(qrels, runs, measures, per_query, no_summary, level, depth, complete,
            output_format, jobs):
    report, stop = _progress_reporter()
    try:
        selection = select_measures(measures, len(runs))
        rankings = load(qrels, list(runs), level, depth, jobs, progress=report)
        evaluation = evaluate_rankings(rankings, selection.metrics, complete, selection.preferences)
    finally:
        stop()
    records = list(all_records(evaluation, per_query, not no_summary))
    buffer = io.StringIO()  # render fully before writing: nothing half-written
    if output_format == "json":
        write_json(records, buffer)
    elif output_format == "csv":
        write_csv(records, buffer)
    elif output_format == "table":
        write_table(records, buffer)
    else:
        write_text(records, buffer, with_key=len(runs) > 1)
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()


def main(argv=None) -> None:
    """Entry point: run the command, turning input errors into exit 2."""
    try:
        command.main(args=argv, prog_name="lexeval", standalone_mode=False)
    except (InputError, UsageError) as error:
        click.echo(f"lexeval: error: {error}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except BrokenPipeError:
        sys.stderr.close()  # output piped into head: not an error
        sys.exit(0)
    sys.exit(0)
