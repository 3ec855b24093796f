"""From what the user gave to parsed runs: run sources (paths, tables,
dicts of them), checks across them (each file once, each name once), reading
in parallel processes, and the notes on what each run left out."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..errors import InputError, UsageError
from . import kernel
from .inputs import ParsedRun, Qrels, ReadOptions, read_run
from .source import Source, is_stream
from .strings import shown


def sources_of(runs) -> list[Source]:
    """Runs as given to :func:`evaluate`: one run (a path, a table, a
    pytrec_eval/ranx dict {qid: {docno: score}}, a ranx Run, ir_measures
    ScoredDocs), a list of them, or a dict {run name: any of them}."""
    from .python_inputs import is_nested_dict, is_tuple_stream
    if isinstance(runs, dict) and not is_nested_dict(runs):
        return [Source(given, str(name)) for name, given in runs.items()]
    if isinstance(runs, (str, os.PathLike, dict)) or is_tuple_stream(runs) or not isinstance(runs, (list, tuple)):
        runs = [runs]
    runs = [path for given in runs for path in _expanded(given)]
    sources = [given if isinstance(given, Source) else Source(given) for given in runs]
    unnamed = [source for source in sources if source.name == "run" and not source.is_file]
    if len(unnamed) > 1:            # several runs in memory without names: run1, run2, ...
        for number, source in enumerate(unnamed, start=1):
            source.name = f"run{number}"
    return sources


def _expanded(given) -> list:
    """A path with a glob pattern that names no file itself (``runs/*.gz``,
    as Python hands it over unexpanded) as the files it matches, sorted;
    anything else as it is."""
    if not isinstance(given, str) or not any(char in given for char in "*?[") or os.path.exists(given) or \
            "://" in given:
        return [given]
    import glob
    found = sorted(glob.glob(given))
    if not found:
        raise UsageError(f"runs: no file matches the pattern '{given}' (a pattern is expanded to the files it "
                         "matches; give a list of paths otherwise)")
    return found


def check_sources(qrels: Source, runs: list[Source]) -> None:
    """Each file once, each run name once, standard input at most once."""
    if sum(source.path == "-" for source in runs + [qrels] if source.is_file) > 1:
        raise UsageError("standard input ('-') can be read only once")
    files: dict[tuple[int, int], str] = {}
    names: dict[str, str] = {}
    for source in runs:
        if source.is_file and source.path != "-":
            try:
                status = os.stat(source.path)
            except OSError:
                status = None                       # reading it will say what is wrong
            if status is not None:
                identity = (status.st_dev, status.st_ino)
                if identity in files:
                    raise InputError(source.path, f"the same file is given twice (also as {files[identity]})")
                files[identity] = source.path
        if not source.named_by_tag:
            check_name(names, source.name, source.path)


def check_rereadable(runs, reader: str) -> None:
    """Runs some analysis (``reader``) reads a second time: not standard
    input or a pipe, which give their lines once."""
    for given in runs:
        if isinstance(given, Source):
            path = given.path if given.is_file else None
        else:
            path = os.fspath(given) if isinstance(given, (str, os.PathLike)) else None
        if path is not None and is_stream(path):
            raise UsageError(f"{reader} reads the runs a second time: give {path} as a file, not standard "
                             "input or a pipe")
        if path is not None and "://" in path:
            raise UsageError(f"{reader} reads the runs again on this machine: give {path} as a local path")


def check_names(runs: list[ParsedRun]) -> None:
    """Each run name once, after reading (a run from a pipe is named by its tag)."""
    names: dict[str, str] = {}
    for run in runs:
        check_name(names, run.name, run.path)


def check_name(names: dict[str, str], name: str, path: str) -> None:
    if name in names:
        raise UsageError(f"two runs named '{name}' ({names[name]} and {path}): name them on the command line as "
                         f"NAME=PATH (e.g. '{name}_2={path}'), or in Python with a dict {{name: run}}")
    names[name] = path


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _quoted(qid: str | None) -> str:
    """A qid for a message: quoted, bytes that are not UTF-8 as \\xNN."""
    text = shown((qid or "").encode("utf-8", "surrogateescape"))
    return '"' + text.replace('"', '\\"') + '"'


#: Above this many runs with something left out, the notes are summed up in
#: one line each (``verbose`` lists every run).
NOTES_PER_RUN_UP_TO = 5


@dataclass
class RunCoverage:
    """What one run's queries left out: the qrels queries it lacks (how
    many, the first in query order) and its queries the qrels lack (how
    many, the first in file order)."""

    path: str
    queries: int
    missing: int
    first_missing: str | None
    num_unknown: int
    first_unknown: str | None


@dataclass
class Coverage:
    """Every run's coverage, and the compared queries no run has (how many,
    the first in query order). Coverages of disjoint sets of queries merge
    (:meth:`merge`): the notes of a cluster are one machine's."""

    runs: list[RunCoverage]
    nobody: int = 0
    first_nobody: str | None = None

    @classmethod
    def of(cls, qrels: Qrels, runs: list[ParsedRun], level: float = 1) -> Coverage:
        out = []
        for run in runs:
            missing = np.flatnonzero(~run.present)
            out.append(RunCoverage(run.path, len(run.present), len(missing),
                                   qrels.qids[missing[0]] if len(missing) else None, run.num_unknown,
                                   run.unknown_qids[0] if run.unknown_qids else None))
        nobody = np.flatnonzero(~np.any([run.present for run in runs], axis=0) & (qrels.num_relevant(level) > 0)) \
            if len(runs) > 1 else np.zeros(0, dtype=np.int64)
        return cls(out, len(nobody), qrels.qids[nobody[0]] if len(nobody) else None)

    @staticmethod
    def merge(parts: list[Coverage], first_unknown: list[str | None]) -> Coverage:
        """Parts of disjoint query sets, in query order; ``first_unknown``:
        each run's first query the qrels lack, in file order."""
        def first(values):
            return next((value for value in values if value is not None), None)
        runs = [RunCoverage(pieces[0].path, sum(p.queries for p in pieces), sum(p.missing for p in pieces),
                            first(p.first_missing for p in pieces), sum(p.num_unknown for p in pieces), unknown)
                for pieces, unknown in zip(zip(*(part.runs for part in parts)), first_unknown)]
        return Coverage(runs, sum(p.nobody for p in parts), first(p.first_nobody for p in parts))


def coverage_notes(qrels: Qrels, runs: list[ParsedRun], level: float = 1, verbose: bool = False,
                   complete: bool = False) -> list[str]:
    """The notes on what each run's queries left out (see :func:`notes`)."""
    return notes(Coverage.of(qrels, runs, level), verbose, complete)


def notes(coverage: Coverage, verbose: bool = False, complete: bool = False) -> list[str]:
    """What each run's queries left out, and which compared queries no run
    has: the silent drops a user should know of. One line per run for a few
    runs (or ``verbose``); for many, one line for the runs whose queries the
    qrels lack and one for the runs lacking qrels queries (how many, the worst
    case, the first example). A run none of whose queries is in the qrels
    (the classic "01" against "1") always gets its own line."""
    runs = coverage.runs
    lines, unknown, lacking = [], [], []
    for run in runs:
        parts = []
        if run.missing == run.queries:
            lines.append(f"{run.path}: warning: none of its queries is in the qrels "
                         f"(first: {_quoted(run.first_unknown)}): it scores 0")
            continue
        if run.num_unknown:
            parts.append(f"{_count(run.num_unknown, 'query', 'queries')} not in the qrels, ignored "
                         f"(first: {_quoted(run.first_unknown)})")
            unknown.append(run)
        if run.missing:
            parts.append(f"lacks {run.missing} of the {run.queries} qrels queries "
                         f"(first: {_quoted(run.first_missing)})")
            lacking.append(run)
        if parts:
            lines.append(f"{run.path}: warning: " + "; ".join(parts))
    if not verbose and len({id(run) for run in unknown + lacking}) > NOTES_PER_RUN_UP_TO:
        lines = [line for line in lines if "none of its queries" in line]
        if unknown:
            worst = max(unknown, key=lambda run: run.num_unknown)
            lines.append(f"warning: {len(unknown)} of {len(runs)} runs have queries that are not in the qrels, "
                         f"ignored (most: {worst.path}, {_count(worst.num_unknown, 'query', 'queries')}, first: "
                         f"{_quoted(worst.first_unknown)}); --verbose lists every run")
        if lacking:
            worst = max(lacking, key=lambda run: run.missing)
            lines.append(f"warning: {len(lacking)} of {len(runs)} runs lack qrels queries (most: {worst.path} "
                         f"lacks {worst.missing} of the {worst.queries}, first: {_quoted(worst.first_missing)}); "
                         "--verbose lists every run")
    if any(0 < run.missing < run.queries for run in runs):
        lines.append("note: a query a run lacks scores as an empty ranking in that run's averages (-c) and in "
                     "comparisons" if complete else "note: a query a run lacks is left out of that run's averages "
                     "(-c counts it) and is an empty ranking in comparisons")
    if coverage.nobody:
        lines.append(f"note: {_count(coverage.nobody, 'qrels query', 'qrels queries')} with relevant "
                     f"documents in none of the runs (first: {_quoted(coverage.first_nobody)}): every "
                     "run ties there in comparisons")
    return lines


_WORKER_QRELS: Qrels | None = None
PROCESSES_FROM = 16_000_000     # bytes of run files from which they are read in processes (forking costs ~20 ms)


def _read_run_in_worker(source: Source, options: ReadOptions, spool: str | None) -> tuple[ParsedRun, tuple | None]:
    from .spool import spooled
    return spooled(read_run(source, cast(Qrels, _WORKER_QRELS), options), spool)


def keep_freed_memory(keep: bool = True, largest: int = 64 << 20) -> None:
    """In a reading process: have glibc's malloc keep freed memory for the
    next run's arrays instead of returning it to the system, which hands it
    back as fresh pages to be faulted in and cleared (a tenth of the reading
    time). Only this short-lived process holds on to it, and at most four
    times ``largest`` (arrays over ``largest`` are still given back: a
    recommender run's are). The command line's own process keeps arrays up
    to 256 MB (--bounds' pairs make and drop hundreds of megabytes: their
    pages cleared afresh took a sixth of its time). ``keep=False`` restores
    glibc's thresholds and gives the memory back (a long-lived process, a
    Dask worker, after a partition)."""
    import ctypes
    import platform
    if platform.libc_ver()[0] != "glibc":
        return
    try:
        libc = ctypes.CDLL(None)
        thresholds = (largest, 4 * largest, 16 << 20) if keep else (128 << 10, 128 << 10, 128 << 10)
        for option, value in zip((-3, -1, -2), thresholds):      # mmap and trim thresholds, top pad
            libc.mallopt(option, value)
        if not keep:
            libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def read_runs(sources: list[Source], qrels: Qrels, options: ReadOptions | None = None,
              jobs: int | None = None, progress=None) -> list[ParsedRun]:
    """Parse runs, in parallel processes when there are several big files.

    ``progress(done, total)`` is called after each run (for a progress bar).
    """
    global _WORKER_QRELS
    options = options or ReadOptions()
    if jobs is None:
        from ..cpus import jobs as allowed
        jobs = allowed()
    files = [source for source in sources if source.is_file and source.path != "-"]
    big = sum(os.path.getsize(s.path) for s in files if os.path.isfile(s.path)) > PROCESSES_FROM
    if jobs <= 1 or len(sources) < 2 or not big or len(files) < len(sources) or \
            "fork" not in multiprocessing.get_all_start_methods():
        runs = []
        for done, source in enumerate(sources, start=1):
            runs.append(read_run(source, qrels, options))
            if progress:
                progress(done, len(sources))
        return runs
    _WORKER_QRELS = qrels  # inherited by forked workers
    if kernel.enabled():
        _ = qrels.kernel_tables   # made once, here, and inherited: not once per worker
    context = multiprocessing.get_context("fork")
    from .spool import remove, spool_directory, unspooled
    spool = spool_directory()           # the runs' arrays come back through files in memory, not the pipe
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=keep_freed_memory) as pool:
            # runs handed out in batches: a thousand small runs cost a message each way per batch, not per run
            batch = max(1, min(32, len(sources) // (8 * jobs)))
            runs = []
            for done, (run, where) in enumerate(pool.map(_read_run_in_worker, sources, [options] * len(sources),
                                                         [spool] * len(sources), chunksize=batch), start=1):
                try:
                    runs.append(unspooled(run, where))
                except OSError:                 # its file gone (removed by someone else): read here instead
                    runs.append(read_run(sources[done - 1], qrels, options))
                if progress:
                    progress(done, len(sources))
    finally:
        _WORKER_QRELS = None            # a failed read keeps no qrels alive either
        remove(spool)
    return runs
