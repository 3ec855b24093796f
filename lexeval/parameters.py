"""The keywords of :func:`lexeval.evaluate` that are not options of a
group (:mod:`lexeval.options` checks those): the measures, given as names,
one string, ir_measures' objects or any iterable of them.
"""

from __future__ import annotations

from .checks import _shown
from .errors import UsageError


def measure_names(measures) -> list[str] | None:
    """``measures`` as -m values: None (the defaults), one name (``"map"``,
    or several separated by spaces), or any iterable of names and
    ir_measures' measure objects (a list, a numpy array, a pandas Index, a
    generator), in the order given."""
    if measures is None:
        return None
    if isinstance(measures, str) or _is_measure_object(measures):
        items = [measures]
    elif isinstance(measures, (bytes, dict)) or not hasattr(measures, "__iter__"):
        raise UsageError(f"measures must be a name, a list of names or None, got {_shown(measures)}")
    else:
        items = list(measures)
    names = []
    for index, item in enumerate(items):
        if _is_measure_object(item):
            item = str(item)                        # ir_measures' nDCG@10 prints as its name
        if not isinstance(item, str):
            raise UsageError(f"measures[{index}] must be a measure name, got {_shown(item)} "
                             f"({type(item).__name__})")
        names.append(str(item))
    if not names:
        raise UsageError("measures is empty: name some, or leave it None for the default measures")
    return names


def _is_measure_object(value) -> bool:
    """An ir_measures measure (``ir_measures.nDCG@10``), known without importing ir_measures."""
    return not isinstance(value, str) and hasattr(value, "NAME") and hasattr(value, "SUPPORTED_PARAMS")
