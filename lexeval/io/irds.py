"""Qrels by ir_datasets id: ``irds:msmarco-passage/trec-dl-2019/judged``.

The ``ir_datasets`` package (lexeval's ``irds`` extra) finds the dataset's
qrels, in its cache (``IR_DATASETS_HOME``) or by downloading them once, as
ranx's ``Qrels.from_ir_datasets`` does; lexeval reads its records as it reads
ir_measures' tuples. Diversity qrels (records with a ``subtopic_id``) are
read as ndeval reads them with ``--subtopics``.
"""

from __future__ import annotations

from ..errors import InputError, UsageError
from .subtopics import SubtopicJudgements

PREFIX = "irds:"


def is_irds(given) -> bool:
    """Whether ``given`` names a dataset (``irds:ID``), not a file."""
    return isinstance(given, str) and given.startswith(PREFIX)


def _dataset(name: str):
    dataset_id = name[len(PREFIX):]
    if not dataset_id:
        raise UsageError(f"{name}: name a dataset after irds: (e.g. irds:msmarco-passage/trec-dl-2019/judged)")
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"{name}: reading qrels by ir_datasets id needs the ir_datasets package: install "
                         "lexeval with its irds extra (pip install '<lexeval's path or git URL>[irds]') or "
                         "pip install ir_datasets") from None
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise UsageError(f"{name}: ir_datasets has no dataset '{dataset_id}' (its catalogue: "
                         "https://ir-datasets.com)") from None
    if not dataset.has_qrels():
        raise InputError(name, f"the dataset '{dataset_id}' has no qrels")
    return dataset


def _records(name: str):
    """Every qrels record of the dataset (ir_datasets reads or downloads the file here)."""
    try:
        return list(_dataset(name).qrels_iter())
    except (UsageError, InputError):
        raise
    except Exception as exc:            # ir_datasets' download and format errors: bad input, not a bug
        raise InputError(name, f"ir_datasets could not read the qrels ({type(exc).__name__}: {exc})") from None


def irds_qrels(name: str, subtopics: bool):
    """The dataset's qrels: ir_measures-style records (query_id, doc_id,
    relevance), or with ``subtopics`` the diversity judgements."""
    records = _records(name)
    if not records:
        raise InputError(name, "no judgements")
    if not subtopics:
        return records
    if not hasattr(records[0], "subtopic_id"):
        raise InputError(name, "these qrels have no subtopics (ir_datasets' records lack subtopic_id): leave out "
                               "--subtopics and the diversity measures")
    grades: dict[tuple[bytes, bytes], dict[bytes, int]] = {}
    for record in records:
        judged = grades.setdefault((str(record.query_id).encode(), str(record.doc_id).encode()), {})
        subtopic = str(record.subtopic_id).encode()
        if subtopic in judged:
            raise InputError(name, f"document '{record.doc_id}' is judged twice for subtopic "
                                   f"'{record.subtopic_id}' of query '{record.query_id}'")
        judged[subtopic] = int(record.relevance)
    return SubtopicJudgements(name, grades)
