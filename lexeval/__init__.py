"""lexeval: trec_eval-compatible evaluation with lexicographic preferences.

Library use mirrors the command line::

    from lexeval import evaluate
    ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])
    ev.column("map").values        # (runs, queries) per-query values

Names are imported on first use, so that ``lexeval --version`` and
``--help`` start without numpy.
"""

__version__ = "0.5.0"

_LAZY = {"evaluate": "api", "load": "evaluation", "Evaluation": "evaluation", "LexevalNote": "evaluation",
         "select_measures": "measures.names", "SignificanceOptions": "stats.pairs", "Timings": "timings",
         "UsageError": "errors", "InputError": "errors"}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'lexeval' has no attribute '{name}'")
