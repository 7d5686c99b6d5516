"""One way to open a stored run: its spec, its domain and its cases, simulated or imported.

The CLI, the GUI and the calibration code all need the cases a run's conversations were played
(or placed) against: a suite file's for simulated runs, the cases the import built and kept with
each conversation for imported runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sage_desk.core.cases.model import Case
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.engine.runner import RunSpec

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def run_spec(store: Store, run_id: str) -> RunSpec:
    """The run's spec as it was created (extra keys a newer version wrote are ignored)."""
    config = dict(store.get_run(run_id).config)
    known = set(RunSpec.__dataclass_fields__)
    return RunSpec(**{k: v for k, v in config.items() if k in known})


def check_spec(spec: RunSpec, agent_options: dict[str, Any] | None = None,
               user_options: dict[str, Any] | None = None) -> None:
    """Refuse a run that cannot start, before anything is stored: an agent, customer or judge name
    nobody registered raises `UnknownNameError` (listing what exists), a model with no API key
    anywhere raises `RunError` naming the variable to set."""
    from sage_desk.core.agents.base import is_offline_name, make_agent, make_customer
    from sage_desk.core.engine.runner import check_keys
    from sage_desk.core.judge.factory import check_judge_names

    for agent in spec.agents:
        if is_offline_name(agent):
            make_agent(agent)
    if is_offline_name(spec.user):
        make_customer(spec.user)
    check_judge_names(spec.judges)
    check_keys(spec, agent_options, user_options)


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
