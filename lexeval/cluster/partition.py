"""Worker side: one partition evaluated by the one-machine code."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import InputError
from .pieces import NO_LINES

if TYPE_CHECKING:
    from ..options import Evaluating

# ---------------------------------------------------------------- worker side: one partition


@dataclass
class PartitionResult:
    """What one partition sends back: its totals, and what the notes and
    -q need."""

    totals: Any
    columns: list                             # (name, measure) of every column
    coverage: object                          # what the runs left out here (lexeval.io.runs.Coverage)
    last: list[tuple[int, int]]               # per run: (piece, line) of its last line here
    tags: list[str]                           # per run: the tag of that line
    unknown: list[list]                       # per run: ((piece, line), qid) of the first query here the qrels lack
    num_unknown: list[int]
    formats: list[str]
    per_query: Any = None                     # with -q: see _per_query_values
    part: str | None = None                   # with an output folder: the part file written
    difference_bounds: Any = None             # with --bounds: the pairs' bounds, summed over its queries


@dataclass(frozen=True)
class PartitionJob:
    """What every partition does: the files (qrels first) and the runs'
    names, the evaluation asked (a :class:`~lexeval.options.Evaluating`),
    whether -q's values come back (``per_query``; with ``for_reports``,
    the reports' options, what the reports need too), and ``writing``:
    (folder, format) of the part files, or None."""

    files: list
    names: list
    asked: object
    per_query: bool = False
    for_reports: object = None
    writing: tuple | None = None


def evaluate_partition(k: int, parts, job: PartitionJob):
    """Evaluate partition k: its bucket of every piece, in file order, read
    by the one-machine code: a local file's ranges where they lie (the
    qrels, and any file the reader must open by name, written out to local
    files)."""
    from ..io.runs import keep_freed_memory
    keep_freed_memory()              # while it runs: freed arrays are reused, not faulted in afresh (0.95 -> 0.6 s)
    folder = tempfile.mkdtemp(prefix=f"lexeval-part{k}-")
    try:
        maps = [_piece_map(file_parts) for file_parts in parts]
        if all(len(segments) == 0 for piece_map in maps for _, _, segments in piece_map):
            return None, None
        try:
            return _evaluate_local(k, _local_files(folder, parts, maps, in_place=True), maps, job)
        except (InputError, OSError):      # what the reader opens by name, or bad input: from files, as written
            pass
        return _evaluate_local(k, _local_files(folder, parts, maps, in_place=False), maps, job)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        keep_freed_memory(False)     # the worker lives on: its memory goes back


def _piece_map(file_parts) -> list:
    """[(piece, first local line, segments)] of one file's parts, in order."""
    piece_map, lines = [], 0
    for _, segments, piece in file_parts:
        piece_map.append((piece, lines, segments))
        lines += int(segments[:, 1].sum())
    return piece_map


def _local_files(folder: str, parts, maps, in_place: bool) -> list[Any]:
    """Each file's text in this partition: its runs' as a SpannedPath of
    their ranges (``in_place``), else (and the qrels always) a file
    written in ``folder``; a run with no line here gets one line for no
    judged query."""
    from ..io.blocks import SpannedPath, iter_blocks
    local: list[Any] = []                            # paths, or SpannedPaths read where they lie
    for index, (file_parts, piece_map) in enumerate(zip(parts, maps)):
        path = os.path.join(folder, f"{index}")
        texts: list[Any] = []                         # (file, ranges) or bytes
        for data, segments, piece in file_parts:
            if piece.start >= 0 and len(segments):   # a local file's piece: its bytes where they lie
                texts.append((piece.path, piece.start + segments[:, 2:]))
            if data:
                texts.append(data)
        if index and not any(len(segments) for _, _, segments in piece_map):
            texts.append(f"{NO_LINES} Q0 - 0 0 -\n".encode())
        spanned = SpannedPath(path, texts)
        if in_place and index:
            local.append(spanned)
            continue
        with open(path, "wb") as out:                # the same text, block by block
            for block in iter_blocks(spanned):
                out.write(block)
        local.append(path)
    return local


def _evaluate_local(k: int, local: list[str], maps, job: PartitionJob):
    """A partition's result from its local files (see evaluate_partition)."""
    from dataclasses import replace

    from ..evaluation import evaluate
    from ..options import Hooks
    files, names, asked = job.files, job.names, cast("Evaluating", job.asked)
    per_query, for_reports, writing = job.per_query, job.for_reports, job.writing
    if all(len(segments) == 0 for _, _, segments in maps[0]):
        return _unjudged(local, maps, names, files), None
    read: list = []
    options = replace(asked.options, reading=replace(asked.options.reading, jobs=1))
    try:
        evaluation = evaluate(local[0], dict(zip(names, local[1:])), asked.measures, options,
                              extra_measures=asked.extra_measures, keep_rows=asked.keep_rows,
                              hooks=Hooks(warn=lambda text: None, on_read=lambda q, runs: read.append((q, runs))))
    except InputError as exc:
        raise _remapped(exc, local, maps, files) from None
    judgements, parsed = read[0]
    from ..io.runs import Coverage
    coverage = Coverage.of(judgements, parsed, options.reading.level)
    for run, path in zip(coverage.runs, files[1:]):
        run.path = path
        if NO_LINES in parsed[coverage.runs.index(run)].unknown_qids:     # the placeholder is no query
            run.num_unknown -= 1
    rankings = evaluation.rankings
    part = None
    if writing is not None:
        from ..output.records import write_part
        part = write_part(evaluation, writing[0], k, writing[1])
    from ..stats.totals import SummedColumns
    summed = dict(SummedColumns({c.name: (c.measure, c.values) for c in evaluation.columns},
                                 evaluation.included))
    return PartitionResult(evaluation.totals, [(c.name, c.measure) for c in evaluation.columns],
                           coverage,
                           [_last_line(m) for m in maps[1:]], list(rankings.run_tags),
                           [_first_unknown(path, piece_map, [q for q in run.unknown_qids if q != NO_LINES][:1])
                            for path, piece_map, run in zip(local[1:], maps[1:], parsed)],
                           [run.num_unknown - (NO_LINES in run.unknown_qids) for run in parsed],
                           [run.format for run in parsed],
                           _per_query_values(evaluation, for_reports) if per_query or for_reports else None,
                           part, evaluation.difference_bounds), summed


def _remapped(exc: InputError, local: list[str], maps, files: list[str]) -> InputError:
    """The local file's error, with the local lines it names found in the
    pieces (``located``: file index, [(piece, line in piece)]); the client
    counts the lines before those pieces."""
    if exc.path not in local:
        return exc
    index = local.index(exc.path)
    error = exc.moved(path=files[index])
    if exc.line is None:
        return error
    named = [exc.line] + ([exc.first_line] if exc.first_line is not None else [])
    places = [_position(maps[index], line - 1) for line in named]
    if all(piece >= 0 for piece, _ in places):
        error.located = (index, places)
    return error


def _lines(path: str):
    """The lines of a local file's text (written, or a SpannedPath)."""
    from ..io.blocks import iter_blocks
    for block in iter_blocks(path):
        yield from bytes(block).split(b"\n")[:-1]        # a block ends with a line feed


def _qids_in_order(path: str) -> dict[str, int]:
    """Each qid of a local run file with its first local line, in file order."""
    seen: dict[str, int] = {}
    for number, line in enumerate(_lines(path)):
        fields = line.split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            seen.setdefault(fields[0].decode("utf-8", "surrogateescape").lstrip("\ufeff"), number)
    seen.pop(NO_LINES, None)
    return seen


def _first_unknown(path: str, piece_map, qids: list[str]) -> list:
    """[((piece, line), qid)] of the run's first query here the qrels lack, or []."""
    if not qids:
        return []
    local_line = _qids_in_order(path).get(qids[0], 0)
    return [(_position(piece_map, local_line), qids[0])]


def _position(piece_map, local_line: int) -> tuple[int, int]:
    """(piece, line in piece) of a local file's line (0-based)."""
    for piece, first, segments in piece_map:
        counts = np.cumsum(segments[:, 1])
        if first <= local_line < first + (int(counts[-1]) if len(counts) else 0):
            offset = local_line - first
            index = int(np.searchsorted(counts, offset, side="right"))
            before = int(counts[index - 1]) if index else 0
            return piece.index, int(segments[index, 0]) + offset - before
    return -1, -1


def _unjudged(local: list[str], maps, names: list[str], files: list[str]) -> PartitionResult:
    """A partition without judgements: its run lines are queries the qrels lack."""
    unknown, counts = [], []
    for path, piece_map in zip(local[1:], maps[1:]):
        seen = _qids_in_order(path)
        counts.append(len(seen))
        first = min(seen.items(), key=lambda item: item[1]) if seen else None
        unknown.append([(_position(piece_map, first[1]), first[0])] if first else [])
    from ..io.runs import Coverage, RunCoverage
    coverage = Coverage([RunCoverage(path, 0, 0, None, count, None) for path, count in zip(files[1:], counts)])
    return PartitionResult(None, [], coverage, [_last_line(m) for m in maps[1:]],
                           [_last_tag(path) for path in local[1:]], unknown, counts, ["run"] * len(names))


def _last_tag(path: str) -> str:
    """The tag (sixth field) of a local run file's last line."""
    fields: list[bytes] = next((line.split() for line in reversed(list(_lines(path))) if line.split()), [])
    return fields[5].decode("utf-8", "surrogateescape") if len(fields) >= 6 else ""


def _last_line(maps_of_file) -> tuple[int, int]:
    """(piece, line) of the last line a partition holds of a file."""
    for piece, _, segments in reversed(maps_of_file):
        if len(segments):
            return piece.index, int(segments[-1, 0] + segments[-1, 1] - 1)
    return -1, -1


def _per_query_values(evaluation, for_reports=None) -> dict:
    """Everything ``-q`` prints, per query: every column's values (R, Q),
    included (R, Q), compared (Q,), and the printed pairs' preferences
    (P, compared Q); for the reports (``for_reports``, their options),
    every pair's preferences and deciding levels, LP's ties per recall level
    as counts, and with the degradation report its counts (all add up)."""
    reports = for_reports is not None
    out = {"qids": list(evaluation.qids),
           "columns": {c.name: c.values for c in evaluation.columns if c.measure.per_query},
           "included": evaluation.included, "compared": evaluation.compared, "preferences": {}}
    if evaluation.preferences is not None:
        from ..preferences import pair_rows
        rows = pair_rows(evaluation.rankings.num_runs, evaluation.pairs)
        parts: dict[str, list] = {}
        for _, values, _ in evaluation.preferences.blocks(rows):
            for name, block in values.items():
                parts.setdefault(name, []).append(block)
        out["preferences"] = {name: np.concatenate(blocks) for name, blocks in parts.items()}
        if reports:
            from ..preferences import level_tie_counts
            out["all_preferences"] = dict(evaluation.preferences.values)
            out["levels"] = dict(evaluation.preferences.levels)
            out["level_ties"] = level_tie_counts(evaluation.comparison)
    if reports and for_reports.degradation and evaluation.compared.any():
        from ..reports.degradation import degradation_counts
        out["degradation"] = degradation_counts(evaluation, for_reports)
    return out
