"""The grids' and limbs' constants, defined once for Python and C.

The exact sums count values in units of 2**-GRID_BITS (their squares in
2**-2 GRID_BITS), held as LIMB_BITS-bit limbs (FIRST_LIMBS of a sum of
values, SECOND_LIMBS of a sum of squares); the draws' and the run scores'
sums count in units of 2**-DRAW_BITS. The compiled kernel reads them from
``_exact_constants.h``, which :func:`c_header` makes from this module
(``python -m lexeval.constants > lexeval/_exact_constants.h``); a test
checks that the header is what this module makes.
"""

GRID_BITS = 62           # sums are integers in units of 2**-62
DRAW_BITS = 40           # draw sums and run scores count in units of 2**-40
LIMB_BITS = 21           # a limb of an exact integer: 21 bits (products of two below 2**42)
FIRST_LIMBS = 7          # carried limbs of a sum of values on the grid (the kernel's row and pair sums)
SECOND_LIMBS = 10        # carried limbs of a sum of their squares

_ALL = {"GRID_BITS": GRID_BITS, "DRAW_BITS": DRAW_BITS, "LIMB_BITS": LIMB_BITS, "FIRST_LIMBS": FIRST_LIMBS,
        "SECOND_LIMBS": SECOND_LIMBS}


def c_header() -> str:
    """The C header of these constants (``_exact_constants.h``)."""
    lines = ["/* made by lexeval/constants.py (python -m lexeval.constants): edit that, not this */",
             "#ifndef LEXEVAL_EXACT_CONSTANTS_H", "#define LEXEVAL_EXACT_CONSTANTS_H", ""]
    lines += [f"#define {name} {value}" for name, value in _ALL.items()]
    lines += ["#define LIMB_MASK ((1ULL << LIMB_BITS) - 1)", "", "#endif", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(c_header(), end="")
