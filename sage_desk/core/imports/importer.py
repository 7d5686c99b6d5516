"""`sage-desk import`: production conversations into a run, placed on the SOP graph, with verdicts.

Reading (formats.py), masking (redact.py), skipping what is already stored (a content hash),
placing each conversation on the graph from what it shows (cases/placing.py), the rule verdicts
(rules/placed.py), and one all-or-nothing write (store/imports.py). The imported run has no agent
or customer to play: its spec says `imported` instead.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sage_desk.core.cases.model import Bucket, Case, Expected, Persona
from sage_desk.core.cases.placing import (
    TRANSCRIPT,
    UNPLACED,
    bucket_of,
    candidate_paths,
    expected_on,
    grounding_from,
    transcript_facts,
)
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.errors import InputError, Problem
from sage_desk.core.events import (
    AgentMessage,
    CustomerMessage,
    Handover,
    TerminationReason,
    TicketClosed,
    TicketTagged,
    ToolCall,
)
from sage_desk.core.imports.extract import Extracted, extract_slots
from sage_desk.core.imports.formats import FORMATS, READERS, Parsed
from sage_desk.core.imports.redact import Redactor
from sage_desk.core.jsonsafe import JsonObject
from sage_desk.core.rules.placed import AGENT_TAG, evaluate_case, rules_state, unknown_tools
from sage_desk.core.store.imports import ImportItem, ItemSpill

if TYPE_CHECKING:
    from sage_desk.core.rules.verdict import Verdict
    from sage_desk.core.store import Store
    from sage_desk.core.store.reviews import NewOverride


@dataclass
class ImportSummary:
    """What an import read, stored, skipped and masked."""

    run_id: str | None = None
    read: int = 0
    imported: int = 0
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (source id, the conversation it repeats)
    skipped: list[Problem] = field(default_factory=list)
    masked: str = ""
    placed: int = 0  # on exactly one path
    unplaced: int = 0  # several paths fit: some verdicts need a slot
    unknown_tools: Counter[str] = field(default_factory=Counter)  # tool name -> calls, names the domain does not know
    domain: str = ""  # the domain's name (the --domain given may be a folder)
    unknown_in: int = 0  # conversations calling a tool the domain does not know: every verdict unscored
    provisional: int = 0  # conversations with a verdict resting on the agent's own tag


def read_files(files: Sequence[str | Path], fmt: str) -> tuple[list[Parsed], list[Problem]]:
    """Every conversation of the files, and every problem, located."""
    if fmt not in FORMATS:
        raise InputError.single("<import>", f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
    parsed: list[Parsed] = []
    problems: list[Problem] = []
    for name in files:
        path = Path(name)
        try:
            for found in READERS[fmt](path):
                (problems if isinstance(found, Problem) else parsed).append(found)  # type: ignore[arg-type]
        except OSError as exc:
            problems.append(Problem(str(path), 1, 1, str(exc) if "no such file" in str(exc) else f"cannot read: {exc}"))
    clashes = _same_id_other_content(parsed)
    if clashes:
        problems.extend(clashes)
        parsed = [p for p in parsed if (p.file, p.line) not in {(c.file, c.line) for c in clashes}]
    return parsed, problems


def _carry_over(item: ImportItem, carried: JsonObject) -> None:
    """An exported conversation (`export-results --events`) as it was: its case and slots with their
    history, bucket, repeat, ending, and every verdict as its source gave it, instead of what placing
    it again and re-running the rules would make of it."""
    from sage_desk.core.rules.verdict import RULES_SOURCE, Verdict

    values = item.values
    for key, column in (("bucket", "bucket"), ("repeat", "repeat"), ("tau_reward", "tau_reward"), ("rules_state", "rules_state")):
        if key in carried:
            values[column] = carried[key]
    if isinstance(carried.get("case_data"), dict):
        values["case_data"] = carried["case_data"]
    if carried.get("ending") in TerminationReason._value2member_map_:
        item.reason = TerminationReason(carried["ending"])
    given = carried.get("verdicts_as_given")
    if isinstance(given, list):
        by_source: dict[str, list[Verdict]] = {}
        for raw in given:
            verdict = Verdict.model_validate({**raw, "conversation_id": values["id"]})
            by_source.setdefault(verdict.source, []).append(verdict)
        item.verdicts = by_source.pop(RULES_SOURCE, [])
        item.more_verdicts = by_source
        values["rules_state"] = carried.get("rules_state")


def _carried_labels(conversation_id: str, carried: JsonObject) -> list[NewOverride]:
    """The human labels an exported conversation carries, for its new id."""
    from sage_desk.core.store.reviews import NewOverride

    found = carried.get("overrides_as_given")
    if not isinstance(found, list):
        return []
    return [
        NewOverride(
            conversation_id,
            str(o["criterion"]),
            str(o["source"]),
            o.get("human_passed"),
            o.get("human_score"),
            o.get("human_value"),
            str(o.get("reason") or ""),
            str(o.get("author") or ""),
            kind=str(o.get("kind") or "label"),
            tags=tuple(o.get("tags") or ()),
            corrected_reply=o.get("corrected_reply"),
        )
        for o in found
        if isinstance(o, dict) and "criterion" in o and "source" in o
    ]


def _tool_kinds(bundle: DomainBundle, parsed: Parsed) -> None:
    """Each tool call of a known tool takes the kind the domain declares (a write is a write, as in a
    simulated run); the readers cannot know it, and stored every call as a read."""
    tools = bundle.domain.tools
    for event in parsed.events:
        if isinstance(event, ToolCall) and event.name in tools:
            event.kind = tools[event.name].kind.value


def _same_id_other_content(parsed: list[Parsed]) -> list[Problem]:
    """A conversation whose id was already read with different content: two logs disagree, and
    storing both would count one conversation twice (the same content twice is a plain duplicate)."""
    first: dict[str, Parsed] = {}
    repeated: set[str] = set()
    for conversation in parsed:
        if conversation.source_id in first:
            repeated.add(conversation.source_id)
        else:
            first[conversation.source_id] = conversation
    problems = []
    hashes: dict[str, str] = {}
    for conversation in parsed:
        if conversation.source_id not in repeated:
            continue
        digest = conversation.content_hash()
        earlier = first[conversation.source_id]
        if earlier is conversation:
            hashes[conversation.source_id] = digest
        elif digest != hashes[conversation.source_id]:
            problems.append(
                Problem(
                    conversation.file,
                    conversation.line,
                    1,
                    f"id {conversation.source_id!r} was already read at {earlier.file}:{earlier.line} with different content",
                )
            )
    return problems


def _redact(parsed: Parsed, redactor: Redactor) -> None:
    for event in parsed.events:
        if isinstance(event, CustomerMessage | AgentMessage):
            event.text = redactor.text(event.text)
        elif isinstance(event, ToolCall):
            event.arguments = redactor.value(event.arguments)
            event.result = redactor.value(event.result)
            event.error = redactor.text(event.error) if event.error else event.error
        elif isinstance(event, Handover):
            event.reason = redactor.text(event.reason)
        elif isinstance(event, TicketClosed):
            event.summary = redactor.text(event.summary)
        elif isinstance(event, TicketTagged):
            event.slots = redactor.value(event.slots)
    parsed.metadata = redactor.value(parsed.metadata)
    parsed.source_id = redactor.text(parsed.source_id)  # a log's id can be the customer's e-mail


def _slots(bundle: DomainBundle, parsed: Parsed) -> tuple[dict[str, str], dict[str, str]]:
    """The conversation's slot values and who set each: the log's metadata, else the agent's own last tag."""
    fields = bundle.user_fields()
    intent = bundle.domain.intent_field
    truth: dict[str, str] = {}
    sources: dict[str, str] = {}
    tags = [e for e in parsed.events if isinstance(e, TicketTagged)]
    if tags:
        found = {intent: tags[-1].intent, **tags[-1].slots}
        for name, value in found.items():
            if name in fields and str(value) in fields[name]:
                truth[name], sources[name] = str(value), AGENT_TAG
    given = parsed.metadata.get("slots")
    if isinstance(given, dict):
        for name, value in given.items():
            if name in fields and str(value) in fields[name]:
                truth[name], sources[name] = str(value), "metadata"
    return truth, sources


def place(
    bundle: DomainBundle, parsed: Parsed, case_id: str, extracted: Sequence[Extracted] = (), extractor: str = ""
) -> tuple[Case, dict[str, str], Bucket | None]:
    """The case a conversation's content makes, who set its slots, and its bucket where known.

    Slots an extractor read (with the message it cites) win over the agent's own tags, never
    over what the log's metadata states.
    """
    truth, sources = _slots(bundle, parsed)
    heard = transcript_facts(bundle, parsed.events)  # the customer's own words, read by the domain's patterns
    fields = bundle.user_fields()
    for name, value in heard.items():
        if name in fields and value in fields[name] and sources.get(name) in (None, AGENT_TAG):
            truth[name], sources[name] = value, TRANSCRIPT
    for found in extracted:
        if sources.get(found.field) != "metadata":
            truth[found.field], sources[found.field] = found.value, f"extract:{extractor}"
    grounding, rows = grounding_from(bundle, parsed.events)
    opening = next((e.text for e in parsed.events if isinstance(e, CustomerMessage)), "")
    declared = str(parsed.metadata.get("bucket"))
    bucket = Bucket(declared) if declared in Bucket._value2member_map_ else None
    given = parsed.metadata.get("facts")
    facts = {**heard, **(given if isinstance(given, dict) else {})}
    customer = parsed.metadata.get("customer")
    case = Case(
        id=case_id,
        domain=bundle.name,
        bucket=bucket or Bucket.RESOLVABLE,
        persona=Persona(name=str(customer) if customer else "Customer"),
        title=f"imported {parsed.source_id}",
        opening=opening,
        grounding=grounding,
        world_rows=rows,
        truth=truth,
        facts=facts,
        expected=Expected(path=UNPLACED, outcome=""),
    )
    placed, bucket = replace_placement(bundle, case, bucket)
    return placed, sources, bucket


def replace_placement(bundle: DomainBundle, case: Case, declared: Bucket | None) -> tuple[Case, Bucket | None]:
    """Place (or place again, after a slot changed) a case on its candidate paths; its bucket where known."""
    paths = candidate_paths(bundle, case)
    bucket = declared or bucket_of(paths)
    if len(paths) == 1:
        expected = expected_on(bundle, case, paths[0])
    else:
        expected = Expected(path=UNPLACED, outcome="")
    return case.model_copy(update={"expected": expected, "bucket": bucket or Bucket.RESOLVABLE}), bucket


def _termination(parsed: Parsed) -> TerminationReason:
    if any(isinstance(e, Handover) for e in parsed.events):
        return TerminationReason.HANDED_OVER
    if any(isinstance(e, TicketClosed) for e in parsed.events):
        return TerminationReason.CLOSED
    return TerminationReason.CUSTOMER_STOPPED


def _extract_all(
    bundle: DomainBundle, conversations: list[Parsed], model: str, api_base: str | None, concurrency: int = 8
) -> list[list[Extracted]]:
    """Each conversation's extracted slots (the ones its metadata does not state), asked concurrently."""
    import asyncio

    from sage_desk.core.llm.client import LlmClient

    client = LlmClient()
    limit = asyncio.Semaphore(concurrency)

    async def one(parsed: Parsed) -> list[Extracted]:
        given = parsed.metadata.get("slots")
        stated = given if isinstance(given, dict) else {}
        wanted = [f for f in bundle.user_fields() if f not in stated]
        async with limit:
            return await extract_slots(client, model, bundle, parsed.events, wanted, api_base)

    async def every() -> list[list[Extracted]]:
        return list(await asyncio.gather(*(one(p) for p in conversations)))

    return asyncio.run(every())


def import_files(
    store: Store,
    files: Sequence[str | Path],
    domain: str,
    fmt: str,
    name: str | None = None,
    redact: bool = False,
    skip_bad: bool = False,
    agent: str | None = None,
    redact_also: Sequence[str] = (),
    extract: str | None = None,
    api_base: str | None = None,
) -> ImportSummary:
    """Import the files' conversations as one new run (nothing when every one is already stored).

    A file with a bad line imports nothing unless `skip_bad`: InputError lists every problem.
    `extract` names a model that fills the slots the logs leave unknown (imports/extract.py).
    Conversations stream through a chunk at a time and wait on disk (store/imports.py `ItemSpill`)
    until the one transaction that stores them all: memory stays flat however large the files.
    """
    bundle = load_domain(domain)
    redactor = Redactor(tuple(redact_also))
    summary = ImportSummary(read=0, skipped=[], domain=bundle.name)
    items = ItemSpill()  # on disk until stored: memory stays flat whatever the files' size
    labels: list[NewOverride] = []
    job = _Job(store, bundle, domain, redactor if redact else None, agent, extract, api_base, summary, items, labels)
    try:
        chunk: list[Parsed] = []
        for found in _stream(files, fmt, summary.skipped):
            summary.read += 1
            chunk.append(found)
            if len(chunk) == IMPORT_CHUNK:
                job.take(chunk)
                chunk = []
        job.take(chunk)
        if summary.skipped and not skip_bad:
            raise InputError(summary.skipped)
        summary.masked = redactor.summary() if redact else ""
        if not items:
            return summary
        config = {
            "domain": domain,
            "agents": sorted(job.agents),
            "user": "imported",
            "judges": [],
            "repeats": 1,
            "imported": {
                "format": fmt,
                "files": [Path(f).name for f in files],
                "name": name or Path(files[0]).stem,
                "conversations": len(items),
                "redacted": redact,
                "extractor": extract,
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        }
        summary.run_id = store.import_run(domain, config, items)
        if labels:
            store.add_overrides(labels)  # the reviewers' labels an --events export carried, in their order
        summary.imported = len(items)
        return summary
    finally:
        items.close()


IMPORT_CHUNK = 200
"""Conversations read, placed and judged at a time before they go to disk (import_files)."""


def _stream(files: Sequence[str | Path], fmt: str, problems: list[Problem]) -> Iterator[Parsed]:
    """Every conversation of the files, read as the readers stream them; problems (and ids read again
    with other content) go to `problems`."""
    if fmt not in FORMATS:
        raise InputError.single("<import>", f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
    first: dict[str, tuple[str, str, int]] = {}  # source id -> (content hash, file, line): ids only, not content
    for name in files:
        path = Path(name)
        try:
            for found in READERS[fmt](path):
                if isinstance(found, Problem):
                    problems.append(found)
                    continue
                digest = found.content_hash()
                seen = first.setdefault(found.source_id, (digest, found.file, found.line))
                if seen[0] != digest:
                    problems.append(
                        Problem(
                            found.file,
                            found.line,
                            1,
                            f"id {found.source_id!r} was already read at {seen[1]}:{seen[2]} with different content",
                        )
                    )
                    continue
                yield found
        except OSError as exc:
            problems.append(Problem(str(path), 1, 1, str(exc) if "no such file" in str(exc) else f"cannot read: {exc}"))


@dataclass
class _Job:
    """One import's state while its conversations stream through: placed, judged and spilled a chunk at a time."""

    store: Store
    bundle: DomainBundle
    domain: str
    redactor: Redactor | None
    agent: str | None
    extract: str | None
    api_base: str | None
    summary: ImportSummary
    items: ItemSpill
    labels: list[NewOverride]
    seen: dict[str, str] = field(default_factory=dict)  # content hash -> source id, in this import
    agents: set[str] = field(default_factory=set)

    def take(self, parsed: list[Parsed]) -> None:
        """Place, judge and spill a chunk of conversations (duplicates left out and counted)."""
        if not parsed:
            return
        hashes = [p.content_hash() for p in parsed]
        # the same log read against another domain's SOP (tau's file onto Northline, then onto
        # tau_airline) is another audit, not a duplicate
        known = self.store.known_content_hashes(hashes, domains=sorted({self.domain, self.bundle.name}))
        fresh: list[tuple[Parsed, str]] = []
        for conversation, content_hash in zip(parsed, hashes, strict=True):
            if content_hash in known or content_hash in self.seen:
                earlier = known.get(content_hash, (self.seen.get(content_hash, ""), ""))[0]
                self.summary.duplicates.append((conversation.source_id, earlier))
                continue
            self.seen[content_hash] = conversation.source_id
            if self.redactor is not None:
                _redact(conversation, self.redactor)
            fresh.append((conversation, content_hash))
        extracted = (
            _extract_all(self.bundle, [p for p, _ in fresh], self.extract, self.api_base)
            if self.extract and fresh
            else [[] for _ in fresh]
        )
        for (conversation, content_hash), slots in zip(fresh, extracted, strict=True):
            self.items.add(self._item(conversation, content_hash, slots))

    def _item(self, conversation: Parsed, content_hash: str, slots: list[Extracted]) -> ImportItem:
        bundle, summary, extract = self.bundle, self.summary, self.extract
        conversation_id = f"c-{secrets.token_hex(5)}"
        _tool_kinds(bundle, conversation)
        case_id = str(conversation.carried.get("case") or f"imp-{content_hash[:12]}")
        case, sources, bucket = place(bundle, conversation, case_id, slots, extract or "")
        summary.placed += case.expected.path != UNPLACED
        summary.unplaced += case.expected.path == UNPLACED
        verdicts = evaluate_case(case, bundle, conversation.events, conversation_id, sources)
        unknown = unknown_tools(bundle, conversation.events)
        summary.unknown_tools.update(unknown)
        summary.unknown_in += bool(unknown)
        state = rules_state(verdicts)
        summary.provisional += "provisional" in (state or "")
        reward = conversation.metadata.get("tau_reward")
        values = {
            "id": conversation_id,
            "case_id": case.id,
            "agent": conversation.agent or self.agent or "imported",
            "repeat": 1,
            "bucket": bucket.value if bucket else None,
            "conflict": None,
            "tactics": [],
            "seed": None,
            "source_id": conversation.source_id[:300],
            "content_hash": content_hash,
            "tau_reward": reward if isinstance(reward, float) else None,
            "rules_state": state,
            "case_data": {
                "case": case.model_dump(mode="json"),
                "slot_sources": sources,
                "history": [],
                "citations": {s.field: s.message for s in slots},
                "metadata": conversation.metadata,
            },
        }
        item = ImportItem(values, conversation.events, _termination(conversation), verdicts)
        if conversation.carried:
            _carry_over(item, conversation.carried)
            self.labels += _carried_labels(conversation_id, conversation.carried)
        self.agents.add(str(values["agent"]))
        return item


def set_slot(store: Store, conversation_id: str, field_name: str, value: str, author: str) -> list[Verdict]:
    """A reviewer sets a slot of an imported conversation: its case is placed again and its rules re-run.

    The change is kept in the conversation's slot history (who, what, when); returns the new rule verdicts.
    """
    from sage_desk.core.rules.verdict import RULES_SOURCE

    conversation = store.conversation(conversation_id)
    data = store.imported_cases(conversation.run_id).get(conversation_id)
    if data is None:
        raise InputError.single(conversation_id, "not an imported conversation: its slots come from its case")
    bundle = load_domain(conversation.domain)
    fields = bundle.user_fields()
    if field_name not in fields:
        raise InputError.single(conversation_id, f"{field_name!r} is not a slot of the graph (slots: {', '.join(fields)})")
    if value not in fields[field_name]:
        raise InputError.single(conversation_id, f"{value!r} is not a value of {field_name} ({', '.join(fields[field_name])})")
    case = Case.model_validate(data["case"])
    declared = data.get("metadata", {}).get("bucket")
    case = case.model_copy(update={"truth": {**case.truth, field_name: value}})
    case, bucket = replace_placement(bundle, case, Bucket(declared) if declared in Bucket._value2member_map_ else None)
    sources = {**data.get("slot_sources", {}), field_name: f"reviewer:{author}"}
    history = [
        *data.get("history", []),
        {"field": field_name, "value": value, "author": author, "at": datetime.now(UTC).isoformat(timespec="seconds")},
    ]
    verdicts = evaluate_case(case, bundle, store.events(conversation_id), conversation_id, sources)
    store.set_case_data(
        conversation_id,
        {**data, "case": case.model_dump(mode="json"), "slot_sources": sources, "history": history},
        bucket.value if bucket else None,
        rules_state(verdicts),
    )
    store.save_verdicts(conversation_id, RULES_SOURCE, verdicts)
    return verdicts
