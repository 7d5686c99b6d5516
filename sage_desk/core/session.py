"""One way to build a run and to open a stored one: its runner, spec, domain and cases.

The session sits above the engine, the store and scoring, and joins them: `build_runner` gives the
CLI and the app the same runner, with the store's link (batched writes, worker processes), the
rule engine and the spec's judges as its post-hook, and the judge's prompt hash for its stamp.
The CLI, the GUI and the calibration code all need the cases a run's conversations were played
(or placed) against: a suite file's for simulated runs, the cases the import built and kept with
each conversation for imported runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.engine.runner import Progress, Runner, RunSpec
from sage_desk.core.judge.factory import NO_JUDGE
from sage_desk.core.registry import UnknownNameError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def run_spec(store: Store, run_id: str) -> RunSpec:
    """The run's spec as it was created (extra keys a newer version wrote are ignored)."""
    return RunSpec.from_config(store.get_run(run_id).config)


def judge_prompt_hash() -> str:
    """The LLM judge's system and user prompts with its rubric and pass threshold (a run stamp's `judge_prompt`)."""
    from sage_desk.core.engine.stamps import content_hash
    from sage_desk.core.judge import llm_judge, rubric

    return content_hash(
        {
            "system": llm_judge.JUDGE_SYSTEM,
            "user": llm_judge.JUDGE_USER,
            "examples": llm_judge.EXAMPLES_HEADER,
            "say": rubric.SAY_RUBRIC,
            "criteria": [[c.name, c.rubric] for c in rubric.CRITERIA],
            "pass": rubric.PASS_THRESHOLD,
        }
    )


def build_runner(
    store: Store, spec: RunSpec, on_progress: Callable[[Progress], None] | None = None, workers: int = 1, **settings: Any
) -> Runner:
    """A runner for `spec` on `store`, as `sage-desk run` and the app build it: batched writes through
    the store's link, the rule engine then the spec's judges storing verdicts as conversations
    finish, and the judge's prompt hash in the run's stamp. `settings` tune the batched writes
    (store/batch.py `StoreLink`: interval, max_pending, flush_at)."""
    from sage_desk.core.scoring.hooks import VerdictHooks
    from sage_desk.core.store.batch import StoreLink

    return Runner(
        store,
        on_progress=on_progress,
        workers=workers,
        link=StoreLink.of(store, **settings),
        post_factory=VerdictHooks(tuple(spec.judges), spec.api_base_for("judge")),
        judge_prompt=judge_prompt_hash(),
    )


def check_spec(spec: RunSpec, agent_options: dict[str, Any] | None = None, user_options: dict[str, Any] | None = None) -> None:
    """Refuse a run that cannot start, before anything is stored: an agent, customer or judge name
    nobody registered raises `UnknownNameError` (listing what exists), a model with no API key
    anywhere raises `RunError` naming the variable to set."""
    from sage_desk.core.agents.base import is_offline_name, make_agent, make_customer
    from sage_desk.core.agents.protocol import check_settings
    from sage_desk.core.engine.runspec import check_keys
    from sage_desk.core.judge.factory import check_judge_names

    check_settings(spec.agent_settings(), spec.agents)  # a header variable unset, a tools server without an HTTP agent
    for agent in spec.agents:
        if is_offline_name(agent):
            make_agent(agent, spec.agent_settings())  # a Python agent that does not import fails here
    if is_offline_name(spec.user):
        make_customer(spec.user)
    check_judge_names(spec.judges)
    roles = [("agent", a) for a in spec.agents] + [("user", spec.user)] + [("judge", j) for j in spec.judges]
    for role, name in roles:
        if not is_offline_name(name) and name not in NO_JUDGE and spec.api_base_for(role) is None:
            check_model_name(name)
    check_keys(spec, agent_options, user_options)


class UnknownModelError(UnknownNameError):
    """A model name that is neither one of ours nor one litellm can route."""


def check_model_name(name: str) -> None:
    """Refuse `nope:judge` and the like: with a ':' before any '/', a name reads as one of ours
    (`baseline:oracle`), which nobody registered, and litellm, which routes `provider/model`,
    cannot place it either; the run would only fail on every call. (`ollama/llama3:8b` and any
    name sent to an --api-base of the user's pass.)"""
    head = name.split("/", 1)[0]
    if ":" in head:
        raise UnknownModelError(
            f"unknown model {name!r}: ours are baseline:… and the scripted customer, "
            f"LLMs provider/model (e.g. openai/gpt-4o-mini, ollama/llama3:8b), or any name "
            f"with --api-base for an OpenAI-compatible server"
        )


def imported_cases(store: Store, run_id: str) -> tuple[dict[str, Case], dict[str, dict[str, str]]]:
    """An imported run's cases by id, and each case's slot sources (who set each slot)."""
    cases: dict[str, Case] = {}
    sources: dict[str, dict[str, str]] = {}
    for data in store.imported_cases(run_id).values():
        case = Case.model_validate(data["case"])
        cases[case.id] = case
        sources[case.id] = dict(data.get("slot_sources") or {})
    return cases, sources


def run_cases(store: Store, run_id: str) -> tuple[DomainBundle, dict[str, Case], RunSpec]:
    """The run's domain bundle, its cases by id and its spec."""
    from sage_desk.core.cases.suite import load_suite

    spec = run_spec(store, run_id)
    bundle = load_domain(spec.domain)
    if spec.imported is not None:
        return bundle, imported_cases(store, run_id)[0], spec
    return bundle, {c.id: c for c in load_suite(spec.suite or bundle.cases_path)}, spec


def error_reasons(store: Store, run_id: str) -> list[tuple[str, int]]:
    """Why the run's conversations errored: each reason (its first line) once, with its count, most frequent first."""
    from collections import Counter

    reasons = Counter(
        (c.error or "no reason recorded").strip().splitlines()[0] for c in store.conversations(run_id, status="errored")
    )
    return reasons.most_common()
