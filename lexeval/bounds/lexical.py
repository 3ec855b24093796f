"""The lexicographic preferences' bounds under one assignment of grades to
the unjudged documents shared by both runs (a document has the same grade
in each): per query, the least and greatest LP, rrLP, LR and rrLR of run A
over run B. The references of the compiled kernel (``lex_bounds``), one query
and pair at a time.

Each is read off relevance rank by rank. With ``rel_A(i)`` and ``rel_B(i)``
the relevance of the two documents at rank i (0 past a ranking's end):

- **LP** is decided at the first rank r where they differ (the run relevant
  there wins): every rank above r is *alike*. A union-find over the
  unjudged documents' numbers and two constants (relevant, not relevant)
  joins the two documents of each rank going down; A can win at r iff its
  document there can be relevant and B's not, given the ranks above.
- **rrLP** is 1/r - 1/q where A wins at r and q is B's next relevant rank
  (1/q = 0 if none), and 1/q - 1/r where B wins. For a deciding rank r
  the greatest value takes B's documents below r not relevant unless the
  ranks above (and r) force them relevant: q is B's first forced-relevant
  rank below r. A later rank can beat it only where 1/r does, so the
  search stops there. Where A cannot win, 0 if a tie can be made, else the
  greatest 1/q - 1/r: A's first rank below r that can be relevant.
- **LR**: the run with more relevant documents retrieved wins; with equal
  counts the last rank where they differ decides (the run relevant there
  loses: its relevant document is lower). Its count difference is
  ``J_A - J_B`` (judged relevant) plus each unjudged document's grade
  times 1 if only A holds it, -1 if only B, 0 if both: at most ``J_A -
  J_B + (A's only)``. Above 0, A can win by counts; below, it cannot win.
  At exactly 0 the counts are equal only if every document only A holds is
  relevant and every one only B holds is not; with those fixed, the same
  union-find from the bottom up says whether B can be relevant and A not
  at some rank with every rank below alike.

- **rrLR** is 1/r where A wins by counts and r is its lowest relevant rank
  (the smallest r at or below A's lowest judged relevant document from
  which A's only documents at or above r, made relevant, put A ahead), and
  1/r - 1/q where the counts are equal: q is the lowest rank where the two
  differ (B's document relevant, A's not), every rank below alike, and r
  A's lowest relevant rank above q (A's documents between not relevant).
  The counts are equal iff A's only documents made relevant less B's only
  ones equal ``J_B - J_A``: the documents both hold count once for each.
  Each class of documents made alike takes one grade, so the sum is one of
  the subset sums of the classes' coefficients (+1 per A's only document,
  -1 per B's only; going up from the bottom, a class is a path of ranks,
  so its coefficient is between -2 and 2). Where A cannot win and no tie
  can be made, the greatest is B's smallest win: 1/r of B's lowest rank
  that can be relevant, or the least 1/r - 1/q of B's equal-count wins.

Each run's least is the other's greatest with the sign turned, and a tie
can be made iff every rank can be made alike (then the counts are equal
too).
"""

from __future__ import annotations

import copy

ZERO, ONE = -1, -2          # the two constants' nodes; an unjudged document's node is its number (>= 0)


class Alike:
    """A union-find over unjudged documents' numbers and the constants."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        while self.parent.get(x, x) != x:
            self.parent[x] = self.parent.get(self.parent[x], self.parent[x])
            x = self.parent[x]
        return x

    def can(self, x, y) -> bool:
        """Whether x can be relevant and y not, given what is joined."""
        fx, fy = self.find(x), self.find(y)
        return fx != self.find(ZERO) and fy != self.find(ONE) and fx != fy

    def join(self, x, y) -> bool:
        """Make x and y alike; False (and nothing joined) where they cannot be."""
        fx, fy = self.find(x), self.find(y)
        if fx == fy:
            return True
        if {fx, fy} == {self.find(ZERO), self.find(ONE)}:
            return False
        self.parent[fx] = fy
        return True

    def forced(self, x, relevant=(), not_relevant=()) -> int | None:
        """1 or 0 where x's grade is forced (with the nodes ``relevant`` and
        ``not_relevant`` taken as such), else None."""
        fx = self.find(x)
        if fx == self.find(ONE) or any(fx == self.find(y) for y in relevant):
            return 1
        if fx == self.find(ZERO) or any(fx == self.find(y) for y in not_relevant):
            return 0
        return None


def _nodes(side, level: int, top: int) -> list:
    """Each rank's node: ONE or ZERO where the document is judged (or every
    unjudged document has one relevance), else its number."""
    codes, ids = side
    variable = top >= level > 0
    every_relevant = level <= 0 and top >= level
    out = []
    for code, number in zip(codes.tolist(), ids.tolist()):
        if code >= 0 or not variable:
            out.append(ONE if code >= level or (code < 0 and every_relevant) else ZERO)
        else:
            out.append(int(number))
    return out


def _ranks(a: list, b: list):
    """(node of A, node of B) at each rank, ZERO past a ranking's end."""
    for i in range(max(len(a), len(b))):
        yield (a[i] if i < len(a) else ZERO), (b[i] if i < len(b) else ZERO)


def _tie(a: list, b: list) -> bool:
    alike = Alike()
    return all(alike.join(x, y) for x, y in _ranks(a, b))


def _lp_high(a: list, b: list) -> int:
    alike = Alike()
    for x, y in _ranks(a, b):
        if alike.can(x, y):
            return 1
        if not alike.join(x, y):
            return -1                 # every rank below is out of reach: B won above or here
    return 0


def _rrlp_high(a: list, b: list) -> float:
    alike = Alike()
    best = None
    for rank, (x, y) in enumerate(_ranks(a, b), start=1):
        if best is not None and 1.0 / rank <= best:
            return best
        if alike.can(x, y):
            below = [t for t in range(rank, len(b)) if alike.forced(b[t], (x,), (y,)) == 1]
            value = 1.0 / rank - (1.0 / (below[0] + 1) if below else 0.0)
            best = value if best is None else max(best, value)
        if not alike.join(x, y):
            break
    if best is not None:
        return best
    if _tie(a, b):
        return 0.0
    alike = Alike()
    for rank, (x, y) in enumerate(_ranks(a, b), start=1):
        if alike.can(y, x):
            below = [t for t in range(rank, len(a)) if alike.forced(a[t], (y,), (x,)) != 0]
            value = (1.0 / (below[0] + 1) if below else 0.0) - 1.0 / rank
            best = value if best is None else max(best, value)
        if not alike.join(x, y):
            break
    return float(best) if best is not None else 0.0


def _lr_high(a: list, b: list) -> int:
    only_a, only_b = {x for x in a if x >= 0} - set(b), {x for x in b if x >= 0} - set(a)
    most = a.count(ONE) - b.count(ONE) + len(only_a)
    if most > 0:
        return 1
    if most == 0:
        alike = Alike()
        for x in only_a:
            alike.join(x, ONE)
        for x in only_b:
            alike.join(x, ZERO)
        for x, y in reversed(list(_ranks(a, b))):
            if alike.can(y, x):
                return 1
            if not alike.join(x, y):
                break
    return 0 if _tie(a, b) else -1


def _only(a: list, b: list) -> tuple[set, set]:
    """The unjudged documents only A holds, and only B."""
    holes_a, holes_b = {x for x in a if x >= 0}, {x for x in b if x >= 0}
    return holes_a - holes_b, holes_b - holes_a


def _counts_can_equal(alike: Alike, only: tuple, need: int, also_relevant=None) -> bool:
    """Whether A's only documents made relevant less B's only ones can be
    ``need`` given what is joined (and ``also_relevant``'s class relevant)."""
    coefficient: dict = {}
    for members, sign in zip(only, (1, -1)):
        for x in members:
            root = alike.find(x)
            coefficient[root] = coefficient.get(root, 0) + sign
    relevant = {alike.find(ONE)} | ({alike.find(also_relevant)} if also_relevant is not None else set())
    sums = {sum(coefficient.pop(root, 0) for root in relevant)}
    coefficient.pop(alike.find(ZERO), None)
    for c in coefficient.values():
        sums |= {s + c for s in sums}
    return need in sums


def _equal_count_wins(a: list, b: list, only: tuple, need: int):
    """Every (r, q), 0-based, at which A wins with equal counts: going up
    from the bottom, every rank below q alike, B's document at q relevant and
    A's not, A's at r relevant and A's between not, the counts equal."""
    below = Alike()
    ranks = list(_ranks(a, b))
    for q in range(len(ranks) - 1, -1, -1):
        x, y = ranks[q]
        if below.can(y, x):
            above = copy.deepcopy(below)
            above.join(y, ONE)
            above.join(x, ZERO)
            for r in range(q - 1, -1, -1):
                node = ranks[r][0]
                if above.find(node) != above.find(ZERO) and _counts_can_equal(above, only, need, node):
                    yield r, q
                if not above.join(node, ZERO):
                    break
        if not below.join(x, y):
            return


def _rrlr_high(a: list, b: list) -> float:
    only_a, only_b = _only(a, b)
    ahead = a.count(ONE) - b.count(ONE)
    lowest_judged = max((i for i, x in enumerate(a) if x == ONE), default=-1)
    values = []
    for r, x in enumerate(a):                   # A wins by counts: its lowest relevant as high as it can be
        ahead += x in only_a
        if r >= lowest_judged and x != ZERO and ahead > 0:
            values.append(1.0 / (r + 1))
            break
    need = b.count(ONE) - a.count(ONE)
    values += [1.0 / (r + 1) - 1.0 / (q + 1) for r, q in _equal_count_wins(a, b, (only_a, only_b), need)]
    if values:
        return max(values)
    if _tie(a, b):
        return 0.0
    # B wins whatever the grades: by counts with its lowest rank that can be relevant, or with equal counts
    if need + len(only_b) > 0:
        values.append(-1.0 / (max(i for i, y in enumerate(b) if y != ZERO) + 1))
    values += [1.0 / (q + 1) - 1.0 / (r + 1) for r, q in _equal_count_wins(b, a, (only_b, only_a), -need)]
    return max(values)


def lex_bounds(name: str, a, b, level: int, top: int) -> tuple[float, float]:
    """(least, greatest) of preference ``name`` (LP, rrLP, LR or rrLR) of A over
    B on one query, over every shared assignment; ``a``, ``b``: each
    ranking's (codes, unjudged documents' numbers)."""
    high = {"LP": _lp_high, "rrLP": _rrlp_high, "LR": _lr_high, "rrLR": _rrlr_high}[name]
    nodes_a, nodes_b = _nodes(a, level, top), _nodes(b, level, top)
    return -high(nodes_b, nodes_a), high(nodes_a, nodes_b)


#: the preferences lex_bounds bounds, with the compiled kernel's number for each
BOUNDED_PREFERENCES = {"LP": 0, "LR": 1, "rrLP": 2, "rrLR": 3}
