"""Fractional grades, below the readers: the error that sends a qrels to
:mod:`lexeval.io.fractional`, and the relevance codes such grades become."""

from __future__ import annotations

import numpy as np

from ..errors import InputError


class FractionalGrade(InputError):
    """A qrels grade that is a finite number but not an integer: the qrels
    are read again as fractional (see :func:`read_fractional`)."""


def codes_of(grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes (n,) int64, grade_values (K,) float64) of finite grades."""
    positive = np.unique(grades[grades > 0])
    values = np.concatenate([[0.0], positive])
    codes = np.where(grades > 0, np.searchsorted(positive, grades) + 1, np.where(grades < 0, -1, 0))
    return codes.astype(np.int64), values
