"""The banking domain (Kestrel Bank card services): it loads, its suite covers every path, and the
offline oracle scores perfectly on a sample of its cases (so the data and the graph agree)."""

from __future__ import annotations

from sage_desk.core.sop.paths import enumerate_paths

DOMAIN = "banking"


def test_no_account_action_without_verified_identity(bundle):
    """Every path that reaches a domain tool first decides IdentityVerified=verified (or hands over)."""
    for path in enumerate_paths(bundle.graph):
        if any(a.get("tool") for a in path.actions):
            assert path.assignments.get("IdentityVerified") == "verified", path.id
