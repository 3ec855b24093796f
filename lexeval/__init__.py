"""lexeval: trec_eval-compatible evaluation with lexicographic preferences.

Library use mirrors the command line::

    from lexeval import evaluate
    ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])
    ev.column("map").values        # (runs, queries) per-query values
"""

__version__ = "0.1.0"

from .evaluation import (Evaluation, SignificanceOptions, evaluate, load,  # noqa: E402
                         select_measures)

__all__ = ["evaluate", "load", "select_measures", "Evaluation", "SignificanceOptions", "__version__"]
