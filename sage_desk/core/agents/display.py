"""Short, distinct display names for agents: what tables, charts and screens print instead of the spec.

An agent's spec can be long (`baseline:imperfect?classify=0.95&act=0.85`, `openai/gpt-4o-mini`,
`http://localhost:8000/v1`, `python:my_agents.support:make_agent`). A run may name its agents
(`sage-desk run --agent careful=SPEC`, kept in the run's config as `agent_names`); an unnamed agent
is shown by a short form of its spec, numbered when two specs shorten alike (`imperfect`,
`imperfect-2`), and `legend` says which spec each short name stands for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

MAX_LENGTH = 20
"""Longest derived name; a longer short form is cut with an ellipsis (a given name is kept whole)."""
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")
"""What `NAME=SPEC` accepts as NAME: a plain word, so `baseline:x?a=1` or `http://h/?k=v` stay specs."""


def split_named(text: str) -> tuple[str | None, str]:
    """`careful=baseline:imperfect?act=0.9` -> ("careful", "baseline:imperfect?act=0.9"); a plain spec -> (None, spec).

    The text is split at its first `=` only when what comes before it is a plain name (letters, digits,
    `_ . + -`, starting with a letter): any spec with `:`, `/` or `?` before its first `=` is left whole.
    """
    name, sep, spec = text.partition("=")
    if sep and spec and _NAME.fullmatch(name):
        return name, spec
    return None, text


def short_form(spec: str) -> str:
    """The spec without what is common to every agent of its kind: `oracle`, `gpt-4o-mini`, `localhost:8000`."""
    base = spec.split("?", 1)[0]
    if "://" in base:  # an HTTP agent: its host (and port)
        base = base.split("://", 1)[1].split("/", 1)[0] or base
    elif base.startswith("python:"):  # python:module:factory -> factory
        base = base.rsplit(":", 1)[-1] or base
    elif base.startswith("baseline:"):
        base = base.removeprefix("baseline:")
    elif "/" in base:  # provider/model (openai/gpt-4o-mini, ollama/llama3.1:8b)
        base = base.rstrip("/").rsplit("/", 1)[-1] or base
    base = base or spec
    return base if len(base) <= MAX_LENGTH else base[: MAX_LENGTH - 1] + "…"


def display_names(agents: Iterable[str], given: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each agent spec -> a short name, distinct across `agents` (in their order).

    A name in `given` (spec -> name, from `--agent NAME=SPEC`) is kept as it is. Other specs take their
    short form; when several shorten alike, the one without options keeps it (`imperfect`) and the
    others are numbered in order (`imperfect-2`, `imperfect-3`), skipping names already taken.
    """
    specs = list(dict.fromkeys(agents))
    given = {spec: name for spec, name in (given or {}).items() if spec in specs}
    names: dict[str, str] = dict(given)
    taken = set(given.values())
    unnamed = [s for s in specs if s not in given]
    # the plain spec of a group claims the bare short form first, whatever its place in the list
    order = sorted(unnamed, key=lambda s: "?" in s)
    for spec in order:
        base = short_form(spec)
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        names[spec] = name
        taken.add(name)
    return {spec: names[spec] for spec in specs}


def legend(names: Mapping[str, str]) -> list[str]:
    """`name = spec` where a display name does not say its spec plainly: a given or numbered name, a spec
    with options, or one whose short form another spec shares (`oracle` for baseline:oracle needs no line)."""
    bases = [short_form(s) for s in names]
    shared = {base for base in bases if bases.count(base) > 1}
    return [
        f"{name} = {spec}"
        for spec, name in names.items()
        if name != spec and (name != short_form(spec) or "?" in spec or short_form(spec) in shared)
    ]


def names_from_configs(configs: Sequence[Mapping[str, object]]) -> dict[str, str]:
    """The agent names several runs' configs give (`agent_names`: spec -> name); the first run's win."""
    found: dict[str, str] = {}
    for config in configs:
        given = config.get("agent_names")
        if isinstance(given, Mapping):
            for spec, name in given.items():
                if isinstance(spec, str) and isinstance(name, str) and name:
                    found.setdefault(spec, name)
    return found


def names_for_runs(configs: Sequence[Mapping[str, object]], agents: Iterable[str] = ()) -> dict[str, str]:
    """Display names as the runs define them: numbered in the order their configs list the agents (as given
    on the command line), so every command and screen names a run's agents alike; `agents` not in any
    config (an imported run's) come after."""
    order = [a for config in configs for a in _listed(config.get("agents")) if isinstance(a, str)]
    return display_names([*order, *agents], names_from_configs(configs))


def _listed(value: object) -> list[object]:
    """A config's agent list, or nothing when it holds none (an imported run's, an older version's)."""
    return list(value) if isinstance(value, list | tuple) else []
