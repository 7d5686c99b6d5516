"""Drafting a graph from prose through the fake OpenAI-compatible server: valid, repaired, rejected, sectioned."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from draft_samples import POLICY, VALID, fake_model, invalid_draft, write_domain
from fakes import FakeOpenAIServer

from sage_desk.core.domain.declaration import load_domain_context
from sage_desk.core.errors import SageError
from sage_desk.core.llm import LlmClient, LlmError
from sage_desk.core.llm.types import LlmReply
from sage_desk.core.sop.extract import DomainContext, DraftError, DraftOptions, draft_graph
from sage_desk.core.sop.model import NodeKind
from sage_desk.core.sop.validate import validate_graph


@pytest.fixture
def shop(tmp_path: Path) -> DomainContext:
    return load_domain_context(write_domain(tmp_path / "shop"))


def _draft(server: FakeOpenAIServer, domain: DomainContext, text: str = POLICY, progress=None, **options: Any):
    opts = DraftOptions("openai/fake-drafter", api_base=server.base_url, api_key="x", **options)
    return asyncio.run(draft_graph(text, domain, opts, client=LlmClient(backoff_base=0.001), on_progress=progress))


def test_a_valid_draft_is_validated_laid_out_and_cited(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.script = fake_model(VALID)
    seen = []
    result = _draft(fake_openai, shop, progress=seen.append)
    assert len(fake_openai.requests) == 1 and result.requests == 1 and result.tokens > 0
    request = fake_openai.requests[0]
    assert request["response_format"]["json_schema"]["schema"]["properties"].keys() >= {"fields", "nodes", "edges"}
    prompt = request["messages"][1]["content"]
    assert "- refund_order: Refund an order in full." in prompt and "Delivered = 'yes' if order.status" in prompt
    assert POLICY.strip() in prompt
    graph = result.graph
    assert [n.id for n in graph.nodes][:3] == ["start", "lookup", "demand"]
    assert validate_graph(graph, expr_names=shop.expr_names) == []
    assert len({n.pos for n in graph.nodes}) == len(graph.nodes)  # laid out: no two nodes on one spot
    assert graph.node("demand").pos[1] > graph.node("lookup").pos[1] > graph.node("start").pos[1]
    # every node knows its sentence; a verbatim quote is found as it is
    assert set(result.provenance) == {n.id for n in graph.nodes}
    span = result.provenance["lookup"]
    assert span.exact and POLICY[span.start : span.end] == "First look the order up with `lookup_order`."
    # a paraphrase is pointed at the policy's own sentence
    paraphrased = result.provenance["say_on_its_way"]
    assert not paraphrased.exact
    assert graph.node("say_on_its_way").cite == (
        "An order that was not delivered yet cannot be refunded: explain that it is still on its way."
    )
    assert [p.message for p in seen] == ["Drafting…"]


def test_a_tool_the_domain_lacks_is_flagged_not_refused(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.script = fake_model(VALID)
    result = _draft(fake_openai, shop)
    assert [(u.node, u.tool) for u in result.unmatched] == [("voucher", "issue_voucher")]
    assert result.unmatched[0].cite == "gets one with `issue_voucher`"
    assert [p.message.split(" (")[0] for p in result.problems] == ["node 'voucher': unknown tool 'issue_voucher'"]
    assert result.graph.node("voucher").tool == "issue_voucher"


def test_a_near_miss_tool_name_is_read_as_the_domains(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    draft = json.loads(json.dumps(VALID))
    draft["nodes"][1]["tool"] = "lookup_orders"
    fake_openai.script = fake_model(draft)
    result = _draft(fake_openai, shop)
    assert result.graph.node("lookup").tool == "lookup_order"
    assert any("'lookup_orders' read as the domain's 'lookup_order'" in w for w in result.warnings)


def test_an_invalid_draft_is_repaired_with_the_problems_sent_back(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    bad = invalid_draft()
    fake_openai.script = fake_model(bad, VALID)
    seen = []
    result = _draft(fake_openai, shop, progress=seen.append)
    assert len(fake_openai.requests) == 2 and result.requests == 2
    second = fake_openai.requests[1]["messages"]
    assert second[:2] == fake_openai.requests[0]["messages"]
    assert second[2] == {"role": "assistant", "content": json.dumps(bad)}
    repair = second[3]["content"]
    assert "- node 'delivered': value 'no' of 'Delivered' is not covered by any edge" in repair
    assert "- node 'say_tracking': dead end: nothing follows it and it is not an end node" in repair
    assert "- node 'say_on_its_way': unreachable from the start" in repair
    assert result.graph.out_edges("say_tracking")[0].target == "resolved"
    assert seen[-1].message == "Drafting (attempt 2, fixing problems)…"


def test_broken_json_is_repaired_too(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.script = fake_model('{"fields": [], "nodes": [', VALID)
    result = _draft(fake_openai, shop)
    assert "the answer is not valid JSON" in fake_openai.requests[1]["messages"][-1]["content"]
    assert len(result.graph.nodes) == len(VALID["nodes"])


def test_a_draft_still_invalid_after_n_attempts_is_rejected_with_its_problems(
    fake_openai: FakeOpenAIServer, shop: DomainContext
) -> None:
    fake_openai.script = fake_model(invalid_draft())
    with pytest.raises(DraftError) as caught:
        _draft(fake_openai, shop, max_attempts=3)
    assert len(fake_openai.requests) == 3
    error = caught.value
    assert error.attempts == 3 and len(error.problems) == 3
    assert "after 3 attempt(s)" in str(error) and "value 'no' of 'Delivered' is not covered" in str(error)
    # each repair request carries the whole conversation so far
    assert [len(r["messages"]) for r in fake_openai.requests] == [2, 4, 6]


def test_a_schema_mismatch_is_named_in_the_repair_request(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    wrong = json.loads(json.dumps(VALID))
    wrong["nodes"][2]["kind"] = "branch"
    fake_openai.script = fake_model(wrong, VALID)
    _draft(fake_openai, shop)
    assert (
        "nodes.2.kind: Input should be 'start', 'decision', 'action' or 'end'"
        in fake_openai.requests[1]["messages"][-1]["content"]
    )


# --- long documents ------------------------------------------------------------------------------

LONG = """# Intake

Customers write to us about their orders. First look the order up with `lookup_order`.
{pad}
# Refunds

Find out what the customer wants. A customer who asks for a refund gets one with `refund_order`.
Close the ticket as resolved once the refund is made.
{pad}
# Tracking

A customer who asks where the order is gets the tracking link. Then close the ticket as resolved.
{pad}
""".format(pad="This paragraph explains the background of the rule above in some detail. " * 3)

PART_1 = {
    "fields": [],
    "nodes": [
        {"id": "start", "kind": "start", "label": "Customer writes in", "source": "Customers write to us about their orders."},
        {
            "id": "lookup",
            "kind": "action",
            "label": "Look the order up",
            "tool": "lookup_order",
            "source": "First look the order up with `lookup_order`.",
        },
    ],
    "edges": [{"from": "start", "to": "lookup"}],
}
PART_2 = {
    "fields": [{"name": "Demand", "source": "user", "values": ["refund"]}],
    "nodes": [
        {
            "id": "demand",
            "kind": "decision",
            "label": "What do they want?",
            "field": "Demand",
            "source": "Find out what the customer wants.",
        },
        {
            "id": "refund",
            "kind": "action",
            "label": "Refund",
            "tool": "refund_order",
            "source": "A customer who asks for a refund gets one with `refund_order`.",
        },
        {
            "id": "resolved",
            "kind": "end",
            "label": "Resolved",
            "outcome": "resolved",
            "source": "Close the ticket as resolved once the refund is made.",
        },
    ],
    "edges": [{"from": "demand", "to": "refund", "when": ["refund"]}, {"from": "refund", "to": "resolved"}],
}
PART_3 = {
    "fields": [{"name": "Demand", "source": "user", "values": ["where_is_it"]}],
    "nodes": [
        {"id": "start", "kind": "start", "label": "again", "source": "Customers write to us about their orders."},
        {
            "id": "say_tracking",
            "kind": "action",
            "label": "Share tracking",
            "say": "Share the tracking link",
            "source": "A customer who asks where the order is gets the tracking link.",
        },
        {
            "id": "resolved",
            "kind": "end",
            "label": "Closed (other label)",
            "outcome": "resolved",
            "source": "Then close the ticket as resolved.",
        },
    ],
    "edges": [
        {"from": "start", "to": "say_tracking"},
        {"from": "demand", "to": "say_tracking", "when": ["where_is_it"]},
        {"from": "say_tracking", "to": "resolved"},
    ],
}


def _by_part(parts: dict[int, Any], final: Any = None):
    def script(request: dict[str, Any]) -> str:
        text = request["messages"][1]["content"]
        if "=== MERGED GRAPH ===" in text:
            return json.dumps(final)
        number = int(text.split("(part ", 1)[1][0])
        return json.dumps(parts[number])

    return script


def test_a_long_document_is_drafted_in_sections_and_merged(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.script = _by_part({1: PART_1, 2: PART_2, 3: PART_3})
    seen = []
    result = _draft(fake_openai, shop, text=LONG, progress=seen.append, section_chars=500)
    assert result.sections == 3 and len(fake_openai.requests) == 3
    titles = [r["messages"][1]["content"].split("=== SOP TEXT ")[1].split(" ===")[0] for r in fake_openai.requests]
    assert titles == ["(part 1 of 3: Intake)", "(part 2 of 3: Refunds)", "(part 3 of 3: Tracking)"]
    # later parts see what was drafted before, so shared steps keep their ids
    second = fake_openai.requests[1]["messages"][1]["content"]
    assert (
        "=== ALREADY DRAFTED FROM EARLIER PARTS ===" in second and "- lookup (action: lookup_order) Look the order up" in second
    )
    graph = result.graph
    assert [n.id for n in graph.nodes] == ["start", "lookup", "demand", "refund", "resolved", "say_tracking"]
    assert graph.node("resolved").label == "Resolved"  # the first definition is kept
    assert graph.fields["Demand"].values == ["refund", "where_is_it"]
    assert [e.target for e in graph.out_edges("lookup")] == ["demand"]  # part 2 chained after part 1's open step
    assert [e.target for e in graph.out_edges("start")] == ["lookup"]  # part 3's start was dropped
    assert validate_graph(graph, tools=shop.tool_names, expr_names=shop.expr_names) == []
    # provenance is found in the whole document
    span = result.provenance["say_tracking"]
    assert LONG[span.start : span.end] == "A customer who asks where the order is gets the tracking link."
    assert [p.message for p in seen] == ["Drafting part 1 of 3…", "Drafting part 2 of 3…", "Drafting part 3 of 3…"]


def test_a_merged_draft_with_problems_gets_a_final_repair(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    part_3 = json.loads(json.dumps(PART_3))
    part_3["edges"] = [e for e in part_3["edges"] if e["from"] != "demand"]  # the where_is_it branch is never drawn
    fixed = {
        "fields": [*PART_2["fields"], *PART_3["fields"]],
        "nodes": [*PART_1["nodes"], *PART_2["nodes"], *PART_3["nodes"][1:2]],
        "edges": [*PART_1["edges"], {"from": "lookup", "to": "demand"}, *PART_2["edges"], *PART_3["edges"][1:]],
    }
    fake_openai.script = _by_part({1: PART_1, 2: PART_2, 3: part_3}, final=fixed)
    result = _draft(fake_openai, shop, text=LONG, section_chars=500)
    assert len(fake_openai.requests) == 4
    final = fake_openai.requests[3]["messages"][1]["content"]
    assert "- node 'demand': value 'where_is_it' of 'Demand' is not covered by any edge" in final
    assert '"id": "say_tracking"' in final  # the merged graph is shown whole
    assert ("demand", "say_tracking") in {(e.source, e.target) for e in result.graph.edges}
    assert validate_graph(result.graph, tools=shop.tool_names) == []


def test_no_start_in_the_first_section_is_a_problem_to_repair(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    no_start = {"fields": [], "nodes": PART_1["nodes"][1:], "edges": []}
    fake_openai.script = _by_part({1: no_start, 2: PART_2, 3: PART_3})
    with pytest.raises(DraftError, match="part 1 \\(Intake\\)") as caught:
        _draft(fake_openai, shop, text=LONG, section_chars=500, max_attempts=2)
    assert caught.value.problems == ["the first section must have the start node (kind 'start')"]


# --- the provider ---------------------------------------------------------------------------------


class _RefusesSchemas:
    """A client whose provider rejects `response_format` the way some OpenAI-compatible servers do."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def complete(self, model: str, messages: list[dict[str, Any]], **params: Any) -> LlmReply:
        self.calls.append(params)
        if "response_format" in params:
            raise LlmError(f"{model}: BadRequestError: response_format json_schema is not supported", status=400)
        return LlmReply(content=json.dumps(VALID))


def test_a_provider_without_structured_output_gets_the_schema_in_the_prompt(shop: DomainContext) -> None:
    client = _RefusesSchemas()
    result = asyncio.run(draft_graph(POLICY, shop, DraftOptions("openai/plain"), client=client))
    assert ["response_format" in c for c in client.calls] == [True, False]
    assert result.requests == 1 and result.graph.node("refund") is not None


def test_a_provider_failure_is_raised_not_hidden(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.push_faults("401")
    with pytest.raises(LlmError):
        _draft(fake_openai, shop)


def test_an_empty_text_is_refused(shop: DomainContext) -> None:
    with pytest.raises(SageError, match="empty"):
        asyncio.run(draft_graph("  \n", shop, DraftOptions("openai/none")))


def test_the_start_node_kind_survives(fake_openai: FakeOpenAIServer, shop: DomainContext) -> None:
    fake_openai.script = fake_model(VALID)
    assert _draft(fake_openai, shop).graph.start().kind == NodeKind.START
