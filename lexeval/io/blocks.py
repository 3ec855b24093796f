"""Raw blocks of a file's text: a plain file mapped into memory, a
compressed one (gzip, bzip2, xz, zstd: known by its first bytes) or a pipe
read as a stream, cut into line-aligned blocks (see :func:`iter_blocks`)."""

from __future__ import annotations

import gzip
import io
import lzma
import mmap
import os
import stat
import sys
import zlib
from collections.abc import Iterator

from ..errors import DirectoryGivenError, InputError, MissingFileError, UnreadableFileError

BLOCK_BYTES = 64 << 20
BOM = b"\xef\xbb\xbf"

def read_error(path: str, exc: OSError) -> InputError:
    """What an operating system error means for the user."""
    if isinstance(exc, FileNotFoundError):
        return MissingFileError(path, "no such file")
    if isinstance(exc, IsADirectoryError):
        return DirectoryGivenError(path, "is a directory, not a file")
    if isinstance(exc, PermissionError):
        return UnreadableFileError(path, "cannot read: permission denied")
    return InputError(path, f"cannot read: {exc.strerror or exc}")


def failure(path: str, exc: BaseException, kind: str | None = None) -> InputError:
    """Any failure to read ``path`` as the user is told it, one machine's
    reader and a cluster's alike: an operating system error as
    :func:`read_error` says it, a broken compressed stream as "not a valid
    gzip file (...)" (``kind``, or the file's first bytes, name it)."""
    if isinstance(exc, InputError):
        return exc
    if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
        return read_error(path, exc)
    if kind is None:
        try:
            with open(path, "rb") as handle:
                kind = compression(handle.read(MAGIC_BYTES))
        except OSError:
            kind = None
    if kind is not None and isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile, lzma.LZMAError, ValueError,
                                             _ZstdError)):
        return InputError(path, f"not a valid {kind} file ({exc})")
    return InputError(path, f"cannot read ({exc})")


def _open_binary(path: str):
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise read_error(path, exc) from None


class SpannedPath(str):
    """The name of a text given as parts of other files, in order: (path,
    byte ranges (m, 2)) or bytes (the cluster's partitions read their lines
    where they lie). :func:`iter_blocks` and :func:`size_hint` read it;
    anything that opens it by name finds no such file (the partition then
    writes the text out and reads it again)."""

    parts: list
    size: int

    def __new__(cls, name: str, parts: list | tuple = ()):
        path = super().__new__(cls, name)
        path.parts = list(parts)
        path.size = sum(len(part) if isinstance(part, bytes) else int((part[1][:, 1] - part[1][:, 0]).sum())
                        for part in parts)
        return path


#: A part this long is read where it lies; shorter ones are gathered into one block.
_IN_PLACE_BYTES = 1 << 20


def _spanned_blocks(parts: list, block_bytes: int, in_place_bytes: int = _IN_PLACE_BYTES) -> Iterator[memoryview]:
    """The blocks of a :class:`SpannedPath`'s text: views of each file's
    mapping for long ranges (cut after a line feed), short ones and bytes
    gathered (a block per range would cost the kernel a call per query of
    a file in no order). Every range and part ends with a line feed, but a
    file's last (its bytes follow)."""
    gathered = bytearray()
    for part in parts:
        if isinstance(part, bytes):
            gathered += part
        elif len(part[1]):
            path, ranges = part
            try:
                with open(path, "rb") as handle:
                    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError) as exc:               # gone, or emptied, since it was split
                raise read_error(path, exc if isinstance(exc, OSError) else OSError(str(exc))) from None
            if int(ranges[:, 1].max()) > len(mapped):
                raise InputError(path, "changed while it was read (it is shorter)")
            view = memoryview(mapped)
            for start, stop in ranges.tolist():
                if stop - start < in_place_bytes or view[stop - 1] != 10 or gathered[-1:] not in (b"", b"\n"):
                    gathered += view[start:stop]
                    if len(gathered) >= in_place_bytes and gathered[-1] == 10:
                        yield memoryview(gathered)
                        gathered = bytearray()
                    continue
                if gathered:
                    yield memoryview(gathered)
                    gathered = bytearray()
                while start < stop:            # blocks of at most block_bytes, cut after a line feed
                    cut = mapped.rfind(b"\n", start, start + block_bytes) + 1 if stop - start > block_bytes else stop
                    cut = cut if cut > start else stop                  # a line longer than a block
                    yield view[start:cut]
                    start = cut
        if len(gathered) >= in_place_bytes and gathered[-1] == 10:
            yield memoryview(gathered)
            gathered = bytearray()
    if gathered:
        yield memoryview(gathered)


def iter_blocks(path: str, block_bytes: int | None = None) -> Iterator[memoryview]:
    """Yield line-aligned pieces of the file's text (gzip, bzip2, xz or zstd
    undone, a leading byte-order mark dropped), each ending with a line feed
    (one is added after a last line without). A plain file is mapped into
    memory and its pieces are views of the mapping: no copy of the text is
    made, and a piece's memory is given back when the next is asked for (use
    it first)."""
    block_bytes = block_bytes or BLOCK_BYTES
    if isinstance(path, SpannedPath):
        yield from _spanned_blocks(path.parts, block_bytes)
        return
    raw = _open_binary(path)
    try:
        if hasattr(raw, "peek"):            # files and standard input
            magic = raw.peek(MAGIC_BYTES)[:MAGIC_BYTES]
        else:                               # an in-memory stream (tests)
            magic = raw.read(MAGIC_BYTES)
            raw.seek(0)
        kind = compression(magic)
        size = size_hint(path) if path != "-" and kind is None else 0
        if size:
            yield from _mapped_blocks(raw, size, block_bytes)
            return
        stream = _decompressing(kind, raw, path) if kind else raw
        first = True
        while True:
            try:
                data = stream.read(block_bytes)
                if len(data) == block_bytes:
                    data += stream.readline()           # finish the last line
            except (EOFError, zlib.error, gzip.BadGzipFile, lzma.LZMAError, OSError, ValueError,
                    _ZstdError) as exc:
                if stream is raw:
                    raise
                if first and _text_after_all(raw):
                    # text whose first bytes look like a compressed stream's (a strange first qid): text
                    yield from _mapped_blocks(raw, os.path.getsize(path), block_bytes)
                    return
                raise failure(path, exc, kind) from None
            if first and data.startswith(BOM):
                data = data[len(BOM):]
            first = False
            if not data:
                return
            yield memoryview(data if data.endswith(b"\n") else data + b"\n")
    except OSError as exc:
        raise read_error(path, exc) from None
    finally:
        if raw is not sys.stdin.buffer:
            raw.close()


def _mapped_blocks(raw, size: int, block_bytes: int) -> Iterator[memoryview]:
    """The blocks of a plain file: views of its memory mapping, cut after a
    line feed (the mapping closes when the last view is gone). A block is
    read before the next is asked for: then its pages are given back."""
    mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
    view, size = memoryview(mapped), len(mapped)
    start = len(BOM) if mapped[:len(BOM)] == BOM else 0
    done = 0                                    # pages before ``done`` are given back
    while start < size:
        done = _give_back(mapped, done, start)  # asked for the next block: the ones read leave our memory
        stop = min(start + block_bytes, size)
        if stop < size:                         # end the block after its last line feed
            cut = mapped.rfind(b"\n", start, stop)
            cut = cut if cut >= 0 else mapped.find(b"\n", stop)     # a line longer than a block
            stop = cut + 1 if cut >= 0 else size
        if stop == size and mapped[size - 1:size] != b"\n":
            last_line = mapped.rfind(b"\n", start, size) + 1         # the file's last line lacks its line feed
            if last_line > start:
                yield view[start:last_line]
            yield memoryview(bytes(view[max(last_line, start):size]) + b"\n")
        else:
            yield view[start:stop]
        start = stop


def _give_back(mapped: mmap.mmap, start: int, stop: int) -> int:
    """Unmap the whole pages of ``mapped`` from ``start`` to ``stop`` (the
    file stays in the system's cache; a page read again is mapped again),
    so that reading a big file holds a few blocks of it, not all. Returns
    where the pages given back end."""
    stop -= stop % mmap.PAGESIZE
    if stop > start and hasattr(mapped, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED, start, stop - start)
    return max(stop, start)


def _text_after_all(raw) -> bool:
    """For a file that starts like gzip but is not: whether it is text (no
    NUL byte in its first 64 KB, which compressed data always has). The
    file is rewound for reading again when so."""
    if raw is sys.stdin.buffer or not raw.seekable():
        return False
    raw.seek(0)
    if b"\x00" in raw.read(1 << 16):
        return False
    raw.seek(0)
    return True


#: Bytes of a file's start that tell its compression.
MAGIC_BYTES = 10


def is_gzip(header: bytes) -> bool:
    """Whether a file's first bytes start a gzip stream: the magic
    number, deflate, and no reserved flag set."""
    return len(header) >= 4 and header[:3] == b"\x1f\x8b\x08" and header[3] & 0xE0 == 0


def compression(header: bytes) -> str | None:
    """The compression a file's first :data:`MAGIC_BYTES` bytes announce:
    'gzip', 'bzip2', 'xz', 'zstd', or None (text). Each needs its whole
    magic number (bzip2: 'BZh', a block size, then a block's or the end's
    own six bytes), so that a text whose first qid looks alike stays text."""
    if is_gzip(header):
        return "gzip"
    if header[:3] == b"BZh" and header[3:4].isdigit() and header[3:4] != b"0" and \
            header[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2"
    if header[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if header[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    return None


def _decompressing(kind: str, raw, path: str):
    """A file object that reads ``raw``'s text, decompressed."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw)
    if kind == "bzip2":
        import bz2
        return bz2.BZ2File(raw)
    if kind == "xz":
        return lzma.LZMAFile(raw)
    try:
        import zstandard
    except ImportError:
        raise InputError(path, "a zstd-compressed file: reading it needs the Python package 'zstandard' "
                               "(pip install zstandard), or decompress it first (zstd -d)") from None
    import io
    return io.BufferedReader(_ZstdFrames(raw, zstandard), 1 << 20)


class _ZstdError(Exception):
    """A zstd stream that cannot be read (zstandard's own error, or a frame cut short)."""


class _ZstdFrames(io.RawIOBase):
    """The text of one or more zstd frames; a frame cut short is an error
    (zstandard's stream reader ends quietly there, as if the file ended)."""

    def __init__(self, raw, zstandard):
        self.raw, self.zstandard = raw, zstandard
        self.decompressor = zstandard.ZstdDecompressor()
        self.frame = self.decompressor.decompressobj()
        self.in_frame = False                   # the current frame has had input, and has not ended
        self.out: list[bytes] = []
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.out and not self.done:
            data = self.raw.read(1 << 20)
            if not data:
                if self.in_frame:
                    raise _ZstdError("the last frame is cut short")
                self.done = True
            while data:
                try:
                    text = self.frame.decompress(data)
                except self.zstandard.ZstdError as exc:
                    raise _ZstdError(str(exc)) from None
                if text:
                    self.out.append(text)
                self.in_frame = not self.frame.eof
                data = self.frame.unused_data if self.frame.eof else b""
                if self.frame.eof:
                    self.frame = self.decompressor.decompressobj()
        if not self.out:
            return 0
        text = self.out[0]
        count = min(len(buffer), len(text))
        buffer[:count] = text[:count]
        if count < len(text):
            self.out[0] = text[count:]
        else:
            self.out.pop(0)
        return count


def decompressed(data: bytes, path: str) -> bytes:
    """A small file's bytes, decompressed if their start says so."""
    kind = compression(data[:MAGIC_BYTES])
    if kind is None:
        return data
    try:
        return _decompressing(kind, io.BytesIO(data), path).read()
    except (EOFError, zlib.error, lzma.LZMAError, OSError, ValueError, _ZstdError) as exc:
        raise InputError(path, f"not a valid {kind} file ({exc})") from None


def size_hint(path: str) -> int:
    """The file's size when it is a plain file (an upper bound on its text),
    else 0."""
    if path == "-":
        return 0
    if isinstance(path, SpannedPath):
        return path.size
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):      # a pipe (<(zcat run.gz)), a device: read as a stream
            return 0
        with open(path, "rb") as handle:
            if compression(handle.read(MAGIC_BYTES)):
                return 0
        return os.path.getsize(path)
    except OSError:
        return 0
