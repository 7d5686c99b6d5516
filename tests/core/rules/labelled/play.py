"""Play the labelled conversations as real runs and set the engine's verdicts beside the auditor's.

Each conversation of `conversations.yaml` is one run of the real runner: a scripted agent behind
the local fake OpenAI-compatible server (tests/fakes) talks to the case's scripted customer, the
conversation lands in a real SQLite store, and the rule verdicts (source "rules") are read back
from the store. The agent's plan is data: a list of steps, each a list of tool calls and/or a
text reply; the server answers the model `labelled-<id>` with step N when the request already
holds N assistant messages. Once the plan is spent the agent only says `IDLE_TEXT`.

`play_all` returns one `Cell` per labelled criterion; `test_labelled_verdicts.py` asserts them
and `agreement.py` prints the agreement.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from fakes import FakeOpenAIServer, FakeReply, FakeToolCall

from sage_desk.core.engine.runner import Runner, RunSpec, conversation_seed
from sage_desk.core.scoring.hooks import VerdictHooks
from sage_desk.core.store import Store

HERE = Path(__file__).resolve().parent
CONVERSATIONS = HERE / "conversations.yaml"
HELDOUT = HERE / "conversations_heldout.yaml"  # written by a second auditor before reading the rule code
MODEL_PREFIX = "labelled-"
IDLE_TEXT = "Let me look into that for you."
SCORE_TOLERANCE = 0.005
MANY_ALLOWED = "path.unexpected."  # one verdict per unlicensed write: the only criterion that may repeat
JUDGE = "baseline:heuristic"  # scores `judge.*` labels offline (word overlap with the say steps)
DEPENDS_ON = ".depends_on"  # `outcome.depends_on: [judge.say.x]`: the judge criteria the verdict's details name


@dataclass
class Conversation:
    """One hand-made conversation: its case, the agent's plan and the auditor's verdicts."""

    id: str
    domain: str
    case: str
    story: str
    steps: list[dict[str, Any]]
    auditor: dict[str, Any]
    judgements: list[str] = field(default_factory=list)

    @property
    def model(self) -> str:
        return MODEL_PREFIX + self.id

    @property
    def bucket(self) -> str:
        return _case_bucket(self.domain, self.case)


@dataclass
class Cell:
    """One labelled criterion of one conversation: the auditor's value, the engine's, and whether they agree."""

    conversation: str
    criterion: str
    auditor: Any
    engine: Any
    agree: bool
    rationale: str = ""


def load_conversations(path: Path = CONVERSATIONS) -> list[Conversation]:
    """The labelled conversations, with the `# judgement:` comments written inside each entry."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    notes = _judgement_comments(path.read_text(encoding="utf-8"))
    found = [
        Conversation(
            id=e["id"],
            domain=e["domain"],
            case=e["case"],
            story=e["story"],
            steps=e.get("steps") or [],
            auditor=dict(e["auditor"]),
            judgements=notes.get(e["id"], []),
        )
        for e in entries
    ]
    ids = [c.id for c in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate conversation ids in {path.name}: {duplicates}")
    return found


def _judgement_comments(text: str) -> dict[str, list[str]]:
    notes: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        entry = re.match(r"^- id:\s*(\S+)", line)
        if entry:
            current = entry.group(1)
        note = re.search(r"#\s*judgement:\s*(.*)$", line)
        if note and current is not None:
            notes.setdefault(current, []).append(note.group(1).strip())
    return notes


_BUCKETS: dict[tuple[str, str], str] = {}


def _case_bucket(domain: str, case_id: str) -> str:
    if (domain, case_id) not in _BUCKETS:
        from sage_desk.core.cases.suite import load_suite
        from sage_desk.core.domain import load_domain

        for case in load_suite(load_domain(domain).cases_path):
            _BUCKETS[(domain, case.id)] = case.bucket.value
    return _BUCKETS[(domain, case_id)]


# -- the scripted agent ----------------------------------------------------------------------------


def _reply(step: dict[str, Any]) -> FakeReply:
    calls = [FakeToolCall(name, dict(args or {})) for name, args in step.get("calls") or []]
    return FakeReply(content=step.get("say"), tool_calls=calls)


def agent_script(conversations: Iterable[Conversation]) -> Any:
    """The fake server's script: the plan of the conversation named by the model, step by step."""
    plans = {c.model: c.steps for c in conversations}

    def script(request: dict[str, Any]) -> FakeReply:
        steps = plans[request["model"]]
        done = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")
        return _reply(steps[done]) if done < len(steps) else FakeReply(content=IDLE_TEXT)

    return script


# -- playing ---------------------------------------------------------------------------------------


def _create_run(store: Store, domain: str, conversations: Sequence[Conversation], api_base: str) -> str:
    """One run per domain holding exactly its labelled (case, agent) pairs, not every case x agent.

    `Runner.create` would pair every case with every agent; the rows are built as it builds them."""
    from sage_desk.core.cases.suite import load_suite
    from sage_desk.core.domain import load_domain

    spec = RunSpec(
        domain=domain,
        agents=[f"openai/{c.model}" for c in conversations],
        user="scripted",
        cases=sorted({c.case for c in conversations}),
        api_base=api_base,
        concurrency=16,
    )
    bundle = load_domain(domain)
    cases = {c.id: c for c in load_suite(bundle.cases_path)}
    rows = []
    for convo in conversations:
        case, agent = cases[convo.case], f"openai/{convo.model}"
        rows.append(
            {
                "case_id": case.id,
                "agent": agent,
                "repeat": 1,
                "bucket": case.bucket.value,
                "conflict": case.conflict.value,
                "tactics": case.tactics,
                "seed": conversation_seed(spec.seed, case.id, agent, 1),
            }
        )
    return store.create_run(bundle.name, spec.to_config(), rows)


async def _play_runs(
    store: Store, conversations: Sequence[Conversation], api_base: str, judges: tuple[str, ...] = ()
) -> dict[str, str]:
    """The runs of every domain, played at once; conversation id -> its conversation id in the store."""
    domains = sorted({c.domain for c in conversations})
    runs = {d: _create_run(store, d, [c for c in conversations if c.domain == d], api_base) for d in domains}
    runners = {d: Runner(store, post_factory=VerdictHooks(judges=judges)) for d in domains}
    await asyncio.gather(*(runners[d].execute(runs[d]) for d in domains))
    stored = {(r.case_id, r.agent): r for d in domains for r in store.conversations(run_id=runs[d])}
    found = {}
    for convo in conversations:
        row = stored[(convo.case, f"openai/{convo.model}")]
        if row.status.value != "finished":
            raise RuntimeError(f"conversation {convo.id} did not finish: {row.status.value} {row.error or ''}")
        found[convo.id] = row.id
    return found


def play(conversations: Sequence[Conversation], db_dir: Path | None = None) -> dict[str, list[Any]]:
    """Play every conversation through the real runner; conversation id -> its stored rule verdicts.

    When a label names a judge criterion (`judge.say.offer_plan`), the offline heuristic judge
    scores every conversation too and its verdicts are returned beside the rules'."""
    judges = (JUDGE,) if any(k.startswith("judge.") for c in conversations for k in c.auditor) else ()
    with tempfile.TemporaryDirectory(prefix="labelled-") as tmp:
        db = f"sqlite:///{(db_dir or Path(tmp)) / 'labelled.db'}"
        with FakeOpenAIServer(agent_script(conversations)) as server:
            store = Store(db)
            try:
                stored = asyncio.run(_play_runs(store, conversations, server.base_url, judges))
                if server.errors:
                    raise RuntimeError(f"the scripted agent failed: {server.errors[0]}")
                sources = ("rules", *judges)
                return {
                    cid: [v for v in store.verdicts(conversation_id=sid) if v.source in sources] for cid, sid in stored.items()
                }
            finally:
                store.close()


# -- comparing -------------------------------------------------------------------------------------


def _engine_value(label: Any, found: list[Any]) -> Any:
    if isinstance(label, float) or (isinstance(label, int) and not isinstance(label, bool)):
        return [v.score for v in found]
    return [v.passed for v in found]


def compare(criterion: str, label: Any, verdicts: Sequence[Any]) -> Cell:
    """The auditor's value of one criterion against the engine's verdicts of it."""
    if criterion.endswith(DEPENDS_ON):
        return _compare_depends_on(criterion, label, verdicts)
    found = [v for v in verdicts if v.criterion == criterion]
    values = _engine_value(label, found)
    rationale = " | ".join(v.rationale for v in found) or "no verdict"
    if criterion.startswith(MANY_ALLOWED):
        # One failed verdict per unlicensed write; none (or only passes) when nothing was unexpected.
        failed = any(v is False for v in values)
        return Cell("", criterion, label, values or "absent", failed != bool(label), rationale)
    if len(found) != 1:
        return Cell("", criterion, label, values or "absent", False, f"{len(found)} verdicts: {rationale}")
    engine = values[0]
    if label is None:
        agree = found[0].passed is None
        engine = found[0].passed
    elif isinstance(label, bool):
        agree = engine is label
    else:
        agree = engine is not None and abs(float(engine) - float(label)) <= SCORE_TOLERANCE
    return Cell("", criterion, label, engine, agree, rationale)


def _compare_depends_on(criterion: str, label: Any, verdicts: Sequence[Any]) -> Cell:
    """The free-text steps a verdict names as deciding it with the judge, against the auditor's list."""
    found = [v for v in verdicts if v.criterion == criterion[: -len(DEPENDS_ON)]]
    if len(found) != 1:
        return Cell("", criterion, label, "absent", False, f"{len(found)} verdicts")
    named = sorted((found[0].details or {}).get("depends_on") or [])
    return Cell("", criterion, sorted(label or []), named, named == sorted(label or []), found[0].rationale)


def cells(conversations: Sequence[Conversation], verdicts: dict[str, list[Any]]) -> list[Cell]:
    """Every labelled cell, compared."""
    out = []
    for convo in conversations:
        for criterion, label in convo.auditor.items():
            cell = compare(criterion, label, verdicts[convo.id])
            cell.conversation = convo.id
            out.append(cell)
    return out


def play_all(path: Path = CONVERSATIONS) -> tuple[list[Conversation], list[Cell]]:
    """Load, play and compare every labelled conversation."""
    conversations = load_conversations(path)
    return conversations, cells(conversations, play(conversations))
