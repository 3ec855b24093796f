"""Every keyword of :func:`lexeval.evaluate` checked in one place, before
anything is read: a bad value is a :class:`~lexeval.errors.UsageError` (a
``ValueError``) that names the keyword, never an exception from deep inside.

The command line's options reach the same values through click, which
checks their text first; these checks are what a library caller meets.
"""

from __future__ import annotations

import math
import os
from numbers import Integral, Real

from .choices import AGGREGATES, CORRECTIONS, REL_FORMATS, TESTS
from .errors import UsageError

#: What the notes' options are called from Python.
KEYWORD_OF_FLAG = {"-c": "complete=True", "--verbose": "verbose=True", "-l": "level", "-M": "depth",
                   "-J": "judged_only=True", "--subtopics": "subtopics=True", "-R": "rel_format",
                   "--baseline": "baseline", "-Z": "zscores", "-N": "num_docs", "--test": "test",
                   "--correction": "correction", "--alpha": "alpha", "--aggregate": "aggregate",
                   "--rarity-weight": "rarity_weight", "--permutations": "permutations", "--ci": "ci=True",
                   "--pair-metrics": "pair_metrics=True", "--jobs": "jobs"}


#: The command line's flag of each keyword it checks here (its other options click checks).
FLAG_OF_KEYWORD = {"level": "-l", "depth": "-M", "num_docs": "-N", "rarity_weight": "--rarity-weight",
                   "jobs": "--jobs", "rel_format": "-R", "aggregate": "--aggregate", "zscores": "-Z"}


def _bad(name: str, rule: str) -> UsageError:
    """``name must ...``, the keyword and the rule kept apart (the command says its flag)."""
    error = UsageError(f"{name} {rule}")
    error.keyword, error.rule = name, rule
    return error


def as_flags(error: UsageError) -> UsageError:
    """A keyword's error in the command line's words: ``-l must be 0 or more``."""
    if error.keyword not in FLAG_OF_KEYWORD:
        return error
    return UsageError(f"{FLAG_OF_KEYWORD[error.keyword]} {error.rule}")


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def integer(name: str, value, low: int | None = None, optional: bool = False) -> int | None:
    """An integer (not a bool) of at least ``low``; None where ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise _bad(name, f"must be an integer{_above(low)}, got {_shown(value)}")
    if low is not None and value < low:
        raise _bad(name, f"must be {low} or more, got {value}")
    return int(value)


def _above(low) -> str:
    return "" if low is None else f" ({low} or more)"


def real(name: str, value, low: float, high: float | None, closed: bool = True) -> float:
    """A finite number in [low, high] (or (low, high) unless ``closed``)."""
    shown = f"[{low:g}, {high:g}]" if closed else f"({low:g}, {high:g})"
    if high is None:
        shown = f"{low:g} or more"
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
        raise _bad(name, f"must be a number in {shown}, got {_shown(value)}")
    inside = low <= value if closed else low < value
    if high is not None:
        inside = inside and (value <= high if closed else value < high)
    if not inside:
        raise _bad(name, f"must be in {shown}, got {value:g}")
    return float(value)


def boolean(name: str, value) -> bool:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":      # numpy's bool too
        raise _bad(name, f"must be True or False, got {_shown(value)}")
    return bool(value)


def choice(name: str, value, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _bad(name, f"must be one of {', '.join(choices)}; got {_shown(value)}")
    return value


def text(name: str, value, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise _bad(name, f"must be a non-empty string, got {_shown(value)}")
    return value


def path(name: str, value, optional: bool = True):
    if value is None and optional:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise _bad(name, f"must be a path, got {_shown(value)}")
    return os.fspath(value)


def significance(test, permutations, seed, correction, hsd, alpha, baseline, ci, confidence, resamples) -> dict:
    """The keywords of :class:`~lexeval.stats.pairs.SignificanceOptions`, checked."""
    return {"test": choice("test", test, TESTS),
            "permutations": integer("permutations", permutations, 1),
            "seed": integer("seed", seed, optional=True),
            "correction": choice("correction", "none" if correction is None else correction, CORRECTIONS),
            "hsd": boolean("hsd", hsd),
            "alpha": real("alpha", alpha, 0.0, 1.0),
            "baseline": text("baseline", baseline),
            "ci": boolean("ci", ci),
            "confidence": real("confidence", confidence, 0.0, 1.0, closed=False),
            "resamples": integer("resamples", resamples, 10)}


def reading(level, depth, complete, judged_only, subtopics, rel_format, num_docs, rarity_weight, aggregate,
            pair_metrics, jobs, verbose, zscores) -> dict:
    """The keywords of reading and measuring, checked."""
    return {"level": integer("level", level, 0),
            "depth": integer("depth", depth, 1, optional=True),
            "complete": boolean("complete", complete),
            "judged_only": boolean("judged_only", judged_only),
            "subtopics": boolean("subtopics", subtopics),
            "rel_format": choice("rel_format", rel_format, REL_FORMATS),
            "num_docs": integer("num_docs", num_docs, 0),
            "rarity_weight": real("rarity_weight", rarity_weight, 0.0, 1.0),
            "aggregate": choice("aggregate", aggregate, AGGREGATES),
            "pair_metrics": boolean("pair_metrics", pair_metrics),
            "jobs": integer("jobs", jobs, 1, optional=True),
            "verbose": boolean("verbose", verbose),
            "zscores": path("zscores", zscores)}


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
