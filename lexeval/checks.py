"""The checks of a value a user gives: an integer, a number in bounds, a
flag, a choice, a text, a path. A bad value is a
:class:`~lexeval.errors.UsageError` that names the option (its keyword;
the command line says its flag instead), never an exception from deep
inside."""

from __future__ import annotations

import math
import os
from numbers import Integral, Real

from .errors import UsageError


def _bad(name: str, rule: str) -> UsageError:
    """``name must ...``, the keyword and the rule kept apart (the command says its flag)."""
    error = UsageError(f"{name} {rule}")
    error.keyword, error.rule = name, rule
    return error


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def integer(name: str, value, low: int | None = None, optional: bool = False) -> int | None:
    """An integer (not a bool) of at least ``low``; None where ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise _bad(name, f"must be an integer{'' if low is None else f' ({low:g} or more)'}, got {_shown(value)}")
    if low is not None and value < low:
        raise _bad(name, f"must be {low:g} or more, got {value}")
    return int(value)


def real(name: str, value, low: float, high: float | None, closed: bool = True, optional: bool = False):
    """A finite number in [low, high] (or (low, high) unless ``closed``)."""
    if value is None and optional:
        return None
    if high is None:
        shown = f"{low:g} or more"
    else:
        shown = f"[{low:g}, {high:g}]" if closed else f"({low:g}, {high:g})"
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
        raise _bad(name, f"must be a number{'' if high is None else ' in'} {shown}, got {_shown(value)}")
    if math.isinf(value):
        raise _bad(name, f"must be a finite number{'' if high is None else ' in'} {shown}, got {value}")
    number = float(value)
    inside = low <= number if closed else low < number
    if high is not None:
        inside = inside and (number <= high if closed else number < high)
    if not inside:
        raise _bad(name, f"must be {'' if high is None else 'in '}{shown}, got {value:g}")
    return float(value)


def boolean(name: str, value) -> bool:
    if not isinstance(value, bool) and type(value).__name__ != "bool_":      # numpy's bool too
        raise _bad(name, f"must be True or False, got {_shown(value)}")
    return bool(value)


def choice(name: str, value, choices: tuple[str, ...], optional: bool = False) -> str | None:
    if value is None and optional:
        return None
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
