"""Every option is declared once (lexeval.options), and what is made of the
declarations agrees: --help, the man page and help(lexeval.evaluate) name
the same options; the library's keywords are the declared ones, with
their defaults; no function but lexeval.evaluate takes more than eight
parameters, and no module is over 500 lines."""

from __future__ import annotations

import ast
import inspect
import re

import pytest
from conftest import ROOT, run_cli

import lexeval
from lexeval import options

MAN = (ROOT / "man" / "lexeval.1").read_text()
#: lexeval.evaluate's own parameters: the inputs, the tests as one object, hooks and the cluster's client
LIBRARY_ONLY = {"qrels", "runs", "measures", "options", "warn", "progress", "timings", "client"}


def declared_options():
    for group in options.GROUPS:
        for name, spec in options.specs(group).items():
            yield group, name, spec


def test_every_option_is_declared_once_by_name_and_flag():
    flags = [flag for _, _, spec in declared_options() for flag in spec.flags]
    assert len(flags) == len(set(flags))
    from lexeval.cli.command import HELP_ORDER, command
    listed = [(group, name) for group, name in HELP_ORDER]
    assert sorted(listed, key=str) == sorted([(group, name) for group, name, spec in declared_options() if spec.flags],
                                             key=str)
    # click's options are exactly the declared ones (and the two arguments)
    made = {tuple(param.opts) for param in command.params if param.opts[0].startswith("-")}
    assert made == {tuple(spec.flags) for _, _, spec in declared_options() if spec.flags}


def test_help_and_the_man_page_name_every_visible_option():
    shown = run_cli(["--help"]).out
    for _, name, spec in declared_options():
        if not spec.flags or spec.hidden:
            continue
        for flag in spec.flags:
            assert re.search(rf"(^|[\s,]){re.escape(flag)}([\s,=]|$)", shown, re.M), (name, flag)
            assert flag.replace("-", r"\-") in MAN, f"the man page lacks {flag}"
        assert " ".join(spec.help.split())[:30] in " ".join(shown.split()), name


def test_the_library_takes_the_declared_keywords_with_their_defaults():
    signature = inspect.signature(lexeval.evaluate)
    keywords = {name: spec for _, name, spec in declared_options() if spec.keyword}
    assert set(signature.parameters) - LIBRARY_ONLY == set(keywords)
    defaults = {item.name: item.default for group in options.GROUPS for item in options.fields(group)
                if item.name in keywords and "spec" in item.metadata and item.metadata["spec"].keyword}
    library_defaults = {"correction": None, "per_query": None, "output_format": None}    # None: the declared one
    for name in keywords:
        assert signature.parameters[name].default == library_defaults.get(name, defaults[name]), name
    documented = lexeval.evaluate.__doc__
    for name in signature.parameters:
        if name not in ("qrels", "runs"):
            assert re.search(rf"``{name}[`(]", documented), f"help(lexeval.evaluate) does not name {name}"


def test_a_keywords_error_is_said_as_its_flag_on_the_command_line():
    for _, name, spec in declared_options():
        if spec.keyword and spec.flags:
            assert options.FLAG_OF_KEYWORD[name] == spec.flags[0]
            assert all(options.KEYWORD_OF_FLAG[flag].split("=")[0] == name for flag in spec.flags)
    result = run_cli(["-l", "-1", ROOT / "examples" / "toy" / "qrels.txt", ROOT / "examples" / "toy" / "runA"])
    assert result.code == 2 and result.err.strip() == "lexeval: error: -l must be 0 or more, got -1"
    with pytest.raises(lexeval.UsageError, match=r"^level must be 0 or more, got -1$"):
        lexeval.evaluate(str(ROOT / "examples" / "toy" / "qrels.txt"), str(ROOT / "examples" / "toy" / "runA"),
                         level=-1)


def _functions():
    for path in sorted((ROOT / "lexeval").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args
                names = [a.arg for a in arguments.posonlyargs + arguments.args]
                count = len(names) + len(arguments.kwonlyargs) + bool(arguments.vararg) + bool(arguments.kwarg)
                yield path.relative_to(ROOT), node.name, count - (names[:1] in (["self"], ["cls"]))


def test_no_function_but_evaluate_takes_more_than_eight_parameters():
    many = [(str(path), name, count) for path, name, count in _functions() if count > 8]
    assert many == [("lexeval/api.py", "evaluate", len(inspect.signature(lexeval.evaluate).parameters))]


def test_no_module_is_over_500_lines():
    long = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
            for path in (ROOT / "lexeval").rglob("*.py")}
    assert {path: lines for path, lines in long.items() if lines > 500} == {}


def test_the_kernels_constants_are_made_from_one_place():
    """The grid and limb constants are lexeval/constants.py's: the C
    header is what it makes, and the Python modules read them from it."""
    from lexeval import constants
    from lexeval.stats import draws, limbs, sums
    assert (ROOT / "lexeval" / "_exact_constants.h").read_text() == constants.c_header()
    assert (sums.GRID_BITS, limbs.LIMB_BITS, draws.DRAW_BITS) == (constants.GRID_BITS, constants.LIMB_BITS,
                                                                  constants.DRAW_BITS)
    for path in (ROOT / "lexeval").glob("_exact*.c"):
        text = path.read_text()
        assert not re.search(r"0x1p62|1099511627776|0x1FFFFF|<< 21\b", text), path.name      # no constant by hand
