"""Everything the Review screen shows about one conversation, read through the store and core.

Domains and case suites are loaded once per (domain, suite) and kept: moving from conversation
to conversation then costs two small queries (events, verdicts) and a route trace. A domain or
case that cannot be found (a run of a folder since moved) leaves the graph out with a note; the
transcript, tool calls and verdicts still show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sage_desk.core.cases.model import Case
from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.errors import SageError
from sage_desk.core.events import Event
from sage_desk.core.rules.trace import PathTrace, trace_conversation
from sage_desk.core.store.records import ConversationRecord, StoredVerdict

if TYPE_CHECKING:
    from sage_desk.core.store import Store


@dataclass
class ConversationDetail:
    """One conversation as the Review screen shows it."""

    record: ConversationRecord
    events: list[Event]
    verdicts: list[StoredVerdict]
    bundle: DomainBundle | None = None
    case: Case | None = None
    trace: PathTrace | None = None
    problem: str = ""
    """Why the graph or case is missing, when it is."""
    tool_kinds: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.record.id

IMPORTED = "<imported>"  # the suite of an imported run: its cases live with its conversations


class DetailLoader:
    """Reads conversations with their domain, case and route; domains and suites cached."""

    def __init__(self, store: Store):
        self.store = store
        self._domains: dict[str, DomainBundle | SageError] = {}
        self._suites: dict[tuple[str, str], dict[str, Case] | SageError] = {}
        self._suite_of_run: dict[str, str | None] = {}

    def load(self, conversation_id: str) -> ConversationDetail:
        """The conversation, its events, effective verdicts, and (when found) case and route."""
        record = self.store.conversation(conversation_id)
        detail = ConversationDetail(record, self.store.events(conversation_id),
                                    self.store.effective_verdicts(conversation_id=conversation_id))
        bundle = self.bundle(record.domain)
        if isinstance(bundle, SageError):
            detail.problem = f"Domain {record.domain!r} could not be loaded: {bundle}"
            return detail
        detail.bundle = bundle
        detail.tool_kinds = {name: spec.kind.value for name, spec in bundle.domain.tools.items()}
        cases = self._cases(record.run_id, bundle)
        if isinstance(cases, SageError):
            detail.problem = f"The case suite could not be loaded: {cases}"
            return detail
        detail.case = cases.get(record.case_id)
        if detail.case is None:
            detail.problem = f"Case {record.case_id!r} is no longer in the domain's suite."
            return detail
        detail.trace = trace_conversation(detail.case, bundle, detail.events)
        return detail

    def bundle(self, domain: str) -> DomainBundle | SageError:
        """The domain, loaded once (or the error it raised)."""
        if domain not in self._domains:
            try:
                self._domains[domain] = load_domain(domain)
            except SageError as exc:
                self._domains[domain] = exc
        return self._domains[domain]

    def _cases(self, run_id: str, bundle: DomainBundle) -> dict[str, Case] | SageError:
        if run_id not in self._suite_of_run:
            config = self.store.get_run(run_id).config
            config = config if isinstance(config, dict) else {}
            self._suite_of_run[run_id] = IMPORTED if config.get("imported") else config.get("suite")
        if self._suite_of_run[run_id] == IMPORTED:  # cases the import built, kept with each conversation
            from sage_desk.core.session import imported_cases

            return imported_cases(self.store, run_id)[0]
        path = self._suite_of_run[run_id] or str(bundle.cases_path)
        key = (bundle.name, path)
        if key not in self._suites:
            try:
                self._suites[key] = {c.id: c for c in load_suite(path)}
            except SageError as exc:
                self._suites[key] = exc
        return self._suites[key]
