"""A small judged run for the calibration tests, and labelling the way a reviewer would.

`judged_run_db(folder)` makes (once per folder) a SQLite file with Northline's first 20 cases played
by the oracle and the escalator, with rule verdicts and the offline heuristic judge. Copy it per
test with `fresh_store` so each test labels its own database.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain import load_domain
from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.judge.heuristic import HeuristicJudge
from sage_desk.core.scoring.hooks import verdict_hook
from sage_desk.core.store import Store

HEURISTIC = "baseline:heuristic"
AGENTS = ["baseline:oracle", "baseline:escalator"]
CASES = 20


def judged_run_db(folder: Path, judge: bool = True) -> Path:
    """A database file with one judged run of 40 conversations (20 cases x 2 agents)."""
    path = folder / ("judged.db" if judge else "unjudged.db")
    if path.exists():
        return path
    bundle = load_domain("northline")
    ids = [c.id for c in load_suite(bundle.cases_path)][:CASES]
    with Store(f"sqlite:///{path}") as store:
        judges = [HeuristicJudge()] if judge else []
        runner = Runner(store, post=verdict_hook(store, judges))
        spec = RunSpec(domain="northline", agents=AGENTS, judges=[HEURISTIC] if judge else [], cases=ids)
        asyncio.run(runner.execute(runner.create(spec)))
    return path


def fresh_store(template: Path, folder: Path) -> Store:
    """A private copy of a template database."""
    target = folder / f"copy-{len(list(folder.glob('copy-*.db')))}.db"
    shutil.copyfile(template, target)
    return Store(f"sqlite:///{target}")


def human_says_pass(conversation) -> bool:
    """The test reviewers' rule: the oracle's conversations pass, the escalator's fail."""
    return conversation.agent == "baseline:oracle"


def label_all(
    store: Store, criterion: str = "judge.empathy", source: str = HEURISTIC, limit: int | None = None, author: str = "ana"
) -> list[str]:
    """Label `criterion` of the run's conversations (the first `limit`) by `human_says_pass`; returns their ids."""
    run_id = store.latest_run_id()
    labelled = []
    for convo in store.conversations(run_id=run_id)[:limit]:
        passed = human_says_pass(convo)
        store.add_override(
            convo.id, criterion, source, human_passed=passed, reason="warm" if passed else "handed off coldly", author=author
        )
        labelled.append(convo.id)
    return labelled


def judge_script(request: dict) -> str:
    """A fake LLM judge for the fake OpenAI server: it learns from the examples in its prompt.

    Without examples it passes empathy everywhere. With the human examples in its prompt it fails
    empathy where the agent handed the customer over (what the test reviewers fail), so
    calibration visibly helps. Every other criterion gets 7/10.
    """
    import json

    from sage_desk.core.judge.llm_judge import EXAMPLES_HEADER

    user = request["messages"][-1]["content"]
    if "Use exactly these criterion names:" not in user:
        return "OK"  # the Calibration screen's check that the model answers at all
    names = user.rsplit("Use exactly these criterion names:", 1)[1].strip().split(", ")
    conversation = user.rsplit("=== CONVERSATION ===", 1)[1].split("=== RUBRIC ===", 1)[0]
    calibrated = EXAMPLES_HEADER.strip() in user
    empathy = 2 if calibrated and "handover_to_human" in conversation else 9
    return json.dumps(
        {"scores": {n: {"score": empathy if n == "judge.empathy" else 7, "rationale": f"fake: {n}"} for n in names}}
    )
