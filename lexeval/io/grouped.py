"""trec_eval's judgements with a judgement group per line (``-R``):

- ``prefs``: ``qid group subgroup docno level``, preference judgements.
  Within a subgroup, a document with a higher level is preferred to one
  with a lower level; a group unites its subgroups (trec_eval's get_prefs.c).
- ``qrels_prefs``: an ordinary qrels, ``qid group docno level``, read as
  preferences with one subgroup per group (the qrels' second column is the
  group).
- ``qrels_jg``: ``qid group docno grade``, one set of ordinary judgements
  per group (multiple assessors).

Each becomes two things: ordinary judgements, one row per (qid, docno),
which the run reader matches and every other measure uses; and the lines
themselves, which the prefs_* and *_avgjg measures group. A line whose first
field starts with '#' is a comment; blank lines are skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..choices import GROUPED_FORMATS
from ..errors import InputError
from .strings import judgement_table
from .textfile import small_file_fields

FORMATS = GROUPED_FORMATS
COLUMNS = {"prefs": "qid group subgroup docno level", "qrels_prefs": "qid group docno level",
           "qrels_jg": "qid group docno grade"}
MAX_GRADE = 32767


@dataclass(frozen=True)
class GroupedJudgements:
    """The lines of a grouped judgement file, identifiers as bytes.

    ``level`` is float64 for prefs and qrels_prefs (trec_eval reads it with
    atof), integral for qrels_jg; ``line`` is each line's number in the file."""

    path: str
    format: str
    qid: list[bytes]
    group: list[bytes]
    subgroup: list[bytes]
    docno: list[bytes]
    level: np.ndarray
    line: np.ndarray

    def ordinary_grades(self) -> dict[tuple[bytes, bytes], int]:
        """{(qid, docno): grade} for the measures that read plain grades:
        qrels_jg and qrels_prefs, a document's highest grade over the groups
        (rounded down); prefs, whose levels only order documents within a
        subgroup, 1 where some level is above 0, else 0."""
        grades: dict[tuple[bytes, bytes], int] = {}
        binary = self.format == "prefs"
        for qid, docno, level in zip(self.qid, self.docno, self.level.tolist()):
            grade = (1 if level > 0 else 0) if binary else max(-MAX_GRADE, min(MAX_GRADE, math.floor(level)))
            key = (qid, docno)
            if grade > grades.get(key, -MAX_GRADE - 1):
                grades[key] = grade
        return grades

    def table(self):
        """The ordinary judgements as a table (qid, docno, relevance) for the qrels reader."""
        grades = self.ordinary_grades()
        return judgement_table([qid for qid, _ in grades], [docno for _, docno in grades], list(grades.values()))


def _text(value: bytes) -> str:
    return value.decode("utf-8", "backslashreplace")


def read_grouped(path: str, format: str) -> GroupedJudgements:
    """Read a judgement file of ``format`` (prefs, qrels_prefs, qrels_jg);
    compressed or not (by its first bytes). Errors name the file and line."""
    if format not in FORMATS:
        raise ValueError(format)
    width = 5 if format == "prefs" else 4
    integral = format == "qrels_jg"
    qids, groups, subgroups, docnos, levels, lines = [], [], [], [], [], []
    seen: dict[tuple, int] = {}
    for number, fields in small_file_fields(path):
        if len(fields) != width:
            raise InputError(path, f"expected {width} columns ({COLUMNS[format]}) for -R {format}, "
                                   f"found {len(fields)}", number)
        if width == 5:
            qid, group, subgroup, docno, level_text = fields
        else:
            (qid, group, docno, level_text), subgroup = fields, b"0"
        try:
            level = int(level_text) if integral else float(level_text)
        except ValueError:
            kind = "an integer grade" if integral else "a number"
            raise InputError(path, f"'{_text(level_text)}' is not {kind}", number) from None
        if integral and abs(level) > MAX_GRADE:
            raise InputError(path, f"grade {level} is out of range (|grade| <= {MAX_GRADE})", number)
        if not math.isfinite(level):
            raise InputError(path, f"level '{_text(level_text)}' is not a finite number", number)
        key = (qid, group, subgroup, docno)
        if key in seen:
            where = f"judgement group '{_text(group)}'" + \
                (f", subgroup '{_text(subgroup)}'" if format == "prefs" else "")
            raise InputError(path, f"document '{_text(docno)}' of query '{_text(qid)}' is judged twice in {where} "
                                   f"(first at line {seen[key]})", number)
        seen[key] = number
        qids.append(qid)
        groups.append(group)
        subgroups.append(subgroup)
        docnos.append(docno)
        levels.append(level)
        lines.append(number)
    if not qids:
        raise InputError(path, f"no judgements (empty -R {format} file)")
    return GroupedJudgements(path, format, qids, groups, subgroups, docnos,
                             np.array(levels, dtype=np.int64 if integral else np.float64),
                             np.array(lines, dtype=np.int64))
