"""The man page and README stay in step with the command."""

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT, run_cli

MAN = (ROOT / "man" / "lexeval.1").read_text()


def test_man_page_documents_every_option():
    help_text = run_cli(["--help"]).out
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", help_text))
    for option in options:
        assert option.replace("-", r"\-") in MAN, f"man page lacks {option}"


def test_man_page_renders():
    if shutil.which("groff"):
        command = ["groff", "-man", "-Tutf8", "-ww", str(ROOT / "man" / "lexeval.1")]
    elif shutil.which("man"):
        command = ["man", "-l", str(ROOT / "man" / "lexeval.1")]
    else:
        pytest.skip("no roff renderer (groff or man) on this machine")
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    assert "lexiprecision" in done.stdout.lower()


def test_readme_commands_are_the_ci_commands():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -q"
    assert test_command in readme and test_command in ci


def test_the_linter_passes():
    """ruff (a test extra, configured in pyproject.toml) finds nothing."""
    ruff = shutil.which("ruff") or str(ROOT / ".venv" / "bin" / "ruff")
    if not os.path.exists(ruff):
        pytest.skip("ruff is not installed")
    done = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_version_is_the_installed_metadata():
    """``lexeval --version`` says the version the installed package's metadata holds."""
    import importlib.metadata

    from conftest import run_cli
    shown = run_cli(["--version"])
    assert shown.code == 0
    assert shown.out.strip().endswith(importlib.metadata.version("lexeval"))
