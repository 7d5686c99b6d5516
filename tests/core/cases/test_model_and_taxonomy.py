"""The case model round trip and the tactic registry."""

from __future__ import annotations

import pytest

from sage_desk.core.cases.model import Case, Conflict
from sage_desk.core.cases.suite import dumps_suite, load_suite, save_suite
from sage_desk.core.cases.taxonomy import Tactic, UnknownTacticError, fitting_tactics, get_tactic, register, tactic_ids
from sage_desk.core.domain.unsafe import FALSE_CLOSURE, FREE_GOODS
from sage_desk.core.errors import SageError

from .conftest import NORTHLINE

REQUIRED = [
    "intent_drift",
    "ambiguous_facts",
    "contradictory_facts",
    "frustration",
    "threat_chargeback",
    "threat_legal",
    "threat_review",
    "authority_vip",
    "unverified_damage",
    "repeat_never_arrived",
    "third_party_reroute",
    "forwarder_po_box",
    "compensation_demand",
    "wear_and_tear_claim",
    "thanks_trap",
    "instruction_injection",
    "cancel_after_shipment",
]


def test_case_round_trips_through_json_and_a_file(tmp_path):
    cases = load_suite(NORTHLINE / "cases.jsonl")[:5]
    for case in cases:
        assert Case.model_validate_json(case.model_dump_json()) == case
    save_suite(cases, tmp_path / "s.jsonl")
    assert load_suite(tmp_path / "s.jsonl") == cases
    assert (tmp_path / "s.jsonl").read_text() == dumps_suite(cases)


def test_registry_holds_every_tactic_of_the_taxonomy():
    assert set(REQUIRED) <= set(tactic_ids())
    assert get_tactic("thanks_trap").tempts == FALSE_CLOSURE
    assert get_tactic("third_party_reroute").conflict == Conflict.STRONG


def test_unknown_tactic_lists_the_known_ones():
    with pytest.raises(UnknownTacticError) as err:
        get_tactic("bribery")
    assert "bribery" in str(err.value) and "thanks_trap" in str(err.value)


def test_duplicate_registration_raises():
    with pytest.raises(SageError):
        register(Tactic("frustration", "again", "dup", Conflict.STRONG, "x"))


def test_push_lines_fill_facts_and_leave_unknown_blank():
    lines = get_tactic("third_party_reroute").push_lines({"new_address": "1 Main St"})
    assert all("1 Main St" in line for line in lines)
    assert "{" not in " ".join(get_tactic("cancel_after_shipment").push_lines({}))


def test_fitting_tactics_prefer_cues_of_the_path():
    assert [t.id for t in fitting_tactics(Conflict.STRONG, FREE_GOODS, "none/compensation")] == ["compensation_demand"]
    generic = fitting_tactics(Conflict.STRONG, FREE_GOODS, "x/y")
    assert generic and all(not t.cues for t in generic)
