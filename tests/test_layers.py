"""The package's layers, checked: data flows one way (io -> rankings ->
measures, preferences -> stats -> output -> result -> evaluation -> reports
-> cluster -> api -> cli), no module imports a layer above its own, and no
import cycle exists, counting the imports inside functions too. Output
reads a result through the interface module, so it sits below the classes
that hand themselves to it."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "lexeval"

#: Layer of each top-level part of the package; a module may import its own
#: part and any part of a lower layer.
LAYERS = {
    "errors": 0, "choices": 0, "timings": 0, "parameters": 0, "interface": 0,
    "options": 0, "checks": 0, "constants": 0,           # every option declared once: its groups, checks and flags
    "cpus": 0,              # the processors lexeval may use, and --jobs
    "compiled": 0,          # the compiled statistics kernel's wrappers (measures, preferences and stats use it)
    "io": 1,
    "rankings": 2,
    "measures": 3, "preferences": 3,
    "stats": 4, "citations": 4,
    "bounds": 5,            # the measures' least and greatest over the unjudged documents' grades (exact sums)
    "output": 5,            # reads a result through lexeval.interface, never the classes
    "result": 6,            # a result's Python views: frames, compare, tables, the page (through output)
    "loading": 7,           # files to rankings, with the notes on what was read
    "evaluation": 7,
    "reports": 8,
    "cluster": 9,
    "api": 10,
    "cli": 11, "__main__": 11,
}

def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str | None = None) -> set[str]:
    """Every lexeval module ``path`` imports, at the top or in a function;
    ``name``: the module it is read as (default: its place in the package)."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("lexeval")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("lexeval"):
                continue
            for alias in node.names:          # "from . import registry" names a module
                candidate = f"{target}.{alias.name}"
                found.add(candidate if module_path(candidate) else target)
    return {target for target in found if target != name}


def module_path(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def graph() -> dict[str, set[str]]:
    return {module_name(path): imports_of(path) for path in PACKAGE.rglob("*.py")}


def test_every_part_has_a_layer():
    parts = {module_name(path).split(".")[1] for path in PACKAGE.rglob("*.py") if module_name(path) != "lexeval"}
    assert parts <= set(LAYERS), parts - set(LAYERS)


def test_no_upward_import():
    upward = []
    for module, targets in graph().items():
        here = layer(module)
        for target in targets:
            there = layer(target)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports of a higher layer:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    edges = graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2
    for module in sorted(edges):
        if module not in state:
            visit(module)


def test_the_checks_see_an_upward_import(tmp_path):
    """The checks would catch one: a stats module importing the evaluation
    (read from a file outside the package, as if it were lexeval.stats.probe:
    the package itself is never written to)."""
    probe = tmp_path / "probe.py"
    probe.write_text("from ..evaluation import Evaluation\n")
    targets = imports_of(probe, "lexeval.stats.probe")
    assert targets == {"lexeval.evaluation"}
    assert layer("lexeval.evaluation") > layer("lexeval.stats.probe")
