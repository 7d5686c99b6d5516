"""Reading tau-bench's and tau2-bench's published results as they are, into our events.

- **tau-bench** (`--format tau-bench`): a JSON list, one item per conversation: `task_id`, `trial`,
  `reward`, `info` and `traj`, the OpenAI-format messages the agent saw and wrote (system, user,
  assistant with `tool_calls`, tool results). `source_id` is `task<task_id>-t<trial>`. Its tools
  report a refusal as a text starting `Error:`; that call did nothing.
- **tau2** (`--format tau2`): a results file (one object: `info`, `tasks`, `simulations`), or a
  results folder (`results.json` without the simulations, one `simulations/<id>.json` each; the
  path given may be the folder or its results.json). Tool calls are `{id, name, arguments,
  requestor}`, results are tool messages (or a multi-tool message holding several) with an
  `error` flag; the user simulator's own tool calls (requestor `user`) are not the agent's acts.
  `source_id` is the simulation id.

Each conversation keeps tau's reward as `tau_reward` in its metadata, with `task_id` and `trial`.
A `transfer_to_human_agents` call is tau's handover: it also gives a `Handover` event, so the
ending reads `escalated` as a simulated handover would. Tool names are kept as tau wrote them: the
import, not the reader, warns about names the domain does not know.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sage_desk.core import jsonbound
from sage_desk.core.errors import Problem
from sage_desk.core.events import CustomerMessage, Handover, ToolCall
from sage_desk.core.imports.formats import Parsed, _Builder, _mapping, _text
from sage_desk.core.jsonsafe import Json, JsonObject

TRANSFER = "transfer_to_human_agents"
"""tau's handover tool, in both tau-bench and tau2."""
SIMULATIONS_DIR = "simulations"


def _reward(value: Json) -> float | None:
    """tau's reward as a float (0/1, or a fraction), None when the file gives none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _call(build: _Builder, call_id: str, name: str, arguments: Json) -> None:
    build.call(call_id, name, arguments)
    if name == TRANSFER:
        decoded = build.events[-1].arguments if isinstance(build.events[-1], ToolCall) else None  # JSON text decoded
        summary = decoded.get("summary", "") if isinstance(decoded, dict) else ""
        build.emit(Handover(reason=str(summary)))


# --- tau-bench ---------------------------------------------------------------------------------


def _list_items(path: Path) -> Iterator[tuple[int, Json] | Problem]:
    """Each item of a top-level JSON list with the line it starts on, read an item at a time and
    bounded (core/jsonbound.py); a located Problem where it breaks."""
    if not path.is_file():
        yield Problem(str(path), 1, 1, f"no such file: {path}")
        return
    for found in jsonbound.json_list(path):
        if isinstance(found, jsonbound.JsonProblem):
            message = found.message
            if message == "expected a JSON list":
                message = "expected tau-bench trajectories: a JSON list of {task_id, trial, reward, info, traj}"
            yield Problem(str(path), found.line, found.col, message)
            return
        yield found


def _tau_bench_events(messages: list[Json], where: str) -> tuple[_Builder, list[str], str | None]:
    build = _Builder()
    system: list[str] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system":
            system.append(_text(message.get("content")))
        elif role == "user":
            build.customer(_text(message.get("content")))
        elif role == "assistant":
            build.agent(_text(message.get("content")))
            for j, call in enumerate(message.get("tool_calls") or []):
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                    return build, system, f"{where}, message {i + 1}: tool call {j + 1} has no function name"
                _call(build, str(call.get("id") or f"call_{i}_{j}"), fn["name"], fn.get("arguments", {}))
        elif role == "tool":
            content = message.get("content")
            failed = isinstance(content, str) and content.startswith("Error:")
            build.result(str(message.get("tool_call_id", "")), content, failed)
        else:
            return build, system, f"{where}, message {i + 1}: unknown role {role!r} (system, user, assistant, tool)"
    return build, system, None


def read_tau_bench(path: Path) -> Iterator[Parsed | Problem]:
    """tau-bench's published trajectories: a JSON list of {task_id, trial, reward, info, traj}."""
    for found in _list_items(path):
        if isinstance(found, Problem):
            yield found
            continue
        line, item = found
        if not isinstance(item, dict) or not isinstance(item.get("traj"), list):
            yield Problem(str(path), line, 1, "expected an object with a 'traj' list of messages")
            continue
        task, trial = item.get("task_id"), item.get("trial")
        where = f"task {task}, trial {trial}"
        build, system, bad = _tau_bench_events(item["traj"], where)
        if bad is None and not any(isinstance(e, CustomerMessage) for e in build.events):
            bad = f"{where}: no customer (user) message"
        if bad:
            yield Problem(str(path), line, 1, bad)
            continue
        metadata: JsonObject = {"task_id": task, "trial": trial, "tau_reward": _reward(item.get("reward"))}
        if system:
            metadata["system"] = system
        yield Parsed(f"task{task}-t{trial}", build.events, str(path), line, None, metadata)


# --- tau2 --------------------------------------------------------------------------------------


def _tau2_message(build: _Builder, message: Json, where: str) -> str | None:
    """Add one tau2 message to the conversation; a problem, or None."""
    role = message.get("role") if isinstance(message, dict) else None
    if role == "user":
        if message.get("content"):
            build.customer(_text(message.get("content")))
    elif role == "assistant":
        build.agent(_text(message.get("content")))
        for k, call in enumerate(message.get("tool_calls") or []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                return f"{where}: tool call {k + 1} has no name"
            if call.get("requestor", "assistant") == "assistant":
                _call(build, str(call.get("id") or f"{where}#{k}"), call["name"], call.get("arguments", {}))
    elif role == "tool":
        for part in message.get("tool_messages") or [message]:  # a multi-tool message holds several results
            if isinstance(part, dict) and part.get("requestor", "assistant") == "assistant":
                build.result(str(part.get("id", "")), part.get("content"), bool(part.get("error")))
    elif role != "system":
        return f"{where}: unknown role {role!r}"
    return None


def _simulation(sim: Json, where: str, agent: str | None, path: Path, line: int) -> Parsed | Problem:
    if isinstance(sim, dict) and sim.get("messages") is None and sim.get("ticks") is not None:
        return Problem(
            str(path),
            line,
            1,
            f"{where}: a full-duplex (voice) simulation, recorded as ticks: only text "
            "simulations (with 'messages') can be imported",
        )
    if not isinstance(sim, dict) or not isinstance(sim.get("messages"), list):
        return Problem(str(path), line, 1, f"{where}: expected an object with a 'messages' list")
    build = _Builder()
    for j, message in enumerate(sim["messages"]):
        bad = _tau2_message(build, message, f"{where}, message {j + 1}")
        if bad:
            return Problem(str(path), line, 1, bad)
    if not any(isinstance(e, CustomerMessage) for e in build.events):
        return Problem(str(path), line, 1, f"{where}: no customer (user) message")
    metadata = {k: sim.get(k) for k in ("task_id", "trial", "termination_reason", "agent_cost") if sim.get(k) is not None}
    metadata["tau_reward"] = _reward(_mapping(sim.get("reward_info")).get("reward"))
    return Parsed(str(sim.get("id") or f"{path.name}#{where}"), build.events, str(path), line, agent, metadata)


def _load(path: Path) -> Json:
    """One JSON document, bounded (core/jsonbound.py): OSError for a missing file, JsonProblem for bad JSON."""
    if not path.is_file():
        raise OSError(f"no such file: {path}")
    return jsonbound.load_document(path)


def _results_paths(path: Path) -> tuple[Path, Path | None]:
    """The results file, and its simulations folder when the results are tau2's folder layout."""
    if path.is_dir():
        return path / "results.json", path / SIMULATIONS_DIR
    folder = path.parent / SIMULATIONS_DIR
    return path, folder if folder.is_dir() else None


def read_tau2(path: Path) -> Iterator[Parsed | Problem]:
    """tau2-bench's results: one file with every simulation, or a folder (results.json + simulations/)."""
    results, folder = _results_paths(path)
    try:
        data = _load(results)
    except jsonbound.JsonProblem as exc:
        yield Problem(str(results), exc.line, exc.col, exc.message)
        return
    except OSError as exc:
        yield Problem(str(results), 1, 1, str(exc) if "no such file" in str(exc) else f"cannot read: {exc}")
        return
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        yield Problem(
            str(results),
            1,
            1,
            "expected tau2-bench results: an object with 'info' and 'simulations' "
            "(or a results folder: results.json and simulations/)",
        )
        return
    agent = _mapping(_mapping(data["info"]).get("agent_info")).get("llm")
    agent = str(agent) if agent else None
    if isinstance(data.get("simulations"), list) and data["simulations"]:
        for i, sim in enumerate(data["simulations"]):
            yield _simulation(sim, f"simulation {i + 1}", agent, results, 1)
        return
    if folder is None:
        yield Problem(
            str(results),
            1,
            1,
            f"no simulations: the 'simulations' list is empty and there is no {SIMULATIONS_DIR}/ folder beside it",
        )
        return
    yield from _folder(folder, data, agent)


def _folder(folder: Path, data: JsonObject, agent: str | None) -> Iterator[Parsed | Problem]:
    """Each simulations/<id>.json, in the index's order where results.json has one, and missing files named."""
    files = sorted(folder.glob("*.json"))
    index = data.get("simulation_index")
    if isinstance(index, list):
        listed = [str(e.get("id")) for e in index if isinstance(e, dict)]
        on_disk = {f.stem: f for f in files}
        for missing in [i for i in listed if i not in on_disk]:
            yield Problem(str(folder / f"{missing}.json"), 1, 1, "listed in results.json's simulation_index, but no such file")
        files = [on_disk[i] for i in listed if i in on_disk] + [f for f in files if f.stem not in set(listed)]
    for file in files:
        try:
            sim = _load(file)
        except jsonbound.JsonProblem as exc:
            yield Problem(str(file), exc.line, exc.col, exc.message)
            continue
        except OSError as exc:
            yield Problem(str(file), 1, 1, f"cannot read: {exc}")
            continue
        yield _simulation(sim, f"simulation {file.stem}", agent, file, 1)
