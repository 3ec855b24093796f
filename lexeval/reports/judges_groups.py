"""The judges report by run group: do the compared judgements favour some
kind of system? (Balog, Metzler and Qin, "Rankers, Judges, and Assistants",
SIGIR 2025: language-model judges favour runs that use language models.)

Groups come from ``--run-groups FILE`` (lines ``run<TAB>group``, e.g.
``llm-reranker`` and ``lexical``) or ``--group-by SEP`` (each run's name up
to SEP). Per measure and compared set:

- each group's mean rank change (positive: down under the compared set) and
  mean score change (compared minus first) over its runs;
- for each two groups, the difference of those means (the first named
  minus the second) and its two-sided permutation p-value: the runs'
  changes dealt to the two groups again at random (``--permutations``,
  seeded by ``--seed``), every split enumerated where there are no more
  splits than permutations.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ..errors import InputError, UsageError
from ..stats import similarity as sim
from .common import COUNT, ReportLine, ReportOptions


def read_run_groups(path: str, run_names: list[str]) -> list[str | None]:
    """(R,) each run's group from a ``run<TAB>group`` file (blank lines and
    lines starting with # skipped; fields split at the first tab, else at
    white space); None for a run the file does not name."""
    given: dict[str, tuple[str, int]] = {}
    try:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                text = line.rstrip("\r\n")
                if not text.strip() or text.lstrip().startswith("#"):
                    continue
                fields = text.split("\t", 1) if "\t" in text else text.split(None, 1)
                if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
                    raise InputError(f"{path}:{number}", "a line of --run-groups is 'run<TAB>group'")
                run, group = fields[0].strip(), fields[1].strip()
                if run in given and given[run][0] != group:
                    raise InputError(f"{path}:{number}", f"run '{run}' is in group '{given[run][0]}' on line "
                                                         f"{given[run][1]} already")
                given[run] = (group, number)
    except OSError as exc:
        raise UsageError(f"--run-groups {path}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise UsageError(f"--run-groups {path}: not UTF-8 text") from None
    unknown = [run for run in given if run not in set(run_names)]
    if unknown:
        raise UsageError(f"--run-groups {path} names runs not evaluated: {', '.join(unknown)} (the runs: "
                         f"{', '.join(run_names)})")
    return [given[run][0] if run in given else None for run in run_names]


def run_groups(run_names: list[str], options: ReportOptions) -> list[str | None] | None:
    """(R,) each run's group, from the options (None: no groups asked)."""
    from .reusability import groups_of
    if options.run_groups is not None:
        groups = read_run_groups(str(options.run_groups), run_names)
        left = [run for run, group in zip(run_names, groups) if group is None]
        if left:
            (options.warn or (lambda _: None))(f"--run-groups {options.run_groups} does not name "
                                               f"{', '.join(left)}: left out of the groups' figures")
        return groups
    if options.group_by:
        return list(groups_of(run_names, options.group_by))
    return None


def leaderboards(scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(B, R) mean scores under query weights (B, Q) (counts of a bootstrap
    draw, or ones), NaN values left out."""
    known = np.isfinite(scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ np.where(known, scores, 0.0).T) / (weights @ known.T.astype(np.float64))


def permutation_p(values: np.ndarray, first: np.ndarray, permutations: int, seed: int) -> float:
    """Two-sided p-value of the difference of means between the values
    where ``first`` holds and the others, against every way (or
    ``permutations`` random ways) of dealing the values to groups of those
    sizes; a random draw's p is (1 + as extreme) / (1 + permutations)."""
    size, total = int(first.sum()), len(values)
    observed = abs(values[first].mean() - values[~first].mean())
    tolerance = 1e-12 * max(1.0, float(np.abs(values).max(initial=0.0)))
    if math.comb(total, size) <= permutations:
        members = np.zeros((math.comb(total, size), total), dtype=bool)
        for row, chosen in enumerate(combinations(range(total), size)):
            members[row, list(chosen)] = True
        differences = np.abs(members @ values / size - (~members) @ values / (total - size))
        return float((differences >= observed - tolerance).mean())
    draws = np.random.default_rng(seed).permuted(np.tile(values, (permutations, 1)), axis=1)
    differences = np.abs(draws[:, :size].mean(axis=1) - draws[:, size:].mean(axis=1))
    return float((1 + (differences >= observed - tolerance).sum()) / (1 + permutations))


def group_lines(first, scores: dict, groups: list[str | None], set_name: str, options: ReportOptions
                ) -> list[ReportLine]:
    """Each group's mean changes, and the permutation tests between groups."""
    names = list(dict.fromkeys(group for group in groups if group is not None))
    member = {name: np.array([group == name for group in groups]) for name in names}
    lines = []
    for measure, (a, b, _) in scores.items():
        queries = np.ones((1, a.shape[1]))
        x, y = leaderboards(a, queries)[0], leaderboards(b, queries)[0]
        changes = {"rank_change": (sim.strict_positions(y[None])[0] - sim.strict_positions(x[None])[0])
                   .astype(np.float64), "score_change": y - x}
        each = {"table": f"judges: run groups, {set_name}", "row_name": "group"}
        for name in names:
            lines += [ReportLine("judges", measure, f"group_{what}:{set_name}:{name}",
                                 float(change[member[name]].mean()), row=name, column=f"group_{what}", **each)
                      for what, change in changes.items()]
            lines.append(ReportLine("judges", measure, f"group_runs:{set_name}:{name}",
                                    float(member[name].sum()), COUNT, row=name, column="group_runs", **each))
        between = {"table": f"judges: run groups compared, {set_name}", "row_name": "groups"}
        for g, h in combinations(names, 2):
            chosen = member[g] | member[h]
            for what, change in changes.items():
                values, in_g = change[chosen], member[g][chosen]
                lines += [ReportLine("judges", measure, f"group_{what}_difference:{set_name}:{g}:{h}",
                                     float(values[in_g].mean() - values[~in_g].mean()), row=f"{g}:{h}",
                                     column=f"group_{what}_difference", **between),
                          ReportLine("judges", measure, f"group_{what}_p:{set_name}:{g}:{h}",
                                     permutation_p(values, in_g, options.permutations, options.seed),
                                     row=f"{g}:{h}", column=f"group_{what}_p", **between)]
    return lines
