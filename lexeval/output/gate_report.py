"""The gate's verdicts as CI reads them: a JUnit XML report (GitHub, GitLab
and Jenkins show it), a Markdown table (GitHub's job summary), the lines on
standard error, and records for JSON and CSV."""

from __future__ import annotations

import math
import re

from ..stats.gate import GateVerdict
from .records import TEXT, Block

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _clean(text: str) -> str:
    """Text XML and Markdown can hold: bytes that are not UTF-8 as \\xNN,
    control characters dropped."""
    return _CONTROL.sub("", text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def interval(verdict: GateVerdict) -> str:
    """``95% CI [-0.0950, -0.0608]`` (n/a below two queries)."""
    return f"{verdict.confidence:.0%} CI [{_number(verdict.ci_low)}, {_number(verdict.ci_high)}]"


def failure_line(verdict: GateVerdict) -> str:
    """The line a failed verdict prints on standard error."""
    return (f"gate failed: {verdict.run} is worse than {verdict.baseline} on {verdict.measure}: "
            f"difference {verdict.difference:+.4f} ({interval(verdict)}), p = {verdict.p:.4g} < alpha "
            f"{verdict.alpha:g} (correction {verdict.correction}), margin {verdict.margin:g}")


def passed_line(verdicts: list[GateVerdict]) -> str:
    """The one line a passing gate prints on standard error."""
    first = verdicts[0]
    runs = list(dict.fromkeys(v.run for v in verdicts))
    measures = list(dict.fromkeys(v.measure for v in verdicts))
    return (f"gate passed: {len(runs)} run{'s' * (len(runs) != 1)} x {len(measures)} "
            f"measure{'s' * (len(measures) != 1)} ({', '.join(measures)}) against {first.baseline}: none worse by "
            f"more than margin {first.margin:g} with p < alpha {first.alpha:g} ({first.test} test, correction "
            f"{first.correction})")


def junit_xml(verdicts: list[GateVerdict]) -> str:
    """A JUnit XML report: a test case per candidate run and gate measure
    (class ``lexeval.gate.<measure>``, name the run), a failure element with
    the run, measure, difference, interval, p, alpha, correction and margin."""
    from xml.etree import ElementTree as ET
    failed = sum(not v.passed for v in verdicts)
    baseline = _clean(verdicts[0].baseline) if verdicts else ""
    suites = ET.Element("testsuites", name="lexeval gate", tests=str(len(verdicts)), failures=str(failed),
                        errors="0")
    suite = ET.SubElement(suites, "testsuite", name=f"lexeval gate against {baseline}", tests=str(len(verdicts)),
                          failures=str(failed), errors="0", skipped="0", time="0")
    if verdicts:
        first = verdicts[0]
        properties = ET.SubElement(suite, "properties")
        for name, value in (("baseline", baseline), ("test", first.test), ("alpha", f"{first.alpha:g}"),
                            ("correction", first.correction), ("margin", f"{first.margin:g}"),
                            ("confidence", f"{first.confidence:g}")):
            ET.SubElement(properties, "property", name=name, value=value)
    for verdict in verdicts:
        case = ET.SubElement(suite, "testcase", classname=f"lexeval.gate.{_clean(verdict.measure)}",
                             name=_clean(verdict.run), time="0")
        details = _details(verdict)
        if verdict.passed:
            ET.SubElement(case, "system-out").text = details
        else:
            failure = ET.SubElement(case, "failure", type="RetrievalRegression",
                                    message=_clean(failure_line(verdict)))
            failure.text = details
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _details(verdict: GateVerdict) -> str:
    lines = [f"run: {verdict.run}", f"baseline: {verdict.baseline}", f"measure: {verdict.measure}",
             f"run value: {_number(verdict.run_value)}", f"baseline value: {_number(verdict.baseline_value)}",
             f"difference: {verdict.difference:+.4f}", f"confidence interval: {interval(verdict)}",
             f"p: {verdict.p:.4g}", f"alpha: {verdict.alpha:g}", f"test: {verdict.test}",
             f"correction: {verdict.correction}", f"margin: {verdict.margin:g}",
             f"verdict: {'pass' if verdict.passed else 'fail'}"]
    return _clean("\n".join(lines))


def markdown_summary(verdicts: list[GateVerdict]) -> str:
    """A job summary: a heading with the verdict, then a row per candidate
    run and gate measure."""
    failed = sum(not v.passed for v in verdicts)
    first = verdicts[0]
    head = (f"### lexeval gate: {'FAILED, ' + str(failed) + ' of ' + str(len(verdicts)) if failed else 'passed'}"
            f"\n\nAgainst `{_cell(first.baseline)}`: a run fails a measure where it is worse by more than "
            f"{first.margin:g} with p < {first.alpha:g} ({first.test} test, correction {first.correction}).\n\n")
    rows = ["| baseline | candidate | measure | baseline value | candidate value | difference | "
            f"{first.confidence:.0%} CI | p | verdict |", "|---|---|---|---:|---:|---:|---|---:|---|"]
    for v in verdicts:
        rows.append(f"| {_cell(v.baseline)} | {_cell(v.run)} | {_cell(v.measure)} | {_number(v.baseline_value)} | "
                    f"{_number(v.run_value)} | {v.difference:+.4f} | [{_number(v.ci_low)}, {_number(v.ci_high)}] | "
                    f"{v.p:.4g} | {'pass' if v.passed else '**fail**'} |")
    return head + "\n".join(rows) + "\n\n"


def _cell(text: str) -> str:
    return _clean(text).replace("|", "\\|")


def verdict_blocks(verdicts: list[GateVerdict]) -> list[Block]:
    """JSON and CSV records, one per verdict: key the candidate run, measure
    ``gate_<measure>``, qid ``all``, value ``pass`` or ``fail``."""
    return [Block([v.run], ["all"], [f"gate_{v.measure}"], [["pass" if v.passed else "fail"]], [TEXT])
            for v in verdicts]
