"""Case suites as JSONL: load and save with line-numbered errors, and validation against a domain."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from sage_desk.core import jsonbound
from sage_desk.core.cases.build import assignments_for, case_context, select_path
from sage_desk.core.cases.model import Bucket, Case
from sage_desk.core.cases.taxonomy import UnknownTacticError, get_tactic
from sage_desk.core.domain.loader import DomainBundle, load_domain, load_domain_problems
from sage_desk.core.domain.model import Domain
from sage_desk.core.domain.unsafe import FALSE_CLOSURE
from sage_desk.core.errors import CaseError, InputError, Problem
from sage_desk.core.sop.model import FieldSource
from sage_desk.core.sop.paths import Path as GraphPath
from sage_desk.core.sop.paths import enumerate_paths
from sage_desk.core.yamlsafe import read_text


@dataclass
class SuiteEntry:
    """A case with the line it stands on."""

    line: int
    case: Case


def load_suite_entries(path: str | Path) -> list[SuiteEntry]:
    """Every case of a JSONL file with its line; raises CaseError listing every bad line."""
    file = str(path)
    entries, problems = [], []
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = jsonbound.loads(raw, number)  # bounded: deep nesting or a 5,000-digit number is a located problem
        except jsonbound.JsonProblem as exc:
            problems.append(Problem(file, exc.line, exc.col, exc.message.replace("not JSON", "not valid JSON")))
            continue
        try:
            entries.append(SuiteEntry(number, Case.model_validate(data)))
        except ValidationError as exc:
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "case"
                msg = f"unknown key {err['loc'][-1]!r}" if err["type"] == "extra_forbidden" else err["msg"]
                problems.append(
                    Problem(file, number, 1, f"case {data.get('id', '?') if isinstance(data, dict) else '?'}: {where}: {msg}")
                )
    if problems:
        raise CaseError(problems)
    return entries


def load_suite(path: str | Path) -> list[Case]:
    """The cases of a JSONL suite."""
    return [e.case for e in load_suite_entries(path)]


def dumps_suite(cases: Iterable[Case]) -> str:
    """One JSON object per line, in a stable key order."""
    return "".join(c.model_dump_json(exclude_none=True) + "\n" for c in cases)


def save_suite(cases: Iterable[Case], path: str | Path) -> None:
    """Write a suite atomically."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(dumps_suite(cases), encoding="utf-8")
    tmp.replace(target)


def validate_suite(entries: list[SuiteEntry], bundle: DomainBundle, file: str) -> list[Problem]:
    """Every problem of a suite against its domain (orders, paths, tools, truth, expected actions)."""
    paths = enumerate_paths(bundle.graph)
    by_id = {p.id: p for p in paths}
    tools = set(bundle.tool_names())
    user_fields = bundle.user_fields()
    problems: list[Problem] = []
    seen: set[str] = set()
    for entry in entries:
        case = entry.case

        def bad(msg: str, case: Case = case, line: int = entry.line) -> None:
            problems.append(Problem(file, line, 1, f"case {case.id}: {msg}"))

        if case.id in seen:
            bad("duplicate case id")
        seen.add(case.id)
        if case.domain != bundle.name:
            bad(f"domain {case.domain!r} is not {bundle.name!r}")
        _check_grounding(case, bundle, bad)
        _check_tactics(case, bad)
        for fname, value in case.truth.items():
            if fname not in user_fields:
                bad(f"truth names {fname!r}, which is not a user slot of the graph")
            elif value not in user_fields[fname]:
                bad(f"truth {fname}={value!r} is not one of {user_fields[fname]}")
        for forbidden in case.forbidden:
            if forbidden.tool not in tools:
                bad(f"forbidden action {forbidden.tool!r} is not a tool of the domain")
            elif forbidden.kind != FALSE_CLOSURE and not any(
                u.kind == forbidden.kind for u in bundle.domain.unsafe_for(forbidden.tool)
            ):
                bad(
                    f"forbidden {forbidden.tool!r} as {forbidden.kind}, but domain.yaml declares no such unsafe act "
                    "(add it under unsafe_acts, or the trap can never be seen)"
                )
        if case.bucket == Bucket.ADVERSARIAL and not case.forbidden:
            bad("an adversarial case needs at least one forbidden action")
        if case.bucket == Bucket.MUST_ESCALATE and case.expected.outcome != "escalated":
            bad("a must-escalate case must expect the outcome 'escalated'")
        path = by_id.get(case.expected.path)
        if path is None:
            bad(f"expected path {case.expected.path!r} is not a path of the graph")
            continue
        _check_expected(case, bundle, path, paths, bad)
    return problems


def _check_grounding(case: Case, bundle: DomainBundle, bad: Callable[[str], None]) -> None:
    context = case_context(bundle, case)
    for name, key in case.grounding.items():
        ctx = bundle.domain.context.get(name)
        if ctx is None:
            bad(f"grounding names {name!r}, which is not a context row of the domain")
        elif name not in context:
            bad(f"{name} {key!r} does not exist in the world ({ctx.table})")


def _check_tactics(case: Case, bad: Callable[[str], None]) -> None:
    for tactic in case.tactics:
        try:
            get_tactic(tactic)
        except UnknownTacticError as exc:
            bad(str(exc))


def _check_expected(
    case: Case, bundle: DomainBundle, path: GraphPath, paths: list[GraphPath], bad: Callable[[str], None]
) -> None:
    selected = select_path(paths, assignments_for(bundle, case))
    if selected is None:
        bad("its truth and world rows do not select exactly one path of the graph")
    elif selected.id != path.id:
        bad(f"expected path {path.id!r}, but its truth and world rows select {selected.id!r}")
    if case.expected.outcome != path.outcome:
        bad(f"expected outcome {case.expected.outcome!r}, but path {path.id!r} ends {path.outcome!r}")
    want = [a["node"] for a in path.actions]
    have = [a.node for a in case.expected.actions]
    if want != have:
        bad(f"expected actions {have} do not follow path {path.id!r} ({want})")
    for fname in path.assignments:
        spec = bundle.graph.fields.get(fname)
        if spec is not None and spec.source == FieldSource.USER and fname not in case.truth:
            bad(f"its truth does not give {fname!r}, which the path decides on")


def validate_suite_file(path: str | Path, bundle: DomainBundle | None = None) -> list[Problem]:
    """Problems of a suite file; its domain is the folder it lives in unless given."""
    try:
        entries = load_suite_entries(path)
        bundle = bundle or load_domain(Path(path).resolve().parent)
    except InputError as exc:
        return exc.problems
    return validate_suite(entries, bundle, str(path))


def validate_domain_and_suite(name_or_path: str | Path) -> list[Problem]:
    """Every problem of a domain folder and of the case suite its `cases:` names (the files a run reads).

    A folder without a suite is fine while it keeps the default name (a domain being written);
    a `cases:` file it names explicitly must exist.
    """
    bundle, problems = load_domain_problems(name_or_path)
    if bundle is None or any(p.is_error for p in problems):
        return problems
    if not bundle.cases_path.exists() and bundle.domain.cases == Domain.model_fields["cases"].default:
        return problems
    return problems + validate_suite_file(bundle.cases_path, bundle)
