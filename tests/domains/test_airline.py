"""The airline domain (Aurora Air refunds and changes, SAGE's airline_refund): it loads, its suite covers every path, and the
offline oracle scores perfectly on a sample of its cases (so the data and the graph agree)."""

from __future__ import annotations

from sage_desk.core.sop.paths import enumerate_paths

DOMAIN = "airline"


def test_close_to_sages_airline_refund(bundle):
    """SAGE's airline_refund has 19 paths over these fields; ours stays in that range."""
    assert 15 <= len(enumerate_paths(bundle.graph)) <= 20
    assert {"ChangeReason", "DocumentValidity", "memberLevel", "hasInsurance"} <= set(bundle.graph.fields)


def test_blacklisted_members_only_ever_reach_a_human(bundle):
    for path in enumerate_paths(bundle.graph):
        level = path.assignments.get("memberLevel")
        if level == "blacklisted" or (isinstance(level, list) and "blacklisted" in level):
            assert path.outcome == "escalated", path.id
