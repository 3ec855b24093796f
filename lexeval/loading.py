"""Files to rankings: :func:`load` reads qrels and runs (any of the forms
the library takes) into the arrays every measure uses, and says what it
noticed (dropped queries, a file read as MS MARCO) as notes."""

from __future__ import annotations

from dataclasses import replace
from types import FrameType

from .errors import UsageError
from .io.grouped import read_grouped
from .io.inputs import ReadOptions, read_qrels
from .io.irds import irds_qrels, is_irds
from .io.runs import check_names, check_sources, coverage_notes, read_runs, sources_of
from .io.source import Source
from .io.subtopics import read_subtopic_qrels
from .measures import registry as m
from .measures.diversity import Subtopics
from .measures.groups import JudgementGroups
from .measures.prefs import PreferenceIndex
from .options import Hooks, Reading
from .rankings import Rankings, build_rankings
from .timings import timed


def load(qrels, runs, reading: Reading | None = None, *, keep_rows: bool = False, keep_holes: bool = False,
         hooks: Hooks | None = None, **keywords) -> Rankings:
    """Read qrels and runs into Rankings (the arrays every measure uses).

    ``qrels`` and ``runs`` are as for :func:`evaluate`; ``reading`` (or its
    fields as keywords: ``level``, ``depth``, ``judged_only``, ...; the
    hooks' too, ``warn=``) says how:
    ``depth`` keeps the top documents of each ranking (-M), ``judged_only``
    then drops the unjudged ones (-J), ``rel_format`` is trec_eval's -R
    (qrels, or prefs, qrels_prefs, qrels_jg: judgements with a group per
    line; the rankings then carry them for the prefs_* and *_avgjg
    measures), ``complete`` (-c) only words the notes. ``keep_rows`` keeps
    document identities (for the rareness measures), ``keep_holes`` the
    unjudged documents' (for --bounds' pairs); ``hooks.warn(text)``
    receives the notes on dropped queries and file formats (default:
    LexevalNote warnings), ``hooks.progress(done, total)`` follows the
    reading, ``hooks.timings`` (a :class:`Timings`) the seconds and bytes of
    reading, ``hooks.on_read(qrels, runs)`` what was read."""
    from dataclasses import fields
    hooked = {key: keywords.pop(key) for key in [item.name for item in fields(Hooks)] if key in keywords}
    reading = reading if reading is not None else Reading.pick(keywords)
    unknown = sorted(set(keywords) - set(vars(reading)))
    if unknown:
        raise UsageError(f"load() has no keyword '{unknown[0]}'")
    hooks = hooks or Hooks(**hooked)
    level, depth, judged_only, subtopics, rel_format = reading.level, reading.depth, reading.judged_only, \
        reading.subtopics, reading.rel_format
    timings = hooks.timings
    if depth is not None and depth < 1:
        raise UsageError("-M (depth) must be at least 1")
    if level < 0:
        raise UsageError("-l (relevance level) must be 0 or more")
    by_subtopic = None
    if is_irds(qrels):     # irds:ID: the dataset's qrels, through ir_datasets
        if rel_format != "qrels":
            raise UsageError(f"-R {rel_format} judgements are read from a file, not by ir_datasets id")
        read = irds_qrels(qrels, subtopics)
        by_subtopic, keep_rows = (read, True) if subtopics else (None, keep_rows)
        qrels = Source(read.table() if subtopics else read, name=qrels, kind="qrels")
    qrels_source = qrels if isinstance(qrels, Source) else Source(qrels, kind="qrels")
    if subtopics and by_subtopic is None:   # qid subtopic docno grade: ordinary judgements, each document's highest
        if not qrels_source.is_file or qrels_source.path == "-":
            raise UsageError("subtopic judgements are read from a qrels file (not standard input or a table)")
        by_subtopic = read_subtopic_qrels(qrels_source.path)
        qrels_source = Source(by_subtopic.table(), name=qrels_source.path)
        keep_rows = True
    grouped = None
    if rel_format != "qrels":   # qid group [subgroup] docno level: ordinary judgements are derived from them
        if not qrels_source.is_file or qrels_source.path == "-":
            raise UsageError(f"-R {rel_format} judgements are read from a file (not standard input or a table)")
        grouped = read_grouped(qrels_source.path, rel_format)
        qrels_source = Source(grouped.table(), name=qrels_source.path)
        keep_rows = True
    sources = sources_of(runs)
    if not sources:
        raise UsageError("no runs to evaluate")
    check_sources(qrels_source, sources)
    fill_notes = None
    if reading.fill_qrels is not None:
        if by_subtopic is not None or grouped is not None:
            raise UsageError("--fill-qrels fills ordinary judgements (qid iter docno grade), not " +
                             (f"-R {rel_format}'s" if grouped is not None else
                              "diversity judgements (--subtopics, a diversity measure)"))
        keep_rows = True                        # judged_qrels and judged_fill look up each document's row
    with timed(timings, "reading"):
        judgements = read_qrels(qrels_source)
        if reading.fill_qrels is not None:
            from .io.fill import fill_holes
            judgements, fill_notes = fill_holes(judgements, read_qrels(Source(reading.fill_qrels, kind="qrels")))
        # trec_eval orders tied scores by docno ascending for preference judgements (form_prefs_counts.c)
        options = ReadOptions(depth, judged_only, keep_rows, ties_ascending=rel_format in ("prefs", "qrels_prefs"),
                              ties_in_line_order=reading.tie_order == "input",
                              keep_ties=reading.tie_order == "expected", keep_holes=keep_holes)
        parsed = read_runs(sources, judgements, options, reading.jobs, hooks.progress)
        check_names(parsed)
        rankings = build_rankings(judgements, parsed, level)
        for run in parsed:                  # the rankings hold their copy: the notes below need the rest
            run.codes = run.qrels_rows = run.tie_groups = run.hole_docnos = None  # type: ignore[assignment]
        if by_subtopic is not None:
            rankings = replace(rankings, subtopics=Subtopics.build(judgements, by_subtopic, level))
        if grouped is not None and rel_format == "qrels_jg":
            rankings = replace(rankings, groups=JudgementGroups.build(judgements, grouped, judged_only))
        elif grouped is not None:
            rankings = replace(rankings, prefs=PreferenceIndex.build(judgements, grouped))
    if timings is not None:
        sizes = [source.size() for source in [qrels_source, *sources]]
        # compressed files, standard input and tables have no size to divide by
        timings.bytes_read = sum(sizes) if all(sizes) else 0
    if hooks.on_read is not None:               # the cluster adds up the notes of its partitions
        hooks.on_read(judgements, parsed)
    warn = hooks.warn or note
    if fill_notes is not None:
        warn(fill_note(str(reading.fill_qrels), judgements.path, fill_notes))
    for run in parsed:
        if run.format != "run":
            warn(f"{run.path}: read as {run.format} (qid docid rank): score = -rank")
    for line in coverage_notes(judgements, parsed, level, reading.verbose, reading.complete):
        warn(line)
    return rankings


def fill_note(fill_path: str, qrels_path: str, counts: dict) -> str:
    """The note on what --fill-qrels filled (io.fill's counts)."""
    left = counts["queries_left_out"]
    return (f"--fill-qrels {fill_path}: {counts['filled']} judgements fill holes of {qrels_path} "
            f"({counts['judged']} judged there)" +
            (f"; its {left} other quer" + ("y is" if left == 1 else "ies are") + " left out" if left else ""))


def fill_counts(qrels, fill_path: str) -> dict:
    """io.fill's counts for the note, on a machine that reads both files (a
    cluster's client)."""
    from .io.fill import fill_holes
    return fill_holes(read_qrels(Source(qrels, kind="qrels")), read_qrels(Source(fill_path, kind="qrels")))[1]


class LexevalNote(UserWarning):
    """A note on the inputs (dropped queries, a file read as MS MARCO): the
    command line prints them on standard error, the library warns."""


def note(text: str) -> None:
    """The library's default for notes: a :class:`LexevalNote` warning,
    pointing at the caller's line (the first frame outside lexeval)."""
    import os
    import sys
    import warnings
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: FrameType | None = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(in_keywords(text), LexevalNote, stacklevel=level)


def in_keywords(text: str) -> str:
    """A note's options as the library's keywords (-c: complete=True)."""
    import re

    from .options import KEYWORD_OF_FLAG
    return re.sub(r"(?<![\w-])(--?[A-Za-z][\w-]*)\b", lambda found: KEYWORD_OF_FLAG.get(found[1], found[1]), text)


#: The measures computed when none are named, per judgement format (-R): trec_eval's.
DEFAULT_SETS = {"qrels": "official", "prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}
#: Which -R formats feed the measures of each kind of judgements.
READ_BY = {m.PREFS: ("prefs", "qrels_prefs"), m.QRELS_JG: ("qrels_jg",)}


def check_judgements(selection, rel_format: str, names) -> None:
    """Every measure asked for can be computed from the judgements -R reads."""
    if rel_format not in DEFAULT_SETS:
        raise UsageError(f"-R {rel_format}: unknown judgement format (one of {', '.join(DEFAULT_SETS)})")
    for req in selection.metrics:
        needs = req.measure.judgements
        if needs != m.QRELS and rel_format not in READ_BY[needs]:
            kind = "preference judgements: -R prefs (a file of 'qid group subgroup docno level') or " \
                   "-R qrels_prefs (a qrels read as preferences)" if needs == m.PREFS else \
                   "judgement groups: -R qrels_jg (a qrels whose second column names the group)"
            # the name the user typed: a set's name rather than its first member's
            typed = next((name for name in names or () if name in m.MEASURE_SETS and req.measure.name in
                          m.MEASURE_SETS[name]), req.measure.name)
            hint = "; lexiprecision and lexirecall are the set 'lexicographic'" if typed == "all_prefs" else ""
            raise UsageError(f"{typed} is computed from trec_eval's {kind}{hint}")


