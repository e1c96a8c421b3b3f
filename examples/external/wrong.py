#!/usr/bin/env python3
"""A deliberately wrong finalizer, for `budgetlab conform` to catch: headtail.py with two bugs.

1. It shares one unit more than the budget, so every batch it shortens overshoots the budget by exactly one unit.
2. It cuts at UTF-16 positions without looking at surrogate pairs, so a cut that falls inside an emoji keeps half
   of it. The half goes out as a lone `\\udXXX` escape: `budgetlab finalize` refuses the answer and names it.

Everything else (the protocol, persistence, the note naming the artifact) is headtail.py's.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import headtail  # noqa: E402  (the example beside this one)

right_allocate = headtail.allocate


def allocate(lengths, budget):
    """Bug 1: one unit more than the budget."""
    return right_allocate(lengths, budget + 1)


def cut_head(text, n):
    """Bug 2: the first n UTF-16 units, even when the last is half of a pair."""
    return text.encode("utf-16-le", "surrogatepass")[: 2 * n].decode("utf-16-le", "surrogatepass")


def cut_tail(text, n):
    """Bug 2: the last n UTF-16 units, even when the first is half of a pair."""
    if n <= 0:
        return ""
    return text.encode("utf-16-le", "surrogatepass")[-2 * n :].decode("utf-16-le", "surrogatepass")


headtail.allocate = allocate
headtail.cut_head = cut_head
headtail.cut_tail = cut_tail

if __name__ == "__main__":
    sys.exit(headtail.main())
