"""Diversity judgements: ``qid subtopic docno grade``, a docno once per
subtopic (the TREC Web track's format, read by ndeval).

They become two things: ordinary judgements (a document's grade is its
highest over the subtopics, as ndeval and pref_eval read them), which every
other measure uses, and per judged document its subtopics and grades, which
the diversity measures use."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from .strings import judgement_table
from .textfile import small_file_fields


@dataclass(frozen=True)
class SubtopicJudgements:
    """``grades[(qid, docno)]``: {subtopic: grade}, identifiers as bytes."""

    path: str
    grades: dict[tuple[bytes, bytes], dict[bytes, int]]

    def table(self):
        """The ordinary judgements: one row per (qid, docno), its highest grade."""
        keys = list(self.grades)
        return judgement_table([qid for qid, _ in keys], [docno for _, docno in keys],
                               [max(g.values()) for g in self.grades.values()])


def read_subtopic_qrels(path: str) -> SubtopicJudgements:
    """Read a diversity qrels file (compressed or not, by its first bytes); errors name file and line."""
    grades: dict[tuple[bytes, bytes], dict[bytes, int]] = {}
    for number, fields in small_file_fields(path):
        if len(fields) != 4:
            raise InputError(path, f"expected 4 columns (qid subtopic docno grade), found {len(fields)}", number)
        qid, subtopic, docno, grade = fields
        try:
            value = int(grade)
        except ValueError:
            raise InputError(path, f"grade '{grade.decode('utf-8', 'backslashreplace')}' is not an integer",
                             number) from None
        judged = grades.setdefault((qid, docno), {})
        if subtopic in judged:
            raise InputError(path, f"document '{docno.decode('utf-8', 'backslashreplace')}' is judged twice "
                                   f"for subtopic '{subtopic.decode('utf-8', 'backslashreplace')}'", number)
        judged[subtopic] = value
    if not grades:
        raise InputError(path, "no judgements")
    return SubtopicJudgements(path, grades)
