"""A text given as byte ranges of other files (the cluster's partitions
read their lines where they lie): its blocks are the text, in order, each
ending with a line feed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.io.blocks import SpannedPath, _spanned_blocks, iter_blocks, size_hint

LINES = st.lists(st.text(alphabet="ab \t", min_size=0, max_size=30).map(lambda line: line + "\n"), min_size=1,
                 max_size=40)


@st.composite
def spanned(draw):
    """(files' texts, parts, the text they give)."""
    files, parts, want = [], [], b""
    for _ in range(draw(st.integers(1, 3))):
        lines = [line.encode() for line in draw(LINES)]
        ended = draw(st.booleans())
        if not ended:                                     # the file's last line lacks its line feed
            lines[-1] = lines[-1][:-1] + b"x"
        text = b"".join(lines)
        files.append(text)
        bounds = np.cumsum([0, *map(len, lines)])
        chosen = sorted(set(draw(st.lists(st.integers(0, len(lines) - 1), max_size=len(lines)))))
        ranges = np.array([[bounds[i], bounds[i + 1]] for i in chosen], dtype=np.int64).reshape(-1, 2)
        # ranges next to one another, as a split gives them: whole runs of lines
        if len(ranges) and draw(st.booleans()):
            ranges = np.array([[ranges[0, 0], ranges[-1, 1]]], dtype=np.int64)
        parts.append((len(files) - 1, ranges))
        want += b"".join(text[a:b] for a, b in ranges.tolist())
        if len(ranges) and ranges[-1, 1] == len(text) and not ended:
            parts.append(b"\n")
            want += b"\n"
        if draw(st.booleans()):
            extra = draw(LINES)
            parts.append("".join(extra).encode())
            want += parts[-1]
    return files, parts, want


@settings(max_examples=300, deadline=None)
@given(case=spanned(), block_bytes=st.sampled_from([8, 64, 1 << 20]), in_place=st.sampled_from([1, 16, 1 << 20]))
def test_spanned_blocks_give_the_text_in_blocks_that_end_with_a_line_feed(tmp_path_factory, case, block_bytes,
                                                                          in_place):
    files, parts, want = case
    folder = tmp_path_factory.mktemp("spanned")
    paths = []
    for index, text in enumerate(files):
        paths.append(str(folder / f"f{index}"))
        with open(paths[-1], "wb") as handle:
            handle.write(text)
    resolved = [part if isinstance(part, bytes) else (paths[part[0]], part[1]) for part in parts]
    blocks = [bytes(block) for block in _spanned_blocks(resolved, block_bytes, in_place)]
    assert b"".join(blocks) == want
    assert all(block.endswith(b"\n") for block in blocks)
    if in_place > len(want):                  # short ranges are gathered into one block
        assert len(blocks) <= 1
    path = SpannedPath(str(folder / "spanned"), resolved)
    assert size_hint(path) == len(want)
    assert b"".join(bytes(block) for block in iter_blocks(path)) == want
