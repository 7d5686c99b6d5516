"""Each rule family on hand-built event sequences, passing and failing."""

from __future__ import annotations

import pytest
from helpers import first_case

from sage_desk.core.events import CustomerMessage, Handover, TicketClosed, TicketTagged, ToolCall
from sage_desk.core.registry import UnknownNameError
from sage_desk.core.rules.engine import evaluate, rule, rule_families


def seq(*events):
    for i, e in enumerate(events):
        e.seq = i
    return list(events)


def verdict(verdicts, criterion):
    return next(v for v in verdicts if v.criterion == criterion)


def call(name, args, **kw):
    return ToolCall(
        name=name,
        arguments=args,
        kind="helpdesk" if name in ("tag_ticket", "close_ticket", "handover_to_human") else "read",
        **kw,
    )


@pytest.fixture
def damage_with_photo(northline_cases):
    return next(c for c in northline_cases.values() if c.expected.path == "none/damaged/photo" and c.bucket.value == "resolvable")


def perfect_events(case):
    tools = [call(a.tool, a.args) for a in case.expected.actions if a.tool]
    slots = {k: v for k, v in case.truth.items() if k != "CoreDemand"}
    return seq(
        CustomerMessage(text=case.opening),
        call("tag_ticket", {"intent": case.truth["CoreDemand"], "slots": slots}),
        TicketTagged(intent=case.truth["CoreDemand"], slots=slots),
        *tools,  # classified before acting
        call("close_ticket", {"outcome": "resolved", "summary": "ok"}),
        TicketClosed(outcome="resolved"),
    )


def test_a_perfect_conversation_passes_every_rule(northline, damage_with_photo):
    verdicts = evaluate(damage_with_photo, northline, perfect_events(damage_with_photo))
    failed = [v.criterion for v in verdicts if v.passed is False]
    assert failed == []
    assert verdict(verdicts, "path.prefix_similarity").score == 1.0
    assert verdict(verdicts, "classification.EvidenceProvided").node == "dmg_photo"


def test_wrong_tag_fails_that_field_only(northline, damage_with_photo):
    events = perfect_events(damage_with_photo)
    for e in events:
        if isinstance(e, TicketTagged):
            e.slots = {**e.slots, "EvidenceProvided": "no_photo"}
    verdicts = evaluate(damage_with_photo, northline, events)
    assert verdict(verdicts, "classification.EvidenceProvided").passed is False
    assert verdict(verdicts, "classification.CoreDemand").passed is True
    assert verdict(verdicts, "classification").passed is False


def test_skipped_step_wrong_argument_and_extra_action(northline, damage_with_photo):
    case = damage_with_photo
    replacement = next(a for a in case.expected.actions if a.tool == "send_replacement")
    events = seq(
        CustomerMessage(text="hi"),
        call("lookup_order", {"order_id": case.grounding["order"]}),
        call("send_replacement", {**replacement.args, "variant_id": "WRONG-VARIANT"}),
        call("cancel_order", {"order_id": case.grounding["order"]}),
    )
    verdicts = evaluate(case, northline, events)
    assert verdict(verdicts, "path.step.replace_damaged").passed is False
    assert verdict(verdicts, "path.unexpected.cancel_order").event_seq == 3
    assert verdict(verdicts, "path.action_accuracy").passed is False
    assert verdict(verdicts, "path.prefix_similarity").score == pytest.approx(1 / 3, abs=1e-3)


def test_outcome_and_escalation_both_ways(northline, northline_cases):
    must = first_case(northline_cases, bucket="must_escalate")
    kept = evaluate(must, northline, seq(CustomerMessage(text="x"), TicketClosed(outcome="resolved")))
    assert verdict(kept, "escalation.required").passed is False
    assert verdict(kept, "outcome").passed is False
    handed = evaluate(must, northline, seq(CustomerMessage(text="x"), Handover(reason="legal")))
    assert verdict(handed, "escalation.required").passed is True
    resolvable = first_case(northline_cases, bucket="resolvable")
    over = evaluate(resolvable, northline, seq(CustomerMessage(text="x"), Handover(reason="unsure")))
    assert verdict(over, "escalation.unneeded").passed is False


@pytest.mark.parametrize("kind", ["free_goods", "fraud_reroute", "wrongful_cancel"])
def test_forbidden_action_fired_is_catastrophic(northline, northline_cases, kind):
    case = next(c for c in northline_cases.values() if any(f.kind == kind for f in c.forbidden))
    forbidden = next(f for f in case.forbidden if f.kind == kind)
    args = {**forbidden.args}
    spec = northline.domain.tools[forbidden.tool]
    args.setdefault(spec.key, case.grounding["order"])
    for pname, param in spec.params.items():
        args.setdefault(pname, param.enum[0] if param.enum else "x")
    fired = evaluate(case, northline, seq(CustomerMessage(text="x"), call(forbidden.tool, args)))
    assert verdict(fired, f"catastrophic.{kind}").passed is False
    held = evaluate(case, northline, seq(CustomerMessage(text="x")))
    assert verdict(held, f"catastrophic.{kind}").passed is True


def test_false_closure_thanks_trap(northline, northline_cases):
    case = next(c for c in northline_cases.values() if any(f.kind == "false_closure" for f in c.forbidden))
    premature = evaluate(
        case,
        northline,
        seq(
            CustomerMessage(text="x"),
            call("close_ticket", {"outcome": "resolved", "summary": "thanks"}),
            TicketClosed(outcome="resolved"),
        ),
    )
    assert verdict(premature, "catastrophic.false_closure").passed is False
    right = evaluate(
        case,
        northline,
        seq(
            CustomerMessage(text="x"),
            call("close_ticket", {"outcome": case.expected.outcome, "summary": "ok"}),
            TicketClosed(outcome=case.expected.outcome),
        ),
    )
    assert verdict(right, "catastrophic.false_closure").passed is True


def test_registry_refuses_duplicates_and_lists_families():
    assert rule_families()[:5] == ["classification", "path", "outcome", "catastrophic", "escalation"]
    with pytest.raises(ValueError, match="already registered"):
        rule("path")(lambda ctx: [])
    with pytest.raises(UnknownNameError, match="unknown rule family 'nope' \\(known: classification"):
        evaluate(None, None, [], families=["nope"])
