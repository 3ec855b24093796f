/* made by lexeval/constants.py (python -m lexeval.constants): edit that, not this */
#ifndef LEXEVAL_EXACT_CONSTANTS_H
#define LEXEVAL_EXACT_CONSTANTS_H

#define GRID_BITS 62
#define DRAW_BITS 40
#define LIMB_BITS 21
#define FIRST_LIMBS 7
#define SECOND_LIMBS 10
#define LIMB_MASK ((1ULL << LIMB_BITS) - 1)

#endif
