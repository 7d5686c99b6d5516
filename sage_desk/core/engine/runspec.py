"""What a run plays: its spec (`RunSpec`), its cases and per-conversation seeds, and the API-key check.

Split from engine/runner.py, which plays what is described here: these are plain values and pure
functions that the command line, the app, the sample builder and the stamps read without a runner.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

from sage_desk.core.agents.protocol import AgentSettings
from sage_desk.core.cases.model import Case
from sage_desk.core.cases.suite import load_suite_entries, validate_suite
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.errors import CaseError, RunError
from sage_desk.core.jsonsafe import JsonObject

PROVIDER_DEFAULT = "default"  # a role's API base that means the provider's own endpoint, not the run's


@dataclass
class RunSpec:
    """What to run. Never holds API keys (they come from the keyring or environment at run time)."""

    domain: str
    agents: list[str]
    user: str = "scripted"
    judges: list[str] = field(default_factory=list)
    repeats: int = 1
    concurrency: int = 8
    seed: int = 0
    api_base: str | None = None  # every role's model calls, unless the role has its own below
    user_api_base: str | None = None  # the simulated customer's; None: api_base, "default": the provider's own
    judge_api_base: str | None = None  # the judges'; None: api_base, "default": the provider's own
    endpoint_concurrency: int | None = None  # at most this many requests in flight to any one endpoint (llm/balance.py)
    cases: list[str] | None = None  # case ids to run; None = the whole suite
    suite: str | None = None  # a suite file other than the domain's cases.jsonl
    imported: JsonObject | None = None  # an imported run (sage-desk import): its format, files and name; nothing to play
    stamp: JsonObject | None = None  # what the run ran, as content hashes (engine/stamps.py); set by Runner.create
    agent_prompt: str | None = None  # --agent-prompt: the file's text, sent instead of our system prompt
    agent_prompt_file: str | None = None  # where that text came from (shown, not read again)
    agent_params: JsonObject | None = None  # --agent-param: model or HTTP body parameters
    agent_headers: list[str] | None = None  # --agent-header templates; their $VARS are read at call time, never kept
    tools_server: str | None = None  # --tools-server: the serve-tools URL an HTTP agent calls its tools through
    agent_names: dict[str, str] | None = None  # spec -> display name (`--agent NAME=SPEC`); core/agents/display.py

    def to_config(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def from_config(cls, config: JsonObject) -> RunSpec:
        """The spec a stored run config holds (keys a newer version wrote are ignored)."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in config.items() if k in known})

    def agent_settings(self) -> AgentSettings:
        """How the run talks to its agents under test (core/agents/protocol.py)."""
        return AgentSettings(
            prompt=self.agent_prompt,
            params=dict(self.agent_params or {}),
            headers=list(self.agent_headers or []),
            tools_server=self.tools_server,
        )

    def api_base_for(self, role: str) -> str | None:
        """Where a role's ("agent", "user", "judge") model calls go: its own API base, else the run's;
        None is the provider's own endpoint (a local agent can be judged by a hosted model). Several
        endpoints are one comma-separated API base, balanced call by call (core/llm/balance.py)."""
        own = {"user": self.user_api_base, "judge": self.judge_api_base}.get(role)
        base = own if own is not None else self.api_base
        return None if base in (None, "", PROVIDER_DEFAULT) else base


def conversation_seed(seed: int, case_id: str, agent: str, repeat: int) -> int:
    """A deterministic per-conversation seed."""
    return int(hashlib.sha1(f"{seed}|{case_id}|{agent}|{repeat}".encode()).hexdigest()[:8], 16)


def load_cases(bundle: DomainBundle, spec: RunSpec) -> list[Case]:
    """The cases a run plays, in suite order; a suite `sage-desk validate` refuses (a repeated case id, a case
    of another domain, a path the graph does not have ...) is refused here too, with the same problems."""
    if bundle.domain.audit_only and not spec.suite:
        raise RunError(
            f"domain {bundle.name!r} is audit-only: it has no world or case suite to play; import its "
            f"conversations instead (sage-desk import FILE --domain {bundle.name})"
        )
    path = spec.suite or bundle.cases_path
    entries = load_suite_entries(path)
    errors = [p for p in validate_suite(entries, bundle, str(path)) if p.is_error]
    if errors:
        raise CaseError(errors)
    cases = [e.case for e in entries]
    if spec.cases:
        wanted = set(spec.cases)
        missing = wanted - {c.id for c in cases}
        if missing:
            raise RunError(f"no case with id {sorted(missing)[0]!r} in the suite")
        cases = [c for c in cases if c.id in wanted]
    return cases


def check_keys(spec: RunSpec, agent_options: dict[str, Any] | None = None, user_options: dict[str, Any] | None = None) -> None:
    """Refuse a run whose models have no API key anywhere, naming what to set: a missing key is
    not a provider fault to retry for minutes. Roles given an explicit `api_key` option are fine."""
    from sage_desk.core.llm.secrets import missing_keys, where_to_set

    roles = {
        "agent": [] if "api_key" in (agent_options or {}) else spec.agents,
        "user": [] if "api_key" in (user_options or {}) or spec.user == "scripted" else [spec.user],
        "judge": spec.judges,
    }
    missing: dict[str, list[str]] = {}
    for role, models in roles.items():
        for model, env_var in missing_keys(list(models), spec.api_base_for(role)).items():
            missing.setdefault(env_var, []).append(f"{role} {model}")
    if missing:
        env_var, users = next(iter(missing.items()))
        also = f" (also missing: {', '.join(list(missing)[1:])})" if len(missing) > 1 else ""
        raise RunError(f"no API key for {', '.join(users)}: {where_to_set(env_var)}{also}")
