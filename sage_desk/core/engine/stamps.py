"""Run stamps: what a run ran, as content hashes, so two runs can say how they differ.

A stamp is computed once, when the run is created, and kept in the run's config under `stamp`.
It holds a short SHA-256 of each input that changes an agent's figures: the SOP graph (without
the editor's node positions, which move nothing), the policy, the world, the domain declaration
(its unsafe acts), the cases played, the agent and customer prompts, and the judge's prompts and
rubric; plus the app version, the seed, the repeats and every model with its parameters.
API keys never enter a stamp (the store scrubs configs as well). The judge sits above the engine:
its prompts' hash comes from the caller (`session.judge_prompt_hash`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sage_desk.core.jsonsafe import Json, JsonObject

if TYPE_CHECKING:
    from sage_desk.core.cases.model import Case
    from sage_desk.core.domain.loader import DomainBundle
    from sage_desk.core.engine.runspec import RunSpec
    from sage_desk.core.sop.model import Graph

STAMP_VERSION = 1
HASHED = ("sop", "policy", "world", "domain", "suite", "agent_prompt", "customer_prompt", "judge_prompt")
"""The stamp's content hashes, in the order a difference is reported."""
LABELS = {
    "sop": "SOP graph",
    "policy": "policy",
    "world": "world",
    "domain": "domain declaration",
    "suite": "case suite",
    "agent_prompt": "agent prompt",
    "customer_prompt": "customer prompt",
    "judge_prompt": "judge prompt and rubric",
    "app_version": "app version",
    "seed": "seed",
    "repeats": "repeats",
    "models": "models",
}


def content_hash(value: Json | bytes) -> str:
    """A short SHA-256 of text, bytes or any JSON-able value (dicts hashed with sorted keys)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode()
    else:
        data = json.dumps(value, sort_keys=True, default=str, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def _secret_option(name: str) -> bool:
    """Whether an option holds a key, token or client object (max_tokens counts tokens: it is kept)."""
    from sage_desk.core.agents.protocol import SECRET_NAME

    return name == "client" or bool(SECRET_NAME.search(name))


def _graph_content(graph: Graph) -> JsonObject:
    data: JsonObject = graph.model_dump(mode="json")
    for node in data.get("nodes", []):
        node.pop("pos", None)
    return data


def _public_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Model parameters worth recording: never keys, tokens or client objects."""
    return {
        k: v
        for k, v in sorted((options or {}).items())
        if not _secret_option(k) and isinstance(v, str | int | float | bool | None)
    }


def _model(role: str, name: str, api_base: str | None, defaults: JsonObject, options: dict[str, Any] | None) -> JsonObject:
    from sage_desk.core.agents.base import split_options
    from sage_desk.core.agents.protocol import agent_kind

    base, settings = split_options(name) if name.startswith("baseline:") else (name, {})
    offline = name.startswith("baseline:") or name == "scripted"
    if role == "agent" and agent_kind(name) in ("http", "python"):  # its own endpoint or code: only our parameters
        params = _public_options(options)
    else:
        params = {**settings} if offline else {**defaults, **_public_options(options), "api_base": api_base}
    return {"role": role, "name": name, "model": base, "parameters": params}


def run_stamp(
    spec: RunSpec,
    bundle: DomainBundle,
    cases: Sequence[Case],
    agent_options: dict[str, Any] | None = None,
    user_options: dict[str, Any] | None = None,
    judge_prompt: str | None = None,
) -> JsonObject:
    """The stamp of a run about to play `cases` of `bundle` as `spec` says; `judge_prompt` is the
    hash of the judge's prompts and rubric (`session.judge_prompt_hash`), None when not known."""
    from sage_desk import __version__
    from sage_desk.core.agents import prompts

    suite = sorted((c.model_dump(mode="json") for c in cases), key=lambda c: str(c.get("id")))
    own = {**(agent_options or {}), **(getattr(spec, "agent_params", None) or {})}  # the run's --agent-params
    models = [_model("agent", a, spec.api_base_for("agent"), {"temperature": None}, own) for a in spec.agents]
    models.append(_model("customer", spec.user, spec.api_base_for("user"), {"temperature": 0.7}, user_options))
    models += [_model("judge", j, spec.api_base_for("judge"), {"temperature": 0.0}, None) for j in spec.judges]
    return {
        "version": STAMP_VERSION,
        "app_version": __version__,
        "sop": content_hash(_graph_content(bundle.graph)),
        "policy": content_hash(bundle.policy),
        "world": _file_hash(bundle.dir / bundle.domain.world),
        "domain": _file_hash(bundle.dir / "domain.yaml"),
        "suite": content_hash(suite),
        "cases": len(suite),
        "agent_prompt": content_hash(getattr(spec, "agent_prompt", None) or prompts.AGENT_SYSTEM),
        "agent_prompt_file": getattr(spec, "agent_prompt_file", None),  # named when a prompt change is reported
        "customer_prompt": content_hash(prompts.CUSTOMER_SYSTEM),
        "judge_prompt": judge_prompt,
        "seed": spec.seed,
        "repeats": spec.repeats,
        "models": models,
    }


def _file_hash(path: Path) -> str | None:
    try:
        return content_hash(path.read_bytes())
    except OSError:
        return None


def stamp_of(config: JsonObject) -> JsonObject | None:
    """A run config's stamp, or None for a run created before stamps (or imported)."""
    stamp = config.get("stamp")
    return stamp if isinstance(stamp, dict) else None


def _models_by_role(stamp: JsonObject) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in stamp.get("models") or []:
        params = ", ".join(f"{k}={v}" for k, v in sorted((m.get("parameters") or {}).items()) if v is not None)
        out.setdefault(m.get("role", "?"), []).append(m.get("name", "?") + (f" ({params})" if params else ""))
    return out


def stamp_differences(a: JsonObject | None, b: JsonObject | None) -> list[JsonObject]:
    """What differs between two stamps, one entry per input: {key, label, a, b, text}.

    A run without a stamp gives one entry saying so, since nothing can be told about it.
    """
    if a is None or b is None:
        which = "the first run" if a is None else "the second run"
        if a is None and b is None:
            which = "neither run"
        return [
            {
                "key": "stamp",
                "label": "stamp",
                "a": a is not None,
                "b": b is not None,
                "text": f"{which} has no stamp (created before stamps, or imported): what it ran is unknown",
            }
        ]
    out = []
    for key in (*HASHED, "app_version", "seed", "repeats"):
        if key == "agent_prompt" and a.get(key) != b.get(key):
            before, after = _prompt_source(a), _prompt_source(b)
            out.append(
                {
                    "key": key,
                    "label": LABELS[key],
                    "a": a.get(key),
                    "b": b.get(key),
                    "text": f"{LABELS[key]} differs: {before} -> {after}",
                }
            )
        elif a.get(key) != b.get(key):
            out.append(
                {
                    "key": key,
                    "label": LABELS[key],
                    "a": a.get(key),
                    "b": b.get(key),
                    "text": f"{LABELS[key]} differs: {a.get(key)} -> {b.get(key)}",
                }
            )
    roles_a, roles_b = _models_by_role(a), _models_by_role(b)
    for role in sorted(set(roles_a) | set(roles_b)):
        if roles_a.get(role) != roles_b.get(role):
            before, after = "; ".join(roles_a.get(role, [])) or "none", "; ".join(roles_b.get(role, [])) or "none"
            out.append(
                {
                    "key": f"models.{role}",
                    "label": f"{role} model",
                    "a": roles_a.get(role),
                    "b": roles_b.get(role),
                    "text": f"{role} model differs: {before} -> {after}",
                }
            )
    return out


def _prompt_source(stamp: JsonObject) -> str:
    """Where a stamp's agent prompt came from, with its hash: a prompt file, or SAGE Desk's own."""
    source, digest = stamp.get("agent_prompt_file"), stamp.get("agent_prompt")
    return f"{source} ({digest})" if source else f"SAGE Desk's own ({digest})"


def describe(stamp: JsonObject | None) -> str:
    """One line for a report: the hashes and models of a stamp."""
    if stamp is None:
        return "no stamp (run created before stamps, or imported)"
    hashes = " ".join(f"{key}={stamp.get(key) or '-'}" for key in HASHED)
    models = "; ".join(f"{role}: {', '.join(names)}" for role, names in _models_by_role(stamp).items())
    return f"sage-desk {stamp.get('app_version')} seed {stamp.get('seed')} x{stamp.get('repeats')} | {hashes} | {models}"
