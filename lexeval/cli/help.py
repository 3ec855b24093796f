"""What the command says about itself: ``--help``'s text and
``--list-measures`` (read off the measure table, so it is always current)."""

from __future__ import annotations

import shutil
import sys
import textwrap

import click

from ..bounds.lexical import BOUNDED_PREFERENCES
from ..choices import PREFERENCE_ALIASES, PREFERENCE_SETS, PREFERENCES

HELP = """Evaluate retrieval runs against relevance judgements, like trec_eval,
and compare every pair of runs with lexiprecision and lexirecall.

\b
QRELS  judgements: qid iter docno grade
RUN    results:    qid iter docno rank score [tag], or MS MARCO's qid docid rank
       (one or more; '-' = stdin; gzip, bzip2, xz, zstd and Parquet read as
       such; NAME=PATH names a run; identifiers compared byte for byte)

\b
Examples:
  lexeval qrels.txt run.txt                 trec_eval's default measures
  lexeval -q -m map -m P.5,10 qrels run     per-query lines, chosen measures
  lexeval -m nDCG@10 -m RR@10 qrels run     ir_measures' names work too (ranx's, pref_eval's)
  lexeval qrels bm25=<(zcat bm25.gz) dense  a run named on the command line
  lexeval --format html qrels runs/* > page.html   one page of the whole evaluation
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
  lexeval qrels base.run new.run --baseline base --gate map --gate LP --gate-report gate.xml
fails (exit 1, one line per failure on stderr) when new.run is worse than
base on a gate measure with p < --alpha, and writes a JUnit report for CI.

\b
Qrels by ir_datasets id, and what to cite:
  lexeval irds:msmarco-passage/trec-dl-2019/judged run.txt
  lexeval --cite -m LP -m map       BibTeX of the papers behind the measures

Exit status: 0 success, 1 a --gate failed, 2 bad usage or bad input,
3 an internal error (a bug in lexeval: please report it).
"""


#: One line per report, for --list-reports (the man page's REPORTS section says the rest).
REPORT_LINES = {
    "ties": "how often each measure ties a pair on a query; LP's ties per recall level",
    "agreement": "how often each measure agrees in sign with --reference where that differs",
    "discrimination": "% of pairs each measure separates at alpha (the test chosen, and Tukey HSD)",
    "stability": "Buckley-Voorhees stability over random halves of the queries (--trials)",
    "degradation": "ties and agreement as relevant labels are removed (--fractions, --samples)",
    "power": "queries a paired t-test or ANOVA needs to see --delta with --power (Sakai 2016)",
    "reproduction": "repro_eval's KTU, RBO, RMSE, ER, DeltaRI of --original against --reproduced",
    "judges": "leaderboards, significance and grades under --compare-qrels (AutoJudge's figures, leniency, groups)",
    "reusability": "each run (--group-by) scored without the relevant documents only it pooled",
    "score-ties": "each run's measures with its tied scores in their worst and best orders",
}


def list_reports(ctx, _param, value):
    """``--list-reports``: every report with one line."""
    if not value or ctx.resilient_parsing:
        return
    click.echo("Reports (--report NAME, repeatable; each needs two or more runs):")
    for name, line in REPORT_LINES.items():
        click.echo(f"  {name:<15} {line}")
    ctx.exit()


def list_measures(ctx, _param, value):
    """``--list-measures``: every measure with its syntax, defaults and help."""
    if not value or ctx.resilient_parsing:
        return

    from ..measures.registry import MEASURE_SETS, MEASURES
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))

    def entry(name: str, description: str) -> list[str]:
        return textwrap.wrap(description, width, initial_indent=f"  {name:<24}  ", subsequent_indent=" " * 28)
    lines = ["Per-run measures: -m NAME, or with parameters as shown (trec_eval's syntax):"]
    for measure in MEASURES:
        lines += entry(measure.example(), f"{measure.description()} {measure.aliases()}")
    lines += ["", "Names from ir_measures (nDCG@10, P(rel=2)@10, nDCG(gains={0:0,1:1,2:3})@10, RBP(p=0.8)@10,",
              "INST(T=2,max_rel=3), Compat(p=0.9)), ranx (ndcg@10-l2, map@100, hits, hit_rate, rbp.95),",
              "pref_eval (ap, rp, p@10, rbp@0.8,10, lexiprecision, invrpp) and ndeval (alpha-nDCG@20, MAP-IA)",
              "work too, with their meanings (where a name is trec_eval's, trec_eval's meaning); output keeps",
              "one printed name per measure (README: \"Coming from another tool\"). Diversity measures read",
              "subtopic qrels (qid subtopic docno grade; --subtopics). In ir_measures' words, cutoff=k is @k, and",
              "every parameter set asked prints on a line of its own (SetF, SetF(beta=0.5)); a parameter given",
              "twice with two values (IPrec(recall=0.4)@0.2) is an error. In trec_eval's words a measure has one",
              "parameter set, the first given (-m set_F -m set_F.0.5 prints set_F_0.5, as trec_eval; a note on",
              "stderr names the set left out); cutoffs asked twice are united (-m P.5 -m P.10).", "",
              *textwrap.wrap("Pair preferences (two or more runs): -m NAME (--bounds: "
                             + ", ".join(f"{name}'s" for name in BOUNDED_PREFERENCES)
                             + " exact bounds under one assignment of grades to the unjudged documents shared by"
                               " both runs; the others have none; --tie-order expected: none)", 100)]
    for name, description in PREFERENCES.items():
        aliases = [alias for alias, target in PREFERENCE_ALIASES.items() if target == name]
        lines += entry(name, description + (f" (also {', '.join(aliases)})" if aliases else ""))
    lines += ["", "Sets: " + ", ".join(list(MEASURE_SETS) + list(PREFERENCE_SETS))
              + " (default: official, plus LP, rrLP, LR with two or more runs)",
              "  lexicographic = LP rrLP LR rrLR; recall_paired = RPP invRPP dcgRPP; graded_rpp = gRPP ginvRPP",
              "  gdcgRPP;",
              "  all_preferences = all ten. --pair-metrics turns every metric into a preference too.",
              "  trec_eval's: all_prefs and prefs (the prefs_* measures, with -R prefs or -R qrels_prefs),",
              "  qrels_jg (map_avgjg, P_avgjg, Rprec_mult_avgjg, with -R qrels_jg)."]
    click.echo("\n".join(lines))
    ctx.exit(0)


def progress_reporter():
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
