"""A domain read from its `domain.yaml` alone, for tools that must work while the rest is unfinished.

The SOP editor validates a graph against its domain's tool and expression names even when the
graph has problems, and the prose importer tells the model about a domain whose graph does not
exist yet; neither may need the world, the policy or the graph to load. The full domain, every
file checked, is `loader.load_domain`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from sage_desk.core.domain.loader import ARG_NAMES
from sage_desk.core.domain.model import Domain
from sage_desk.core.domain.tools import HELPDESK_TOOLS
from sage_desk.core.errors import DomainError, InputError, Problem
from sage_desk.core.locations import resolve_domain_dir
from sage_desk.core.sop.document import DomainNames
from sage_desk.core.sop.extract import DomainContext
from sage_desk.core.sop.io import pydantic_problems
from sage_desk.core.yamlsafe import load_file


def read_declaration(decl: Path) -> Domain:
    """`domain.yaml` as a validated `Domain`; a broken one raises DomainError with located problems."""
    try:
        located = load_file(decl)
        return Domain.model_validate(located.data)
    except InputError as exc:
        raise DomainError(exc.problems) from None
    except ValidationError as exc:
        raise DomainError(pydantic_problems(exc, located)) from None


def domain_names_for(sop_path: str | Path) -> DomainNames | None:
    """The tool and expression names of the domain a graph file belongs to, or None if it has none.

    Reads only `domain.yaml` next to the graph (not the whole domain), so that a graph with
    problems can still be edited with its domain's names; a broken `domain.yaml` raises DomainError.
    """
    path = Path(sop_path)
    decl = path.parent / "domain.yaml"
    if not decl.is_file():
        return None
    domain = read_declaration(decl)
    if domain.sop != path.name:
        return None
    return DomainNames(domain.name, (*domain.tools, *HELPDESK_TOOLS), (*domain.context, *ARG_NAMES))


def load_domain_context(name_or_path: str | Path) -> DomainContext:
    """The domain of a folder (or a shipped domain's name), read from its `domain.yaml` alone."""
    decl = resolve_domain_dir(name_or_path) / "domain.yaml"
    if not decl.is_file():
        raise DomainError([Problem(str(name_or_path), 1, 1, "not a domain folder (no domain.yaml)")])
    domain = read_declaration(decl)
    tools = {}
    for name, spec in domain.tools.items():
        params = ", ".join([spec.key, *spec.params])
        tools[name] = f"{spec.description.strip()} ({spec.kind.value}; arguments: {params})"
    return DomainContext(
        domain.name,
        domain.title or domain.name,
        tools,
        dict(domain.system_variables),
        tuple(domain.context),
        domain.intent_field,
        tool_names=(*domain.tools, *HELPDESK_TOOLS),
        expr_names=(*domain.context, *ARG_NAMES),
    )
