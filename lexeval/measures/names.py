"""Every name a user types, in one place: measures in trec_eval's syntax
(``P.5,10``, ``ndcg_cut.10``, output names like ``P_10``) and in
ir_measures' (``nDCG@10``, ``P(rel=2)@10``, ``RR@10``, ``RBP(p=0.8)``),
sets and preferences.

Names go in, typed measure requests come out (:func:`parse_measure`); the
command line, the library and the output all use them, so a measure prints
under one name whatever spelling asked for it. The names themselves live in
the table's rows (:mod:`lexeval.measures.registry`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..choices import (
    DEFAULT_PREFERENCES,
    DEFAULT_SET,
    PREFERENCE_ALIASES,
    PREFERENCE_NAMES,
    PREFERENCE_SETS,
)
from ..errors import UsageError
from . import registry as m
from . import requests as rq
from .gains import BINARY, DEPTH, GRADES


def _forms(attribute: str) -> dict[str, tuple[str | None, str | None]]:
    """Another tool's names (lower case) -> (lexeval measure without a
    cutoff, lexeval measure with one), None where that tool has no such
    form; read off the table's ``ir_names`` or ``ranx_names``."""
    found: dict[str, list] = {}
    for measure in m.MEASURES:
        for name in getattr(measure, attribute):
            forms = found.setdefault(name.lower(), [None, None])
            forms[1 if measure.params in (m.CUTOFFS, m.FRACTIONS) else 0] = measure.name
    return {name: (plain, with_cutoff) for name, (plain, with_cutoff) in found.items()}


IR_MEASURES = _forms("ir_names")
RANX_MEASURES = _forms("ranx_names")
NDEVAL_MEASURES = _forms("ndeval_names")
PREF_EVAL_MEASURES = _forms("pref_eval_names")
_PREF_EVAL_SYNTAX = re.compile(r"(?P<name>[a-z]+)(?:@(?P<cutoff>[0-9]+))?")
# pref_eval's rbp@p[,k]: binary RBP with persistence p (a fraction), of the top k
_PREF_EVAL_RBP = re.compile(r"rbp@(?P<p>[0-9]*\.[0-9]+)(?:,(?P<depth>[0-9]+))?")
# ranx's rbp.95: persistence 0.95, the grades as gains
_RANX_RBP = re.compile(r"rbp\.(?P<p>[0-9]+)(?:-l(?P<level>[0-9]+))?")
_NDEVAL_SYNTAX = re.compile(r"(?P<name>[A-Za-z][A-Za-z-]*)(?:@(?P<cutoff>[0-9]+))?")
_RANX_SYNTAX = re.compile(r"(?P<name>[a-z][a-z0-9_-]*?)(?:@(?P<cutoff>[0-9]+))?(?:-l(?P<level>[0-9]+))?")

# ir_measures' measures whose definition has no rel parameter: their values do not depend on the
# relevance level, so rel= would be printed and ignored; it is refused instead
_IR_WITHOUT_REL = frozenset({"bpm", "err", "insq", "inst", "judged", "ndcg", "nerr8", "nerr9", "nerr10", "nerr11",
                             "numq", "sdcg"})
_QUOTES = "'\""

_IR_SYNTAX = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9.]+))?")


@dataclass
class Selection:
    """What to compute: per-run measure requests and pair preference names."""

    metrics: list = field(default_factory=list)      # MeasureRequest
    preferences: list[str] = field(default_factory=list)
    dropped: list = field(default_factory=list)      # (request not computed, request computed instead)

    @property
    def needs_documents(self) -> bool:
        """Whether a measure compares documents across runs (rareness)."""
        return any(req.measure.needs_documents for req in self.metrics)

    @property
    def needs_subtopics(self) -> bool:
        """Whether a diversity measure was asked for."""
        return any(req.measure.subtopics for req in self.metrics)


# preferences and their sets in any case (lp, RRLP, Lexiprecision): no measure's name differs from one by case only
_PREFERENCES_ANY_CASE = {**{name.lower(): [name] for name in PREFERENCE_NAMES},
                         **{alias.lower(): [name] for alias, name in PREFERENCE_ALIASES.items()},
                         **{name.lower(): list(names) for name, names in PREFERENCE_SETS.items()}}


def _unknown(text: str):
    close = suggestions(text)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return UsageError(f"unknown measure '{text}' ({hint}lexeval --list-measures shows them all)")


def _known_names() -> set[str]:
    """Every name a measure, set or preference is asked by (without parameters)."""
    names = set(m.MEASURE_BY_NAME) | set(m.MEASURE_SETS) | set(PREFERENCE_SETS) | set(PREFERENCE_NAMES) | \
        set(PREFERENCE_ALIASES)
    for measure in m.MEASURES:
        names.update(measure.ir_names + measure.ranx_names + measure.ndeval_names + measure.pref_eval_names)
    return names


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, with a swap of two neighbours counted as one edit (ndgc -> ndcg)."""
    previous2, previous = None, list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            if previous2 is not None and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]


def suggestions(text: str, most: int = 3) -> list[str]:
    """Up to ``most`` known names closest to ``text`` by edit distance (its
    parameters kept: ndgc_cut.10 -> ndcg_cut.10, nDGC@10 -> nDCG@10)."""
    split = min((index for index in (text.find("."), text.find("@"), text.find("(")) if index > 0),
                default=len(text))
    base, rest = text[:split], text[split:]
    if not base:
        return []
    limit = max(1, len(base) // 3)
    scored = sorted((distance, _edit_distance(base, name), name) for name in _known_names()
                    if (distance := _edit_distance(base.lower(), name.lower())) <= limit)
    chosen: dict[str, str] = {}
    for _, _, name in scored:                   # one spelling of each name: the closest in case (map, not MAP)
        chosen.setdefault(name.lower(), name)
    return [name + rest for name in list(chosen.values())[:most]]


def parse_measure(text: str) -> list:
    """The requests one -m value names: MeasureRequests, or preference names
    (str). Several names separated by spaces (ir_measures' habit, "nDCG@10
    P@5") are read one by one. Raises UsageError for anything else."""
    text = text.strip()
    if not text:
        raise UsageError("an empty measure name (lexeval --list-measures shows them all)")
    if len(text.split()) > 1:                                   # "nDCG@10 P@5 AP" (spaces inside parameters stay)
        parts = _split_outside_parentheses(text)
        if len(parts) > 1:
            return [item for part in parts for item in parse_measure(part)]
    if text in m.MEASURE_SETS:
        return [rq.request(name) for name in m.MEASURE_SETS[text]]
    if text in PREFERENCE_SETS:
        return list(PREFERENCE_SETS[text])
    if text in PREFERENCE_NAMES:
        return [text]
    if text in PREFERENCE_ALIASES:                              # pref_eval: lexiprecision, invrpp
        return [PREFERENCE_ALIASES[text]]
    if text not in m.MEASURE_BY_NAME and text.lower() in _PREFERENCES_ANY_CASE:    # lp, RRLR
        return list(_PREFERENCES_ANY_CASE[text.lower()])
    if text in m.MEASURE_BY_NAME:                              # trec_eval: NAME
        return [rq.request(text)]
    found = _pref_eval_measure(text) or _ranx_rbp(text)         # pref_eval: rp, p@10, rbp@0.8,10
    if found is not None:
        return [replace(found, trec_spelling=False)]
    base, dot, raw = text.partition(".")
    if dot and base in m.MEASURE_BY_NAME:                      # trec_eval: NAME.PARAMS
        measure = m.MEASURE_BY_NAME[base]
        return [rq.request(measure.cutoff_form or base, raw)]
    found = _ir_measure(text)                                   # ir_measures: Name(p=v)@k
    if found is None:
        found = _ranx_measure(text)                             # ranx: name@k-lN
    if found is None:
        found = _ndeval_measure(text)                           # ndeval: alpha-nDCG@20
    if found is not None:
        return [replace(found, trec_spelling=False)]
    base, underscore, raw = text.rpartition("_")                # an output name: P_10, recip_rank_10
    if underscore and base in m.MEASURE_BY_NAME:
        measure = m.MEASURE_BY_NAME[base]
        if measure.cutoff_form:
            return [rq.request(measure.cutoff_form, raw)]
        if measure.params in (m.CUTOFFS, m.FRACTIONS):
            return [rq.request(base, raw)]
    if "(" in text or "@" in text:
        close = suggestions(text)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise UsageError(f"unknown measure '{text}': not a measure lexeval knows in ir_measures' syntax "
                         f"({hint}lexeval --list-measures shows them all)")
    raise _unknown(text)


def _split_outside_parentheses(text: str) -> list[str]:
    """Names separated by white space, parameters kept whole: "nDCG(dcg=log2, judged_only=True)@10 AP"."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char in "({") - (char in ")}")
        if char.isspace() and depth == 0:
            if current:
                parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return parts


def _ir_measure(text: str):
    """A request from ir_measures' syntax, or None if ``text`` is not in it."""
    if text.startswith("α_"):                                   # ir_measures' α_nDCG, α_DCG
        text = "alpha_" + text[2:]
    match = _IR_SYNTAX.fullmatch(text)
    if not match or match["name"].lower() not in IR_MEASURES:
        return None
    plain, with_cutoff = IR_MEASURES[match["name"].lower()]
    if plain is None and not match["cutoff"] and not match["params"] and \
            RANX_MEASURES.get(text, (None, None))[0] is not None:
        return None             # ranx's name without a cutoff (precision, f1): the whole ranking
    level, raw_params, judged_only = None, [], False
    options: list[tuple[str, object]] = []
    rows = [m.MEASURE_BY_NAME[name] for name in (plain, with_cutoff) if name is not None]
    params = match["params"] or ""
    gains = re.search(r"gains\s*=\s*\{(?P<pairs>[^{}]*)\}", params)
    if gains:                    # nDCG(gains={0:0,1:1,2:3}): trec_eval's ndcg.0=0,1=1,2=3
        if plain != "ndcg":
            raise UsageError(f"measure '{text}': gains are nDCG's parameter")
        pairs = [piece.split(":") for piece in gains["pairs"].split(",") if piece.strip()]
        if any(len(pair) != 2 for pair in pairs):
            raise UsageError(f"measure '{text}': gains are {{grade:gain,...}}")
        if match["cutoff"]:      # ndcg_cut takes them as an option: nDCG(gains={...})@10
            try:
                options.append(("gains", tuple((int(grade), float(gain)) for grade, gain in pairs)))
            except ValueError:
                raise UsageError(f"measure '{text}': gains are {{grade:gain,...}} with integer grades") from None
        else:
            raw_params.append(",".join(f"{grade.strip()}={gain.strip()}" for grade, gain in pairs))
        params = params[:gains.start()] + params[gains.end():]
    name = match["name"].lower()
    cutoff_text = match["cutoff"]
    for part in filter(None, (piece.strip() for piece in params.split(","))):
        key, equals, value = (piece.strip() for piece in part.partition("="))
        if not equals:
            raise UsageError(f"measure '{text}': parameters are name=value, got '{part}'")
        if len(value) > 1 and value[0] in _QUOTES and value[-1] == value[0]:      # dcg='exp-log2'
            value = value[1:-1]
        if key == "rel" and name in _IR_WITHOUT_REL:
            raise UsageError(f"measure '{text}': {match['name']} takes no rel (its value does not depend on the "
                             "relevance level)")
        if key == "rel":
            try:
                level = int(value)
            except ValueError:
                raise UsageError(f"measure '{text}': rel must be an integer grade, got '{value}'") from None
            if level < 0:
                raise UsageError(f"measure '{text}': rel must be 0 or more")
        elif key == "p" and plain == "rbp":
            raw_params.append(f"p={value}")
        elif key == "beta" and plain == "set_F":
            raw_params.append(value)
        elif key == "relative" and name in ("setp", "setrelp"):                   # SetP(relative=True)
            plain = "set_relative_P" if _boolean(text, key, value) else "set_P"
        elif key == "recall" and with_cutoff == "iprec_at_recall" or key == "cutoff":   # IPrec(recall=0.3), @k
            if cutoff_text and _number(text, key, cutoff_text) != _number(text, key, value) and \
                    float(cutoff_text) != float(value):
                raise UsageError(f"measure '{text}': {key}={value} and @{cutoff_text} contradict each other; "
                                 f"give the {'recall level' if key == 'recall' else 'cutoff'} once, as {key}= or "
                                 "as @")
            cutoff_text = value
        elif key == "judged_only":
            judged_only = _boolean(text, key, value)
        elif plain is not None and key in m.MEASURE_BY_NAME[plain].param_names:    # INST(T=2,max_rel=3)
            raw_params.append(f"{key}={_number(text, key, value)}")
        elif any(key in row.option_names for row in rows):                        # alpha_nDCG(alpha=0.75)
            options.append((key, float(_number(text, key, value))))
        elif key == "dcg" and match["name"].lower() == "ndcg":
            if value not in ("log2", "exp-log2"):
                raise UsageError(f"measure '{text}': dcg is log2 (trec_eval's linear gains) or exp-log2 "
                                 "(gains 2^grade - 1, as gdeval)")
            if value == "exp-log2":             # gdeval's gains: ndcg_exp@k, or the whole ranking's ndcg_burges
                plain, with_cutoff = "ndcg_burges", "ndcg_exp"
        else:
            raise UsageError(f"measure '{text}': lexeval does not know the parameter '{key}' here")
    if plain == "num_ret" and level is not None:    # NumRet(rel=N): retrieved documents of grade N or more
        plain = "num_rel_ret"
    cutoff_param = m.MEASURE_BY_NAME[plain].cutoff_param if plain is not None else None
    if cutoff_text and cutoff_param:            # RBP@10, SDCG@10: a named parameter of its own
        cutoff = cutoff_text
        if not cutoff.isdigit() or int(cutoff) < 1:
            raise UsageError(f"measure '{text}': the cutoff is a positive number of documents")
        raw_params.insert(0, f"{cutoff_param}={int(cutoff)}")
    elif cutoff_text:
        if with_cutoff is None:
            raise UsageError(f"measure '{text}': {match['name']} takes no cutoff")
        return replace(rq.request(with_cutoff, cutoff_text, level), judged_only=judged_only,
                       options=tuple(sorted(options)))
    if plain is None:
        raise UsageError(f"measure '{text}' needs a cutoff, e.g. {match['name']}@10")
    return replace(_ir_plain(text, plain, raw_params, level), judged_only=judged_only, options=tuple(sorted(options)))


def _boolean(text: str, key: str, value: str) -> bool:
    if value not in ("True", "False", "true", "false", "1", "0"):
        raise UsageError(f"measure '{text}': {key} is True or False")
    return value in ("True", "true", "1")


def _number(text: str, key: str, value: str) -> str:
    """A parameter's value as a number: True and False are 1 and 0."""
    value = {"True": "1", "False": "0", "true": "1", "false": "0"}.get(value, value)
    try:
        float(value)
    except ValueError:
        raise UsageError(f"measure '{text}': {key} is a number, got '{value}'") from None
    return value


def _ir_plain(text: str, plain: str, raw_params: list[str], level: int | None):
    """The request for an ir_measures name without a cutoff."""
    if plain == "rbp":          # ir_measures' RBP: binary gains at rel (1), p = 0.8 by default
        if not any(param.startswith("p=") for param in raw_params):
            raw_params.insert(0, "p=0.8")
        return _binary_rbp(",".join(_in_order(plain, raw_params)), 1 if level is None else level)
    return rq.request(plain, ",".join(_in_order(plain, raw_params)) or None, level)


def _in_order(plain: str, raw_params: list[str]) -> list[str]:
    """Named parameters in the row's order, so that one measure prints
    under one name however its parameters were written."""
    order = m.MEASURE_BY_NAME[plain].param_names
    if not order:
        return raw_params
    return sorted(raw_params, key=lambda param: order.index(param.split("=")[0]) if param.split("=")[0] in order
                  else len(order))


def _pref_eval_measure(text: str):
    """A request from pref_eval's metric keys (``rp``, ``p@10``,
    ``rbp@0.8,10``), or None. Names trec_eval has keep trec_eval's meaning
    (they are read before this: ``ndcg``, ``rbp``)."""
    rbp = _PREF_EVAL_RBP.fullmatch(text)
    if rbp:                     # binary gains at grade 1 (pref_eval's relevance), as ir_measures' RBP
        raw = f"p={rbp['p']}" + (f",{DEPTH}={int(rbp['depth'])}" if rbp["depth"] else "")
        return _binary_rbp(raw, 1)
    match = _PREF_EVAL_SYNTAX.fullmatch(text)
    if not match or match["name"] not in PREF_EVAL_MEASURES or text in m.MEASURE_BY_NAME:
        return None
    return _plain_or_cut(text, match["name"], PREF_EVAL_MEASURES[match["name"]], match["cutoff"])


def _plain_or_cut(text: str, name: str, forms: tuple, cutoff: str | None, level: int | None = None,
                  example: int = 10):
    """The request for another tool's ``name`` with or without a cutoff,
    from its (plain, with cutoff) forms; a form it lacks is a UsageError."""
    plain, with_cutoff = forms
    if cutoff:
        if with_cutoff is None:
            raise UsageError(f"measure '{text}': {name} takes no cutoff")
        return rq.request(with_cutoff, cutoff, level)
    if plain is None:
        raise UsageError(f"measure '{text}' needs a cutoff, e.g. {name}@{example}")
    return rq.request(plain, None, level)


def _ranx_rbp(text: str):
    """ranx's ``rbp.95`` (persistence 0.95; grades at or above the level
    are the gains, unscaled), or None."""
    match = _RANX_RBP.fullmatch(text)
    if not match:
        return None
    level = int(match["level"]) if match["level"] else None
    request = replace(rq.request("rbp", f"p=0.{match['p']},{GRADES}=1", level), separate=True)
    return replace(request, floor=True) if level is not None else request


def _binary_rbp(raw: str, level: int):
    """ir_measures' RBP: binary gains at ``level``."""
    request = rq.request("rbp", raw, level)
    return replace(request, values=request.values + ((BINARY, 1.0),), separate=True)


def _ranx_measure(text: str):
    """A request from ranx's syntax (``ndcg@10``, ``ndcg@10-l2``,
    ``r-precision``), or None if ``text`` is not in it."""
    match = _RANX_SYNTAX.fullmatch(text)
    if not match or match["name"] not in RANX_MEASURES:
        return None
    level = int(match["level"]) if match["level"] else None
    request = _plain_or_cut(text, match["name"], RANX_MEASURES[match["name"]], match["cutoff"], level)
    # ranx's -lN reads grades below N as 0: on graded measures that is a floor, not just a level
    return replace(request, floor=True) if level is not None and request.measure.graded else request


def _ndeval_measure(text: str):
    """A request from ndeval's names (``alpha-nDCG@20``, ``MAP-IA``), or None."""
    match = _NDEVAL_SYNTAX.fullmatch(text)
    if not match or match["name"].lower() not in NDEVAL_MEASURES:
        return None
    return _plain_or_cut(text, match["name"], NDEVAL_MEASURES[match["name"].lower()], match["cutoff"], example=20)


def output_names(text: str) -> list[str]:
    """The printed names a -m value stands for (P.5,10 -> P_5, P_10)."""
    names: list[str] = []
    for item in parse_measure(text):
        names.extend([item] if isinstance(item, str) else item.output_names())
    return names


def select_measures(names: list[str] | tuple[str, ...] | None, num_runs: int = 1,
                    extra: list[str] | tuple[str, ...] = (), default_set: str = DEFAULT_SET) -> Selection:
    """Parse -m values. With none given: ``default_set`` (trec_eval's
    official set), plus LP, rrLP and LR when there are two or more runs.
    ``extra`` names (the gate's measures) are added either way."""
    if not names:
        names = [default_set] + (list(DEFAULT_PREFERENCES) if num_runs > 1 else [])
    metrics, preferences = [], []
    for text in list(names) + list(extra):
        for item in parse_measure(text):
            if isinstance(item, str):
                if item not in preferences:
                    preferences.append(item)
            else:
                metrics.append(item)
    preferences.sort(key=PREFERENCE_NAMES.index)
    merged, dropped = rq.merge_requests(metrics)
    return Selection(merged, preferences, dropped)


def parameter_notes(names) -> list[str]:
    """A line for each parameter set asked in trec_eval's words that was not
    computed (trec_eval computes one set per measure, the first given), and
    how to ask for every set."""
    if not names:
        return []
    lines = []
    for gone, kept in select_measures(list(names)).dropped:
        shown = ", ".join(gone.output_names())
        how = [spelling for spelling in (_ir_spelling(gone), _ir_spelling(kept)) if spelling]
        advice = (f"to print both, ask in ir_measures' words: -m '{how[0]}' -m '{how[1]}'" if len(how) == 2 else
                  "ask for it in a call of its own")
        lines.append(f"{shown} not computed: in trec_eval's words a measure has one parameter set, the first given "
                     f"({', '.join(kept.output_names())}), as trec_eval computes; {advice}")
    return lines


def _ir_spelling(req) -> str | None:
    """ir_measures' spelling of a set_F or ndcg request, which prints as one line of its own; None for others."""
    level = "" if req.level is None else f"rel={req.level}"
    if req.name == "set_F" and not req.judged_only and not req.options:
        params = ",".join(filter(None, (level, f"beta={req.raw}" if req.raw else "")))
        return f"SetF({params})" if params else "SetF"
    if req.name == "ndcg" and req.level is None and not req.judged_only and not req.options:
        if req.raw is None:
            return "nDCG"
        if all(re.fullmatch(r"-?[0-9]+", grade) for grade, _ in req.values):
            return "nDCG(gains={" + ",".join(f"{grade}:{gain:g}" for grade, gain in req.values) + "})"
    return None
