"""How a result's values print: the blocks of lines every writer reads
(:class:`Block`, :class:`PairBatch`, :class:`Record`) and each value's
text, as trec_eval prints it (``%6.4f``, ``%.4g`` for p-values, ``%d``),
made a whole column at a time (``-q`` on a hundred runs is millions of
values: most are looked up among the texts already made, not printed one
by one)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

FLOAT, INTEGER, TEXT, QUOTED, PVALUE = "float", "int", "text", "quoted", "p"


class PairKeys(Sequence):
    """The keys "A:B" of pairs of runs (``pairs`` (k, 2) row numbers into
    ``names``), each made only when read: a thousand runs have half a
    million pairs, and the compiled text layout reads the numbers."""

    def __init__(self, names: list[str], pairs: np.ndarray):
        self.names, self.pairs = names, pairs

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return PairKeys(self.names, self.pairs[index])
        first, second = self.pairs[index].tolist()
        return f"{self.names[first]}:{self.names[second]}"

    def __iter__(self) -> Iterator[str]:
        names = self.names
        firsts, seconds = self.pairs.T.tolist()     # ints: an array's rows are slow to walk
        return (f"{names[a]}:{names[b]}" for a, b in zip(firsts, seconds))

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, (list, PairKeys)) else NotImplemented


class Block(NamedTuple):
    """Output lines by group: for each group i (a key and a qid) in turn,
    one line per name, ``values[j][i]`` being measure ``names[j]`` there."""

    keys: Sequence[str]       # per group: a run name, or "A:B" for a pair (a list, or PairKeys)
    qids: list[str]           # per group: a query id, or "all"
    names: list[str]
    values: list              # (names) x (groups): a list or an array per name
    styles: list[str]         # per name: FLOAT, INTEGER, TEXT or QUOTED
    texts: list[list] | None = None     # (names) x (groups) the text writer's values, made already ("...\n")


class PairBatch(NamedTuple):
    """Consecutive pairs' per-query blocks (``-q``), each followed by its
    'all' lines if any, as arrays: for the text writer to lay out together
    (:func:`batch_bytes`); :meth:`blocks` gives the same lines as blocks."""

    keys: list[str]               # per pair: "A:B"
    qids: list[str]
    names: list[str]
    values: list[np.ndarray]      # per name: (pairs, queries) floats
    summary: Block | None         # the pairs' 'all' lines, a group per pair (the same keys), texts made

    def blocks(self) -> Iterator[Block]:
        for k, key in enumerate(self.keys):
            yield Block([key] * len(self.qids), self.qids, self.names, [values[k] for values in self.values],
                        [FLOAT] * len(self.names))
            if self.summary is not None:
                every = self.summary
                yield Block([every.keys[k]], ["all"], every.names, [v[k:k + 1] for v in every.values],
                            every.styles, [[texts[k]] for texts in every.texts or []])


class Record(NamedTuple):
    """One output line (for the table, and for reports)."""

    key: str
    measure: str
    qid: str
    value: object
    style: str = FLOAT


def formatted(values: list, style: str, end: str = "") -> list[str]:
    """trec_eval's text of each value: ``%6.4f`` floats, ``%d`` counts,
    quoted relstrings, plain text; each followed by ``end``."""
    if style == FLOAT:
        return ["%6.4f%s" % (value, end) for value in values]
    if style == PVALUE:         # small p-values stay readable: 1.581e-10, not 0.0000
        return ["%.4g%s" % (value, end) for value in values]
    if style == INTEGER:
        return ["%d%s" % (value, end) for value in values]
    if style == QUOTED:
        return [f"'{value}'{end}" for value in values]
    return [f"{value}{end}" for value in values]


_FOUR_DECIMALS: dict[str, np.ndarray] = {}


def four_decimals(values: np.ndarray, end: str = "") -> np.ndarray:
    """``%6.4f`` of each value (an object array of str, same shape),
    exactly as Python and trec_eval's C print them. Values below 10 in size
    whose fifth decimal is not near a tie are looked up among the 200,000
    possible texts; the others are printed one by one. Printing millions of
    per-query values one by one is most of ``-q``'s time. Each text is
    followed by ``end``."""
    values = np.asarray(values, dtype=np.float64)
    index, plain = _four_decimal_index(values)
    texts = _four_decimal_texts(end)[index]
    for i in zip(*np.nonzero(~plain)):
        texts[i] = "%6.4f%s" % (values[i], end)
    return texts


def _four_decimal_texts(end: str) -> np.ndarray:
    """(200000,) ``%6.4f`` of 0.0000 .. 9.9999, then of their negatives, each followed by ``end``."""
    if end not in _FOUR_DECIMALS:
        plus = np.array(["%d.%04d%s" % (*divmod(k, 10000), end) for k in range(100000)], dtype=object)
        _FOUR_DECIMALS[end] = np.concatenate([plus, "-" + plus])
    return _FOUR_DECIMALS[end]


def _four_decimal_index(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's place among :func:`_four_decimal_texts`, and whether it
    may be looked up (else 0 and False: printed one by one)."""
    size = np.abs(values)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = size * 10000.0
        # far from a tie next to the product's rounding error: rounding it rounds the exact value
        plain = (size < 9.99994) & (np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6)
        index = np.where(plain, np.rint(scaled), 0).astype(np.int64) + 100000 * np.signbit(values)
    return index, plain


_SIGNIFICANT: dict[str, tuple] = {}


_POWERS_OF_TEN = 10.0 ** np.arange(305)             # 10**304 is the last a float holds


def four_significant(values, end: str = "") -> np.ndarray:
    """``%.4g`` of each value (an object array of str), exactly as Python
    prints it: p-values, most of a thousand runs' output. Values in (0, 1)
    whose fifth significant digit is not near a tie are looked up (the
    mantissa's text, then the exponent's); 0, 1 and the others are printed
    one by one. Each text is followed by ``end``."""
    fixed, mantissa, exponent = _significant_texts(end)
    values = np.asarray(values, dtype=np.float64).ravel()
    plain, power, digits = _significant_parts(values)
    texts = np.empty(len(values), dtype=object)
    near = plain & (power >= -4)                              # 0.1234, 0.01234, ..., 0.0001234
    texts[near] = fixed[-1 - power[near], digits[near]]
    far = plain & (power < -4)                                # 1.234e-05
    texts[far] = mantissa[digits[far]] + exponent[-power[far]]
    for i in np.flatnonzero(~plain).tolist():
        texts[i] = "%.4g%s" % (values[i], end)
    return texts


def _significant_texts(end: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """%.4g's pieces: (4, 9000) ``0.1234`` .. ``0.0001234`` by leading zeros
    and four digits (trailing zeros dropped), then ``end``; (9000,)
    mantissas ``1.234``; (400,) exponents ``e-05``, then ``end``."""
    if end not in _SIGNIFICANT:
        digits = [str(m).rstrip("0") for m in range(1000, 10000)]            # 1200 -> "12"
        fixed = np.array([["0." + "0" * zeros + d + end for d in digits] for zeros in range(4)], dtype=object)
        mantissa = np.array([d[0] + ("." + d[1:] if len(d) > 1 else "") for d in digits], dtype=object)
        exponent = np.array(["e-%02d%s" % (k, end) for k in range(400)], dtype=object)
        _SIGNIFICANT[end] = fixed, mantissa, exponent
    return _SIGNIFICANT[end]


def _significant_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(plain, power, digits) of each value (n,): whether its %.4g may be
    looked up, its power of ten (-1 for 0.1 .. 0.99) and its four digits
    less 1000."""
    inside = (values > 1e-300) & (values < 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        power = np.floor(np.log10(np.where(inside, values, 0.5))).astype(np.int64)    # -1 for 0.1 .. 0.99
        scaled = values * _POWERS_OF_TEN[3 - power]            # in [1000, 10000): the four digits and the rest
        rest = scaled - np.floor(scaled)
        # far from a tie and from the decade's ends next to the product's rounding error
        plain = inside & (np.abs(rest - 0.5) > 1e-6) & (scaled >= 1000.0 + 1e-6) & (scaled < 9999.5 - 1e-6)
        digits = np.where(plain, np.rint(scaled), 1000).astype(np.int64) - 1000
    return plain, power, digits


def without_negative_zero(values) -> np.ndarray:
    """``values`` (an array) with those that print as -0.0000 made 0.0: a
    difference of nothing is no drop (trec_eval's own measures keep their
    text; this is for lexeval's pair lines)."""
    values = np.asarray(values, dtype=np.float64)
    near = (values <= 0.0) & (values > -0.0000501)
    if not near.any():
        return values
    flat = values.ravel().copy()
    for i in np.flatnonzero(near).tolist():
        if "%6.4f" % flat[i] == "-0.0000" or flat[i] == 0.0:
            flat[i] = 0.0
    return flat.reshape(values.shape)


def line_texts(values: list[list], styles: list[str], groups: int) -> list[list[str]]:
    """Per name, each value's text and the line's end (see :func:`formatted`)."""
    floats = [j for j, style in enumerate(styles) if style == FLOAT]
    p_values = [j for j, style in enumerate(styles) if style == PVALUE]
    printed: dict[int, list] = {}
    _FLOATS_SEEN[0] += (len(floats) + len(p_values)) * groups
    # many floats: printed together, looked up in a table that costs as much to make as 100,000 printed
    if _FOUR_DECIMALS or _FLOATS_SEEN[0] > 100_000:
        if len(floats) * groups >= 256:
            printed.update(zip(floats, four_decimals(np.array([values[j] for j in floats]), "\n").tolist()))
        if len(p_values) * groups >= 256:
            texts = four_significant(np.array([values[j] for j in p_values]), "\n").reshape(len(p_values), groups)
            printed.update(zip(p_values, texts.tolist()))
    for j, style in enumerate(styles):       # counts (wins, losses, ties): small integers, looked up
        if style == INTEGER and j not in printed and groups >= 256:
            column = np.asarray(values[j])
            if column.dtype.kind in "iu" and len(column) and column.min() >= 0 and column.max() < 1 << 16:
                printed[j] = _integer_texts(int(column.max()))[column].tolist()
    return [printed[j] if j in printed else formatted(column, style, "\n")
            for j, (column, style) in enumerate(zip(values, styles))]


_INTEGERS: list[np.ndarray] = []


def _integer_texts(largest: int) -> np.ndarray:
    """``%d\n`` of 0 .. largest at least, made once."""
    if not _INTEGERS or len(_INTEGERS[0]) <= largest:
        _INTEGERS[:] = [np.array(["%d\n" % k for k in range(max(largest + 1, 1024))], dtype=object)]
    return _INTEGERS[0]


_FLOATS_SEEN = [0]                   # floats printed by this process so far
