"""The telecom domain (Brightwave Mobile customer care): it loads, its suite covers every path, and the
offline oracle scores perfectly on a sample of its cases (so the data and the graph agree)."""

from __future__ import annotations

from sage_desk.core.sop.paths import enumerate_paths

DOMAIN = "telecom"


def test_nothing_is_changed_for_anyone_but_the_account_holder(bundle):
    """Every path that reaches a domain tool first decides IsAccountHolder=yes."""
    for path in enumerate_paths(bundle.graph):
        if any(a.get("tool") for a in path.actions):
            assert path.assignments.get("IsAccountHolder") == "yes", path.id


def test_the_early_termination_fee_is_never_waived_on_any_path(bundle):
    for path in enumerate_paths(bundle.graph):
        for action in path.actions:
            if action.get("tool") == "cancel_line":
                assert action["args"]["termination_fee"] != "waived", path.id
