"""Every '$ ' command shown in README.md, examples/README.md and the site's
pages (docs/pages/) runs as written and prints what the page shows ('...'
marks omitted lines); the site's Python examples run and their asserts hold."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PAGES = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs" / "pages").rglob("*.md"))]
SKIP = ("python3 -m venv", "python benchmarks")      # set-up and benchmark commands


def code_blocks(text):
    """The contents of each fenced code block (indented ones too), as lists
    of lines without the fence's indentation."""
    block, indent = None, 0
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            if block is None:
                block, indent = [], len(line) - len(line.lstrip())
            else:
                yield block
                block = None
        elif block is not None:
            block.append(line[indent:])


def shown_commands():
    for page in PAGES:
        for lines in code_blocks(page.read_text()):
            if not lines or not lines[0].startswith("$ "):
                continue
            command = lines[0][2:]
            if command.startswith(SKIP):
                continue
            yield pytest.param(command, lines[1:], id=f"{page.relative_to(ROOT)}:{command[:40]}")


@pytest.mark.parametrize("command,expected", list(shown_commands()))
def test_shown_command(command, expected):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(["bash", "-c", "{ " + command + " ; } 2>&1"], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    actual = done.stdout.rstrip("\n").split("\n")
    if "..." not in expected:
        if expected:
            assert actual == expected
        return
    shown = [line for line in expected if line != "..."]
    position = 0
    for line in shown:                     # shown lines appear, in order
        assert line in actual[position:], f"missing: {line!r}"
        position = actual.index(line, position) + 1


def python_blocks():
    """The library page's ```python blocks, in order (they build on each other)."""
    text = (ROOT / "docs" / "pages" / "library.md").read_text()
    blocks, block = [], None
    for line in text.split("\n"):
        if block is None and line.startswith("```python"):
            block = []
        elif block is not None and line.startswith("```"):
            blocks.append("\n".join(block))
            block = None
        elif block is not None:
            block.append(line)
    return blocks


def test_the_readmes_python_runs(monkeypatch):
    """Every Python example of the README runs as written, from the checkout,
    and its asserts hold."""
    pytest.importorskip("pandas")
    pytest.importorskip("ir_measures")
    monkeypatch.chdir(ROOT)
    blocks = python_blocks()
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/pages/library.md", "exec"), namespace)      # noqa: S102 - the page's examples
