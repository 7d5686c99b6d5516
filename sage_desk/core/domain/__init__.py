"""Domains: a folder with domain.yaml, policy.md, sop.yaml, world.yaml and cases.jsonl."""

from sage_desk.core.domain.loader import DomainBundle, load_domain, validate_domain
from sage_desk.core.domain.model import Domain, ToolKind, ToolSpec
from sage_desk.core.domain.tools import CLOSE, HANDOVER, HELPDESK_TOOLS, TAG, ToolResult, call_tool
from sage_desk.core.domain.world import World, WorldView

__all__ = [
    "CLOSE",
    "HANDOVER",
    "HELPDESK_TOOLS",
    "TAG",
    "Domain",
    "DomainBundle",
    "ToolKind",
    "ToolResult",
    "ToolSpec",
    "World",
    "WorldView",
    "call_tool",
    "load_domain",
    "validate_domain",
]
