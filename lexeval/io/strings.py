"""Identifiers as variable-length byte strings, compared exactly.

qids and docnos are byte strings of any length (UTF-8 or not). They are held
as one byte buffer plus offsets, so memory follows the bytes actually read,
never the longest identifier. A 64-bit hash of each string speeds up
look-ups; whether two strings are the same is always decided by comparing
their bytes (:meth:`ByteStrings.equal`), so the hash can never change a
result, only the time it takes.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

_PAD = 16                     # zero bytes after the data: 8-byte reads at any string's first 16 bytes stay in bounds
_LONG = 256                   # bytes left after which a few strings are compared in Python
_HASHED_WORDWISE = 512        # leading bytes hashed word by word (the rest by blake2b)
_FEW = 64                     # "a few"
_GATHERED = 4096              # strings longer than this are copied by slicing
_GATHER_BYTES = 1 << 22       # bytes gathered at once (bounds the index arrays)
_SORTED_IN_PYTHON = 50_000    # up to this many strings are ranked in Python
_RANKED_BY_WORDS = 64         # strings up to this long are ranked by numpy's sort of their words
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit affects every output bit."""
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def mix(x: np.ndarray) -> np.ndarray:
    """Public face of the finaliser (uint64 in, uint64 out, wrapping)."""
    with np.errstate(over="ignore"):
        return _mix(np.asarray(x, dtype=np.uint64))


_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _low_bytes_mask(count: np.ndarray) -> np.ndarray:
    """uint64 masks keeping the ``count`` lowest bytes (all 8 from 8 on,
    none at 0 or below)."""
    return np.take(_MASKS, count, mode="clip")         # clip: below 0 is 0, above 8 is 8


_ARROW: list[bool] = []


def have_arrow() -> bool:
    """Whether pyarrow can be imported. It is a dependency, but everything
    reading files needs also works without it, on numpy alone (slower):
    a missing package must not turn into a traceback."""
    if not _ARROW:
        try:
            import pyarrow.compute  # noqa: F401
            _ARROW.append(True)
        except ImportError:
            _ARROW.append(False)
    return _ARROW[0]


def numbers(array) -> np.ndarray:
    """A pyarrow numeric array (or chunked array) without nulls as numpy,
    read from its buffers: pyarrow's own ``to_numpy`` imports pandas when it
    is installed, which costs more than a small evaluation."""
    import pyarrow as pa
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    dtype = _NUMPY_TYPES[str(array.type)]
    parts = [np.frombuffer(chunk.buffers()[1], dtype=dtype)[chunk.offset:chunk.offset + len(chunk)]
             for chunk in chunks if len(chunk)]
    return np.concatenate(parts) if len(parts) > 1 else parts[0].copy() if parts else np.zeros(0, dtype)


_NUMPY_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
                "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float": np.float32,
                "double": np.float64}


def arrow_indices(index) -> object:
    """int64 positions as a pyarrow array, without a copy (and without the
    pandas import ``pa.array`` brings)."""
    import pyarrow as pa
    index = np.ascontiguousarray(index, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(index), [None, pa.py_buffer(index)])


def _compiled_gather():
    """The compiled reading kernel's ``gather_pieces`` where it is built and
    on (as :func:`lexeval.io.kernel.enabled` says; read here, not imported
    from there, which imports this module), else None."""
    if os.environ.get("LEXEVAL_KERNEL", "on") == "off":
        return None
    try:
        from . import _kernel  # type: ignore[attr-defined]  # the compiled module: no type information
    except ImportError:
        return None
    return _kernel.gather_pieces


def _compiled_strings():
    """The compiled reading kernel's ``gather_strings`` where it is built and on, else None."""
    if _compiled_gather() is None:
        return None
    from . import _kernel  # type: ignore[attr-defined]
    return _kernel.gather_strings


class ByteStrings:
    """n byte strings end to end: ``data`` (uint8, followed by 8 zero bytes
    of padding) and ``offsets`` (n + 1,) int64; string i is
    ``data[offsets[i]:offsets[i + 1]]``."""

    __slots__ = ("data", "offsets")

    def __init__(self, data: np.ndarray, offsets: np.ndarray):
        self.data = data
        self.offsets = offsets

    # ------------------------------------------------------------ building
    @classmethod
    def from_list(cls, strings: list[bytes]) -> ByteStrings:
        lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
        offsets = np.zeros(len(strings) + 1, dtype=np.int32 if lengths.sum() < 2 ** 31 - 64 else np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = np.frombuffer(b"".join(strings) + bytes(_PAD), dtype=np.uint8)
        return cls(data, offsets)

    @classmethod
    def from_spans(cls, data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> ByteStrings:
        """The byte ranges ``data[starts[i]:ends[i]]`` (uint8 data), copied
        end to end: by the compiled reading kernel where it is built (a copy
        per string), else short strings are gathered a few megabytes at a
        time (the index arrays cost 16 bytes a byte), long ones sliced whole."""
        gather = _compiled_gather()
        starts = np.asarray(starts, dtype=np.int64)
        lengths = np.asarray(ends, dtype=np.int64) - starts
        total = int(lengths.sum())
        offsets = np.zeros(len(lengths) + 1, dtype=np.int32 if total < 2 ** 31 - 64 else np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if gather is not None and len(lengths):         # the strings joined, then copied before the padding
            joined = gather(data, starts, lengths, np.arange(len(lengths), dtype=np.int64))
            out = np.zeros(total + _PAD, dtype=np.uint8)
            out[:total] = np.frombuffer(joined, dtype=np.uint8)
            return cls(out, offsets)
        out = np.zeros(total + _PAD, dtype=np.uint8)
        long = lengths > _GATHERED
        for i in np.flatnonzero(long).tolist():
            out[int(offsets[i]):int(offsets[i + 1])] = data[int(starts[i]):int(starts[i]) + int(lengths[i])]
        short = np.flatnonzero(~long)
        short_end = np.cumsum(lengths[short])
        first = 0
        while first < len(short):
            last = max(int(np.searchsorted(short_end, short_end[first] + _GATHER_BYTES)), first + 1)
            chosen = short[first:last]
            size = lengths[chosen]
            target = np.repeat(offsets[chosen].astype(np.int64), size)
            within = np.arange(len(target)) - np.repeat(np.cumsum(size) - size, size)
            out[target + within] = data[np.repeat(starts[chosen], size) + within]
            first = last
        return cls(out, offsets)

    @classmethod
    def from_arrow(cls, array) -> ByteStrings:
        """From a pyarrow (large_)binary array or chunked array (copied once)."""
        builder = ByteStringsBuilder(max(array.nbytes, 1), len(array))
        builder.append_arrow(array)
        return builder.build()

    @classmethod
    def concatenate(cls, pieces: list[ByteStrings]) -> ByteStrings:
        builder = ByteStringsBuilder(sum(p.data.nbytes for p in pieces), sum(len(p) for p in pieces))
        for piece in pieces:
            builder.append(piece)
        return builder.build()

    # ------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def nbytes(self) -> int:
        return self.data.nbytes + self.offsets.nbytes

    def __getitem__(self, index: int) -> bytes:
        return self.data[int(self.offsets[index]):int(self.offsets[index + 1])].tobytes()

    def to_list(self) -> list[bytes]:
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        return [raw[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def take(self, index: np.ndarray) -> ByteStrings:
        """The strings at ``index`` (an int array), in that order."""
        index = np.asarray(index, dtype=np.int64)
        return ByteStrings.from_spans(self.data, self.offsets[index], self.offsets[index + 1])

    def to_arrow(self):
        """A zero-copy pyarrow large_binary view (for arrow's kernels)."""
        import pyarrow as pa
        kind = pa.binary() if self.offsets.dtype == np.int32 else pa.large_binary()
        return pa.Array.from_buffers(kind, len(self), [None, pa.py_buffer(self.offsets), pa.py_buffer(self.data)])

    def _words(self) -> np.ndarray:
        """Every 8-byte little-endian word starting at every byte position."""
        return np.ndarray(shape=(max(len(self.data) - 7, 1),), dtype="<u8",
                          buffer=self.data, strides=(1,))

    # ------------------------------------------------------------ hashing
    def hash64(self) -> np.ndarray:
        """(n,) uint64 hash of each string: a pure function of the bytes
        (equal strings hash alike in any ByteStrings, in any process; the
        compiled kernel computes the same for strings of up to 512 bytes).

        The first 512 bytes are hashed a word at a time for all strings at
        once; the rest of a longer string is hashed on its own (blake2b)."""
        starts, lengths = self.offsets[:-1], self.lengths
        words = self._words()
        with np.errstate(over="ignore"):
            hashed = lengths.astype(np.uint64) * _GOLDEN + _MIX2
            for k in range(2):                   # the first 16 bytes: every string, masked
                word = words[starts + 8 * k] if k else words[starts]
                word &= _low_bytes_mask(lengths - 8 * k)
                hashed ^= word
                hashed *= _MIX1
            more = np.flatnonzero(lengths > 16)
            if len(more):                        # the rest, for longer strings
                position = starts[more] + 16
                remaining = np.minimum(lengths[more], _HASHED_WORDWISE) - 16
                part = hashed[more]
                slots = np.arange(len(more))
                while len(slots):
                    word = words[position] & _low_bytes_mask(remaining)
                    part[slots] = (part[slots] ^ word) * _MIX1
                    going = remaining > 8
                    slots, position, remaining = slots[going], position[going] + 8, remaining[going] - 8
                hashed[more] = part
            hashed = _mix(hashed)
            for string in np.flatnonzero(lengths > _HASHED_WORDWISE).tolist():
                tail = self.data[int(starts[string]) + _HASHED_WORDWISE:int(self.offsets[string + 1])]
                digest = hashlib.blake2b(tail.data, digest_size=8).digest()
                hashed[string] = _mix(hashed[string] ^ np.uint64(int.from_bytes(digest, "little")))
        return hashed

    # ------------------------------------------------------------ comparing
    def equal(self, index: np.ndarray, other: ByteStrings, other_index: np.ndarray,
              skip: int = 0) -> np.ndarray:
        """(k,) whether ``self[index[i]] == other[other_index[i]]``, byte for
        byte; with ``skip``, the first ``skip`` bytes are known to be equal
        already (strings of equal length)."""
        index = np.asarray(index, dtype=np.int64)
        other_index = np.asarray(other_index, dtype=np.int64)
        lengths = self.lengths[index]
        same = lengths == other.lengths[other_index]
        active = np.flatnonzero(same & (lengths > skip))
        mine, theirs = self._words(), other._words()
        position_a = self.offsets[index[active]] + skip
        position_b = other.offsets[other_index[active]] + skip
        remaining = lengths[active] - skip
        while len(active):
            if len(active) <= _FEW and remaining.min() > _LONG:
                for slot, row in enumerate(active.tolist()):
                    a, b, n = int(position_a[slot]), int(position_b[slot]), int(remaining[slot])
                    same[row] = bool(np.array_equal(self.data[a:a + n], other.data[b:b + n]))
                break
            difference = (mine[position_a] ^ theirs[position_b]) & _low_bytes_mask(remaining)
            differ = difference != 0
            same[active[differ]] = False
            going = ~differ & (remaining > 8)
            active = active[going]
            position_a, position_b = position_a[going] + 8, position_b[going] + 8
            remaining = remaining[going] - 8
        return same

    # ------------------------------------------------------------ ordering
    def rank(self, index: np.ndarray | None = None) -> np.ndarray:
        """Dense byte-wise rank (0 = smallest; equal strings share a rank)
        of the strings at ``index`` (all if None), as strcmp orders them.
        A few strings (a run's tied docnos, usually) are sorted in Python:
        importing pyarrow's kernels costs more than that."""
        count = len(self) if index is None else len(index)
        chosen = self if index is None else self.take(index)
        if count and int(chosen.lengths.max()) <= _RANKED_BY_WORDS:
            return chosen._rank_by_words()
        if count <= _SORTED_IN_PYTHON or not have_arrow():
            values = chosen.to_list()
            position = {value: rank for rank, value in enumerate(sorted(set(values)))}
            return np.fromiter((position[value] for value in values), dtype=np.int64, count=len(values))
        import pyarrow.compute as pc
        chosen = self.to_arrow()
        if index is not None:
            chosen = chosen.take(arrow_indices(index))
        return np.asarray(numbers(pc.rank(chosen, sort_keys="ascending", tiebreaker="dense")),
                          dtype=np.int64) - 1


    def _rank_by_words(self) -> np.ndarray:
        """:meth:`rank` of all strings from their big-endian 8-byte words
        (zero past each string's end) and then their lengths: byte-wise order,
        a shorter string before any it begins."""
        starts, lengths = self.offsets[:-1].astype(np.int64), self.lengths.astype(np.int64)
        words = self._words()
        keys = [lengths]
        for k in range(-(-int(lengths.max(initial=0)) // 8) - 1, -1, -1):     # the last key sorts first
            word = np.take(words, starts + 8 * k, mode="clip") & _low_bytes_mask(lengths - 8 * k)
            keys.append(word.byteswap())
        order = np.lexsort(keys)
        differs = np.zeros(len(order), dtype=bool)
        for key in keys:
            ranked = key[order]
            differs[1:] |= ranked[1:] != ranked[:-1]
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.cumsum(differs)
        return rank


class ChunkedByteStrings:
    """ByteStrings read block by block, addressed as one sequence (so a
    huge file never needs its identifiers copied into one buffer)."""

    def __init__(self, chunks: list[ByteStrings]):
        self.chunks = chunks
        self.starts = np.concatenate(([0], np.cumsum([len(c) for c in chunks]))).astype(np.int64)

    def __len__(self) -> int:
        return int(self.starts[-1])

    def _locate(self, index: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.starts, index, side="right") - 1

    def __getitem__(self, index: int) -> bytes:
        chunk = int(self._locate(np.array([index]))[0])
        return self.chunks[chunk][int(index - self.starts[chunk])]

    def take(self, index: np.ndarray) -> ByteStrings:
        """The strings at ``index``, in that order."""
        index = np.asarray(index, dtype=np.int64)
        gather = _compiled_strings()
        if gather is not None:          # one pass over every chunk: no sort, one copy
            data, offsets = gather(tuple(chunk.data for chunk in self.chunks),
                                   tuple(chunk.offsets for chunk in self.chunks), self.starts,
                                   np.ascontiguousarray(index), _PAD)
            placed = np.frombuffer(offsets, dtype=np.int32 if len(offsets) == 4 * (len(index) + 1) else np.int64)
            return ByteStrings(np.frombuffer(data, dtype=np.uint8), placed)
        if len(self.chunks) == 1:
            return self.chunks[0].take(index)
        chunk = self._locate(index)
        order = np.argsort(chunk, kind="stable")
        pieces = [self.chunks[c].take(index[order][chunk[order] == c] - self.starts[c])
                  for c in np.unique(chunk).tolist()]
        gathered = ByteStrings.concatenate(pieces) if pieces else ByteStrings.from_list([])
        back = np.empty(len(index), dtype=np.int64)
        back[order] = np.arange(len(index))
        return gathered.take(back)

    def rank(self, index: np.ndarray) -> np.ndarray:
        return self.take(index).rank()

    def hash64(self) -> np.ndarray:
        return np.concatenate([chunk.hash64() for chunk in self.chunks])


class ArrayBuilder:
    """A 1-D numpy array grown piece by piece. Capacity is reserved up front
    (``np.empty``: pages never written cost no memory), so a good estimate
    avoids the copy that growing makes."""

    def __init__(self, dtype, capacity: int = 1 << 16, pad: int = 0):
        self._array = np.empty(max(capacity, 16) + pad, dtype=dtype)
        self._used = 0
        self._pad = pad

    def append(self, values: np.ndarray) -> None:
        self.room(len(values))[:] = values
        self._used += len(values)

    def room(self, count: int) -> np.ndarray:
        """The next ``count`` slots, to be written in place (then
        :meth:`advance` over those written)."""
        need = self._used + count
        if need + self._pad > len(self._array):
            bigger = np.empty(max(need, 2 * (len(self._array) - self._pad)) + self._pad, dtype=self._array.dtype)
            bigger[:self._used] = self._array[:self._used]
            self._array = bigger
        return self._array[self._used:need]

    def advance(self, count: int) -> None:
        self._used += count

    def __len__(self) -> int:
        return self._used

    def build(self) -> np.ndarray:
        """The values (followed by ``pad`` zeros, not counted)."""
        self._array[self._used:self._used + self._pad] = 0
        return self._array[:self._used + self._pad]


class ShortStrings:
    """n byte strings of under 256 bytes each, end to end: ``data`` (uint8,
    followed by the padding) and ``lengths`` (n,) uint8, a quarter of
    :class:`ByteStrings`' int32 offsets. The unjudged documents' docnos
    travel so from the reading processes (:mod:`.spool`: each megabyte
    written there and read back cost 2 ms) to their numbering, which reads
    them as they are (:func:`lexeval.io.kernel.number_holes`)."""

    __slots__ = ("data", "lengths")

    def __init__(self, data: np.ndarray, lengths: np.ndarray):
        self.data = data
        self.lengths = lengths

    @classmethod
    def of(cls, strings: ByteStrings) -> ShortStrings | None:
        """The same strings (end to end from the first, as :meth:`ByteStrings.take` makes them), or None where
        one is 256 bytes or longer or they do not start the data."""
        lengths = strings.lengths
        if (len(lengths) and int(lengths.max()) > 255) or (len(strings.offsets) and int(strings.offsets[0]) != 0):
            return None
        return cls(strings.data, lengths.astype(np.uint8))

    def strings(self) -> ByteStrings:
        """As :class:`ByteStrings` (offsets from the lengths)."""
        offsets = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=offsets[1:])
        return ByteStrings(self.data, offsets)

    def __len__(self) -> int:
        return len(self.lengths)


class ByteStringsBuilder:
    """ByteStrings accumulated block by block into one buffer."""

    def __init__(self, capacity_bytes: int = 1 << 20, capacity_strings: int = 1 << 16):
        self._data = ArrayBuilder(np.uint8, capacity_bytes, pad=_PAD)
        self._lengths = ArrayBuilder(np.int32, capacity_strings)     # each string is shorter than 2 GB

    def append(self, strings: ByteStrings) -> None:
        self._data.append(strings.data[int(strings.offsets[0]):int(strings.offsets[-1])])
        self._lengths.append(strings.lengths)

    def append_arrow(self, array) -> None:
        """Append a pyarrow (large_)binary array or chunked array."""
        for chunk in (array.chunks if hasattr(array, "chunks") else [array]):
            if len(chunk) == 0:
                continue
            wide = str(chunk.type).startswith("large")
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64 if wide else np.int32)
            offsets = offsets[chunk.offset:chunk.offset + len(chunk) + 1]
            buffer = chunk.buffers()[2]
            data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, np.uint8)
            self._data.append(data[int(offsets[0]):int(offsets[-1])])
            self._lengths.append(np.diff(offsets))

    def build(self) -> ByteStrings:
        lengths = self._lengths.build()
        # 4-byte offsets while the bytes allow: half the memory per string
        offsets = np.zeros(len(lengths) + 1, dtype=np.int32 if len(self._data) < 2 ** 31 - 64 else np.int64)
        np.cumsum(lengths, dtype=offsets.dtype, out=offsets[1:])
        return ByteStrings(self._data.build(), offsets)


def decode(raw: bytes) -> str:
    """An identifier for printing: UTF-8, undecodable bytes kept as surrogates
    (``text.encode("utf-8", "surrogateescape")`` gives the same bytes back)."""
    return raw.decode("utf-8", "surrogateescape")


def shown(raw: bytes) -> str:
    """Bytes for a message: UTF-8, anything else as \\xNN."""
    return raw.decode("utf-8", "backslashreplace")


def judgement_table(qids: list[bytes], docnos: list[bytes], grades: list[int]):
    """A pyarrow table (qid, docno, relevance) for the qrels reader, built
    from buffers: pa.array on Python lists would import pandas (0.4 s)."""
    import pyarrow as pa
    grade_values = np.asarray(grades, dtype=np.int64)
    columns = [ByteStrings.from_list(qids).to_arrow(), ByteStrings.from_list(docnos).to_arrow(),
               pa.Array.from_buffers(pa.int64(), len(grade_values), [None, pa.py_buffer(grade_values)])]
    return pa.Table.from_arrays(columns, names=["qid", "docno", "relevance"])
