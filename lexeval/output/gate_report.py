"""The gate's verdicts as CI reads them: a JUnit XML report (GitHub, GitLab
and Jenkins show it), a Markdown table (GitHub's job summary), the lines on
standard error, and records for JSON and CSV."""

from __future__ import annotations

import math
import re

from ..stats.gate import GateVerdict, effect_words
from .lines import TEXT, Block

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _clean(text: str) -> str:
    """Text XML and Markdown can hold: bytes that are not UTF-8 as \\xNN,
    control characters dropped."""
    return _CONTROL.sub("", text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else _no_negative_zero(f"{value:.4f}")


def _signed(value: float) -> str:
    """``+0.0123``; a difference of nothing is +0.0000, never -0.0000."""
    text = f"{value:+.4f}"
    return "+" + text[1:] if text.startswith("-") and text.strip("-0.") == "" else text


def _no_negative_zero(text: str) -> str:
    """-0.0000 (a tiny negative, or -0.0) as 0.0000."""
    return text[1:] if text.startswith("-") and text.strip("-0.") == "" else text


def interval(verdict: GateVerdict) -> str:
    """``95% CI [-0.0950, -0.0608]`` (n/a below two queries)."""
    return f"{verdict.confidence:.0%} CI [{_number(verdict.ci_low)}, {_number(verdict.ci_high)}]"


def failure_line(verdict: GateVerdict) -> str:
    """The line a failed verdict prints on standard error."""
    if verdict.gate_test == "non-inferiority":
        return (f"gate failed: {verdict.run} is not shown non-inferior to {verdict.baseline} on {verdict.measure} "
                f"within margin {verdict.margin:g}: difference {_signed(verdict.difference)} ({interval(verdict)}), "
                f"one-sided p = {verdict.p:.4g} >= alpha {verdict.alpha:g} (correction {verdict.correction})")
    return (f"gate failed: {verdict.run} is worse than {verdict.baseline} on {verdict.measure}: "
            f"difference {_signed(verdict.difference)} ({interval(verdict)}), p = {verdict.p:.4g} < alpha "
            f"{verdict.alpha:g} (correction {verdict.correction}), margin {verdict.margin:g}")


def power_warning(verdicts: list[GateVerdict]) -> str | None:
    """One line where the gate's power to see its drop is below 0.8 for some
    run and measure: how many, the weakest, and the queries 0.8 needs."""
    from ..stats.gate import POWER_WANTED
    weak = [v for v in verdicts if v.power == v.power and v.power < POWER_WANTED]
    if not weak:
        return None
    weakest = min(weak, key=lambda v: v.power)
    needed = f"{weakest.queries_for_power:,} queries would give {POWER_WANTED:g}" if weakest.queries_for_power \
        else f"no number of queries up to 10,000,000 gives {POWER_WANTED:g}"
    return (f"warning: the gate's power is below {POWER_WANTED:g} for {len(weak)} of {len(verdicts)} run and "
            f"measure pairs; lowest {weakest.power:.2f}, {weakest.run} on {weakest.measure}, to see a drop of "
            f"{weakest.drop:.4g} ({effect_words(weakest)}) with its queries; {needed}")


def reversal_warnings(verdicts: list[GateVerdict]) -> list[str]:
    """A line for each significant verdict that could reverse were the
    unjudged documents judged (--bounds)."""
    return [f"warning: the gate's verdict on {v.run} for {v.measure} could reverse were the unjudged documents "
            f"judged: its difference from {v.baseline}, {_signed(v.difference)} (p = {v.p:.4g}), lies between "
            f"{_signed(v.bound_low)} and {_signed(v.bound_high)} over every grade they could get"
            for v in verdicts if v.could_reverse]


def tests_used(verdicts: list[GateVerdict]) -> str:
    """The tests of the verdicts' p-values: ``t test``, or per measure where
    they differ (``map, P_10 by t test; LP by sign test``)."""
    by_measure = dict.fromkeys((v.measure, v.test) for v in verdicts)
    tests = list(dict.fromkeys(test for _, test in by_measure))
    if len(tests) == 1:
        return f"{tests[0]} test"
    return "; ".join(f"{', '.join(m for m, t in by_measure if t == test)} by {test} test" for test in tests)


def passed_line(verdicts: list[GateVerdict]) -> str:
    """The one line a passing gate prints on standard error."""
    first = verdicts[0]
    runs = list(dict.fromkeys(v.run for v in verdicts))
    measures = list(dict.fromkeys(v.measure for v in verdicts))
    shape = (f"gate passed: {len(runs)} run{'s' * (len(runs) != 1)} x {len(measures)} "
             f"measure{'s' * (len(measures) != 1)} ({', '.join(measures)}) against {first.baseline}: ")
    if first.gate_test == "non-inferiority":
        return (shape + f"each shown not worse by margin {first.margin:g} or more, one-sided p < alpha "
                        f"{first.alpha:g} (one-sided t test, correction {first.correction})")
    return (shape + f"none worse by more than margin {first.margin:g} with p < alpha {first.alpha:g} "
                    f"({tests_used(verdicts)}, correction {first.correction})")


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
        for name, value in (("baseline", baseline), ("gate test", first.gate_test), ("test", tests_used(verdicts)),
                            ("alpha", f"{first.alpha:g}"),
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


def junit_error(message: str) -> str:
    """The JUnit XML report of a gate that could not decide (bad usage or
    input, exit 2): one test case with an error element naming the message,
    so that CI's publishing step has something to show."""
    from xml.etree import ElementTree as ET
    suites = ET.Element("testsuites", name="lexeval gate", tests="1", failures="0", errors="1")
    suite = ET.SubElement(suites, "testsuite", name="lexeval gate", tests="1", failures="0", errors="1",
                          skipped="0", time="0")
    case = ET.SubElement(suite, "testcase", classname="lexeval.gate", name="evaluation", time="0")
    error = ET.SubElement(case, "error", type="LexevalError", message=_clean(message))
    error.text = _clean(f"lexeval: error: {message}\nThe gate could not decide: nothing was compared.")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _details(verdict: GateVerdict) -> str:
    lines = [f"run: {verdict.run}", f"baseline: {verdict.baseline}", f"measure: {verdict.measure}",
             f"run value: {_number(verdict.run_value)}", f"baseline value: {_number(verdict.baseline_value)}",
             f"difference: {_signed(verdict.difference)}", f"confidence interval: {interval(verdict)}",
             f"p: {verdict.p:.4g}", f"alpha: {verdict.alpha:g}", f"test: {verdict.test}",
             f"correction: {verdict.correction}", f"margin: {verdict.margin:g}", f"gate test: {verdict.gate_test}",
             f"power: {_number(verdict.power)} to see a drop of {verdict.drop:.4g} ({effect_words(verdict)}; "
             + (f"{verdict.queries_for_power} queries would give 0.8)" if verdict.queries_for_power else
                "no number of queries gives 0.8)"),
             f"verdict: {'pass' if verdict.passed else 'fail'}"]
    return _clean("\n".join(lines))


def markdown_summary(verdicts: list[GateVerdict]) -> str:
    """A job summary: a heading with the verdict, then a row per candidate
    run and gate measure."""
    failed = sum(not v.passed for v in verdicts)
    first = verdicts[0]
    head = (f"### lexeval gate: {'FAILED, ' + str(failed) + ' of ' + str(len(verdicts)) if failed else 'passed'}"
            f"\n\nAgainst `{_cell(first.baseline)}`: " + (
                f"a run passes a measure only where a one-sided t-test shows it is not worse by {first.margin:g} "
                f"or more, p < {first.alpha:g} (correction {first.correction}).\n\n"
                if first.gate_test == "non-inferiority" else
                f"a run fails a measure where it is worse by more than {first.margin:g} with p < {first.alpha:g} "
                f"(correction {first.correction}).\n\n")) + \
        f"Power: to see a drop of {effect_words(first)}; queries: how many would give 0.8.\n\n"
    rows = ["| baseline | candidate | measure | baseline value | candidate value | difference | "
            f"{first.confidence:.0%} CI | test | p | power | queries | verdict |",
            "|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---|"]
    for v in verdicts:
        rows.append(f"| {_cell(v.baseline)} | {_cell(v.run)} | {_cell(v.measure)} | {_number(v.baseline_value)} | "
                    f"{_number(v.run_value)} | {_signed(v.difference)} | [{_number(v.ci_low)}, {_number(v.ci_high)}] | "
                    f"{v.test} | {v.p:.4g} | {_number(v.power)[:4] if v.power == v.power else 'n/a'} | "
                    f"{v.queries_for_power or 'n/a'} | {'pass' if v.passed else '**fail**'} |")
    return head + "\n".join(rows) + "\n\n"


def _cell(text: str) -> str:
    return _clean(text).replace("|", "\\|")


def verdict_blocks(verdicts: list[GateVerdict]) -> list[Block]:
    """JSON and CSV records, one per verdict: key the candidate run, measure
    ``gate_<measure>``, qid ``all``, value ``pass`` or ``fail``."""
    return [Block([v.run], ["all"], [f"gate_{v.measure}"], [["pass" if v.passed else "fail"]], [TEXT])
            for v in verdicts]
