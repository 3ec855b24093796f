"""Where a result came from: the command as typed, each input's name, size
and SHA-256 prefix, the options that change numbers, lexeval's version and
the date. The HTML page shows it in its header; ``--provenance`` puts it
in the JSON output's first record."""

from __future__ import annotations

import datetime
import os

from ..io.digest import file_facts


def provenance(evaluation, command: str | None = None) -> dict:
    """The facts of an evaluation (one machine's or a cluster's; what it
    does not know is None)."""
    from .. import __version__
    inputs = getattr(evaluation, "inputs", None)
    reading = inputs.reading if inputs is not None else None
    level = reading.level if reading is not None else getattr(evaluation, "level", None)
    rankings = getattr(evaluation, "rankings", None)
    qrels = inputs.qrels if inputs is not None else getattr(getattr(rankings, "qrels", None), "path", None)
    if qrels is not None and not isinstance(qrels, (str, os.PathLike)):
        qrels = getattr(getattr(rankings, "qrels", None), "path", None)       # a table: its name
    fill = reading.fill_qrels if reading is not None else None
    files = ([file_facts(qrels, "qrels")] if qrels else []) + ([file_facts(fill, "fill-qrels")] if fill else []) + \
        [file_facts(run, "run") for run in (inputs.runs if inputs is not None else ())]
    filled = getattr(getattr(rankings, "qrels", None), "filled", None)
    options = getattr(evaluation, "options", None)
    numbers = {
        "relevance_level": level,
        "depth": reading.depth if reading is not None else None,
        "judged_only": reading.judged_only if reading is not None else None,
        "complete": getattr(evaluation, "complete", None),
        "test": options.test if options is not None else None,
        "correction": options.correction if options is not None else None,
        "alpha": options.alpha if options is not None else None,
        "seed": options.seed if options is not None else None,
        "permutations": options.permutations if options is not None and options.test == "randomization" else None,
        "baseline": options.baseline if options is not None else None,
        "confidence": options.confidence if options is not None and options.ci else None,
        # --fill-qrels: which set judged what (the judgements FILE gave; the qrels gave the rest)
        "fill_qrels": fill,
        "filled_judgements": int(filled.sum()) if fill and filled is not None else None,
    }
    return {
        "lexeval": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "command": command,
        "inputs": files,
        "options": numbers,
        "reproduce": f"pip install 'lexeval=={__version__}' && {command}" if command else None,
    }
