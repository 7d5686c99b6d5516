"""The forms a told value may take (rules/disclosure.py), labelled by hand: told, and the near misses that are not."""

from __future__ import annotations

import pytest

from sage_desk.core.rules.disclosure import carries, fold

TOLD = [
    ("The outage has been running eleven hours.", 11),
    ("It should be fixed within twenty-four hours.", 24),
    ("Delivered on the 14th of November at 12:57.", "2026-11-14T12:57"),
    ("Delivered on 14 of Nov.", "2026-11-14"),
    ("Your rent account shows 1,450 dollars overdue.", 1450.0),
    ("The early termination fee is 162 pounds.", 162.0),
    ("UPS tracking 1z9801 311902, on time.", "1Z9801311902"),
    ("Tracking: 1Z-980-131-1902.", "1Z9801311902"),
    ("This charge is already disputed.", "disputed"),
]

NOT_TOLD = [
    ("A colleague replies within one business day.", 11),  # "one" is 1, never 11
    ("It should be fixed within twenty hours.", 24),
    ("Delivered on the 15th of November.", "2026-11-14"),
    ("Your rent account shows 145 dollars overdue.", 1450.0),
    ("UPS tracking 1Z980131, on time.", "1Z9801311902"),  # a prefix of the number is not the number
    ("Order 1 and order 980 131 1902.", "1Z9801311902"),
    ("A dispute is open.", "disputed"),
]


@pytest.mark.parametrize(("reply", "value"), TOLD)
def test_told(reply, value):
    assert carries(fold(reply), value)


@pytest.mark.parametrize(("reply", "value"), NOT_TOLD)
def test_not_told(reply, value):
    assert not carries(fold(reply), value)
