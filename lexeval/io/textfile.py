"""Whitespace-separated text files (qrels, runs) read into columns.

A file is read in line-aligned blocks (so memory follows the block, not the
file). Each block takes the fast path when it can: pyarrow's CSV reader,
multi-threaded C++ (or, without pyarrow, whole-array numpy), over the block
once its whitespace is made regular (one separator between fields, none at
line ends). A block the fast path cannot
take (mixed column counts, hexadecimal scores, a bad line) is read line by
line in Python: that path reads every valid file correctly and names the
file and line of the first problem. Both paths give the same columns.

Rules shared by both paths (the README's "Input files"): fields are separated by
spaces, tabs, vertical tabs or form feeds; lines end with LF or CRLF; a line
whose first non-blank character is '#' is skipped; a UTF-8 byte-order mark
at the start of the file is skipped; a NUL byte, or a CR not followed by LF,
is an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from . import kernel
from .blocks import decompressed, iter_blocks, read_error
from .grades import FractionalGrade
from .strings import (
    ByteStrings,
    have_arrow,
    numbers,
    shown,
)

MAX_GRADE = 10_000

BYTES, INTEGER, FLOAT = "bytes", "integer", "float"


@dataclass(frozen=True)
class Layout:
    """What a file's lines hold: named columns at positions, and how many
    columns a line may have."""

    name: str                         # e.g. "run", for messages
    description: str                  # e.g. "qid iter docno rank score [tag]"
    columns: tuple[tuple[int, str, str], ...]   # (position, name, kind)
    min_columns: int
    max_columns: int | None           # None: any number above the minimum
    kernel_code: int = 0              # how the compiled kernel names it (io.kernel)

    def accepts(self, count: int) -> bool:
        return count >= self.min_columns and (self.max_columns is None or count <= self.max_columns)

    def wrong_count(self, count: int) -> str:
        """The message for a line of ``count`` columns."""
        wanted = self.min_columns if self.max_columns == self.min_columns else self.min_columns + 1
        return f"expected {wanted} columns, found {count} ({self.description})"


@dataclass
class Columns:
    """A file's data lines as columns: ByteStrings for identifiers, numpy
    arrays for numbers; ``layout`` says which layout the file has."""

    path: str
    layout: Layout
    values: dict[str, object]
    num_rows: int
    last_fields: list[bytes] = field(default_factory=list)   # fields of the last data line

    def __getitem__(self, name: str):
        return self.values[name]


#: The layouts of qrels, TREC run and MS MARCO run lines.
QRELS_LAYOUT = Layout("qrels", "qid iter docno grade",
                      ((0, "qid", BYTES), (2, "docno", BYTES), (3, "grade", INTEGER)), 4, 4, kernel.QRELS)
RUN_LAYOUT = Layout("run", "qid iter docno rank score [tag]",
                    ((0, "qid", BYTES), (2, "docno", BYTES), (4, "score", FLOAT)), 5, None, kernel.RUN)
MSMARCO_LAYOUT = Layout("MS MARCO", "qid docid rank",
                        ((0, "qid", BYTES), (1, "docno", BYTES), (2, "rank", INTEGER)), 3, 3, kernel.MSMARCO)
RUN_LAYOUTS = [RUN_LAYOUT, MSMARCO_LAYOUT]
LAYOUT_OF_CODE = {layout.kernel_code: layout for layout in (QRELS_LAYOUT, RUN_LAYOUT, MSMARCO_LAYOUT)}


# ---------------------------------------------------------------- field syntax

_DECIMAL = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
                      rb"(?i:inf|infinity|nan))")
_HEXADECIMAL = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_INTEGER = re.compile(rb"[+-]?[0-9]+")


def parse_float(text: bytes) -> float | None:
    """A number as C's strtod reads a whole field: decimal (1, -0.5, 2e-3,
    inf) or hexadecimal (0x1p3); None if the field is not one."""
    if _DECIMAL.fullmatch(text):
        return float(text)
    if _HEXADECIMAL.fullmatch(text):
        body = text.lstrip(b"+-")
        value = float.fromhex(body.decode("ascii"))
        return -value if text.startswith(b"-") else value
    return None


def parse_integer(text: bytes) -> int | None:
    return int(text) if _INTEGER.fullmatch(text) else None


# ---------------------------------------------------------------- the slow, exact path


def grade_problem(path: str, line: int | None, text: bytes, unit: str = "line") -> InputError:
    """The error for a grade that is not an integer: :class:`FractionalGrade`
    where it is a finite number (the caller reads the file as fractional),
    else bad input naming it."""
    value = parse_float(text)
    if value is not None and math.isfinite(value):
        return FractionalGrade(path, f"grade '{shown(text)}' is not an integer", line, unit=unit)
    what = "not a finite number" if value is not None else "not a number"
    return InputError(path, f"grade '{shown(text)}' is {what}", line, unit=unit)


def _problem(path: str, line: int, message: str) -> InputError:
    return InputError(path, message, line)


def data_fields(line: bytes, path: str, number: int) -> list[bytes] | None:
    """A line's fields (a CR before its LF dropped), None for a blank or
    comment line; a line whose bytes are wrong is bad input."""
    if line.endswith(b"\r"):
        line = line[:-1]
    trouble = check_line(line)
    if trouble:
        raise _problem(path, number, trouble)
    fields = line.split()
    return None if not fields or fields[0].startswith(b"#") else fields


def check_line(line: bytes) -> str | None:
    """What is wrong with a line's bytes themselves, if anything."""
    if b"\x00" in line:
        return "NUL byte in the line (is this a text file?)"
    if b"\r" in line:
        return "carriage return inside the line (CR-only line endings? convert them to LF)"
    return None


def _slow_block(block: bytes, first_line: int, path: str, layouts: list[Layout],
                chosen: list[Layout]) -> tuple[dict, list[bytes]]:
    """Read a block line by line; ``chosen`` holds the file's layout once
    known (the first data line decides). Raises InputError at the first
    bad line."""
    lists: dict[str, list] = {}
    last: list[bytes] = []
    for number, line in enumerate(bytes(block).split(b"\n"), start=first_line):
        fields = data_fields(line, path, number)
        if fields is None:
            continue
        if not chosen:
            chosen.append(_choose_layout(path, number, len(fields), layouts))
        layout = chosen[0]
        if not layout.accepts(len(fields)):
            other = [lay for lay in layouts if lay is not layout and lay.accepts(len(fields))]
            if other:
                raise _problem(path, number, f"{len(fields)} columns ({other[0].description}), but the "
                                             f"file's first line has {layout.name} columns ({layout.description}); "
                                             "one format per file")
            raise _problem(path, number, layout.wrong_count(len(fields)))
        for position, name, kind in layout.columns:
            text = fields[position]
            value: bytes | int | float | None
            if kind == BYTES:
                value = text
            elif kind == INTEGER:
                value = parse_integer(text)
                if value is None and name == "grade":
                    raise grade_problem(path, number, text)
                if value is None:
                    raise _problem(path, number, f"{name} '{shown(text)}' is not an integer")
                if name == "grade" and abs(value) > MAX_GRADE:  # value is an int here
                    raise _problem(path, number, f"grade {value} is out of range (|grade| <= {MAX_GRADE})")
            else:
                value = parse_float(text)
                if value is None:
                    raise _problem(path, number, f"{name} '{shown(text)}' is not a number")
                if math.isnan(value):
                    raise _problem(path, number, f"{name} is NaN")
            lists.setdefault(name, []).append(value)
        last = fields
    if not chosen:
        return {}, last
    values: dict[str, object] = {}
    for _, name, kind in chosen[0].columns:
        items = lists.get(name, [])
        if kind == BYTES:
            values[name] = ByteStrings.from_list(items)
        else:
            values[name] = np.array(items, dtype=np.int64 if kind == INTEGER else np.float64)
    return values, last


def _choose_layout(path: str, number: int, count: int, layouts: list[Layout]) -> Layout:
    for layout in layouts:
        if layout.accepts(count):
            return layout
    others = "".join(f"; {lay.name} files have {lay.min_columns} ({lay.description})" for lay in layouts[1:])
    raise _problem(path, number, layouts[0].wrong_count(count) + others)


# ---------------------------------------------------------------- the fast path

_COMMENT_LINE = re.compile(rb"(?m)^[ ]*#[^\n]*")
_SEPARATORS = bytes.maketrans(b"\t\x0b\x0c", b"   ")
_RUN_OF_SPACES = re.compile(rb" {2,}")
_EDGE_SPACE = re.compile(rb"(?m)^ | $")


def _cleaned(block: bytes) -> bytes | None:
    """The block with LF line ends, spaces as the only separator and
    comment lines emptied; None if it holds a NUL or a lone CR (the slow
    path names the line). Only single-byte searches: they run at memory
    speed."""
    if b"\x00" in block:
        return None
    if b"\r" in block:
        if block.count(b"\r") != block.count(b"\r\n"):
            return None
        block = block.replace(b"\r\n", b"\n")
    if b"\t" in block or b"\x0b" in block or b"\x0c" in block:
        block = block.translate(_SEPARATORS)
    if b"#" in block:
        block = _COMMENT_LINE.sub(b"", block)
    return block


def _squeezed(text: bytes) -> bytes:
    """One space between fields, none at the ends of lines."""
    return _EDGE_SPACE.sub(b"", _RUN_OF_SPACES.sub(b" ", text))


_NOT_NEWLINE = re.compile(rb"[^\n]")


def _first_data_line(text: bytes) -> bytes:
    """The first line that is not empty ('' if none): found by a regular
    expression, so a file of blank lines is passed over at memory speed."""
    found = _NOT_NEWLINE.search(text)
    if found is None:
        return b""
    end = text.find(b"\n", found.start())
    return text[found.start():end if end >= 0 else len(text)]


def _fast_block(block: bytes, layouts: list[Layout], chosen: list[Layout]):
    """Columns of a block through pyarrow (numpy without it), or None if it
    cannot take it.

    Fields must be separated by exactly one space: pyarrow reads every
    column of the first line's count, and an empty field anywhere means the
    spacing was irregular, so the block is squeezed and read once more."""
    text = _cleaned(block) if have_arrow() else None
    if text is None:
        return None
    first = _first_data_line(text)
    if not first:
        return {}, []
    squeezed = first.startswith(b" ") or first.endswith(b" ") or b"  " in first
    if squeezed:
        text = _squeezed(text)
    result = _parsed(text, layouts, chosen)
    if result is None and not squeezed:
        result = _parsed(_squeezed(text), layouts, chosen)
    return result


def _parsed(text: bytes, layouts: list[Layout], chosen: list[Layout]):
    """(values, last line's fields) of a text with one space between fields,
    or None when the fast parser cannot take it or a value needs the slow
    path's message (NaN, a grade out of range)."""
    count = _first_data_line(text).count(b" ") + 1
    layout = chosen[0] if chosen else next((lay for lay in layouts if lay.accepts(count)), None)
    if layout is None or not layout.accepts(count):
        return None
    values = _arrow_block(text, layout, count)
    if values is None:
        return None
    for _, name, kind in layout.columns:
        if kind == FLOAT and np.isnan(values[name]).any():
            return None
        if name == "grade" and len(values[name]) and np.abs(values[name]).max() > MAX_GRADE:
            return None
    if not chosen:
        chosen.append(layout)
    return values, bytes(_last_data_line(text)).split(b" ")


def _arrow_block(text: bytes, layout: Layout, count: int) -> dict | None:
    """The columns of a text whose lines have ``count`` fields with one
    space between them, through pyarrow's CSV reader; None if it cannot
    take it (an empty field means the spacing was irregular)."""
    import pyarrow as pa
    from pyarrow import csv

    kinds = {position: kind for position, _, kind in layout.columns}
    types = {f"f{i}": pa.int64() if kinds.get(i) == INTEGER else pa.float64() if kinds.get(i) == FLOAT
             else pa.binary() for i in range(count)}
    try:
        table = csv.read_csv(
            pa.py_buffer(text),
            read_options=csv.ReadOptions(autogenerate_column_names=True, use_threads=True,
                                         block_size=1 << 22),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                           escape_char=False, newlines_in_values=False,
                                           ignore_empty_lines=True),
            convert_options=csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                               quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, KeyError):
        return None
    for i in range(count):                      # an empty field: spacing was irregular
        if i not in kinds or kinds[i] == BYTES:
            for chunk in table.column(f"f{i}").chunks:
                offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset:chunk.offset + len(chunk) + 1]
                if len(chunk) and (offsets[1:] == offsets[:-1]).any():
                    return None
    values = {}
    for position, name, kind in layout.columns:
        column = table.column(f"f{position}")
        values[name] = column if kind == BYTES else numbers(column)    # bytes: copied once, by the builder
    return values


def _last_data_line(text: bytes) -> bytes:
    """The last line that is not empty (comment lines are empty by now),
    without copying the text."""
    end, step = len(text), 4096
    while end:               # back over blank lines, a growing piece at a time (no byte-by-byte loop)
        start = max(end - step, 0)
        kept = len(text[start:end].rstrip(b"\n"))
        if kept:
            end = start + kept
            break
        end, step = start, min(2 * step, 1 << 20)
    return text[text.rfind(b"\n", 0, end) + 1:end]


# ---------------------------------------------------------------- whole files


def block_columns(block, first_line: int, path: str, layouts: list[Layout], chosen: list[Layout],
                  fast: bool = True) -> Columns | None:
    """The data lines of one block of a file as columns (None if it has
    none); ``chosen`` holds the file's layout once its first data line is
    read, and ``first_line`` is the block's first line number (for errors)."""
    result = _fast_block(block, layouts, chosen) if fast else None
    if result is None:
        result = _slow_block(block, first_line, path, layouts, chosen)
    values, tail = result
    if not values:
        return None
    values = {name: value if isinstance(value, (np.ndarray, ByteStrings)) else ByteStrings.from_arrow(value)
              for name, value in values.items()}
    _release_arrow_memory()
    return Columns(path, chosen[0], values, len(next(iter(values.values()))), tail)


def _release_arrow_memory() -> None:
    """Give pyarrow's freed blocks back to the system (its allocator keeps
    them otherwise, and a big file's blocks would add up)."""
    if have_arrow():
        import pyarrow
        pyarrow.default_memory_pool().release_unused()


def find_line(path: str, layouts: list[Layout], test) -> None:
    """Re-read ``path`` line by line and call ``test(number, fields)`` on each
    data line: for the errors only the whole file reveals (a document twice),
    which ``test`` raises at the right line."""
    first_line = 1
    for block in iter_blocks(path):
        text = bytes(block)
        for number, line in enumerate(text.split(b"\n")[:-1], start=first_line):
            fields = line.split()
            if fields and not fields[0].startswith(b"#"):
                test(number, fields)
        first_line += text.count(b"\n")


def small_file_fields(path: str) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of each data line of a small file read whole
    (subtopic qrels, grouped judgements, -Z files): decompressed by its first bytes, a
    UTF-8 byte-order mark skipped, blank and '#' lines passed over, a NUL
    byte an error."""
    try:
        with open(path, "rb") as raw:
            data = raw.read()
    except OSError as exc:
        raise read_error(path, exc) from None
    data = decompressed(data, path)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if b"\0" in line:
            raise InputError(path, "a NUL byte in the line", number)
        yield number, fields

