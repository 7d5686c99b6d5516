"""`baseline:imperfect`: an offline agent that behaves like a real model, mostly right and sometimes wrong.

It is honest sample behaviour, not a model: no LLM is called. It follows the SOP's expected path
like the oracle, but per conversation it draws, from a generator seeded with the conversation's
seed (which differs per case, agent name and repeat) and its own `seed` option, whether it makes
the mistakes SAGE and SupportAgentBench report of real models. Each mistake is an act the rule
engine reads, never noise:

- **wrong tag** (chance `1 - classify`): one scored field of `tag_ticket` is wrong, usually the
  intent; what it does next is unaffected (`classification.<field>` fails);
- **wrong next action** (chance `1 - act`, scaled by the conflict level: x0.6 with a
  collaborative customer, x1.5 with a negotiating one): one of
  - *acted before checking*: the path's last step done before its first read (a step out of order),
  - *skipped check*: a required read never made (on a resolved path with no write, closing it is a
    false closure),
  - *wrong write*: another write on the same record in place of the path's write (right intent,
    wrong action; often a catastrophic act),
  - *missed handover*: a must-escalate case handled itself and closed (a false closure when
    closed as resolved);
  where none of these fits the path, it acts right;
- **believed the customer** (chance `believe`, adversarial cases only): it gives in to the push
  and does what the customer demands, or closes as resolved when thanked before anything is fixed;
- **over-escalation** (chance `escalate`, resolvable cases only): it hands the ticket over.

SAGE's Execution Gap is `classify` above `act`: it understands more often than it acts right. It
always writes politely (see imperfect_words.py), also while wrong. Options are part of its name,
so two settings are two agents on the Leaderboard: `baseline:imperfect?classify=0.9&act=0.7&seed=3`.
`baseline:imperfect` alone uses the defaults of `Settings`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields

from sage_desk.core.agents import imperfect_words as words
from sage_desk.core.agents.base import AgentAction, AgentNameError, ConversationView, baseline
from sage_desk.core.agents.baselines import Calls, grounding_reads, told_values
from sage_desk.core.cases.model import Bucket, Case
from sage_desk.core.domain.loader import DomainBundle
from sage_desk.core.domain.model import ToolKind
from sage_desk.core.domain.tools import CLOSE, HANDOVER, TAG
from sage_desk.core.events import ToolCall
from sage_desk.core.jsonsafe import JsonObject

CONFLICT_ERROR = {"zero": 0.6, "weak": 1.0, "strong": 1.5}
"""How the conflict level scales the chance of a wrong action (SAGE: compliance falls under pressure)."""
MISTAKE_WEIGHTS = {"acted_before_checking": 2, "skipped_check": 2, "wrong_write": 1}
INTENT_SHARE = 0.6
"""Of the wrong tags, the share that gets the intent wrong (the rest: another scored field)."""

Call = tuple[str, JsonObject]


@dataclass(frozen=True)
class Settings:
    """The imperfect agent's options, as written in its name (`?classify=0.9&act=0.7`)."""

    classify: float = 0.9
    """Chance the ticket's tag is right."""
    act: float = 0.75
    """Chance of the right next actions on a weak-conflict case."""
    believe: float = 0.2
    """On adversarial cases: chance it takes the customer's word."""
    escalate: float = 0.1
    """On resolvable cases: chance it hands the ticket over anyway."""
    seed: int = 0
    """Mixed into every draw: another seed is another sample of the same behaviour."""

    @classmethod
    def parse(cls, name: str, options: dict[str, str]) -> Settings:
        """Settings from the options of an agent name; AgentNameError says what is wrong."""
        known = {f.name: f for f in fields(cls)}
        values: JsonObject = {}
        for key, text in options.items():
            if key not in known:
                raise AgentNameError(f"{name}: unknown option {key!r} (known: {', '.join(known)})")
            try:
                value: float | int = int(text) if key == "seed" else float(text)
            except ValueError:
                raise AgentNameError(f"{name}: option {key}={text!r} is not a number") from None
            if key != "seed" and not 0.0 <= value <= 1.0:
                raise AgentNameError(f"{name}: option {key}={text} is a chance, between 0 and 1")
            values[key] = value
        return cls(**values)


@dataclass
class Plan:
    """What the agent will do in one conversation, drawn when it starts."""

    tag: JsonObject
    calls: list[Call]
    """Domain tool calls of its first turn, in order."""
    ending: str
    """`escalated` (hand over in the first turn) or the close label of its second turn."""
    misclassified: str | None = None
    mistake: str | None = None
    believed: list[Call] | None = None
    """Adversarial: the demands it gives in to in its second turn ([] for a thanks trap: it just closes)."""
    notes: list[str] = field(default_factory=list)

    @property
    def behaviour(self) -> list[str]:
        """Its departures from the SOP, by name (empty: it follows the SOP)."""
        found = [f"wrong_tag:{self.misclassified}"] if self.misclassified else []
        found += [self.mistake] if self.mistake else []
        return found + (["believed_customer"] if self.believed is not None else [])


class _Draws:
    """The conversation's random numbers, always drawn in the same order whatever is used."""

    def __init__(self, rng: random.Random):
        self.tag, self.field, self.value, self.escalate, self.act, self.kind, self.believe = (rng.random() for _ in range(7))


def _path_assignments(bundle: DomainBundle, path_id: str) -> JsonObject:
    path = bundle.paths_by_id().get(path_id)
    return path.assignments if path is not None else {}


def scored_fields(case: Case, bundle: DomainBundle) -> list[str]:
    """The user fields the classification rule scores on this case: the intent, then the path's."""
    intent = bundle.domain.intent_field
    assigned = _path_assignments(bundle, case.expected.path)
    user = bundle.user_fields()
    return [intent, *(f for f in user if f != intent and f in case.truth and f in assigned)]


def _tag(case: Case, bundle: DomainBundle, settings: Settings, draws: _Draws) -> tuple[JsonObject, str | None]:
    intent = bundle.domain.intent_field
    truth = dict(case.truth)
    wrong: str | None = None
    if draws.tag >= settings.classify:
        values = bundle.user_fields()
        candidates = [f for f in scored_fields(case, bundle) if len([v for v in values.get(f, []) if v != truth.get(f)]) > 0]
        others = [f for f in candidates if f != intent]
        if candidates:
            wrong = (
                intent
                if intent in candidates and (not others or draws.field < INTENT_SHARE)
                else others[int(draws.field * len(others)) % len(others)]
            )
            choices = [v for v in values[wrong] if v != truth.get(wrong)]
            truth[wrong] = choices[int(draws.value * len(choices)) % len(choices)]
    tag: JsonObject = {"intent": truth.get(intent, "")}
    slots = {k: v for k, v in truth.items() if k != intent}
    if slots:
        tag["slots"] = slots
    return tag, wrong


def _is_read(bundle: DomainBundle, tool: str) -> bool:
    spec = bundle.domain.tools.get(tool)
    return spec is not None and spec.kind == ToolKind.READ


def _wrong_write(case: Case, bundle: DomainBundle, write: Call, draws: _Draws) -> Call | None:
    """Another write on the same record in place of the path's: what the customer asks for, or a
    sibling write that takes the same arguments (a reshipment for a replacement); None when neither exists."""
    tools = bundle.domain.tools
    right = tools[write[0]]
    key = write[1].get(right.key)
    demanded = [
        (d.tool, dict(d.args))
        for d in case.script.demands
        if d.tool in tools and d.tool != write[0] and tools[d.tool].kind != ToolKind.READ and tools[d.tool].table == right.table
    ]
    if demanded:
        return demanded[0]
    options = []
    for name, spec in tools.items():
        shared = set(spec.params) & set(right.params)
        if name == write[0] or spec.kind == ToolKind.READ or spec.table != right.table or not shared:
            continue
        args: JsonObject = {spec.key: key}
        for pname, param in spec.params.items():
            if pname in write[1] and (not param.enum or write[1][pname] in param.enum):
                args[pname] = write[1][pname]
            elif param.enum:
                args[pname] = param.enum[int(draws.value * len(param.enum)) % len(param.enum)]
        if all(p in args for p, param in spec.params.items() if param.required):
            options.append((name, args))
    return options[int(draws.kind * len(options)) % len(options)] if options else None


def _mistakes(case: Case, bundle: DomainBundle, steps: list[Call], draws: _Draws) -> dict[str, list[Call]]:
    """The wrong first turns that fit this path, by mistake name."""
    reads = [i for i, (tool, _) in enumerate(steps) if _is_read(bundle, tool)]
    writes = [i for i, (tool, _) in enumerate(steps) if not _is_read(bundle, tool)]
    found: dict[str, list[Call]] = {}
    if len(steps) >= 2 and reads and reads[0] < len(steps) - 1:
        found["acted_before_checking"] = [steps[-1], *steps[:-1]]
    if reads:
        found["skipped_check"] = [s for i, s in enumerate(steps) if i != reads[0]]
    if writes:
        other = _wrong_write(case, bundle, steps[writes[0]], draws)
        if other is not None:
            found["wrong_write"] = [other if i == writes[0] else s for i, s in enumerate(steps)]
    return found


def _choose(found: dict[str, list[Call]], draw: float) -> str:
    names = [n for n in MISTAKE_WEIGHTS if n in found]
    total = sum(MISTAKE_WEIGHTS[n] for n in names)
    mark = draw * total
    for name in names:
        mark -= MISTAKE_WEIGHTS[name]
        if mark < 0:
            return name
    return names[-1]


def _believed(case: Case, bundle: DomainBundle) -> list[Call] | None:
    """What taking the customer's word means here: their demanded writes, [] to close on thanks, None: nothing."""
    demands = [
        (d.tool, dict(d.args)) for d in case.script.demands if d.tool in bundle.domain.tools and not _is_read(bundle, d.tool)
    ]
    if demands:
        return demands
    return [] if case.script.thanks_at is not None else None


def make_plan(case: Case, bundle: DomainBundle, settings: Settings, rng: random.Random) -> Plan:
    """The conversation's behaviour, drawn once (see the module doc for the odds)."""
    draws = _Draws(rng)
    tag, wrong_field = _tag(case, bundle, settings, draws)
    steps = [(a.tool, dict(a.args)) for a in case.expected.actions if a.tool and a.tool in bundle.domain.tools]
    reads = [s for s in steps if _is_read(bundle, s[0])]
    outcome = case.expected.outcome
    plan = Plan(tag=tag, calls=steps, ending=outcome, misclassified=wrong_field)
    error = min(1.0, (1.0 - settings.act) * CONFLICT_ERROR.get(case.conflict.value, 1.0))
    if outcome == "escalated":
        if draws.act < error:
            plan.mistake, plan.ending = "missed_handover", "resolved" if draws.kind < 0.5 else "info_requested"
    elif case.bucket == Bucket.RESOLVABLE and draws.escalate < settings.escalate:
        plan.mistake, plan.ending, plan.calls = "over_escalation", "escalated", reads
    elif draws.act < error:
        found = _mistakes(case, bundle, steps, draws)
        if found:
            plan.mistake = _choose(found, draws.kind)
            plan.calls = found[plan.mistake]
    if case.bucket == Bucket.ADVERSARIAL and draws.believe < settings.believe and plan.ending != "escalated":
        plan.believed = _believed(case, bundle)
    if plan.mistake != "skipped_check" and not any(_is_read(bundle, t) for t, _ in plan.calls):
        plan.calls = [*grounding_reads(case, bundle), *plan.calls]  # any agent looks the case up first
    return plan


def plan_for(case: Case, bundle: DomainBundle, settings: Settings, conversation_seed: int) -> Plan:
    """The plan the agent draws in the conversation with this seed (what tests and reviewers can ask)."""
    return make_plan(case, bundle, settings, random.Random(f"imperfect|{case.id}|{conversation_seed}|{settings.seed}"))


@baseline("imperfect", configurable=True)
class ImperfectAgent:
    """Follows the SOP but, per conversation, makes the mistakes real models make (module doc)."""

    def __init__(self, name: str = "baseline:imperfect", options: dict[str, str] | None = None):
        self.name = name
        self.settings = Settings.parse(name, options or {})
        self._call = Calls()
        self.plan: Plan | None = None
        self._stage = 0
        self._rng = random.Random()

    async def step(self, view: ConversationView) -> AgentAction:
        if self.plan is None:
            self.plan = plan_for(view.case, view.bundle, self.settings, view.seed)
            self._rng = random.Random(f"imperfect-words|{view.seed}|{self.settings.seed}")
        plan = self.plan
        self._stage += 1
        if self._stage == 1:
            # classified before acting (classification.timing), as the policies ask; the tag may still be wrong
            return AgentAction(tool_calls=[self._call(TAG, plan.tag), *(self._call(t, a) for t, a in plan.calls)])
        if self._stage == 2:
            return self._first_reply(view, plan)
        if self._stage == 3 and plan.believed:
            return AgentAction(tool_calls=[self._call(t, a) for t, a in plan.believed])
        return self._closing(view, plan)

    def _names(self, view: ConversationView) -> dict[str, str]:
        domain = view.bundle.domain
        return {"name": words.first_name(view.case.persona.name), "team": words.team_name(domain.title, domain.name)}

    def _first_reply(self, view: ConversationView, plan: Plan) -> AgentAction:
        rng, case, names = self._rng, view.case, self._names(view)
        upset = case.persona.emotion in ("frustrated", "angry") or case.conflict.value == "strong"
        parts = [words.pick(rng, words.GREETINGS, **names), words.pick(rng, words.UPSET_OPENERS if upset else words.CALM_OPENERS)]
        calls = words.turn_calls(view.events)
        tools = view.bundle.domain.tools
        parts += words.findings(calls, {n: s.table for n, s in tools.items()}, {n: s.key for n, s in tools.items()})
        parts += told_values(view)  # what the path's `tell:` steps ask for, from the reads it did (none skipped: none told)
        parts += self._writes_said(view, calls)
        if plan.ending == "escalated":
            parts.append(words.pick(rng, words.HANDOVERS, **names))
            reason = (
                case.escalation_reason if plan.mistake is None else "not sure the policy allows this; a colleague should confirm"
            )
            return AgentAction(
                text=self._letter(parts, names), tool_calls=[self._call(HANDOVER, {"reason": reason or "needs a human"})]
            )
        parts += [words.spoken(a.say) for a in case.expected.actions if a.say]
        if plan.ending != "info_requested":
            parts.append(words.pick(rng, words.ANYTHING_ELSE))
        return AgentAction(text=self._letter(parts, names))

    def _writes_said(self, view: ConversationView, calls: list[ToolCall]) -> list[str]:
        tools = view.bundle.domain.tools
        said = []
        for call in calls:
            spec = tools.get(call.name)
            if spec is None or spec.kind == ToolKind.READ or not isinstance(call.arguments, dict):
                continue
            key = str(call.arguments.get(spec.key, ""))
            said.append(words.tried(call.name, key) if call.error else f"I've {words.did(call.name, key)}.")
        return said

    def _closing(self, view: ConversationView, plan: Plan) -> AgentAction:
        rng, names = self._rng, self._names(view)
        label = plan.ending
        if plan.believed:
            tools = view.bundle.domain.tools
            done = "; ".join(
                words.did(c.name, str(c.arguments.get(tools[c.name].key, "")))
                for c in words.turn_calls(view.events)
                if c.name in tools and not c.error and isinstance(c.arguments, dict)
            )
            text = words.pick(rng, words.GAVE_IN, done=done or "done what I can", **names)
            label = "resolved"
        elif plan.believed is not None:
            text, label = words.pick(rng, words.BELIEVED_THANKS, **names), "resolved"
        elif plan.mistake == "missed_handover":
            text = words.pick(rng, words.NOTED_ENDS if label == "resolved" else words.NOTED_WAITING, **names)
        else:
            ends = {"resolved": words.RESOLVED_ENDS, "refused": words.REFUSED_ENDS}.get(label, words.WAITING_ENDS)
            text = words.pick(rng, ends, **names)
        summary = f"{plan.tag.get('intent', '')}: {label}"
        return AgentAction(text=text, tool_calls=[self._call(CLOSE, {"outcome": label, "summary": summary})])

    def _letter(self, parts: list[str], names: dict[str, str]) -> str:
        greeting, body = parts[0], " ".join(parts[1:])
        return f"{greeting}\n\n{body}\n\n{words.pick(self._rng, words.SIGN_OFFS, **names)}"
